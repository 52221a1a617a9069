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
"""

import typing
import uuid

from oslo_serialization import jsonutils
import sqlalchemy as sa

from cinder_ma.db.api import reader
from cinder_ma.db.api import writer
from cinder_ma.db import models

_AUDIT = models.AttachmentAudit

#: How many runs are kept.
KEEP = 20


class Audit(typing.NamedTuple):
    """A run of the audit; ``findings`` are ``[kind, id, host,
    problem]`` lists."""

    id: str
    host: str
    hosts_audited: int
    findings_count: int
    findings: list
    created_at: object


def _record(row):
    return Audit(row.id, row.host, row.hosts_audited, row.findings_count,
                 jsonutils.loads(row.findings), row.created_at)


def _newest(query):
    return query.order_by(_AUDIT.created_at.desc(), _AUDIT.id.desc())


@writer
def audit_create(context, host, hosts_audited, findings):
    """Record a run of the audit; delete the runs older than the newest
    :data:`KEEP`.

    :param findings: its rows, ``[kind, id, host, problem]``.
    """
    findings = [[str(value) for value in row] for row in findings]
    row = _AUDIT(id=str(uuid.uuid4()), host=host,
                 hosts_audited=hosts_audited,
                 findings_count=len(findings),
                 findings=jsonutils.dumps(findings))
    context.session.add(row)
    context.session.flush()
    context.session.refresh(row)
    kept = [r.id for r in _newest(
        context.session.query(_AUDIT.id, _AUDIT.created_at)).limit(KEEP)]
    context.session.query(_AUDIT).filter(~_AUDIT.id.in_(kept)).delete(
        synchronize_session=False)
    return _record(row)


@reader
def audit_get_all(context, limit=None):
    """The recorded runs, newest first (``limit`` of them)."""
    query = _newest(context.session.query(_AUDIT).filter(
        _AUDIT.deleted == sa.false()))
    if limit is not None:
        query = query.limit(limit)
    return [_record(row) for row in query.all()]
