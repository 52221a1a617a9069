"""Version of the installed cinder_ma package."""

import pbr.version

version_info = pbr.version.VersionInfo('cinder_ma')
