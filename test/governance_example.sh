#!/usr/bin/env bash
# test/governance_example.sh — the end-to-end example of docs/governance.md
# (§16, every ```sql block after its heading), run as written: roles, an
# owner's table, register, grant, CALL as the analyst, my_requests, a
# posterior, budget, verify, the owner's ledger and audit_verify.  The
# analyst and the owner connect as themselves (\c - role).
#
#   source test/governance_example.sh; governance_example_check
#                   on the running throwaway cluster (test/run_checks.sh,
#                   `make check`; one test), in a database of its own
#   bash test/governance_example.sh
#                   alone: make, make install, a throwaway cluster,
#                   "1 passed, 0 failed" or "0 passed, 1 failed"
# Checks that every statement runs, the release is released and verifies,
# and every audit_verify check is ok.

_gex_sql() {
	awk '/^## 16\./ {on = 1; next} /^## / {on = 0} on' docs/governance.md |
		awk '/^ *```sql *$/ {on = 1; next} /^ *```/ {on = 0} on'
}

governance_example_check() {
	local db=dpb_gov_example out sql
	sql=$(_gex_sql)
	if [ -z "$sql" ]; then
		echo "governance example: FAILED no sql block under '## 16.' in docs/governance.md"
		return 1
	fi
	"$PGC_BIN/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null || return 1
	"$PGC_BIN/psql" -X -q -d "$db" -c "CREATE EXTENSION dpbayes" || return 1
	out=$("$PGC_BIN/psql" -X -d "$db" -v ON_ERROR_STOP=1 -P pager=off <<<"$sql" 2>&1)
	local rc=$?
	printf '%s\n' "$out" | sed 's/^/  /'
	if [ $rc -ne 0 ]; then
		echo "governance example: FAILED psql stopped (exit $rc)"
		return 1
	fi
	local state
	state=$("$PGC_BIN/psql" -X -At -d "$db" -c "SELECT
		(SELECT count(*) FROM dpbayes.charge WHERE status = 'released') || ' ' ||
		(SELECT count(*) FROM dpbayes.released r WHERE dpbayes.verify(r.release)) || ' ' ||
		(SELECT bool_and(ok) FROM dpbayes.audit_verify())")
	if [ "$state" != "1 1 true" ]; then
		echo "governance example: FAILED released, verified, audit ok: $state (want 1 1 true)"
		return 1
	fi
	echo "governance example: ok (one release, signed, the ledger verifies)"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -uo pipefail
	cd "$(dirname "${BASH_SOURCE[0]}")/.."
	# shellcheck source=test/pgcluster.sh
	source test/pgcluster.sh
	make -s PG_CONFIG="$PG_CONFIG" || exit 1
	dpb_make_install || exit 1
	pgc_start || exit 1
	if governance_example_check; then
		echo "1 passed, 0 failed"
	else
		echo "0 passed, 1 failed"
		exit 1
	fi
fi
