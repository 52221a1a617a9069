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

"""Whether a backend's capabilities meet a volume type's extra specs, by
the rules of Cinder's CapabilitiesFilter.

Which extra specs are requirements: a key without a namespace
(``storage_protocol``) or in the ``capabilities`` namespace
(``capabilities:storage_protocol``; deeper, ``capabilities:a:b`` is
``b`` of the dict ``a``) names a capability, which the backend must
report and whose value must match. Keys of other namespaces
(``multiattach:writers``, ``qos:...``, ``volume_backend_name`` never
has one) are left to whoever reads them.

How a value matches (the first word of the requirement is the operator;
a requirement that does not start with one must equal the value):

* ``<is> True`` / ``<is> False``: the value as a boolean;
* ``<in> x``: ``x`` is a substring of the value (or an item of a list);
* ``<all-in> x y``: every word is in the value;
* ``<or> a <or> b``: the value is one of the words;
* ``==``, ``!=``, ``>=``, ``<=``, and ``=`` (at least, as in Cinder):
  numbers;
* ``s==``, ``s!=``, ``s<``, ``s<=``, ``s>``, ``s>=``: text, compared as
  text.

A value that is not a number where one is compared, or an operator
without an operand, does not match. A capability reported as a boolean
or a number compares as its text where text is compared (``True``,
``10``): Cinder compares the reported object itself, which makes
``thin_provisioning_support=True`` never match a boolean report.
"""

import operator

from oslo_utils import strutils

#: The namespace of extra specs that name capabilities.
SCOPE = 'capabilities'

_NUMERIC = {'=': operator.ge, '==': operator.eq, '!=': operator.ne,
            '>=': operator.ge, '<=': operator.le}
_TEXT = {'s==': operator.eq, 's!=': operator.ne, 's<': operator.lt,
         's<=': operator.le, 's>': operator.gt, 's>=': operator.ge}
#: Every operator a requirement may start with.
OPERATORS = frozenset(_NUMERIC) | frozenset(_TEXT) | {
    '<is>', '<in>', '<all-in>', '<or>'}

_MISSING = object()


def _text(value):
    return value if isinstance(value, str) else str(value)


def _container(value):
    """What ``<in>`` looks into: a list's items as text, else the
    text."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_text(item) for item in value]
    return _text(value)


def match(value, requirement):
    """Whether a capability's ``value`` meets ``requirement`` (the extra
    spec's value); a capability not reported is ``None``."""
    if requirement is None:
        return value is None
    words = str(requirement).split()
    op = words[0] if words else None
    if op not in OPERATORS:
        return value is not None and _text(value) == requirement
    if value is None:
        return False
    args = words[1:]
    if op == '<or>':
        # a <or> b <or> c: the values are every other word.
        return _text(value) in args[::2]
    if not args:
        return False
    if op == '<all-in>':
        inside = _container(value)
        return all(arg in inside for arg in args)
    wanted = args[0]
    try:
        if op == '<in>':
            return wanted in _container(value)
        if op == '<is>':
            return (strutils.bool_from_string(value) is
                    strutils.bool_from_string(wanted))
        if op in _NUMERIC:
            return _NUMERIC[op](float(value), float(wanted))
        return _TEXT[op](_text(value), wanted)
    except (TypeError, ValueError):
        return False


def capability_path(key):
    """The capability an extra spec key names, as the path of keys into
    the capabilities (``['a', 'b']`` for ``capabilities:a:b``), or None
    for a key of another namespace."""
    scope = key.split(':')
    if scope[0] == SCOPE:
        scope = scope[1:]
    elif len(scope) > 1:
        return None
    return scope if scope and all(scope) else None


def lookup(capabilities, path):
    """The value at ``path`` in the capabilities; None when not
    reported."""
    value = capabilities
    for name in path:
        if not isinstance(value, dict):
            return None
        value = value.get(name, _MISSING)
        if value is _MISSING:
            return None
    return value


def unmet(capabilities, extra_specs):
    """The first extra spec (key, requirement, reported value) that the
    capabilities do not meet, or None when they meet them all."""
    for key, requirement in sorted(extra_specs.items()):
        path = capability_path(key)
        if path is None:
            continue
        value = lookup(capabilities, path)
        if value is None or not match(value, requirement):
            return key, requirement, value
    return None
