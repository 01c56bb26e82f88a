#!/usr/bin/env bash
# ctest's fleet_local_cluster: tests/fleet/fleet_test.py under the first python3 with Dask's
# distributed (Debian's python3-distributed, which scripts/setup installs, is /usr/bin/python3's);
# skipped (77) where there is none.
set -uo pipefail
for py in "${KINETOSCOPE_PYTHON:-}" python3 /usr/bin/python3; do
  [[ -n "$py" ]] || continue
  if "$py" -c 'import distributed' >/dev/null 2>&1; then
    exec "$py" "$(dirname "$0")/fleet_test.py" "$@"
  fi
done
echo "skipped: no python3 with Dask's distributed (scripts/setup installs Debian's python3-distributed)"
exit 77
