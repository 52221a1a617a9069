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

"""Tests of the resources cinder_ma does not have
(cinder_ma/api/v3/unsupported.py): answered as a Cinder deployment
without them."""

import uuid

from cinder_ma.api import microversions as mv
from cinder_ma.api import routes
from tests.unit.api import base

#: (path, key of the list, not-found message, first version, list policy
#: or None), for every resource.
RESOURCES = (
    ('backups', 'backups', 'Backup %s could not be found.', None, True),
    ('group_types', 'group_types', 'Group type %s could not be found.',
     '3.11', False),
    ('groups', 'groups', 'Group %s could not be found.', '3.13', True),
    ('group_snapshots', 'group_snapshots',
     'GroupSnapshot %s could not be found.', '3.14', True),
)

FEATURES = {'backups': 'volume backups',
            'group_types': 'group types',
            'groups': 'generic volume groups',
            'group_snapshots': 'group snapshots'}


def reader(version=mv.MAX_VERSION, project=base.PROJECT):
    return base.headers(project=project, user='reader-user',
                        roles=['reader'], version=version)


class TestLists(base.APITestCase):

    def test_empty_lists_in_cinders_shape(self):
        for path, key, _msg, _first, _rule in RESOURCES:
            for listed in (path, path + '/detail'):
                if path == 'group_types' and \
                        listed.endswith('/detail'):
                    continue
                response = self.app.get(self.url(listed), headers=reader())
                self.assertEqual({key: []}, response.json, listed)
                # Also without the project in the URL (3.67).
                response = self.app.get('/v3/' + listed, headers=reader())
                self.assertEqual({key: []}, response.json, listed)

    def test_count_from_3_45(self):
        for path in ('backups', 'backups/detail'):
            key = path.split('/')[0]
            body = self.app.get(self.url(path + '?with_count=true'),
                                headers=reader()).json
            self.assertEqual({key: [], 'count': 0}, body)
            body = self.app.get(
                self.url(path + '?with_count=true'),
                headers=reader(mv.prior(mv.SUPPORT_COUNT_INFO))).json
            self.assertEqual({key: []}, body)
        response = self.app.get(self.url('backups?with_count=maybe'),
                                headers=reader(), status=400)
        self.assertFault(response, 400, 'badRequest', 'not a boolean')

    def test_microversion_gates(self):
        for path, _key, _msg, first, _rule in RESOURCES:
            if first is None:
                continue
            response = self.app.get(self.url(path),
                                    headers=reader(mv.prior(first)),
                                    status=404)
            self.assertFault(response, 404, 'itemNotFound',
                             'API version %s is not supported on this '
                             'method.' % mv.prior(first))
            self.app.get(self.url(path), headers=reader(first))

    def test_list_policies(self):
        # Cinder's list policies: readers of the project (a user of no
        # role of it is refused); group types have none.
        nobody = base.headers(user='glance', roles=['service'],
                              version=mv.MAX_VERSION)
        for path, key, _msg, _first, rule in RESOURCES:
            if rule:
                response = self.app.get(self.url(path), headers=nobody,
                                        status=403)
                self.assertFault(response, 403, 'forbidden')
            else:
                self.assertEqual({key: []}, self.app.get(
                    self.url(path), headers=nobody).json)
            # Another project's URL is refused as everywhere (Cinder's
            # 400).
            self.app.get(self.url(path), headers=reader(
                project=base.OTHER_PROJECT), status=400)
        # Administrators list them too.
        self.assertEqual({'backups': []}, self.app.get(
            self.url('backups?all_tenants=1'), headers=base.headers(
                user='admin-user', version=mv.MAX_VERSION)).json)


class TestIdsAndCreations(base.APITestCase):

    def test_an_id_is_not_found(self):
        member = base.headers(roles=['member', 'reader'],
                              version=mv.MAX_VERSION)
        messages = {path: message
                    for path, _key, message, _first, _rule in RESOURCES}
        checked = set()
        for template, methods in routes.ROUTES.items():
            if '{resource_id}' not in template:
                continue
            path = template.split('/')[3]
            some_id = str(uuid.uuid4())
            url = template.format(project_id=base.PROJECT,
                                  resource_id=some_id)
            for method in methods:
                response = self.app.request(
                    url, method=method, headers=member, body=b'{}',
                    expect_errors=True, content_type='application/json')
                self.assertFault(response, 404, 'itemNotFound',
                                 messages[path] % some_id)
                checked.add(path)
        self.assertEqual(set(messages), checked)
        response = self.app.get(self.url('group_types/default'),
                                headers=member, status=404)
        self.assertFault(response, 404, 'itemNotFound',
                         'Group type default could not be found.')

    def test_creations_name_the_feature(self):
        member = base.headers(roles=['member', 'reader'],
                              version=mv.MAX_VERSION)
        paths = [path for path, *_rest in RESOURCES] + [
            'groups/action', 'backups/import_record']
        for path in paths:
            feature = FEATURES[path.split('/')[0]]
            response = self.app.post_json(self.url(path), {'x': {}},
                                          headers=member, status=400)
            self.assertFault(response, 400, 'badRequest',
                             'cinder_ma does not support %s.' % feature)

    def test_creation_below_its_version_is_a_404(self):
        response = self.app.post_json(
            self.url('groups'), {'group': {}}, status=404,
            headers=base.headers(roles=['member'],
                                 version=mv.prior(mv.GROUP_VOLUME)))
        self.assertFault(response, 404, 'itemNotFound', 'not supported on '
                         'this method')
