"""Policy rules in code, one module per resource."""

import itertools

from cinder_ma.policies import attachments
from cinder_ma.policies import availability_zones
from cinder_ma.policies import base
from cinder_ma.policies import limits
from cinder_ma.policies import qos_specs
from cinder_ma.policies import quotas
from cinder_ma.policies import scheduler_stats
from cinder_ma.policies import services
from cinder_ma.policies import types
from cinder_ma.policies import volumes


def list_rules():
    return list(itertools.chain(
        base.list_rules(),
        volumes.list_rules(),
        attachments.list_rules(),
        types.list_rules(),
        services.list_rules(),
        qos_specs.list_rules(),
        limits.list_rules(),
        quotas.list_rules(),
        availability_zones.list_rules(),
        scheduler_stats.list_rules(),
    ))
