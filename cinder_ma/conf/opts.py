"""Entry points for oslo-config-generator (namespace oslo.config.opts)."""

import collections

from oslo_log import log
import stevedore

from cinder_ma.conf import api
from cinder_ma.conf import backend
from cinder_ma.conf import database
from cinder_ma.conf import default
from cinder_ma.conf import hypervisor
from cinder_ma.conf import manager

_MODULES = (default, api, backend, database, hypervisor, manager)


def _driver_opts(namespace):
    """Options declared by every installed driver of a namespace."""
    found = []
    mgr = stevedore.ExtensionManager(namespace, invoke_on_load=False)
    for ext in sorted(mgr, key=lambda e: e.name):
        found.extend(ext.plugin.get_driver_options())
    return found


def list_opts():
    grouped = collections.defaultdict(list)
    for module in _MODULES:
        for group, group_opts in module.list_opts().items():
            key = group if isinstance(group, str) else group.name
            grouped[key].extend(group_opts)
    grouped[backend.DEFAULTS_GROUP].extend(
        _driver_opts('cinder_ma.volume.drivers'))
    grouped[hypervisor.GROUP.name].extend(
        _driver_opts('cinder_ma.hypervisor.drivers'))
    return sorted(grouped.items())


def set_defaults(conf=None):
    """Defaults of library options as cinder_ma wants them."""
    log.set_defaults(default_log_levels=log.get_default_log_levels() + [
        'stevedore=INFO', 'taskflow=WARNING', 'alembic=WARNING'])
