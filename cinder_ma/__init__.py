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

"""cinder_ma: block storage built around volume multi-attach.

Importing anything of cinder_ma imports this package first, so the
process-wide choices every command, WSGI server and test needs are made
here, once:

* oslo.service's threading backend. Importing ``oslo_messaging`` or
  ``oslo_service.service`` pins oslo.service's backend, eventlet unless
  one was chosen before; cinder_ma runs on native threads only (hacking
  check CM301 bans eventlet's import). This is the one place that
  chooses it.
* eventlet's deprecation warning is filtered: oslo.service depends on
  eventlet, and futurist imports it whenever it is installed, which
  makes eventlet print that warning in every process, where it says
  nothing to cinder_ma's users.
"""

import warnings

warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')

from oslo_service import backend as _service_backend  # noqa: E402

_service_backend.init_backend(_service_backend.BackendType.THREADING)
