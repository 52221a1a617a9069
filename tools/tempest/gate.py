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
(``docs/admin/tempest.rst``) from the run: what passed, what Tempest
skipped and why, and what the exclude list leaves out and why.

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


def write_report(path, outcome):
    """The compatibility page of the docs, from ``outcome``."""
    counts = collections.Counter(status for status, _ in outcome.values())
    lines = [
        '.. This page is written by tools/tempest/gate.py --report from',
        '   the last run of the Tempest gate (tox -e tempest); do not edit.',
        '',
        '=================================',
        'Compatibility: Tempest volume API',
        '=================================',
        '',
        'The Tempest gate (``tox -e tempest``) runs Tempest\'s volume API',
        'tests (``tempest.api.volume``) against ``cinder-ma-all`` with a',
        'real Keystone, configured by ``etc/tempest/tempest.conf``.',
        'Tests that need a feature cinder_ma lacks are skipped by a',
        'feature flag of that file, or left out by',
        '``tools/tempest/exclude-list.txt``; each names the feature.',
        '',
        'Last run: %d passed, %d skipped, %d failed.' % (
            counts['success'], counts['skip'],
            counts['fail'] + counts['uxsuccess']),
        '',
    ]

    def section(title, rows):
        lines.extend([title, '=' * len(title), ''])
        if not rows:
            lines.extend(['None.', ''])
            return
        for row in rows:
            lines.append('* %s' % row)
        lines.append('')

    section('Passed', ['``%s``' % t for t, (s, _) in sorted(outcome.items())
                       if s == 'success'])
    section('Failed', ['``%s``' % t for t, (s, _) in sorted(outcome.items())
                       if s in ('fail', 'uxsuccess')])
    skipped = [(t, r) for t, (s, r) in sorted(outcome.items())
               if s == 'skip']
    section('Skipped by Tempest', ['``%s``: %s' % (
        t, _one_line(r) or 'no reason given') for t, r in skipped])
    section('Left out by the exclude list', [
        '``%s``: %s' % (regex, reason) for regex, reason in excluded()])
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
            write_report(args.report, results(workspace))
    finally:
        if not args.workspace:
            shutil.rmtree(workspace, ignore_errors=True)
    return status


if __name__ == '__main__':
    sys.exit(main())
