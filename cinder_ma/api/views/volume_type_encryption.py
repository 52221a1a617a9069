"""The encryption of a volume type, in the shape of Cinder's
``cinder/api/contrib/volume_type_encryption.py``: the fields of the
encryption record, or ``{}`` for a type that is not encrypted."""

from cinder_ma.api import views


def index(encryption):
    if encryption is None:
        return {}
    return {
        'volume_type_id': encryption.volume_type_id,
        'encryption_id': encryption.encryption_id,
        'provider': encryption.provider,
        'cipher': encryption.cipher,
        'key_size': encryption.key_size,
        'control_location': encryption.control_location,
        'created_at': views.isotime(encryption.created_at),
        'updated_at': views.isotime(encryption.updated_at),
        'deleted': bool(encryption.deleted),
        'deleted_at': views.isotime(encryption.deleted_at),
    }


def request(values):
    """Create and update answer with the fields they were given, as
    Cinder does."""
    return {'encryption': values}
