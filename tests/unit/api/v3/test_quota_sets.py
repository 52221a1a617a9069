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

"""os-quota-sets, os-quota-class-sets and limits through the API, with
their shapes held against Cinder's (Tempest's response schemas, which
forbid extra keys)."""

import jsonschema

from tests.unit.api import base

_QUOTA_KEYS = ['volumes', 'snapshots', 'backups', 'per_volume_gigabytes',
               'gigabytes', 'backup_gigabytes', 'groups']

QUOTA_SET = {
    'type': 'object',
    'properties': {'quota_set': {
        'type': 'object',
        'properties': dict({'id': {'type': 'string'}},
                           **{k: {'type': 'integer'} for k in _QUOTA_KEYS}),
        'additionalProperties': {'type': 'integer'},
        'required': ['id'] + _QUOTA_KEYS}},
    'required': ['quota_set'],
}
UPDATED_QUOTA_SET = {
    'type': 'object',
    'properties': {'quota_set': {
        'type': 'object',
        'additionalProperties': {'type': 'integer'},
        'required': _QUOTA_KEYS}},
    'required': ['quota_set'],
}
_USAGE = {'type': 'object',
          'properties': {'reserved': {'type': 'integer'},
                         'limit': {'type': 'integer'},
                         'in_use': {'type': 'integer'}},
          'additionalProperties': False,
          'required': ['reserved', 'limit', 'in_use']}
QUOTA_SET_USAGE = {
    'type': 'object',
    'properties': {'quota_set': {
        'type': 'object',
        'properties': dict({'id': {'type': 'string'}},
                           **{k: _USAGE for k in _QUOTA_KEYS}),
        'additionalProperties': _USAGE,
        'required': ['id'] + _QUOTA_KEYS}},
    'required': ['quota_set'],
}
_ABSOLUTE = ['totalSnapshotsUsed', 'maxTotalBackups',
             'maxTotalVolumeGigabytes', 'maxTotalSnapshots',
             'maxTotalBackupGigabytes', 'totalBackupGigabytesUsed',
             'maxTotalVolumes', 'totalVolumesUsed', 'totalBackupsUsed',
             'totalGigabytesUsed']
LIMITS = {
    'type': 'object',
    'properties': {'limits': {
        'type': 'object',
        'properties': {
            'rate': {'type': 'array'},
            'absolute': {
                'type': 'object',
                'properties': {k: {'type': 'integer'} for k in _ABSOLUTE},
                'additionalProperties': False,
                'required': _ABSOLUTE}},
        'additionalProperties': False,
        'required': ['rate', 'absolute']}},
    'additionalProperties': False,
    'required': ['limits'],
}


class QuotaSetsTestCase(base.APITestCase):

    def _create(self, size=1, headers=base.MEMBER, status=202, **extra):
        volume = dict({'size': size}, **extra)
        return self.app.post_json(self.url('volumes'), {'volume': volume},
                                  headers=headers, status=status)

    def _set(self, project=base.PROJECT, status=200, **limits):
        return self.app.put_json(
            self.url('os-quota-sets/%s' % project),
            {'quota_set': limits}, headers=base.ADMIN, status=status)

    def test_show_defaults_from_options(self):
        self.flags(quota_volumes=7, quota_gigabytes=70)
        body = self.app.get(self.url('os-quota-sets/%s' % base.PROJECT),
                            headers=base.MEMBER).json
        jsonschema.validate(body, QUOTA_SET)
        quota = body['quota_set']
        self.assertEqual(base.PROJECT, quota['id'])
        self.assertEqual((7, 70, -1), (quota['volumes'], quota['gigabytes'],
                                       quota['per_volume_gigabytes']))
        self.assertEqual(10, quota['snapshots'])
        self.assertEqual(-1, quota['volumes___DEFAULT__'])
        self.assertEqual(-1, quota['gigabytes___DEFAULT__'])

    def test_defaults_url(self):
        body = self.app.get(
            self.url('os-quota-sets/%s/defaults' % base.OTHER_PROJECT),
            headers=base.ADMIN).json
        jsonschema.validate(body, QUOTA_SET)
        self.assertEqual(base.OTHER_PROJECT, body['quota_set']['id'])
        self.assertEqual(10, body['quota_set']['volumes'])

    def test_member_cannot_see_other_project(self):
        self.app.get(self.url('os-quota-sets/%s' % base.OTHER_PROJECT),
                     headers=base.MEMBER, status=403)

    def test_update_admin_only(self):
        self.app.put_json(self.url('os-quota-sets/%s' % base.PROJECT),
                          {'quota_set': {'volumes': 3}},
                          headers=base.MEMBER, status=403)

    def test_update_and_delete(self):
        body = self._set(volumes=3, gigabytes=30, snapshots=4,
                         volumes___DEFAULT__=2).json
        jsonschema.validate(body, UPDATED_QUOTA_SET)
        self.assertNotIn('id', body['quota_set'])
        self.assertEqual((3, 30, 4, 2), (
            body['quota_set']['volumes'], body['quota_set']['gigabytes'],
            body['quota_set']['snapshots'],
            body['quota_set']['volumes___DEFAULT__']))
        response = self.app.delete(
            self.url('os-quota-sets/%s' % base.PROJECT), headers=base.ADMIN,
            status=200)
        self.assertEqual(b'', response.body)
        quota = self.app.get(self.url('os-quota-sets/%s' % base.PROJECT),
                             headers=base.ADMIN).json['quota_set']
        self.assertEqual((10, -1), (quota['volumes'],
                                    quota['volumes___DEFAULT__']))

    def test_update_bad_key_and_value(self):
        error = self._set(status=400, volumes=1, bogus=2, volumes_nope=3)
        self.assertIn('Bad key(s) in quota set: bogus,volumes_nope',
                      error.json['badRequest']['message'])
        error = self._set(status=400, volumes=-2)
        self.assertIn('volumes must be >= -1',
                      error.json['badRequest']['message'])
        error = self._set(status=400, volumes='x')
        self.assertIn('must be an integer',
                      error.json['badRequest']['message'])
        self.app.put_json(self.url('os-quota-sets/%s' % base.PROJECT),
                          {'quota_sets': {}}, headers=base.ADMIN,
                          status=400)

    def test_update_below_usage_refused(self):
        self._create(size=2)
        self._create(size=2)
        error = self._set(status=400, volumes=1)
        self.assertIn('Quota volumes limit must be equal or greater than '
                      'existing resources. Current usage is 2 and the '
                      'requested limit is 1.',
                      error.json['badRequest']['message'])
        self._set(volumes=2, gigabytes=4)

    def test_usage(self):
        self._create(size=3)
        body = self.app.get(
            self.url('os-quota-sets/%s?usage=true' % base.PROJECT),
            headers=base.MEMBER).json
        jsonschema.validate(body, QUOTA_SET_USAGE)
        quota = body['quota_set']
        self.assertEqual({'limit': 10, 'in_use': 1, 'reserved': 0},
                         quota['volumes'])
        self.assertEqual({'limit': 1000, 'in_use': 3, 'reserved': 0},
                         quota['gigabytes'])
        self.assertEqual(3, quota['gigabytes___DEFAULT__']['in_use'])
        self.assertEqual(0, quota['snapshots']['in_use'])

    def test_volumes_quota_413(self):
        self._set(volumes=1)
        self._create()
        error = self._create(status=413).json
        self.assertEqual({'overLimit': {
            'code': 413,
            'message': "Maximum number of volumes allowed (1) exceeded for "
                       "quota 'volumes'."}}, error)

    def test_gigabytes_quota_413(self):
        self._set(gigabytes=5)
        self._create(size=3)
        error = self._create(size=3, status=413).json
        self.assertEqual(
            'Requested volume or snapshot exceeds allowed gigabytes quota. '
            'Requested 3G, quota is 5G and 3G has been consumed.',
            error['overLimit']['message'])

    def test_per_type_quota_413(self):
        self._set(volumes___DEFAULT__=0)
        error = self._create(status=413).json
        self.assertEqual(
            "Maximum number of volumes allowed (0) exceeded for quota "
            "'volumes___DEFAULT__'.", error['overLimit']['message'])

    def test_per_volume_limit_413(self):
        self._set(per_volume_gigabytes=4)
        error = self._create(size=5, status=413).json
        self.assertEqual('Requested volume size 5 is larger than maximum '
                         'allowed limit 4.', error['overLimit']['message'])

    def test_refused_create_charges_nothing(self):
        self._set(volumes=1)
        self._create()
        self._create(status=413)
        quota = self.app.get(
            self.url('os-quota-sets/%s?usage=true' % base.PROJECT),
            headers=base.ADMIN).json['quota_set']
        self.assertEqual(1, quota['volumes']['in_use'])

    def test_volumes_made_before_counted(self):
        """Volumes recorded before the counters existed are counted when
        a counter is first needed."""
        self.create_volume(size=4)
        self.create_volume(size=4)
        self._set(volumes=3)
        self._create()
        self._create(status=413)
        quota = self.app.get(
            self.url('os-quota-sets/%s?usage=true' % base.PROJECT),
            headers=base.ADMIN).json['quota_set']
        self.assertEqual(3, quota['volumes']['in_use'])
        self.assertEqual(9, quota['gigabytes']['in_use'])


class QuotaClassSetsTestCase(base.APITestCase):

    def test_show_and_update_default_class(self):
        body = self.app.get(self.url('os-quota-class-sets/default'),
                            headers=base.ADMIN).json
        self.assertEqual('default', body['quota_class_set']['id'])
        self.assertEqual(10, body['quota_class_set']['volumes'])
        body = self.app.put_json(
            self.url('os-quota-class-sets/default'),
            {'quota_class_set': {'volumes': 12, 'backups': 1,
                                 'gigabytes___DEFAULT__': 9}},
            headers=base.ADMIN).json
        self.assertNotIn('id', body['quota_class_set'])
        self.assertEqual((12, 1, 9), (
            body['quota_class_set']['volumes'],
            body['quota_class_set']['backups'],
            body['quota_class_set']['gigabytes___DEFAULT__']))
        # Every project's defaults follow.
        quota = self.app.get(
            self.url('os-quota-sets/anyone/defaults'),
            headers=base.ADMIN).json['quota_set']
        self.assertEqual((12, 9), (quota['volumes'],
                                   quota['gigabytes___DEFAULT__']))

    def test_admin_only(self):
        self.app.get(self.url('os-quota-class-sets/default'),
                     headers=base.MEMBER, status=403)
        self.app.put_json(self.url('os-quota-class-sets/default'),
                          {'quota_class_set': {'volumes': 1}},
                          headers=base.MEMBER, status=403)


class LimitsTestCase(base.APITestCase):

    def test_limits(self):
        self.app.post_json(self.url('volumes'), {'volume': {'size': 2}},
                           headers=base.MEMBER, status=202)
        body = self.app.get(self.url('limits'), headers=base.MEMBER).json
        jsonschema.validate(body, LIMITS)
        absolute = body['limits']['absolute']
        self.assertEqual(
            (10, 1000, 1, 2, 10, 0),
            (absolute['maxTotalVolumes'], absolute['maxTotalVolumeGigabytes'],
             absolute['totalVolumesUsed'], absolute['totalGigabytesUsed'],
             absolute['maxTotalSnapshots'], absolute['totalSnapshotsUsed']))
        self.assertEqual([], body['limits']['rate'])

    def test_admin_names_project_from_339(self):
        self.app.put_json(
            self.url('os-quota-sets/%s' % base.OTHER_PROJECT),
            {'quota_set': {'volumes': 5}}, headers=base.ADMIN)
        body = self.app.get(
            self.url('limits?project_id=%s' % base.OTHER_PROJECT),
            headers=dict(base.ADMIN, **{
                'OpenStack-API-Version': 'volume 3.39'})).json
        self.assertEqual(5, body['limits']['absolute']['maxTotalVolumes'])
        # Before 3.39 the parameter is ignored.
        body = self.app.get(
            self.url('limits?project_id=%s' % base.OTHER_PROJECT),
            headers=base.ADMIN).json
        self.assertEqual(10, body['limits']['absolute']['maxTotalVolumes'])

    def test_member_cannot_name_other_project(self):
        self.app.get(
            self.url('limits?project_id=%s' % base.OTHER_PROJECT),
            headers=dict(base.MEMBER, **{
                'OpenStack-API-Version': 'volume 3.39'}), status=403)
