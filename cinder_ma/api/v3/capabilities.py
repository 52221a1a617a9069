"""A backend's capabilities: ``GET /v3/{project_id}/capabilities/
{hostname}`` (admins), Cinder's ``capabilities`` extension.

``hostname`` is a backend (``host@backend``), one of its pools as
``scheduler-stats/get_pools`` names them (``host@backend#pool``), or a
host (its first backend).
"""

from cinder_ma.api import expose
from cinder_ma.api.views import capabilities as views
from cinder_ma.volume import pools


@expose.expose()
def show(req, project_id, hostname):
    service, caps = pools.backend_capabilities(req.context, hostname)
    return views.show(service, caps)
