#!/bin/bash
# Prepare a machine for the tests; the README's test command runs it
# first ("bash tools/test-setup.sh && ..."). Idempotent and quick when
# everything is there.
#
# 1. Installs the system packages of bindep.txt that are missing ("bindep
#    -b test"): libvirt 11 from Debian bookworm-backports through
#    tools/install-libvirt.sh, the others with apt-get. Needs root (or
#    sudo); without either it lists what is missing and goes on, and only
#    the tests needing those packages fail.
# 2. Starts the services the functional tests use (PostgreSQL, MariaDB,
#    RabbitMQ, Redis) when installed and their port on 127.0.0.1 is
#    closed. The tests expect PostgreSQL's user postgres and MariaDB's
#    root without a password, RabbitMQ's guest/guest; set
#    CINDER_MA_TEST_POSTGRESQL_URL, CINDER_MA_TEST_MYSQL_URL and
#    CINDER_MA_TEST_TRANSPORT_URL to use others (docs/contributor/
#    testing.rst). A service that is not installed is left to skip its
#    tests (or fail them under CINDER_MA_REQUIRE_SERVICES=1).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Runs a command as root: directly, with sudo, or not at all.
can_be_root() {
    [[ $(id -u) -eq 0 ]] || sudo -n true 2>/dev/null
}

as_root() {
    if [[ $(id -u) -eq 0 ]]; then
        "$@"
    else
        sudo -n "$@"
    fi
}

# 1. System packages.
python3 -c "import bindep" 2>/dev/null ||
    python3 -m pip install -q -c upper-constraints.txt bindep
missing=$(python3 -m bindep -b test || true)
if [[ -n $missing ]] || ! pkg-config --atleast-version=11 libvirt 2>/dev/null; then
    echo "test-setup: missing system packages:" $missing
    if ! can_be_root; then
        echo "test-setup: not root and no sudo: install them (and" \
             "tools/install-libvirt.sh) by hand" >&2
    else
        # libvirt 11 from bookworm-backports: its -dev, the library and
        # pkg-config come together.
        if ! pkg-config --atleast-version=11 libvirt 2>/dev/null; then
            as_root bash tools/install-libvirt.sh
        fi
        others=$(python3 -m bindep -b test || true)
        if [[ -n $others ]]; then
            export DEBIAN_FRONTEND=noninteractive
            as_root apt-get update -q
            # shellcheck disable=SC2086
            as_root apt-get install -q -y --no-install-recommends $others
        fi
    fi
fi

# 2. Services.
port_open() {
    timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

wait_for_port() {
    local name=$1 port=$2 seconds=$3
    local i
    for ((i = 0; i < seconds; i++)); do
        if port_open "$port"; then
            echo "test-setup: $name is up on port $port"
            return 0
        fi
        sleep 1
    done
    echo "test-setup: $name did not open port $port within ${seconds}s" >&2
    return 1
}

if [[ $(id -u) -ne 0 ]]; then
    echo "test-setup: not root: services are not started"
    exit 0
fi

if ! port_open 5432 && command -v pg_ctlcluster >/dev/null; then
    echo "test-setup: starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start
    wait_for_port PostgreSQL 5432 60
fi

if ! port_open 5672 && command -v rabbitmq-server >/dev/null; then
    echo "test-setup: starting RabbitMQ"
    rabbitmq-server -detached
    wait_for_port RabbitMQ 5672 60
fi

if ! port_open 3306 && [[ -x /usr/sbin/mariadbd ]]; then
    echo "test-setup: starting MariaDB"
    # Its socket and pid file live in /run/mysqld, gone after a reboot.
    if [[ ! -d /run/mysqld ]] && id mysql >/dev/null 2>&1; then
        install -d -o mysql -g mysql /run/mysqld
    fi
    start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
    wait_for_port MariaDB 3306 60
fi

if ! port_open 6379 && command -v redis-server >/dev/null; then
    echo "test-setup: starting Redis"
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 \
        --save "" --appendonly no --dir /var/lib/redis \
        --logfile /var/log/redis/ci.log
    wait_for_port Redis 6379 30
fi
