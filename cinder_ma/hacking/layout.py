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

"""The layers of cinder_ma and the unit-test mirror, as data that the
checks read (docs/contributor/architecture.rst describes them).

A request goes down the layers::

    api -> volume -> manager.rpcapi -> (RPC) -> manager -> flows -> tasks
        -> drivers, with db below all

A module may import its own layer, the layers :data:`ALLOWED` lists for
it, and the foundation (``base``: exceptions, context, options, status,
RPC transport, notifications...); never a layer above it. The flake8
check CM302 (:func:`cinder_ma.hacking.checks.layered_imports`) enforces
it, except for the imports of :data:`EXCEPTIONS`, each with the reason it
is still there.

The unit tests mirror the tree: ``tests/unit/x/test_y.py`` tests
``cinder_ma/x/y.py`` (``test_init.py`` a package's ``__init__.py``).
``tests/unit/hacking/test_layout.py`` holds both lists below true.
"""

import ast
import os

#: Module prefixes and their layer; the longest prefix wins, anything
#: else of cinder_ma is ``base``.
LAYERS = {
    'cinder_ma.cmd': 'cmd',
    'cinder_ma.wsgi': 'cmd',
    'cinder_ma.hacking': 'cmd',
    'cinder_ma.api': 'api',
    'cinder_ma.volume': 'volume',
    # Policies are enforced by the service layer, with the resource.
    'cinder_ma.policy': 'volume',
    'cinder_ma.policies': 'volume',
    'cinder_ma.manager.rpcapi': 'rpcapi',
    'cinder_ma.manager': 'manager',
    'cinder_ma.manager.flows': 'flows',
    'cinder_ma.manager.tasks': 'tasks',
    'cinder_ma.manager.connector': 'drivers',
    'cinder_ma.volume.drivers': 'drivers',
    'cinder_ma.hypervisor': 'drivers',
    'cinder_ma.db': 'db',
}

#: The layers each layer may import besides its own and ``base``.
ALLOWED = {
    'cmd': frozenset(['api', 'volume', 'rpcapi', 'manager', 'flows',
                      'tasks', 'drivers', 'db']),
    'api': frozenset(['volume']),
    'volume': frozenset(['rpcapi', 'db']),
    'rpcapi': frozenset(['db']),
    'manager': frozenset(['rpcapi', 'flows', 'tasks', 'drivers', 'db']),
    'flows': frozenset(['tasks']),
    'tasks': frozenset(['rpcapi', 'drivers', 'db']),
    'drivers': frozenset(),
    'db': frozenset(),
    'base': frozenset(),
}

#: Imports against the layering that are still there: (importing module,
#: imported module or prefix) -> why, and what removes it.
EXCEPTIONS = {
    # The reservation names the policy that refuses a second instance of
    # a bootable multiattach volume; the refusal belongs in
    # volume/attachments.py, with the attachment cap being reworked there.
    ('cinder_ma.db.attachments', 'cinder_ma.policies'):
        'the reservation refusal names a policy',
    # Found by this check: the manager and a task read what the service
    # layer computes. The computations belong below both.
    ('cinder_ma.manager.manager', 'cinder_ma.volume.qos_specs'):
        'the QoS specs of a volume, per GiB (belongs in db or base)',
    ('cinder_ma.manager.tasks.connection', 'cinder_ma.volume.scheduler'):
        'a backend\'s reported capabilities (belongs in db.services)',
}


def layer_of(module):
    """The layer of a cinder_ma module (dotted name)."""
    best = ''
    for prefix in LAYERS:
        if (module == prefix or module.startswith(prefix + '.')) and \
                len(prefix) > len(best):
            best = prefix
    return LAYERS[best] if best else 'base'


def excepted(importer, imported):
    """The reason an import against the layering is let through, or
    None."""
    for (source, target), reason in EXCEPTIONS.items():
        if importer == source and (imported == target or
                                   imported.startswith(target + '.')):
            return reason
    return None


def violation(importer, imported):
    """Why ``importer`` may not import ``imported`` (both dotted cinder_ma
    module names), or None when it may."""
    source, target = layer_of(importer), layer_of(imported)
    if target in ('base', source) or target in ALLOWED[source]:
        return None
    if excepted(importer, imported):
        return None
    return '%s (layer %s) may not import %s (layer %s)' % (
        importer, source, imported, target)


def module_of(path):
    """The dotted module name of a file under the tree's ``cinder_ma``."""
    parts = os.path.normpath(path).replace(os.sep, '/').split('/')
    parts = parts[len(parts) - parts[::-1].index('cinder_ma') - 1:]
    parts[-1] = parts[-1][:-len('.py')]
    if parts[-1] == '__init__':
        parts.pop()
    return '.'.join(parts)


def imports(root):
    """(importing module, imported module or attribute) of every import
    of cinder_ma in the modules of the tree ``root``, read with
    :mod:`ast`."""
    found = []
    for path in sorted(_files(root, 'cinder_ma',
                              lambda n: n.endswith('.py'))):
        importer = module_of(path)
        with open(os.path.join(root, path)) as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and \
                    node.level == 0 and (
                        node.module == 'cinder_ma' or
                        node.module.startswith('cinder_ma.')):
                found.extend((importer, '%s.%s' % (node.module, a.name))
                             for a in node.names)
            elif isinstance(node, ast.Import):
                found.extend((importer, a.name) for a in node.names
                             if a.name.startswith('cinder_ma.'))
    return found


def stale_exceptions(root):
    """The :data:`EXCEPTIONS` that no import of the tree needs any more."""
    needed = set()
    for importer, imported in imports(root):
        source, target = layer_of(importer), layer_of(imported)
        if target in ('base', source) or target in ALLOWED[source]:
            continue
        for key in EXCEPTIONS:
            if importer == key[0] and (imported == key[1] or
                                       imported.startswith(key[1] + '.')):
                needed.add(key)
    return sorted(set(EXCEPTIONS) - needed)


# The unit-test mirror.

#: Unit test files that test no one module: they walk the whole API, or
#: what the tree ships outside cinder_ma.
CROSS_CUTTING_TESTS = frozenset([
    'tests/unit/api/test_fuzz.py',
    'tests/unit/api/test_policy_matrix.py',
    'tests/unit/api/v3/test_attachment_fencing.py',
    'tests/unit/api/v3/test_volume_actions_end_to_end.py',
    'tests/unit/api/v3/test_volume_reset_status.py',
    'tests/unit/api/views/test_shapes.py',
    'tests/unit/api/views/test_views.py',
    'tests/unit/hacking/test_ci.py',
    'tests/unit/tools/test_benchmark.py',
    'tests/unit/tools/test_benchmark_datapath.py',
    'tests/unit/tools/test_stestr_durations.py',
    'tests/unit/tools/test_tempest_gate.py',
])

#: Modules without a test file of their own (unit, or functional at the
#: same place), tested through their users; the list only shrinks.
UNTESTED_MODULES = frozenset([
    'cinder_ma/api/__init__.py',
    'cinder_ma/api/extensions.py',
    'cinder_ma/api/schemas/parameter_types.py',
    'cinder_ma/api/schemas/qos_specs.py',
    'cinder_ma/api/schemas/quotas.py',
    'cinder_ma/api/schemas/volume_metadata.py',
    'cinder_ma/api/schemas/volume_type_access.py',
    'cinder_ma/api/v3/__init__.py',
    'cinder_ma/api/v3/limits.py',
    'cinder_ma/api/v3/quota_class_sets.py',
    'cinder_ma/api/views/__init__.py',
    'cinder_ma/api/views/availability_zones.py',
    'cinder_ma/api/views/capabilities.py',
    'cinder_ma/api/views/extensions.py',
    'cinder_ma/api/views/hosts.py',
    'cinder_ma/api/views/limits.py',
    'cinder_ma/api/views/links.py',
    'cinder_ma/api/views/qos_specs.py',
    'cinder_ma/api/views/quotas.py',
    'cinder_ma/api/views/scheduler_stats.py',
    'cinder_ma/api/views/services.py',
    'cinder_ma/api/views/types.py',
    'cinder_ma/api/views/versions.py',
    'cinder_ma/api/views/volume_metadata.py',
    'cinder_ma/api/views/volume_summary.py',
    'cinder_ma/api/views/volume_type_access.py',
    'cinder_ma/api/views/volume_type_encryption.py',
    'cinder_ma/conf/__init__.py',
    'cinder_ma/conf/api.py',
    'cinder_ma/conf/backend.py',
    'cinder_ma/conf/coordination.py',
    'cinder_ma/conf/database.py',
    'cinder_ma/conf/default.py',
    'cinder_ma/conf/healthcheck.py',
    'cinder_ma/conf/hypervisor.py',
    'cinder_ma/conf/manager.py',
    'cinder_ma/conf/quota.py',
    'cinder_ma/conf/upgrade_levels.py',
    'cinder_ma/connection_info.py',
    'cinder_ma/context.py',
    'cinder_ma/db/maintenance.py',
    'cinder_ma/db/migration.py',
    'cinder_ma/db/models.py',
    'cinder_ma/db/qos_specs.py',
    'cinder_ma/db/work.py',
    'cinder_ma/exception.py',
    'cinder_ma/hacking/__init__.py',
    'cinder_ma/manager/flows/reconnect_attachment.py',
    'cinder_ma/manager/flows/rollback_attach.py',
    'cinder_ma/manager/tasks/fencing.py',
    'cinder_ma/policies/__init__.py',
    'cinder_ma/policies/attachments.py',
    'cinder_ma/policies/availability_zones.py',
    'cinder_ma/policies/limits.py',
    'cinder_ma/policies/qos_specs.py',
    'cinder_ma/policies/quotas.py',
    'cinder_ma/policies/scheduler_stats.py',
    'cinder_ma/policies/services.py',
    'cinder_ma/policies/volumes.py',
    'cinder_ma/version.py',
    'cinder_ma/volume/__init__.py',
    'cinder_ma/volume/actions.py',
    'cinder_ma/volume/availability_zones.py',
    'cinder_ma/volume/pools.py',
    'cinder_ma/volume/reset.py',
    'cinder_ma/volume/services.py',
])

#: Modules that need no test file: data (migrations), packages whose
#: ``__init__`` only names the package.
_NO_TEST = ('cinder_ma/db/migrations/',)
_SMALL_INIT = 700


def tested_module(test_path):
    """The module path ``tests/unit/x/test_y.py`` (or tests/functional)
    mirrors: ``cinder_ma/x/y.py``."""
    parts = test_path.split('/')
    name = parts[-1][len('test_'):]
    if name == 'init.py':
        name = '__init__.py'
    return '/'.join(['cinder_ma'] + parts[2:-1] + [name])


def _files(root, top, match):
    found = set()
    for directory, _dirs, files in os.walk(os.path.join(root, top)):
        for name in files:
            if match(name):
                found.add(os.path.relpath(os.path.join(directory, name),
                                          root).replace(os.sep, '/'))
    return found


def mirror(root):
    """(unit test files mirroring no module and not cross-cutting,
    modules without a test that are not listed untested, listed
    untested modules that have a test now) under the tree ``root``."""
    modules = _files(root, 'cinder_ma', lambda n: n.endswith('.py'))
    unit = _files(root, 'tests/unit',
                  lambda n: n.startswith('test_') and n.endswith('.py'))
    functional = _files(root, 'tests/functional',
                        lambda n: n.startswith('test_') and n.endswith('.py'))
    strays = sorted(t for t in unit - CROSS_CUTTING_TESTS
                    if tested_module(t) not in modules)
    tested = {tested_module(t) for t in unit | functional}
    needed = {m for m in modules
              if not m.startswith(_NO_TEST) and not (
                  m.endswith('/__init__.py') and
                  os.path.getsize(os.path.join(root, m)) < _SMALL_INIT)}
    untested = sorted(needed - tested - UNTESTED_MODULES)
    listed_but_tested = sorted(UNTESTED_MODULES & tested)
    return strays, untested, listed_but_tested
