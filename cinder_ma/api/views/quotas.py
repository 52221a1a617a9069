"""Quota views: Cinder's ``os-quota-sets`` and ``os-quota-class-sets``.

Show and defaults carry the ``id`` (the project, or the class name);
update does not, as in Cinder (and Tempest's schemas).
"""


def quota_set(project_id, limits):
    view = dict(limits)
    view['id'] = project_id
    return {'quota_set': view}


def updated_quota_set(limits):
    return {'quota_set': dict(limits)}


def quota_class_set(class_name, limits):
    view = dict(limits)
    view['id'] = class_name
    return {'quota_class_set': view}


def updated_quota_class_set(limits):
    return {'quota_class_set': dict(limits)}
