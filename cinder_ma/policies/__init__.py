"""Policy rules in code, one module per resource."""

import itertools

from cinder_ma.policies import attachments
from cinder_ma.policies import base
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
    ))
