"""Sphinx configuration of cinder_ma's documentation (``tox -e docs``).

The build needs nothing from the network: the default theme ships with
Sphinx, and the option and policy references are generated from the code
by oslo.config's and oslo.policy's Sphinx extensions.
"""

project = 'cinder_ma'
copyright = 'cinder_ma developers'
author = 'cinder_ma developers'

extensions = [
    'oslo_config.sphinxext',
    'oslo_policy.sphinxext',
]

root_doc = 'index'
exclude_patterns = ['_build']
html_theme = 'alabaster'
html_static_path = []
pygments_style = 'sphinx'
# Every page is reached from the table of contents of index.rst.
nitpicky = False
