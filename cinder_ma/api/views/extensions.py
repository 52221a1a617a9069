"""Extension views: Cinder's ``GET /v3/{project_id}/extensions`` shape
(``cinder/api/extensions.py``): name, alias, description, updated and
links (always empty)."""


def extension(ext):
    return {'name': ext.name, 'alias': ext.alias,
            'description': ext.description, 'updated': ext.updated,
            'links': []}


def index(exts):
    return {'extensions': [extension(ext) for ext in exts]}


def show(ext):
    return {'extension': extension(ext)}
