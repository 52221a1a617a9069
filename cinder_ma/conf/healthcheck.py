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

"""Options of the ``[healthcheck]`` group: oslo.middleware's Healthcheck,
served without authentication at ``/healthcheck``.

The options are oslo.middleware's own; cinder_ma only changes defaults:
the ``disable_by_file`` backend is on, with its file in the state
directory, so that an operator takes an API process out of a load
balancer's pool by creating that file (``touch``) and back by removing it.
"""

from oslo_config import cfg
from oslo_middleware.healthcheck import opts as hc_opts

GROUP = cfg.OptGroup('healthcheck', title='Health check endpoint')

#: The URL path of the health check (outside /v3, no authentication).
PATH = '/healthcheck'

opts = hc_opts.HEALTHCHECK_OPTS + hc_opts.DISABLE_BY_FILE_OPTS

cfg.set_defaults(hc_opts.HEALTHCHECK_OPTS, backends=['disable_by_file'])
cfg.set_defaults(hc_opts.DISABLE_BY_FILE_OPTS,
                 disable_by_file_path='$state_path/healthcheck_disable')


def register_opts(conf):
    conf.register_group(GROUP)
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}
