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

"""tools/stestr_durations.py on a real stestr repository: the seeded
durations split the tests between workers by time, a repository with a
run keeps its own, and ``save`` writes what ``seed`` reads."""

import os
import re

import fixtures
from stestr.repository import util as repo_util
from stestr import scheduler

from tests import base

TOOL = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'tools',
                    'stestr_durations.py')
COMMITTED = os.path.join(os.path.dirname(__file__), '..', '..',
                         'functional', 'durations.txt')
#: .stestr.conf's group_regex: a class stays on one worker.
GROUP = re.compile(r'([^\.]+\.)+')


def _tool():
    return base.load_file('stestr_durations', TOOL)


class StestrDurationsTestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.tool = _tool()
        self.dir = self.useFixture(fixtures.TempDir()).path
        self.repo = os.path.join(self.dir, 'repo')
        self.file = os.path.join(self.dir, 'durations.txt')
        # Dealt out in turn, the two long classes land on one worker.
        self.durations = {'t.a.Long.test_1': 100.0, 't.b.Short.test_1': 1.0,
                          't.c.Long.test_1': 90.0, 't.d.Short.test_1': 2.0}
        with open(self.file, 'w') as f:
            f.write('# a comment\n')
            for test_id, seconds in self.durations.items():
                f.write('%.1f %s\n' % (seconds, test_id))

    def _partition(self):
        repo = repo_util.get_repo_open(repo_url=self.repo)
        return scheduler.partition_tests(
            sorted(self.durations), 2, repo,
            lambda test_id: GROUP.match(test_id).group(0))

    def test_seeded_repository_splits_by_time(self):
        self.assertIn('seeded', self.tool.seed(self.repo, self.file))
        partitions = self._partition()
        self.assertEqual(
            [['t.a.Long.test_1'], ['t.c.Long.test_1']],
            sorted(sorted(t for t in p if 'Long' in t) for p in partitions))

    def test_a_repository_with_runs_keeps_its_durations(self):
        self.tool.seed(self.repo, self.file)
        with open(self.file, 'w') as f:
            f.write('1.0 t.a.Long.test_1\n')
        self.assertIn('kept', self.tool.seed(self.repo, self.file))
        self.assertEqual(100.0, repo_util.get_repo_open(
            repo_url=self.repo).get_test_times(['t.a.Long.test_1'])[
                'known']['t.a.Long.test_1'])

    def test_save_writes_what_seed_reads(self):
        self.tool.seed(self.repo, self.file)
        saved = os.path.join(self.dir, 'saved.txt')
        self.tool.save(self.repo, saved)
        self.assertEqual(self.durations, self.tool.read(saved))

    def test_committed_file_is_readable(self):
        durations = self.tool.read(COMMITTED)
        self.assertTrue(durations)
        self.assertTrue(all(test_id.startswith('tests.functional.')
                            for test_id in durations))
