"""Tests of GET /v3/{project_id}/extensions."""

from cinder_ma.api import extensions
from tests.unit.api import base


class TestExtensions(base.APITestCase):

    def test_list(self):
        body = self.app.get(self.url('extensions'),
                            headers=base.READER).json
        self.assertEqual(
            ['cinder-ma-manager-attach', 'cinder-ma-multiattach',
             'cinder-ma-recovery', 'cinder-ma-writers',
             'cinder-ma-fencing'],
            [ext['alias'] for ext in body['extensions']])
        for ext in body['extensions']:
            self.assertEqual({'name', 'alias', 'description', 'updated',
                              'links'}, set(ext))
            self.assertEqual([], ext['links'])

    def test_show(self):
        ext = self.app.get(self.url('extensions/cinder-ma-manager-attach'),
                           headers=base.MEMBER).json['extension']
        self.assertEqual(extensions.MANAGER_ATTACH.description,
                         ext['description'])
        response = self.app.get(self.url('extensions/os-nope'),
                                headers=base.MEMBER, status=404)
        self.assertFault(response, 404, 'itemNotFound', 'os-nope')

    def test_fields_carry_the_alias(self):
        self.assertEqual('cinder-ma-manager-attach:instance_host',
                         extensions.field(extensions.MANAGER_ATTACH,
                                          'instance_host'))
