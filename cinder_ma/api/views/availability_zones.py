"""Availability zone view: Cinder's ``os-availability-zone``."""


def index(zones):
    """:param zones: [(name, available)]."""
    return {'availabilityZoneInfo': [
        {'zoneName': name, 'zoneState': {'available': available}}
        for name, available in zones]}
