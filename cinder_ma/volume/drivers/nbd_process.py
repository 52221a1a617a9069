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

"""The nbdkit daemons of the nbd driver's exports, as processes.

An export's nbdkit is a daemon in a session of its own, not a child of
the manager: it is found by the pid of its pidfile, checked against its
command line (:func:`runs_nbdkit_of`: pids are reused), and stopped by
that pid only (:func:`kill`), never by a program name.
"""

import os
import signal
import time

from cinder_ma.volume.drivers import nbd_credentials

#: Seconds an nbdkit process gets to exit after SIGTERM before it is
#: killed (see :func:`kill`).
STOP_GRACE = 1.0


def alive(pid):
    """Whether process ``pid`` runs (a zombie, which exited and waits for
    its parent to reap it, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open('/proc/%d/stat' % pid) as f:
            # "pid (comm) state ...": comm may hold spaces and parens.
            state = f.read().rpartition(')')[2].split()[0]
    except (OSError, IndexError):
        return True
    return state != 'Z'


def credentials_option(path):
    """The nbdkit option naming an export's own credentials: its PSK
    file, or (X.509) its certificates directory."""
    if path.endswith(nbd_credentials.TLS_DIR_SUFFIX):
        return '--tls-certificates=%s' % path
    return '--tls-psk=%s' % path


def runs_nbdkit_of(pid, credentials):
    """Whether process ``pid`` is a live nbdkit reading the export
    credentials ``credentials`` (the key file, or the certificates
    directory, of one export: pids are reused, the command line
    tells)."""
    try:
        with open('/proc/%d/cmdline' % pid, 'rb') as f:
            cmdline = f.read()
    except OSError:
        return False
    return (os.fsencode(credentials_option(credentials)) in
            cmdline.split(b'\0') and alive(pid))


class Export:
    """One export: one nbdkit daemon (process ``pid``) serving one
    connection with the credentials ``credentials`` (its PSK file, or
    its X.509 certificates directory)."""

    def __init__(self, key, record, pid, credentials):
        self.key = key
        self.record = record
        self.pid = pid
        self.credentials = credentials

    @property
    def port(self):
        return self.record['port']

    def alive(self):
        return runs_nbdkit_of(self.pid, self.credentials)


def kill(pid):
    """Stop an nbdkit process: SIGTERM, then SIGKILL after
    :data:`STOP_GRACE` seconds.

    At SIGTERM nbdkit shuts its connections down (a client's next
    request fails, nothing more reaches the volume) but it exits
    only once its clients hang up, which a fenced client never
    does: the process is killed then.
    """
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + STOP_GRACE
    while time.monotonic() < deadline:
        if not alive(pid):
            return
        time.sleep(0.02)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    for _ in range(500):
        if not alive(pid):
            return
        time.sleep(0.02)

