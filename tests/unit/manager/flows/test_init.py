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

"""Tests of how flows run: on TaskFlow's engine, with its revert
semantics, engines compiled once, a listener logging with secrets
masked."""

import logging
import threading

import fixtures
from taskflow import exceptions as tf_exceptions
from taskflow.patterns import graph_flow
from taskflow.patterns import linear_flow
from taskflow.patterns import unordered_flow
from taskflow import task
from taskflow.types import failure as tf_failure

from cinder_ma.manager import flows
from tests import base


class Recording(task.Task):
    """Appends what it is called with to ``journal``."""

    def __init__(self, journal, fail=False, fail_revert=False, **kwargs):
        super().__init__(**kwargs)
        self.journal = journal
        self.fail = fail
        self.fail_revert = fail_revert

    def execute(self, value):
        self.journal.append(('execute', self.name, value))
        if self.fail:
            raise ValueError('%s failed, password=hunter2' % self.name)
        return value + 1

    def revert(self, value, result, flow_failures, **kwargs):
        self.journal.append(('revert', self.name, value, result,
                             sorted(flow_failures)))
        if self.fail_revert:
            raise RuntimeError('revert of %s failed' % self.name)


class Pair(task.Task):
    default_provides = ('first', 'second')

    def execute(self):
        return 'a', 'b'


class Optional(task.Task):
    def execute(self, first, absent='default'):
        return first, absent


def _flow(*tasks):
    flow = linear_flow.Flow('test')
    flow.add(*tasks)
    return flow


class RunFlowTest(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.journal = []
        self.log = self.useFixture(fixtures.FakeLogger(
            name=flows.LOG.name, level=logging.DEBUG))

    def task(self, name, provides=None, rebind=None, **kwargs):
        return Recording(self.journal, name=name, provides=provides,
                         rebind=rebind, **kwargs)

    def test_values_flow_from_task_to_task(self):
        flow = _flow(self.task('one', provides='two'),
                     self.task('two', provides='three',
                               rebind={'value': 'two'}))

        results = flows.run_once(flow, {'value': 1})

        self.assertEqual([('execute', 'one', 1), ('execute', 'two', 2)],
                         self.journal)
        self.assertEqual({'value': 1, 'two': 2, 'three': 3}, results)

    def test_tuple_provides_and_optional_arguments(self):
        flow = _flow(Pair(), Optional(provides='both'))

        results = flows.run_once(flow, {})

        self.assertEqual(('a', 'default'), results['both'])
        self.assertEqual('b', results['second'])

    def test_missing_requirement_refused_before_any_task(self):
        flow = _flow(self.task('one', provides='two'),
                     self.task('two', rebind={'value': 'nowhere'}))

        self.assertRaises(tf_exceptions.MissingDependencies,
                          flows.run_once, flow, {'value': 1})
        self.assertEqual([], self.journal)

    def test_failure_reverts_the_failed_task_then_earlier_ones(self):
        flow = _flow(self.task('one', provides='two'),
                     self.task('two', rebind={'value': 'two'},
                               provides='three', fail=True),
                     self.task('three', rebind={'value': 'three'}))

        error = self.assertRaises(ValueError, flows.run_once, flow,
                                  {'value': 1})

        self.assertIn('two failed', str(error))
        self.assertEqual(('execute', 'one', 1), self.journal[0])
        self.assertEqual(('execute', 'two', 2), self.journal[1])
        failed = self.journal[2]
        self.assertEqual(('revert', 'two', 2), failed[:3])
        self.assertIsInstance(failed[3], tf_failure.Failure)
        self.assertTrue(failed[3].check(ValueError))
        self.assertEqual(['two'], failed[4])
        self.assertEqual(('revert', 'one', 1, 2, ['two']), self.journal[3])
        # The task after the failed one neither ran nor reverted.
        self.assertEqual(4, len(self.journal))

    def test_a_failed_revert_stops_the_reverting_and_is_raised(self):
        # TaskFlow's engine: A -> B (its revert raises) -> C (fails)
        # reverts C, then B, whose error is raised; A is not reverted.
        flow = _flow(self.task('A', provides='b'),
                     self.task('B', rebind={'value': 'b'}, provides='c',
                               fail_revert=True),
                     self.task('C', rebind={'value': 'c'}, fail=True))

        error = self.assertRaises(RuntimeError, flows.run_once, flow,
                                  {'value': 1})

        self.assertEqual('revert of B failed', str(error))
        self.assertEqual(
            [('execute', 'A'), ('execute', 'B'), ('execute', 'C'),
             ('revert', 'C'), ('revert', 'B')],
            [entry[:2] for entry in self.journal])
        self.assertIn("Task 'B'", self.log.output)
        self.assertIn('REVERT_FAILURE', self.log.output)

    def test_failures_are_logged_with_secrets_masked(self):
        flow = _flow(self.task('one', fail=True))

        self.assertRaises(ValueError, flows.run_once, flow, {'value': 1})

        self.assertIn("Task 'one'", self.log.output)
        self.assertIn('FAILURE', self.log.output)
        self.assertIn("Flow 'test'", self.log.output)
        self.assertIn('REVERTED', self.log.output)
        self.assertIn('Traceback', self.log.output)
        self.assertIn('password=***', self.log.output)
        self.assertNotIn('hunter2', self.log.output)

    def test_values_are_not_logged(self):
        flow = _flow(Optional(name='one', provides='both'))

        flows.run_once(flow, {'first': 'secret-value'})

        self.assertIn("Task 'one'", self.log.output)
        self.assertNotIn('secret-value', self.log.output)

    def test_graph_and_unordered_flows(self):
        inner = unordered_flow.Flow('inner')
        inner.add(self.task('left', provides='l'),
                  self.task('right', provides='r'))
        graph = graph_flow.Flow('graph')
        graph.add(inner, self.task('last', rebind={'value': 'l'}))

        results = flows.run_once(graph, {'value': 1}, engine=flows.PARALLEL)

        self.assertEqual({'value': 1, 'l': 2, 'r': 2}, results)
        self.assertEqual('last', self.journal[-1][1])
        self.assertEqual(['left', 'right', 'last'],
                         [name for name in ('left', 'right', 'last')
                          if any(e[1] == name for e in self.journal)])

    def test_tasks_of_depth_first(self):
        inner = unordered_flow.Flow('inner')
        inner.add(self.task('two'), self.task('three'))
        flow = _flow(self.task('one'), inner, self.task('four'))

        self.assertEqual(['one', 'two', 'three', 'four'],
                         [t.name for t in flows.tasks_of(flow)])


class CompiledOnceTest(base.BaseTestCase):
    """:func:`flows.run`: a flow is built and compiled once per process
    and what it is built with; each run has its own store."""

    def setUp(self):
        super().setUp()
        self.journal = []
        self.built = []

    def factory(self, kind, fail=False):
        self.built.append(kind)
        flow = linear_flow.Flow('compiled-%s' % kind)
        flow.add(Recording(self.journal, name='one', provides='two'),
                 Recording(self.journal, name='two', fail=fail,
                           rebind={'value': 'two'}))
        return flow

    def test_built_once_run_again_with_each_store(self):
        for value in (1, 10, 100):
            results = flows.run(self.factory, {'value': value}, 'a')
            self.assertEqual(value + 1, results['two'])
        self.assertEqual(['a'], self.built)
        self.assertEqual([1, 2, 10, 11, 100, 101],
                         [entry[2] for entry in self.journal])

    def test_fetch_only_the_names_asked_for(self):
        for value in (1, 10):
            self.assertEqual(
                {'two': value + 1},
                flows.run(self.factory, {'value': value}, 'f',
                          fetch=('two',)))
        self.assertEqual({}, flows.run(self.factory, {'value': 5}, 'f',
                                       fetch=()))
        self.assertEqual({'value': 7, 'two': 8},
                         flows.run(self.factory, {'value': 7}, 'f'))
        self.assertEqual(['f'], self.built)

    def test_an_equal_kind_is_the_same_flow(self):
        # A kind that came over RPC is a new string at every request: it
        # must not build and compile the flow again.
        for value in (1, 10):
            kind = ''.join(['up', 'date'])
            flows.run(self.factory, {'value': value}, kind)
        self.assertEqual(['update'], self.built)

    def test_a_failure_does_not_leak_into_the_next_run(self):
        # A reverted engine keeps its failures (TaskFlow's reset does not
        # clear them): the next run gets an engine of its own, and
        # raises its own error alone.
        for value in (1, 10):
            error = self.assertRaises(ValueError, flows.run, self.factory,
                                      {'value': value}, 'failing', True)
            self.assertIn('two failed', str(error))
        # The second run reverted its own tasks with its own values.
        self.assertEqual(('revert', 'one', 10, 11, ['two']),
                         self.journal[-1])

    def test_concurrent_runs_get_engines_of_their_own(self):
        inside = threading.Event()
        release = threading.Event()

        class Blocking(task.Task):
            def execute(self, value):
                if value == 'block':
                    inside.set()
                    release.wait(10)
                return value

        def factory():
            flow = linear_flow.Flow('blocking')
            flow.add(Blocking(provides='out'))
            return flow

        thread = threading.Thread(target=flows.run,
                                  args=(factory, {'value': 'block'}))
        thread.start()
        self.assertTrue(inside.wait(10))
        try:
            self.assertEqual('free', flows.run(factory,
                                               {'value': 'free'})['out'])
        finally:
            release.set()
            thread.join(10)

    def test_other_arguments_other_flows(self):
        flows.run(self.factory, {'value': 1}, 'a')
        flows.run(self.factory, {'value': 1}, 'b')
        flows.run(self.factory, {'value': 1}, 'a')
        self.assertEqual(['a', 'b'], self.built)
