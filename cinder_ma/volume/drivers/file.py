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

"""The reference storage driver: volumes as sparse raw files.

Each volume is a file ``volume-<id>`` in ``file_volumes_dir``, created
sparse with the volume's size, so that it costs no space until written.
The directory may be local or on a shared filesystem (NFS, CephFS) that
every host mounts at the same path; a connection is that path, and a host
attaches the file directly (as a raw disk, or exported with qemu-nbd).

One pool per backend, named after the backend; capacity is that of the
filesystem holding the directory.

A snapshot is a file ``snapshot-<id>`` next to its volume's, and a volume
made from a snapshot or another volume starts as a copy of its file:
a reflink (``FICLONE``: shared extents, copy-on-write, on Btrfs, XFS and
other filesystems that have them), else a sparse copy of the source's
data extents only (``SEEK_DATA``/``SEEK_HOLE`` and
``os.copy_file_range``). A copy is written to a hidden temporary file and
renamed into place, so that a crash never leaves a half-copied snapshot
or volume under its name. A snapshot of an attached volume is
crash-consistent: the writes its connections completed before the copy
are in it, the others may be or not.
"""

import errno
import fcntl
import os

from oslo_config import cfg
from oslo_log import log as logging

from cinder_ma import exception
from cinder_ma.volume.drivers import base

LOG = logging.getLogger(__name__)

#: Subdirectory of file_volumes_dir recording the connections.
CONNECTIONS_DIR = 'connections'

file_opts = [
    cfg.StrOpt('file_volumes_dir',
               default='$state_path/volumes',
               help='Directory holding the volume files of a backend using '
                    'the "file" driver. Every host that attaches its '
                    'volumes must see it at the same path.'),
]


#: linux/fs.h FICLONE: _IOW(0x94, 9, int).
FICLONE = 0x40049409
#: Bytes of one copy_file_range call of a sparse copy.
_COPY_CHUNK = 64 * 1024 * 1024


def _reflink(src_fd, dst_fd):
    """Share the extents of ``src_fd`` with ``dst_fd``; False where the
    filesystem cannot."""
    try:
        fcntl.ioctl(dst_fd, FICLONE, src_fd)
    except OSError as exc:
        if exc.errno in (errno.EOPNOTSUPP, errno.ENOTTY, errno.EXDEV,
                         errno.EINVAL, errno.ENOSYS, errno.EPERM):
            return False
        raise
    return True


def _data_extents(fd, size):
    """(offset, length) of the data of a file, holes left out."""
    offset = 0
    while offset < size:
        try:
            start = os.lseek(fd, offset, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # only a hole after offset
                return
            raise
        end = os.lseek(fd, start, os.SEEK_HOLE)
        yield start, min(end, size) - start
        offset = end


def _copy_range(src_fd, dst_fd, offset, length):
    while length > 0:
        try:
            done = os.copy_file_range(src_fd, dst_fd, min(length,
                                                          _COPY_CHUNK),
                                      offset, offset)
        except OSError as exc:
            if exc.errno not in (errno.EXDEV, errno.ENOSYS, errno.EINVAL,
                                 errno.EOPNOTSUPP):
                raise
            data = os.pread(src_fd, min(length, _COPY_CHUNK), offset)
            done = os.pwrite(dst_fd, data, offset) if data else 0
        if done <= 0:
            return
        offset += done
        length -= done


def copy_file(source, target, size):
    """Copy the file ``source`` into a new file ``target`` of ``size``
    bytes (at least the source's): a reflink where the filesystem allows,
    else a sparse copy. Written to a temporary file renamed into place.

    :returns: 'reflink' or 'sparse', how it copied.
    :raises OSError: the copy failed (nothing is left under ``target``).
    """
    tmp = os.path.join(os.path.dirname(target),
                       '.tmp-%s' % os.path.basename(target))
    with open(source, 'rb') as src:
        src_size = os.fstat(src.fileno()).st_size
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            try:
                if _reflink(src.fileno(), fd):
                    how = 'reflink'
                else:
                    how = 'sparse'
                    for offset, length in _data_extents(src.fileno(),
                                                        src_size):
                        _copy_range(src.fileno(), fd, offset, length)
                os.ftruncate(fd, max(size, src_size))
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, target)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    return how


class FileDriver(base.VolumeDriver):
    """Volumes as sparse raw files in a directory."""

    capabilities = base.Capabilities(multiattach=True,
                                     shared_targets=False,
                                     online_extend=True,
                                     snapshots=True,
                                     clone=True)
    vendor_name = 'Open Source'
    driver_version = '1.0.0'
    storage_protocol = 'file'

    @classmethod
    def get_driver_options(cls):
        return list(file_opts)

    #: file_volumes_dir as do_setup found it (the option is not mutable;
    #: reading a backend option costs a look-up of where it was set).
    _volumes_dir = None

    @property
    def volumes_dir(self):
        if self._volumes_dir is not None:
            return self._volumes_dir
        return os.path.abspath(self.configuration.file_volumes_dir)

    def path_of(self, name):
        """The path of the volume file of storage name ``name``."""
        # The id is a UUID checked by the API; refuse anything that could
        # leave the directory all the same.
        if os.sep in name or name.startswith('.'):
            raise exception.DriverError(
                reason='invalid volume name %r' % name)
        return os.path.join(self.volumes_dir, name)

    def _path(self, volume):
        return self.path_of(volume.name)

    def do_setup(self):
        path = self._volumes_dir = os.path.abspath(
            self.configuration.file_volumes_dir)
        try:
            os.makedirs(path, exist_ok=True)
        except OSError as exc:
            raise exception.DriverError(
                reason='cannot create file_volumes_dir %s: %s' % (
                    path, exc.strerror))
        if not os.access(path, os.W_OK | os.X_OK):
            raise exception.DriverError(
                reason='file_volumes_dir %s is not writable' % path)
        LOG.info('File backend %s keeps its volumes in %s',
                 self.configuration.name, path)

    def create_volume(self, volume):
        path = self._path(volume)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            raise exception.DriverError(
                reason='volume file %s already exists' % path)
        except OSError as exc:
            raise exception.DriverError(
                reason='cannot create volume file %s: %s' % (
                    path, exc.strerror))
        try:
            try:
                os.ftruncate(fd, volume.size * base.GiB)
            finally:
                os.close(fd)
        except OSError as exc:
            self._unlink(path)
            raise exception.DriverError(
                reason='cannot size volume file %s to %d GiB: %s' % (
                    path, volume.size, exc.strerror))
        LOG.info('Created volume file %s (%d GiB)', path, volume.size)

    def _unlink(self, path):
        try:
            os.unlink(path)
        except FileNotFoundError:
            return False
        return True

    def delete_volume(self, volume):
        path = self._path(volume)
        try:
            removed = self._unlink(path)
        except OSError as exc:
            raise exception.DriverError(
                reason='cannot delete volume file %s: %s' % (
                    path, exc.strerror))
        if removed:
            LOG.info('Deleted volume file %s', path)
        else:
            LOG.info('Volume file %s was already gone', path)

    def extend_volume(self, volume, new_size):
        path = self._path(volume)
        if new_size < volume.size:
            raise exception.DriverError(
                reason='cannot shrink volume %s from %d to %d GiB' % (
                    volume.id, volume.size, new_size))
        try:
            os.truncate(path, new_size * base.GiB)
        except FileNotFoundError:
            raise exception.DriverError(
                reason='volume file %s does not exist' % path)
        except OSError as exc:
            raise exception.DriverError(
                reason='cannot extend volume file %s: %s' % (
                    path, exc.strerror))

    # Snapshots and clones

    def _copy(self, what, source, target, size, exclusive=True):
        if exclusive and os.path.exists(target):
            raise exception.DriverError(
                reason='%s: %s already exists' % (what, target))
        try:
            how = copy_file(source, target, size)
        except FileNotFoundError:
            raise exception.DriverError(
                reason='%s: %s does not exist' % (what, source))
        except OSError as exc:
            raise exception.DriverError(
                reason='%s: cannot copy %s to %s: %s' % (
                    what, source, target, exc.strerror))
        LOG.info('%s: copied %s to %s (%s)', what, source, target, how)
        return how

    def create_snapshot(self, snapshot):
        self._copy('snapshot %s' % snapshot.id, self._path(snapshot.volume),
                   self.path_of(snapshot.name), 0)

    def delete_snapshot(self, snapshot):
        path = self.path_of(snapshot.name)
        try:
            removed = self._unlink(path)
        except OSError as exc:
            raise exception.DriverError(
                reason='cannot delete snapshot file %s: %s' % (
                    path, exc.strerror))
        LOG.info('%s snapshot file %s', 'Deleted' if removed else
                 'Already gone:', path)

    def create_volume_from_snapshot(self, volume, snapshot):
        self._copy('volume %s from snapshot %s' % (volume.id, snapshot.id),
                   self.path_of(snapshot.name), self._path(volume),
                   volume.size * base.GiB)

    def create_cloned_volume(self, volume, source):
        self._copy('volume %s from volume %s' % (volume.id, source.id),
                   self._path(source), self._path(volume),
                   volume.size * base.GiB)

    def revert_to_snapshot(self, volume, snapshot):
        self._copy('revert of volume %s to snapshot %s' % (volume.id,
                                                            snapshot.id),
                   self.path_of(snapshot.name), self._path(volume),
                   volume.size * base.GiB, exclusive=False)

    @property
    def connections_dir(self):
        """Where a connection is recorded, as
        ``<volume name>/<connector host>`` (a file can be opened by
        anyone with its path: the record is what audits read)."""
        return os.path.join(self.volumes_dir, CONNECTIONS_DIR)

    def _connection_path(self, volume, connector, path=None):
        """Where the connection of ``volume`` to the connector's host is
        recorded (``path``: the volume's file, if known)."""
        host = str((connector or {}).get('host') or '')
        if not host or os.sep in host or host.startswith('.'):
            raise exception.DriverError(
                reason='invalid connector host %r' % host)
        path = path or self._path(volume)  # checks the name
        return os.path.join(os.path.dirname(path), CONNECTIONS_DIR,
                            volume.name, host)

    def initialize_connection(self, volume, connector, attach_mode):
        self.validate_attach_mode(attach_mode)
        path = self._path(volume)
        if not os.path.isfile(path):
            raise exception.DriverError(
                reason='volume file %s does not exist' % path)
        record = self._connection_path(volume, connector, path)
        try:
            os.makedirs(os.path.dirname(record), exist_ok=True)
            with open(record, 'a'):
                pass
        except OSError as exc:
            raise exception.DriverError(
                reason='cannot record the connection of %s: %s' % (
                    volume.id, exc.strerror))
        return {'driver_volume_type': self.storage_protocol,
                'data': {'path': path,
                         'access_mode': attach_mode,
                         'volume_id': volume.id}}

    def terminate_connection(self, volume, connector):
        """Forget the connection's record (a file needs nothing else)."""
        record = self._connection_path(volume, connector)
        self._unlink(record)
        try:
            os.rmdir(os.path.dirname(record))
        except OSError:
            pass  # other hosts' connections, or already gone

    def list_connections(self):
        """The recorded connections: ``{'volume_id', 'host'}`` each."""
        found = []
        try:
            volumes = sorted(os.listdir(self.connections_dir))
        except FileNotFoundError:
            return found
        prefix = 'volume-'
        for name in volumes:
            if not name.startswith(prefix):
                continue
            try:
                hosts = sorted(os.listdir(os.path.join(
                    self.connections_dir, name)))
            except (FileNotFoundError, NotADirectoryError):
                continue
            found.extend({'volume_id': name[len(prefix):], 'host': host}
                         for host in hosts)
        return found

    def _provisioned_gb(self):
        total = 0
        with os.scandir(self.volumes_dir) as entries:
            for entry in entries:
                if entry.name.startswith('volume-') and entry.is_file():
                    try:
                        total += entry.stat().st_size
                    except OSError as exc:
                        if exc.errno != errno.ENOENT:
                            raise
        return round(total / base.GiB, 2)

    def get_stats(self):
        try:
            st = os.statvfs(self.volumes_dir)
            provisioned = self._provisioned_gb()
        except OSError as exc:
            raise exception.DriverError(
                reason='cannot read capacity of %s: %s' % (
                    self.volumes_dir, exc.strerror))
        total = st.f_blocks * st.f_frsize / base.GiB
        free = st.f_bavail * st.f_frsize / base.GiB
        return {
            'pools': [{
                'pool_name': self.configuration.backend_name,
                'total_capacity_gb': round(total, 2),
                'free_capacity_gb': round(free, 2),
                'reserved_percentage':
                    self.configuration.reserved_percentage,
                'provisioned_capacity_gb': provisioned,
                'thin_provisioning_support': True,
            }],
        }
