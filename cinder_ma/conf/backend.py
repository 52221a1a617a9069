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

"""Options of a storage backend section.

Like Cinder, every name in ``[DEFAULT] enabled_backends`` is a config
section holding the backend's options: the driver's entry point name, the
backend name reported to the scheduler and the driver's own options. Values
not set in a backend's section fall back to ``[backend_defaults]``.
"""

from oslo_config import cfg

DEFAULTS_GROUP = 'backend_defaults'

opts = [
    cfg.StrOpt('volume_driver',
               default='file',
               help='Entry point name of the storage driver (namespace '
                    'cinder_ma.volume.drivers), for instance "file".'),
    cfg.StrOpt('volume_backend_name',
               help='Backend name reported to the scheduler and matched by '
                    'the volume_backend_name extra spec of volume types. '
                    'Defaults to the name of the section.'),
    cfg.IntOpt('reserved_percentage',
               default=0, min=0, max=100,
               help='Percentage of the backend\'s capacity kept free: the '
                    'scheduler does not place volumes in it.'),
]


def register_opts(conf):
    conf.register_opts(opts, group=DEFAULTS_GROUP)


def list_opts():
    return {DEFAULTS_GROUP: opts}


class BackendConfig:
    """Read-only view of one backend's section with fallback to defaults.

    ``driver_opts`` are registered in the backend's section and in
    ``[backend_defaults]`` so that either can set them.
    """

    def __init__(self, conf, name, driver_opts=()):
        self._conf = conf
        self.name = name
        all_opts = list(opts) + list(driver_opts)
        conf.register_opts(all_opts, group=name)
        conf.register_opts(list(driver_opts), group=DEFAULTS_GROUP)

    def __getattr__(self, key):
        if key.startswith('_'):
            raise AttributeError(key)
        group = getattr(self._conf, self.name)
        value = getattr(group, key)
        location = self._conf.get_location(key, self.name)
        if (location is not None and
                location.location == cfg.Locations.opt_default):
            return getattr(getattr(self._conf, DEFAULTS_GROUP), key)
        return value

    @property
    def backend_name(self):
        return self.volume_backend_name or self.name
