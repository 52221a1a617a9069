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

"""Sphinx extension: the driver support matrix, read from the drivers.

``.. cinder-ma-support-matrix:: volume`` (or ``hypervisor``) renders a
table of every driver registered in the entry point namespace
``cinder_ma.volume.drivers`` (or ``cinder_ma.hypervisor.drivers``) of the
Python environment that builds the documentation: its entry point name,
its class and, as yes/no, every capability its class declares. The
capability columns are the fields of the capability dataclasses of
``cinder_ma/volume/drivers/base.py`` and
``cinder_ma/hypervisor/drivers/base.py``, so a capability added there
appears here without a change to this file.

Drivers are imported (stevedore loads the class an entry point names),
never instantiated: reading the class attribute ``capabilities`` needs no
configuration, no backend and no libvirt.

The functions above :func:`setup` need neither Sphinx nor docutils, so
that tests can import this file by path and check the rows.
"""

import collections
import dataclasses

VOLUME = 'volume'
HYPERVISOR = 'hypervisor'

NAMESPACES = {
    VOLUME: 'cinder_ma.volume.drivers',
    HYPERVISOR: 'cinder_ma.hypervisor.drivers',
}

#: One driver of the matrix. ``capabilities`` maps each capability field
#: to a bool (empty when the driver could not be read); ``error`` says
#: why a driver could not be read, else it is None.
Row = collections.namedtuple(
    'Row', ['name', 'class_path', 'protocol', 'capabilities', 'error'])


def _capability_class(kind):
    """The dataclass whose fields are the capabilities of ``kind``."""
    if kind == VOLUME:
        from cinder_ma.volume.drivers import base
        return base.Capabilities
    if kind == HYPERVISOR:
        from cinder_ma.hypervisor.drivers import base
        return base.HypervisorCapabilities
    raise ValueError('unknown kind of driver %r; expected %s or %s' % (
        kind, VOLUME, HYPERVISOR))


def _base_class(kind):
    if kind == VOLUME:
        from cinder_ma.volume.drivers import base
        return base.VolumeDriver
    from cinder_ma.hypervisor.drivers import base
    return base.HypervisorDriver


def capability_fields(kind):
    """The names of the capabilities of ``kind``, in declaration order."""
    return [field.name
            for field in dataclasses.fields(_capability_class(kind))]


def _entry_point_classes(namespace):
    """``[(name, class or None, error or None)]`` of every entry point of
    ``namespace``, sorted by name; classes are loaded, not instantiated.
    """
    import stevedore

    failures = {}

    def _failed(_manager, entry_point, exc):
        failures[entry_point.name] = '%s: %s' % (type(exc).__name__, exc)

    manager = stevedore.ExtensionManager(
        namespace, invoke_on_load=False,
        on_load_failure_callback=_failed)
    found = [(ext.name, ext.plugin, None) for ext in manager]
    found.extend((name, None, error) for name, error in failures.items())
    return sorted(found, key=lambda item: item[0])


def row_for(kind, name, cls):
    """The :class:`Row` of the driver class ``cls`` registered as
    ``name``."""
    cap_class = _capability_class(kind)
    fields = capability_fields(kind)
    class_path = '%s.%s' % (getattr(cls, '__module__', '?'),
                            getattr(cls, '__qualname__', repr(cls)))
    protocol = getattr(cls, 'storage_protocol', None) if kind == VOLUME \
        else None
    if not (isinstance(cls, type) and issubclass(cls, _base_class(kind))):
        return Row(name, class_path, protocol, {},
                   'not a subclass of %s' % _base_class(kind).__name__)
    declared = getattr(cls, 'capabilities', None)
    if not isinstance(declared, cap_class):
        return Row(name, class_path, protocol, {},
                   'its capabilities are not a %s' % cap_class.__name__)
    return Row(name, class_path, protocol,
               {field: bool(getattr(declared, field)) for field in fields},
               None)


def driver_rows(kind):
    """The rows of every driver of ``kind`` installed here, by name."""
    rows = []
    for name, cls, error in _entry_point_classes(NAMESPACES[kind]):
        if cls is None:
            rows.append(Row(name, None, None, {},
                            'cannot be loaded (%s)' % error))
        else:
            rows.append(row_for(kind, name, cls))
    return rows


def yes_no(value):
    """How a capability reads in the matrix."""
    return 'yes' if value else 'no'


def table(kind, rows):
    """The matrix as text: ``(header, body)``, lists of strings.

    Columns: driver (the entry point name), class, the storage protocol
    (volume drivers only), then one yes/no column per capability. A
    driver that could not be read shows ``?`` in its capability columns.
    """
    fields = capability_fields(kind)
    header = ['Driver', 'Class']
    if kind == VOLUME:
        header.append('Protocol')
    header.extend(fields)
    body = []
    for row in rows:
        cells = [row.name, row.class_path or '?']
        if kind == VOLUME:
            cells.append(row.protocol or '?')
        if row.error:
            cells.extend('?' for _ in fields)
        else:
            cells.extend(yes_no(row.capabilities[field])
                         for field in fields)
        body.append(cells)
    return header, body


def _literal(text):
    return text if text == '?' else '``%s``' % text


def list_table_lines(kind, rows):
    """reStructuredText lines of a ``list-table`` showing ``rows``.

    Names (driver, class, capability) are set as literals; a driver
    that could not be read keeps its ``?`` cells plain.
    """
    header, body = table(kind, rows)
    if not body:
        return ['No %s driver is installed.' % kind]
    names = len(header) - len(capability_fields(kind))
    header = header[:names] + [_literal(name) for name in header[names:]]
    body = [[_literal(cell) for cell in cells[:2]] + cells[2:]
            for cells in body]
    lines = ['.. list-table::', '   :header-rows: 1', '']
    for cells in [header] + body:
        lines.append('   * - %s' % cells[0])
        lines.extend('     - %s' % cell for cell in cells[1:])
    return lines


def setup(app):
    """Register the ``cinder-ma-support-matrix`` directive."""
    from docutils import nodes
    from docutils.parsers.rst import directives
    from docutils.statemachine import StringList
    from sphinx.util import logging
    from sphinx.util.docutils import SphinxDirective

    logger = logging.getLogger(__name__)

    class SupportMatrixDirective(SphinxDirective):
        """``.. cinder-ma-support-matrix:: volume|hypervisor``"""

        required_arguments = 1
        has_content = False
        option_spec = {}

        def run(self):
            try:
                kind = directives.choice(self.arguments[0].strip(),
                                         (VOLUME, HYPERVISOR))
            except ValueError as exc:
                raise self.error('cinder-ma-support-matrix: %s' % exc)
            rows = driver_rows(kind)
            for row in rows:
                if row.error:
                    logger.warning(
                        '%s driver %s: %s', kind, row.name, row.error,
                        location=self.get_location())
            # The installed drivers are an input of this page that Sphinx
            # cannot see: read it again at every build.
            self.env.note_reread()
            container = nodes.container(
                classes=['cinder-ma-support-matrix'])
            self.state.nested_parse(
                StringList(list_table_lines(kind, rows),
                           source=self.get_source_info()[0]),
                self.content_offset, container)
            return [container]

    app.add_directive('cinder-ma-support-matrix', SupportMatrixDirective)
    return {'version': '1.0', 'parallel_read_safe': True,
            'parallel_write_safe': True}
