"""The REST API: Block Storage v3, as Cinder's clients expect it.

HTTP only lives here: the WSGI app and its middleware (:mod:`.app`,
:mod:`.auth`), the route table (:mod:`.routes`), microversions, the expose
decorator that turns results and exceptions into responses (and gates
functions by microversion), the dispatcher of ``.../action`` requests
(:mod:`.actions`), JSON schema validation, and per resource a controller
(``v3/``), schemas and views.
The rules of the service are in :mod:`cinder_ma.volume`.
"""
