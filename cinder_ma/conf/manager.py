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

"""Options of the ``[manager]`` group: the per-host manager service.

How long a caller waits for a manager's answer is oslo.messaging's own
``[DEFAULT] rpc_response_timeout``, registered here too (the same
definition) so that it is read in every mode, the in-process RPC of
cinder-ma-all included, where oslo.messaging never registers it.
"""

from oslo_config import cfg
from oslo_messaging import opts as messaging_opts

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
    cfg.IntOpt('work_lease_time',
               default=90, min=2,
               help='Seconds a claim on in-flight work (a volume being '
                    'created, deleted or extended, an attachment being '
                    'attached or detached) holds unless its process '
                    'renews it; its process renews it every '
                    'report_interval. Work whose claim expired, or that '
                    'nobody claimed and that did not change for this long '
                    '(a lost request), is finished or rolled back by a '
                    'manager that can do it. Keep it above '
                    '[DEFAULT] rpc_response_timeout and several '
                    'report_interval. '
                    'See docs/admin/operations.rst.'),
    cfg.IntOpt('reconcile_interval',
               default=30, min=1,
               help='Seconds between two runs of a manager\'s reconcile '
                    'loop, which looks for in-flight work nobody holds '
                    '(see work_lease_time). Interrupted work is finished '
                    'or rolled back within work_lease_time + '
                    'reconcile_interval seconds, once a manager that can '
                    'do it runs.'),
]


#: oslo.messaging's option (listed in the sample under its namespace).
RPC_RESPONSE_TIMEOUT = 'rpc_response_timeout'


def _messaging_default_opts():
    for group, group_opts in messaging_opts.list_opts():
        if group in (None, 'DEFAULT'):
            return [opt for opt in group_opts
                    if opt.name == RPC_RESPONSE_TIMEOUT]
    return []


def register_opts(conf):
    conf.register_group(GROUP)
    conf.register_opts(opts, group=GROUP)
    conf.register_opts(_messaging_default_opts())


def list_opts():
    return {GROUP: opts}
