#!/bin/bash
# Install libvirt from Debian bookworm-backports, so that libvirt-python
# (installed by tox from PyPI, pinned in upper-constraints.txt) builds
# against it and the tests can hot-plug disks on libvirt's test:///default
# driver (bookworm's own libvirt 9.0 test driver cannot; libvirt 11 can).
#
# Run as root on a fresh machine, before tox (.ci/run does). Idempotent.
#
# bookworm-backports is enabled by adding it to the Suites line of the
# machine's existing Debian sources (whatever mirror that file names):
# this script writes no mirror host name anywhere.
set -euo pipefail

SUITE=bookworm-backports
PACKAGES=(libvirt-dev libvirt0 pkg-config)

if [[ $(id -u) -ne 0 ]]; then
    echo "$0: must run as root" >&2
    exit 1
fi

if ! grep -Eq '^(VERSION_CODENAME=bookworm)$' /etc/os-release; then
    echo "$0: this script knows Debian bookworm only" >&2
    exit 1
fi

# Is the suite enabled in any sources file already (deb822 or one-line)?
backports_enabled() {
    grep -Eqs "^[[:space:]]*(Suites:.*[[:space:]]$SUITE([[:space:]]|\$)|deb[[:space:]].*[[:space:]]$SUITE[[:space:]])" \
        /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
        /etc/apt/sources.list.d/*.list
}

enable_backports() {
    local f
    # deb822: the Suites line that lists plain "bookworm" (the main
    # archive, not bookworm-security) gets bookworm-backports appended.
    for f in /etc/apt/sources.list.d/*.sources; do
        [[ -f $f ]] || continue
        if grep -Eq '^Suites:(.*[[:space:]])?bookworm([[:space:]]|$)' "$f"; then
            sed -E -i \
                "/^Suites:(.*[[:space:]])?bookworm([[:space:]]|\$)/ s/[[:space:]]*\$/ $SUITE/" \
                "$f"
            echo "enabled $SUITE in $f"
            return 0
        fi
    done
    # One-line format: copy the main archive's "deb ... bookworm ..." line
    # with the suite replaced.
    f=/etc/apt/sources.list
    if [[ -f $f ]] && grep -Eq '^deb[[:space:]].*[[:space:]]bookworm[[:space:]]' "$f"; then
        sed -E -i \
            "/^deb[[:space:]].*[[:space:]]bookworm[[:space:]]/ { p; s/[[:space:]]bookworm[[:space:]]/ $SUITE / }" \
            "$f"
        echo "enabled $SUITE in $f"
        return 0
    fi
    echo "$0: found no Debian bookworm sources to add $SUITE to" >&2
    return 1
}

if ! backports_enabled; then
    enable_backports
    backports_enabled
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -q -y --no-install-recommends -t "$SUITE" "${PACKAGES[@]}"

# libvirt-python's build needs pkg-config to find libvirt; report the
# version it will be built against.
echo "libvirt $(pkg-config --modversion libvirt) installed"
