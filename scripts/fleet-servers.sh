#!/usr/bin/env bash
# The servers the fleet tests start on 127.0.0.1 (cli/tests/fleet.rs, cli/tests/incident.rs,
# fleet/tests/etcd_source.rs, the migrate bench): Debian's memcached (1.6, with meta commands and
# `lru_crawler metadump hash`), redis-server and etcd-server (3.4, with its JSON gateway),
# installed only when missing. The tests start their own processes on
# free ports; a service the package starts on its default port is not used.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"
apt_install memcached redis-server etcd-server
