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

"""Volume metadata, in the shapes of Cinder's
``cinder/api/v2/volume_metadata.py``: ``{"metadata": {...}}`` for the
whole, ``{"meta": {key: value}}`` for one item. Keys come sorted, so that
the same metadata always serializes to the same bytes (its ETag)."""


def as_dict(volume):
    """The metadata of a volume model, sorted by key."""
    return dict(sorted(volume.volume_metadata.items()))


def index(metadata):
    return {'metadata': dict(sorted(metadata.items()))}


def item(key, value):
    return {'meta': {key: value}}
