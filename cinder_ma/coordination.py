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

"""Locks that hold across threads, processes and hosts, through tooz.

Each process has one tooz coordinator (:data:`COORDINATOR`) on
``[coordination] backend_url``: by default a directory of lock files
(``file://$state_path/coordination``), which serializes the processes of
one host; Redis, etcd or a database when the API or the managers run on
several hosts. The connection locks (:mod:`cinder_ma.manager.locks`) are
its locks, so one mechanism serializes threads, processes and hosts: a
tooz lock excludes every other holder of its name in other processes and
hosts. Between the threads of one process, :meth:`Coordinator.acquire`
first takes a thread lock of the name of its own: tooz's file lock is an
fcntl lock, which a process holds for all of its threads, and the thread
barrier the file driver adds per path is looked up in a
``WeakValueDictionary`` whose ``setdefault`` two threads can race, each
getting a barrier of its own and both the lock
(tests/unit/test_coordination.py has both).

The coordinator starts on first use in the process that uses it, never at
import: the API's workers (``[api] workers``, gunicorn, uWSGI) and
cinder-ma-all's workers are forked after their parent read the
configuration, and each must have its own connection and heartbeat. A
coordinator started before a fork is forgotten in the child (not stopped:
it belongs to the parent), which starts its own on first use. A process
must not fork while one of its threads holds a lock of the file driver
(the child would inherit the driver's thread barrier as held); none of
cinder_ma's forking parents takes locks.

Drivers whose locks expire unless renewed (Redis, etcd) get tooz's
heartbeat thread, which renews the locks held and the process's
membership. :meth:`Coordinator.stop` stops the heartbeat and closes the
connection (the Redis driver also releases the locks the process still
holds); the services call it when they stop, and an interpreter that
exits normally calls it too (atexit).
"""

import atexit
import functools
import os
import threading
import urllib.parse
import uuid
import weakref

from oslo_config import cfg
from oslo_log import log as logging
import tooz
from tooz import coordination as tooz_coordination

from cinder_ma import exception

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

#: First part of every member id of this service on the backend.
MEMBER_PREFIX = 'cinder_ma-'


def backend_url(conf=CONF):
    """``[coordination] backend_url``, with the path of a ``file://`` URL
    made absolute.

    tooz reads a file URL's path only, so that ``file://./state/x`` (a
    relative ``state_path`` interpolated) would mean ``/state/x``; the
    host part of such a URL is taken as the start of a relative path.
    """
    url = conf.coordination.backend_url
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != 'file':
        return url
    netloc = '' if parts.netloc in ('', 'localhost') else parts.netloc
    path = os.path.abspath(netloc + parts.path)
    return urllib.parse.urlunsplit(parts._replace(netloc='', path=path))


def describe(url):
    """A backend URL without its credentials and options, for logs and
    messages."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == 'file':
        return 'file://%s' % parts.path
    location = parts.hostname or ''
    if parts.port:
        location = '%s:%s' % (location, parts.port)
    return '%s://%s' % (parts.scheme, location)


def check_backend(conf=CONF):
    """Check that ``[coordination] backend_url`` names an installed tooz
    driver whose client library is installed, without connecting.

    For the commands, before they fork: a mistake shows at start, not on
    the first attach.

    :raises InvalidConfiguration: it does not.
    """
    url = backend_url(conf)
    try:
        tooz_coordination.get_coordinator(url, b'check')
    except Exception as exc:  # stevedore, tooz or an import error
        raise exception.InvalidConfiguration(
            reason='[coordination] backend_url %s cannot be used: %s' % (
                describe(url), exc))


class _NamedThreadLocks:
    """One lock per name for the threads of this process, kept while a
    thread holds or waits for it."""

    def __init__(self):
        self._guard = threading.Lock()
        self._locks = {}

    def acquire(self, name):
        with self._guard:
            entry = self._locks.setdefault(name, [threading.Lock(), 0])
            entry[1] += 1
        entry[0].acquire()

    def release(self, name):
        with self._guard:
            entry = self._locks[name]
            entry[0].release()
            entry[1] -= 1
            if not entry[1]:
                del self._locks[name]


#: The thread locks of every coordinator of this process (an fcntl lock
#: is the process's, whichever coordinator took it).
_THREAD_LOCKS = _NamedThreadLocks()


class HeldLock:
    """A lock :meth:`Coordinator.acquire` took: the backend's ``lock``
    and this process's thread lock of ``name``."""

    def __init__(self, name, lock):
        self.name = name
        self.lock = lock

    def __repr__(self):
        return '<HeldLock %s>' % self.name


def _forget_in_child(ref):
    coordinator = ref()
    if coordinator is not None:
        coordinator._forget()


class Coordinator:
    """The tooz coordinator of this process, started on first use.

    :param conf: the configuration to read ``[coordination]`` from.
    :param prefix: first part of the member id.
    """

    def __init__(self, conf=CONF, prefix=MEMBER_PREFIX):
        self.conf = conf
        self.prefix = prefix
        self._forget()
        os.register_at_fork(after_in_child=functools.partial(
            _forget_in_child, weakref.ref(self)))

    def _forget(self):
        """Drop the coordinator (and the lock that guards starting it) of
        the parent of a forked child, without stopping it."""
        self._start_lock = threading.Lock()
        self._driver = None
        self.url = None
        self.member_id = None

    @property
    def started(self):
        return self._driver is not None

    def start(self):
        """Connect to the backend (once) and start the heartbeat its
        driver needs.

        :returns: the started tooz driver.
        :raises CoordinationUnavailable: it cannot start; the next use
            tries again.
        """
        with self._start_lock:
            if self._driver is not None:
                return self._driver
            url = backend_url(self.conf)
            member_id = '%s%s-%d-%s' % (self.prefix, self.conf.host,
                                        os.getpid(), uuid.uuid4().hex[:8])
            try:
                driver = tooz_coordination.get_coordinator(
                    url, member_id.encode())
                driver.start(start_heart=True)
            except Exception as exc:  # tooz, stevedore or an import error
                raise exception.CoordinationUnavailable(
                    reason='cannot start %s: %s' % (describe(url), exc))
            self._driver, self.url, self.member_id = driver, url, member_id
        LOG.info('Coordination backend %s started (member %s)',
                 describe(url), member_id)
        return driver

    def stop(self):
        """Stop the heartbeat and disconnect (releasing, on the drivers
        that do so, the locks still held).

        Idempotent; a later use starts a new coordinator.
        """
        with self._start_lock:
            driver, url = self._driver, self.url
            self._driver = None
        if driver is None:
            return
        try:
            driver.stop()
        except tooz.ToozError as exc:
            LOG.warning('Stopping the coordination backend %s failed: %s',
                        describe(url), exc)
        LOG.info('Coordination backend %s stopped', describe(url))

    def get_lock(self, name):
        """The tooz lock ``name`` (not taken), starting the coordinator
        if needed.

        :raises CoordinationUnavailable: the coordinator cannot start.
        """
        driver = self.start()
        return driver.get_lock(name.encode())

    def acquire(self, name):
        """Take the lock ``name``, waiting as long as another holder
        (thread, process or host) has it.

        :returns: the :class:`HeldLock`, for :meth:`release`.
        :raises CoordinationUnavailable: the backend failed.
        """
        _THREAD_LOCKS.acquire(name)
        try:
            lock = self.get_lock(name)
            try:
                taken = lock.acquire(blocking=True)
            except tooz.ToozError as exc:
                raise exception.CoordinationUnavailable(
                    reason='cannot take the lock %s: %s' % (name, exc))
            if not taken:
                raise exception.CoordinationUnavailable(
                    reason='the lock %s was not given' % name)
        except BaseException:
            _THREAD_LOCKS.release(name)
            raise
        return HeldLock(name, lock)

    @staticmethod
    def release(held):
        """Release a lock :meth:`acquire` returned. Never raises: a lock
        that cannot be released (the backend is gone) expires with the
        backend's own timeout (Redis, etcd) or with the process (files,
        database sessions)."""
        try:
            held.lock.release()
        except tooz.ToozError as exc:
            LOG.warning('Could not release the lock %s: %s', held.name,
                        exc)
        finally:
            _THREAD_LOCKS.release(held.name)


#: The coordinator of this process.
COORDINATOR = Coordinator()

atexit.register(COORDINATOR.stop)
