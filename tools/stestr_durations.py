#!/usr/bin/env python3
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

"""Test durations for stestr's first run in a new repository.

stestr splits the tests between its workers by the durations its
repository recorded; a new repository (a fresh clone, CI) has none, and
then it deals the test classes out in turn. The functional tests have a
few classes of a minute or more (the kill tests), and dealt out blindly
one worker once ran 740 s of tests while the other ran 492 s and then
sat idle for four minutes. ``seed`` loads the durations of a committed
file into a repository that has no run yet, as a run of its own, so that
the first real run is split by time; a repository with runs keeps its
own durations. Tests the file does not know are dealt out in turn, as
before. ``save`` writes the durations of the repository's last run to
the file (a maintainer refreshes it after adding long tests).

Usage::

    python tools/stestr_durations.py seed REPO_URL FILE
    python tools/stestr_durations.py save REPO_URL FILE

The file has one test per line: its duration in seconds and its id.
"""

import argparse
import datetime
import io
import os
import subprocess
import sys
import tempfile

from stestr.repository import abstract as repo_abstract
from stestr.repository import util as repo_util
import subunit
from subunit import v2
import testtools

#: Where a seeded run starts (durations are all that matter).
EPOCH = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)


def read(path):
    """{test id: seconds} of a durations file."""
    durations = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith('#'):
                seconds, test_id = line.split(None, 1)
                durations[test_id] = float(seconds)
    return durations


def has_runs(repo_url):
    """Whether the stestr repository at ``repo_url`` holds a run."""
    try:
        return repo_util.get_repo_open(repo_url=repo_url).count() > 0
    except repo_abstract.RepositoryNotFound:
        return False


def seed(repo_url, path):
    if has_runs(repo_url):
        return 'kept the durations of %s' % repo_url
    durations = read(path)
    os.makedirs(repo_url, exist_ok=True)
    with tempfile.NamedTemporaryFile(suffix='.subunit') as stream:
        writer = v2.StreamResultToBytes(stream)
        at = EPOCH
        for test_id, seconds in sorted(durations.items()):
            writer.status(test_id=test_id, test_status='inprogress',
                          timestamp=at)
            at += datetime.timedelta(seconds=seconds)
            writer.status(test_id=test_id, test_status='success',
                          timestamp=at)
        stream.flush()
        subprocess.run(
            [sys.executable, '-m', 'stestr', '--repo-url', repo_url,
             'load', '--force-init', stream.name],
            check=True, stdout=subprocess.DEVNULL)
    return 'seeded %s with the durations of %d tests from %s' % (
        repo_url, len(durations), path)


class _Durations(testtools.StreamResult):

    def __init__(self):
        super().__init__()
        self.started = {}
        self.durations = {}

    def status(self, test_id=None, test_status=None, timestamp=None,
               **kwargs):
        if test_id is None or timestamp is None:
            return
        if test_status == 'inprogress':
            self.started[test_id] = timestamp
        elif test_status == 'success' and test_id in self.started:
            self.durations[test_id] = (
                timestamp - self.started.pop(test_id)).total_seconds()


def save(repo_url, path):
    last = subprocess.run(
        [sys.executable, '-m', 'stestr', '--repo-url', repo_url, 'last',
         '--subunit'], check=True, capture_output=True)
    result = _Durations()
    result.startTestRun()
    subunit.ByteStreamToStreamResult(
        io.BytesIO(last.stdout), non_subunit_name='stdout').run(result)
    result.stopTestRun()
    with open(path, 'w') as f:
        f.write('# Written by tools/stestr_durations.py save: seconds and '
                'test id.\n')
        for test_id, seconds in sorted(result.durations.items()):
            f.write('%.1f %s\n' % (seconds, test_id))
    return 'wrote the durations of %d tests to %s' % (
        len(result.durations), path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('action', choices=('seed', 'save'))
    parser.add_argument('repo_url')
    parser.add_argument('file')
    args = parser.parse_args(argv)
    action = seed if args.action == 'seed' else save
    print('stestr durations: %s' % action(args.repo_url, args.file))


if __name__ == '__main__':
    main()
