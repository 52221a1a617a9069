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

"""cinder-ma-status: checks before and during an upgrade
(oslo.upgradecheck)::

    cinder-ma-status [--config-file FILE] upgrade check [--json]

Checks:

* Database schema -- the database is at the newest migration this
  release knows (else ``cinder-ma-manage db sync``);
* RPC version pins -- ``[upgrade_levels] manager`` is no higher than what
  the registered managers report (and than this release's), and managers
  of an older release are not running unpinned;
* Policy file -- not JSON (oslo.upgradecheck's common check), parsable,
  and naming no rule that cinder_ma does not have.

Exit status 0 when everything passed, 1 for warnings, 2 for failures,
255 when a check could not run (oslo.upgradecheck's codes).
"""

import sys

from oslo_config import cfg
from oslo_upgradecheck import common_checks
from oslo_upgradecheck import upgradecheck

from cinder_ma import cmd
from cinder_ma.conf import upgrade_levels
from cinder_ma import context
from cinder_ma.db import migration
from cinder_ma.manager import rpcapi

CONF = cfg.CONF

Code = upgradecheck.Code
Result = upgradecheck.Result


def _key(version):
    return tuple(int(p) for p in version.split('.'))


class Checks(upgradecheck.UpgradeCommands):
    """The upgrade checks of cinder_ma."""

    def _check_schema(self):
        try:
            current = migration.version()
        except Exception as exc:
            return Result(Code.FAILURE,
                          'Cannot read the database schema revision: %s '
                          '(%s)' % (str(exc).split('\n')[0],
                                    cmd.database_hint(CONF)))
        head = migration.head()
        if current != head:
            return Result(Code.FAILURE,
                          'The database is at revision %s, not %s: run '
                          '"cinder-ma-manage db sync".' % (current, head))
        return Result(Code.SUCCESS)

    def _check_pins(self):
        newest = rpcapi.ManagerAPI.RPC_API_VERSION
        pin = CONF.upgrade_levels.manager
        try:
            lowest = rpcapi.lowest_reported_version(
                context.get_admin_context())
        except Exception as exc:
            return Result(Code.FAILURE,
                          'Cannot read the services table: %s' %
                          str(exc).split('\n')[0])
        if pin and pin != upgrade_levels.AUTO:
            if _key(pin) > _key(newest):
                return Result(Code.FAILURE,
                              '[upgrade_levels] manager = %s is above this '
                              'release\'s manager RPC API %s.' % (pin,
                                                                  newest))
            if lowest and _key(pin) > _key(lowest):
                return Result(Code.FAILURE,
                              '[upgrade_levels] manager = %s is above %s, '
                              'the version a registered manager reports: '
                              'it would send messages that manager cannot '
                              'handle. Pin %s or "auto".' % (pin, lowest,
                                                             lowest))
            if lowest and pin != lowest:
                return Result(Code.WARNING,
                              '[upgrade_levels] manager = %s while every '
                              'manager reports %s or newer: remove the pin '
                              'once the upgrade is done.' % (pin, lowest))
            return Result(Code.SUCCESS)
        if not pin and lowest and _key(lowest) < _key(newest):
            return Result(Code.WARNING,
                          'A registered manager reports RPC API %s, older '
                          'than %s: set [upgrade_levels] manager = auto (or '
                          '%s) until every manager is upgraded.' % (
                              lowest, newest, lowest))
        return Result(Code.SUCCESS)

    def _check_policy_file(self):
        from cinder_ma import policy

        enforcer = policy.get_enforcer()
        try:
            enforcer.load_rules(force_reload=True)
        except Exception as exc:
            return Result(Code.FAILURE,
                          'The policy file cannot be read: %s' % exc)
        unknown = sorted(set(enforcer.file_rules) -
                         set(enforcer.registered_rules))
        if unknown:
            return Result(Code.WARNING,
                          'The policy file sets rules cinder_ma does not '
                          'have (misspelt or removed): %s.' %
                          ', '.join(unknown))
        return Result(Code.SUCCESS)

    _upgrade_checks = (
        ('Database schema', _check_schema),
        ('RPC version pins', _check_pins),
        ('Policy File JSON to YAML Migration',
         (common_checks.check_policy_json, {'conf': CONF})),
        ('Policy file rules', _check_policy_file),
    )


def main(argv=None):
    argv = cmd.find_all_in_one(sys.argv if argv is None else argv)
    return upgradecheck.main(CONF, project='cinder_ma',
                             upgrade_command=Checks(), argv=argv[1:])


if __name__ == '__main__':
    sys.exit(main())
