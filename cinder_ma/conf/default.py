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

"""Options of the ``[DEFAULT]`` group."""

import socket

from oslo_config import cfg

opts = [
    cfg.StrOpt('host',
               default=socket.gethostname(),
               sample_default='<hostname>',
               help='Name of this node. Managers register under it in the '
                    'services table and it is the first part of every '
                    'volume host (host@backend#pool), so it must be unique '
                    'in a deployment and stable across restarts.'),
    cfg.StrOpt('state_path',
               default='/var/lib/cinder-ma',
               help='Directory where cinder_ma keeps its state: the '
                    'embedded SQLite database, the file backend\'s volumes '
                    'and lock files, unless those are configured elsewhere. '
                    'A relative path is taken from the working directory '
                    'of the command. cinder-ma-all defaults to '
                    './cinder-ma-state instead.'),
    cfg.StrOpt('auth_strategy',
               default='keystone',
               choices=[('noauth', 'No authentication. X-Auth-Token '
                                   '"user:project" (or X-User-Id and '
                                   'X-Project-Id) names the caller; for '
                                   'tests and the all-in-one service only.'),
                        ('keystone', 'Validate tokens with Keystone through '
                                     'keystonemiddleware (configure '
                                     '[keystone_authtoken]).')],
               help='How API requests are authenticated. With '
                    'keystone, the API refuses to start unless '
                    '[keystone_authtoken] sets www_authenticate_uri, '
                    'auth_type and the options of that auth plugin. '
                    'cinder-ma-all defaults to noauth (and warns when it '
                    'listens on an address that is not a loopback one).'),
    cfg.StrOpt('rpc_transport',
               default='oslo',
               choices=[('oslo', 'oslo.messaging, configured by '
                                 'transport_url (RabbitMQ in deployments).'),
                        ('local', 'Dispatch to the manager running in the '
                                  'same process; only cinder-ma-all can use '
                                  'it, and it is that command\'s default.')],
               help='How the API talks to managers.'),
    cfg.ListOpt('enabled_backends',
                default=[],
                help='Storage backends this node\'s manager runs, each the '
                     'name of a config section that sets volume_driver and '
                     'the driver\'s own options. cinder-ma-all enables one '
                     '"file" backend when the list is empty.'),
    cfg.StrOpt('default_volume_type',
               default='__DEFAULT__',
               help='Name of the volume type given to volumes created '
                    'without one. It is created at "db sync" when missing.'),
    cfg.StrOpt('storage_availability_zone',
               default='nova',
               help='Availability zone of this node\'s backends.'),
    cfg.IntOpt('max_attachments_per_volume',
               default=64, min=1,
               help='The most attachments (reserved, attaching, attached '
                    'or detaching) one volume may have at a time; a '
                    'reservation beyond it is refused with 400 naming the '
                    'cap. A shareable volume type\'s '
                    'multiattach:max_attachments extra spec lowers it for '
                    'the volumes of that type, never raises it. Cinder '
                    'has no such limit; the default, 64, is twice the 32 '
                    'nodes of the largest Pacemaker/Corosync cluster (the '
                    'usual consumer of a shared disk), each of which may '
                    'hold a second attachment while it is live-migrated, '
                    'and keeps a runaway client from piling up '
                    'connections on one volume.'),
]


def register_opts(conf):
    conf.register_opts(opts)


def list_opts():
    return {'DEFAULT': opts}
