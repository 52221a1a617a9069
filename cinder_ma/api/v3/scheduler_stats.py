"""Pools: ``GET /v3/{project_id}/scheduler-stats/get_pools`` (admins).

``?detail=true`` shows each pool's capabilities; ``volume_backend_name``
filters by backend, as Cinder's filter of the same name.
"""

from cinder_ma.api import expose
from cinder_ma.api import params
from cinder_ma.api.views import scheduler_stats as views
from cinder_ma.volume import pools


@expose.expose()
def get_pools(req, project_id):
    detail = params.boolean(req.GET, 'detail')
    found = pools.list_pools(
        req.context,
        backend_name=req.GET.get('volume_backend_name') or None)
    return views.pools(found, detail)
