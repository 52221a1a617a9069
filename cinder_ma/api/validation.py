"""JSON schema validation of request bodies, per microversion range.

A controller declares its schemas next to it, one per microversion range::

    @expose.expose(status=202)
    @validation.schema(schemas.create, max_version='3.49')
    @validation.schema(schemas.create_v350, min_version='3.50')
    def create(req, project_id, body):

The decorator parses the JSON body (malformed JSON is a 400), picks the
schema whose range holds the request's microversion, validates, and passes
the body as ``body``. :func:`check_ranges` verifies that the ranges of a
function neither overlap nor leave a gap, so that no microversion between
the first and the last silently skips validation; the app runs it on every
route when it is built, and the tests do too.

Errors read like Cinder's: ``Invalid input for field/attribute size.
Value: 0. 0 is less than the minimum of 1``.

Keywords beyond JSON schema:

* ``minimum``/``maximum`` also bound integer strings (Cinder accepts a
  size of ``"10"``).
* ``refused``: {property: message}; the property may not be set to a
  value other than null, false or "" (a value the service cannot honour,
  or a flag a newer microversion removed).
* formats ``uuid``, ``name`` (not blank) and ``printable`` (no control
  characters).
"""

import functools
import unicodedata

import jsonschema
from oslo_serialization import jsonutils
from oslo_utils import strutils
from oslo_utils import uuidutils
import webob.exc

from cinder_ma.api import microversions as mv
from cinder_ma import exception

JSON_CONTENT_TYPES = ('application/json',
                      'application/vnd.openstack.volume+json')

# Cinder's default osapi_max_request_body_size: bodies here are small.
MAX_BODY_SIZE = 114688


class ValidationError(exception.Invalid):
    message = '%(detail)s'


def is_set(value):
    """Whether a refused property carries a real value."""
    if value is None or value is False or value == '':
        return False
    if isinstance(value, str):
        return value.strip().lower() not in strutils.FALSE_STRINGS
    return True


def _as_number(instance):
    if isinstance(instance, str) and instance.isdigit():
        return int(instance)
    return instance


_BASE = jsonschema.Draft7Validator
_BASE_MINIMUM = _BASE.VALIDATORS['minimum']
_BASE_MAXIMUM = _BASE.VALIDATORS['maximum']


def _minimum(validator, minimum, instance, schema):
    yield from _BASE_MINIMUM(validator, minimum, _as_number(instance),
                             schema)


def _maximum(validator, maximum, instance, schema):
    yield from _BASE_MAXIMUM(validator, maximum, _as_number(instance),
                             schema)


def _refused(validator, refused, instance, schema):
    if not validator.is_type(instance, 'object'):
        return
    for prop, message in refused.items():
        if prop in instance and is_set(instance[prop]):
            yield jsonschema.ValidationError(
                message, path=(prop,), instance=instance[prop])


Validator = jsonschema.validators.extend(_BASE, {
    'minimum': _minimum,
    'maximum': _maximum,
    'refused': _refused,
})

FORMAT_CHECKER = jsonschema.FormatChecker()


@FORMAT_CHECKER.checks('uuid')
def _check_uuid(value):
    return not isinstance(value, str) or uuidutils.is_uuid_like(value)


@FORMAT_CHECKER.checks('name')
def _check_name(value):
    return not isinstance(value, str) or bool(value.strip())


def _printable(char):
    category = unicodedata.category(char)
    return not category.startswith('C') and (
        not category.startswith('Z') or category == 'Zs')


@FORMAT_CHECKER.checks('printable')
def _check_printable(value):
    return not isinstance(value, str) or all(map(_printable, value))


def _detail(error):
    if error.absolute_path:
        return ('Invalid input for field/attribute %(path)s. Value: '
                '%(value)s. %(message)s' % {
                    'path': error.absolute_path[-1],
                    'value': jsonutils.dumps(error.instance),
                    'message': error.message})
    return error.message


def validate(request_schema, body):
    """Validate a parsed body; raise a 400 ValidationError if invalid."""
    validator = Validator(request_schema, format_checker=FORMAT_CHECKER)
    error = jsonschema.exceptions.best_match(validator.iter_errors(body))
    if error is not None:
        raise ValidationError(detail=_detail(error))


def parse_body(req):
    """The JSON body of a request.

    :raises HTTPUnsupportedMediaType: a body that is not JSON.
    :raises HTTPRequestEntityTooLarge: a body over MAX_BODY_SIZE bytes.
    :raises ValidationError: missing or malformed body.
    """
    if (req.content_length or 0) > MAX_BODY_SIZE:
        raise webob.exc.HTTPRequestEntityTooLarge(
            explanation='Request is too large.')
    if not req.body:
        raise ValidationError(detail='The request body is missing.')
    if req.content_type and req.content_type not in JSON_CONTENT_TYPES:
        raise webob.exc.HTTPUnsupportedMediaType(
            explanation='Unsupported Content-Type')
    try:
        return jsonutils.loads(req.body)
    except ValueError:
        raise ValidationError(detail='Malformed request body')


class _Range:
    def __init__(self, request_schema, min_version, max_version):
        self.schema = request_schema
        self.min = mv.APIVersionRequest(min_version or mv.MIN_VERSION)
        self.max = mv.APIVersionRequest(max_version or mv.MAX_VERSION)
        if self.min > self.max:
            raise ValueError('schema range %s..%s is empty' % (
                self.min, self.max))

    def holds(self, version):
        return version.matches(self.min, self.max)


def schema(request_schema, min_version=None, max_version=None):
    """Validate the body against ``request_schema`` in [min, max].

    Stack one decorator per microversion range; None bounds mean the
    lowest and the highest microversion the API serves.
    """
    new_range = _Range(request_schema, min_version, max_version)

    def decorate(func):
        if hasattr(func, 'schema_ranges'):
            func.schema_ranges.append(new_range)
            return func

        @functools.wraps(func)
        def wrapper(req, **kwargs):
            version = req.api_version
            for candidate in wrapper.schema_ranges:
                if candidate.holds(version):
                    break
            else:
                raise exception.NotFound(
                    message='This request is not available at '
                            'microversion %s.' % version)
            body = parse_body(req)
            validate(candidate.schema, body)
            return func(req, body=body, **kwargs)

        wrapper.schema_ranges = [new_range]
        return wrapper
    return decorate


def _next(version):
    return mv.APIVersionRequest('%d.%d' % (version.major,
                                           version.minor + 1))


def check_ranges(func):
    """Raise ValueError if the schema ranges of ``func`` overlap or leave
    a gap. Functions without schemas pass."""
    ranges = sorted(getattr(func, 'schema_ranges', ()),
                    key=lambda r: (r.min, r.max))
    for before, after in zip(ranges, ranges[1:]):
        if after.min <= before.max:
            raise ValueError('%s: schema ranges %s..%s and %s..%s overlap'
                             % (func.__qualname__, before.min, before.max,
                                after.min, after.max))
        if after.min != _next(before.max):
            raise ValueError('%s: no schema between %s and %s' % (
                func.__qualname__, before.max, after.min))
    if ranges and ranges[-1].max != mv.APIVersionRequest(mv.MAX_VERSION):
        raise ValueError('%s: no schema above %s' % (
            func.__qualname__, ranges[-1].max))
