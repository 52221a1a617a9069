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

"""cinder-ma-manager: the manager of one host.

Runs the storage backends listed in ``enabled_backends`` and the host's
hypervisor driver, served over oslo.messaging (``rpc_transport = oslo``).
SIGHUP reloads the mutable options (restart_method 'mutate').
"""

import sys

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_service import service

from cinder_ma import cmd
from cinder_ma import coordination
from cinder_ma import exception
from cinder_ma.manager import service as manager_service
from cinder_ma import rpc

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


def main(argv=None):
    cmd.prepare_service(argv)
    cmd.setup_guru_meditation()
    if CONF.rpc_transport == 'local':
        print('cinder-ma-manager: rpc_transport = local only works inside '
              'cinder-ma-all; set rpc_transport = oslo and transport_url',
              file=sys.stderr)
        return 1
    try:
        # Fail here, not in a worker that the launcher would restart.
        manager_service.check_drivers(CONF)
        coordination.check_backend(CONF)
        # Validates the transport URL; the worker opens the connections.
        rpc.init(CONF)
    except (exception.CinderMAException, messaging.InvalidTransportURL) as exc:
        print('cinder-ma-manager: error: %s' % exc, file=sys.stderr)
        return 1
    cmd.sigint_as_sigterm()
    launcher = service.launch(CONF, manager_service.ManagerService(),
                              restart_method='mutate')
    return launcher.wait() or 0


if __name__ == '__main__':
    sys.exit(main())
