"""Code-quality tooling run by ``tox -e pep8``.

:mod:`cinder_ma.hacking.checks` holds the local flake8 checks and
:mod:`cinder_ma.hacking.samples` the staleness check of the generated
configuration and policy samples.
"""
