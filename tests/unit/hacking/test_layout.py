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

"""The layering and the unit-test mirror of the tree, as
docs/contributor/architecture.rst describes them (cinder_ma.hacking.
layout); CM302 checks each import in pep8, these tests the whole tree."""

import os

from cinder_ma.hacking import layout
from tests import base

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


class LayersTestCase(base.BaseTestCase):

    def test_layers_of_modules(self):
        for module, layer in (
                ('cinder_ma.api.v3.attachments', 'api'),
                ('cinder_ma.volume.attachments', 'volume'),
                ('cinder_ma.policies.attachments', 'volume'),
                ('cinder_ma.manager.rpcapi', 'rpcapi'),
                ('cinder_ma.manager.manager', 'manager'),
                ('cinder_ma.manager.locks', 'manager'),
                ('cinder_ma.manager.flows', 'flows'),
                ('cinder_ma.manager.flows.connect_attachment', 'flows'),
                ('cinder_ma.manager.tasks.connection', 'tasks'),
                ('cinder_ma.manager.connector', 'drivers'),
                ('cinder_ma.volume.drivers.base', 'drivers'),
                ('cinder_ma.hypervisor.drivers.fake', 'drivers'),
                ('cinder_ma.db.attachments', 'db'),
                ('cinder_ma.exception', 'base'),
                ('cinder_ma.connection_info', 'base'),
                ('cinder_ma.cmd.all', 'cmd')):
            self.assertEqual(layer, layout.layer_of(module), module)

    def test_down_the_layers_only(self):
        self.assertIsNone(layout.violation('cinder_ma.api.v3.attachments',
                                           'cinder_ma.volume.attachments'))
        self.assertIsNone(layout.violation('cinder_ma.manager.manager',
                                           'cinder_ma.manager.flows.x'))
        self.assertIsNone(layout.violation('cinder_ma.manager.tasks.volume',
                                           'cinder_ma.db.volumes'))
        for importer, imported in (
                # upwards
                ('cinder_ma.db.volumes', 'cinder_ma.volume.api'),
                ('cinder_ma.manager.tasks.volume', 'cinder_ma.manager.flows'),
                ('cinder_ma.volume.drivers.file', 'cinder_ma.db.api'),
                # past the layer below
                ('cinder_ma.api.views.attachments',
                 'cinder_ma.manager.rpcapi'),
                ('cinder_ma.api.v3.volumes', 'cinder_ma.db.volumes'),
                ('cinder_ma.volume.api', 'cinder_ma.manager.manager')):
            self.assertIsNotNone(layout.violation(importer, imported),
                                 (importer, imported))

    def test_the_tree_follows_the_layers(self):
        wrong = [(importer, imported)
                 for importer, imported in layout.imports(ROOT)
                 if layout.violation(importer, imported)]
        self.assertEqual([], wrong)

    def test_every_exception_is_still_needed(self):
        # A leak that is mended leaves the list with it.
        self.assertEqual([], layout.stale_exceptions(ROOT))

    def test_module_of(self):
        self.assertEqual('cinder_ma.manager.flows',
                         layout.module_of('/x/cinder_ma/manager/flows/'
                                          '__init__.py'))
        self.assertEqual('cinder_ma.db.api',
                         layout.module_of('./cinder_ma/db/api.py'))


class MirrorTestCase(base.BaseTestCase):
    """tests/unit/x/test_y.py tests cinder_ma/x/y.py."""

    def test_tested_module(self):
        self.assertEqual('cinder_ma/manager/flows/__init__.py',
                         layout.tested_module(
                             'tests/unit/manager/flows/test_init.py'))
        self.assertEqual('cinder_ma/db/api.py',
                         layout.tested_module('tests/unit/db/test_api.py'))
        self.assertEqual('cinder_ma/cmd/all.py',
                         layout.tested_module(
                             'tests/functional/cmd/test_all.py'))

    def test_the_tree_mirrors_itself(self):
        strays, untested, listed_but_tested = layout.mirror(ROOT)
        # A unit test file tests the module at its place (or is one of
        # the few that walk the whole API).
        self.assertEqual([], strays)
        # A new module comes with its test file.
        self.assertEqual([], untested)
        # A module that got its test file leaves the list.
        self.assertEqual([], listed_but_tested)
