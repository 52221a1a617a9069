"""The per-host manager: RPC endpoints, flows of tasks, the service.

Importing this package selects oslo.service's threading backend, as
:mod:`cinder_ma.cmd` does for the commands, because its modules import
oslo_messaging and oslo_service.service, which would otherwise pin the
eventlet backend.
"""

from oslo_service import backend as _service_backend

_service_backend.init_backend(_service_backend.BackendType.THREADING)
