#!/usr/bin/env bash
# test/demo.sh — what `make demo` runs: dpbayes end to end on a throwaway
# cluster.
#
#   deps (test/deps.sh), make, make install, start a throwaway cluster
#   (test/pgcluster.sh), CREATE DATABASE demo, CREATE EXTENSION dpbayes,
#   load test/demo_data.sql (tables pima and boston), run test/demo.sql,
#   stop the cluster (also on failure or Ctrl-C).
#
# Writes demo-output/intervals.png (private vs non-private 90% posterior
# intervals of Pima and Boston, test/plot_intervals.sh) and intervals.csv.
#
# Environment: DPBAYES_DEMO_OUT (output directory, default demo-output),
# DPBAYES_PGPORT, DPBAYES_PGUSER, DPBAYES_KEEP_TMP, PG_CONFIG
# (see test/pgcluster.sh).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=test/pgcluster.sh
source test/pgcluster.sh

banner() { printf '\n======== %s ========\n' "$*"; }
out=${DPBAYES_DEMO_OUT:-demo-output}

banner "dependencies (test/deps.sh)"
bash test/deps.sh
echo "ok"

banner "build (make)"
make -s PG_CONFIG="$PG_CONFIG"

banner "install (make install)"
dpb_make_install

banner "throwaway cluster"
pgc_start

psql=("$PGC_BIN/psql" -X -q -v ON_ERROR_STOP=1 -P pager=off)

banner "database demo: CREATE EXTENSION dpbayes, load tables pima and boston (test/demo_data.sql)"
"${psql[@]}" -d postgres -c 'CREATE DATABASE demo'
"${psql[@]}" -d demo -f test/demo_data.sql
"${psql[@]}" -d demo -c "SELECT count(*) AS rows, count(*) FILTER (WHERE diabetes = 'pos') AS diabetes_pos,
       min(age) AS min_age, max(age) AS max_age FROM pima"

banner "test/demo.sql"
"${psql[@]}" -d demo -f test/demo.sql

banner "picture: $out/intervals.png"
mkdir -p "$out"
"${psql[@]}" -d demo -c "COPY (SELECT dataset, variable, kind, q5, median, q95 FROM demo_intervals
    ORDER BY dataset DESC, ord, kind) TO STDOUT WITH (FORMAT csv)" >"$out/intervals.csv"
bash test/plot_intervals.sh "$out/intervals.csv" "$out/intervals.png"
echo "wrote $out/intervals.png (the 90% intervals above, as a picture) and $out/intervals.csv"

banner "stop cluster"
pgc_stop
echo "demo finished"
