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

"""The documentation's generated driver support matrix
(``docs/ext/support_matrix.py``), checked against the in-tree drivers.

The extension is not a package: it is imported from its path, as Sphinx
does through ``docs/conf.py``. Its table-building functions need neither
Sphinx nor docutils, so this runs in any environment where cinder_ma and
its entry points are installed.
"""

import dataclasses
import os

from cinder_ma.hypervisor.drivers import base as hv_base
from cinder_ma.volume.drivers import base as volume_base
from tests import base

EXTENSION = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir,
                         'docs', 'ext', 'support_matrix.py')


def _load_extension():
    return base.load_file('cinder_ma_docs_support_matrix', EXTENSION)


class SupportMatrixTestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.matrix = _load_extension()

    def _rows(self, kind):
        rows = {row.name: row for row in self.matrix.driver_rows(kind)}
        for row in rows.values():
            self.assertIsNone(row.error, row)
        return rows

    def test_volume_drivers(self):
        rows = self._rows(self.matrix.VOLUME)
        file_row = rows['file']
        self.assertEqual('cinder_ma.volume.drivers.file.FileDriver',
                         file_row.class_path)
        self.assertEqual('file', file_row.protocol)
        self.assertEqual({'multiattach': True, 'shared_targets': False,
                          'online_extend': True,
                          'per_attachment_connections': False,
                          'snapshots': True, 'clone': True,
                          'consistent_snapshots': False},
                         file_row.capabilities)
        nbd_row = rows['nbd']
        self.assertEqual('nbd', nbd_row.protocol)
        self.assertEqual({'multiattach': True, 'shared_targets': False,
                          'online_extend': True,
                          'per_attachment_connections': True,
                          'snapshots': True, 'clone': True,
                          'consistent_snapshots': True},
                         nbd_row.capabilities)

    def test_hypervisor_drivers(self):
        rows = self._rows(self.matrix.HYPERVISOR)
        self.assertEqual(
            'cinder_ma.hypervisor.drivers.libvirt.LibvirtDriver',
            rows['libvirt'].class_path)
        self.assertEqual({'supports_multiattach': True,
                          'reports_instance_owner': True,
                          'supports_extend_volume': True,
                          'supports_reconnect': True},
                         rows['libvirt'].capabilities)
        self.assertEqual({'supports_multiattach': True,
                          'reports_instance_owner': True,
                          'supports_extend_volume': True,
                          'supports_reconnect': True},
                         rows['fake'].capabilities)
        self.assertIsNone(rows['libvirt'].protocol)

    def test_columns_follow_the_capability_declarations(self):
        # A capability added to a base class gets its column unasked.
        self.assertEqual(
            [f.name for f in dataclasses.fields(volume_base.Capabilities)],
            self.matrix.capability_fields(self.matrix.VOLUME))
        self.assertEqual(
            [f.name for f in dataclasses.fields(
                hv_base.HypervisorCapabilities)],
            self.matrix.capability_fields(self.matrix.HYPERVISOR))

    def test_table_cells(self):
        rows = self.matrix.driver_rows(self.matrix.VOLUME)
        header, body = self.matrix.table(self.matrix.VOLUME, rows)
        self.assertEqual(['Driver', 'Class', 'Protocol', 'multiattach',
                          'shared_targets', 'online_extend',
                          'per_attachment_connections', 'snapshots',
                          'clone', 'consistent_snapshots'], header)
        self.assertIn(['file', 'cinder_ma.volume.drivers.file.FileDriver',
                       'file', 'yes', 'no', 'yes', 'no', 'yes', 'yes',
                       'no'], body)
        header, body = self.matrix.table(
            self.matrix.HYPERVISOR,
            self.matrix.driver_rows(self.matrix.HYPERVISOR))
        self.assertEqual(['Driver', 'Class', 'supports_multiattach',
                          'reports_instance_owner', 'supports_extend_volume',
                          'supports_reconnect'],
                         header)
        self.assertIn(
            ['libvirt', 'cinder_ma.hypervisor.drivers.libvirt.LibvirtDriver',
             'yes', 'yes', 'yes', 'yes'], body)

    def test_drivers_are_not_instantiated(self):
        def refuse(*args, **kwargs):
            raise AssertionError('a driver was instantiated')

        for base_class in (volume_base.VolumeDriver,
                           hv_base.HypervisorDriver):
            self.patch(base_class, '__init__', refuse)
        self.assertTrue(self.matrix.driver_rows(self.matrix.VOLUME))
        self.assertTrue(self.matrix.driver_rows(self.matrix.HYPERVISOR))

    def test_unreadable_driver(self):
        class NoCapabilities(volume_base.VolumeDriver):
            capabilities = {'multiattach': True}

        row = self.matrix.row_for(self.matrix.VOLUME, 'broken',
                                  NoCapabilities)
        self.assertIn('capabilities are not a Capabilities', row.error)
        _header, body = self.matrix.table(self.matrix.VOLUME, [row])
        self.assertEqual(['?'] * 7, body[0][3:])

        row = self.matrix.row_for(self.matrix.HYPERVISOR, 'wrong', object)
        self.assertIn('not a subclass of HypervisorDriver', row.error)

    def test_list_table_lines(self):
        rows = self.matrix.driver_rows(self.matrix.HYPERVISOR)
        lines = self.matrix.list_table_lines(self.matrix.HYPERVISOR, rows)
        self.assertEqual(['.. list-table::', '   :header-rows: 1', ''],
                         lines[:3])
        self.assertIn('     - ``supports_multiattach``', lines)
        self.assertIn('   * - ``libvirt``', lines)
        self.assertEqual(
            ['No volume driver is installed.'],
            self.matrix.list_table_lines(self.matrix.VOLUME, []))

    def test_unknown_kind(self):
        self.assertRaises(ValueError, self.matrix.capability_fields,
                          'network')
