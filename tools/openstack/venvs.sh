#!/bin/bash
# Make (or bring up to date) the virtualenvs of the OpenStack services the
# gate runs beside cinder_ma (tox -e openstack runs this first):
#   DIR/nova     Nova 34 and Placement 16, PyMySQL, gunicorn
#   DIR/horizon  Horizon 27, and cinder_ma's dashboard (cinder_ma_dashboard
#                from this tree, editable, without cinder_ma's requirements:
#                the plugin needs Horizon only; docs/user/dashboard.rst)
# Each in a virtualenv of its own, so that their requirements never meet
# cinder_ma's; all pinned by upper-constraints.txt. Quick when up to date.
#
# Usage: bash tools/openstack/venvs.sh DIR
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
dir=${1:?usage: $0 DIR}
constraints=$PWD/upper-constraints.txt

make_venv() {
    local venv=$1
    shift
    [[ -x $venv/bin/python ]] || python3 -m venv "$venv"
    # --no-compile: the services compile what they import, once (as
    # tox.ini's environments).
    "$venv/bin/python" -m pip install -q --no-compile -c "$constraints" "$@"
}

# Both at once: a pip works on one CPU (unpacking, installing), so two use
# two; they share nothing.
make_venv "$dir/nova" nova openstack-placement PyMySQL gunicorn &
nova=$!
{
    make_venv "$dir/horizon" horizon
    "$dir/horizon/bin/python" -m pip install -q --no-deps -e "$PWD"
} &
horizon=$!
status=0
wait "$nova" || status=$?
wait "$horizon" || status=$?
if ((status)); then
    echo "openstack venvs: pip failed (exit status $status)" >&2
    exit "$status"
fi
echo "openstack venvs: $dir/nova, $dir/horizon"
