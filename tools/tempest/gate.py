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

"""The Tempest gate: Tempest's volume API tests against cinder_ma.

Run as a deployer would (``tox -e tempest`` runs this script): a real
Keystone (the ``keystone`` package, SQLite, fernet tokens) and
``cinder-ma-all`` with ``auth_strategy = keystone``, both on free loopback
ports and started by the functional tests' fixtures; the volume service in
Keystone's catalog; Tempest configured from ``etc/tempest/tempest.conf``
and run with ``tools/tempest/exclude-list.txt``. The exit status is
Tempest's: any failing test fails the gate.

With ``--report FILE`` it also writes the compatibility page of the docs
(``docs/admin/tempest.rst``) from the run: every test the regex lists
(``stestr list``), whether it passed, was skipped by Tempest or left out
by the exclude list, and for those what feature it needs.

Usage::

    python tools/tempest/gate.py [--regex R] [--concurrency N]
        [--report docs/admin/tempest.rst] [--workspace DIR]
"""

import argparse
import collections
import contextlib
import io
import os
import re
import shutil
import signal
import string
import subprocess
import sys
import tempfile

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(TOOLS))
CONFIG_TEMPLATE = os.path.join(ROOT, 'etc', 'tempest', 'tempest.conf')
EXCLUDE_LIST = os.path.join(TOOLS, 'exclude-list.txt')
BIN_DIR = os.path.dirname(sys.executable)

#: The highest microversion of Cinder's line that cinder_ma serves.
MAX_MICROVERSION = '3.71'
DEFAULT_REGEX = r'^tempest\.api\.volume\.'
#: The backends of cinder-ma-all: two ``file`` backends, each with its own
#: directory and ``volume_backend_name``, so that Tempest's multi-backend
#: tests (``[volume] backend_names`` of etc/tempest/tempest.conf) run.
BACKENDS = ('file-1', 'file-2')

sys.path.insert(0, ROOT)


def _tempest(*args, cwd):
    return subprocess.call([os.path.join(BIN_DIR, 'tempest')] + list(args),
                           cwd=cwd)


def start_services(stack):
    """Keystone and cinder-ma-all, the volume service in the catalog.

    :returns: the Keystone fixture.
    """
    from tests.functional import fixtures as cm_fixtures

    keystone = stack.enter_context(_fixture(cm_fixtures.Keystone()))
    user = keystone.service_user('cinder-ma')
    config = {
        'DEFAULT': {'auth_strategy': 'keystone',
                    'enabled_backends': ','.join(BACKENDS)},
        'keystone_authtoken': keystone.authtoken_config(user),
    }
    for name in BACKENDS:
        config[name] = {'volume_driver': 'file',
                        'volume_backend_name': name,
                        'file_volumes_dir': '$state_path/%s' % name}
    service = stack.enter_context(_fixture(cm_fixtures.AllInOne(
        config=config)))
    keystone.register_service('block-storage', 'cinder-ma',
                              service.endpoint + '/%(project_id)s')
    print('tempest gate: keystone %s, cinder-ma-all %s' % (
        keystone.auth_url, service.endpoint), flush=True)
    return keystone


class _fixture:
    """A fixtures.Fixture as a context manager that keeps its details
    (logs) on the screen when it fails to start."""

    def __init__(self, fixture):
        self.fixture = fixture

    def __enter__(self):
        self.fixture.setUp()
        return self.fixture

    def __exit__(self, *exc):
        self.fixture.cleanUp()
        return False


def write_workspace(workspace, keystone):
    """A Tempest workspace whose etc/tempest.conf points at ``keystone``.
    """
    if not os.path.exists(os.path.join(workspace, '.stestr.conf')):
        status = _tempest('init', workspace, cwd=ROOT)
        if status:
            raise SystemExit('tempest init failed (%s)' % status)
    with open(CONFIG_TEMPLATE) as f:
        template = string.Template(f.read())
    config = template.substitute(
        ADMIN_USER=keystone.ADMIN_USER,
        ADMIN_PASSWORD=keystone.admin_password,
        ADMIN_PROJECT=keystone.ADMIN_PROJECT,
        KEYSTONE_URL=keystone.auth_url,
        REGION=keystone.REGION,
        MAX_MICROVERSION=MAX_MICROVERSION,
        BACKEND_NAMES=','.join(BACKENDS))
    with open(os.path.join(workspace, 'etc', 'tempest.conf'), 'w') as f:
        f.write(config)


def run_tempest(workspace, regex, concurrency):
    return _tempest('run', '--regex', regex,
                    '--concurrency', str(concurrency),
                    '--exclude-list', EXCLUDE_LIST, cwd=workspace)


def results(workspace):
    """{test id: (status, skip reason)} of the workspace's last run."""
    import subunit
    import testtools

    stream = subprocess.run(
        [os.path.join(BIN_DIR, 'stestr'), 'last', '--subunit'],
        cwd=workspace, capture_output=True, check=False).stdout

    class Collector(testtools.StreamResult):
        def __init__(self):
            super().__init__()
            # Not "status": that is the method below.
            self.statuses = {}
            self.reasons = collections.defaultdict(bytes)

        def status(self, test_id=None, test_status=None, file_name=None,
                   file_bytes=None, **kwargs):
            if test_id is None:
                return
            if test_status in ('success', 'fail', 'skip', 'xfail',
                               'uxsuccess'):
                self.statuses[test_id] = test_status
            if file_name == 'reason' and file_bytes:
                self.reasons[test_id] += file_bytes

    collector = Collector()
    subunit.ByteStreamToStreamResult(
        io.BytesIO(stream), non_subunit_name='stdout').run(collector)
    return {_plain_id(test_id): (status, collector.reasons[test_id].decode(
        'utf-8', 'replace').strip())
        for test_id, status in collector.statuses.items()}


def _plain_id(test_id):
    """The test id without Tempest's ``[id-...,smoke]`` attributes."""
    return test_id.split('[', 1)[0]


def excluded():
    """[(regex, reason)] of the exclude list: each paragraph is comment
    lines (the reason) and then the regular expressions they explain."""
    entries = []
    with open(EXCLUDE_LIST) as f:
        paragraphs = f.read().split('\n\n')
    for paragraph in paragraphs:
        lines = [line.strip() for line in paragraph.splitlines()
                 if line.strip()]
        reason = ' '.join(line.lstrip('#').strip() for line in lines
                          if line.startswith('#'))
        entries.extend((line, reason) for line in lines
                       if not line.startswith('#'))
    return entries


def listed_tests(workspace, regex):
    """The ids of the tests ``regex`` selects, the exclude list's
    included (``stestr list`` in the workspace: Tempest's discovery,
    without running anything)."""
    listing = subprocess.run(
        [os.path.join(BIN_DIR, 'stestr'), 'list', regex], cwd=workspace,
        capture_output=True, check=False, text=True).stdout
    return sorted({_plain_id(line.strip()) for line in listing.splitlines()
                   if line.startswith('tempest.')})


#: What a skip of Tempest's needs, by a regular expression of its reason:
#: the feature (and why the gate does not have it).
SKIP_FEATURES = (
    (r'Neutron is not available|compute service is not available',
     'servers to attach volumes to: a compute (nova) and network '
     '(neutron) service, which the gate does not run'),
    (r'backup feature disabled',
     'volume backups ([volume-feature-enabled] backup): cinder_ma has no '
     'backup service'),
    (r'Manage volume tests are disabled|manage snapshot',
     'managing existing backend volumes and snapshots '
     '([volume-feature-enabled] manage_volume, manage_snapshot): '
     'cinder_ma has none'),
)

#: The outcome of a test that did not run because the exclude list
#: leaves it out.
EXCLUDED = 'excluded'


def _class_skips(outcome):
    """{class id: reason} of the classes Tempest skipped whole (their
    ``setUpClass (tempest.x.Class)`` pseudo-test)."""
    skips = {}
    for test_id, (status, reason) in outcome.items():
        match = re.match(r'setUpClass \((.+)\)$', test_id)
        if match and status == 'skip':
            skips[match.group(1)] = reason
    return skips


def per_test(outcome, listed=(), exclusions=()):
    """{test id: (result, reason)} of every listed test: ``success``,
    ``fail``, ``skip`` (with what it needs) or :data:`EXCLUDED` (with the
    exclude list's reason). A test of a class Tempest skipped whole is
    skipped with the class's reason.

    :param outcome: :func:`results` of the run.
    :param listed: the ids the gate's regex selects (all of ``outcome``'s
        when empty).
    :param exclusions: :func:`excluded`.
    """
    class_skips = _class_skips(outcome)
    tests = {}
    for test_id in set(listed) | {t for t in outcome
                                  if not t.startswith('setUpClass ')}:
        exclusion = next((reason for regex, reason in exclusions
                          if re.search(regex, test_id)), None)
        if exclusion is not None:
            tests[test_id] = (EXCLUDED, exclusion)
            continue
        status, reason = outcome.get(test_id, (None, ''))
        if status is None:
            class_id = test_id.rsplit('.', 1)[0]
            if class_id in class_skips:
                status, reason = 'skip', class_skips[class_id]
            else:
                status, reason = 'fail', 'did not run'
        elif status in ('xfail', 'uxsuccess'):
            status = 'success' if status == 'xfail' else 'fail'
        if status == 'skip':
            reason = _needs(reason)
        tests[test_id] = (status, reason)
    return tests


def _needs(reason):
    """Tempest's skip reason, with the feature it needs where known."""
    reason = _one_line(reason) or 'no reason given'
    for pattern, feature in SKIP_FEATURES:
        if re.search(pattern, reason, re.IGNORECASE):
            return '%s (Tempest: "%s")' % (feature, reason)
    return reason


def write_report(path, outcome, listed=(), exclusions=None,
                 regex=DEFAULT_REGEX):
    """The compatibility page of the docs: every test the gate's regex
    lists, with its result and, for a skip or an exclusion, the feature
    it needs.

    :param outcome: :func:`results` of the run.
    :param listed: :func:`listed_tests` of the gate's regex.
    :param exclusions: :func:`excluded` (read from the exclude list when
        None).
    """
    if exclusions is None:
        exclusions = excluded()
    tests = per_test(outcome, listed, exclusions)
    counts = collections.Counter(result for result, _ in tests.values())
    lines = [
        '.. This page is written by tools/tempest/gate.py --report from',
        '   the last run of the Tempest gate (tox -e tempest); do not edit.',
        '',
        '=================================',
        'Compatibility: Tempest volume API',
        '=================================',
        '',
        'The Tempest gate (``tox -e tempest``) runs Tempest\'s volume API',
        'tests (``%s``) against ``cinder-ma-all`` with' % regex,
        'a real Keystone and two ``file`` backends, configured by',
        '``etc/tempest/tempest.conf``. Tests that need a feature the gate',
        'or cinder_ma lacks are skipped by Tempest (a feature flag of that',
        'file, or a service the gate does not run), or left out by',
        '``tools/tempest/exclude-list.txt``; each names the feature.',
        '',
        '**%d of the %d listed tests pass, %d skipped, %d excluded, '
        '%d failed.**' % (counts['success'], len(tests), counts['skip'],
                          counts[EXCLUDED], counts['fail']),
        '',
    ]

    def section(title, rows, explained):
        lines.extend([title, '=' * len(title), ''])
        if not rows:
            lines.extend(['None.', ''])
            return
        for test_id, reason in rows:
            if explained:
                lines.append('* ``%s``: %s' % (test_id, reason))
            else:
                lines.append('* ``%s``' % test_id)
        lines.append('')

    def of(result):
        return [(t, r) for t, (s, r) in sorted(tests.items())
                if s == result]

    section('Passed', of('success'), False)
    section('Failed', of('fail'), True)
    section('Skipped by Tempest', of('skip'), True)
    section('Left out by the exclude list', of(EXCLUDED), True)
    with open(path, 'w') as f:
        f.write('\n'.join(lines))


def _one_line(text):
    return re.sub(r'\s+', ' ', text).strip()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--regex', default=DEFAULT_REGEX)
    parser.add_argument('--concurrency', type=int, default=2)
    parser.add_argument('--workspace',
                        help='Tempest workspace to use (and keep); '
                             'default: a temporary directory')
    parser.add_argument('--report',
                        help='write the compatibility page here')
    args = parser.parse_args(argv)
    # SIGTERM (a CI timeout, tox interrupted) stops Keystone and
    # cinder-ma-all too: the fixtures' cleanups run on SystemExit.
    signal.signal(signal.SIGTERM, lambda signo, frame: sys.exit(128 + signo))

    workspace = args.workspace or tempfile.mkdtemp(prefix='tempest-gate-')
    os.makedirs(workspace, exist_ok=True)
    try:
        with contextlib.ExitStack() as stack:
            keystone = start_services(stack)
            write_workspace(workspace, keystone)
            status = run_tempest(workspace, args.regex, args.concurrency)
        if args.report:
            write_report(args.report, results(workspace),
                         listed_tests(workspace, args.regex),
                         regex=args.regex)
    finally:
        if not args.workspace:
            shutil.rmtree(workspace, ignore_errors=True)
    return status


if __name__ == '__main__':
    sys.exit(main())
