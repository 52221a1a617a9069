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

"""Horizon (the ``horizon`` package from PyPI) in front of a cloud.

:class:`Horizon` configures the dashboard as a deployer does, with a
``local_settings.py`` in ``openstack_dashboard/local/`` of the virtualenv
it is installed in (where Horizon's settings documentation and DevStack
put it; nothing else of Horizon is changed), and serves it with
Django's ``runserver`` on a free loopback port:

* ``OPENSTACK_KEYSTONE_URL`` is the cloud's Keystone; Horizon finds
  cinder_ma in the catalog as ``block-storage`` (the first service type
  it looks for) and uses the Block Storage API v3
  (``OPENSTACK_API_VERSIONS['volume'] = 3``): 3.0 for most calls, and
  the microversions of its feature table where it needs them (3.27+ for
  groups, 3.29 for messages, 3.55 for limits, 3.60 for extending an
  in-use volume), chosen from the versions document cinder_ma serves;
* sessions in files and a local-memory cache, so that no memcached is
  needed (one ``runserver`` process holds the cache);
* ``DEBUG = True``, as the example settings have it: ``cinderclient``
  and ``novaclient`` log each request and answer to :attr:`log_path`
  only then; static files are served by ``runserver --insecure`` and
  compressed on first use into ``var/cinder-ma-tests/compress`` of the
  virtualenv, with django-compressor's cache in files there, so that
  the Horizons of later test classes and runs find them made (no
  ``collectstatic`` or offline ``compress`` step);
* ``OPENSTACK_CINDER_FEATURES = {'enable_backup': False}``: cinder_ma
  has no backup service, so a deployer leaves the Volume Backups panel
  off;
* cinder_ma's own dashboard (:mod:`cinder_ma_dashboard`), when it is
  installed in the virtualenv (tools/openstack/venvs.sh installs it):
  its ``enabled/`` and ``local_settings.d/`` files are copied to
  ``openstack_dashboard/local/``, as docs/user/dashboard.rst tells a
  deployer to.

The process runs in a session of its own and is stopped by PID (its
process group) on cleanup, as every process of the functional tests'
fixtures (:class:`tests.functional.fixtures.Process`).
"""

import collections
import fcntl
import os
import pprint
import re
import shutil
import subprocess
import uuid

import fixtures
import requests

from tests.functional import fixtures as fx

#: Seconds Horizon may take to answer its first request: Django loads
#: every dashboard and panel first.
START_TIMEOUT = 120

#: The Django settings module of Horizon.
SETTINGS_MODULE = 'openstack_dashboard.settings'

#: A record of Horizon's log (the format of :func:`local_settings`):
#: messages may span lines (cinderclient's ``REQ:`` starts with one).
LOG_RECORD = re.compile(
    r'^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ \d+ (?P<thread>\d+) '
    r'(?P<level>[A-Z]+) (?P<logger>\S+) ', re.MULTILINE)
#: A request as cinderclient (``REQ: curl -i URL -X GET``) and
#: keystoneauth (``REQ: curl -g -i -X GET URL``) log it.
REQUEST = re.compile(r'REQ: curl (?:-g )?-i (?:-X (?P<m1>[A-Z]+) '
                     r'(?P<u1>\S+)|(?P<u2>\S+) -X ?(?P<m2>[A-Z]+))')
#: Their line about the answer.
RESPONSE = re.compile(r'RESP: \[(?P<status>\d{3})\]')


class Call(collections.namedtuple('Call', 'method url status logger')):
    """A request Horizon sent and the status of its answer."""

    def __str__(self):
        return '%s %s -> %s' % (self.method, self.url, self.status)


def parse_calls(text):
    """The :class:`Call` s of a Horizon log, in their order.

    Horizon sends requests from several threads at once; a client logs
    a request and then its answer from the same thread.
    """
    pending = {}
    calls = []
    records = list(LOG_RECORD.finditer(text))
    for index, record in enumerate(records):
        end = (records[index + 1].start() if index + 1 < len(records)
               else len(text))
        message = text[record.end():end]
        key = (record.group('thread'), record.group('logger'))
        request = REQUEST.search(message)
        if request:
            pending[key] = (request.group('m1') or request.group('m2'),
                            request.group('u1') or request.group('u2'))
            continue
        response = RESPONSE.search(message)
        if response and key in pending:
            method, url = pending.pop(key)
            calls.append(Call(method, url, int(response.group('status')),
                              record.group('logger')))
    return calls


def python_of(venv):
    return os.path.join(venv, 'bin', 'python')


def local_settings_dir(venv):
    """``openstack_dashboard/local`` of Horizon in ``venv``."""
    result = subprocess.run(
        [python_of(venv), '-c',
         'import os, openstack_dashboard; '
         'print(os.path.join(os.path.dirname('
         'openstack_dashboard.__file__), "local"))'],
        capture_output=True, text=True, timeout=60, check=False,
        stdin=subprocess.DEVNULL)
    if result.returncode != 0:
        raise fx.ServiceFailed('Horizon is not installed in %s:\n%s'
                               % (venv, result.stderr))
    return result.stdout.strip()


#: The files of cinder_ma's dashboard a deployer copies to Horizon's
#: ``openstack_dashboard/local/`` (docs/user/dashboard.rst), by directory.
DASHBOARD_FILES = {
    'enabled': ('_1481_project_cinder_ma_panel.py',
                '_2481_admin_shared_volumes_panel.py'),
    'local_settings.d': ('_1480_cinder_ma_dashboard.py',),
}


def dashboard_dir(venv):
    """Where ``cinder_ma_dashboard`` is installed in ``venv``, or None."""
    result = subprocess.run(
        [python_of(venv), '-c',
         'import os, cinder_ma_dashboard; '
         'print(os.path.dirname(cinder_ma_dashboard.__file__))'],
        capture_output=True, text=True, timeout=60, check=False,
        stdin=subprocess.DEVNULL)
    return result.stdout.strip() if result.returncode == 0 else None


def enable_dashboard(venv, settings_dir):
    """Copy cinder_ma's dashboard's files to Horizon's ``local/``
    (``settings_dir``) if the plugin is installed in ``venv``; whether it
    is."""
    source = dashboard_dir(venv)
    if source is None:
        return False
    for directory, names in DASHBOARD_FILES.items():
        target = os.path.join(settings_dir, directory)
        os.makedirs(target, exist_ok=True)
        for name in names:
            shutil.copyfile(os.path.join(source, directory, name),
                            os.path.join(target, name))
    return True


def local_settings(keystone_auth_url, region, directory, log_path,
                   secret_key, compress_dir, cinder_features=None):
    """The text of Horizon's ``local_settings.py``; ``compress_dir``
    holds the compressed CSS and JavaScript and django-compressor's
    cache."""
    settings = {
        'DEBUG': True,
        'ALLOWED_HOSTS': ['127.0.0.1', 'localhost'],
        'SECRET_KEY': secret_key,
        'OPENSTACK_HOST': '127.0.0.1',
        'OPENSTACK_KEYSTONE_URL': keystone_auth_url,
        'OPENSTACK_KEYSTONE_DEFAULT_ROLE': 'member',
        # One region: no region selector on the login page.
        'AVAILABLE_REGIONS': [],
        'DEFAULT_SERVICE_REGIONS': {'*': region},
        'OPENSTACK_API_VERSIONS': {
            'identity': 3, 'image': 2, 'volume': 3, 'compute': 2},
        'OPENSTACK_CINDER_FEATURES': dict(
            {'enable_backup': False}, **(cinder_features or {})),
        'TIME_ZONE': 'UTC',
        # No memcached: one process, its own memory; sessions in files.
        # django-compressor's entries (the compressed output and the
        # mtime of each of hundreds of static files) in files of
        # ``compress_dir``, so that every Horizon of the virtualenv finds
        # the CSS compiled from the SCSS once (seconds of CPU); room for
        # all of them: at Django's default of 300 entries the output was
        # culled and compiled again for most pages.
        'CACHES': {
            'default': {
                'BACKEND': 'django.core.cache.backends.locmem.'
                           'LocMemCache'},
            'compress': {
                'BACKEND': 'django.core.cache.backends.filebased.'
                           'FileBasedCache',
                'LOCATION': os.path.join(compress_dir, 'cache'),
                'OPTIONS': {'MAX_ENTRIES': 100000}}},
        'COMPRESS_CACHE_BACKEND': 'compress',
        'SESSION_ENGINE': 'django.contrib.sessions.backends.file',
        'SESSION_FILE_PATH': os.path.join(directory, 'sessions'),
        # Compressed CSS and JavaScript, made on first use, land here.
        'STATIC_ROOT': os.path.join(compress_dir, 'static'),
        'COMPRESS_ENABLED': True,
        'COMPRESS_OFFLINE': False,
        'EMAIL_BACKEND': 'django.core.mail.backends.dummy.EmailBackend',
        'LOGGING': {
            'version': 1,
            'disable_existing_loggers': False,
            'formatters': {'plain': {
                'format': '%(asctime)s %(process)d %(thread)d '
                          '%(levelname)s %(name)s %(message)s'}},
            'handlers': {'file': {
                'class': 'logging.FileHandler', 'filename': log_path,
                'formatter': 'plain', 'level': 'DEBUG'}},
            'root': {'handlers': ['file'], 'level': 'INFO'},
            'loggers': {
                name: {'handlers': ['file'], 'level': 'DEBUG',
                       'propagate': False}
                for name in ('horizon', 'openstack_dashboard',
                             'openstack_auth', 'cinderclient',
                             'novaclient', 'keystoneauth',
                             'django.request', 'django.server')},
        },
    }
    lines = ['# Written by cinder_ma\'s tests/openstack/horizon.py for '
             'one test run;', '# it is rewritten by the next one.', '']
    for name, value in settings.items():
        lines.append('%s = %s' % (name, pprint.pformat(value)))
    return '\n'.join(lines) + '\n'


class Horizon(fixtures.Fixture):
    """Horizon on a free loopback port.

    :param keystone_auth_url: the cloud's Keystone (its v3 endpoint).
    :param venv: the virtualenv Horizon is installed in; its
        ``local_settings.py`` is rewritten (under a lock, held until the
        server has read it).
    :param region: the region of the cloud's endpoints.
    :param log_dir: where the process's files go (``horizon.log``, its
        standard output and error, a copy of ``local_settings.py``);
        default: a temporary directory.
    :param cinder_features: entries of ``OPENSTACK_CINDER_FEATURES``.

    :ivar url: ``http://127.0.0.1:<port>/``.
    :ivar log_path: Horizon's log (every request it sends to cinder_ma
        and Nova, with the answer's status).
    :ivar dashboard: whether cinder_ma's dashboard is enabled (installed
        in the virtualenv).
    """

    def __init__(self, keystone_auth_url, venv, region='RegionOne',
                 log_dir=None, cinder_features=None):
        super().__init__()
        self.keystone_auth_url = keystone_auth_url
        self.venv = venv
        self.region = region
        self.log_dir = log_dir
        self.cinder_features = cinder_features

    def _setUp(self):
        self.directory = self.useFixture(fixtures.TempDir()).path
        log_dir = self.log_dir or self.directory
        os.makedirs(log_dir, exist_ok=True)
        self.log_path = os.path.join(log_dir, 'horizon.log')
        self.port = fx.free_port()
        self.url = 'http://127.0.0.1:%d/' % self.port
        settings_dir = local_settings_dir(self.venv)
        self.settings_path = os.path.join(settings_dir, 'local_settings.py')
        text = local_settings(
            self.keystone_auth_url, self.region, self.directory,
            self.log_path, uuid.uuid4().hex,
            os.path.join(self.venv, 'var', 'cinder-ma-tests', 'compress'),
            self.cinder_features)
        os.makedirs(os.path.join(self.directory, 'sessions'))
        with open(os.path.join(log_dir, 'horizon-local_settings.py'),
                  'w') as f:
            f.write(text)
        # Another Horizon of the same virtualenv reads the file only at
        # its start: hold the lock until this one has answered.
        with open(os.path.join(settings_dir, '.cinder_ma_tests.lock'),
                  'w') as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            with open(self.settings_path, 'w') as f:
                f.write(text)
            self.dashboard = enable_dashboard(self.venv, settings_dir)
            self.process = self.useFixture(fx.Process(
                'horizon',
                [python_of(self.venv), '-m', 'django', 'runserver',
                 '--insecure', '--noreload', '127.0.0.1:%d' % self.port],
                log_dir, log_file=self.log_path,
                env=self._environ()))
            fx.wait_for(self._login_page, 'Horizon\'s login page',
                        timeout=START_TIMEOUT, processes=[self.process])

    def _environ(self):
        env = fx.environ(DJANGO_SETTINGS_MODULE=SETTINGS_MODULE)
        # Horizon's virtualenv only: not the tests' source tree or
        # virtualenv.
        for name in ('PYTHONPATH', 'VIRTUAL_ENV', 'PYTHONHOME'):
            env.pop(name, None)
        env['PATH'] = os.pathsep.join(
            [os.path.join(self.venv, 'bin'), env.get('PATH', '')])
        return env

    def _login_page(self):
        try:
            response = requests.get(self.url + 'auth/login/',
                                    timeout=fx.HTTP_TIMEOUT)
        except requests.RequestException:
            return False
        return response.status_code == 200

    def processes(self):
        return [self.process]

    def calls(self):
        """The requests Horizon sent to the cloud's services (cinderclient
        and keystoneauth, so Nova's and Keystone's too) so far, each with
        the status of its answer (:class:`Call`)."""
        try:
            with open(self.log_path, errors='replace') as f:
                return parse_calls(f.read())
        except OSError:
            return []

    def failed_calls(self, url_part=''):
        """The calls answered with a 4xx or 5xx status whose URL contains
        ``url_part``."""
        return [call for call in self.calls()
                if call.status >= 400 and url_part in call.url]


#: Debian's chromium (bindep.txt), which Playwright drives.
CHROMIUM = '/usr/bin/chromium'
#: No sandbox (the tests run as root), nothing fetched from outside.
CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic',
                 '--no-first-run', '--disable-background-networking',
                 '--disable-component-update', '--disable-sync']


class Browser(fixtures.Fixture):
    """Headless chromium driven by Playwright (sync API).

    Playwright starts its driver and the browser as its children, and
    stops both on cleanup.

    :ivar browser: the ``playwright.sync_api.Browser``.
    """

    def __init__(self, executable=CHROMIUM):
        super().__init__()
        self.executable = executable

    def _setUp(self):
        from playwright import sync_api
        self.playwright = sync_api.sync_playwright().start()
        self.addCleanup(self.playwright.stop)
        self.browser = self.playwright.chromium.launch(
            executable_path=self.executable, args=CHROMIUM_ARGS,
            headless=True)
        self.addCleanup(self.browser.close)
