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

"""Exceptions of cinder_ma.

Every error a user can cause is a :class:`CinderMAException` subclass with
the HTTP status it maps to; the API turns it into Cinder's fault body. The
same classes travel over RPC as expected exceptions.

Messages are short: a value a client sent is echoed cut to
:data:`MAX_ECHO` characters (:func:`cut`), and so is every keyword
argument of an exception (an id, a name, a key...) but the sentences
(``reason``...), cut to :data:`MAX_SENTENCE` (one written here may carry a
client's value): a 200 KB id in a URL is named, not sent back.
"""

# The most characters of a client's value that a message repeats.
MAX_ECHO = 100
# The most characters of a sentence given as a keyword argument.
MAX_SENTENCE = 500
_SENTENCES = frozenset(('reason', 'detail', 'filter'))


def cut(value, limit=MAX_ECHO):
    """``value`` as text, cut to ``limit`` characters (and marked so)."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return text
    return text[:limit] + '...'


class CinderMAException(Exception):
    """Base class; ``message`` is formatted with the keyword arguments."""

    message = 'An unknown error occurred.'
    code = 500

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        if message is None:
            # Long values (a client's) are cut in the message; kwargs
            # keep them whole.
            shown = {key: cut(value, MAX_SENTENCE if key in _SENTENCES
                              else MAX_ECHO)
                     if isinstance(value, str) else value
                     for key, value in kwargs.items()}
            try:
                message = self.message % shown
            except (KeyError, TypeError):
                message = self.message
        self.msg = str(message)
        super().__init__(self.msg)

    def __str__(self):
        return self.msg

    def format_message(self):
        """The message, as formatted where the exception was raised.

        Show this, not ``str()``: oslo.messaging rebuilds an exception
        that a manager raised from its arguments (the message first, then
        the keyword arguments), and the ``str()`` of what it rebuilds adds
        the manager's traceback.
        """
        return self.msg


class Invalid(CinderMAException):
    message = 'Unacceptable parameters.'
    code = 400


class InvalidInput(Invalid):
    message = 'Invalid input received: %(reason)s'


class InvalidVolume(Invalid):
    message = 'Invalid volume: %(reason)s'


class InvalidAuthKey(Invalid):
    message = 'Invalid auth key: %(reason)s'


class InvalidSnapshot(Invalid):
    message = 'Invalid snapshot: %(reason)s'


class InvalidVolumeType(Invalid):
    message = 'Invalid volume type: %(reason)s'


class InvalidSortKey(Invalid):
    message = 'Sort key supplied is invalid: %(key)s.'


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


class MarkerNotFound(NotFound):
    """A list's ``marker`` names no item the caller sees: a 404, as in
    Cinder (whose lists look the marker up as the resource)."""
    message = 'Marker %(marker)s could not be found.'


class SnapshotNotFound(NotFound):
    message = 'Snapshot %(snapshot_id)s could not be found.'


class BackupNotFound(NotFound):
    message = 'Backup %(backup_id)s could not be found.'


class TransferNotFound(NotFound):
    message = 'Transfer %(transfer_id)s could not be found.'


class GroupNotFound(NotFound):
    message = 'Group %(group_id)s could not be found.'


class GroupSnapshotNotFound(NotFound):
    message = 'GroupSnapshot %(group_snapshot_id)s could not be found.'


class GroupTypeNotFound(NotFound):
    message = 'Group type %(group_type_id)s could not be found.'


class MessageNotFound(NotFound):
    message = 'Message %(message_id)s could not be found.'


class FeatureNotSupported(Invalid):
    """A request of a part of Cinder's API that cinder_ma does not have
    (see :mod:`cinder_ma.api.v3.unsupported`)."""

    message = 'cinder_ma does not support %(feature)s.'


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


class ServiceTooOld(CinderMAException):
    message = ('Cannot %(what)s on %(host)s: it needs manager RPC API '
               '%(version)s and [upgrade_levels] manager pins %(cap)s; '
               'upgrade every manager, then remove the pin (or set it to '
               'auto and restart).')
    code = 409


class ManagerUnavailable(CinderMAException):
    message = 'The manager for %(host)s did not answer: %(reason)s'
    code = 503


class CoordinationUnavailable(CinderMAException):
    """The coordination backend ([coordination] backend_url) could not
    start, or could not give or take a lock."""
    message = 'The coordination backend is unavailable: %(reason)s'
    code = 503


class ManagerTimeout(ManagerUnavailable):
    """An RPC call got no answer in time: what it asked may have been
    done."""


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


class InvalidConfiguration(CinderMAException):
    message = 'Invalid configuration: %(reason)s'


class QoSSpecsNotFound(NotFound):
    message = 'No such QoS spec %(specs_id)s.'


class QoSSpecsKeyNotFound(NotFound):
    message = ('QoS spec %(specs_id)s has no spec with key '
               '%(specs_key)s.')


class QoSSpecsExists(Conflict):
    message = 'QoS Specs %(specs_id)s already exists.'


class InvalidQoSSpecs(Invalid):
    message = 'Invalid qos specs: %(reason)s'


class QoSSpecsInUse(Invalid):
    message = ('QoS Specs %(specs_id)s is still associated with entities.')


class BackendFrozen(Invalid):
    message = ('Modification operations are not allowed on frozen storage '
               'backends.')


class HostNotFound(NotFound):
    message = 'Host %(host)s could not be found.'


class QuotaError(CinderMAException):
    """Over a quota: Cinder's 413 (an ``overLimit`` fault)."""

    message = 'Quota exceeded: code=%(code)s'
    code = 413


class VolumeSizeExceedsAvailableQuota(QuotaError):
    message = ('Requested volume or snapshot exceeds allowed %(name)s quota. '
               'Requested %(requested)sG, quota is %(quota)sG and '
               '%(consumed)sG has been consumed.')


class VolumeSizeExceedsLimit(QuotaError):
    message = ('Requested volume size %(size)d is larger than maximum '
               'allowed limit %(limit)d.')


class VolumeLimitExceeded(QuotaError):
    message = ("Maximum number of volumes allowed (%(allowed)d) exceeded for "
               "quota '%(name)s'.")


class SnapshotLimitExceeded(QuotaError):
    message = ("Maximum number of snapshots allowed (%(allowed)d) exceeded "
               "for quota '%(name)s'.")


class OverQuota(QuotaError):
    """A charge did not fit a limit (raised by the database layer, turned
    into one of Cinder's messages above by the quota service)."""

    message = 'Quota exceeded for resource %(resource)s.'

    def __init__(self, message=None, *, resource, limit, in_use, requested):
        # Keyword arguments only, as every class here: what oslo.messaging
        # rebuilds on the caller's side is cls(message, **kwargs).
        self.resource = resource
        self.limit = limit
        self.in_use = in_use
        self.requested = requested
        super().__init__(message, resource=resource, limit=limit,
                         in_use=in_use, requested=requested)


class NotEnoughSpace(Invalid):
    message = 'Invalid volume: %(reason)s'
