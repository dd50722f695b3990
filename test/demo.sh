#!/usr/bin/env bash
# test/demo.sh — what `make demo` runs: dpbayes end to end on a throwaway
# cluster.
#
#   deps (test/deps.sh), make, make install, start a throwaway cluster
#   (test/pgcluster.sh), CREATE DATABASE demo, CREATE EXTENSION dpbayes,
#   load data/pima_indians_diabetes.csv into table pima, run test/demo.sql,
#   stop the cluster (also on failure or Ctrl-C).
#
# Environment: DPBAYES_PGPORT, DPBAYES_PGUSER, DPBAYES_KEEP_TMP, PG_CONFIG
# (see test/pgcluster.sh).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=test/pgcluster.sh
source test/pgcluster.sh

banner() { printf '\n======== %s ========\n' "$*"; }

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

banner "database demo: CREATE EXTENSION dpbayes, load tables pima and boston"
"${psql[@]}" -d postgres -c 'CREATE DATABASE demo'
"${psql[@]}" -d demo <<'SQL'
CREATE EXTENSION dpbayes;
CREATE TABLE pima (
    pregnant integer,
    glucose  integer,
    pressure integer,
    triceps  integer,
    insulin  integer,
    mass     float8,
    pedigree float8,
    age      integer,
    diabetes text
);
\copy pima FROM 'data/pima_indians_diabetes.csv' WITH (FORMAT csv, HEADER true)
ANALYZE pima;
CREATE TABLE boston (
    crim float8, zn float8, indus float8, chas text, nox float8, rm float8,
    age float8, dis float8, rad float8, tax float8, ptratio float8, b float8,
    lstat float8, medv float8
);
\copy boston FROM 'data/boston_housing.csv' WITH (FORMAT csv, HEADER true)
ANALYZE boston;
SELECT count(*) AS rows,
       count(*) FILTER (WHERE diabetes = 'pos') AS diabetes_pos,
       min(age) AS min_age, max(age) AS max_age
FROM pima;
SQL

banner "test/demo.sql"
"${psql[@]}" -d demo -f test/demo.sql

banner "stop cluster"
pgc_stop
echo "demo finished"
