"""A backend's capabilities: Cinder's ``capabilities/{hostname}``
(``cinder/api/views/capabilities.py``, Tempest's
``show_backend_capabilities`` schema: exactly these keys)."""


def show(service, caps):
    """:param service: the backend's service row (its topic names the
        namespace, as Cinder's ``cinder-volume.<host>``).
    :param caps: the backend's capability report, without pools.
    """
    properties = caps.get('properties')
    return {
        'namespace': 'OS::Storage::Capabilities::%s' % service.host,
        'vendor_name': caps.get('vendor_name'),
        'volume_backend_name': caps.get('volume_backend_name'),
        'pool_name': caps.get('pool_name'),
        'driver_version': caps.get('driver_version'),
        'storage_protocol': caps.get('storage_protocol'),
        'display_name': caps.get('display_name'),
        'description': caps.get('description'),
        'visibility': caps.get('visibility'),
        'replication_targets': list(caps.get('replication_targets') or []),
        'properties': properties if isinstance(properties, dict) else {},
    }
