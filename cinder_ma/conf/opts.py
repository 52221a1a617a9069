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

"""Entry points for oslo-config-generator (namespace oslo.config.opts)."""

import collections

from oslo_config import cfg
from oslo_log import log
from oslo_messaging import opts as messaging_opts
import stevedore

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

_MODULES = (default, api, backend, coordination, database, healthcheck,
            hypervisor, manager, message, nova, quota, upgrade_levels)


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


#: [keystone_authtoken] defaults: seconds of each request to Keystone
#: (connect and read) and retries of a failed connection, so that an
#: unreachable or slow Keystone turns into a 503 instead of holding API
#: threads (keystonemiddleware has no timeout by default).
KEYSTONE_TIMEOUT = 5
KEYSTONE_RETRIES = 1
RABBIT_GROUP = 'oslo_messaging_rabbit'


def set_messaging_defaults(conf):
    """Durable RabbitMQ queues and persistent messages by default
    (``[oslo_messaging_rabbit] amqp_durable_queues = True``).

    A cast answered 202 waits in the broker for its manager; with
    oslo.messaging's default (transient queues) a broker restart loses
    it. Durable classic queues survive the restart of the node holding
    them on any RabbitMQ, a single node included. Quorum queues
    (``rabbit_quorum_queue = True``, which a deployment may set instead)
    add replication across a cluster of at least three nodes, at a
    higher cost per message; they are the choice for a clustered broker,
    not a default that must also work on one node.

    oslo.messaging registers its options when a transport is made; they
    are registered here first (the same definitions) so that the default
    can be set before the configuration files are read.
    """
    for group, group_opts in messaging_opts.list_opts():
        if group == RABBIT_GROUP:
            conf.register_opts(group_opts, group=group)
    conf.set_default('amqp_durable_queues', True, group=RABBIT_GROUP)


def set_defaults(conf=None):
    """Defaults of library options as cinder_ma wants them.

    :param conf: the ConfigOpts about to be parsed (None from
        oslo-config-generator, which only needs the logging defaults).
    """
    log.set_defaults(default_log_levels=log.get_default_log_levels() + [
        'stevedore=INFO', 'taskflow=WARNING', 'alembic=WARNING'])
    from keystonemiddleware import auth_token
    for _group, group_opts in auth_token.AUTH_TOKEN_OPTS:
        # The options themselves (registered on CONF and listed by the
        # config generator), as cfg.set_defaults is meant to be used.
        cfg.set_defaults(group_opts,
                         http_connect_timeout=KEYSTONE_TIMEOUT,
                         http_request_max_retries=KEYSTONE_RETRIES)
    if conf is not None:
        set_messaging_defaults(conf)
