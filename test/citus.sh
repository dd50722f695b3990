#!/usr/bin/env bash
# test/citus.sh — dpbayes on a real Citus cluster (issue 27,
# docs/scale-out.md): a coordinator and two workers on this machine, each
# an ordinary throwaway PostgreSQL cluster with shared_preload_libraries =
# 'citus', on private Unix sockets, stopped and removed at the end.
#
#   source test/citus.sh; citus_check
#                   (test/run_checks.sh, `make check`); sets CITUS_PASS,
#                   CITUS_FAIL; CITUS_SKIPPED=<reason> when Citus is not
#                   installed and cannot be built here
#   bash test/citus.sh
#                   alone: make, make install, Citus if missing, the
#                   checks, "N passed, N failed"
#
# Citus: Debian does not package it.  When $(pg_config --pkglibdir)/citus.so
# is missing, citus_ensure builds Citus 12.1.12 (the newest line that
# supports PostgreSQL 15) from its source tarball (sha256-checked) and
# installs it into the PostgreSQL of PG_CONFIG: as root directly, after
# apt-get install of the build dependencies (libkrb5-dev liblz4-dev
# libzstd-dev; postgresql-server-dev-15 comes with test/deps.sh), otherwise
# through sudo -n.  The installed citus.so is the cache: later runs do not
# build again (the build took 59 to 76 s on the shared 2-core machine; the
# checks about 10 s).
#
# The checks (each one line "citus: ok ..." or "citus: FAILED ..."):
#   extension    dpbayes made at 0.1.0 and updated on the coordinator: 0.2.0,
#                with release_state, on both workers (Citus propagates both)
#   pushdown     EXPLAIN VERBOSE of a release over a table distributed in 32
#                shards shows worker_partial_agg on every shard and
#                coord_combine_agg on the coordinator (the plan is printed)
#   identical    releases over the distributed table equal, bit for bit, the
#                releases of the same rows in an ordinary table of the
#                coordinator, under the same test seed: logistic, linear
#                (replace, Laplace, x_moments), Poisson, a GROUP BY of a
#                column that is not the distribution column, the column form
#                (whose rows Citus gathers), ldp_release
#   empty        a release of a distributed table without rows: 0A000
#   posterior    the posterior of the distributed release runs, and equals
#                the single-server one (same release, same seed)
#   governed     CALL dpbayes.release on a distributed dataset: released,
#                signed, pushed down (worker_partial_agg in the commands the
#                coordinator sent), its posterior; with group keys: pushed
#                down, one release per key (a key without rows too), counts
#                right; with a privacy unit (as the distribution column and
#                not), the rows are gathered on the coordinator and the unit
#                cap holds
#   betad        a betaD draw gathers the rows on the coordinator: refused
#                past work_mem with the distributed table's message (54000),
#                made within it
#   privacy      a role that cannot read the table cannot get a partial state
#                of it (worker_partial_agg, the aggregate itself)
#
# Environment:
#   DPBAYES_CITUS_TARBALL  the Citus source tarball (default: the first of
#                          ../shared/vendor/citus-12.1.12.tar.gz (next to the
#                          repository), /work/shared/vendor/..., vendor/...)
#   DPBAYES_CITUS_BUILD_DIR  where to build (default: a mktemp -d, removed)
#   DPBAYES_CITUS_PORT     port of the coordinator (default 54360; the
#                          workers use the next two)
#   DPBAYES_CITUS_ROWS     rows of the test table (default 20000)
#   DPBAYES_CITUS_CONF     more postgresql.conf lines for every node
#                          (bench/citus_release.sh: shared_buffers)
#   PG_CONFIG, DPBAYES_PGBIN, DPBAYES_PGUSER, DPBAYES_KEEP_TMP: see
#                          test/pgcluster.sh

CITUS_VERSION=12.1.12
CITUS_SHA256=75605028ad8b9b08581a885891b95f8cc9ee24c57717599df4f7b921c1e65d15
CITUS_DEPS=(libkrb5-dev liblz4-dev libzstd-dev)

CITUS_DIR=""     # the cluster's mktemp -d
CITUS_SOCK=""
CITUS_PORT0=""
CITUS_PASS=0
CITUS_FAIL=0
CITUS_SKIPPED=""

_cit_say() { printf 'citus: %s\n' "$*"; }

_cit_tarball() {
	local f root
	root=$(pwd)
	for f in "${DPBAYES_CITUS_TARBALL:-}" "$root/../shared/vendor/citus-$CITUS_VERSION.tar.gz" \
		"/work/shared/vendor/citus-$CITUS_VERSION.tar.gz" "$root/vendor/citus-$CITUS_VERSION.tar.gz"; do
		[ -n "$f" ] && [ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

citus_installed() {
	[ -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ] &&
		[ -f "$("$PG_CONFIG" --sharedir)/extension/citus.control" ]
}

# Builds and installs Citus when it is missing; returns 1 with CITUS_SKIPPED
# set when it cannot (no tarball, no root or sudo, a failed build).
citus_ensure() {
	local tarball sum bdir own=0 t0 sudo=() missing=() p
	if citus_installed; then
		_cit_say "Citus is installed ($("$PG_CONFIG" --pkglibdir)/citus.so)"
		return 0
	fi
	if ! tarball=$(_cit_tarball); then
		CITUS_SKIPPED="Citus is not installed and its source tarball citus-$CITUS_VERSION.tar.gz was not found (set DPBAYES_CITUS_TARBALL)"
		return 1
	fi
	if command -v sha256sum >/dev/null 2>&1; then
		sum=$(sha256sum "$tarball" | awk '{print $1}')
		if [ "$sum" != "$CITUS_SHA256" ]; then
			CITUS_SKIPPED="$tarball has sha256 $sum, not that of Citus $CITUS_VERSION ($CITUS_SHA256)"
			return 1
		fi
	fi
	if [ "$(id -u)" -ne 0 ]; then
		if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
			sudo=(sudo -n)
		else
			CITUS_SKIPPED="Citus is not installed, and installing it needs root or sudo -n (run this as root once: bash test/citus.sh)"
			return 1
		fi
	fi
	for p in "${CITUS_DEPS[@]}"; do
		dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || missing+=("$p")
	done
	if [ "${#missing[@]}" -ne 0 ]; then
		_cit_say "installing the build dependencies of Citus: ${missing[*]}"
		if ! { "${sudo[@]}" apt-get update -qq && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >/dev/null; then
			CITUS_SKIPPED="apt-get could not install ${missing[*]}"
			return 1
		fi
	fi
	bdir=${DPBAYES_CITUS_BUILD_DIR:-}
	if [ -z "$bdir" ]; then
		bdir=$(mktemp -d "${TMPDIR:-/tmp}/dpbayes-citus-build.XXXXXX") || return 1
		own=1
	fi
	t0=$(date +%s)
	_cit_say "building Citus $CITUS_VERSION from $tarball in $bdir (make -j2; a few minutes)"
	if ! (cd "$bdir" && tar xzf "$tarball" && cd "citus-$CITUS_VERSION" &&
		./configure --without-libcurl PG_CONFIG="$PG_CONFIG" >"$bdir/configure.log" 2>&1 &&
		make -j2 >"$bdir/make.log" 2>&1 &&
		"${sudo[@]}" make install >"$bdir/install.log" 2>&1); then
		_cit_say "the Citus build failed; the end of its logs:"
		tail -n 20 "$bdir"/configure.log "$bdir"/make.log "$bdir"/install.log 2>/dev/null
		CITUS_SKIPPED="the Citus build failed (logs in $bdir)"
		return 1
	fi
	_cit_say "Citus $CITUS_VERSION built and installed in $(($(date +%s) - t0)) s"
	[ "$own" = 1 ] && rm -rf "$bdir"
	citus_installed
}

_cit_psql() { # node args...
	local n=$1
	shift
	"$PGC_BIN/psql" -X -q -h "$CITUS_SOCK" -p $((CITUS_PORT0 + n)) -U "$PGC_USER" -d postgres "$@"
}

# Three throwaway clusters (a coordinator, two workers) in one mktemp -d,
# on private sockets; the coordinator knows the workers.
citus_start() {
	local n base=${TMPDIR:-/tmp}
	CITUS_PORT0=${DPBAYES_CITUS_PORT:-54360}
	PGC_BIN=${DPBAYES_PGBIN:-$("$PG_CONFIG" --bindir)}
	_pgc_pick_user || return 1
	CITUS_DIR=$(mktemp -d "$base/dpbayes-citus.XXXXXX") || return 1
	if _pgc_is_root; then
		chown "$PGC_USER": "$CITUS_DIR" || return 1
		if ! runuser -u "$PGC_USER" -- test -w "$CITUS_DIR" 2>/dev/null; then
			rm -rf "$CITUS_DIR"
			CITUS_DIR=$(mktemp -d /tmp/dpbayes-citus.XXXXXX) && chown "$PGC_USER": "$CITUS_DIR" || return 1
		fi
	fi
	chmod 700 "$CITUS_DIR"
	CITUS_SOCK=$CITUS_DIR/sock
	_cit_as_user mkdir -m 700 "$CITUS_SOCK" || return 1
	for n in 0 1 2; do
		if ! _cit_as_user "$PGC_BIN/initdb" -D "$CITUS_DIR/n$n" -U "$PGC_USER" --auth=trust \
			--no-locale --encoding=UTF8 --no-sync --no-instructions >"$CITUS_DIR/initdb$n.log" 2>&1; then
			cat "$CITUS_DIR/initdb$n.log"
			return 1
		fi
		cat >>"$CITUS_DIR/n$n/postgresql.conf" <<EOF

# ---- throwaway Citus node $n (test/citus.sh) ----
listen_addresses = ''
port = $((CITUS_PORT0 + n))
unix_socket_directories = '$CITUS_SOCK'
unix_socket_permissions = 0700
shared_preload_libraries = 'citus'
max_connections = 80
shared_buffers = 64MB
fsync = off
synchronous_commit = off
full_page_writes = off
log_line_prefix = '%m [%p] %q%u@%d '
${DPBAYES_CITUS_CONF:-}
EOF
		if ! _cit_as_user "$PGC_BIN/pg_ctl" -D "$CITUS_DIR/n$n" -l "$CITUS_DIR/n$n.log" -w -t 60 \
			start >"$CITUS_DIR/pg_ctl$n.log" 2>&1; then
			cat "$CITUS_DIR/pg_ctl$n.log" "$CITUS_DIR/n$n.log"
			return 1
		fi
		_cit_psql $n -c "SET client_min_messages = warning" -c "CREATE EXTENSION citus" || return 1
	done
	_cit_psql 0 -At \
		-c "SELECT citus_set_coordinator_host('$CITUS_SOCK', $CITUS_PORT0)" \
		-c "SELECT citus_add_node('$CITUS_SOCK', $((CITUS_PORT0 + 1)))" \
		-c "SELECT citus_add_node('$CITUS_SOCK', $((CITUS_PORT0 + 2)))" >/dev/null || return 1
	_cit_say "a coordinator and two workers running ($CITUS_SOCK, ports $CITUS_PORT0-$((CITUS_PORT0 + 2)))"
}

_cit_as_user() {
	if _pgc_is_root; then
		(cd "$CITUS_DIR" && runuser -u "$PGC_USER" -- "$@")
	else
		(cd "$CITUS_DIR" && "$@")
	fi
}

citus_stop() {
	local n dir=$CITUS_DIR
	[ -n "$dir" ] || return 0
	for n in 2 1 0; do
		[ -f "$dir/n$n/postmaster.pid" ] || continue
		_cit_as_user "$PGC_BIN/pg_ctl" -D "$dir/n$n" -m fast -w -t 30 stop >/dev/null 2>&1 ||
			_cit_as_user "$PGC_BIN/pg_ctl" -D "$dir/n$n" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
	done
	CITUS_DIR=""
	if [ "${DPBAYES_KEEP_TMP:-0}" = 1 ]; then
		_cit_say "kept $dir (DPBAYES_KEEP_TMP=1)"
	else
		rm -rf "$dir"
	fi
}

_cit_result() { # ok|FAILED text
	if [ "$1" = ok ]; then
		CITUS_PASS=$((CITUS_PASS + 1))
	else
		CITUS_FAIL=$((CITUS_FAIL + 1))
	fi
	_cit_say "$1 ${*:2}"
}

# "ok <what>" / "FAILED <what>" lines of a psql output into the counts
_cit_collect() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*) _cit_result ok "${line#ok }" ;;
		"FAILED "*) _cit_result FAILED "${line#FAILED }" ;;
		esac
	done <<<"$1"
}

citus_checks() {
	local rows=${DPBAYES_CITUS_ROWS:-20000} out plan
	local S=test/citus

	# the data: the same rows distributed in 32 shards and in an ordinary
	# table of the coordinator (the single server)
	if ! out=$(_cit_psql 0 -v ON_ERROR_STOP=1 -v rows="$rows" -f $S/setup.sql 2>&1); then
		printf '%s\n' "$out"
		_cit_result FAILED "the test tables could not be made"
		return 1
	fi

	# pushdown: the plan
	plan=$(_cit_psql 0 -At -f $S/plan.sql 2>&1)
	_cit_say "EXPLAIN (VERBOSE, COSTS OFF) of a release over the distributed table:"
	printf '%s\n' "$plan" | sed 's/^/    /'
	if grep -q 'worker_partial_agg' <<<"$plan" && grep -q 'coord_combine_agg' <<<"$plan" &&
		grep -q 'Task Count: 32' <<<"$plan"; then
		_cit_result ok "pushdown: worker_partial_agg on the 32 shards, coord_combine_agg on the coordinator"
	else
		_cit_result FAILED "pushdown: the plan has no worker_partial_agg / coord_combine_agg over 32 tasks"
	fi

	# identical releases, empty table, posterior, betaD, privacy
	out=$(_cit_psql 0 -At -v ON_ERROR_STOP=1 -f $S/checks.sql 2>&1)
	_cit_collect "$out"
	if ! grep -q '^ok \|^FAILED ' <<<"$out" || grep -q 'ERROR' <<<"$out"; then
		printf '%s\n' "$out" | grep -v '^ok ' | head -n 30
		grep -q '^ok \|^FAILED ' <<<"$out" || _cit_result FAILED "checks.sql did not run"
	fi

	# the governed path
	out=$(_cit_psql 0 -At -v su="$PGC_USER" -f $S/governed.sql 2>&1)
	_cit_collect "$out"
	local r cmds
	for r in c1 c2; do
		cmds=$(awk -v r="$r" '/^==commands / { on = ($2 == r); next } on' <<<"$out")
		if grep -q 'worker_partial_agg' <<<"$cmds"; then
			_cit_result ok "governed: the commands of release $r to the shards run worker_partial_agg (pushed down$([ $r = c2 ] && echo ', one state per group key'))"
		else
			_cit_result FAILED "governed: no worker_partial_agg in the commands of release $r to the shards"
			printf '%s\n' "$out" | grep -v '^NOTICE\|^DETAIL\|^ok ' | head -n 30
		fi
	done
}

citus_check() {
	local t0 rc=0
	t0=$(date +%s)
	CITUS_PASS=0 CITUS_FAIL=0 CITUS_SKIPPED=""
	if ! citus_ensure; then
		_cit_say "skipped: $CITUS_SKIPPED"
		return 0
	fi
	if ! citus_start; then
		_cit_result FAILED "the cluster did not start ($CITUS_DIR)"
		citus_stop
		return 1
	fi
	citus_checks || rc=1
	citus_stop
	[ "$CITUS_FAIL" -eq 0 ] || rc=1
	_cit_say "$CITUS_PASS passed, $CITUS_FAIL failed ($(($(date +%s) - t0)) s)"
	return $rc
}

# ---- alone: build, install, Citus, the checks ----
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -uo pipefail
	cd "$(dirname "${BASH_SOURCE[0]}")/.."
	# shellcheck source=test/pgcluster.sh
	source test/pgcluster.sh
	t_all=$(date +%s)
	make -s PG_CONFIG="$PG_CONFIG" || { echo "could not run: the build (make) failed"; exit 1; }
	dpb_make_install || { echo "could not run: make install failed"; exit 1; }
	trap citus_stop EXIT
	trap 'citus_stop; trap - INT; kill -s INT $$' INT
	trap 'citus_stop; trap - TERM; kill -s TERM $$' TERM
	citus_check
	rc=$?
	if [ -n "$CITUS_SKIPPED" ]; then
		echo "could not run: $CITUS_SKIPPED"
		exit 1
	fi
	echo "citus: whole run $(($(date +%s) - t_all)) s"
	echo "$CITUS_PASS passed, $CITUS_FAIL failed"
	exit $rc
fi
