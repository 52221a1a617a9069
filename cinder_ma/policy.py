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

"""Policy enforcement: one enforcer, rules registered from code."""

import threading
import time

from oslo_config import cfg
from oslo_policy import opts as policy_opts
from oslo_policy import policy

from cinder_ma import exception
from cinder_ma import policies

CONF = cfg.CONF
_ENFORCER = None
_LOCK = threading.Lock()

policy_opts.set_defaults(CONF, 'policy.yaml')

#: How often, at most, the enforcer looks for changed policy files.
RECHECK_SECONDS = 1.0


class Enforcer(policy.Enforcer):
    """oslo.policy's enforcer, looking at the policy files at most once a
    second.

    oslo.policy looks for the policy file and policy.d directories (and
    stats them) before every check, which costs more than the check
    itself; a request makes several. A changed file is still picked up,
    within :data:`RECHECK_SECONDS`.
    """

    _next_load = 0.0

    def load_rules(self, force_reload=False):
        now = time.monotonic()
        if force_reload or now >= self._next_load or not self.rules:
            super().load_rules(force_reload)
            self._next_load = now + RECHECK_SECONDS

    def clear(self):
        super().clear()
        self._next_load = 0.0


def get_enforcer():
    """The enforcer; also the oslo.policy.enforcer entry point."""
    global _ENFORCER
    if _ENFORCER is None:
        with _LOCK:
            if _ENFORCER is None:
                enforcer = Enforcer(CONF)
                enforcer.register_defaults(policies.list_rules())
                _ENFORCER = enforcer
    return _ENFORCER


def reset():
    global _ENFORCER
    if _ENFORCER is not None:
        _ENFORCER.clear()
    _ENFORCER = None


def authorize(context, action, target=None, do_raise=True):
    """Check ``action`` for ``context`` on a target.

    :param target: dict with at least ``project_id`` of the resource; the
        caller's project is used when omitted.
    :raises PolicyNotAuthorized: when denied and ``do_raise``.
    """
    if target is None:
        target = {'project_id': context.project_id,
                  'user_id': context.user_id}
    try:
        return get_enforcer().authorize(
            action, target, context, do_raise=do_raise,
            exc=exception.PolicyNotAuthorized, action=action)
    except policy.InvalidScope:
        raise exception.PolicyNotAuthorized(action=action)


def check_persona(context, rule):
    """Whether the caller is what a persona rule says (``context_is_admin``,
    ``service_api``) in its own project.

    A caller's roles do not change within a request, and the service asks
    this several times per request: the answer is kept on the context.
    """
    memo = context.__dict__.setdefault('_cinder_ma_personas', {})
    if rule not in memo:
        memo[rule] = bool(authorize(
            context, rule, {'project_id': context.project_id},
            do_raise=False))
    return memo[rule]
