#!/usr/bin/env bash
# test/playground.sh — what `make playground` runs: a psql prompt on a
# throwaway cluster with dpbayes and the demo tables, removed on exit.
#
#   deps (test/deps.sh), make, make install (see test/setup.sh for the one
#   privileged step), start a throwaway cluster (test/pgcluster.sh),
#   CREATE DATABASE playground, load test/demo_data.sql (CREATE EXTENSION
#   dpbayes; tables pima and boston), then psql on it.  When psql exits (\q,
#   Ctrl-D, end of input, or an error with ON_ERROR_STOP) the server is stopped
#   and its directory removed; also on a failure in the steps above, on SIGTERM
#   or SIGHUP.  Ctrl-C at the prompt belongs to psql (it cancels the running
#   query or clears the line), as usual.
#
#   make playground                                  interactive
#   bash test/playground.sh -v ON_ERROR_STOP=1 -f my.sql     extra arguments go to psql
#   bash test/playground.sh < my.sql                 non-interactive
#
# The exit status is psql's.  Environment: DPBAYES_PGPORT, DPBAYES_PGUSER,
# PG_CONFIG (see test/pgcluster.sh).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=test/pgcluster.sh
source test/pgcluster.sh

say() { printf 'playground: %s\n' "$*" >&2 2>/dev/null || true; }

bash test/deps.sh >&2
make -s PG_CONFIG="$PG_CONFIG" >&2
dpb_make_install >&2
pgc_start

say "loading the demo tables (test/demo_data.sql)"
"$PGC_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d postgres -c 'CREATE DATABASE playground' >&2
"$PGC_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d playground -f test/demo_data.sql >&2

if [ -t 0 ]; then
	cat >&2 <<MSG

  dpbayes playground: PostgreSQL $("$PGC_BIN/psql" -X -At -d playground -c 'SHOW server_version'),
  database "playground", extension dpbayes, tables pima (768 rows) and boston (506).
  Try the examples of README.md ("Using it"), e.g.
      SELECT * FROM dpbayes.release_summary((SELECT dpbayes.linear_release(ARRAY[rm], medv,
               dpbayes.privacy(epsilon => 1, y_bound => 50, lower => ARRAY[3], upper => ARRAY[9])) FROM boston));
  \\q (or Ctrl-D) quits; the cluster is then stopped and removed.
  Other terminals can connect with:  psql -h $PGHOST -p $PGPORT -U $PGUSER playground

MSG
fi

# Clients started from the prompt (\! python3 ..., \! Rscript ...) or from
# the printed command line find the playground database through libpq's
# environment variables.
export PGDATABASE=playground

# Ctrl-C goes to psql (which cancels a query) and must not end the script,
# nor `make playground`: on a terminal, job control (set -m) runs psql as its
# own foreground process group, so only psql gets the SIGINT; the script also
# ignores SIGINT meanwhile (psql installs its own handler).
trap '' INT
set +e
if [ -t 0 ]; then set -m; fi
"$PGC_BIN/psql" "$@"
rc=$?
set +m
set -e
trap '_pgc_on_signal INT' INT

pgc_stop
say "cluster stopped and removed"
exit "$rc"
