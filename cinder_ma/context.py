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

"""Request context: who is calling, and the database transaction scope."""

from oslo_context import context
from oslo_db.sqlalchemy import enginefacade


@enginefacade.transaction_context_provider
class RequestContext(context.RequestContext):
    """Security context and request information.

    ``service_roles`` carries the roles of a service token (keystone) or of
    ``X-Service-Roles`` (noauth); it is how the API knows that a call comes
    from a service such as a compute service.
    """

    def __init__(self, service_roles=None, **kwargs):
        super().__init__(**kwargs)
        self.service_roles = list(service_roles or [])

    def to_policy_values(self):
        values = super().to_policy_values()
        values['service_roles'] = self.service_roles
        return values

    def to_dict(self):
        values = super().to_dict()
        values['service_roles'] = self.service_roles
        return values

    @classmethod
    def from_dict(cls, values, **kwargs):
        kwargs.setdefault('service_roles', values.get('service_roles'))
        return super().from_dict(values, **kwargs)

    def elevated(self):
        ctx = self.__class__.from_dict(self.to_dict())
        ctx.is_admin = True
        if 'admin' not in ctx.roles:
            ctx.roles = list(ctx.roles) + ['admin']
        return ctx


def get_admin_context():
    """Context of the service itself: periodic tasks, manage commands."""
    return RequestContext(user_id=None, project_id=None, is_admin=True,
                          roles=['admin'], overwrite=False)
