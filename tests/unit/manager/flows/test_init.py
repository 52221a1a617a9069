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

"""Tests of the flow runner: TaskFlow's execute/revert contract for
linear flows of tasks."""

import logging

import fixtures
from taskflow import exceptions as tf_exceptions
from taskflow.patterns import graph_flow
from taskflow.patterns import linear_flow
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

        results = flows.run_flow(flow, {'value': 1})

        self.assertEqual([('execute', 'one', 1), ('execute', 'two', 2)],
                         self.journal)
        self.assertEqual({'value': 1, 'two': 2, 'three': 3}, results)

    def test_tuple_provides_and_optional_arguments(self):
        flow = _flow(Pair(), Optional(provides='both'))

        results = flows.run_flow(flow, {})

        self.assertEqual(('a', 'default'), results['both'])
        self.assertEqual('b', results['second'])

    def test_missing_requirement_refused_before_any_task(self):
        flow = _flow(self.task('one', provides='two'),
                     self.task('two', rebind={'value': 'nowhere'}))

        self.assertRaises(tf_exceptions.MissingDependencies,
                          flows.run_flow, flow, {'value': 1})
        self.assertEqual([], self.journal)

    def test_failure_reverts_the_failed_task_then_earlier_ones(self):
        flow = _flow(self.task('one', provides='two'),
                     self.task('two', rebind={'value': 'two'},
                               provides='three', fail=True),
                     self.task('three', rebind={'value': 'three'}))

        error = self.assertRaises(ValueError, flows.run_flow, flow,
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

    def test_a_failed_revert_does_not_stop_the_others(self):
        flow = _flow(self.task('one', provides='two'),
                     self.task('two', rebind={'value': 'two'},
                               fail=True, fail_revert=True))

        self.assertRaises(ValueError, flows.run_flow, flow, {'value': 1})

        self.assertEqual(['execute', 'execute', 'revert', 'revert'],
                         [entry[0] for entry in self.journal])
        self.assertIn('the revert of task two failed', self.log.output)

    def test_failures_are_logged_with_secrets_masked(self):
        flow = _flow(self.task('one', fail=True))

        self.assertRaises(ValueError, flows.run_flow, flow, {'value': 1})

        self.assertIn('Flow test: task one failed', self.log.output)
        self.assertIn('Traceback', self.log.output)
        self.assertNotIn('hunter2', self.log.output)

    def test_only_linear_flows_of_tasks(self):
        flow = graph_flow.Flow('graph')
        flow.add(self.task('one'))
        self.assertRaises(TypeError, flows.run_flow, flow, {'value': 1})

        nested = _flow(_flow(self.task('one')))
        self.assertRaises(TypeError, flows.run_flow, nested, {'value': 1})
        self.assertEqual([], self.journal)



class Holding(task.Task):
    """Holds a lock of one run; its name comes from ``what``."""

    default_provides = 'held'

    def __init__(self, what, lock=None, **kwargs):
        kwargs.setdefault('name', 'holding-%s' % what)
        super().__init__(**kwargs)
        self.lock = lock

    def execute(self, value, extra=None):
        return self.lock

    def revert(self, value, result, **kwargs):
        pass


class NewTaskTest(base.BaseTestCase):

    def _mapping(self, atom):
        return (atom.name, dict(atom.rebind), set(atom.requires),
                set(atom.optional), dict(atom.revert_rebind),
                set(atom.revert_optional), dict(atom.save_as))

    def test_as_constructed_with_what_the_run_holds(self):
        lock = object()
        built = Holding('a', lock=lock)

        copied = flows.new_task(Holding, 'a', lock=lock)

        self.assertIsInstance(copied, Holding)
        self.assertIs(lock, copied.lock)
        self.assertEqual(self._mapping(built), self._mapping(copied))

    def test_each_call_a_task_of_its_own(self):
        first_lock, second_lock = object(), object()

        first = flows.new_task(Holding, 'a', lock=first_lock)
        second = flows.new_task(Holding, 'a', lock=second_lock)
        other = flows.new_task(Holding, 'b', lock=first_lock)

        self.assertIsNot(first, second)
        self.assertIs(first_lock, first.lock)
        self.assertIs(second_lock, second.lock)
        self.assertEqual('holding-b', other.name)

    def test_runs_as_a_constructed_task(self):
        lock = object()
        flow = linear_flow.Flow('test')
        flow.add(flows.new_task(Holding, 'a', lock=lock))

        values = flows.run_flow(flow, {'value': 1})

        self.assertIs(lock, values['held'])
