-- test/demo_data.sql — the demo tables, loaded by test/demo.sh (`make demo`)
-- and test/playground.sh (`make playground`); run by psql from the
-- repository's root (the \copy paths are relative to it).
--
--   pima    data/pima_indians_diabetes.csv   768 rows (diabetes: 'pos'/'neg')
--   boston  data/boston_housing.csv          506 rows (medv: median house value)
CREATE EXTENSION IF NOT EXISTS dpbayes;
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
