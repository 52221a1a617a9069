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

"""A fuzz test of the whole API: hostile input never reaches a 500.

Every route of :data:`cinder_ma.api.routes.ROUTES`, with every method, is
sent bodies, headers (``OpenStack-API-Version``, ``Content-Type``,
``If-Match``, ``X-Roles``...) and
query strings drawn by hypothesis, in-process through the WSGI app (as the
other API tests): real and made-up ids in the path, JSON of every shape
and of the shapes the API expects with wrong values in them, bytes that
are no JSON. Every answer must be below 500 and every error a Cinder
fault with a short message.

The examples are derandomized (the same on every run, so that the unit
suite is deterministic) and few enough to keep the suite fast; set
``CINDER_MA_FUZZ_EXAMPLES`` to run more, with fresh randomness.
"""

import os
import re
import string
import urllib.parse

from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
from oslo_serialization import jsonutils

from cinder_ma.api import expose
from cinder_ma.api import microversions as mv
from cinder_ma.api import routes
from cinder_ma.db import messages as message_db
from cinder_ma.db import snapshots as snapshot_db
from cinder_ma import message_field
from cinder_ma.volume import qos_specs
from cinder_ma.volume import transfers
from tests.unit.api import base

_MORE = os.environ.get('CINDER_MA_FUZZ_EXAMPLES')
FUZZ = settings(max_examples=int(_MORE or 150), deadline=None,
                derandomize=not _MORE, database=None,
                # The functional suite runs the test of this class in
                # subclasses (other databases).
                suppress_health_check=[HealthCheck.too_slow,
                                       HealthCheck.data_too_large,
                                       HealthCheck.differing_executors])

# Every (template, method) of the route table.
ROUTE_METHODS = sorted((template, method)
                       for template, methods in routes.ROUTES.items()
                       for method in methods)

# Names the API knows: keys of bodies, query parameters, actions.
KNOWN_KEYS = [
    'volume', 'attachment', 'volume_type', 'extra_specs', 'metadata',
    'meta', 'encryption', 'connector', 'volume_uuid', 'instance_uuid',
    'instance_host', 'mode', 'size', 'name', 'description', 'display_name',
    'availability_zone', 'multiattach', 'bootable', 'is_public',
    'os-volume-type-access:is_public', 'os-extend', 'new_size',
    'os-attach', 'os-detach', 'os-reserve', 'os-unreserve',
    'os-begin_detaching', 'os-roll_detaching', 'os-set_bootable',
    'os-retype', 'new_type', 'migration_policy', 'os-force_delete',
    'os-complete', 'os-initialize_connection', 'os-terminate_connection',
    'addProjectAccess', 'removeProjectAccess', 'project', 'attachment_id',
    'host', 'ip', 'initiator', 'wwpns', 'multipath', 'host_name',
    'mountpoint', 'instance_uuid', 'provider', 'cipher', 'key_size',
    'control_location', 'group_id', 'backup_id', 'snapshot_id',
    'os-update_readonly_flag', 'readonly', 'os-reset_status', 'status',
    'attach_status', 'migration_status',
    'cinder-ma-multiattach:attachment_id', 'os-extend_volume_completion',
    'error', 'quota_set', 'quota_class_set', 'volumes', 'gigabytes',
    'per_volume_gigabytes', 'qos_specs', 'consumer', 'keys', 'binary',
    'service', 'disabled_reason', 'read_iops_sec_per_gb',
]
QUERY_KEYS = [
    'limit', 'marker', 'sort', 'sort_key', 'sort_dir', 'all_tenants',
    'with_count', 'name', 'name~', 'status', 'metadata', 'bootable',
    'multiattach', 'volume_type', 'availability_zone', 'is_public',
    'extra_specs', 'volume_id', 'instance_id', 'attach_status', 'cascade',
    'force', 'binary', 'host', 'usage', 'detail', 'volume_backend_name',
    'vol_type_id', 'zone', 'project_id', 'service',
]

_text = st.text(max_size=40)
_hostile_text = st.one_of(
    _text,
    st.sampled_from(['', ' ', '\x00', 'null', 'true', '-1', '0', '1e400',
                     '9' * 5000, 'NaN', '../../etc', "'; DROP TABLE",
                     'a' * 300, '\ud7ff\ue000', '\u0663', 'name:asc,',
                     'created_at:up', 'id,id,id', 'name:desc,id:asc']))
_integers = st.one_of(st.integers(-2 ** 70, 2 ** 70),
                      st.sampled_from([0, -1, 2 ** 31, 2 ** 63, 2 ** 64]))
_scalars = st.one_of(st.none(), st.booleans(), _integers,
                     st.floats(allow_nan=False, allow_infinity=False),
                     _hostile_text)
_keys = st.one_of(st.sampled_from(KNOWN_KEYS), _text)
json_values = st.recursive(
    _scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(_keys, children, max_size=4)),
    max_leaves=12)


@st.composite
def bodies(draw):
    """(bytes, content type) of a request body, or (None, None)."""
    kind = draw(st.sampled_from(['none', 'json', 'shaped', 'raw',
                                 'constants', 'deep']))
    if kind == 'none':
        return None, None
    if kind == 'raw':
        return draw(st.binary(max_size=200)), draw(st.sampled_from(
            ['application/json', 'text/plain', None]))
    if kind == 'constants':
        raw = draw(st.sampled_from([
            b'{"volume": {"size": NaN}}', b'[Infinity]', b'{"a": 1, "a": 2}',
            b'"just a string"', b'42', b'null', b'[]', b'{"\\u0000": 1}',
            b'{"volume": {"size": 1e999}}', b'{"volume": {"name": "\xff"}}',
            b'{"volume": {"size": %s}}' % (b'9' * 5000)]))
        return raw, 'application/json'
    if kind == 'deep':
        depth = draw(st.integers(30, 3000))
        return b'{"volume": ' + b'[' * depth + b']' * depth + b'}', \
            'application/json'
    if kind == 'json':
        value = draw(json_values)
    else:
        # The API's own shapes, with values drawn: reaches the schemas'
        # and the services' checks rather than stopping at the top.
        key = draw(st.sampled_from(KNOWN_KEYS))
        value = {key: draw(st.one_of(
            json_values, st.dictionaries(st.sampled_from(KNOWN_KEYS),
                                         json_values, max_size=5)))}
    return jsonutils.dumps(value).encode('utf-8'), 'application/json'


_versions = st.one_of(
    st.none(),
    st.sampled_from(['volume latest', 'volume 3.0', 'volume 3.27',
                     'volume 3.44', 'volume 3.50', 'volume 3.54',
                     'volume %s' % mv.MAX_VERSION, 'volume 3.' + '9' * 4000,
                     'volume ' + '1' * 5000 + '.0', 'volume', 'volume 3.01',
                     'compute 2.1, volume 3.27', 'volume 3.27, volume x',
                     'volume \u0663.0', 'volume 3.0_1']),
    st.text(alphabet=string.printable, max_size=30).map(
        lambda text: 'volume ' + text))


# Other headers the API reads (or a middleware does), with hostile
# values: printable Latin-1, as HTTP carries them.
_header_text = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0xff,
                           blacklist_characters='\x7f'),
    max_size=60)
extra_headers = st.dictionaries(
    st.sampled_from(['If-Match', 'Accept', 'Content-Type',
                     'X-OpenStack-Request-Id', 'X-Roles',
                     'X-Service-Roles', 'Accept-Language',
                     'X-Forwarded-Proto', 'Vary']),
    st.one_of(_header_text, st.sampled_from([
        '*', '"etag"', 'W/"x"', 'application/json', 'text/html',
        'req-' + 'x' * 300, 'admin', ''])),
    max_size=2)


@st.composite
def queries(draw):
    pairs = draw(st.lists(st.tuples(
        st.one_of(st.sampled_from(QUERY_KEYS), _text),
        st.one_of(_text, st.sampled_from([
            '', '\x00', '-1', '9' * 5000, 'true', 'yes', 'name', 'name:asc',
            'created_at:desc,id', 'id:sideways', 'nope', ',', '{"k": "v"}',
            '{"k": {"n": [1]}}', '[1]', 'NaN', 'a' * 2000]))),
        max_size=4))
    return urllib.parse.urlencode(pairs)


_PARAM = re.compile(r'\{(\w+)\}')


def _segment(text):
    return urllib.parse.quote(text, safe='') or 'x'


class TestFuzz(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.volume = self.create_volume()
        self.attachment_id = self.add_attachment(self.volume)
        self.real = {
            'project_id': base.PROJECT,
            'volume_id': self.volume.id,
            'attachment_id': self.attachment_id,
            'type_id': self.default_type.id,
            'key': 'k',
            'encryption_id': 'e',
            'alias': 'cinder-ma-multiattach',
            'action': 'enable',
            'host_name': base.BACKEND_HOST,
            'qos_id': qos_specs.create(self.admin_context, 'fuzz',
                                       {'k': 'v'}).id,
            'target_project_id': base.PROJECT,
            'class_name': 'default',
            'hostname': base.BACKEND_HOST,
            'resource_id': 'c8f0f7a2-5b1e-4c9e-9d55-2f1f7f0e0a11',
            'transfer_id': transfers.create_transfer(
                self.admin_context, self.create_volume().id)[0].id,
            'message_id': message_db.record(
                self.admin_context, base.PROJECT,
                message_field.Action.SCHEDULE_ALLOCATE_VOLUME,
                resource_uuid=self.volume.id).id,
            'snapshot_id': snapshot_db.snapshot_create(
                self.admin_context, {
                    'project_id': base.PROJECT, 'user_id': 'fake-user',
                    'volume_id': self.volume.id,
                    'volume_type_id': self.volume.volume_type_id,
                    'volume_size': self.volume.size,
                    'status': 'available'}, ('available',)).id,
        }

    def _path(self, template, made_up):
        def fill(match):
            name = match.group(1)
            if name in made_up:
                return _segment(made_up[name])
            return self.real[name]
        return _PARAM.sub(fill, template)

    def assertNoServerError(self, response, what):
        self.assertLess(response.status_int, 500, what)
        if response.status_int >= 400 and response.request.method != 'HEAD':
            body = response.json
            self.assertEqual(1, len(body), what)
            (name, fault), = body.items()
            self.assertEqual(expose.FAULT_NAMES.get(
                response.status_int, expose.DEFAULT_FAULT_NAME), name, what)
            self.assertEqual(response.status_int, fault['code'], what)
            self.assertIsInstance(fault['message'], str)
            self.assertLessEqual(len(fault['message']),
                                 expose.MAX_MESSAGE + 3, what)
            self.assertNotIn('Traceback', fault['message'])

    @FUZZ
    @given(route=st.sampled_from(ROUTE_METHODS),
           persona=st.sampled_from(['admin', 'member', 'reader',
                                    'service', 'other']),
           version=_versions, body=bodies(), query=queries(),
           made_up=st.dictionaries(
               st.sampled_from(['volume_id', 'attachment_id', 'type_id',
                                'key', 'encryption_id', 'alias', 'action',
                                'host_name', 'qos_id', 'target_project_id',
                                'class_name']),
               st.one_of(_text, st.sampled_from(
                   ['\x00', 'a' * 5000, '..', '%', 'detail',
                    '00000000-0000-0000-0000-000000000000'])),
               max_size=2),
           more_headers=extra_headers, short=st.booleans())
    def test_no_server_error(self, route, persona, version, body, query,
                             made_up, more_headers, short):
        template, method = route
        if short and template.startswith('/v3/{project_id}/'):
            # The URL without the project (3.67).
            template = '/v3' + template[len('/v3/{project_id}'):]
        path = self._path(template, made_up)
        headers = dict({'admin': base.ADMIN, 'member': base.MEMBER,
                        'reader': base.READER, 'service': base.SERVICE,
                        'other': base.OTHER_MEMBER}[persona])
        if persona == 'other':
            path = path.replace(base.PROJECT, base.OTHER_PROJECT, 1)
        if version is not None:
            headers['OpenStack-API-Version'] = version
        headers.update(more_headers)
        raw, content_type = body
        if content_type is not None:
            headers['Content-Type'] = content_type
        url = path + ('?' + query if query else '')
        what = '%s %s %r' % (method, url[:300], (raw or b'')[:300])
        response = self.app.request(url, method=method, headers=headers,
                                    body=raw if raw is not None else b'',
                                    expect_errors=True)
        self.assertNoServerError(response, what)
