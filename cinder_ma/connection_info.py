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

"""The keys cinder_ma adds to a driver's connection info, as an
attachment records it.

Every layer reads them (the views hide one, the database updates one, the
managers write both), so they live below all of them.
"""

#: The key of ``connection_info['data']`` that holds the volume's size in
#: GiB. The manager adds it to every connection it makes (drivers need
#: not) and records the new size there when the volume is extended, so
#: that a consumer holding the connection info can read the size its
#: disk should have.
SIZE_KEY = 'volume_size'

#: The key of connection info that a manager of 1.5 or later adds when
#: the connection is one attachment's own (its backend declares
#: ``per_attachment_connections``): that connection is ended with its
#: attachment, whoever else uses the host, and can be ended alone
#: (fencing). Connection info without it is the host's, shared by the
#: attachments of the volume on that host. Never shown to clients.
SCOPE_KEY = 'cinder_ma_connection_scope'
ATTACHMENT_SCOPE = 'attachment'


def is_attachment_scoped(connection_info):
    """Whether ``connection_info`` (nested, as recorded) is the
    connection of one attachment (see :data:`SCOPE_KEY`)."""
    return isinstance(connection_info, dict) and \
        connection_info.get(SCOPE_KEY) == ATTACHMENT_SCOPE
