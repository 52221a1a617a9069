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

"""What a user message says: Cinder's resources, actions and details.

A user message (``/messages``, microversion 3.3) tells a user about an
asynchronous failure they had a 2xx for. It is stored as ids, never as
text: the resource (``VOLUME``), the action that was running (``001``
schedule allocate volume...) and the detail of what went wrong (``003``
no backend...). Its ``event_id`` is Cinder's
``VOLUME_<resource>_<action>_<detail>`` (``VOLUME_VOLUME_001_003``) and
the text shown, ``user_message``, is ``"<action>:<detail>"`` as Cinder
writes it. The ids and texts below are Cinder's (its
``cinder/message/message_field.py``), so that a client or a dashboard
that knows Cinder's events reads ours.

cinder_ma adds what Cinder has no event for, in a range of its own that
Cinder's ids (allocated from ``001`` upward) do not reach: the action
``901`` (fence attachment) and the detail ``901`` (the attachment's
access was revoked). docs/user/messages.rst lists them all.

The exception given to :func:`detail_id_of` only picks a detail (the
class's name, as Cinder maps them); its text never reaches the user, who
may not see the reasons administrators see.
"""

import collections

Field = collections.namedtuple('Field', ('id', 'text'))


class Resource:
    VOLUME = 'VOLUME'


class Action:
    SCHEDULE_ALLOCATE_VOLUME = Field('001', 'schedule allocate volume')
    ATTACH_VOLUME = Field('002', 'attach volume')
    COPY_VOLUME_TO_IMAGE = Field('003', 'copy volume to image')
    UPDATE_ATTACHMENT = Field('004', 'update attachment')
    COPY_IMAGE_TO_VOLUME = Field('005', 'copy image to volume')
    UNMANAGE_VOLUME = Field('006', 'unmanage volume')
    EXTEND_VOLUME = Field('007', 'extend volume')
    # cinder_ma's own.
    FENCE_ATTACHMENT = Field('901', 'fence attachment')

    ALL = (SCHEDULE_ALLOCATE_VOLUME, ATTACH_VOLUME, COPY_VOLUME_TO_IMAGE,
           UPDATE_ATTACHMENT, COPY_IMAGE_TO_VOLUME, UNMANAGE_VOLUME,
           EXTEND_VOLUME, FENCE_ATTACHMENT)


class Detail:
    UNKNOWN_ERROR = Field('001', 'An unknown error occurred.')
    DRIVER_NOT_INITIALIZED = Field(
        '002', 'Driver is not initialized at present.')
    NO_BACKEND_AVAILABLE = Field(
        '003', 'Could not find any available weighted backend.')
    FAILED_TO_UPLOAD_VOLUME = Field(
        '004', 'Failed to upload volume to image at backend.')
    VOLUME_ATTACH_MODE_INVALID = Field(
        '005', "Volume's attach mode is invalid.")
    QUOTA_EXCEED = Field('006', 'Not enough quota resource for operation.')
    NOT_ENOUGH_SPACE_FOR_IMAGE = Field(
        '007', 'Image used for creating volume exceeds available space.')
    UNMANAGE_ENC_NOT_SUPPORTED = Field(
        '008', 'Unmanaging encrypted volumes is not supported.')
    NOTIFY_COMPUTE_SERVICE_FAILED = Field(
        '009', 'Compute service failed to extend volume.')
    DRIVER_FAILED_EXTEND = Field(
        '010', 'Volume Driver failed to extend volume.')
    SIGNATURE_VERIFICATION_FAILED = Field(
        '011', 'Image signature verification failed.')
    # cinder_ma's own.
    ATTACHMENT_FENCED = Field(
        '901', "The attachment's access to the volume was revoked "
               "(fenced); it must be reconnected before it is used "
               "again.")

    ALL = (UNKNOWN_ERROR, DRIVER_NOT_INITIALIZED, NO_BACKEND_AVAILABLE,
           FAILED_TO_UPLOAD_VOLUME, VOLUME_ATTACH_MODE_INVALID,
           QUOTA_EXCEED, NOT_ENOUGH_SPACE_FOR_IMAGE,
           UNMANAGE_ENC_NOT_SUPPORTED, NOTIFY_COMPUTE_SERVICE_FAILED,
           DRIVER_FAILED_EXTEND, SIGNATURE_VERIFICATION_FAILED,
           ATTACHMENT_FENCED)

    #: The detail of an exception, by its class's name (Cinder's).
    EXCEPTIONS = {
        'DriverNotInitialized': DRIVER_NOT_INITIALIZED,
        'NoValidBackend': NO_BACKEND_AVAILABLE,
        'InvalidVolumeAttachMode': VOLUME_ATTACH_MODE_INVALID,
    }


#: The levels of a message (Cinder records ERROR).
LEVELS = ('ERROR', 'WARNING', 'INFO')

_ACTIONS = {field.id: field.text for field in Action.ALL}
_DETAILS = {field.id: field.text for field in Detail.ALL}


def detail_id_of(exception=None, detail=None):
    """The detail id of a message: the exception's if it maps to one,
    else ``detail``'s, else the unknown error's."""
    if exception is not None:
        mapped = Detail.EXCEPTIONS.get(type(exception).__name__)
        if mapped is not None:
            return mapped.id
    if detail is not None:
        return detail.id
    return Detail.UNKNOWN_ERROR.id


def event_id(resource_type, action_id, detail_id):
    """Cinder's event id: ``VOLUME_VOLUME_001_003``."""
    return 'VOLUME_%s_%s_%s' % (resource_type, action_id, detail_id)


def user_message(action_id, detail_id):
    """The text a user reads: ``"<action>:<detail>"``, as Cinder writes
    it (an unknown action is ``unknown action``, an unknown detail the
    unknown error's)."""
    return '%s:%s' % (_ACTIONS.get(action_id, 'unknown action'),
                      _DETAILS.get(detail_id, Detail.UNKNOWN_ERROR.text))
