#!/usr/bin/env bash
# test/readme_examples.sh — run every ```sql block of README.md, in order and
# as written, in the playground (test/playground.sh): a fresh throwaway cluster
# with the demo tables, removed afterwards.  Stops at the first error; the
# exit status is psql's.  Not part of `make check` (about a minute).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
sql=$(awk '/^ *```sql *$/ {on = 1; next} /^ *```/ {on = 0} on' README.md)
[ -n "$sql" ] || { echo "readme_examples.sh: no sql blocks in README.md" >&2; exit 1; }
bash test/playground.sh -X -v ON_ERROR_STOP=1 -P pager=off -e <<<"$sql"
