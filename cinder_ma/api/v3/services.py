"""Services: ``GET /v3/{project_id}/os-services`` (admins).

Lists the managers and their storage backends with their state, filtered
by ``host`` and ``binary`` as in Cinder.
"""

from cinder_ma.api import expose
from cinder_ma.api.views import services as views
from cinder_ma.volume import services as volume_services


@expose.expose()
def index(req, project_id):
    services = volume_services.list_services(
        req.context, host=req.GET.get('host') or None,
        binary=req.GET.get('binary') or None)
    return views.index(req, services)
