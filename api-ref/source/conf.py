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
