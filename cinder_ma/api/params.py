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

"""Query string parameters shared by list requests: paging, sorting,
booleans and JSON-valued filters, with Cinder's messages; and the check
that no text of a URL carries a NUL character (which PostgreSQL refuses
in any string)."""

import ast

from oslo_config import cfg
from oslo_serialization import jsonutils
from oslo_utils import strutils
import webob.exc

from cinder_ma.api import validation
from cinder_ma import exception

CONF = cfg.CONF

SORT_DIRS = ('asc', 'desc')

# Parameters of list requests that are not filters.
PAGING_KEYS = frozenset(('limit', 'marker', 'sort', 'sort_key', 'sort_dir'))


def _bad_request(message):
    return webob.exc.HTTPBadRequest(explanation=message)


def limit(params):
    """The page size: ``limit`` capped by ``[api] max_limit``."""
    max_limit = CONF.api.max_limit
    value = params.get('limit')
    if value is None:
        return max_limit
    try:
        value = int(value)
    except ValueError:
        raise _bad_request('limit param must be an integer')
    if value < 0:
        raise _bad_request('limit param must be positive')
    return min(value, max_limit)


def marker(params):
    return params.get('marker') or None


def offset(params):
    """How many items of a sorted list to skip (``offset``), or None."""
    value = params.get('offset')
    if value is None:
        return None
    try:
        value = int(value)
    except ValueError:
        raise _bad_request('offset param must be an integer')
    if value < 0:
        raise _bad_request('offset param must be positive')
    return value


def sort(params, default_key=None, default_dir='desc'):
    """``sort=key1:dir1,key2`` or ``sort_key``/``sort_dir``.

    :returns: (sort_keys, sort_dirs); (None, None) when the request does
        not sort and there is no default key.
    """
    if 'sort' in params:
        if 'sort_key' in params or 'sort_dir' in params:
            raise _bad_request(
                "The 'sort_key' and 'sort_dir' parameters are deprecated "
                "and cannot be used with the 'sort' parameter.")
        keys, dirs = [], []
        for item in params['sort'].strip().split(','):
            key, _sep, direction = item.partition(':')
            keys.append(key.strip())
            dirs.append(direction.strip().lower() or default_dir)
    elif 'sort_key' in params or 'sort_dir' in params or default_key:
        keys = [params.get('sort_key', default_key) or 'created_at']
        dirs = [params.get('sort_dir', default_dir).strip().lower()]
    else:
        return None, None
    for key in keys:
        if not key:
            raise _bad_request('Sort key must not be empty.')
    if len(set(keys)) != len(keys):
        # The database refuses unknown keys; without repeats, a request
        # sorts by a handful of columns, not by thousands.
        raise _bad_request('A sort key is given more than once.')
    for direction in dirs:
        if direction not in SORT_DIRS:
            raise _bad_request(
                "Unknown sort direction %s, must be 'desc' or 'asc'."
                % exception.cut(direction))
    return keys, dirs


def boolean(params, name, default=False):
    """A strict boolean parameter (Cinder's ``get_bool_param``)."""
    value = params.get(name)
    if value is None:
        return default
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise _bad_request("Value '%s' for '%s' is not a boolean" % (
            exception.cut(value), exception.cut(name)))


def json_object(params, name):
    """A filter given as an object: JSON (``metadata={"k": "v"}``) or, as
    Cinder reads it (``ast.literal_eval``), a Python literal dict
    (``metadata={'k': 'v'}``, what clients that put ``str(dict)`` in the
    query send)."""
    value = params[name]
    try:
        parsed = validation.parse_json(value)
    except ValueError:
        try:
            parsed = ast.literal_eval(value)
        except (ValueError, SyntaxError, TypeError, MemoryError,
                RecursionError):
            parsed = None
    if not isinstance(parsed, dict):
        raise _bad_request(
            'Invalid input received: %s filter must be an object, '
            'not %s' % (name, exception.cut(value)))
    return {str(k): v if isinstance(v, str) else jsonutils.dumps(v)
            for k, v in parsed.items()}


def check_url_text(req, path_params):
    """Refuse a URL whose path parameters or query string hold a NUL.

    :raises HTTPBadRequest: with a NUL anywhere in them.
    """
    # A URL without the project (3.67) has project_id None.
    texts = [value for value in path_params.values() if value is not None]
    for key, value in req.GET.items():
        texts.append(key)
        texts.append(value)
    for text in texts:
        if '\x00' in text:
            raise _bad_request('The request URL holds a NUL character.')
