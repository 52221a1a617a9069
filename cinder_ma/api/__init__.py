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

"""The REST API: Block Storage v3, as Cinder's clients expect it.

HTTP only lives here: the WSGI app and its middleware (:mod:`.app`,
:mod:`.auth`), the route table (:mod:`.routes`), microversions, the expose
decorator that turns results and exceptions into responses (and gates
functions by microversion), the dispatcher of ``.../action`` requests
(:mod:`.actions`), JSON schema validation, and per resource a controller
(``v3/``), schemas and views.
The rules of the service are in :mod:`cinder_ma.volume`.
"""
