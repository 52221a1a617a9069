"""Limits view: Cinder's ``GET /limits`` (``cinder/api/views/limits.py``
with the used-limits extension).

``rate`` is always empty (no rate limits, as in Cinder since Queens).
Snapshots and backups do not exist here: their maxima are the quotas
set for them (0 by default) and their totals 0.
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
