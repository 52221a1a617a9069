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

"""Tests of the hypervisor driver interface, and compliance of every
installed hypervisor driver.
"""

import dataclasses

import stevedore

from cinder_ma.hypervisor.drivers import base as hv_base
from tests import base

NAMESPACE = 'cinder_ma.hypervisor.drivers'


def driver_problems(cls):
    """What a hypervisor driver class gets wrong about the interface."""
    if not (isinstance(cls, type) and
            issubclass(cls, hv_base.HypervisorDriver)):
        return ['is not a HypervisorDriver']
    problems = []
    caps = cls.capabilities
    if type(caps) is not hv_base.HypervisorCapabilities:
        problems.append('capabilities is not a HypervisorCapabilities')
    else:
        for field in dataclasses.fields(hv_base.HypervisorCapabilities):
            if not isinstance(getattr(caps, field.name), bool):
                problems.append('capability %s is not a bool' % field.name)
    if getattr(cls, '__abstractmethods__', None):
        problems.append('abstract methods left: %s' % ', '.join(
            sorted(cls.__abstractmethods__)))
    if not isinstance(cls.get_driver_options(), list):
        problems.append('get_driver_options() is not a list')
    if not cls.__doc__:
        problems.append('no docstring')
    return problems


class ComplianceTestCase(base.TestCase):

    def test_every_registered_driver(self):
        failures = []
        mgr = stevedore.ExtensionManager(
            NAMESPACE, invoke_on_load=False,
            on_load_failure_callback=lambda _m, ep, exc: failures.append(
                '%s: cannot be loaded: %s' % (ep.name, exc)))
        self.assertIn('fake', mgr.names())
        for ext in mgr:
            failures.extend('%s: %s' % (ext.name, problem)
                            for problem in driver_problems(ext.plugin))
        self.assertEqual([], failures)

    def test_problems_are_found(self):
        class Bad(hv_base.HypervisorDriver):
            capabilities = hv_base.HypervisorCapabilities(
                supports_multiattach='yes')

        self.assertEqual(['is not a HypervisorDriver'],
                         driver_problems(dict))
        problems = driver_problems(Bad)
        self.assertIn('capability supports_multiattach is not a bool',
                      problems)
        self.assertIn('no docstring', problems)


class InterfaceTestCase(base.TestCase):

    def test_capabilities_default_false_and_frozen(self):
        caps = hv_base.HypervisorCapabilities()
        self.assertFalse(caps.supports_multiattach)
        self.assertFalse(caps.supports_extend_volume)
        self.assertRaises(dataclasses.FrozenInstanceError, setattr, caps,
                          'supports_multiattach', True)

    def test_listing_disks_is_unsupported_by_default(self):
        class Minimal(hv_base.HypervisorDriver):
            def attach_volume(self, *args, **kwargs):
                pass

            def detach_volume(self, *args, **kwargs):
                pass

        self.assertIsNone(Minimal(None).list_attached_disks())

    def test_resizing_disks_is_unsupported_by_default(self):
        class Minimal(hv_base.HypervisorDriver):
            def attach_volume(self, *args, **kwargs):
                pass

            def detach_volume(self, *args, **kwargs):
                pass

        self.assertFalse(Minimal.capabilities.supports_extend_volume)
        exc = self.assertRaises(NotImplementedError,
                                Minimal(None).resize_volume, 'i1', 'a1', 1)
        self.assertIn('Minimal does not declare supports_extend_volume',
                      str(exc))
