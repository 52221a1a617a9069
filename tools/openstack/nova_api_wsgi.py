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


"""Nova's compute API (``nova.wsgi.osapi_compute``) for gunicorn.

Nova's WSGI loader parses ``sys.argv`` as its own command line (uWSGI's
``--pyargv``), so under gunicorn it would read gunicorn's arguments and
refuse them. A deployer serving Nova with gunicorn needs this wrapper (or
uWSGI): it gives Nova an empty command line, and Nova finds its
configuration through ``OS_NOVA_CONFIG_DIR`` and ``OS_NOVA_CONFIG_FILES``
(api-paste.ini first)::

    gunicorn --pythonpath tools/openstack nova_api_wsgi:application
"""

import sys

del sys.argv[1:]

from nova.wsgi.osapi_compute import application  # noqa: E402,F401,H306
