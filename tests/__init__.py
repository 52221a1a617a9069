"""Tests of cinder_ma.

Importing oslo_messaging or oslo_service.service pins oslo.service's
backend, eventlet by default; a test module may import them before any
cinder_ma module, so the threading backend is chosen here, first.
"""

from oslo_service import backend as _service_backend

_service_backend.init_backend(_service_backend.BackendType.THREADING)
