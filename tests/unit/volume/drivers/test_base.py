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

"""Tests of the storage driver interface, and compliance of every
installed driver.
"""

import dataclasses
import inspect

import stevedore

from cinder_ma import exception
from cinder_ma.volume.drivers import base as driver_base
from cinder_ma.volume.drivers import file as file_driver
from tests import base

NAMESPACE = 'cinder_ma.volume.drivers'


def driver_problems(cls):
    """What a driver class gets wrong about the interface."""
    problems = []
    if not (isinstance(cls, type) and
            issubclass(cls, driver_base.VolumeDriver)):
        return ['is not a VolumeDriver']
    if type(cls.capabilities) is not driver_base.Capabilities:
        problems.append('capabilities is not a Capabilities')
    else:
        for field in dataclasses.fields(driver_base.Capabilities):
            if not isinstance(getattr(cls.capabilities, field.name), bool):
                problems.append('capability %s is not a bool' % field.name)
    if getattr(cls, '__abstractmethods__', None):
        problems.append('abstract methods left: %s' % ', '.join(
            sorted(cls.__abstractmethods__)))
    if getattr(cls.capabilities, 'per_attachment_connections', False):
        for method in ('initialize_connection', 'terminate_connection'):
            if 'attachment_id' not in inspect.signature(
                    getattr(cls, method)).parameters:
                problems.append('%s takes no attachment_id (declared '
                                'per_attachment_connections)' % method)
    if not isinstance(cls.get_driver_options(), list):
        problems.append('get_driver_options() is not a list')
    for attr in ('vendor_name', 'driver_version', 'storage_protocol'):
        if not isinstance(getattr(cls, attr, None), str):
            problems.append('%s is not a string' % attr)
    if not cls.__doc__:
        problems.append('no docstring')
    return problems


class ComplianceTestCase(base.TestCase):
    """Every driver registered in the namespace follows the interface."""

    def test_every_registered_driver(self):
        failures = []
        mgr = stevedore.ExtensionManager(
            NAMESPACE, invoke_on_load=False,
            on_load_failure_callback=lambda _m, ep, exc: failures.append(
                '%s: cannot be loaded: %s' % (ep.name, exc)))
        self.assertIn('file', mgr.names())
        for ext in mgr:
            failures.extend('%s: %s' % (ext.name, problem)
                            for problem in driver_problems(ext.plugin))
        self.assertEqual([], failures)

    def test_problems_are_found(self):
        class Bad(driver_base.VolumeDriver):
            capabilities = {'multiattach': True}

        self.assertEqual(['is not a VolumeDriver'], driver_problems(object))
        problems = driver_problems(Bad)
        self.assertIn('capabilities is not a Capabilities', problems)
        self.assertIn('no docstring', problems)
        self.assertTrue(any(p.startswith('abstract methods left')
                            for p in problems))

    def test_per_attachment_drivers_take_the_attachment(self):
        class Half(file_driver.FileDriver):
            """Declares per-attachment connections, takes no id."""

            capabilities = driver_base.Capabilities(
                multiattach=True, per_attachment_connections=True)

        self.assertEqual(
            ['initialize_connection takes no attachment_id (declared '
             'per_attachment_connections)',
             'terminate_connection takes no attachment_id (declared '
             'per_attachment_connections)'], driver_problems(Half))


class InterfaceTestCase(base.TestCase):

    def test_capabilities_default_false_and_frozen(self):
        caps = driver_base.Capabilities()
        self.assertEqual((False, False, False),
                         (caps.multiattach, caps.shared_targets,
                          caps.online_extend))
        self.assertRaises(dataclasses.FrozenInstanceError, setattr, caps,
                          'multiattach', True)

    def test_volume_ref(self):
        ref = driver_base.VolumeRef.for_volume('abc', 3, multiattach=1,
                                               host='n@b#p')
        self.assertEqual('volume-abc', ref.name)
        self.assertIs(True, ref.multiattach)
        self.assertEqual('p', ref.pool)
        self.assertIsNone(driver_base.VolumeRef('a', 1, 'n').pool)
        self.assertRaises(dataclasses.FrozenInstanceError, setattr, ref,
                          'size', 4)

    def test_incomplete_driver_cannot_be_built(self):
        class Incomplete(driver_base.VolumeDriver):
            def create_volume(self, volume):
                pass

        self.assertRaises(TypeError, Incomplete, None, 'h@b')

    def test_validate_attach_mode(self):
        drv = file_driver.FileDriver(None, 'h@b')
        drv.validate_attach_mode('rw')
        drv.validate_attach_mode('ro')
        self.assertRaises(exception.DriverError, drv.validate_attach_mode,
                          'rx')
