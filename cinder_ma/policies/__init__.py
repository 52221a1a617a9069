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

"""Policy rules in code, one module per resource."""

import itertools

from cinder_ma.policies import attachments
from cinder_ma.policies import audits
from cinder_ma.policies import availability_zones
from cinder_ma.policies import base
from cinder_ma.policies import limits
from cinder_ma.policies import messages
from cinder_ma.policies import qos_specs
from cinder_ma.policies import quotas
from cinder_ma.policies import scheduler_stats
from cinder_ma.policies import services
from cinder_ma.policies import snapshots
from cinder_ma.policies import transfers
from cinder_ma.policies import types
from cinder_ma.policies import unsupported
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
        messages.list_rules(),
        transfers.list_rules(),
        unsupported.list_rules(),
        snapshots.list_rules(),
        audits.list_rules(),
    ))
