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

"""Serve Keystone (the ``keystone`` package from PyPI) on one address.

For the functional tests (tests/functional/fixtures.py, ``Keystone``) and
the Tempest gate: Keystone's WSGI application built from one config file
and served by waitress::

    python tools/keystone_wsgi.py --config-file keystone.conf \\
        --host 127.0.0.1 --port 5000

Keystone's own entry point (``keystone.wsgi.api:application``) parses the
configuration from the process's command line as well, so under gunicorn
it reads gunicorn's arguments; here the command line is ours, and
Keystone gets an empty one.
"""

import argparse
import sys


def build(config_file):
    """Keystone's public WSGI application, configured by ``config_file``.
    """
    from keystone.server.flask import core
    return core.initialize_application('public',
                                       config_files=[config_file])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--config-file', required=True)
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--port', type=int, default=5000)
    parser.add_argument('--threads', type=int, default=8)
    args = parser.parse_args(argv)
    # keystone.server.configure() parses sys.argv[1:]: leave it nothing.
    del sys.argv[1:]
    application = build(args.config_file)
    import waitress
    print('keystone: serving http://%s:%d' % (args.host, args.port),
          flush=True)
    waitress.serve(application, host=args.host, port=args.port,
                   threads=args.threads, ident='keystone')
    return 0


if __name__ == '__main__':
    sys.exit(main())
