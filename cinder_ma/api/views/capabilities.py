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

"""A backend's capabilities: Cinder's ``capabilities/{hostname}``
(``cinder/api/views/capabilities.py``, Tempest's
``show_backend_capabilities`` schema: exactly these keys)."""


def show(service, caps):
    """:param service: the backend's service row (its topic names the
        namespace, as Cinder's ``cinder-volume.<host>``).
    :param caps: the backend's capability report, without pools.
    """
    properties = caps.get('properties')
    return {
        'namespace': 'OS::Storage::Capabilities::%s' % service.host,
        'vendor_name': caps.get('vendor_name'),
        'volume_backend_name': caps.get('volume_backend_name'),
        'pool_name': caps.get('pool_name'),
        'driver_version': caps.get('driver_version'),
        'storage_protocol': caps.get('storage_protocol'),
        'display_name': caps.get('display_name'),
        'description': caps.get('description'),
        'visibility': caps.get('visibility'),
        'replication_targets': list(caps.get('replication_targets') or []),
        'properties': properties if isinstance(properties, dict) else {},
    }
