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

"""A hypervisor driver that attaches nothing, for tests and the all-in-one
service.

It records which attachment is attached to which instance, with its mode
and connection info, so that tests and audits can check what a real
hypervisor would have been asked to do. It knows the owners of the
instances added with :meth:`FakeDriver.add_instance` only: through it,
projects cannot attach into any other instance. The device it reports is
the requested mountpoint (None when none was requested). A resize
(online extend) is recorded as the disk's ``size`` in bytes, and in
:attr:`FakeDriver.resizes` of the process that made it.

Its records live in one file of the host,
``$state_path/fake-hypervisor.json``, as a real host's domains outlive
the manager: they survive a restart or a ``kill -9`` of the process, and
every process serving the host (the workers of ``cinder-ma-all``, a
``cinder-ma-manage`` command) sees the same ones. A change reads the
file, changes it and writes it again under an inter-process lock
(oslo.concurrency's external lock ``cinder_ma-fake-hypervisor``, in
``[oslo_concurrency] lock_path``), replacing it atomically (a new file
renamed over the old one), so that a reader never needs the lock and
never sees half a write. The file is not synced to disk: the records
outlive processes, not the machine, as the running domains of a real
host do. With a few dozen attachments on the host, a change costs about
a millisecond (the file read, written anew and renamed) and a read a few
hundredths of one: nothing next to an attach flow.
"""

import json
import os
import tempfile

from oslo_concurrency import lockutils
from oslo_log import log as logging

from cinder_ma import exception
from cinder_ma.hypervisor.drivers import base

LOG = logging.getLogger(__name__)

#: The records' file, in ``[DEFAULT] state_path``.
STATE_FILE = 'fake-hypervisor.json'
#: The external lock serializing changes of that file.
LOCK_NAME = 'cinder_ma-fake-hypervisor'


def _empty():
    return {'attachments': {}, 'owners': {}}


def _attached(records, instance_uuid, attachment_id):
    """The record of a disk attached to the instance; a DriverError
    otherwise, as with a real hypervisor."""
    record = records['attachments'].get(attachment_id)
    if record is None or record['instance_uuid'] != instance_uuid:
        raise exception.DriverError(
            reason='attachment %s is not attached to instance %s' % (
                attachment_id, instance_uuid))
    return record


class FakeDriver(base.HypervisorDriver):
    """Records attachments and instance owners in a file of the host."""

    capabilities = base.HypervisorCapabilities(
        supports_multiattach=True, reports_instance_owner=True,
        supports_extend_volume=True, supports_reconnect=True)

    #: The owner of instances that were not added (None: unknown); kept
    #: in memory, by the process that sets it (tests).
    default_owner = None

    def __init__(self, conf):
        super().__init__(conf)
        self.path = os.path.join(os.path.abspath(conf.state_path),
                                 STATE_FILE)
        #: (instance_uuid, attachment_id, new_size_bytes) of every resize
        #: this process made.
        self.resizes = []

    # The records

    def _read(self):
        try:
            with open(self.path, encoding='utf-8') as f:
                records = json.load(f)
        except FileNotFoundError:
            return _empty()
        except ValueError as exc:
            # Written by a rename: never half a file, unless edited.
            raise exception.DriverError(
                reason='the fake hypervisor\'s records %s are not JSON: '
                       '%s' % (self.path, exc))
        for key, value in _empty().items():
            records.setdefault(key, value)
        return records

    def _write(self, records):
        directory = os.path.dirname(self.path)
        os.makedirs(directory, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=directory, prefix=STATE_FILE + '.')
        try:
            with os.fdopen(fd, 'w', encoding='utf-8') as f:
                json.dump(records, f)
            os.replace(temp, self.path)
        except BaseException:
            try:
                os.unlink(temp)
            except OSError:
                pass
            raise

    def _change(self, func):
        """``func(records)`` under the lock; the records are written back
        when it returns True. Returns what ``func`` returned."""
        with lockutils.lock(LOCK_NAME, external=True, do_log=False):
            records = self._read()
            changed = func(records)
            if changed:
                self._write(records)
            return changed

    # Instances

    def add_instance(self, instance_uuid, project_id):
        """Record an instance of this host and its owner, as a compute
        service records them when it creates the instance."""
        def add(records):
            records['owners'][instance_uuid] = project_id
            return True
        self._change(add)

    def get_instance_owner(self, instance_uuid):
        return self._read()['owners'].get(instance_uuid, self.default_owner)

    # Disks

    def attach_volume(self, instance_uuid, connection_info, attachment_id,
                      mountpoint=None, mode='rw', shareable=False):
        if mode not in ('rw', 'ro'):
            raise exception.DriverError(
                reason='access mode must be rw or ro, not %r' % mode)
        record = {'instance_uuid': instance_uuid,
                  'attachment_id': attachment_id,
                  'connection_info': connection_info,
                  'mountpoint': mountpoint,
                  'mode': mode,
                  'shareable': bool(shareable),
                  'size': None}
        found = {}

        def attach(records):
            existing = records['attachments'].get(attachment_id)
            if existing is not None:
                found.update(existing)
                return False
            records['attachments'][attachment_id] = record
            return True

        if not self._change(attach):
            if found['instance_uuid'] != instance_uuid:
                raise exception.DriverError(
                    reason='attachment %s is attached to instance %s' % (
                        attachment_id, found['instance_uuid']))
            return found['mountpoint']
        LOG.info('Fake hypervisor: attached %s to instance %s (%s%s)',
                 attachment_id, instance_uuid, mode,
                 ', shareable' if shareable else '')
        return mountpoint

    def reconnect_volume(self, instance_uuid, connection_info,
                         attachment_id, mode='rw', shareable=False):
        """Record the disk's new connection and mode in place; a disk that
        is not attached to the instance is a DriverError."""
        def reconnect(records):
            record = _attached(records, instance_uuid, attachment_id)
            record.update(connection_info=connection_info, mode=mode,
                          shareable=bool(shareable))
            return True

        self._change(reconnect)
        LOG.info('Fake hypervisor: reconnected %s of instance %s (%s)',
                 attachment_id, instance_uuid, mode)

    def detach_volume(self, instance_uuid, connection_info, attachment_id):
        def detach(records):
            record = records['attachments'].get(attachment_id)
            if record is None or record['instance_uuid'] != instance_uuid:
                return False
            del records['attachments'][attachment_id]
            return True

        if self._change(detach):
            LOG.info('Fake hypervisor: detached %s from instance %s',
                     attachment_id, instance_uuid)

    def resize_volume(self, instance_uuid, attachment_id, new_size_bytes):
        """Record the disk's new size; a disk that is not attached to the
        instance is a DriverError, as with a real hypervisor."""
        def resize(records):
            record = _attached(records, instance_uuid, attachment_id)
            record['size'] = int(new_size_bytes)
            return True

        self._change(resize)
        self.resizes.append((instance_uuid, attachment_id,
                             int(new_size_bytes)))
        LOG.info('Fake hypervisor: resized %s of instance %s to %d bytes',
                 attachment_id, instance_uuid, new_size_bytes)

    def list_attachments(self, instance_uuid=None):
        """The recorded attachments (of one instance, or all), oldest
        first."""
        return [r for r in self._read()['attachments'].values()
                if instance_uuid in (None, r['instance_uuid'])]

    def list_attached_disks(self):
        """The recorded attachments, as audits read them."""
        return [{'instance_uuid': r['instance_uuid'],
                 'attachment_id': r['attachment_id'],
                 'target': r['mountpoint']}
                for r in self.list_attachments()]
