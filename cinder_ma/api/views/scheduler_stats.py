"""Pool views: Cinder's ``scheduler-stats/get_pools``
(``cinder/api/views/scheduler_stats.py``)."""

from cinder_ma.api import views


def pools(pool_list, detail):
    """:param pool_list: [{'name', 'capabilities'}] from the service."""
    if not detail:
        return {'pools': [{'name': pool['name']} for pool in pool_list]}
    shown = []
    for pool in pool_list:
        caps = dict(pool['capabilities'])
        for key in ('timestamp', 'updated'):
            if key in caps:
                caps[key] = views.isotime(caps[key])
        shown.append({'name': pool['name'], 'capabilities': caps})
    return {'pools': shown}
