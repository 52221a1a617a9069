"""Exceptions of cinder_ma.

Every error a user can cause is a :class:`CinderMAException` subclass with
the HTTP status it maps to; the API turns it into Cinder's fault body. The
same classes travel over RPC as expected exceptions.
"""


class CinderMAException(Exception):
    """Base class; ``message`` is formatted with the keyword arguments."""

    message = 'An unknown error occurred.'
    code = 500

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        if message is None:
            try:
                message = self.message % kwargs
            except (KeyError, TypeError):
                message = self.message
        self.msg = str(message)
        super().__init__(self.msg)

    def __str__(self):
        return self.msg


class Invalid(CinderMAException):
    message = 'Unacceptable parameters.'
    code = 400


class InvalidInput(Invalid):
    message = 'Invalid input received: %(reason)s'


class InvalidVolume(Invalid):
    message = 'Invalid volume: %(reason)s'


class InvalidVolumeType(Invalid):
    message = 'Invalid volume type: %(reason)s'


class InvalidSortKey(Invalid):
    message = 'Sort key supplied is invalid: %(key)s.'


class InvalidMarker(Invalid):
    message = 'Marker %(marker)s could not be found.'


class NotAuthorized(CinderMAException):
    message = 'Not authorized.'
    code = 403


class PolicyNotAuthorized(NotAuthorized):
    message = 'Policy does not allow %(action)s to be performed.'


class NotFound(CinderMAException):
    message = 'Resource could not be found.'
    code = 404


class VolumeNotFound(NotFound):
    message = 'Volume %(volume_id)s could not be found.'


class VolumeTypeNotFound(NotFound):
    message = 'Volume type %(volume_type_id)s could not be found.'


class VolumeTypeNotFoundByName(VolumeTypeNotFound):
    message = 'Volume type with name %(volume_type_name)s could not be found.'


class VolumeTypeExtraSpecsNotFound(NotFound):
    message = ('Volume type %(volume_type_id)s has no extra specs with key '
               '%(extra_specs_key)s.')


class ServiceNotFound(NotFound):
    message = 'Service %(service_id)s could not be found.'


class Conflict(CinderMAException):
    message = 'Conflict: %(reason)s'
    code = 409


class VolumeTypeExists(Conflict):
    message = 'Volume type with name %(name)s already exists.'


class VolumeTypeInUse(Invalid):
    message = ('Volume type %(volume_type_id)s deletion is not allowed with '
               'volumes present with the type.')


class NoValidBackend(CinderMAException):
    message = 'No valid backend was found. %(reason)s'
    code = 400


class VersionNotAcceptable(CinderMAException):
    message = 'Version %(version)s is not supported by the API.'
    code = 406


class DriverError(CinderMAException):
    message = 'Storage driver error: %(reason)s'


class DriverNotFound(CinderMAException):
    message = ('No driver named %(name)s in entry point namespace '
               '%(namespace)s; is the package providing it installed?')


class ManagerUnavailable(CinderMAException):
    message = 'The manager for %(host)s did not answer: %(reason)s'
    code = 503


class VolumeAttachmentNotFound(NotFound):
    message = 'Volume attachment could not be found with filter: %(filter)s.'


class VolumeTypeAccessExists(Conflict):
    message = ('Volume type access for %(volume_type_id)s / %(project_id)s '
               'combination already exists.')


class VolumeTypeAccessNotFound(NotFound):
    message = ('Volume type access not found for %(volume_type_id)s / '
               '%(project_id)s combination.')


class VolumeTypeEncryptionExists(Invalid):
    message = 'Volume type encryption for type %(type_id)s already exists.'


class VolumeTypeEncryptionNotFound(NotFound):
    message = 'Volume type encryption for type %(type_id)s does not exist.'


class VolumeTypeEncryptionInUse(Invalid):
    message = ('Cannot %(action)s the encryption of volume type %(type_id)s: '
               'volumes of the type exist.')
