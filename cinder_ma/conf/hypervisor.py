"""Options of the ``[hypervisor]`` group: this host's hypervisor driver."""

from oslo_config import cfg

GROUP = cfg.OptGroup('hypervisor', title='Hypervisor driver options')

opts = [
    cfg.StrOpt('driver',
               help='Entry point name (namespace '
                    'cinder_ma.hypervisor.drivers) of the hypervisor driver '
                    'this host\'s manager runs to attach volumes to its '
                    'instances. Unset: this host runs no instances.'),
]


def register_opts(conf):
    conf.register_group(GROUP)
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}
