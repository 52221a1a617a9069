"""The access list of a private volume type, in the shape of Cinder's
``cinder/api/contrib/volume_type_access.py``."""


def index(type_id, project_ids):
    return {'volume_type_access': [
        {'volume_type_id': type_id, 'project_id': project_id}
        for project_id in project_ids]}
