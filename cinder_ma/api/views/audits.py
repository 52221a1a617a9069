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

"""Attachment audit views (the ``cinder-ma-audit`` extension).

A run shows ``id``, ``created_at`` (when it was recorded), ``host`` (the
host it ran on), ``hosts_audited``, ``findings_count`` and ``findings``,
each with ``kind`` (``attachment``, ``connection``, ``disk``, ``host``,
``backend``), ``id``, ``host`` and ``problem``, as
``cinder-ma-manage attachment audit`` prints them.
"""

from cinder_ma.api import views

COLLECTION = 'audits'
FINDING_KEYS = ('kind', 'id', 'host', 'problem')


def _audit(audit):
    return {
        'id': audit.id,
        'created_at': views.isotime(audit.created_at),
        'host': audit.host,
        'hosts_audited': audit.hosts_audited,
        'findings_count': audit.findings_count,
        'findings': [dict(zip(FINDING_KEYS, finding))
                     for finding in audit.findings],
    }


def index(audits):
    return {COLLECTION: [_audit(audit) for audit in audits]}
