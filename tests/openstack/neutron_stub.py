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


"""A stand-in for Neutron's list calls: the one fake of the gate.

Neutron cannot run usefully on the gate's machine (no Open vSwitch, no
agents), and the gate's servers need no network: they boot with
``"networks": "none"``. Nova still asks Neutron about ports, networks,
security groups and extensions (on boot, on delete, in its periodic
tasks); this WSGI application answers every ``GET`` of a collection with
an empty list, in Neutron's shape (``{"ports": []}``), and refuses
everything else with 501 so that a call this stub does not know is seen
in the log, not silently accepted::

    python tests/openstack/neutron_stub.py --port 9696

Nothing else in the gate is faked.
"""

import argparse
import json
import sys
from wsgiref import simple_server

VERSIONS = {'versions': [{'id': 'v2.0', 'status': 'CURRENT',
                          'links': []}]}


def application(environ, start_response):
    method = environ['REQUEST_METHOD']
    path = environ.get('PATH_INFO', '/').rstrip('/')
    if method == 'GET' and path in ('', '/v2.0'):
        status, body = '200 OK', VERSIONS
    elif method == 'GET' and path.startswith('/v2.0/'):
        # /v2.0/ports, /v2.0/security-groups.json: the collection's name.
        collection = path.rsplit('/', 1)[-1].split('.', 1)[0]
        body = {collection.replace('-', '_'): []}
        status = '200 OK'
        if path.count('/') > 2:
            # One resource by id: there are none.
            status, body = '404 Not Found', {'NeutronError': {
                'type': 'NotFound', 'message': '%s not found' % path,
                'detail': ''}}
    else:
        status, body = '501 Not Implemented', {'NeutronError': {
            'type': 'NotImplemented',
            'message': 'the gate\'s Neutron stub answers list calls only '
                       '(%s %s)' % (method, path), 'detail': ''}}
    data = json.dumps(body).encode()
    start_response(status, [('Content-Type', 'application/json'),
                            ('Content-Length', str(len(data)))])
    return [data]


class _Handler(simple_server.WSGIRequestHandler):
    def log_message(self, format, *args):
        sys.stderr.write('neutron-stub: %s\n' % (format % args))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--port', type=int, required=True)
    args = parser.parse_args(argv)
    server = simple_server.make_server(args.host, args.port, application,
                                       handler_class=_Handler)
    print('neutron-stub: serving http://%s:%d' % (args.host, args.port),
          flush=True)
    server.serve_forever()


if __name__ == '__main__':
    sys.exit(main())
