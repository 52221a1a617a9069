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

"""Consistent snapshots of the nbd driver's exported volumes
(:class:`PauseMixin`, of :class:`~cinder_ma.volume.drivers.nbd.NBDDriver`).

Every export's nbdkit runs nbdkit's pause filter, with a control socket
in ``nbd_exports_dir``: while a snapshot (or a clone) copies a volume's
file, each export of the volume is paused (requests received from then
on wait, and the pause is acknowledged once those in flight have
completed, within ``nbd_snapshot_drain_timeout``), and every export is
resumed afterwards, whatever happened.
"""

import contextlib
import os
import socket
import time

from oslo_log import log as logging

from cinder_ma import exception

LOG = logging.getLogger(__name__)


class PauseMixin:
    """Holding the writes of a volume's exports; the driver provides
    ``configuration`` and the exports (:class:`~.nbd_exports.ExportsMixin`:
    ``_locked``, ``_records``, ``_control_path``, ``_stop_export``)."""

    @contextlib.contextmanager
    def _paused(self, volume_id, what):
        """Hold the writes of every export of a volume while the block
        runs: each export is paused (nbdkit's pause filter: requests
        received from then on wait, and the pause is acknowledged once
        those in flight have completed, within
        ``nbd_snapshot_drain_timeout``), and every export is resumed
        afterwards, whatever happened. No new export of the volume starts
        meanwhile (the driver's lock). Yields a dict whose ``seconds``
        is, after the block, how long the exports were held (0.0 without
        exports, None when one could not be paused)."""
        result = {'seconds': None}
        with self._locked():
            keys = sorted(k for k, r in self._records().items()
                          if r['volume_id'] == volume_id)
            paused, consistent = [], True
            started = time.monotonic()
            try:
                for key in keys:
                    control = self._pause(key)
                    if control is None:
                        consistent = False
                    else:
                        paused.append((key, control))
                yield result
            finally:
                for key, control in paused:
                    self._resume(key, control)
                elapsed = time.monotonic() - started
            if keys:
                LOG.info('%s of volume %s: %d export(s) paused for %.3f s%s',
                         what, volume_id, len(paused), elapsed,
                         '' if consistent else
                         ' (some could not be paused: crash-consistent)')
            if consistent:
                result['seconds'] = round(elapsed, 3) if keys else 0.0

    def _pause(self, key):
        """Pause an export and wait until its requests in flight are
        done; returns its control connection (None when the export has
        no pause control: it cannot be paused).

        :raises DriverError: it did not acknowledge within
            ``nbd_snapshot_drain_timeout``.
        """
        path = self._control_path(key)
        if path is None or not os.path.exists(path):
            LOG.warning('The NBD export %s has no pause control (started '
                        'by an older release); a snapshot does not hold '
                        'its writes', key)
            return None
        timeout = self.configuration.nbd_snapshot_drain_timeout
        control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        control.settimeout(timeout)
        try:
            control.connect(path)
            control.sendall(b'p')
            answer = control.recv(1)
        except OSError as exc:
            control.close()
            raise exception.DriverError(
                reason='the NBD export %s did not pause within %d s '
                       '(nbd_snapshot_drain_timeout): %s' % (key, timeout,
                                                              exc))
        if answer != b'P':
            control.close()
            raise exception.DriverError(
                reason='the NBD export %s answered %r to a pause' % (
                    key, answer))
        return control

    def _resume(self, key, control):
        """Resume a paused export; logs what fails (never raises: every
        export is resumed)."""
        try:
            with control:
                control.settimeout(
                    self.configuration.nbd_snapshot_drain_timeout)
                control.sendall(b'r')
                if control.recv(1) != b'R':
                    raise OSError('no acknowledgement')
        except OSError as exc:
            LOG.error('Could not resume the NBD export %s after a '
                      'snapshot: %s; stopping it so that its client '
                      'reconnects', key, exc)
            try:
                self._stop_export(key)
            except Exception:
                LOG.exception('Could not stop the NBD export %s', key)
