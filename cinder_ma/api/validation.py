# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

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

Bodies are parsed strictly (:func:`parse_json`), so that nothing a client
sends reaches the database or a driver as something they cannot take: no
``NaN`` or ``Infinity``, no duplicate keys (which of two values would
count is the parser's whim), no nesting deeper than :data:`MAX_DEPTH`, no
integer beyond 64 bits, no lone surrogate or NUL in a string. The size of
a body is bounded before it is read, by oslo.middleware's sizelimit in the
WSGI pipeline (``[oslo_middleware] max_request_body_size``).
"""

import functools
import json
import math
import re
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

# The deepest nesting of arrays and objects a JSON body may have (the
# deepest schema here needs 4).
MAX_DEPTH = 32
_MIN_INT = -2 ** 63
_MAX_INT = 2 ** 63 - 1


class ValidationError(exception.Invalid):
    message = '%(detail)s'


def is_set(value):
    """Whether a refused property carries a real value."""
    if value is None or value is False or value == '':
        return False
    if isinstance(value, str):
        return value.strip().lower() not in strutils.FALSE_STRINGS
    return True


# An integer given as a string: ASCII digits, at most 19 of them (a
# longer one is beyond 64 bits; ``int()`` refuses more than 4300 digits).
_DIGITS = re.compile(r'[0-9]{1,19}', re.ASCII)


def _as_number(instance):
    if isinstance(instance, str):
        if _DIGITS.fullmatch(instance):
            return int(instance)
        if instance.isdigit():
            # Too long, or not ASCII digits: past every maximum.
            return math.inf
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


def _shown(value):
    try:
        return jsonutils.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _field(path):
    """The field of an error as Cinder names it (its last key), with the
    indexes of the arrays in it: ``wwpns[1]``."""
    field = ''
    for part in path:
        if isinstance(part, int):
            field += '[%d]' % part
        else:
            field = exception.cut(part)
    return field


def _detail(error):
    # jsonschema's message repeats the value too ("'xx...' is too
    # long"): there it is cut as well, and the message is bounded.
    message = error.message
    shown = repr(error.instance)
    if len(shown) > exception.MAX_ECHO:
        message = message.replace(shown, exception.cut(shown))
    message = exception.cut(message, 3 * exception.MAX_ECHO)
    if error.absolute_path:
        return ('Invalid input for field/attribute %(path)s. Value: '
                '%(value)s. %(message)s' % {
                    'path': _field(error.absolute_path),
                    'value': exception.cut(_shown(error.instance)),
                    'message': message})
    return message


# The validator of each schema (keyed by identity: the schemas are
# module-level constants), built at its first use: building one costs
# about three times what validating an attach request's body does.
_VALIDATORS = {}


def _validator(request_schema):
    known = _VALIDATORS.get(id(request_schema))
    if known is not None and known[0] is request_schema:
        return known[1]
    validator = Validator(request_schema, format_checker=FORMAT_CHECKER)
    _VALIDATORS[id(request_schema)] = (request_schema, validator)
    return validator


def validate(request_schema, body):
    """Validate a parsed body; raise a 400 ValidationError if invalid."""
    validator = _validator(request_schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(body))
    if error is not None:
        raise ValidationError(detail=_detail(error))


class _Malformed(ValueError):
    """JSON that parses but that the API does not take."""


def _refuse_constant(name):
    raise _Malformed('%s is not a number JSON allows' % name)


def _object(pairs):
    result = dict(pairs)
    if len(result) != len(pairs):
        seen = set()
        for key, _value in pairs:
            if key in seen:
                raise _Malformed('duplicate key "%s"' % exception.cut(key))
            seen.add(key)
    return result


def _check_string(text):
    if '\x00' in text:
        raise _Malformed('a string holds a NUL character')
    try:
        text.encode('utf-8')
    except UnicodeEncodeError:
        raise _Malformed('a string holds a lone surrogate')


def _check_parsed(value):
    """Walk a parsed document (without recursion) for what JSON allows
    but the API does not take."""
    pending = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            _check_string(item)
        elif isinstance(item, (dict, list)):
            if depth >= MAX_DEPTH:
                raise _Malformed('nested deeper than %d levels' % MAX_DEPTH)
            if isinstance(item, dict):
                for key, child in item.items():
                    _check_string(key)
                    pending.append((child, depth + 1))
            else:
                pending.extend((child, depth + 1) for child in item)
        elif isinstance(item, bool) or item is None:
            pass
        elif isinstance(item, int):
            if not _MIN_INT <= item <= _MAX_INT:
                raise _Malformed('an integer is beyond 64 bits')
        elif isinstance(item, float) and not math.isfinite(item):
            raise _Malformed('a number is out of range')


def parse_json(text):
    """A JSON document, parsed strictly (see the module's docstring).

    :param text: bytes (UTF-8) or str.
    :raises ValueError: not JSON, or JSON the API does not take; the
        message says why, cut.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode('utf-8')
        except UnicodeDecodeError:
            raise ValueError('not valid UTF-8')
    try:
        value = json.loads(text, parse_constant=_refuse_constant,
                           object_pairs_hook=_object)
    except _Malformed:
        raise
    except RecursionError:
        raise _Malformed('nested deeper than %d levels' % MAX_DEPTH)
    except ValueError as exc:
        raise ValueError(exception.cut(str(exc)))
    _check_parsed(value)
    return value


def parse_body(req):
    """The JSON body of a request.

    :raises HTTPUnsupportedMediaType: a body that is not JSON.
    :raises HTTPRequestEntityTooLarge: a body over the size limit (from
        the sizelimit middleware's reader).
    :raises ValidationError: missing or malformed body.
    """
    if not req.body:
        raise ValidationError(detail='The request body is missing.')
    if req.content_type and req.content_type not in JSON_CONTENT_TYPES:
        raise webob.exc.HTTPUnsupportedMediaType(
            explanation='Unsupported Content-Type')
    try:
        return parse_json(req.body)
    except _Malformed as exc:
        raise ValidationError(detail='Malformed request body: %s' % exc)
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
