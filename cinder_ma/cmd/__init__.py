"""Console scripts of cinder_ma.

Importing this package selects oslo.service's threading backend before
anything imports oslo_messaging or oslo_service.service: that import pins
the backend, and the default one is eventlet. cinder_ma runs on native
threads only.
"""

from oslo_service import backend

backend.init_backend(backend.BackendType.THREADING)

# The imports below must come after the backend is chosen.
import sys  # noqa: E402

from oslo_config import cfg  # noqa: E402
from oslo_log import log as logging  # noqa: E402

from cinder_ma import conf as cinder_ma_conf  # noqa: E402,F401
from cinder_ma.conf import opts as conf_opts  # noqa: E402
from cinder_ma import version  # noqa: E402

CONF = cfg.CONF


def prepare_service(argv=None, conf=CONF, cli_opts=()):
    """Parse the command line and config files, then set up logging.

    Every command accepts ``--config-file`` and ``--config-dir`` like any
    OpenStack service. Defaults a command wants (``conf.set_default``) must
    be set before calling this, so that configuration files still win.

    :param argv: the full command line, program name first (default
        ``sys.argv``).
    :param cli_opts: extra command line options (sub-commands) to
        register before parsing.
    """
    argv = sys.argv if argv is None else argv
    # Drop what an earlier parse left (tests run several commands in one
    # process); defaults and overrides are kept.
    conf.clear()
    for opt in cli_opts:
        conf.register_cli_opt(opt)
    logging.register_options(conf)
    conf_opts.set_defaults(conf)
    conf(argv[1:], project='cinder_ma',
         version=version.version_info.version_string())
    logging.setup(conf, 'cinder_ma')
