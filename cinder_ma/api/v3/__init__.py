"""Controllers of the v3 API (and of the version documents).

Each is thin: microversion gate, schema, one call into
:mod:`cinder_ma.volume`, a view.
"""
