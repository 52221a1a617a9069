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

"""TEST ONLY: hold points, so that the fault tests of tests/functional
can kill a process exactly there.

A process holds at a point only while the variable :data:`ENV` of its
environment names a file that reads
``<directory>;<point>:<index>[,<point>:<index>...]`` and names that
point: the first process of the tree to get there writes
``<directory>/held-<point>-<index>`` with its process id and waits until
``<directory>/release`` exists (the others pass). The points are the
tasks of the flows (``<flow name>:<task index>``, see
:mod:`cinder_ma.manager.flows`), the three places where an API worker
has written its claim on an attachment's work and not yet asked the
manager to take it over (``api_create_attachment:0``,
``api_update_attachment:0``, ``api_delete_attachment:0``, see
:mod:`cinder_ma.volume.attachments`),
and the three where it has recorded a snapshot ``creating`` or
``deleting``, or a volume ``reverting``, and not yet cast the work to
the manager (``api_create_snapshot:0``, ``api_delete_snapshot:0``,
``api_revert_volume:0``, see :mod:`cinder_ma.volume.snapshots`).
Never set :data:`ENV` in a deployment.
"""

import os
import time

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

ENV = 'CINDER_MA_TEST_HOLD_FLOW'

#: Seconds between two looks for the release file.
POLL = 0.05


def hold(point, index=0, what=None):
    """Hold here if :data:`ENV` asks for ``point`` at ``index`` (see the
    module's docstring); return at once otherwise.

    :param what: what the log says is held (default: the point).
    """
    path = os.environ.get(ENV)
    if not path:
        return
    try:
        with open(path) as f:
            spec = f.read().strip()
    except OSError:
        return
    directory, _sep, points = spec.partition(';')
    wanted = dict(item.split(':', 1) for item in points.split(',')
                  if ':' in item).get(point)
    if wanted is None or wanted != str(index):
        return
    marker = os.path.join(directory, 'held-%s-%s' % (point, index))
    try:
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        return
    os.write(fd, str(os.getpid()).encode())
    os.close(fd)
    LOG.warning('TEST hold: %s held at %s:%s', what or point, point, index)
    while not os.path.exists(os.path.join(directory, 'release')):
        time.sleep(POLL)
