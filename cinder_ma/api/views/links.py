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

"""Links of resources and of the next page, as Cinder builds them.

The root is ``[api] public_endpoint`` when set (the API behind a proxy),
else the URL the request came to, without the version; resource links are
``<root>/v3/<project>/<collection>/<id>`` (``self``) and
``<root>/<project>/<collection>/<id>`` (``bookmark``).
"""

import urllib.parse

from oslo_config import cfg

CONF = cfg.CONF


def root_url(req):
    """The API's root URL, without a trailing slash."""
    return (CONF.api.public_endpoint or req.application_url).rstrip('/')


def resource_links(req, collection, identifier):
    root = root_url(req)
    project_id = req.context.project_id
    return [
        {'rel': 'self',
         'href': '%s/v3/%s/%s/%s' % (root, project_id, collection,
                                     identifier)},
        {'rel': 'bookmark',
         'href': '%s/%s/%s/%s' % (root, project_id, collection,
                                  identifier)},
    ]


def next_links(req, items, limit, collection):
    """``[{"rel": "next", "href": ...}]`` when the page is full, else [].

    The next page's URL repeats the request's query with ``marker`` set
    to the last item's id.
    """
    if not items or len(items) < limit:
        return []
    query = [(k, v) for k, v in req.GET.items() if k != 'marker']
    query.append(('marker', items[-1].id))
    href = '%s/v3/%s/%s?%s' % (root_url(req), req.context.project_id,
                               collection, urllib.parse.urlencode(query))
    return [{'rel': 'next', 'href': href}]
