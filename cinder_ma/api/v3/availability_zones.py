"""Availability zones: ``GET /v3/{project_id}/os-availability-zone``."""

from cinder_ma.api import expose
from cinder_ma.api.views import availability_zones as views
from cinder_ma.volume import availability_zones


@expose.expose()
def index(req, project_id):
    return views.index(availability_zones.list_zones(req.context))
