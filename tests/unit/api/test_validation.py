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

"""Tests of JSON schema validation and of microversion ranges."""

import webob

from cinder_ma.api import microversions as mv
from cinder_ma.api import routes
from cinder_ma.api.schemas import parameter_types
from cinder_ma.api import validation
from tests import base

SCHEMA = {
    'type': 'object',
    'properties': {
        'size': parameter_types.volume_size,
        'id': parameter_types.optional_uuid,
        'name': parameter_types.name,
        'description': parameter_types.description,
        'flag': parameter_types.optional_boolean,
    },
    'additionalProperties': False,
    'refused': {'flag': 'The flag is gone.'},
}


class TestValidate(base.BaseTestCase):

    def _error(self, body):
        return str(self.assertRaises(validation.ValidationError,
                                     validation.validate, SCHEMA, body))

    def test_valid(self):
        validation.validate(SCHEMA, {
            'size': '10', 'id': None, 'name': 'x', 'flag': 'false'})
        validation.validate(SCHEMA, {'size': parameter_types.MAX_INT})

    def test_size_bounds_apply_to_strings(self):
        self.assertIn('less than the minimum of 1', self._error(
            {'size': '0'}))
        self.assertIn('greater than the maximum', self._error(
            {'size': str(parameter_types.MAX_INT + 1)}))

    def test_message_names_field_and_value(self):
        self.assertEqual(
            'Invalid input for field/attribute size. Value: -1. -1 is '
            'less than the minimum of 1', self._error({'size': -1}))

    def test_uuid_format(self):
        self.assertIn("'nope' is not a 'uuid'", self._error({'id': 'nope'}))

    def test_blank_name(self):
        self.assertIn('field/attribute name', self._error({'name': '  '}))

    def test_control_characters_in_description(self):
        self.assertIn('field/attribute description', self._error(
            {'description': 'a\x00b'}))

    def test_refused_when_set(self):
        self.assertEqual(
            'Invalid input for field/attribute flag. Value: true. The '
            'flag is gone.', self._error({'flag': True}))

    def test_unknown_key(self):
        self.assertIn("'other' was unexpected", self._error({'other': 1}))

    def test_top_level_error_has_no_field(self):
        self.assertEqual("[] is not of type 'object'", self._error([]))


def _ranged(*ranges):
    func = lambda req, body: body  # noqa: E731
    for low, high in reversed(ranges):
        func = validation.schema({'type': 'object'}, low, high)(func)
    return func


class TestCheckRanges(base.BaseTestCase):

    def test_contiguous(self):
        validation.check_ranges(_ranged((None, '3.12'), ('3.13', None)))
        validation.check_ranges(_ranged((None, None)))
        validation.check_ranges(lambda req: None)

    def test_gap(self):
        error = self.assertRaises(ValueError, validation.check_ranges,
                                  _ranged((None, '3.12'), ('3.14', None)))
        self.assertIn('no schema between 3.12 and 3.14', str(error))

    def test_overlap(self):
        self.assertRaises(ValueError, validation.check_ranges,
                          _ranged((None, '3.13'), ('3.13', None)))

    def test_top_not_covered(self):
        self.assertRaises(ValueError, validation.check_ranges,
                          _ranged((None, '3.12')))

    def test_empty_range(self):
        self.assertRaises(ValueError, validation.schema, {}, '3.5', '3.4')

    def test_every_route(self):
        for handler in routes.handlers():
            validation.check_ranges(handler)


class TestSchemaDecorator(base.BaseTestCase):

    def _request(self, body, version='3.0', content_type='application/json'):
        req = webob.Request.blank('/', method='POST', body=body,
                                  content_type=content_type)
        req.api_version = mv.APIVersionRequest(version)
        return req

    def test_picks_the_range_of_the_version(self):
        func = validation.schema({'type': 'object', 'required': ['new']},
                                 min_version='3.50')(
            lambda req, body: body)
        func = validation.schema({'type': 'object', 'required': ['old']},
                                 max_version='3.49')(func)
        self.assertEqual({'old': 1}, func(self._request(b'{"old": 1}')))
        self.assertEqual({'new': 1}, func(self._request(b'{"new": 1}',
                                                        '3.50')))
        self.assertRaises(validation.ValidationError, func,
                          self._request(b'{"old": 1}', '3.50'))

    def test_body_errors(self):
        func = validation.schema({'type': 'object'})(lambda req, body: body)
        error = self.assertRaises(validation.ValidationError, func,
                                  self._request(b'{"a": '))
        self.assertEqual('Malformed request body', str(error))
        self.assertRaises(validation.ValidationError, func,
                          self._request(b''))
        self.assertRaises(webob.exc.HTTPUnsupportedMediaType, func,
                          self._request(b'{}', content_type='text/plain'))

    def test_strict_json(self):
        func = validation.schema({})(lambda req, body: body)
        for body, why in (
                (b'{"a": NaN}', 'NaN is not a number'),
                (b'[Infinity]', 'Infinity is not a number'),
                (b'{"a": -Infinity}', '-Infinity is not a number'),
                (b'{"a": 1e400}', 'out of range'),
                (b'{"a": 1, "a": 2}', 'duplicate key "a"'),
                (b'{"a": %d}' % 2 ** 63, 'beyond 64 bits'),
                (b'{"a": -%d}' % (2 ** 63 + 1), 'beyond 64 bits'),
                (b'{"a": "\\u0000"}', 'NUL'),
                (b'{"\\ud800": 1}', 'lone surrogate'),
                (b'[' * 33 + b']' * 33, 'nested deeper than 32'),
                (b'[' * 100000 + b']' * 100000, 'nested deeper than 32')):
            error = self.assertRaises(validation.ValidationError, func,
                                      self._request(body))
            self.assertIn('Malformed request body: ', str(error))
            self.assertIn(why, str(error))
        self.assertEqual({'a': [[{'b': -2 ** 63}]]}, func(self._request(
            b'{"a": [[{"b": %d}]]}' % -2 ** 63)))
        deepest = func(self._request(b'[' * 32 + b']' * 32))
        for _level in range(31):
            (deepest,) = deepest
        self.assertEqual([], deepest)

    def test_not_utf8(self):
        func = validation.schema({})(lambda req, body: body)
        error = self.assertRaises(validation.ValidationError, func,
                                  self._request(b'{"a": "\xff"}'))
        self.assertEqual('Malformed request body', str(error))

    def test_integer_strings_beyond_the_maximum(self):
        for size in ('9' * 5000, '1' * 20, '\u0663', '\u00b2'):
            error = self.assertRaises(validation.ValidationError,
                                      validation.validate, SCHEMA,
                                      {'size': size})
            self.assertLess(len(str(error)), 300)

    def test_echoed_values_are_cut(self):
        error = self.assertRaises(validation.ValidationError,
                                  validation.validate, SCHEMA,
                                  {'name': 'x' * 200000})
        self.assertLess(len(str(error)), 400)
        self.assertIn('x' * 90, str(error))
        self.assertIn('is too long', str(error))
