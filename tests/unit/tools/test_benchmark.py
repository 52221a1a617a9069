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

"""tools/benchmark.py: the arguments of a comparison with a second
service, the order of its rounds, the ratios it reports and the server
CPU of several processes. (No service is driven: the phases' results
are given as the tool builds them.)"""

import contextlib
import io
import os

from tests import base

BENCHMARK = os.path.join(os.path.dirname(__file__), '..', '..', '..',
                         'tools', 'benchmark.py')


def _benchmark():
    return base.load_file('benchmark', BENCHMARK)


def _cycles(attach_rate, attach_cpu, detach_rate, detach_cpu):
    """A run_cycles result at concurrency 8."""
    return {'concurrency': 8, 'errors': 0, 'error_samples': [],
            'attach_cycle': {'per_second': attach_rate,
                             'server_cpu_ms_per_op': attach_cpu},
            'detach': {'per_second': detach_rate,
                       'server_cpu_ms_per_op': detach_cpu}}


class ArgumentsTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tool = _benchmark()

    def test_single_service_as_before(self):
        args = self.tool.parse_args(['--server-pid', '12'])
        self.assertEqual([12], args.server_pid)
        self.assertIsNone(args.compare_endpoint)
        self.assertEqual(1, args.rounds)
        self.assertEqual(32, args.volumes)

    def test_compare_with_every_process_of_the_other(self):
        args = self.tool.parse_args([
            '--endpoint', 'http://127.0.0.1:23776/v3', '--server-pid', '5',
            '--compare-endpoint', 'http://127.0.0.1:8776/v3',
            '--compare-server-pid', '7', '8', '9',
            '--rounds', '3', '--volumes', '48', '--cycles', '144',
            '--concurrency', '8', '--creates', '0', '--list-sizes'])
        self.assertEqual('http://127.0.0.1:8776/v3', args.compare_endpoint)
        self.assertEqual([7, 8, 9], args.compare_server_pid)
        self.assertEqual((3, 48, 144, [8], 0, []), (
            args.rounds, args.volumes, args.cycles, args.concurrency,
            args.creates, args.list_sizes))

    def _refused(self, argv):
        with contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertRaises(SystemExit, self.tool.parse_args, argv)
        return err.getvalue()

    def test_compare_pids_need_the_compare_endpoint(self):
        self.assertIn('--compare-endpoint',
                      self._refused(['--compare-server-pid', '7']))

    def test_at_least_one_round_and_volume(self):
        self.assertIn('--rounds', self._refused(['--rounds', '0']))
        self.assertIn('--volumes', self._refused(['--volumes', '0']))

    def test_services_take_turns(self):
        self.assertEqual(
            [('endpoint', 'compare'), ('compare', 'endpoint'),
             ('endpoint', 'compare')],
            [self.tool.first_in_round(number) for number in range(3)])


class RatiosTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tool = _benchmark()

    def test_ratio_says_how_many_times_better(self):
        self.assertEqual(
            {'throughput': 10.0, 'server_cpu_per_op': 8.0},
            self.tool.ratio(
                {'per_second': 50.0, 'server_cpu_ms_per_op': 10.0},
                {'per_second': 5.0, 'server_cpu_ms_per_op': 80.0}))

    def test_missing_figures_give_no_ratio(self):
        self.assertEqual(
            {'throughput': None, 'server_cpu_per_op': None},
            self.tool.ratio({'per_second': 50.0}, {'per_second': 0}))

    def test_median_of_the_rounds(self):
        rounds = [
            {'endpoint': [_cycles(60.0, 15.0, 70.0, 8.0)],
             'compare': [_cycles(6.0, 90.0, 10.0, 32.0)]},
            {'endpoint': [_cycles(40.0, 20.0, 65.0, 8.0)],
             'compare': [_cycles(5.0, 80.0, 10.0, 40.0)]},
            {'endpoint': [_cycles(55.0, 10.0, 60.0, 10.0)],
             'compare': [_cycles(5.0, 100.0, 12.0, 30.0)]},
        ]
        [level] = self.tool.attach_ratios(rounds)
        self.assertEqual(8, level['concurrency'])
        self.assertEqual({'rounds': [10.0, 8.0, 11.0], 'median': 10.0},
                         level['attach_cycle']['throughput'])
        self.assertEqual({'rounds': [6.0, 4.0, 10.0], 'median': 6.0},
                         level['attach_cycle']['server_cpu_per_op'])
        self.assertEqual({'rounds': [7.0, 6.5, 5.0], 'median': 6.5},
                         level['detach']['throughput'])
        self.assertEqual({'rounds': [4.0, 5.0, 3.0], 'median': 4.0},
                         level['detach']['server_cpu_per_op'])

    def test_median_skips_rounds_without_a_ratio(self):
        rounds = [
            {'endpoint': [_cycles(60.0, None, 70.0, None)],
             'compare': [_cycles(6.0, None, 10.0, None)]},
        ]
        [level] = self.tool.attach_ratios(rounds)
        self.assertEqual({'rounds': [None], 'median': None},
                         level['attach_cycle']['server_cpu_per_op'])


class ServerCpuTest(base.TestCase):

    def test_processes_are_summed_once(self):
        tool = _benchmark()
        # This process, twice: counted once.
        own = tool.server_cpu(os.getpid())
        both = tool.server_cpu([os.getpid(), os.getpid()])
        self.assertGreater(own, 0)
        self.assertLess(both, own * 2)
        self.assertIsNone(tool.server_cpu(None))
        self.assertIsNone(tool.server_cpu([]))
