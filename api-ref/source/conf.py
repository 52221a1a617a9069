"""Sphinx configuration of the Block Storage API reference of cinder_ma,
in the os-api-ref style of OpenStack's api-refs (``tox -e api-ref``)."""

extensions = [
    'os_api_ref',
    'openstackdocstheme',
]

html_theme = 'openstackdocs'
html_theme_options = {
    'sidebar_mode': 'toc',
}

# openstackdocstheme: no links to a bug tracker or a repository web page.
openstackdocs_auto_name = False
openstackdocs_use_storyboard = False
openstackdocs_bug_project = ''
openstackdocs_bug_tag = ''

project = 'cinder_ma Block Storage API Reference'
copyright = 'cinder_ma contributors'
source_suffix = '.rst'
master_doc = 'index'
pygments_style = 'native'
# The .inc files are included by index.rst, not documents of their own.
exclude_patterns = ['**/*.inc']
