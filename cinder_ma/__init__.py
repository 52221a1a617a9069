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

"""cinder_ma: block storage built around volume multi-attach."""

import warnings

# oslo.service depends on eventlet, and futurist imports it whenever it
# is installed, which makes eventlet print its deprecation warning in
# every process. cinder_ma never uses eventlet (the threading backend is
# selected in cinder_ma.cmd and cinder_ma.rpc; hacking check CM301 bans
# its import), so that warning says nothing to its users. Importing
# anything of cinder_ma imports this package first: it is filtered once,
# here, for every command and WSGI server.
warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')
