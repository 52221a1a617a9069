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

"""Volume summary view: Cinder's ``GET /volumes/summary`` (3.12), with
the volumes' metadata from 3.36 (``quick_summary`` in Cinder's
``cinder/api/v3/views/volumes.py``)."""

from cinder_ma.api import microversions as mv


def summary(req, count, size, metadata):
    """:param metadata: {key: [distinct values]}."""
    view = {'total_count': count, 'total_size': size}
    if req.api_version.matches(mv.VOLUME_SUMMARY_METADATA):
        view['metadata'] = metadata
    return {'volume-summary': view}
