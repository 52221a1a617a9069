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

"""The attachment audit's results: who may read them.

``cinder-ma-manage attachment audit`` records each run
(:func:`cinder_ma.db.audits.audit_create`); administrators list them here,
newest first (the ``cinder-ma-audit`` extension).
"""

from cinder_ma.db import audits as audit_db
from cinder_ma.policies import audits as audit_policies
from cinder_ma import policy


def list_audits(context, limit=None):
    """The recorded runs of the audit, newest first.

    :raises PolicyNotAuthorized: the caller is not an administrator.
    """
    policy.authorize(context, audit_policies.GET_ALL)
    return audit_db.audit_get_all(context, limit=limit)
