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

"""Fail when the generated config or policy sample is out of date.

``python -m cinder_ma.hacking.samples`` (run by ``tox -e pep8``) generates
both samples into a temporary directory, with the generator configuration
files of ``etc/cinder-ma``, and compares them with the committed ones. An
option or a policy rule added, removed or reworded without regenerating
makes it fail with a diff and the tox command that fixes it.
"""

import argparse
import difflib
import os
import subprocess
import sys
import tempfile

ETC = os.path.join('etc', 'cinder-ma')

# The generators run in a child process: they import every namespace's
# library, oslo.messaging included, which would pin oslo.service to its
# eventlet backend in the calling process (a test worker, say).
_CONFIG_GENERATOR = [sys.executable, '-m', 'oslo_config.generator']
_POLICY_GENERATOR = [
    sys.executable, '-c',
    'import sys; from oslo_policy import generator; '
    'generator.generate_sample(sys.argv[1:])']


def generate(command, gen_conf, output_file):
    """Run a generator with its config file, writing ``output_file``."""
    proc = subprocess.run(
        command + ['--config-file', gen_conf, '--output-file', output_file],
        capture_output=True, text=True, check=False)
    if proc.returncode:
        raise RuntimeError('%s failed (%d):\n%s' % (
            ' '.join(command), proc.returncode, proc.stderr))


# (what, committed sample, generator config, generator command, tox env)
SAMPLES = (
    ('configuration sample',
     os.path.join(ETC, 'cinder-ma.conf.sample'),
     os.path.join(ETC, 'cinder-ma-config-generator.conf'),
     _CONFIG_GENERATOR,
     'genconfig'),
    ('policy sample',
     os.path.join(ETC, 'policy.yaml.sample'),
     os.path.join(ETC, 'cinder-ma-policy-generator.conf'),
     _POLICY_GENERATOR,
     'genpolicy'),
)


def _read(path):
    try:
        with open(path) as f:
            return f.readlines()
    except FileNotFoundError:
        return []


def check(root='.', out=sys.stdout):
    """Compare every sample with a fresh one; True when all are current."""
    current = True
    with tempfile.TemporaryDirectory() as tmp:
        for what, sample, gen_conf, command, env in SAMPLES:
            fresh = os.path.join(tmp, os.path.basename(sample))
            generate(command, os.path.join(root, gen_conf), fresh)
            diff = list(difflib.unified_diff(
                _read(os.path.join(root, sample)), _read(fresh),
                fromfile=sample, tofile='%s (generated)' % sample))
            if diff:
                current = False
                out.writelines(diff)
                out.write('\nThe %s %s is out of date: run '
                          '"tox -e %s" and commit the result.\n\n'
                          % (what, sample, env))
    return current


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--root', default='.',
                        help='Top of the source tree (default: the current '
                             'directory).')
    args = parser.parse_args(argv)
    if not check(args.root):
        return 1
    print('Configuration and policy samples are up to date.')
    return 0


if __name__ == '__main__':
    sys.exit(main())
