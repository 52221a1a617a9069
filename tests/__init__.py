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

"""Tests of cinder_ma.

Importing oslo_messaging or oslo_service.service pins oslo.service's
backend, eventlet by default; a test module may import them before any
cinder_ma module, so the threading backend is chosen here, first.
"""

from oslo_service import backend as _service_backend

_service_backend.init_backend(_service_backend.BackendType.THREADING)
