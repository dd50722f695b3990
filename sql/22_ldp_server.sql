-- Local DP on the server (issue 11; docs/ldp.md "The server"): protocols
-- built in SQL by the client's code (the canonical texts and calibrations
-- printed here are compared byte for byte with the CLI's by
-- test/ldp_cli.sh), the ingest check, simulation behind its superuser-only
-- setting, and summing ss_* reports into a release for dpbayes.posterior.
CREATE EXTENSION IF NOT EXISTS dpbayes;
CREATE TABLE proto (k int PRIMARY KEY, p text);
INSERT INTO proto VALUES
 (1, dpbayes.ldp_protocol('rr', 1)),
 (2, dpbayes.ldp_protocol('oue', 1.3, categories => 4)),
 (3, dpbayes.ldp_protocol('scalar_laplace', 0.7, lower => '{-1}', upper => '{3}')),
 (4, dpbayes.ldp_protocol('scalar_gaussian', 1, delta => 1e-6, lower => '{-1}', upper => '{3}')),
 (5, dpbayes.ldp_protocol('ss_linear', 1, delta => 1e-5, d => 2, intercept => false, clip => 1, y_bound => 2, noise_weights => '{1,1,1}', scaling => 'none')),
 (6, dpbayes.ldp_protocol('ss_logistic', 0.5, delta => 1e-6, d => 3, lower => '{0,0,0}', upper => '{1,2,3}')),
 (7, dpbayes.ldp_protocol('ss_poisson', 2, delta => 1e-6, d => 1, y_bound => 10, noise_weights => '{1,2}', scaling => 'none')),
 (8, dpbayes.ldp_protocol('linear_input', 1, delta => 1e-6, d => 2, clip => 1, y_bound => 3)),
 (9, dpbayes.ldp_protocol('logistic_input', 2, delta => 1e-6, d => 3, clip => 2, label_share => 0.25));
-- the published texts and calibrations, one per line (checked against the CLI)
\pset format unaligned
\pset tuples_only on
SELECT dpbayes.ldp_protocol_text(p) FROM proto ORDER BY k;
SELECT dpbayes.ldp_calibration_text(p) FROM proto ORDER BY k;
\pset format aligned
\pset tuples_only off
-- ldp_protocol returns the published text (with its id): a fixed point of
-- ldp_protocol_text; its jsonb form (keys reordered, numbers respelled)
-- gives the same id and text; the calibration as jsonb equals its text
SELECT k, p::jsonb->>'mechanism' AS mechanism, p::jsonb->>'id' = dpbayes.ldp_protocol_id(p) AS id_ok,
       dpbayes.ldp_protocol_text(p) = p AND dpbayes.ldp_protocol_text(p::jsonb::text) = p AS text_ok,
       dpbayes.ldp_calibration(p) = dpbayes.ldp_calibration_text(p)::jsonb AS calib_ok,
       dpbayes.ldp_report_columns(p) AS columns
FROM proto ORDER BY k;
-- the id pinned in test/test_ldp.c; key order does not matter
SELECT dpbayes.ldp_protocol_id('{"y_bound":2,"clip":1,"intercept":false,"d":2,"delta":0.00001,"epsilon":1,"scaling":"none","mechanism":"ss_linear"}');
-- public scales are required (issue 25, item 1): a summed-statistics protocol
-- needs lower/upper or scaling => 'none'; an input protocol needs clip.  A
-- protocol published before the rule (no bounds, no scaling) still reads when
-- it carries its id, with that id.
SELECT dpbayes.ldp_protocol('ss_linear', 1, delta => 1e-5, d => 2, y_bound => 2);
SELECT dpbayes.ldp_protocol('ss_logistic', 1, delta => 1e-5, d => 2, scaling => 'box');
SELECT dpbayes.ldp_protocol('ss_logistic', 1, delta => 1e-5, d => 1, lower => '{0}', upper => '{1}', scaling => 'none');
SELECT dpbayes.ldp_protocol('linear_input', 1, delta => 1e-6, d => 2, y_bound => 3);
SELECT dpbayes.ldp_protocol('rr', 1, scaling => 'none');
SELECT dpbayes.ldp_protocol_id('{"y_bound":2,"clip":1,"intercept":false,"d":2,"delta":0.00001,"epsilon":1,"mechanism":"ss_linear","id":"7c6751482db5484f1147c9658aaf19602392f54b58a5df75e0983eb6e31104ea"}');
-- invalid protocols: a changed key after publication, unknown mechanism,
-- missing and foreign keys, non-finite values
SELECT dpbayes.ldp_protocol_id(jsonb_set(p::jsonb, '{epsilon}', '2')::text) FROM proto WHERE k = 1;
SELECT dpbayes.ldp_protocol('gauss', 1);
SELECT dpbayes.ldp_protocol('rr; drop', 1);
SELECT dpbayes.ldp_protocol('ss_linear', 1, delta => 1e-5, d => 2);
SELECT dpbayes.ldp_protocol('rr', 1, delta => 0.1);
SELECT dpbayes.ldp_protocol('rr', 'infinity');
SELECT dpbayes.ldp_protocol('rr', NULL);
SELECT dpbayes.ldp_protocol('scalar_laplace', 1, lower => '{0,1}', upper => '{2,3}');
SELECT dpbayes.ldp_protocol('logistic_input', 1, delta => 1e-6, d => 2, clip => 1, label_share => 1);
SELECT dpbayes.ldp_calibration('{"mechanism":"rr"}');
SELECT dpbayes.ldp_calibration('[1, 2]');
SELECT dpbayes.ldp_calibration(NULL);
SELECT dpbayes.ldp_check('{1}', NULL);

-- Client and server agree on every protocol input (issue 24, item 5): the
-- protocol is text, read by the client's own parser exactly as the client
-- reads it (test/ldp_cli.sh runs the CLI on these texts and finds its
-- outputs and messages below).  0.1.0 took jsonb, which had already merged
-- a duplicated key (the last won) and respelled the numbers.
-- A duplicated key is refused by every function ...
SELECT dpbayes.ldp_protocol_id('{"mechanism":"rr","epsilon":1,"epsilon":2}');
SELECT dpbayes.ldp_check('{1}', '{"mechanism":"rr","epsilon":1,"epsilon":2}');
SELECT dpbayes.ldp_collect('x', '{1}', '{"mechanism":"oue","categories":3,"epsilon":1,"categories":3}');
-- ... where jsonb would have kept the last value:
SELECT '{"mechanism":"rr","epsilon":1,"epsilon":2}'::jsonb::text AS what_jsonb_made_of_it;
-- A delta of 1e-70 is accepted, with the CLI's canonical text and id; jsonb
-- prints it as a decimal of 74 characters, which both parsers refuse (a
-- number has at most 63).
\pset format unaligned
\pset tuples_only on
SELECT dpbayes.ldp_protocol_text('{"mechanism":"scalar_gaussian","epsilon":1,"delta":1e-70,"lower":0,"upper":1}');
SELECT dpbayes.ldp_calibration_text('{"mechanism":"scalar_gaussian","epsilon":1,"delta":1e-70,"lower":0,"upper":1}');
\pset format aligned
\pset tuples_only off
SELECT '{"mechanism":"scalar_gaussian","epsilon":1,"delta":1e-70,"lower":0,"upper":1}'::jsonb::text AS jsonb_text;
SELECT dpbayes.ldp_protocol_id('{"mechanism":"scalar_gaussian","epsilon":1,"delta":1e-70,"lower":0,"upper":1}'::jsonb::text);

-- simulation is refused without the setting, and only a superuser may set it
SELECT dpbayes_sim.randomize_raw_record_not_ldp(p, '{1}') FROM proto WHERE k = 1;
CREATE ROLE dpb_ldp_user;
SET ROLE dpb_ldp_user;
SET dpbayes.allow_simulation = on;
RESET ROLE;
DROP ROLE dpb_ldp_user;
SET dpbayes.allow_simulation = on;
SET dpbayes.insecure_noise_seed = 22;

-- ldp_check: simulated reports pass; wrong width, NULL, NaN, off the grid,
-- implausible values and labels fail
CREATE TABLE sim AS
SELECT k, p, dpbayes_sim.randomize_raw_record_not_ldp(p, rec) AS z
FROM proto JOIN (VALUES (1, '{1}'::float8[]), (2, '{3}'), (3, '{10}'), (4, '{0.5}'),
      (5, '{0.3,-0.4,1.5}'), (6, '{0.2,1.5,2,1}'), (7, '{0.5,4}'), (8, '{3,4,-7}'),
      (9, '{0.2,-0.5,1,1}')) v(kk, rec) ON k = kk;
SELECT k, dpbayes.ldp_check(z, p) AS ok,
       dpbayes.ldp_check(z || 0.0::float8, p) AS wider,
       dpbayes.ldp_check(NULL, p) AS null_report,
       dpbayes.ldp_check(array_fill(NULL::float8, ARRAY[array_length(z, 1)]), p) AS null_values,
       dpbayes.ldp_check(array_fill('NaN'::float8, ARRAY[array_length(z, 1)]), p) AS nan,
       dpbayes.ldp_check(array_fill(1e12::float8, ARRAY[array_length(z, 1)]), p) AS implausible,
       dpbayes.ldp_check(array_fill(0.5::float8, ARRAY[array_length(z, 1)]), p) AS half
FROM sim ORDER BY k;
-- an off-grid value (half a grid step of a Gaussian report)
SELECT dpbayes.ldp_check(z[1:2] || (z[3] + 2 ^ ((dpbayes.ldp_calibration(p)->>'grid_exp_y')::int - 1)), p) AS off_grid
FROM sim WHERE k = 8;
-- a reports table with the check as a constraint
CREATE TABLE reports (protocol_id text NOT NULL, report float8[] NOT NULL,
  CHECK (dpbayes.ldp_check(report, '{"format":"dpbayes-ldp-protocol","version":1,"mechanism":"rr","epsilon":1}')));
INSERT INTO reports VALUES ('x', '{1}'), ('x', '{0}');
INSERT INTO reports VALUES ('x', '{0.5}');
INSERT INTO reports VALUES ('x', '{1,0}');
DROP TABLE reports;
DROP TABLE sim;

-- ldp_release: 40000 simulated ss_linear reports (eps = 10 each) of
-- y = 1.0 x1 - 0.5 x2 + N(0, 0.5^2), x uniform on [-1, 1]^2
SELECT setseed(0.22);
CREATE TABLE lin AS
SELECT ARRAY[a, b] AS x, 1.0 * a - 0.5 * b + 0.5 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS y
FROM (SELECT 2 * random() - 1 AS a, 2 * random() - 1 AS b FROM generate_series(1, 40000)) s;
CREATE TABLE linp AS SELECT dpbayes.ldp_protocol('ss_linear', 10, delta => 1e-6, d => 2, intercept => false,
    lower => '{-1,-1}', upper => '{1,1}', y_bound => 3) AS p;
CREATE TABLE linrep AS
SELECT dpbayes_sim.report_protocol_id(p) AS protocol_id,
       dpbayes_sim.randomize_raw_record_not_ldp(p, x || y) AS report
FROM lin, linp;
SELECT count(*), count(*) FILTER (WHERE dpbayes.ldp_check(report, p)) AS valid,
       bool_and(protocol_id = 'insecure_test:' || dpbayes.ldp_protocol_id(p)) AS stamped
FROM linrep, linp;
CREATE TABLE linrel AS
SELECT dpbayes.ldp_release(protocol_id, report, p) AS r
FROM linrep, linp GROUP BY p;
-- an ordinary release: mechanism ldp_gaussian, n = 20000, insecure from the
-- stamped ids, the noise sd of the sum sqrt(N) times a report's, values
-- equal to the plain sums of the reports
SELECT dpbayes.release_json(r)->>'mechanism' AS mechanism, dpbayes.release_json(r)->>'n' AS n,
       dpbayes.release_json(r)->>'insecure_test_noise' AS insecure,
       abs((dpbayes.release_json(r)#>>'{blocks,0,noise_sd,0}')::float8
           / (dpbayes.ldp_calibration(p)#>>'{noise_sd,0}')::float8 / sqrt(40000) - 1) < 1e-12 AS sd_sqrt_n
FROM linrel, linp;
SELECT bool_and(st.value = t.v) AS sums_match, count(*) AS entries
FROM linrel, dpbayes.release_stats(r) WITH ORDINALITY AS st
JOIN (SELECT i, sum(report[i]) AS v FROM linrep, generate_series(1, 5) i GROUP BY i) t
  ON t.i = st.ordinality;
-- a parallel plan (combine, serialize, deserialize) gives the same release
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT (SELECT dpbayes.ldp_release(protocol_id, report, (SELECT p FROM linp)) FROM linrep)::text = r::text AS parallel_same
FROM linrel;
EXPLAIN (COSTS off) SELECT dpbayes.ldp_release(protocol_id, report, (SELECT p FROM linp)) FROM linrep;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
-- the text form round-trips (validation accepts exactly this)
SELECT r::text::dpbayes.release::text = r::text AS round_trip FROM linrel;
SELECT replace(r::text, '"n": 40000', '"n": 0')::dpbayes.release FROM linrel;
-- The posterior of the linear model (the default sampler: NUTS on the
-- marginal release likelihood) covers the truth and mixes.  Over posterior
-- seeds (a stand-in for the CPU kernels, whose rounding moves the chains)
-- |mean - truth| / sd is at most 0.45 +- 0.05 and R-hat 1.003 +- 0.005 (far
-- from 1.05), but R-hat reaches the warning's 1.01 on some: its warnings
-- are not shown (the release's insecure flag is checked above)
SET client_min_messages = error;
SELECT variable, abs(mean - CASE variable WHEN 'theta[x1]' THEN 1.0 WHEN 'theta[x2]' THEN -0.5 ELSE 0.5 END) < 3 * sd AS covers,
       rhat < 1.05 AS mixed
FROM linrel, dpbayes.posterior_summary(r, draws => 200, chains => 2, warmup => 200, seed => 7,
                                        options => '{"thin": 5}')
ORDER BY variable;
RESET client_min_messages;
-- logistic regression from 40000 ss_logistic reports (eps = 5 each) of
-- P(y = 1) = sigmoid(2 x1 - x2): the existing posterior (NUTS, the exact
-- sums marginalised) covers the truth, is informative (sd < 0.5: the
-- posterior sd is 0.29 +- 0.01) and mixes (2 x 600 draws: R-hat 1.005 +-
-- 0.003 over posterior seeds, at most 1.013, > 13 sd below 1.05; with 2 x
-- 300 draws it came within 5 sd)
CREATE TABLE logp AS SELECT dpbayes.ldp_protocol('ss_logistic', 5, delta => 1e-6, d => 2, intercept => false,
    lower => '{-1,-1}', upper => '{1,1}') AS p;
CREATE TABLE logrel AS
SELECT dpbayes.ldp_release(dpbayes_sim.report_protocol_id(p),
         dpbayes_sim.randomize_raw_record_not_ldp(p, x || CASE WHEN random() < 1 / (1 + exp(-(2 * x[1] - x[2]))) THEN 1.0 ELSE -1.0 END), p) AS r
FROM lin, logp;
-- R-hat is checked by the query itself (< 1.05); whether it crosses the
-- warning's 1.01 depends on the CPU's rounding, so warnings are not shown
SET client_min_messages = error;
SELECT variable, abs(mean - CASE variable WHEN 'theta[x1]' THEN 2.0 ELSE -1.0 END) < 3 * sd AS covers,
       sd < 0.5 AS informative, rhat < 1.05 AS mixed
FROM logrel, dpbayes.posterior_summary(r, draws => 600, chains => 2, warmup => 300, seed => 7)
ORDER BY variable;
RESET client_min_messages;
-- a report of another protocol, without an id, a corrupted report, and rr
-- reports
SELECT dpbayes.ldp_release('0000', report, p) FROM linrep, linp;
SELECT dpbayes.ldp_release(NULL, report, p) FROM linrep, linp;
SELECT dpbayes.ldp_release(protocol_id, report || 1.0::float8, p) FROM linrep, linp;
SELECT dpbayes.ldp_release(dpbayes.ldp_protocol_id(p), '{1}'::float8[], p) FROM proto WHERE k = 1;
-- Attack (issue 24, item 4): ss_linear reports randomized under epsilon 1
-- offered to the same protocol at epsilon 2.  Their values lie on the
-- epsilon-2 grids (the coarser grids of the larger noise nest in them) and
-- within its plausible ranges, so the reports alone pass the epsilon-2
-- ldp_check; their protocol id gives them away (ldp_collect and the
-- ingest table: 23_ldp_posterior).
CREATE TABLE lin1 AS SELECT dpbayes.ldp_protocol('ss_linear', 1, delta => 1e-6, d => 2, intercept => false,
    lower => '{-1,-1}', upper => '{1,1}', y_bound => 3) AS p1,
  dpbayes.ldp_protocol('ss_linear', 2, delta => 1e-6, d => 2, intercept => false,
    lower => '{-1,-1}', upper => '{1,1}', y_bound => 3) AS p2;
CREATE TABLE linrep1 AS
SELECT dpbayes_sim.report_protocol_id(p1) AS protocol_id,
       dpbayes_sim.randomize_raw_record_not_ldp(p1, x || y) AS report
FROM (SELECT * FROM lin LIMIT 200) l, lin1;
SELECT count(*) AS reports, count(*) FILTER (WHERE dpbayes.ldp_check(report, p2)) AS pass_the_eps2_check
FROM linrep1, lin1;
SELECT dpbayes.ldp_release(protocol_id, report, p2) FROM linrep1, lin1;
DROP TABLE lin1, linrep1;
RESET dpbayes.insecure_noise_seed;
RESET dpbayes.allow_simulation;
DROP TABLE lin, linp, linrep, linrel, logp, logrel, proto;
