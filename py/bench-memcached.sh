#!/usr/bin/env bash
# The longer hot-key run on real servers (`make bench-memcached`): 4 memcached on 127.0.0.1,
# a Zipf(1.1) get workload routed by the plain ring, hot-key spreading and bounded loads; the
# hottest server's share of gets from each server's own stats. Arguments go to
# py/tests/memcached_load.py (--requests, --keys, --threads, --seed).
set -euo pipefail
command -v memcached >/dev/null || [ -x /usr/bin/memcached ] || NEED_MEMCACHED=1
source "$(dirname "$0")/setup-venv.sh"   # cd's to the repo root; sets VENV
if [ -n "${NEED_MEMCACHED:-}" ]; then
  apt_install memcached
fi
"$VENV/bin/python" py/tests/memcached_load.py "$@"
