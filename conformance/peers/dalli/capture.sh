#!/usr/bin/env bash
# peer-kind: library (re-captured live by `make test`, see recapture-check.sh)
# Capture Dalli::Ring vectors by running Debian's ruby-dalli (no memcached needed).
# Installs the apt packages if missing, (over)writes conformance/vectors/v1/dalli-*.json.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
peers="$(dirname "$here")"
# shellcheck source=scripts/lib.sh
source "$peers/../../scripts/lib.sh"
apt_install ruby ruby-dalli
ruby -W0 "$here/capture.rb" | python3 "$peers/write_docs.py"
