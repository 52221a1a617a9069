# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

"""WSGI entry point of the API for uWSGI, gunicorn or mod_wsgi::

    uwsgi --http :8776 --module cinder_ma.wsgi.api:application
    gunicorn -k gthread --threads 16 cinder_ma.wsgi.api:application

Configuration files come from ``OS_CINDER_MA_CONFIG_FILES`` (a list
separated by commas or semicolons) and ``OS_CINDER_MA_CONFIG_DIR`` when
set, else from the standard places (oslo.config's search of
``~/.cinder_ma/``, ``/etc/cinder_ma/``, then
``/etc/cinder-ma/cinder-ma.conf``). Logging is set up from it and RPC is
initialised through :func:`cinder_ma.rpc.init`. Guru Meditation reports
are triggered by touching ``[oslo_reports] file_event_handler`` (each
worker watches it and writes its own report, ``cinder-ma-api-<pid>``;
signals belong to the server).

All of that happens on the first request of each worker process, not at
import: uWSGI and gunicorn import the module in a master that then forks,
and connections (the RPC transport, the database engine, the coordination
backend, each created on first use) must not be shared across a fork. A
bad configuration (such as ``auth_strategy = keystone`` without a usable
``[keystone_authtoken]``, or an unknown ``[coordination] backend_url``)
therefore shows in the log of the first request, which gets a 503 fault,
as does every request until the configuration is mended. Once its
application is built, a worker freezes its heap
(:func:`cinder_ma.cmd.freeze_heap`), as the commands' workers do.
"""

import os
import re
import threading

from oslo_config import cfg
from oslo_log import log as logging
from oslo_reports import opts as gmr_opts

from cinder_ma.api import app as api_app
from cinder_ma.api import expose
from cinder_ma import cmd
from cinder_ma.conf import opts as conf_opts
from cinder_ma import log_lines

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

CONFIG_FILES_ENV = 'OS_CINDER_MA_CONFIG_FILES'
CONFIG_DIR_ENV = 'OS_CINDER_MA_CONFIG_DIR'
DEFAULT_CONFIG_FILE = '/etc/cinder-ma/cinder-ma.conf'
PROJECT = 'cinder_ma'
#: The name of the Guru Meditation reports of the WSGI application (with
#: the worker's process id).
SERVICE_NAME = 'cinder-ma-api'


def _config_files(environ):
    listed = environ.get(CONFIG_FILES_ENV)
    if listed:
        return [f for f in re.split(r'[,;]', listed) if f.strip()]
    files = cfg.find_config_files(project=PROJECT)
    if not files and os.path.exists(DEFAULT_CONFIG_FILE):
        files = [DEFAULT_CONFIG_FILE]
    return files


def _config_dirs(environ):
    directory = environ.get(CONFIG_DIR_ENV)
    return [directory] if directory else []


def init_application(environ=None, conf=CONF):
    """Parse the configuration, set up logging and RPC, build the app,
    then freeze the heap of the worker (:func:`cinder_ma.cmd.freeze_heap`)
    and set its thread switch interval
    (:func:`cinder_ma.cmd.set_switch_interval`).
    """
    environ = os.environ if environ is None else environ
    # Forget an earlier parse (as cinder_ma.cmd.prepare_service does);
    # defaults and overrides stay.
    conf.clear()
    logging.register_options(conf)
    gmr_opts.set_defaults(conf)
    conf_opts.set_defaults(conf)
    conf([], project=PROJECT,
         default_config_files=_config_files(environ),
         default_config_dirs=_config_dirs(environ))
    logging.setup(conf, PROJECT)
    log_lines.install()
    conf.log_opt_values(LOG, logging.DEBUG)
    # One report per worker, each named after its process: workers that
    # report in the same second must not write the same file.
    cmd.setup_guru_meditation(
        conf, service_name='%s-%d' % (SERVICE_NAME, os.getpid()),
        signals=False)
    from cinder_ma import coordination
    from cinder_ma import rpc  # the manager team's module, loaded late
    coordination.check_backend(conf)
    rpc.init(conf)
    application = api_app.setup_app(conf)
    cmd.freeze_heap(conf)
    cmd.set_switch_interval(conf)
    return application


class LazyApplication:
    """A WSGI app built by ``factory()`` on its first request."""

    def __init__(self, factory):
        self._factory = factory
        self._app = None
        self._lock = threading.Lock()

    def __call__(self, environ, start_response):
        if self._app is None:
            with self._lock:
                if self._app is None:
                    try:
                        self._app = self._factory()
                    except Exception:
                        # Logged where the operator looks; the client gets
                        # a fault, and the next request tries again.
                        LOG.exception('The API could not be set up')
                        response = expose.fault_response(
                            503, 'The service is not configured '
                                 'correctly; its log says why.')
                        return response(environ, start_response)
        return self._app(environ, start_response)


application = LazyApplication(init_application)
