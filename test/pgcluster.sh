# shellcheck shell=bash
# test/pgcluster.sh — sourceable helpers for test/run_checks.sh and
# test/demo.sh: a throwaway PostgreSQL cluster, and build + install.
#
#   source test/pgcluster.sh
#   pgc_start          # initdb + start in a fresh mktemp -d; exports
#                      # PGHOST PGPORT PGUSER PGDATABASE; puts the server's
#                      # bin dir first in PATH; traps EXIT/INT/TERM/HUP
#   psql -X -c 'select version()'
#   pgc_stop           # stop the server, remove the directory (idempotent;
#                      # the trap calls it too, on failure or Ctrl-C)
#
# The cluster listens only on a unix socket in a private directory
# (listen_addresses = ''), so several clusters can run at the same time even
# with the same port number.  Authentication is "trust".
#
# PostgreSQL refuses to run as root.  When run as root, initdb, pg_ctl and the
# server run as an unprivileged user through runuser; that user is also the
# superuser role initdb creates.  Clients (psql, pg_regress) can stay root and
# connect with -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" (or just the env vars).
#
# Environment:
#   DPBAYES_PGPORT   port number (default 54329)
#   DPBAYES_PGUSER   OS user running the server when invoked as root
#                    (default: postgres if it exists, else dpbayes_test,
#                    created with useradd if needed)
#   DPBAYES_PGBIN    server bin dir (default: $PG_CONFIG --bindir)
#   DPBAYES_KEEP_TMP=1  stop the server but keep the temp dir (debugging)
#   PG_CONFIG        pg_config to use (default: PostgreSQL 15's)
#
# Do not call pgc_start inside $( ... ) or a subshell: the trap and the
# exported variables would not reach the calling shell.

if [ -z "${PG_CONFIG:-}" ]; then
	if [ -x /usr/lib/postgresql/15/bin/pg_config ]; then
		PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
	else
		PG_CONFIG=pg_config
	fi
fi
export PG_CONFIG

PGC_DIR=""      # the mktemp -d directory (empty when no cluster)
PGC_DATA=""     # $PGC_DIR/data
PGC_SOCK=""     # $PGC_DIR/sock (unix socket directory = PGHOST)
PGC_LOG=""      # $PGC_DIR/postgres.log (server log)
PGC_USER=""     # OS user running the server (and superuser role name)
PGC_BIN=""      # directory of initdb, pg_ctl, postgres, psql
PGC_PORT=""

# Never fails: cleanup must go on when the terminal is gone (SIGHUP).
_pgc_say() { printf 'pgcluster: %s\n' "$*" >&2 2>/dev/null || true; }

_pgc_is_root() { [ "$(id -u)" -eq 0 ]; }

# Run a server-side program as $PGC_USER, from inside $PGC_DIR (the caller's
# cwd may not be readable by that user).
_pgc_as_user() {
	if _pgc_is_root; then
		(cd "$PGC_DIR" && runuser -u "$PGC_USER" -- "$@")
	else
		(cd "$PGC_DIR" && "$@")
	fi
}

_pgc_pick_user() {
	if ! _pgc_is_root; then
		PGC_USER=$(id -un)
		return 0
	fi
	if [ -n "${DPBAYES_PGUSER:-}" ]; then
		PGC_USER=$DPBAYES_PGUSER
	elif id -u postgres >/dev/null 2>&1; then
		PGC_USER=postgres
	else
		PGC_USER=dpbayes_test
	fi
	if ! id -u "$PGC_USER" >/dev/null 2>&1; then
		_pgc_say "creating system user $PGC_USER"
		useradd --system --no-create-home --home-dir /nonexistent \
			--shell /usr/sbin/nologin "$PGC_USER" || return 1
	fi
	if [ "$(id -u "$PGC_USER")" -eq 0 ]; then
		_pgc_say "DPBAYES_PGUSER must not be root"
		return 1
	fi
}

# Make a fresh temp dir the server user can use.  As root, the parent must be
# traversable by that user; fall back to /tmp if $TMPDIR is not.
_pgc_mktemp() {
	local base=${TMPDIR:-/tmp}
	PGC_DIR=$(mktemp -d "$base/dpbayes-pg.XXXXXX") || return 1
	if _pgc_is_root; then
		chown "$PGC_USER": "$PGC_DIR" || return 1
		if ! runuser -u "$PGC_USER" -- test -w "$PGC_DIR" 2>/dev/null; then
			rm -rf "$PGC_DIR"
			PGC_DIR=$(mktemp -d /tmp/dpbayes-pg.XXXXXX) || return 1
			chown "$PGC_USER": "$PGC_DIR" || return 1
		fi
	fi
	chmod 700 "$PGC_DIR"
}

# pgc_log all|N: print the server log (or its last N lines) to stderr.
pgc_log() {
	local n=${1:-all}
	[ -n "$PGC_LOG" ] && [ -f "$PGC_LOG" ] || return 0
	if [ "$n" != all ]; then
		printf -- '---- server log (last %s lines): %s ----\n' "$n" "$PGC_LOG" >&2
		tail -n "$n" "$PGC_LOG" >&2
	else
		printf -- '---- server log: %s ----\n' "$PGC_LOG" >&2
		cat "$PGC_LOG" >&2
	fi
	printf -- '---- end of server log ----\n' >&2
}

pgc_start() {
	if [ -n "$PGC_DIR" ]; then
		_pgc_say "a cluster is already running in $PGC_DIR"
		return 1
	fi
	PGC_PORT=${DPBAYES_PGPORT:-54329}
	PGC_BIN=${DPBAYES_PGBIN:-$("$PG_CONFIG" --bindir)} || {
		_pgc_say "cannot run $PG_CONFIG --bindir"
		return 1
	}
	local prog
	for prog in initdb pg_ctl postgres psql; do
		if [ ! -x "$PGC_BIN/$prog" ]; then
			_pgc_say "$PGC_BIN/$prog not found (is postgresql-15 installed? run test/deps.sh)"
			return 1
		fi
	done
	_pgc_pick_user || return 1

	# Install the cleanup before anything is created.
	trap pgc_stop EXIT
	trap '_pgc_on_signal INT' INT
	trap '_pgc_on_signal TERM' TERM
	trap '_pgc_on_signal HUP' HUP

	_pgc_mktemp || { pgc_stop; return 1; }
	PGC_DATA=$PGC_DIR/data
	PGC_SOCK=$PGC_DIR/sock
	PGC_LOG=$PGC_DIR/postgres.log
	_pgc_as_user mkdir -m 700 "$PGC_SOCK" || { pgc_stop; return 1; }

	_pgc_say "initdb in $PGC_DATA (server user $PGC_USER, port $PGC_PORT)"
	if ! _pgc_as_user "$PGC_BIN/initdb" -D "$PGC_DATA" -U "$PGC_USER" \
		--auth=trust --no-locale --encoding=UTF8 --no-sync --no-instructions \
		>"$PGC_DIR/initdb.log" 2>&1; then
		_pgc_say "initdb failed:"
		cat "$PGC_DIR/initdb.log" >&2
		pgc_stop
		return 1
	fi

	cat >>"$PGC_DATA/postgresql.conf" <<EOF

# ---- throwaway test cluster (test/pgcluster.sh) ----
listen_addresses = ''
port = $PGC_PORT
unix_socket_directories = '$PGC_SOCK'
unix_socket_permissions = 0700
max_connections = 50
shared_buffers = 64MB
fsync = off
synchronous_commit = off
full_page_writes = off
logging_collector = off
log_line_prefix = '%m [%p] %q%u@%d '
EOF
	# pg_cron (postgresql-15-cron, test/deps.sh): its launcher lives in the
	# database postgres and runs jobs over libpq through the socket
	# (test/cron_job.sh; docs/governance.md §7).
	if [ -f "$("$PG_CONFIG" --pkglibdir)/pg_cron.so" ]; then
		cat >>"$PGC_DATA/postgresql.conf" <<EOF
shared_preload_libraries = 'pg_cron'
cron.database_name = 'postgres'
cron.host = '$PGC_SOCK'
EOF
	fi

	if ! _pgc_as_user "$PGC_BIN/pg_ctl" -D "$PGC_DATA" -l "$PGC_LOG" -w -t 60 \
		start >"$PGC_DIR/pg_ctl.log" 2>&1; then
		_pgc_say "server failed to start:"
		cat "$PGC_DIR/pg_ctl.log" >&2
		pgc_log all
		pgc_stop
		return 1
	fi

	export PGHOST=$PGC_SOCK PGPORT=$PGC_PORT PGUSER=$PGC_USER PGDATABASE=postgres
	case ":$PATH:" in
	*":$PGC_BIN:"*) ;;
	*) export PATH="$PGC_BIN:$PATH" ;;
	esac

	if ! "$PGC_BIN/psql" -X -q -At -c 'select 1' >/dev/null; then
		_pgc_say "server started but psql cannot connect"
		pgc_log all
		pgc_stop
		return 1
	fi
	_pgc_say "server running: PGHOST=$PGHOST PGPORT=$PGPORT PGUSER=$PGUSER"
}

# Stop the server (fast, then immediate, then SIGKILL of the postmaster we
# started) and remove the temp dir.  Safe to call any number of times.
pgc_stop() {
	local dir=$PGC_DIR pid
	[ -n "$dir" ] || return 0
	PGC_DIR=""
	if [ -f "$PGC_DATA/postmaster.pid" ]; then
		pid=$(head -n 1 "$PGC_DATA/postmaster.pid" 2>/dev/null || true)
		PGC_DIR=$dir # _pgc_as_user cds into it
		if ! _pgc_as_user "$PGC_BIN/pg_ctl" -D "$PGC_DATA" -m fast -w -t 30 \
			stop >>"$dir/pg_ctl.log" 2>&1; then
			_pgc_as_user "$PGC_BIN/pg_ctl" -D "$PGC_DATA" -m immediate -w -t 30 \
				stop >>"$dir/pg_ctl.log" 2>&1 ||
				{ [[ $pid =~ ^[0-9]+$ ]] && kill -KILL "$pid" 2>/dev/null; } || true
		fi
		PGC_DIR=""
		_pgc_say "server stopped"
	fi
	if [ "${DPBAYES_KEEP_TMP:-0}" = 1 ]; then
		_pgc_say "kept $dir (DPBAYES_KEEP_TMP=1)"
	else
		rm -rf "$dir"
	fi
	if [ "${PGHOST:-}" = "$PGC_SOCK" ]; then
		unset PGHOST PGPORT PGUSER PGDATABASE
	fi
	PGC_DATA="" PGC_SOCK="" PGC_LOG=""
	return 0
}

_pgc_on_signal() {
	local sig=$1
	trap - "$sig"
	_pgc_say "caught SIG$sig, cleaning up"
	pgc_stop
	trap - EXIT
	kill -s "$sig" "$$"
}

# ---- build and install (shared by run_checks.sh and demo.sh) ----

# True if the installed extension files are identical to the built ones.
dpb_installed_current() {
	local libdir sharedir f
	libdir=$("$PG_CONFIG" --pkglibdir) || return 1
	sharedir=$("$PG_CONFIG" --sharedir)/extension || return 1
	[ -f dpbayes.so ] && cmp -s dpbayes.so "$libdir/dpbayes.so" || return 1
	for f in dpbayes.control dpbayes--*.sql; do
		[ -f "$f" ] || continue
		cmp -s "$f" "$sharedir/$f" || return 1
	done
	return 0
}

# make install: directly as root; as another user, skip it when the installed
# files are already current, else try sudo -n, else say what to run.
dpb_make_install() {
	if _pgc_is_root; then
		make -s install PG_CONFIG="$PG_CONFIG"
	elif dpb_installed_current; then
		echo "make install: the installed extension is already up to date"
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		sudo -n make -s install PG_CONFIG="$PG_CONFIG"
	else
		echo "make install needs root: run  sudo bash test/setup.sh  (packages, build, install; then re-run)" >&2
		return 1
	fi
}
