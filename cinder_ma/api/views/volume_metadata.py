"""Volume metadata, in the shapes of Cinder's
``cinder/api/v2/volume_metadata.py``: ``{"metadata": {...}}`` for the
whole, ``{"meta": {key: value}}`` for one item. Keys come sorted, so that
the same metadata always serializes to the same bytes (its ETag)."""


def as_dict(volume):
    """The metadata of a volume model, sorted by key."""
    return dict(sorted((m.key, m.value) for m in volume.volume_metadata))


def index(metadata):
    return {'metadata': dict(sorted(metadata.items()))}


def item(key, value):
    return {'meta': {key: value}}
