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

"""Volume types and their extra specs: the rules, run in the API process.
"""

import dataclasses

from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import uuidutils

from cinder_ma.db import types as type_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.policies import types as type_policies
from cinder_ma import policy

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

MULTIATTACH_SPEC = 'multiattach'


def specs_of(vtype):
    """Extra specs of a type's record as a dict."""
    return dict(vtype.extra_specs)


def is_multiattach(extra_specs):
    """Whether extra specs make volumes shareable (``<is> True``)."""
    value = extra_specs.get(MULTIATTACH_SPEC)
    return isinstance(value, str) and value.strip().lower() == '<is> true'


def _validate_specs(specs):
    for key, value in specs.items():
        if not isinstance(key, str) or not key.strip():
            raise exception.InvalidInput(
                reason='extra spec keys must be non-empty strings')
        if value is not None and not isinstance(value, str):
            raise exception.InvalidInput(
                reason='value of extra spec %s must be a string' % key)


def ensure_default_type(context):
    """Create the type named by default_volume_type when missing.

    :returns: the type, as :func:`find_type` gives it.
    """
    name = CONF.default_volume_type
    try:
        return type_db.volume_type_find(context, name=name)
    except exception.VolumeTypeNotFound:
        LOG.info('Creating the default volume type %s', name)
        try:
            type_db.volume_type_create(
                context, {'name': name,
                          'description': 'Default Volume Type'})
        except exception.VolumeTypeExists:
            pass
        return type_db.volume_type_find(context, name=name)


def _find_default_type(context):
    try:
        return type_db.volume_type_find(context, name=CONF.default_volume_type,
                                        project_id=context.project_id)
    except exception.VolumeTypeNotFound:
        raise exception.InvalidVolumeType(
            reason='the default volume type %s does not exist; ask an '
                   'administrator to run "cinder-ma-manage db sync" or to '
                   'fix default_volume_type' % CONF.default_volume_type)


def get_default_type(context):
    """The default type, as the types API shows it."""
    return type_db.volume_type_get(context, _find_default_type(context).id)


def _visible(context, is_public, shared):
    """Public types, private ones shared with the caller's project
    (``shared``), and every type for admins."""
    return is_public or shared or policy.authorize(
        context, type_policies.MANAGE, do_raise=False)


def _visible_type(context, vtype):
    return _visible(context, vtype.is_public,
                    context.project_id in vtype.projects)


def find_type(context, name_or_id):
    """A type by id or by name, as volume create and retype accept
    either (None: the default type), with what they need of it (a
    :class:`cinder_ma.db.records.VolumeType` as
    :func:`cinder_ma.db.types.volume_type_find` reads it).

    A private type the caller's project has no access to is not found,
    by id as by name, with the answer of a type that does not exist (so
    that its id cannot be probed).
    """
    if name_or_id is None:
        return _find_default_type(context)
    if uuidutils.is_uuid_like(name_or_id):
        try:
            vtype = type_db.volume_type_find(context, type_id=name_or_id,
                                             project_id=context.project_id)
        except exception.VolumeTypeNotFound:
            pass
        else:
            if _visible(context, vtype.is_public, bool(vtype.projects)):
                return vtype
    vtype = type_db.volume_type_find(context, name=name_or_id,
                                     project_id=context.project_id)
    if not _visible(context, vtype.is_public, bool(vtype.projects)):
        raise exception.VolumeTypeNotFoundByName(
            volume_type_name=name_or_id)
    return vtype


def create_type(context, name, description=None, is_public=True,
                extra_specs=None):
    policy.authorize(context, type_policies.MANAGE)
    extra_specs = extra_specs or {}
    _validate_specs(extra_specs)
    vtype = type_db.volume_type_create(
        context, {'name': name, 'description': description,
                  'is_public': is_public}, extra_specs)
    LOG.info('Created volume type %s (%s)', vtype.name, vtype.id)
    return vtype


def get_type(context, type_id):
    policy.authorize(context, type_policies.GET)
    if type_id == 'default':
        return get_default_type(context)
    vtype = type_db.volume_type_get(context, type_id)
    if not _visible_type(context, vtype):
        raise exception.VolumeTypeNotFound(volume_type_id=type_id)
    return vtype


def list_types(context, is_public=None, filters=None, marker=None,
               limit=None, sort_keys=None, sort_dirs=None):
    """Types the caller may see: public ones, and all for admins.

    :param is_public: True, False or None (both), honoured for admins;
        other callers only ever see public types.
    """
    policy.authorize(context, type_policies.GET_ALL)
    filters = dict(filters or {})
    if filters.get('extra_specs') and not sees_sensitive_specs(context):
        # Filtering by a spec one cannot see would reveal it: such keys
        # are ignored, as in Cinder.
        filters['extra_specs'] = visible_specs(filters['extra_specs'],
                                               False)
        if not filters['extra_specs']:
            del filters['extra_specs']
    if policy.authorize(context, type_policies.MANAGE, do_raise=False):
        filters['is_public'] = is_public
    else:
        # Public types and the private ones shared with the project.
        filters['is_public'] = None
        filters['visible_to_project'] = context.project_id
    return type_db.volume_type_get_all(context, filters, marker, limit,
                                       sort_keys, sort_dirs)


def update_type(context, type_id, name=None, description=None,
                is_public=None):
    policy.authorize(context, type_policies.MANAGE)
    vtype = type_db.volume_type_get(context, type_id)
    if vtype.name == CONF.default_volume_type and name not in (
            None, vtype.name):
        raise exception.InvalidVolumeType(
            reason='the default volume type cannot be renamed')
    values = {}
    if name is not None:
        values['name'] = name
    if description is not None:
        values['description'] = description
    if is_public is not None:
        values['is_public'] = is_public
    if not values:
        return vtype
    return type_db.volume_type_update(context, type_id, values)


def delete_type(context, type_id):
    policy.authorize(context, type_policies.MANAGE)
    vtype = type_db.volume_type_get(context, type_id)
    if vtype.name == CONF.default_volume_type:
        raise exception.InvalidVolumeType(
            reason='the default volume type cannot be deleted')
    type_db.volume_type_destroy(context, type_id)
    LOG.info('Deleted volume type %s (%s)', vtype.name, type_id)


@dataclasses.dataclass(frozen=True, slots=True)
class Audience:
    """What the views of types show a caller, as policy decides:
    ``qos_specs_id`` to administrators, ``extra_specs`` to those the
    extra specs read policy allows (every one to those with the
    read_sensitive policy, else the user-visible ones)."""

    is_admin: bool
    sees_extra_specs: bool
    sees_sensitive_specs: bool

    def shown_specs(self, specs):
        """Of ``specs``, those the caller sees."""
        return visible_specs(specs, self.sees_sensitive_specs)


def audience(context):
    """The :class:`Audience` of the caller, asked once per request."""
    return Audience(
        is_admin=bool(policy.check_persona(context, 'context_is_admin')),
        sees_extra_specs=bool(can_see_extra_specs(context)),
        sees_sensitive_specs=sees_sensitive_specs(context))


def can_see_extra_specs(context):
    return policy.authorize(context, type_policies.EXTRA_SPECS_READ,
                            do_raise=False)


def sees_sensitive_specs(context):
    """Whether the caller sees every extra spec, not only the user-visible
    ones (``...types_extra_specs:read_sensitive``)."""
    return bool(policy.authorize(
        context, type_policies.EXTRA_SPECS_READ_SENSITIVE, do_raise=False))


def is_user_visible_spec(key):
    return (key in type_policies.USER_VISIBLE_EXTRA_SPECS or
            key.startswith(type_policies.USER_VISIBLE_EXTRA_SPEC_PREFIX))


def visible_specs(specs, sensitive):
    """The extra specs a caller may see.

    :param sensitive: what :func:`sees_sensitive_specs` answered.
    """
    if sensitive:
        return dict(specs)
    return {k: v for k, v in specs.items() if is_user_visible_spec(k)}


def get_extra_specs(context, type_id):
    policy.authorize(context, type_policies.EXTRA_SPECS_READ)
    return visible_specs(specs_of(get_type(context, type_id)),
                         sees_sensitive_specs(context))


def get_extra_spec(context, type_id, key):
    # A spec the caller may not see does not exist for the caller.
    specs = get_extra_specs(context, type_id)
    if key not in specs:
        raise exception.VolumeTypeExtraSpecsNotFound(
            volume_type_id=type_id, extra_specs_key=key)
    return {key: specs[key]}


def update_extra_specs(context, type_id, specs):
    policy.authorize(context, type_policies.EXTRA_SPECS_MANAGE)
    _validate_specs(specs)
    vtype = type_db.volume_type_get(context, type_id)
    expected = None
    if is_multiattach(specs):
        if vtype.encryption is not None:
            raise exception.InvalidVolumeType(
                reason='volume type %s is encrypted; an encrypted type '
                       'cannot be multiattach' % type_id)
        expected = type_db.type_has_no_encryption(type_id)
    result = type_db.volume_type_extra_specs_update_or_create(
        context, type_id, specs, expected=expected)
    LOG.info('Set extra specs %s on volume type %s', sorted(specs),
             type_id)
    return result


def delete_extra_spec(context, type_id, key):
    policy.authorize(context, type_policies.EXTRA_SPECS_MANAGE)
    type_db.volume_type_extra_specs_delete(context, type_id, key)


# Access to private types (os-volume-type-access)

def list_type_access(context, type_id):
    policy.authorize(context, type_policies.ACCESS_LIST)
    vtype = type_db.volume_type_get(context, type_id)
    if vtype.is_public:
        raise exception.NotFound(
            'Access list not available for public volume types.')
    return type_db.volume_type_access_get_all(context, type_id)


def add_type_access(context, type_id, project_id):
    policy.authorize(context, type_policies.ACCESS_ADD)
    vtype = type_db.volume_type_get(context, type_id)
    if vtype.is_public:
        raise exception.InvalidVolumeType(
            reason='access cannot be added to a public volume type')
    type_db.volume_type_access_add(context, type_id, project_id)
    LOG.info('Project %s may now use volume type %s', project_id, type_id)


def remove_type_access(context, type_id, project_id):
    policy.authorize(context, type_policies.ACCESS_REMOVE)
    type_db.volume_type_access_remove(context, type_id, project_id)
    LOG.info('Project %s may no longer use volume type %s', project_id,
             type_id)


# Encryption (/types/{id}/encryption)

ENCRYPTION_FIELDS = ('provider', 'cipher', 'key_size', 'control_location')
CONTROL_LOCATIONS = ('front-end', 'back-end')


def _check_encryption_values(values, creating):
    unknown = set(values) - set(ENCRYPTION_FIELDS)
    if unknown:
        raise exception.InvalidInput(
            reason='unknown encryption field(s): %s' % ', '.join(
                sorted(unknown)))
    if creating and not values.get('provider'):
        raise exception.InvalidInput(reason='provider is required')
    location = values.get('control_location',
                          'front-end' if creating else None)
    if location is not None and location not in CONTROL_LOCATIONS:
        raise exception.InvalidInput(
            reason='control_location must be one of %s' % ', '.join(
                CONTROL_LOCATIONS))
    if creating:
        values.setdefault('control_location', 'front-end')
    key_size = values.get('key_size')
    if key_size is not None and (not isinstance(key_size, int) or
                                 isinstance(key_size, bool) or
                                 key_size < 0):
        raise exception.InvalidInput(
            reason='key_size must be a non-negative integer')
    return values


def get_encryption(context, type_id):
    """The encryption of a type, or None."""
    policy.authorize(context, type_policies.ENCRYPTION_GET)
    return type_db.volume_type_get(context, type_id).encryption


def encryption_of(context, type_id):
    """The encryption of a volume's type, or None, for the volume's
    readers (:func:`cinder_ma.volume.api.get_encryption_metadata`, whose
    policy they passed): no policy of types here."""
    return type_db.volume_type_get(context, type_id).encryption


def create_encryption(context, type_id, values):
    policy.authorize(context, type_policies.ENCRYPTION_CREATE)
    values = _check_encryption_values(dict(values), creating=True)
    vtype = type_db.volume_type_get(context, type_id)
    _refuse_if_in_use(context, type_id, 'create')
    if is_multiattach(specs_of(vtype)):
        raise exception.InvalidVolumeType(
            reason='volume type %s is multiattach; a multiattach type '
                   'cannot be encrypted (attachments on several hosts '
                   'cannot share one encryption layer)' % type_id)
    encryption = type_db.volume_type_encryption_create(
        context, type_id, values,
        expected_specs=type_db.type_has_no_multiattach_spec(type_id))
    LOG.info('Volume type %s is now encrypted (%s)', type_id,
             values['provider'])
    return encryption


def update_encryption(context, type_id, values):
    policy.authorize(context, type_policies.ENCRYPTION_UPDATE)
    values = _check_encryption_values(dict(values), creating=False)
    _refuse_if_in_use(context, type_id, 'update')
    return type_db.volume_type_encryption_update(context, type_id, values)


def _refuse_if_in_use(context, type_id, action):
    if volume_db.volume_count(context.elevated(),
                              filters={'volume_type_id': type_id}):
        raise exception.VolumeTypeEncryptionInUse(type_id=type_id,
                                                  action=action)


def delete_encryption(context, type_id):
    policy.authorize(context, type_policies.ENCRYPTION_DELETE)
    type_db.volume_type_encryption_delete(context, type_id)
