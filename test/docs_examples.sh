#!/usr/bin/env bash
# test/docs_examples.sh — every ```sql block of README.md and docs/*.md, run
# as written, per file in order, each file in a fresh database of its own
# with the demo tables (test/demo_data.sql: pima, boston), with ON_ERROR_STOP.
#
# A block that is deliberately not runnable (another machine, pg_cron in
# another database, superuser-only cluster settings, the LDP CLI, a
# placeholder, an error shown on purpose, minutes of sampling) is preceded
# (as its last non-blank line before the opening fence) by
#
#   <!-- not runnable: <reason> -->
#
# and skipped.
# docs/governance.md §16 is skipped here: it is run, with its
# own checks, by test/governance_example.sh.
#
#   source test/docs_examples.sh; docs_examples_check
#                   on the running throwaway cluster (test/run_checks.sh,
#                   `make check`; one test)
#   bash test/docs_examples.sh
#                   alone: make, make install, a throwaway cluster,
#                   "1 passed, 0 failed" or "0 passed, 1 failed"

# The runnable ```sql blocks of one markdown file, in order.
_dex_sql() {
	awk -v file="$1" '
		file ~ /governance\.md$/ && /^## 16\./ {skip16 = 1}
		file ~ /governance\.md$/ && /^## / && !/^## 16\./ {skip16 = 0}
		!on && /^ *```sql *$/ {
			on = 1
			marked = (last ~ /<!-- *not runnable:/)
			next
		}
		on && /^ *```/ {on = 0; last = $0; if (!marked && !skip16) print ""; next}
		on {if (!marked && !skip16) print; next}
		/[^ \t]/ {last = $0}
	' "$1"
}

# "file: n runnable, m marked" for the report
_dex_counts() {
	local total marked
	total=$(grep -c '^ *```sql *$' "$1")
	marked=$(awk '!on && /^ *```sql *$/ {on = 1; if (last ~ /<!-- *not runnable:/) n++; next}
		on && /^ *```/ {on = 0; last = $0; next} on {next} /[^ \t]/ {last = $0} END {print n + 0}' "$1")
	echo "$total blocks, $marked marked not runnable"
}

docs_examples_check() {
	local f db sql out rc n=0 failed=0 t0=$SECONDS
	for f in README.md docs/*.md; do
		sql=$(_dex_sql "$f")
		if [ -z "${sql//[[:space:]]/}" ]; then
			grep -q '^ *```sql *$' "$f" && echo "  $f ($(_dex_counts "$f")): nothing to run here"
			continue
		fi
		n=$((n + 1))
		db=dpb_docs_$n
		PGOPTIONS="-c client_min_messages=warning" "$PGC_BIN/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null || return 1
		"$PGC_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" -f test/demo_data.sql >/dev/null || return 1
		local tf=$SECONDS
		out=$("$PGC_BIN/psql" -X -q -d "$db" -v ON_ERROR_STOP=1 -P pager=off <<<"$sql" 2>&1 >/dev/null)
		rc=$?
		if [ $rc -ne 0 ]; then
			printf '%s\n' "$out" | sed 's/^/  /'
			echo "  $f ($(_dex_counts "$f")): FAILED psql stopped (exit $rc)"
			failed=1
		else
			echo "  $f ($(_dex_counts "$f")): ok ($((SECONDS - tf)) s)"
		fi
		"$PGC_BIN/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
	done
	if [ $failed -ne 0 ]; then
		echo "docs examples: FAILED ($((SECONDS - t0)) s)"
		return 1
	fi
	echo "docs examples: ok ($n files, $((SECONDS - t0)) s)"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -uo pipefail
	cd "$(dirname "${BASH_SOURCE[0]}")/.."
	# shellcheck source=test/pgcluster.sh
	source test/pgcluster.sh
	make -s PG_CONFIG="$PG_CONFIG" || exit 1
	dpb_make_install || exit 1
	pgc_start || exit 1
	if docs_examples_check; then
		echo "1 passed, 0 failed"
	else
		echo "0 passed, 1 failed"
		exit 1
	fi
fi
