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

"""Quota options (``[DEFAULT]``, named as Cinder names them).

They are the defaults of every project; the ``default`` quota class
(``os-quota-class-sets/default``) overrides them, and a project's own
quotas (``os-quota-sets/{project_id}``) override both. -1 is unlimited.
"""

from oslo_config import cfg

opts = [
    cfg.IntOpt('quota_volumes',
               default=10, min=-1,
               help='Number of volumes a project may have (-1: no limit).'),
    cfg.IntOpt('quota_gigabytes',
               default=1000, min=-1,
               help='Total size in GiB of the volumes and snapshots of a '
                    'project (-1: no limit).'),
    cfg.IntOpt('quota_snapshots',
               default=10, min=-1,
               help='Number of snapshots a project may have (-1: no '
                    'limit).'),
    cfg.IntOpt('per_volume_size_limit',
               default=-1, min=-1,
               help='Largest size in GiB of one volume (-1: no limit); the '
                    'quota per_volume_gigabytes.'),
]


def register_opts(conf):
    conf.register_opts(opts)


def list_opts():
    return {'DEFAULT': opts}
