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


#: The most allowed decisions :class:`Enforcer` remembers.
MAX_DECISIONS = 4096

# The checks whose answer depends on nothing but the target, the
# credentials and the rules: oslo.policy's logical operators and rule
# references (public), and its role, generic, "@" and "!" checks (public
# in the policy language, classes of a private module: known by name;
# a renamed class is simply not remembered).
_PURE_CHECK_NAMES = frozenset(('RoleCheck', 'GenericCheck', 'TrueCheck',
                               'FalseCheck'))
_SCALARS = (str, int, float, bool, type(None))


def _frozen(value):
    """``value`` as a hashable key telling apart what a check tells apart
    (types included: ``True`` is not ``1`` to a generic check)."""
    if isinstance(value, _SCALARS):
        return type(value), value
    if isinstance(value, (list, tuple)):
        return type(value), tuple(_frozen(item) for item in value)
    if isinstance(value, dict):
        return dict, tuple(sorted((key, _frozen(item))
                                  for key, item in value.items()))
    raise TypeError(value)


class Enforcer(policy.Enforcer):
    """oslo.policy's enforcer, looking at the policy files at most once a
    second, and remembering what it allowed until then.

    oslo.policy looks for the policy file and policy.d directories (and
    stats them) before every check, which costs more than the check
    itself; a request makes several. A changed file is still picked up,
    within :data:`RECHECK_SECONDS`.

    A check of oslo.policy costs as much again (it inspects the signature
    of every check it evaluates); an attach cycle makes about ten, most
    of them the same rule for the same caller and project. So an allowed
    decision is remembered, keyed by the rule, the whole target and the
    whole credentials, when the rule's checks depend on nothing else
    (roles, generic checks, rule references, and/or/not; not an ``http:``
    check, nor a check of an extension); the memory is emptied whenever
    the rules are (re)loaded or set. A denial is never remembered: it
    goes through oslo.policy each time, with its exception.
    """

    _next_load = 0.0

    def __init__(self, *args, **kwargs):
        self._forget()
        super().__init__(*args, **kwargs)

    def _forget(self):
        self._allowed = {}
        self._pure = {}

    def load_rules(self, force_reload=False):
        now = time.monotonic()
        if force_reload or now >= self._next_load or not self.rules:
            self._forget()
            super().load_rules(force_reload)
            self._next_load = now + RECHECK_SECONDS

    def set_rules(self, *args, **kwargs):
        self._forget()
        super().set_rules(*args, **kwargs)

    def clear(self):
        super().clear()
        self._forget()
        self._next_load = 0.0

    def _is_pure(self, check, seen):
        # Exact types: extensions may subclass these.
        kind = type(check)
        if kind in (policy.AndCheck, policy.OrCheck):
            return all(self._is_pure(rule, seen) for rule in check.rules)
        if kind is policy.NotCheck:
            return self._is_pure(check.rule, seen)
        if kind is policy.RuleCheck:
            if check.match in seen:
                return True
            seen.add(check.match)
            return (check.match in self.rules and
                    self._is_pure(self.rules[check.match], seen))
        return (kind.__name__ in _PURE_CHECK_NAMES and
                kind.__module__.startswith('oslo_policy.'))

    def is_pure(self, action):
        """Whether the answer of ``action`` depends only on the target,
        the credentials and the rules."""
        pure = self._pure.get(action)
        if pure is None:
            rules = self.rules
            pure = (action in rules and action in self.registered_rules and
                    self._is_pure(rules[action], {action}))
            self._pure[action] = pure
        return pure

    def decision_key(self, action, target, context):
        """The key of a decision to remember, or None."""
        self.load_rules()
        if not self.is_pure(action):
            return None
        try:
            return (action, _frozen(target),
                    _frozen(dict(context.to_policy_values())))
        except TypeError:
            return None

    def allowed(self, key):
        return self._allowed.get(key)

    def remember(self, key, result):
        allowed = self._allowed
        if len(allowed) >= MAX_DECISIONS:
            allowed.clear()
        allowed[key] = result


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
    enforcer = get_enforcer()
    key = enforcer.decision_key(action, target, context)
    if key is not None:
        result = enforcer.allowed(key)
        if result is not None:
            return result
    try:
        result = enforcer.authorize(
            action, target, context, do_raise=do_raise,
            exc=exception.PolicyNotAuthorized, action=action)
    except policy.InvalidScope:
        raise exception.PolicyNotAuthorized(action=action)
    if result and key is not None:
        enforcer.remember(key, result)
    return result


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
