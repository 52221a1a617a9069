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

"""Options of the ``[nova]`` group: how a manager reaches Nova's compute
API to tell it of an extend (:mod:`cinder_ma.manager.nova`).

The options are keystoneauth's, registered through its documented loading
API: the session (TLS, ``timeout``), the auth plugin (``auth_type`` and
the plugin's own options, such as ``password``'s ``auth_url``,
``username``...) and the adapter (``service_type``, ``valid_interfaces``,
``region_name``, ``endpoint_override``...). Nothing is sent to Nova while
``auth_type`` is unset.
"""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

GROUP_NAME = 'nova'


def _group():
    # A group of its own for each ConfigOpts: keystoneauth registers the
    # options of the auth plugin it loads (required ones among them) on
    # the group, and an OptGroup's copies share their options.
    return cfg.OptGroup(
        GROUP_NAME, title='Nova (compute) client options',
        help='The service user and endpoint the managers use to send Nova '
             'the "volume-extended" external event (POST /os-server-'
             'external-events, compute microversion 2.51) when a volume '
             'attached to Nova instances is extended. Nova\'s policy '
             'allows it to the admin and service roles. Unset auth_type: '
             'Nova is not told, and an extend of a volume attached to Nova '
             'instances is seen by them only once Nova reads the volume '
             'again.')


#: Seconds of every request to Keystone and Nova (connect and read), so
#: that an unreachable or slow endpoint never holds an extend's flow.
DEFAULT_TIMEOUT = 30

#: Defaults of keystoneauth's adapter options: Nova's catalog entry.
ADAPTER_DEFAULTS = {'service_type': 'compute',
                    'valid_interfaces': ['public']}

#: The auth plugin whose options the sample shows (others load the same
#: way, by ``auth_type``).
SAMPLE_PLUGIN = 'password'


def _session_opts():
    opts = ks_loading.get_session_conf_options()
    cfg.set_defaults(opts, timeout=DEFAULT_TIMEOUT)
    return opts


def _adapter_opts():
    opts = ks_loading.get_adapter_conf_options(include_deprecated=False)
    cfg.set_defaults(opts, **ADAPTER_DEFAULTS)
    return opts


def register_opts(conf):
    conf.register_group(_group())
    ks_loading.register_session_conf_options(conf, GROUP_NAME)
    ks_loading.register_auth_conf_options(conf, GROUP_NAME)
    ks_loading.register_adapter_conf_options(conf, GROUP_NAME,
                                             include_deprecated=False)
    conf.set_default('timeout', DEFAULT_TIMEOUT, group=GROUP_NAME)
    for name, value in ADAPTER_DEFAULTS.items():
        conf.set_default(name, value, group=GROUP_NAME)


def list_opts():
    plugin = [opt for opt in
              ks_loading.get_auth_plugin_conf_options(SAMPLE_PLUGIN)]
    return {_group(): (_session_opts() +
                    ks_loading.get_auth_common_conf_options() +
                    plugin + _adapter_opts())}
