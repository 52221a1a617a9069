"""Hosts: ``/v3/{project_id}/os-hosts`` (admins), Cinder's ``os-hosts``
list and show.

The list has a row per service (``?zone=`` filters); show gives the
volume usage of an enabled backend host (``node@backend``, or ``node``
for all its backends): the host's total and each of its projects'.
"""

from cinder_ma.api import expose
from cinder_ma.api.views import hosts as views
from cinder_ma.volume import services as volume_services


@expose.expose()
def index(req, project_id):
    return views.index(req, volume_services.list_hosts(
        req.context, zone=req.GET.get('zone') or None))


@expose.expose()
def show(req, project_id, host_name):
    total, projects = volume_services.host_usage(req.context, host_name)
    return views.show(req, host_name, total, projects)
