"""Schemas of quota sets and quota classes, after Cinder's
``cinder/api/schemas/quotas.py`` and ``quota_classes.py``.

Keys and values are checked by the quota service, which knows the
resources (the volume types among them); the schema holds the envelope.
"""

update_quota_set = {
    'type': 'object',
    'properties': {
        'quota_set': {'type': 'object'},
    },
    'required': ['quota_set'],
    'additionalProperties': False,
}

update_quota_class_set = {
    'type': 'object',
    'properties': {
        'quota_class_set': {'type': 'object'},
    },
    'required': ['quota_class_set'],
    'additionalProperties': False,
}
