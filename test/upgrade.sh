#!/usr/bin/env bash
# test/upgrade.sh — the upgrade test (docs/upgrades.md), after TimescaleDB's
# sql/updates: a database made at an old version, populated like a real
# deployment and upgraded with ALTER EXTENSION dpbayes UPDATE, must keep its
# data and end in exactly the schema of a fresh CREATE EXTENSION dpbayes.
#
#   source test/upgrade.sh; upgrade_check
#                   on the running throwaway cluster (test/run_checks.sh,
#                   `make check`; counted as one test)
#   bash test/upgrade.sh
#                   alone: make, make install, a throwaway cluster
#                   (test/pgcluster.sh: PG_CONFIG, DPBAYES_PGBIN, ...),
#                   upgrade_check, "1 passed, 0 failed" or "0 passed, 1 failed"
#
# The old versions are those of the committed install scripts
# dpbayes--<version>.sql other than EXTVERSION (dpbayes.mk), whose script
# make generates from src/sql/*.sql.  For each old version V:
#   1. database dpb_upg_<V>: CREATE EXTENSION dpbayes VERSION 'V', then
#      test/upgrade/schema.sql (roles, governance_setup, user tables) and
#      test/upgrade/populate.sql (datasets, grants, governed releases:
#      released, duplicate, refused for budget, failed, group keys, a
#      privacy unit, a key rotation; ordinary releases of every kind kept in
#      a user table);
#   2. test/upgrade/snapshot.sql before and after ALTER EXTENSION dpbayes
#      UPDATE (ledger rows, budgets, verify verdicts, stored releases,
#      my_requests; owners, privileges, private keys), test/upgrade/compare.sql:
#      every row and every object's privileges kept (a column or an object
#      the upgrade adds is not a difference: step 4 checks those);
#   3. test/upgrade/after.sql: old signed releases verify, stored releases
#      read, a posterior on one, a new governed release, the budget refuses;
#   4. schema: pg_dump --schema-only --binary-upgrade (which, unlike a plain
#      dump, writes out every member of the extension: definitions, comments,
#      owners, privileges and initial privileges), OIDs and xids normalised,
#      plus the extension's members, configuration tables and version from
#      the catalog, against the same of a fresh database (CREATE EXTENSION
#      dpbayes, then schema.sql); and once more without any set-up (a bare
#      CREATE EXTENSION VERSION 'V' + UPDATE against a bare CREATE
#      EXTENSION).  Any difference fails, with the diff;
#   5. pg_dump of the upgraded database restored into another one
#      (ledger_dump_restore of test/cron_job.sh): the rows of snapshot.sql
#      the same there.
# Prints "upgrade: ok" or "upgrade: FAILED <what>"; returns 0 / 1.

_upg_psql() { "$PGC_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 "$@"; }

UPG_SQL=test/upgrade

_upg_current_version() { sed -n 's/^EXTVERSION = //p' dpbayes.mk; }

# the versions of the committed install scripts other than the current one
_upg_old_versions() {
	local cur f v
	cur=$(_upg_current_version)
	for f in dpbayes--*.sql; do
		v=${f#dpbayes--}
		v=${v%.sql}
		case $v in *--*) continue ;; esac
		[ "$v" = "$cur" ] || echo "$v"
	done | sort -V
}

# _upg_newdb DB: a new, empty database (dropped first if a run left it)
_upg_newdb() {
	_upg_psql -d postgres -c "SET client_min_messages = warning" \
		-c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1"
}

# _upg_schema DB OUT: the extension's schema, comparable across databases
_upg_schema() {
	local db=$1 out=$2
	"$PGC_BIN/pg_dump" --schema-only --binary-upgrade -d "$db" >"$out.raw" || return 1
	# OIDs, xids, LSNs and the dump's random \restrict key differ between
	# any two databases: drop the lines that only carry them, mask the rest
	# (and the value of the ledger's sequence audit_id_seq: data)
	sed -E \
		-e '/^SELECT pg_catalog\.binary_upgrade_set_next_/d' \
		-e '/^-- For binary upgrade, must preserve /d' \
		-e '/^\\(un)?restrict /d' \
		-e "s/^(SELECT pg_catalog\.binary_upgrade_create_empty_extension\('[^']*', '[^']*', [a-z]+, '[^']*', )'\{[0-9,]*\}'/\1'{<config table oids>}'/" \
		-e "s/^SET relfrozenxid = '[0-9]+', relminmxid = '[0-9]+'$/SET relfrozenxid = <xid>, relminmxid = <mxid>/" \
		-e "s/^WHERE oid = '[0-9]+';$/WHERE oid = <oid>;/" \
		-e "s/^(SELECT pg_catalog\.setval\('[^']*', )[0-9]+, (true|false)\);$/\1<value>);/" \
		"$out.raw" >"$out" || return 1
	_upg_psql -d "$db" >>"$out" <<'SQL' || return 1
SELECT '-- catalog: extension', extname, extversion, extrelocatable, extnamespace::regnamespace
FROM pg_extension WHERE extname = 'dpbayes';
SELECT '-- catalog: configuration table', c::regclass::text, cond
FROM pg_extension e, unnest(e.extconfig, e.extcondition) AS u(c, cond)
WHERE e.extname = 'dpbayes' ORDER BY 2;
SELECT '-- catalog: member', pg_describe_object(d.classid, d.objid, d.objsubid)
FROM pg_depend d JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
WHERE e.extname = 'dpbayes' AND d.deptype = 'e' ORDER BY 2;
SQL
}

# _upg_same WHAT A B: fail with the diff when the two files differ
_upg_same() {
	local n
	if cmp -s "$2" "$3"; then
		return 0
	fi
	n=$(diff -u "$2" "$3" | wc -l)
	echo "upgrade: FAILED $1 (diff -u $2 $3: $n lines, first 150):"
	diff -u "$2" "$3" | head -n 150
	return 1
}

# _upg_from V: steps 1-5 for the old version V (fresh dumps already made)
_upg_from() {
	local v=$1 cur db bare work=$PGC_DIR/upgrade ok=0 got
	cur=$(_upg_current_version)
	db=dpb_upg_${v//[^0-9A-Za-z]/_}
	bare=${db}_bare
	echo "upgrade: from $v to $cur (database $db)"

	# 1. the old version, populated
	if ! _upg_newdb "$db" >/dev/null ||
		! _upg_psql -d "$db" -c "CREATE EXTENSION dpbayes VERSION '$v'" ||
		! _upg_psql -d "$db" -f $UPG_SQL/schema.sql >"$work/$v.setup.log" 2>&1 ||
		! _upg_psql -d "$db" -f $UPG_SQL/populate.sql >>"$work/$v.setup.log" 2>&1; then
		echo "upgrade: FAILED the set-up at $v ($work/$v.setup.log):"
		tail -n 30 "$work/$v.setup.log"
		return 1
	fi
	got=$(_upg_psql -d "$db" -c "SELECT (SELECT count(*) FROM dpbayes.charge) || ' charges, ' ||
		(SELECT count(*) FROM dpbayes.released) || ' releases, ' ||
		(SELECT count(*) FROM dpbayes.audit) || ' audit rows, ' ||
		(SELECT count(*) FROM dpbayes.signing_key) || ' keys, ' ||
		(SELECT count(*) FROM public.stored_release) || ' stored releases'")
	echo "upgrade: populated at $v: $got"

	# 2. the rows and the privileges survive the upgrade
	_upg_psql -d "$db" -v which=before -f $UPG_SQL/snapshot.sql || return 1
	if ! _upg_psql -d "$db" -c "ALTER EXTENSION dpbayes UPDATE"; then
		echo "upgrade: FAILED ALTER EXTENSION dpbayes UPDATE from $v"
		return 1
	fi
	got=$(_upg_psql -d "$db" -c "SELECT extversion FROM pg_extension WHERE extname = 'dpbayes'")
	if [ "$got" != "$cur" ]; then
		echo "upgrade: FAILED after ALTER EXTENSION dpbayes UPDATE the version is $got, not $cur"
		return 1
	fi
	# what docs/upgrades.md tells an administrator to run after the update
	# (test/upgrade/post_update.sql: governance_setup again)
	if ! _upg_psql -d "$db" -f $UPG_SQL/post_update.sql; then
		echo "upgrade: FAILED the post-update step (test/upgrade/post_update.sql) from $v"
		return 1
	fi
	_upg_psql -d "$db" -v which=after -f $UPG_SQL/snapshot.sql -f $UPG_SQL/compare.sql >"$work/$v.kept" || return 1
	sed -n 's/^note: /upgrade: note: /p' "$work/$v.kept"
	if grep -q '^FAILED' "$work/$v.kept"; then
		echo "upgrade: FAILED the upgrade from $v changed what the deployment had:"
		grep -v '^note: ' "$work/$v.kept" | head -n 60
		ok=1
	else
		echo "upgrade: ok the ledger, budgets, stored releases, owners, privileges and keys are kept ($(_upg_psql -d "$db" -c \
			"SELECT (SELECT count(*) FROM upg_check.rows_before) || ' rows, ' || (SELECT count(*) FROM upg_check.privileges_before) || ' objects'") compared)"
	fi
	_upg_psql -d "$db" -c "SET client_min_messages = warning" -c "DROP SCHEMA upg_check CASCADE" || return 1

	# 3. the upgraded database works
	if _upg_psql -d "$db" -f $UPG_SQL/after.sql >"$work/$v.afterchecks" 2>&1; then
		grep '^ok ' "$work/$v.afterchecks" | sed 's/^/upgrade: /'
	else
		echo "upgrade: FAILED the checks after the upgrade from $v ($work/$v.afterchecks):"
		grep -v '^ok ' "$work/$v.afterchecks" | tail -n 20
		ok=1
	fi

	# 4. the same schema as a fresh database
	if _upg_schema "$db" "$work/$v.schema" &&
		_upg_same "the schema upgraded from $v (with set-up and data) differs from a fresh $cur (-: upgraded, +: fresh)" \
			"$work/$v.schema" "$work/fresh.schema"; then
		echo "upgrade: ok schema equals a fresh $cur, with set-up and data ($(wc -l <"$work/fresh.schema") lines compared)"
	else
		ok=1
	fi
	if _upg_newdb "$bare" >/dev/null &&
		_upg_psql -d "$bare" -c "CREATE EXTENSION dpbayes VERSION '$v'" -c "ALTER EXTENSION dpbayes UPDATE" &&
		_upg_schema "$bare" "$work/$v.bare.schema" &&
		_upg_same "the bare schema upgraded from $v differs from a bare fresh $cur (-: upgraded, +: fresh)" \
			"$work/$v.bare.schema" "$work/fresh_bare.schema"; then
		echo "upgrade: ok schema equals a fresh $cur, bare ($(wc -l <"$work/fresh_bare.schema") lines compared)"
	else
		ok=1
	fi

	# 4b. (from 0.1.0) a CHECK constraint on 0.1.0's ldp_check(report, jsonb),
	# as docs/ldp.md recommended, stops the update with a clear error naming
	# it (0.2.0 takes protocols as text: issue 24, item 5); dropped before
	# and redefined after, the update goes through
	if [ "$v" = 0.1.0 ]; then
		local dep=${db}_ldpcheck
		local rr='{"mechanism":"rr","epsilon":1}'
		if _upg_newdb "$dep" >/dev/null &&
			_upg_psql -d "$dep" -c "CREATE EXTENSION dpbayes VERSION '$v'" \
				-c "CREATE TABLE survey (protocol_id text, z float8[] CHECK (dpbayes.ldp_check(z, '$rr'::jsonb)))" \
				-c "INSERT INTO survey VALUES ('x', '{1}')" &&
			! _upg_psql -d "$dep" -c "ALTER EXTENSION dpbayes UPDATE" 2>"$work/$v.ldpcheck.err" &&
			grep -q 'ERROR:  dpbayes 0.2.0 replaces local-DP functions that objects of this database use' "$work/$v.ldpcheck.err" &&
			grep -q 'constraint survey_z_check on table public.survey' "$work/$v.ldpcheck.err" &&
			[ "$(_upg_psql -d "$dep" -c "SELECT extversion FROM pg_extension WHERE extname = 'dpbayes'")" = "$v" ] &&
			_upg_psql -d "$dep" -c "ALTER TABLE survey DROP CONSTRAINT survey_z_check" \
				-c "ALTER EXTENSION dpbayes UPDATE" \
				-c "ALTER TABLE survey ADD CHECK (dpbayes.ldp_check(z, '$rr'))"; then
			echo "upgrade: ok a CHECK constraint on $v's ldp_check(report, jsonb) stops the update with a clear error; redefined, it updates"
		else
			echo "upgrade: FAILED a CHECK constraint on $v's ldp_check(report, jsonb) and the update ($work/$v.ldpcheck.err):"
			cat "$work/$v.ldpcheck.err"
			ok=1
		fi
	fi

	# 5. pg_dump of the upgraded database restores, with the same rows
	local restored=${db}_restored
	_upg_psql -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $restored"
	local rows="SELECT kind, key, j FROM upg_check.rows_dump ORDER BY kind, key"
	if ledger_dump_restore "$db" "$restored" public.patients "" &&
		_upg_psql -d "$db" -v which=dump -f $UPG_SQL/snapshot.sql -c "$rows" >"$work/$v.rows" &&
		_upg_psql -d "$restored" -v which=dump -f $UPG_SQL/snapshot.sql -c "$rows" >"$work/$v.restored.rows" &&
		_upg_same "the rows restored from pg_dump of the database upgraded from $v differ (-: upgraded, +: restored)" \
			"$work/$v.rows" "$work/$v.restored.rows"; then
		echo "upgrade: ok pg_dump of the upgraded database restores with the same rows ($(wc -l <"$work/$v.rows") rows)"
	else
		ok=1
	fi
	return $ok
}

upgrade_check() {
	local t0 cur ctl old v failed=0 work=$PGC_DIR/upgrade
	t0=$(date +%s)
	mkdir -p "$work"
	cur=$(_upg_current_version)
	ctl=$(sed -n "s/^default_version = '\(.*\)'$/\1/p" dpbayes.control)
	if [ "$ctl" != "$cur" ]; then
		echo "upgrade: FAILED dpbayes.control's default_version '$ctl' is not EXTVERSION $cur of dpbayes.mk"
		return 1
	fi
	old=$(_upg_old_versions)
	if [ -z "$old" ]; then
		echo "upgrade: FAILED no released install script dpbayes--<version>.sql besides $cur"
		return 1
	fi
	# the fresh databases at the current version: bare, and set up
	if ! _upg_newdb dpb_upg_fresh_bare >/dev/null ||
		! _upg_psql -d dpb_upg_fresh_bare -c "CREATE EXTENSION dpbayes" ||
		! _upg_schema dpb_upg_fresh_bare "$work/fresh_bare.schema" ||
		! _upg_newdb dpb_upg_fresh >/dev/null ||
		! _upg_psql -d dpb_upg_fresh -c "CREATE EXTENSION dpbayes" ||
		! _upg_psql -d dpb_upg_fresh -f $UPG_SQL/schema.sql >"$work/fresh.setup.log" 2>&1 ||
		! _upg_schema dpb_upg_fresh "$work/fresh.schema"; then
		echo "upgrade: FAILED a fresh database at $cur could not be made ($work):"
		tail -n 20 "$work/fresh.setup.log" 2>/dev/null
		return 1
	fi
	for v in $old; do
		_upg_from "$v" || failed=1
	done
	if [ "$failed" -ne 0 ]; then
		echo "upgrade: FAILED (see above; files in $work)"
		return 1
	fi
	echo "upgrade: ok (from $(paste -sd, <<<"$old"), $(($(date +%s) - t0)) s)"
}

# ---- alone: build, install, a throwaway cluster ----
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	cd "$(dirname "${BASH_SOURCE[0]}")/.."
	# shellcheck source=test/pgcluster.sh
	source test/pgcluster.sh
	# shellcheck source=test/cron_job.sh
	source test/cron_job.sh
	make -s PG_CONFIG="$PG_CONFIG"
	dpb_make_install
	pgc_start
	if upgrade_check; then
		echo "1 passed, 0 failed"
	else
		echo "0 passed, 1 failed"
		exit 1
	fi
fi
