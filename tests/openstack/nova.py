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


"""Fixtures of the OpenStack services the gate runs beside cinder_ma:
Placement 16 and Nova 34, each from PyPI in a virtualenv of its own (see
``tox -e openstack``), on MariaDB and a RabbitMQ vhost of their own.

They are configured as a deployer configures them against Cinder; the
configuration files they write (in the fixture's directory, kept in the
tox env's log directory when the gate fails) are the reference for
docs/install.rst, "Using cinder_ma with Nova and Horizon".
"""

import os
import shutil
import subprocess
import urllib.parse

import fixtures

from tests import fixtures as cm_fixtures
from tests.functional import fixtures as f_fixtures

HTTP_TIMEOUT = 30
#: tools/openstack: nova_api_wsgi.py, Nova's API for gunicorn.
WSGI_DIR = os.path.join(f_fixtures.SOURCE_ROOT, 'tools', 'openstack')
#: Nova starts slowly on two cores; its compute service registers with
#: Placement and its cell only after that.
NOVA_START_TIMEOUT = 240


def _bin(venv, name):
    return os.path.join(venv, 'bin', name)


def auth_section(keystone, user):
    """The keystoneauth options of a ``[placement]``, ``[cinder]``,
    ``[service_user]``, ... section: password auth as ``user``."""
    username, password, _name, project_id = user
    return {'auth_type': 'password', 'auth_url': keystone.auth_url,
            'username': username, 'password': password,
            'user_domain_name': keystone.DOMAIN, 'project_id': project_id,
            'region_name': keystone.REGION}


class RabbitVhost(fixtures.Fixture):
    """A vhost of the machine's RabbitMQ (``rabbitmqctl``), deleted on
    cleanup, so that Nova's queues and exchanges are its own.

    :ivar url: the transport URL of the vhost.
    """

    def _setUp(self):
        self.name = f_fixtures.unique('openstack-gate')
        self._ctl('add_vhost', self.name)
        self.addCleanup(self._ctl, 'delete_vhost', self.name)
        self._ctl('set_permissions', '-p', self.name, self._user(),
                  '.*', '.*', '.*')
        parts = urllib.parse.urlsplit(cm_fixtures.RABBIT_URL)
        self.url = urllib.parse.urlunsplit(
            parts._replace(path='/' + self.name))

    @staticmethod
    def _user():
        return urllib.parse.urlsplit(cm_fixtures.RABBIT_URL).username

    @staticmethod
    def _ctl(*args):
        subprocess.run(['rabbitmqctl'] + list(args), check=True,
                       capture_output=True, timeout=60,
                       stdin=subprocess.DEVNULL)


def gunicorn(venv, app, port, directory, name, env, pythonpath=None,
             workers=1, threads=8):
    """A :class:`~tests.functional.fixtures.Process` serving ``app``
    (``module:attribute``) with the gunicorn of ``venv``."""
    argv = [_bin(venv, 'gunicorn'), '--bind', '127.0.0.1:%d' % port,
            '--workers', str(workers), '--threads', str(threads),
            '--worker-class', 'gthread', '--timeout', '120',
            '--graceful-timeout', '5', '--name', name,
            # Each master a control socket of its own (the default is one
            # path per user).
            '--control-socket', os.path.join(directory, name + '.ctl')]
    if pythonpath:
        argv += ['--pythonpath', pythonpath]
    return f_fixtures.Process(name, argv + [app], directory, env=env,
                              log_file=None)


class Placement(fixtures.Fixture):
    """Placement under gunicorn, on a MariaDB database of its own,
    registered in Keystone's catalog as ``placement``."""

    def __init__(self, venv, keystone, directory):
        super().__init__()
        self.venv = venv
        self.keystone = keystone
        self.directory = directory

    def _setUp(self):
        os.makedirs(self.directory, exist_ok=True)
        self.user = self.keystone.service_user(
            f_fixtures.unique('placement'))
        self.keystone.grant(self.keystone.user_id(self.user[0]),
                            self.user[3], 'admin')
        database = self.useFixture(f_fixtures.ServerDatabase(
            cm_fixtures.MYSQL_URL))
        self.config_file = f_fixtures.write_config(
            os.path.join(self.directory, 'placement.conf'), {
                'DEFAULT': {'debug': 'False'},
                'api': {'auth_strategy': 'keystone'},
                'placement_database': {'connection': database.url},
                'keystone_authtoken': self.keystone.authtoken_config(
                    self.user),
            })
        f_fixtures.run([_bin(self.venv, 'placement-manage'),
                        '--config-file', self.config_file, 'db', 'sync'],
                       self.directory, 'placement-manage db sync')
        port = f_fixtures.free_port()
        self.url = 'http://127.0.0.1:%d' % port
        self.process = self.useFixture(gunicorn(
            self.venv, 'placement.wsgi.api:application', port,
            self.directory, 'placement-api', f_fixtures.environ(
                OS_PLACEMENT_CONFIG_DIR=self.directory)))
        f_fixtures.wait_for(lambda: f_fixtures.http_get(self.url + '/'),
                            'answer of placement-api',
                            processes=[self.process])
        self.keystone.register_service('placement', 'placement', self.url)

    def processes(self):
        return [self.process]


class Nova(fixtures.Fixture):
    """Nova's API (gunicorn), conductor, scheduler and one compute service
    with the fake virt driver, in one cell.

    :param venv: the virtualenv with ``nova`` (and gunicorn).
    :param keystone: the Keystone fixture; Nova's service user, the
        ``compute`` service and its endpoint are made there.
    :param neutron_url: where ``[neutron]`` calls go (the stub).
    :ivar url: the compute API's root; :attr:`endpoint` its v2.1.
    """

    FLAVOR = 'gate.tiny'
    RESIZE_FLAVOR = 'gate.small'

    def __init__(self, venv, keystone, directory, neutron_url):
        super().__init__()
        self.venv = venv
        self.keystone = keystone
        self.directory = directory
        self.neutron_url = neutron_url

    def _setUp(self):
        os.makedirs(self.directory, exist_ok=True)
        keystone = self.keystone
        self.user = keystone.service_user(f_fixtures.unique('nova'))
        keystone.grant(keystone.user_id(self.user[0]), self.user[3],
                       'admin')
        self.vhost = self.useFixture(RabbitVhost())
        api_db, cell0_db, cell1_db = (
            self.useFixture(f_fixtures.ServerDatabase(
                cm_fixtures.MYSQL_URL)).url for _ in range(3))
        self.host = f_fixtures.unique('compute')
        state = os.path.join(self.directory, 'state')
        os.makedirs(state, exist_ok=True)
        auth = auth_section(keystone, self.user)
        paste = os.path.join(self.directory, 'api-paste.ini')
        shutil.copy(os.path.join(self.venv, 'etc', 'nova', 'api-paste.ini'),
                    paste)
        self.config_file = f_fixtures.write_config(
            os.path.join(self.directory, 'nova.conf'), {
                'DEFAULT': {
                    'debug': 'True',
                    'host': self.host, 'my_ip': '127.0.0.1',
                    'state_path': state,
                    'instances_path': os.path.join(state, 'instances'),
                    'transport_url': self.vhost.url,
                    'compute_driver': 'fake.FakeDriverWithoutFakeNodes',
                    # One compute host: a resize stays on it.
                    'allow_resize_to_same_host': 'True',
                },
                'wsgi': {'api_paste_config': paste},
                'api_database': {'connection': api_db},
                'database': {'connection': cell1_db},
                'keystone_authtoken': dict(
                    keystone.authtoken_config(self.user),
                    service_type='compute'),
                'service_user': dict(auth, send_service_user_token='True'),
                'placement': auth,
                # cinder_ma is the block-storage service of the catalog;
                # the user's token (and Nova's service token) go there.
                'cinder': dict(auth, catalog_info='block-storage::publicURL',
                               os_region_name=keystone.REGION),
                # The stub (no Neutron here: tests/openstack/neutron_stub).
                'neutron': dict(auth, endpoint_override=self.neutron_url),
                # Nothing listens there: boots are from volumes, and no
                # call should reach Glance.
                'glance': {'endpoint_override': 'http://127.0.0.1:%d' % (
                    f_fixtures.free_port())},
                # One worker each: two cores for the whole gate.
                'conductor': {'workers': '1'},
                'scheduler': {'discover_hosts_in_cells_interval': '2',
                              'workers': '1'},
                'oslo_concurrency': {
                    'lock_path': os.path.join(state, 'locks')},
                'vnc': {'enabled': 'False'},
                'os_vif_ovs': {'ovsdb_connection': 'tcp:127.0.0.1:1'},
            })
        manage = [_bin(self.venv, 'nova-manage'), '--config-file',
                  self.config_file]
        for args in (['api_db', 'sync'],
                     ['cell_v2', 'map_cell0', '--database_connection',
                      cell0_db],
                     ['cell_v2', 'create_cell', '--name', 'cell1'],
                     ['db', 'sync']):
            f_fixtures.run(manage + args, self.directory,
                           'nova-manage ' + ' '.join(args[:2]),
                           timeout=NOVA_START_TIMEOUT)
        self.services = {}
        for binary in ('nova-conductor', 'nova-scheduler', 'nova-compute'):
            self.services[binary] = self.useFixture(f_fixtures.Process(
                binary, [_bin(self.venv, binary), '--config-file',
                         self.config_file], self.directory))
        port = f_fixtures.free_port()
        self.url = 'http://127.0.0.1:%d' % port
        self.endpoint = self.url + '/v2.1'
        self.services['nova-api'] = self.useFixture(gunicorn(
            self.venv, 'nova_api_wsgi:application', port, self.directory,
            'nova-api', f_fixtures.environ(
                OS_NOVA_CONFIG_DIR=self.directory,
                # api-paste.ini first, as Nova's loader expects.
                OS_NOVA_CONFIG_FILES='api-paste.ini;nova.conf'),
            pythonpath=WSGI_DIR))
        f_fixtures.wait_for(lambda: f_fixtures.http_get(self.url + '/'),
                            'answer of nova-api',
                            timeout=NOVA_START_TIMEOUT,
                            processes=self.processes())
        keystone.register_service('compute', 'nova', self.endpoint)
        self.admin = keystone.admin_session()
        self.wait_for_compute()
        self.flavors = {
            self.FLAVOR: self._flavor(self.FLAVOR, ram=64),
            self.RESIZE_FLAVOR: self._flavor(self.RESIZE_FLAVOR, ram=128)}

    def processes(self):
        return list(self.services.values())

    def log(self, binary):
        """The log of a Nova service so far."""
        with open(self.services[binary].log_path or
                  self.services[binary].stderr_path,
                  errors='replace') as f:
            return f.read()

    def api(self, method, path, session=None, body=None, version='2.60',
            ok=True):
        """A compute API call; ``session`` defaults to the admin's."""
        response = (session or self.admin).request(
            self.endpoint + path, method, json=body, raise_exc=False,
            timeout=HTTP_TIMEOUT,
            headers={'OpenStack-API-Version': 'compute %s' % version})
        if ok and response.status_code >= 400:
            raise AssertionError('%s %s: %s %s' % (
                method, path, response.status_code, response.text))
        return response

    def wait_for_compute(self):
        """Until the compute service is up, mapped to the cell and seen
        by Placement (a hypervisor in os-hypervisors)."""
        manage = [_bin(self.venv, 'nova-manage'), '--config-file',
                  self.config_file, 'cell_v2', 'discover_hosts']

        def ready():
            services = self.api('GET', '/os-services?binary=nova-compute',
                                ok=False)
            if services.status_code != 200 or not any(
                    s['state'] == 'up' for s in
                    services.json()['services']):
                return False
            f_fixtures.run(manage, self.directory,
                           'nova-manage cell_v2 discover_hosts')
            hypervisors = self.api('GET', '/os-hypervisors', ok=False)
            return (hypervisors.status_code == 200 and
                    hypervisors.json()['hypervisors'])

        f_fixtures.wait_for(ready, 'nova-compute up and discovered',
                            timeout=NOVA_START_TIMEOUT,
                            processes=self.processes(), interval=1)

    def _flavor(self, name, ram):
        # disk 0: servers boot from volumes.
        return self.api('POST', '/flavors', body={'flavor': {
            'name': name, 'ram': ram, 'vcpus': 1, 'disk': 0}}).json()[
                'flavor']['id']

