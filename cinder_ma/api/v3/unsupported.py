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

"""Resources of Cinder's API that cinder_ma does not have (yet).

Clients list them as they start or render a page (Horizon's Project >
Volumes lists snapshots, transfers and groups; its Admin pages group
types), and a 404 on a documented Cinder path breaks them.
So each is answered as a Cinder deployment without any of them answers,
at the microversions Cinder serves it from (below, Cinder's 404 "API
version ... is not supported on this method"):

* its lists are empty, in Cinder's shape (``{"backups": []}``, with
  ``"count": 0`` where Cinder counts from 3.45), under Cinder's list
  policy of the resource;
* an id (show, update, delete, an action on it) is Cinder's 404 of that
  resource ("Backup <id> could not be found."): there is none;
* a creation is a 400 naming the feature cinder_ma lacks
  (:class:`cinder_ma.exception.FeatureNotSupported`).

docs/admin/unsupported.rst lists them. When a resource is implemented, its
entry leaves :data:`RESOURCES` for a controller of its own.
"""

from cinder_ma.api import expose
from cinder_ma.api import microversions as mv
from cinder_ma.api import params
from cinder_ma.api.views import unsupported as views
from cinder_ma import exception
from cinder_ma.volume import unsupported


class Resource:
    """One resource cinder_ma does not have, and the handlers of its
    routes (:mod:`cinder_ma.api.routes` maps its paths to them).

    :param key: the key of its lists in Cinder's bodies (``backups``).
    :param feature: what a refused creation says cinder_ma lacks.
    :param not_found: the exception of an id, built with the id as
        ``id_name``.
    :param min_version: the first microversion Cinder serves it at.
    :param counted: its lists take ``with_count`` from 3.45.

    Its lists are under Cinder's list policy of the kind
    (:data:`cinder_ma.volume.unsupported.LIST_RULES`).
    """

    def __init__(self, key, feature, not_found, id_name, min_version=None,
                 counted=False):
        self.key = key
        self.feature = feature
        self.not_found = not_found
        self.id_name = id_name
        self.counted = counted
        exposed = expose.expose(min_version=min_version)
        self.index = exposed(self._index)
        self.missing = exposed(self._missing)
        self.create = exposed(self._create)

    def _index(self, req, project_id):
        """An empty list, in Cinder's shape."""
        items = unsupported.list_resources(req.context, self.key)
        count = None
        if self.counted and req.api_version.matches(
                mv.SUPPORT_COUNT_INFO) and params.boolean(
                    req.GET, 'with_count'):
            count = len(items)
        return views.index(self.key, items, count)

    def _missing(self, req, project_id, resource_id, **_subpath):
        """Cinder's 404 of the resource: there is none of that id."""
        raise self.not_found(**{self.id_name: resource_id})

    def _create(self, req, project_id, **_path):
        raise exception.FeatureNotSupported(feature=self.feature)

    @property
    def collection(self):
        """The handlers of its collection's path."""
        return {'GET': self.index, 'POST': self.create}

    @property
    def listing(self):
        """The handlers of its ``/detail`` path."""
        return {'GET': self.index}


BACKUPS = Resource('backups', 'volume backups', exception.BackupNotFound,
                   'backup_id', counted=True)
GROUP_TYPES = Resource('group_types', 'group types',
                       exception.GroupTypeNotFound, 'group_type_id',
                       min_version=mv.GROUP_TYPE)
GROUPS = Resource('groups', 'generic volume groups',
                  exception.GroupNotFound, 'group_id',
                  min_version=mv.GROUP_VOLUME)
GROUP_SNAPSHOTS = Resource('group_snapshots', 'group snapshots',
                           exception.GroupSnapshotNotFound,
                           'group_snapshot_id',
                           min_version=mv.GROUP_SNAPSHOTS)

RESOURCES = (BACKUPS, GROUP_TYPES, GROUPS, GROUP_SNAPSHOTS)
