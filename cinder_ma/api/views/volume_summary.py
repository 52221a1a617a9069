"""Volume summary view: Cinder's ``GET /volumes/summary`` (3.12), with
the volumes' metadata from 3.36 (``quick_summary`` in Cinder's
``cinder/api/v3/views/volumes.py``)."""

from cinder_ma.api import microversions as mv


def summary(req, count, size, metadata):
    """:param metadata: {key: [distinct values]}."""
    view = {'total_count': count, 'total_size': size}
    if req.api_version.matches(mv.VOLUME_SUMMARY_METADATA):
        view['metadata'] = metadata
    return {'volume-summary': view}
