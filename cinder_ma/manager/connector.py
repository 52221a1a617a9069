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

"""The host side of a connection: what os-brick does, in small.

A storage driver's ``initialize_connection`` says how a host reaches a
volume (``{'driver_volume_type': ..., 'data': {...}}``); the manager of the
instance's host then connects the host to it with the :class:`Connector`
registered for that ``driver_volume_type`` and hands the result to the
hypervisor driver. Which host asks is described by
:func:`get_connector_properties`.

Connectors are small classes, one per ``driver_volume_type``: the in-tree
ones are in :data:`CONNECTORS`; a vendor adds one for its protocol by
registering the class as an entry point named after the type in the
:data:`NAMESPACE` namespace of its own package::

    [project.entry-points."cinder_ma.connectors"]
    acme-nvme = "acme_cinder_ma.connector:AcmeNVMeConnector"

Serializing connections to shared targets, and deciding whether a
connection is still used by another attachment, is the manager's job (its
attach and detach flows), not the connectors': it tells a connector when
a shared target's session is still in use.
"""

import abc
import copy
import os
import platform
import sys
import threading

from oslo_config import cfg
from oslo_log import log as logging
import stevedore
from stevedore import exception as stevedore_exc

from cinder_ma import exception

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

NAMESPACE = 'cinder_ma.connectors'

#: Where the host's iSCSI initiator name is kept (open-iscsi).
INITIATOR_FILE = '/etc/iscsi/initiatorname.iscsi'


def _read_initiator(path=None):
    """The host's iSCSI initiator name, or None when it has none."""
    path = path or INITIATOR_FILE
    try:
        with open(path) as f:
            for line in f:
                key, sep, value = line.strip().partition('=')
                if sep and key.strip() == 'InitiatorName':
                    return value.strip() or None
    except OSError:
        return None
    return None


#: The hypervisor drivers whose NBD client presents the host's X.509
#: certificate, not a TLS pre-shared key (libvirt's QEMU takes its NBD
#: TLS credentials from qemu.conf's ``nbd_tls_x509_cert_dir``): their
#: hosts ask nbd backends for X.509 exports (``nbd_tls``).
X509_NBD_HYPERVISOR_DRIVERS = ('libvirt',)


def get_connector_properties(host=None, conf=None):
    """What a backend needs to know about this host to connect it.

    :param host: the host name; ``[DEFAULT] host`` when None.
    :returns: ``{'host', 'initiator', 'platform', 'os_type',
        'multipath'}`` (``initiator`` is None on a host without an iSCSI
        initiator name), and ``'nbd_tls': 'x509'`` on a host whose
        hypervisor driver is one of :data:`X509_NBD_HYPERVISOR_DRIVERS`.
    """
    conf = conf or CONF
    props = {'host': host or conf.host,
             'initiator': _read_initiator(),
             'platform': platform.machine(),
             'os_type': sys.platform,
             'multipath': False}
    if conf.hypervisor.driver in X509_NBD_HYPERVISOR_DRIVERS:
        props['nbd_tls'] = 'x509'
    return props


def with_device(connection_info, device_info):
    """A copy of ``connection_info`` completed by a host connection:
    ``data['device_path']`` is the path the host reaches the volume at.
    """
    info = copy.deepcopy(connection_info or {})
    path = (device_info or {}).get('path')
    if path:
        info.setdefault('data', {})['device_path'] = path
    return info


def device_of(connection_info):
    """The device info recorded in a completed connection_info, or None.
    """
    path = ((connection_info or {}).get('data') or {}).get('device_path')
    return {'path': path} if path else None


class Connector(abc.ABC):
    """Connects this host to volumes of one ``driver_volume_type``.

    :param conf: the global configuration.
    """

    def __init__(self, conf):
        self.conf = conf

    @abc.abstractmethod
    def connect_volume(self, connection_info):
        """Make the volume of ``connection_info`` reachable on this host.

        When this raises, it must leave nothing connected: the manager
        does not call :meth:`disconnect_volume` for a failed connect.

        :returns: device info, ``{'path': <file or block device>}``.
        :raises DriverError: the volume could not be connected.
        """

    @abc.abstractmethod
    def disconnect_volume(self, connection_info, device_info=None,
                          shared_target_in_use=False):
        """Undo :meth:`connect_volume`: remove this volume's device from
        the host.

        Idempotent: a volume that is not connected is not an error. The
        manager calls it only when no other attachment on this host uses
        the volume's connection.

        :param device_info: what :meth:`connect_volume` returned, when
            known.
        :param shared_target_in_use: the volume's backend has shared
            targets and other volumes of it are still connected to this
            host through the same target: keep the host's session to the
            target (log out of it only when this is False).
        """


class FileConnector(Connector):
    """Volumes that are files the host sees (``driver_volume_type``
    'file'): the connection is the path, which must exist here.
    """

    def connect_volume(self, connection_info):
        data = connection_info.get('data') or {}
        path = data.get('path')
        if not path:
            raise exception.DriverError(
                reason='connection info of type file has no path')
        if not os.path.isfile(path):
            raise exception.DriverError(
                reason='volume file %s does not exist on this host (is '
                       'the backend\'s directory mounted here at the same '
                       'path?)' % path)
        return {'path': path}

    def disconnect_volume(self, connection_info, device_info=None,
                          shared_target_in_use=False):
        """Nothing to undo: the host never attached anything itself."""


class NBDConnector(Connector):
    """Network block device exports (``driver_volume_type`` 'nbd'): the
    hypervisor's NBD client connects to the export itself, so the host
    needs nothing (no kernel NBD device, no session); the device info is
    the export's ``nbd://`` URI, for the record.
    """

    def connect_volume(self, connection_info):
        data = connection_info.get('data') or {}
        missing = [k for k in ('host', 'port', 'export') if not data.get(k)]
        if missing:
            raise exception.DriverError(
                reason='connection info of type nbd has no %s' % (
                    ', '.join(missing)))
        host = str(data['host'])
        if ':' in host:
            host = '[%s]' % host
        return {'path': 'nbd://%s:%s/%s' % (host, data['port'],
                                            data['export'])}

    def disconnect_volume(self, connection_info, device_info=None,
                          shared_target_in_use=False):
        """Nothing to undo: the host itself holds no connection."""


#: The in-tree connectors by ``driver_volume_type``.
CONNECTORS = {
    'file': FileConnector,
    'nbd': NBDConnector,
}


def _load_plugin(volume_type):
    try:
        return stevedore.DriverManager(
            NAMESPACE, volume_type, invoke_on_load=False).driver
    except stevedore_exc.NoMatches:
        return None
    except Exception as exc:
        raise exception.DriverError(
            reason='cannot load the connector of driver_volume_type %s '
                   '(entry point namespace %s): %s' % (
                       volume_type, NAMESPACE, exc))


class Connectors:
    """The connectors of this host, by ``driver_volume_type``.

    :param classes: ``{driver_volume_type: Connector subclass}``; by
        default :data:`CONNECTORS`, then the entry points of
        :data:`NAMESPACE`.
    """

    def __init__(self, conf=None, classes=None):
        self.conf = conf or CONF
        self._classes = dict(CONNECTORS if classes is None else classes)
        self._plugins = classes is None
        self._instances = {}
        self._lock = threading.Lock()

    def get(self, volume_type):
        """The connector of ``volume_type``.

        :raises DriverError: no connector handles that type on this host.
        """
        with self._lock:
            connector = self._instances.get(volume_type)
            if connector is not None:
                return connector
            cls = self._classes.get(volume_type)
            if cls is None and self._plugins and volume_type:
                cls = _load_plugin(volume_type)
            if cls is None:
                raise exception.DriverError(
                    reason='this host has no connector for '
                           'driver_volume_type %r (known: %s; a package '
                           'can add one in entry point namespace %s)' % (
                               volume_type,
                               ', '.join(sorted(self._classes)), NAMESPACE))
            if not (isinstance(cls, type) and issubclass(cls, Connector)):
                raise exception.DriverError(
                    reason='the connector of driver_volume_type %s is not '
                           'a Connector' % volume_type)
            connector = self._instances[volume_type] = cls(self.conf)
            return connector

    @staticmethod
    def _type(connection_info):
        if not isinstance(connection_info, dict):
            raise exception.DriverError(
                reason='connection info is not a dict: %r' % (
                    type(connection_info).__name__,))
        return connection_info.get('driver_volume_type')

    def connect_volume(self, connection_info):
        """Connect with the connector of the info's type.

        :returns: device info, ``{'path': ...}``.
        """
        volume_type = self._type(connection_info)
        connector = self.get(volume_type)
        device_info = connector.connect_volume(connection_info)
        if isinstance(device_info, dict) and device_info.get('path'):
            return device_info
        # A connector bug; connect_volume promises nothing is left
        # connected when it fails, so keep that promise for it.
        try:
            connector.disconnect_volume(connection_info, None)
        except Exception:
            LOG.exception('Could not disconnect a %s volume whose '
                          'connector returned no device', volume_type)
        raise exception.DriverError(
            reason='the %s connector returned no device path' % volume_type)

    def disconnect_volume(self, connection_info, device_info=None,
                          shared_target_in_use=False):
        """Disconnect with the connector of the info's type."""
        connector = self.get(self._type(connection_info))
        connector.disconnect_volume(
            connection_info, device_info,
            shared_target_in_use=shared_target_in_use)
