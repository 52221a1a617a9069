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

"""Limits view: Cinder's ``GET /limits`` (``cinder/api/views/limits.py``
with the used-limits extension).

``rate`` is always empty (no rate limits, as in Cinder since Queens).
Backups do not exist here: their maxima are the quotas set for them (0
by default) and their totals 0.
"""

# Cinder's absolute limit names of quota resources, and of their usage.
_MAX = (('maxTotalVolumes', 'volumes'),
        ('maxTotalSnapshots', 'snapshots'),
        ('maxTotalVolumeGigabytes', 'gigabytes'),
        ('maxTotalBackups', 'backups'),
        ('maxTotalBackupGigabytes', 'backup_gigabytes'))
_USED = (('totalVolumesUsed', 'volumes'),
         ('totalGigabytesUsed', 'gigabytes'),
         ('totalSnapshotsUsed', 'snapshots'),
         ('totalBackupsUsed', 'backups'),
         ('totalBackupGigabytesUsed', 'backup_gigabytes'))


def limits(absolute):
    """:param absolute: {'limits': {resource: limit}, 'usage':
    {resource: in_use}} from the quota service."""
    view = {name: absolute['limits'][key] for name, key in _MAX}
    view.update({name: absolute['usage'].get(key, 0)
                 for name, key in _USED})
    return {'limits': {'rate': [], 'absolute': view}}
