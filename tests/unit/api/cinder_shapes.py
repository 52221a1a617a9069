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

"""Cinder's response shapes, per call and microversion, as JSON schemas.

Facts from Cinder's api-ref and from the response schemas Tempest
validates every Cinder response against (tempest 47.0.0,
``tempest/lib/api_schema/response/volume``), written here in our own
form: every object is closed (``additionalProperties: false``), so a key
Cinder does not send for that call fails, as it fails Tempest.

What differs between calls (the common causes of Tempest failures):

* volume create and update carry none of the attributes Cinder's
  extensions add to show and lists (``os-vol-tenant-attr:tenant_id``,
  ``os-vol-host-attr:host``, ``os-vol-mig-status-attr:*``);
* volume type create carries no ``qos_specs_id``; update neither that
  nor ``os-volume-type-access:is_public``;
* a volume's attachment entries have exactly seven keys.

Fields a microversion adds are allowed from that version on
(:func:`volume`), and required where Cinder always sends them.
"""


NULLABLE_STRING = {'type': ['string', 'null']}
STRING = {'type': 'string'}
BOOLEAN = {'type': 'boolean'}
INTEGER = {'type': 'integer'}
OBJECT = {'type': 'object'}
TIME = {'type': 'string', 'pattern': r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d'}
NULLABLE_TIME = {'anyOf': [TIME, {'type': 'null'}]}


def closed(properties, required=None):
    return {'type': 'object', 'properties': properties,
            'required': sorted(required if required is not None
                               else properties),
            'additionalProperties': False}


def wrapped(key, schema, required=True):
    return closed({key: schema}, [key] if required else [])


LINK = closed({'rel': STRING, 'href': STRING})
LINKS = {'type': 'array', 'items': LINK}

VOLUME_ATTACHMENT = closed({
    'id': STRING, 'attachment_id': STRING, 'volume_id': STRING,
    'server_id': NULLABLE_STRING, 'host_name': NULLABLE_STRING,
    'device': NULLABLE_STRING, 'attached_at': NULLABLE_TIME,
}, ['id', 'attachment_id', 'volume_id', 'server_id', 'host_name',
    'device'])

_VOLUME_BASE = {
    'id': STRING, 'status': STRING, 'size': INTEGER,
    'availability_zone': NULLABLE_STRING, 'created_at': TIME,
    'updated_at': NULLABLE_TIME, 'name': NULLABLE_STRING,
    'description': NULLABLE_STRING, 'volume_type': NULLABLE_STRING,
    'snapshot_id': NULLABLE_STRING, 'source_volid': NULLABLE_STRING,
    'metadata': OBJECT, 'links': LINKS, 'user_id': STRING,
    'bootable': {'enum': ['true', 'false']}, 'encrypted': BOOLEAN,
    'replication_status': NULLABLE_STRING,
    'consistencygroup_id': NULLABLE_STRING, 'multiattach': BOOLEAN,
    'attachments': {'type': 'array', 'items': VOLUME_ATTACHMENT},
    'migration_status': NULLABLE_STRING,
}
_VOLUME_REQUIRED = sorted(set(_VOLUME_BASE) - {'migration_status'})

# Fields of the volume detail by the microversion that adds them.
_VOLUME_BY_VERSION = (
    ((3, 13), {'group_id': NULLABLE_STRING}),
    ((3, 21), {'provider_id': NULLABLE_STRING}),
    ((3, 48), {'shared_targets': BOOLEAN, 'service_uuid': NULLABLE_STRING}),
    ((3, 61), {'cluster_name': NULLABLE_STRING}),
    ((3, 63), {'volume_type_id': NULLABLE_STRING}),
    ((3, 64), {'encryption_key_id': NULLABLE_STRING}),
    ((3, 65), {'consumes_quota': BOOLEAN}),
    ((3, 69), {'shared_targets': {'type': ['boolean', 'null']}}),
)
# Always sent from their version (to every caller).
_VOLUME_REQUIRED_BY_VERSION = (
    ((3, 13), ('group_id',)),
    ((3, 48), ('shared_targets', 'service_uuid')),
    ((3, 63), ('volume_type_id',)),
    ((3, 65), ('consumes_quota',)),
)

# What Cinder's extensions add to show and lists (not to create/update).
_VOLUME_EXTENSION_ATTRIBUTES = {
    'os-vol-tenant-attr:tenant_id': STRING,
    'os-vol-host-attr:host': NULLABLE_STRING,
    'os-vol-mig-status-attr:migstat': NULLABLE_STRING,
    'os-vol-mig-status-attr:name_id': NULLABLE_STRING,
    'volume_image_metadata': {'type': ['object', 'null']},
}


def _version(version):
    major, minor = str(version).split('.')
    return int(major), int(minor)


def volume(version, extended):
    """One volume's detail at ``version``; ``extended``: as show and the
    detail list answer it (with the extension attributes)."""
    version = _version(version)
    properties = dict(_VOLUME_BASE)
    required = list(_VOLUME_REQUIRED)
    for since, fields in _VOLUME_BY_VERSION:
        if version >= since:
            properties.update(fields)
    for since, fields in _VOLUME_REQUIRED_BY_VERSION:
        if version >= since:
            required.extend(fields)
    if extended:
        properties.update(_VOLUME_EXTENSION_ATTRIBUTES)
        required.append('os-vol-tenant-attr:tenant_id')
    return closed(properties, required)


def volume_create(version):
    """POST /volumes (202) and PUT /volumes/{id} (200)."""
    return wrapped('volume', volume(version, extended=False))


def volume_show(version):
    return wrapped('volume', volume(version, extended=True))


def _volume_list(item, version):
    properties = {'volumes': {'type': 'array', 'items': item},
                  'volumes_links': LINKS}
    if _version(version) >= (3, 45):
        properties['count'] = INTEGER
    return closed(properties, ['volumes'])


def volume_detail_list(version):
    return _volume_list(volume(version, extended=True), version)


def volume_summary_list(version):
    return _volume_list(closed({'id': STRING, 'name': NULLABLE_STRING,
                                'links': LINKS}), version)


METADATA = wrapped('metadata', OBJECT)
META = wrapped('meta', OBJECT)

EXTRA_SPECS = {'type': 'object',
               'additionalProperties': {'type': ['string', 'null']}}

_TYPE_BASE = {'id': STRING, 'name': STRING, 'is_public': BOOLEAN,
              'description': NULLABLE_STRING, 'extra_specs': EXTRA_SPECS}
_TYPE_REQUIRED = ['id', 'name', 'is_public', 'description']

VOLUME_TYPE = closed(dict(_TYPE_BASE, **{
    'os-volume-type-access:is_public': BOOLEAN,
    'qos_specs_id': NULLABLE_STRING}), _TYPE_REQUIRED)
VOLUME_TYPE_SHOW = wrapped('volume_type', VOLUME_TYPE)
VOLUME_TYPE_LIST = closed({
    'volume_types': {'type': 'array', 'items': VOLUME_TYPE},
    'volume_type_links': LINKS}, ['volume_types'])
VOLUME_TYPE_CREATE = wrapped('volume_type', closed(dict(_TYPE_BASE, **{
    'os-volume-type-access:is_public': BOOLEAN}),
    _TYPE_REQUIRED + ['os-volume-type-access:is_public']))
VOLUME_TYPE_UPDATE = wrapped('volume_type', closed(dict(_TYPE_BASE),
                                                   _TYPE_REQUIRED))
EXTRA_SPECS_LIST = wrapped('extra_specs', EXTRA_SPECS)
EXTRA_SPEC_ITEM = dict(EXTRA_SPECS, minProperties=1, maxProperties=1)
TYPE_ACCESS_LIST = wrapped('volume_type_access', {
    'type': 'array',
    'items': closed({'volume_type_id': STRING, 'project_id': STRING})})

ATTACHMENT_SUMMARY = closed({'id': STRING, 'status': STRING,
                             'instance': NULLABLE_STRING,
                             'volume_id': STRING})
ATTACHMENT_DETAIL = closed(dict(ATTACHMENT_SUMMARY['properties'], **{
    'attached_at': STRING, 'detached_at': STRING,
    'attach_mode': NULLABLE_STRING,
    'connection_info': {'type': ['object', 'null']}}))
ATTACHMENT_SHOW = wrapped('attachment', ATTACHMENT_DETAIL)
ATTACHMENT_SUMMARY_LIST = wrapped('attachments', {
    'type': 'array', 'items': ATTACHMENT_SUMMARY})
ATTACHMENT_DETAIL_LIST = wrapped('attachments', {
    'type': 'array', 'items': ATTACHMENT_DETAIL})


def services(version):
    item = {
        'binary': STRING, 'host': STRING, 'zone': STRING,
        'status': {'enum': ['enabled', 'disabled']},
        'state': {'enum': ['up', 'down']}, 'updated_at': TIME,
        'disabled_reason': NULLABLE_STRING, 'frozen': BOOLEAN,
        'replication_status': STRING, 'active_backend_id': NULLABLE_STRING,
        'backend_state': STRING}
    if _version(version) >= (3, 7):
        item['cluster'] = NULLABLE_STRING
    return wrapped('services', {'type': 'array', 'items': closed(
        item, ['binary', 'disabled_reason', 'host', 'state', 'status',
               'updated_at', 'zone'])})


_VERSION = closed({
    'id': STRING, 'status': STRING, 'version': STRING,
    'min_version': STRING, 'updated': STRING,
    'links': {'type': 'array', 'items': closed(
        {'rel': STRING, 'href': STRING, 'type': STRING}, ['rel', 'href'])},
    'media-types': {'type': 'array', 'items': closed(
        {'base': STRING, 'type': STRING})},
})
VERSIONS = wrapped('versions', {'type': 'array', 'items': _VERSION})

_EXTENSION = closed({'name': STRING, 'alias': STRING,
                     'description': STRING, 'updated': TIME,
                     'links': {'type': 'array'}, 'namespace': STRING},
                    ['name', 'alias', 'description', 'updated', 'links'])
EXTENSIONS = wrapped('extensions', {'type': 'array', 'items': _EXTENSION})
EXTENSION = wrapped('extension', _EXTENSION)


