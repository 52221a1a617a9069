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

"""Tests of cinder_ma.hacking.samples, the staleness check of the samples."""

import io
import os
import shutil
import sys
import tempfile

import fixtures
import testtools

from cinder_ma.hacking import samples
from tests import base

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))


@testtools.skipUnless(os.path.isdir(os.path.join(_ROOT, samples.ETC)),
                      'needs the source tree')
class SamplesTestCase(base.BaseTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        # Generated once: each generator run costs about a second.
        cls._fresh = tempfile.mkdtemp(prefix='cinder-ma-samples-')
        os.makedirs(os.path.join(cls._fresh, samples.ETC))
        for _what, sample, gen_conf, command, _env in samples.SAMPLES:
            shutil.copy(os.path.join(_ROOT, gen_conf),
                        os.path.join(cls._fresh, gen_conf))
            samples.generate(command, os.path.join(cls._fresh, gen_conf),
                             os.path.join(cls._fresh, sample))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls._fresh, ignore_errors=True)
        super().tearDownClass()

    def setUp(self):
        super().setUp()
        self.root = os.path.join(
            self.useFixture(fixtures.TempDir()).path, 'tree')
        shutil.copytree(self._fresh, self.root)

    def _check(self):
        out = io.StringIO()
        return samples.check(self.root, out=out), out.getvalue()

    def test_fresh_samples_pass(self):
        before = set(sys.modules)
        self.assertEqual((True, ''), self._check())
        # The generators ran in a child process: this one did not import
        # oslo.messaging, which would pin oslo.service's backend.
        self.assertNotIn('oslo_messaging', set(sys.modules) - before)

    def test_stale_policy_sample_names_the_fix(self):
        path = os.path.join(self.root, samples.ETC, 'policy.yaml.sample')
        with open(path, 'a') as f:
            f.write('#"volume:gone": "rule:admin_api"\n')
        current, output = self._check()
        self.assertFalse(current)
        self.assertIn('-#"volume:gone"', output)
        self.assertIn('tox -e genpolicy', output)
        self.assertNotIn('genconfig', output)

    def test_missing_config_sample_names_the_fix(self):
        os.unlink(os.path.join(self.root, samples.ETC,
                               'cinder-ma.conf.sample'))
        current, output = self._check()
        self.assertFalse(current)
        self.assertIn('tox -e genconfig', output)
        self.assertNotIn('genpolicy', output)

    def test_generator_failure_is_reported(self):
        gen_conf = os.path.join(self.root, 'broken.conf')
        with open(gen_conf, 'w') as f:
            f.write('[DEFAULT]\nwrap_width = wide\n')
        exc = self.assertRaises(
            RuntimeError, samples.generate, samples.SAMPLES[0][3], gen_conf,
            os.path.join(self.root, 'out.sample'))
        self.assertIn('oslo_config.generator failed', str(exc))
