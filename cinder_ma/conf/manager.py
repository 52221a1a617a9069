"""Options of the ``[manager]`` group: the per-host manager service."""

from oslo_config import cfg

GROUP = cfg.OptGroup('manager', title='Manager service options')

opts = [
    cfg.IntOpt('report_interval',
               default=10, min=1,
               help='Seconds between two heartbeats (and capability '
                    'reports) of a manager into the services table.'),
    cfg.IntOpt('service_down_time',
               default=60, min=1,
               help='Seconds since its last heartbeat after which a '
                    'manager is considered down and is not scheduled to.'),
    cfg.IntOpt('rpc_response_timeout',
               default=60, min=1,
               help='Seconds the API waits for a manager to answer an RPC '
                    'call.'),
]


def register_opts(conf):
    conf.register_group(GROUP)
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}
