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

"""Configuration options of cinder_ma, one module per option group.

Every module registers its options explicitly on the global ``CONF`` here,
so that importing :mod:`cinder_ma.conf` is all a command needs.
"""

from oslo_concurrency import lockutils
from oslo_concurrency import opts as concurrency_opts
from oslo_config import cfg
from oslo_middleware import sizelimit

from cinder_ma.conf import api
from cinder_ma.conf import backend
from cinder_ma.conf import coordination
from cinder_ma.conf import database
from cinder_ma.conf import default
from cinder_ma.conf import healthcheck
from cinder_ma.conf import hypervisor
from cinder_ma.conf import manager
from cinder_ma.conf import message
from cinder_ma.conf import nova
from cinder_ma.conf import quota
from cinder_ma.conf import upgrade_levels

CONF = cfg.CONF

default.register_opts(CONF)
healthcheck.register_opts(CONF)
api.register_opts(CONF)
backend.register_opts(CONF)
coordination.register_opts(CONF)
database.register_opts(CONF)
hypervisor.register_opts(CONF)
manager.register_opts(CONF)
message.register_opts(CONF)
nova.register_opts(CONF)
quota.register_opts(CONF)
upgrade_levels.register_opts(CONF)

# Host-local file locks (the libvirt driver's per-instance lock) live in
# the state directory unless [oslo_concurrency] lock_path says otherwise.
# The connection locks are the coordination backend's ([coordination]).
lockutils.set_defaults('$state_path/locks')
for _group, _group_opts in concurrency_opts.list_opts():
    CONF.register_opts(_group_opts, group=_group)

# The body size limit of the API's sizelimit middleware, registered here
# so that the embedded server reads the same limit (cinder_ma.cmd.api).
CONF.register_opts(sizelimit.OPTS, group='oslo_middleware')
