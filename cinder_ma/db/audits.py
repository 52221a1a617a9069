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

"""Database API of the attachment audit's results.

``cinder-ma-manage attachment audit`` records each run
(:func:`audit_create`): when, on which host, how many hosts it audited
and its findings as it printed them. Only the newest :data:`KEEP` runs
are kept: a run deletes the older ones in its transaction. Administrators
read them through the ``cinder-ma-audit`` extension
(:mod:`cinder_ma.volume.audits`).

Readers return :class:`cinder_ma.db.records.Audit` records; every
statement is a Core statement of the table, run on the transaction's
connection.
"""

import uuid

from oslo_serialization import jsonutils
import sqlalchemy as sa

from cinder_ma.db.api import connection_of
from cinder_ma.db.api import reader
from cinder_ma.db.api import writer
from cinder_ma.db import models
from cinder_ma.db import records

_AUDIT = models.AttachmentAudit

#: How many runs are kept.
KEEP = 20


_TABLE = _AUDIT.__table__
_NEWEST = sa.select(_TABLE).where(_TABLE.c.deleted == sa.false()).order_by(
    _TABLE.c.created_at.desc(), _TABLE.c.id.desc())


@writer
def audit_create(context, host, hosts_audited, findings):
    """Record a run of the audit; delete the runs older than the newest
    :data:`KEEP`.

    :param findings: its rows, ``[kind, id, host, problem]``.
    """
    findings = [[str(value) for value in row] for row in findings]
    audit_id = str(uuid.uuid4())
    connection = connection_of(context)
    connection.execute(sa.insert(_TABLE), {
        'id': audit_id, 'host': host, 'hosts_audited': hosts_audited,
        'findings_count': len(findings),
        'findings': jsonutils.dumps(findings)})
    # As stored (MySQL keeps times to the second).
    audit = records.from_row(records.Audit, connection.execute(
        sa.select(_TABLE).where(_TABLE.c.id == audit_id)).one())
    kept = connection.execute(sa.select(_TABLE.c.id).order_by(
        _TABLE.c.created_at.desc(), _TABLE.c.id.desc()).limit(
            KEEP)).scalars().all()
    connection.execute(sa.delete(_TABLE).where(~_TABLE.c.id.in_(kept)))
    return audit


@reader
def audit_get_all(context, limit=None):
    """The recorded runs, newest first (``limit`` of them)."""
    statement = _NEWEST if limit is None else _NEWEST.limit(limit)
    return records.from_result(records.Audit,
                               connection_of(context).execute(
                                   statement))
