"""WSGI entry points for uWSGI, gunicorn or mod_wsgi."""
