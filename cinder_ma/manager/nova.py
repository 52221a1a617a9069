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

"""A small client of Nova's compute API: server external events.

A manager tells Nova that a volume attached to Nova instances grew, as
Cinder does: one ``POST /os-server-external-events`` with a
``volume-extended`` event per instance (``server_uuid``, ``tag`` = the
volume's id), at compute microversion 2.51, which added that event. Nova's
compute service then reads the volume's size from the block storage API
and resizes the instance's disk; it does not answer back.

The client authenticates as the service user of ``[nova]`` (keystoneauth's
session, auth plugin and adapter options, :mod:`cinder_ma.conf.nova`);
every request (to Keystone and to Nova) is bounded by ``[nova] timeout``.
It sends nothing while ``[nova] auth_type`` is unset.
"""

import threading

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg
from oslo_log import log as logging

from cinder_ma.conf import nova as nova_conf

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

#: The compute microversion that added the ``volume-extended`` event.
VOLUME_EXTENDED_MICROVERSION = '2.51'
VOLUME_EXTENDED = 'volume-extended'
EVENTS_PATH = '/os-server-external-events'

#: What loading ``[nova]`` or a request raises: keystoneauth's errors
#: (no such plugin, missing options, Keystone or Nova unreachable or
#: timing out, the service user refused, no compute endpoint) and
#: oslo.config's and Python's for values it cannot use.
LOAD_ERRORS = (ks_exc.ClientException, cfg.Error, ValueError, TypeError)


class NovaAPI:
    """Nova's external events, through a keystoneauth adapter built once
    (on first use, so that a manager starts without reaching Keystone)
    and shared by the threads of the process."""

    def __init__(self, conf=None):
        self.conf = conf or CONF
        self._adapter = None
        self._lock = threading.Lock()

    @property
    def configured(self):
        """Whether ``[nova]`` names an auth plugin (``auth_type``)."""
        return bool(self.conf[nova_conf.GROUP_NAME].auth_type)

    def _get_adapter(self):
        with self._lock:
            if self._adapter is None:
                group = nova_conf.GROUP_NAME
                auth = ks_loading.load_auth_from_conf_options(self.conf,
                                                              group)
                session = ks_loading.load_session_from_conf_options(
                    self.conf, group, auth=auth)
                self._adapter = ks_loading.load_adapter_from_conf_options(
                    self.conf, group, session=session, auth=auth)
            return self._adapter

    def check(self):
        """Load ``[nova]``'s auth plugin, session and adapter (nothing is
        sent: keystoneauth reaches Keystone on the first request).

        :returns: None when ``[nova]`` is not configured or loads, else
            why it does not.
        """
        if not self.configured:
            return None
        try:
            self._get_adapter()
        except LOAD_ERRORS as exc:
            return str(exc) or type(exc).__name__
        return None

    def extend_volume(self, context, instance_uuids, volume_id):
        """Send ``volume-extended`` for ``volume_id`` to each instance.

        Never raises: what Nova refused, or could not be asked, is in the
        answer.

        :returns: ``{instance uuid: None}`` for each event Nova accepted,
            ``{instance uuid: reason}`` for the others.
        """
        instance_uuids = list(instance_uuids)
        events = [{'name': VOLUME_EXTENDED, 'server_uuid': uuid,
                   'tag': volume_id} for uuid in instance_uuids]
        try:
            response = self._get_adapter().post(
                EVENTS_PATH, json={'events': events}, raise_exc=False,
                microversion=VOLUME_EXTENDED_MICROVERSION,
                global_request_id=getattr(context, 'global_id', None))
        except LOAD_ERRORS as exc:
            # Keystone or Nova unreachable, timed out, refused the service
            # user, no compute endpoint, or [nova] misconfigured.
            reason = 'Nova could not be told: %s' % (
                str(exc) or type(exc).__name__)
            LOG.error('Could not send %s for volume %s to instances %s: %s',
                      VOLUME_EXTENDED, volume_id, ', '.join(instance_uuids),
                      reason)
            return dict.fromkeys(instance_uuids, reason)
        return _outcome(response, instance_uuids, volume_id)


def _outcome(response, instance_uuids, volume_id):
    """Each instance's outcome from Nova's answer: 200 (all accepted) or
    207 (each event has its own ``code``: 404 for an unknown server, 422
    for one on no host...); anything else (older Novas answer 404 when
    no server was found, 403 for a user without the service or admin
    role) refused them all."""
    status = response.status_code
    try:
        body = response.json()
    except ValueError:
        body = None
    answered = {}
    if status in (200, 207) and isinstance(body, dict):
        for event in body.get('events') or ():
            if isinstance(event, dict) and event.get('server_uuid'):
                answered[event['server_uuid']] = event
    outcome = {}
    for uuid in instance_uuids:
        event = answered.get(uuid)
        if event is not None and event.get('code') == 200:
            LOG.info('Nova accepted %s for volume %s on instance %s',
                     VOLUME_EXTENDED, volume_id, uuid)
            outcome[uuid] = None
            continue
        if event is not None:
            reason = 'Nova refused the %s event: code %s, status %s' % (
                VOLUME_EXTENDED, event.get('code'), event.get('status'))
        else:
            reason = 'Nova answered %s to the %s event: %s' % (
                status, VOLUME_EXTENDED, _brief(response))
        LOG.warning('Volume %s: instance %s was not told of its extend: %s',
                    volume_id, uuid, reason)
        outcome[uuid] = reason
    return outcome


def _brief(response, limit=200):
    """The start of a response's body, on one line."""
    text = ' '.join((response.text or '').split())
    return text[:limit] or response.reason or 'no body'
