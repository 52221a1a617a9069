"""Extensions: ``GET /v3/{project_id}/extensions[/{alias}]``, as Cinder
lists its own. cinder_ma lists its additions to Cinder's API
(:mod:`cinder_ma.api.extensions`); any authenticated caller may read
them."""

from cinder_ma.api import expose
from cinder_ma.api import extensions
from cinder_ma.api.views import extensions as views
from cinder_ma import exception


class ExtensionNotFound(exception.NotFound):
    message = 'Extension %(alias)s could not be found.'


@expose.expose()
def index(req, project_id):
    return views.index(extensions.EXTENSIONS)


@expose.expose()
def show(req, project_id, alias):
    ext = extensions.get(alias)
    if ext is None:
        raise ExtensionNotFound(alias=alias)
    return views.show(ext)
