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


"""cinder_ma's dashboard: a Horizon plugin for shared volumes.

What stock Horizon cannot show of cinder_ma: the mode of each attachment
of a shareable volume, the writer of a one-writer volume, which
attachment is fenced and at which generation, the read-only flag; and the
actions on them (the read-only flag, fencing, standby promotion, a
shareable volume type with its writer policy and attachment cap).

It talks to cinder_ma through its public REST API only (python-cinderclient's
HTTP client, as Horizon's own volume panels do; the extension fields with
the ``Cinder-MA-Extensions`` header), never to its database, and needs
nothing but Horizon: install it in Horizon's environment and copy the
files of ``enabled/`` and ``local_settings.d/`` to Horizon's
``openstack_dashboard/local/`` (docs/user/dashboard.rst).
"""
