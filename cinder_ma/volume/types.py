"""Volume types and their extra specs: the rules, run in the API process.
"""

from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import uuidutils

from cinder_ma.db import api as db_api
from cinder_ma import exception
from cinder_ma.policies import types as type_policies
from cinder_ma import policy

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

MULTIATTACH_SPEC = 'multiattach'


def specs_of(vtype):
    """Extra specs of a type model as a dict."""
    return {spec.key: spec.value for spec in vtype.extra_specs}


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
    """Create the type named by default_volume_type when missing."""
    name = CONF.default_volume_type
    try:
        return db_api.volume_type_get_by_name(context, name)
    except exception.VolumeTypeNotFound:
        LOG.info('Creating the default volume type %s', name)
        try:
            return db_api.volume_type_create(
                context, {'name': name,
                          'description': 'Default Volume Type'})
        except exception.VolumeTypeExists:
            return db_api.volume_type_get_by_name(context, name)


def get_default_type(context):
    try:
        return db_api.volume_type_get_by_name(context,
                                              CONF.default_volume_type)
    except exception.VolumeTypeNotFound:
        raise exception.InvalidVolumeType(
            reason='the default volume type %s does not exist; ask an '
                   'administrator to run "cinder-ma-manage db sync" or to '
                   'fix default_volume_type' % CONF.default_volume_type)


def _visible(context, vtype):
    return vtype.is_public or policy.authorize(
        context, type_policies.MANAGE, do_raise=False)


def find_type(context, name_or_id):
    """A type by id or by name, as volume create accepts either."""
    if name_or_id is None:
        return get_default_type(context)
    if uuidutils.is_uuid_like(name_or_id):
        try:
            return db_api.volume_type_get(context, name_or_id)
        except exception.VolumeTypeNotFound:
            pass
    vtype = db_api.volume_type_get_by_name(context, name_or_id)
    if not _visible(context, vtype):
        raise exception.VolumeTypeNotFoundByName(
            volume_type_name=name_or_id)
    return vtype


def create_type(context, name, description=None, is_public=True,
                extra_specs=None):
    policy.authorize(context, type_policies.MANAGE)
    extra_specs = extra_specs or {}
    _validate_specs(extra_specs)
    vtype = db_api.volume_type_create(
        context, {'name': name, 'description': description,
                  'is_public': is_public}, extra_specs)
    LOG.info('Created volume type %s (%s)', vtype.name, vtype.id)
    return vtype


def get_type(context, type_id):
    policy.authorize(context, type_policies.GET)
    if type_id == 'default':
        return get_default_type(context)
    vtype = db_api.volume_type_get(context, type_id)
    if not _visible(context, vtype):
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
    if policy.authorize(context, type_policies.MANAGE, do_raise=False):
        filters['is_public'] = is_public
    else:
        filters['is_public'] = True
    return db_api.volume_type_get_all(context, filters, marker, limit,
                                      sort_keys, sort_dirs)


def update_type(context, type_id, name=None, description=None,
                is_public=None):
    policy.authorize(context, type_policies.MANAGE)
    vtype = db_api.volume_type_get(context, type_id)
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
    return db_api.volume_type_update(context, type_id, values)


def delete_type(context, type_id):
    policy.authorize(context, type_policies.MANAGE)
    vtype = db_api.volume_type_get(context, type_id)
    if vtype.name == CONF.default_volume_type:
        raise exception.InvalidVolumeType(
            reason='the default volume type cannot be deleted')
    db_api.volume_type_destroy(context, type_id)
    LOG.info('Deleted volume type %s (%s)', vtype.name, type_id)


def can_see_extra_specs(context):
    return policy.authorize(context, type_policies.EXTRA_SPECS_READ,
                            do_raise=False)


def get_extra_specs(context, type_id):
    policy.authorize(context, type_policies.EXTRA_SPECS_READ)
    return specs_of(get_type(context, type_id))


def get_extra_spec(context, type_id, key):
    specs = get_extra_specs(context, type_id)
    if key not in specs:
        raise exception.VolumeTypeExtraSpecsNotFound(
            volume_type_id=type_id, extra_specs_key=key)
    return {key: specs[key]}


def update_extra_specs(context, type_id, specs):
    policy.authorize(context, type_policies.EXTRA_SPECS_MANAGE)
    _validate_specs(specs)
    result = db_api.volume_type_extra_specs_update_or_create(
        context, type_id, specs)
    LOG.info('Set extra specs %s on volume type %s', sorted(specs),
             type_id)
    return result


def delete_extra_spec(context, type_id, key):
    policy.authorize(context, type_policies.EXTRA_SPECS_MANAGE)
    db_api.volume_type_extra_specs_delete(context, type_id, key)
