-- Local DP: collecting reports (dpbayes.ldp_collect) and the noise-aware
-- posteriors on them (dpbayes.ldp_posterior, _summary); docs/ldp.md.
-- Reports are simulated here with setseed/random() (on the protocols'
-- grids); a real deployment receives them from the dpbayes-ldp clients.
SET client_min_messages = warning;
-- the protocols of this file and their ids: every report comes with the id
-- of the protocol it was randomized under (the CSV's protocol_id column)
\set gp '{"mechanism":"scalar_laplace","epsilon":2,"lower":-5,"upper":5}'
\set ep '{"mechanism":"scalar_laplace","epsilon":2,"lower":0,"upper":5}'
\set op '{"mechanism":"oue","epsilon":1,"categories":3}'
\set lp '{"mechanism":"linear_input","epsilon":16,"delta":1e-5,"d":1,"clip":3,"y_bound":8}'
\set gip '{"mechanism":"logistic_input","epsilon":16,"delta":1e-5,"d":1,"clip":3}'
\set l4p '{"mechanism":"linear_input","epsilon":4,"delta":1e-5,"d":1,"clip":1,"y_bound":1}'
SELECT dpbayes.ldp_protocol_id(:'gp') AS gid, dpbayes.ldp_protocol_id(:'ep') AS eid, dpbayes.ldp_protocol_id(:'op') AS oid, dpbayes.ldp_protocol_id(:'lp') AS lid, dpbayes.ldp_protocol_id(:'gip') AS giid, dpbayes.ldp_protocol_id(:'l4p') AS l4id \gset

-- clipped Gaussian data, Laplace reports: x ~ N(1, 1.5^2) clipped to
-- [-5, 5], eps 2 (Laplace scale 5, grid 2^-18)
SELECT setseed(0.25);
CREATE TEMP TABLE gauss_reports AS
SELECT ARRAY[round((least(5, greatest(-5, x)) + lap) * 262144) / 262144.0]::float8[] AS z
FROM (SELECT 1 + 1.5 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS x,
             -5 * sign(u) * ln(1 - 2 * abs(u)) AS lap
      FROM (SELECT random() - 0.5 AS u FROM generate_series(1, 3000)) s) t;
CREATE TEMP TABLE gauss_c AS
SELECT dpbayes.ldp_collect(:'gid', z, :'gp')
       AS c FROM gauss_reports;
SELECT dpbayes.ldp_collection_info(c) - 'protocol' AS info,
       dpbayes.ldp_collection_info(c) -> 'protocol' ->> 'id' AS protocol_id
FROM gauss_c;
-- The posteriors of this file are checked through tolerant queries.  Over
-- 16 posterior seeds (a stand-in for the CPU kernels, whose rounding moves
-- the chains) their largest R-hat reaches the warning's 1.01 (here 1.014,
-- the exponential's 1.017, OUE's 1.009, the linear one's 1.018), so their
-- convergence WARNINGs are not shown.  Here: |mean - truth| / sd at most
-- 1.73 +- 0.10 (> 20 sd from 4), sd at most 0.25 +- 0.01 (> 20 sd from
-- 0.5), R-hat < 1.05 > 9 sd away, no divergence.  A model that ignored the
-- Laplace noise (sd 7 here) would put sigma near 7 and not cover it.
SET client_min_messages = error;
SELECT variable, abs(mean - CASE variable WHEN 'mu' THEN 1 ELSE 1.5 END) < 4 * sd AS covers,
       sd < 0.5 AS informative, rhat < 1.05 AS converged, divergences < 6 AS under_1pct_divergent
FROM gauss_c, dpbayes.ldp_posterior_summary(c, '{"seed": 7, "chains": 2, "warmup": 300, "draws": 300}')
ORDER BY variable;
-- the draws' long format, like dpbayes.posterior (short runs: their
-- convergence WARNING is not shown)
SELECT count(*), count(DISTINCT chain), min(iteration), max(iteration), min(draw), max(draw),
       bool_and(value > 0) FILTER (WHERE variable = 'sigma') AS sigma_positive
FROM gauss_c, dpbayes.ldp_posterior(c, '{"seed": 7, "chains": 2, "warmup": 100, "draws": 50}');
-- same seed, same draws
SELECT (SELECT array_agg(value ORDER BY draw, variable) FROM dpbayes.ldp_posterior(c, '{"seed": 3, "chains": 1, "warmup": 50, "draws": 20}'))
     = (SELECT array_agg(value ORDER BY draw, variable) FROM dpbayes.ldp_posterior(c, '{"seed": 3, "chains": 1, "warmup": 50, "draws": 20}'))
       AS reproducible
FROM gauss_c;
SET client_min_messages = warning;

-- clipped exponential data: rate 0.7 on [0, 5], eps 2 (scale 2.5, grid 2^-19)
CREATE TEMP TABLE exp_c AS
SELECT dpbayes.ldp_collect(:'eid', ARRAY[round((least(5, -ln(1 - random()) / 0.7) - 2.5 * sign(u) * ln(1 - 2 * abs(u))) * 524288) / 524288.0]::float8[],
                           :'ep') AS c
FROM (SELECT random() - 0.5 AS u FROM generate_series(1, 3000)) s;
-- (|mean - 0.7| / sd 1.80 +- 0.07, R-hat 1.009 +- 0.004: not shown)
SET client_min_messages = error;
SELECT variable, abs(mean - 0.7) < 4 * sd AS covers, sd < 0.2 AS informative, rhat < 1.05 AS converged
FROM exp_c, dpbayes.ldp_posterior_summary(c, '{"model": "exponential", "seed": 7, "chains": 2, "warmup": 300, "draws": 300}');
SET client_min_messages = warning;

-- OUE histogram, K = 3, theta = (0.7, 0.2, 0.1), eps 1: a true 1 bit stays
-- 1 w.p. 1/2, a 0 bit turns 1 w.p. 1/(1 + e)
CREATE TEMP TABLE oue_reports AS
SELECT ARRAY(SELECT CASE WHEN random() < CASE WHEN j = k THEN 0.5 ELSE 1 / (1 + exp(1)) END THEN 1 ELSE 0 END::float8
             FROM generate_series(1, 3) j) AS z
FROM (SELECT CASE WHEN u < 0.7 THEN 1 WHEN u < 0.9 THEN 2 ELSE 3 END AS k
      FROM (SELECT random() AS u FROM generate_series(1, 4000)) s) t;
CREATE TEMP TABLE oue_c AS
SELECT dpbayes.ldp_collect(:'oid', z, :'op') AS c FROM oue_reports;
SELECT dpbayes.ldp_collection_info(c) - 'protocol' AS info FROM oue_c;
-- (R-hat of theta[3] 1.004 +- 0.002, at most 1.009: warnings not shown)
SET client_min_messages = error;
SELECT variable, abs(mean - CASE variable WHEN 'theta[1]' THEN 0.7 WHEN 'theta[2]' THEN 0.2 ELSE 0.1 END) < 4 * sd AS covers,
       sd < 0.05 AS informative, rhat < 1.05 AS converged
FROM oue_c, dpbayes.ldp_posterior_summary(c, '{"seed": 7, "chains": 2, "warmup": 500, "draws": 1000}')
ORDER BY variable;
SET client_min_messages = warning;
SELECT abs((SELECT sum(e) FROM unnest(dpbayes.ldp_oue_estimate(c)) e) - 1) < 1e-12 AS simplex,
       (SELECT bool_and(e >= 0) FROM unnest(dpbayes.ldp_oue_estimate(c)) e) AS nonnegative,
       array_length(dpbayes.ldp_oue_estimate(c, false), 1) AS k
FROM oue_c;

-- linear regression on perturbed inputs (linear_input, eps 16, R = 3,
-- R_y = 8: noise sd 3.075 on x (grid 2^-19), 8.201 on y (grid 2^-17)):
-- x ~ N(0.5, 0.8^2), y = 1 + 2 x + N(0, 0.5^2); the collection keeps N,
-- sum w and sum w w' only
CREATE TEMP TABLE lin_c AS
SELECT dpbayes.ldp_collect(:'lid', ARRAY[round((x + 3.0752918618232568 * g3) * 524288) / 524288.0,
                                 round((1 + 2 * x + 0.5 * g2 + 8.200778298194562 * g4) * 131072) / 131072.0]::float8[],
                           :'lp') AS c
FROM (SELECT greatest(-3, least(3, 0.5 + 0.8 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))) AS x,
             sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS g2,
             sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS g3,
             sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS g4
      FROM generate_series(1, 20000)) s;
SELECT dpbayes.ldp_collection_info(c) - 'protocol' AS info, length(c) < 400 AS compact FROM lin_c;
-- R-hat is checked by the query itself (< 1.05); whether it crosses the
-- warning's 1.01 depends on the CPU's rounding, so warnings are not shown
SET client_min_messages = error;
SELECT variable, abs(mean - CASE variable WHEN 'theta[intercept]' THEN 1 WHEN 'theta[x1]' THEN 2 WHEN 'sigma' THEN 0.5
                                          WHEN 'mu_x[x1]' THEN 0.5 ELSE 0.8 END) < 4 * sd AS covers,
       rhat < 1.05 AS converged
FROM lin_c, dpbayes.ldp_posterior_summary(c, '{"seed": 7, "chains": 2, "warmup": 500, "draws": 500}')
ORDER BY variable;
SET client_min_messages = warning;

-- logistic regression, randomized-response labels (logistic_input, eps 16,
-- half to the label: keep 0.99966; x noise sd 3.826 on the grid 2^-19):
-- x ~ N(0.3, 1), P(y = 1) = sigmoid(-0.5 + 1.5 x)
CREATE TEMP TABLE logit_c AS
SELECT dpbayes.ldp_collect(:'giid', ARRAY[round((x + 3.825906613294247 * g) * 524288) / 524288.0,
                                 CASE WHEN random() < 0.9996646498695336 THEN y ELSE 1 - y END]::float8[],
                           :'gip') AS c
FROM (SELECT x, g, CASE WHEN random() < 1 / (1 + exp(0.5 - 1.5 * x)) THEN 1 ELSE 0 END AS y
      FROM (SELECT greatest(-3, least(3, 0.3 + sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))) AS x,
                   sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS g
            FROM generate_series(1, 2000)) s) t;
SELECT dpbayes.ldp_collection_info(c) - 'protocol' AS info FROM logit_c;
-- This posterior mixes slowly (bulk ESS ~190 of 2 x 500 draws).  Over 16
-- posterior seeds: |mean - truth| / sd at most 1.69 +- 0.46 (intercept),
-- > 5 sd from 4, and R-hat at most 1.016 +- 0.014, > 6 sd from 1.1; with 2
-- x 250 draws these margins were only 3.1 and 3.4 sd.
SET client_min_messages = error;  -- a short run: its convergence WARNING is not shown
SELECT variable, abs(mean - CASE variable WHEN 'theta[intercept]' THEN -0.5 WHEN 'theta[x1]' THEN 1.5
                                          WHEN 'mu_x[x1]' THEN 0.3 ELSE 1 END) < 4 * sd AS covers,
       rhat < 1.1 AS converged
FROM logit_c, dpbayes.ldp_posterior_summary(c, '{"seed": 7, "chains": 2, "warmup": 250, "draws": 500}')
ORDER BY variable;
SET client_min_messages = warning;
SELECT dpbayes.ldp_collect(:'giid', z, :'gip')
FROM (VALUES (ARRAY[0.5, 0.5]::float8[])) v(z);
SELECT * FROM logit_c, dpbayes.ldp_posterior(c, '{"seed": 1, "model": "linear"}');

-- randomized response (rr, issue 24, item 8): x ~ Bernoulli(theta), each
-- report keeps its bit w.p. e^eps / (1 + e^eps): theta 0.3 from 4000 reports
-- at eps 1 (keep 0.731), theta 0.6 from 4000 at eps 0.5 (keep 0.622); the
-- collection keeps N and the number of ones (the exact likelihood's
-- sufficient statistics)
\set rp '{"mechanism":"rr","epsilon":1}'
\set rp2 '{"mechanism":"rr","epsilon":0.5}'
SELECT dpbayes.ldp_protocol_id(:'rp') AS rid, dpbayes.ldp_protocol_id(:'rp2') AS r2id \gset
CREATE TEMP TABLE rr_a AS
SELECT dpbayes.ldp_collect(:'rid', ARRAY[CASE WHEN random() < 0.7310585786300049 THEN x ELSE 1 - x END]::float8[], :'rp') AS c
FROM (SELECT CASE WHEN random() < 0.3 THEN 1 ELSE 0 END AS x FROM generate_series(1, 4000)) s;
CREATE TEMP TABLE rr_b AS
SELECT dpbayes.ldp_collect(:'r2id', ARRAY[CASE WHEN random() < 0.6224593312018546 THEN x ELSE 1 - x END]::float8[], :'rp2') AS c
FROM (SELECT CASE WHEN random() < 0.6 THEN 1 ELSE 0 END AS x FROM generate_series(1, 4000)) s;
SELECT dpbayes.ldp_collection_info(c) - 'protocol' AS info, length(c) < 400 AS compact FROM rr_a;
-- the proportion (model proportion, Beta(1, 1) prior); R-hat is checked by
-- the query, the run's convergence warnings are not shown
SET client_min_messages = error;
SELECT variable, abs(mean - 0.3) < 4 * sd AS covers, sd < 0.03 AS informative, rhat < 1.05 AS converged
FROM rr_a, dpbayes.ldp_posterior_summary(c, '{"seed": 7, "chains": 2, "warmup": 300, "draws": 500}');
-- two groups: theta[a], theta[b], their difference (-0.3) and log odds
-- ratio; prob_positive of diff is P(theta[a] > theta[b])
SELECT variable, abs(mean - CASE variable WHEN 'theta[a]' THEN 0.3 WHEN 'theta[b]' THEN 0.6 WHEN 'diff' THEN -0.3
                                          ELSE ln(0.3 / 0.7) - ln(0.6 / 0.4) END) < 4 * sd AS covers,
       rhat < 1.05 AS converged, CASE variable WHEN 'diff' THEN prob_positive < 0.001 END AS a_below_b
FROM rr_a a, rr_b b, dpbayes.ldp_posterior_compare_summary(a.c, b.c, '{"seed": 7, "chains": 2, "warmup": 300, "draws": 500}')
ORDER BY variable;
SELECT count(*) AS draws, count(DISTINCT variable) AS variables, bool_and(value BETWEEN 0 AND 1) FILTER (WHERE variable LIKE 'theta%') AS proportions
FROM rr_a a, rr_b b, dpbayes.ldp_posterior_compare(a.c, b.c, '{"seed": 7, "chains": 2, "warmup": 100, "draws": 50}');
SET client_min_messages = warning;
-- the prior's keys, and what does not fit
SELECT * FROM rr_a, dpbayes.ldp_posterior(c, '{"seed": 1, "beta_a": 0}');
SELECT * FROM rr_a, dpbayes.ldp_posterior(c, '{"seed": 1, "model": "gaussian"}');
SELECT * FROM rr_a a, gauss_c b, dpbayes.ldp_posterior_compare(a.c, b.c, '{"seed": 1}');
SELECT * FROM rr_a a, dpbayes.ldp_posterior_compare(a.c, NULL, '{"seed": 1}');

-- clipped Gaussian data, Gaussian reports (scalar_gaussian, issue 24, item
-- 8; eps 8, delta 1e-6: noise sd 6.893 on the grid 2^-18): x ~ N(1, 1.5^2)
-- clipped to [-5, 5], 20000 reports; Gaussian noise does not factorise
-- beyond the bounds, so the collection keeps every report and the
-- posterior bins them within its bound
\set sgp '{"mechanism":"scalar_gaussian","epsilon":8,"delta":1e-6,"lower":-5,"upper":5}'
SELECT dpbayes.ldp_protocol_id(:'sgp') AS sgid \gset
CREATE TEMP TABLE sg_c AS
SELECT dpbayes.ldp_collect(:'sgid', ARRAY[round((least(5, greatest(-5, x)) + 6.892920154309593 * g) * 262144) / 262144.0]::float8[],
                           :'sgp') AS c
FROM (SELECT 1 + 1.5 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS x,
             sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS g
      FROM generate_series(1, 20000)) s;
SELECT dpbayes.ldp_collection_info(c) - 'protocol' AS info FROM sg_c;
SET client_min_messages = error;
SELECT variable, abs(mean - CASE variable WHEN 'mu' THEN 1 ELSE 1.5 END) < 4 * sd AS covers,
       sd < CASE variable WHEN 'mu' THEN 0.1 ELSE 0.6 END AS informative, rhat < 1.05 AS converged
FROM sg_c, dpbayes.ldp_posterior_summary(c, '{"seed": 7, "chains": 2, "warmup": 300, "draws": 500}')
ORDER BY variable;
SET client_min_messages = warning;
-- the binning tolerance (nats): from 0 (every report its own term: the
-- exact likelihood) to 1; here on the scalar_laplace collection, whose
-- posteriors agree with and without binning
SET client_min_messages = error;
SELECT t.tol, s.variable, abs(s.mean - CASE s.variable WHEN 'mu' THEN 1 ELSE 1.5 END) < 4 * s.sd AS covers
FROM gauss_c, (VALUES (0), (0.01), (1)) t(tol),
     dpbayes.ldp_posterior_summary(c, jsonb_build_object('seed', 7, 'chains', 2, 'warmup', 200, 'draws', 300, 'bin_tol', t.tol)) s
ORDER BY t.tol, s.variable;
SET client_min_messages = warning;
SELECT * FROM gauss_c, dpbayes.ldp_posterior(c, '{"seed": 1, "bin_tol": -0.1}');
SELECT * FROM gauss_c, dpbayes.ldp_posterior(c, '{"seed": 1, "bin_tol": 2}');
SELECT * FROM gauss_c, dpbayes.ldp_posterior(c, '{"seed": 1, "bin_tol": "small"}');
SELECT * FROM oue_c, dpbayes.ldp_posterior(c, '{"seed": 1, "bin_tol": 0.05}');
SELECT * FROM sg_c, dpbayes.ldp_posterior(c, '{"seed": 1, "model": "exponential"}');
-- a stored scalar_gaussian collection edited: its last report off the grid
SELECT dpbayes.ldp_collection_info(overlay(c placing '\x72daf8b8db9abf3f'::bytea from length(c) - 7 for 8)) FROM sg_c;
-- ... an rr collection claiming more ones than reports
SELECT dpbayes.ldp_collection_info(overlay(c placing '\xa00f000000000001'::bytea from length(c) - 7 for 8)) FROM rr_a;

-- a parallel collection (combine, serialize, deserialize) holds the same counts
CREATE TEMP TABLE oue_par AS SELECT * FROM oue_reports;
ANALYZE oue_par;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT dpbayes.ldp_collect(:'oid', z, :'op') = (SELECT c FROM oue_c) AS same_bytes
FROM oue_par;
SELECT dpbayes.ldp_collection_info(dpbayes.ldp_collect(:'gid', z, :'gp'))
       = (SELECT dpbayes.ldp_collection_info(c) FROM gauss_c) AS same_counts
FROM gauss_reports;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- invalid reports: errors name no value
\set VERBOSITY default
SELECT dpbayes.ldp_collect(:'oid', z, :'op')
FROM (VALUES (ARRAY[1, 0]::float8[])) v(z);
SELECT dpbayes.ldp_collect(:'oid', z, :'op')
FROM (VALUES (ARRAY[1, 2, 0]::float8[])) v(z);
SELECT dpbayes.ldp_collect(:'gid', z, :'gp')
FROM (VALUES (ARRAY['NaN']::float8[])) v(z);
SELECT dpbayes.ldp_collect(:'gid', z, :'gp')
FROM (VALUES (ARRAY[0.1234567]::float8[])) v(z);
SELECT dpbayes.ldp_collect(:'gid', z, :'gp')
FROM (VALUES (NULL::float8[])) v(z);
-- on the grid but implausible (issue 24): ldp_collect refuses what
-- ldp_check refuses; an honest report lies within the bounds widened by the
-- noise's plausible spread
SELECT dpbayes.ldp_check(ARRAY[1e6]::float8[], :'gp') AS check_1e6,
       dpbayes.ldp_check(ARRAY[20]::float8[], :'gp') AS check_20;
SELECT dpbayes.ldp_collect(:'gid', z, :'gp')
FROM (VALUES (ARRAY[20]::float8[]), (ARRAY[1e6]::float8[])) v(z);
SELECT dpbayes.ldp_collect(:'l4id', z, :'l4p')
FROM (VALUES (ARRAY[1e4, 0]::float8[])) v(z);
SELECT dpbayes.ldp_collect(dpbayes.ldp_protocol_id(p), z, p)
FROM (VALUES (ARRAY[1]::float8[], :'gp'),
             (ARRAY[1]::float8[], '{"mechanism":"scalar_laplace","epsilon":1,"lower":-5,"upper":5}')) v(z, p);
SELECT dpbayes.ldp_collect('x', z, '{"mechanism":"ss_linear","epsilon":1,"delta":1e-5,"d":1,"y_bound":1,"scaling":"none"}')
FROM (VALUES (ARRAY[1, 1, 1]::float8[])) v(z);
SELECT dpbayes.ldp_collect('x', z, '{"mechanism":"oue","epsilon":1,"categories":3,"colour":1}')
FROM (VALUES (ARRAY[1, 0, 0]::float8[])) v(z);
-- a report without its protocol id, or with another id (a typo, a truncated
-- id): refused, naming the report's ordinal, never the id
SELECT dpbayes.ldp_collect(NULL, z, :'gp') FROM (VALUES (ARRAY[1]::float8[])) v(z);
SELECT dpbayes.ldp_collect(id, z, :'gp')
FROM (VALUES (:'gid', ARRAY[1]::float8[]), (left(:'gid', 63), ARRAY[1]::float8[])) v(id, z);

-- Attack (issue 24, item 4): reports randomized under epsilon 1 offered to a
-- protocol of epsilon 2.  The grids nest (the epsilon-1 grid 2^-17 lies on
-- the epsilon-2 grid 2^-18) and the values are plausible, so the reports
-- alone pass the epsilon-2 ldp_check; their protocol id gives them away on
-- every path that accepts reports: ldp_collect, and the ingest table's
-- CHECK on the id column (ldp_release: 22_ldp_server).
SET dpbayes.allow_simulation = on;
\set p1 '{"mechanism":"scalar_laplace","epsilon":1,"lower":-5,"upper":5}'
CREATE TEMP TABLE eps1 AS
SELECT dpbayes_sim.report_protocol_id(:'p1') AS protocol_id,
       dpbayes_sim.randomize_raw_record_not_ldp(:'p1', ARRAY[(i % 7) - 3]::float8[]) AS z
FROM generate_series(1, 200) i;
RESET dpbayes.allow_simulation;
SELECT count(*) AS reports, count(*) FILTER (WHERE dpbayes.ldp_check(z, :'gp')) AS pass_the_eps2_check,
       count(*) FILTER (WHERE protocol_id = :'gid') AS with_the_eps2_id
FROM eps1;
SELECT dpbayes.ldp_collect(protocol_id, z, :'gp') FROM eps1;
CREATE TEMP TABLE survey (
    protocol_id text NOT NULL CHECK (protocol_id = :'gid'),
    z float8[] NOT NULL CHECK (dpbayes.ldp_check(z, :'gp')));
\set VERBOSITY terse
INSERT INTO survey SELECT * FROM eps1;  -- (PostgreSQL's DETAIL would show the row)
\set VERBOSITY default
-- reports stamped insecure_test: (the test build of the client, a seeded
-- simulation) are collected, mark the collection, and every inference on
-- it warns (the posteriors here stop at an unknown option, after their
-- warning: a run's own convergence warnings depend on the CPU's rounding)
CREATE TEMP TABLE insecure_c AS
SELECT dpbayes.ldp_collect(CASE WHEN z[1] = 1 THEN 'insecure_test:' ELSE '' END || :'oid', z, :'op') AS c
FROM oue_reports;
SELECT dpbayes.ldp_collection_info(c) - 'protocol' AS info FROM insecure_c;
SELECT array_length(dpbayes.ldp_oue_estimate(c), 1) AS k FROM insecure_c;
SELECT * FROM insecure_c, dpbayes.ldp_posterior(c, '{"colour": 1}');
SELECT * FROM insecure_c, dpbayes.ldp_posterior_summary(c, '{"colour": 1}');
-- ... also when the insecure reports were collected by parallel workers
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT dpbayes.ldp_collect(CASE WHEN z[1] = 1 THEN 'insecure_test:' ELSE '' END || :'oid', z, :'op') = c AS parallel_same
FROM oue_par, insecure_c GROUP BY c;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- the same protocol spelled differently is the same protocol
SELECT dpbayes.ldp_collection_info(dpbayes.ldp_collect(:'oid', z, p)) ->> 'reports' AS reports
FROM (VALUES (ARRAY[1, 0, 0]::float8[], :'op'),
             (ARRAY[0, 0, 1]::float8[], '{"categories":3,"epsilon":1.0,"mechanism":"oue"}')) v(z, p);
-- corrupt or foreign collections
SELECT dpbayes.ldp_collection_info('\x00112233'::bytea);
SELECT dpbayes.ldp_collection_info(substring(c from 1 for length(c) - 3)) FROM oue_c;
SELECT dpbayes.ldp_collection_info(c || '\x00'::bytea) FROM oue_c;
-- the last pattern's count raised by 4
SELECT dpbayes.ldp_collection_info(overlay(c placing set_byte('\x00'::bytea, 0, get_byte(c, length(c) - 8) + 4)
                                           from length(c) - 7 for 1)) FROM oue_c;
-- Stored collections edited (issue 24, item 3): every read checks the
-- reports a collection holds as ldp_collect checked them, and its counts
-- against its sums.  n is the int64 after the protocol text, whose length
-- is the uint32 at byte 24.
SELECT 28 + get_byte(c, 24) + 256 * get_byte(c, 25) AS lin_noff FROM lin_c \gset
-- the linear_input count set to 1 (its sums are those of 20000 reports),
-- to 100, and to 2e7 (too many reports for sums this small); unchanged it
-- reads
SELECT dpbayes.ldp_collection_info(overlay(c placing '\x0100000000000000'::bytea from :lin_noff + 1 for 8)) FROM lin_c;
SELECT dpbayes.ldp_collection_info(overlay(c placing '\x6400000000000000'::bytea from :lin_noff + 1 for 8)) FROM lin_c;
SELECT dpbayes.ldp_collection_info(overlay(c placing '\x002d310100000000'::bytea from :lin_noff + 1 for 8)) FROM lin_c;
SELECT dpbayes.ldp_collection_info(overlay(c placing substring(c from :lin_noff + 1 for 8) from :lin_noff + 1 for 8))
       = dpbayes.ldp_collection_info(c) AS unchanged_reads FROM lin_c;
-- a sum of products made asymmetric (the last 8 bytes: sum z_y^2 and
-- before it sum z_y z_x)
SELECT dpbayes.ldp_collection_info(overlay(c placing '\x0000000000000000'::bytea from length(c) - 15 for 8)) FROM lin_c;
-- sum z_x z_y set to 1e9 on both sides of the diagonal: symmetric, but no
-- reports have such moments (|sum z_x z_y| > sqrt(sum z_x^2 sum z_y^2))
SELECT dpbayes.ldp_collection_info(overlay(c placing '\x0000000065cdcd410000000065cdcd41'::bytea
                                           from length(c) - 23 for 16)) FROM lin_c;
-- logistic_input: the last report's feature set to 1e6 (on the grid, not
-- plausible), then to -10 (plausible, but the sums are no longer its
-- reports' sums)
SELECT dpbayes.ldp_collection_info(overlay(c placing '\x0000000080842e41'::bytea from length(c) - 15 for 8)) FROM logit_c;
SELECT dpbayes.ldp_collection_info(overlay(c placing '\x00000000000024c0'::bytea from length(c) - 15 for 8)) FROM logit_c;
-- scalar_laplace: the last in-range report moved off the grid
SELECT dpbayes.ldp_collection_info(overlay(c placing '\x72daf8b8db9abf3f'::bytea from length(c) - 7 for 8)) FROM gauss_c;
-- ... and an edited collection cannot reach a posterior
SELECT * FROM lin_c, dpbayes.ldp_posterior(overlay(c placing '\x0100000000000000'::bytea from :lin_noff + 1 for 8), '{"seed": 1}');
-- a collection of format version 1 (0.1.0: no flags word) still reads
SELECT dpbayes.ldp_collection_info(substring(c from 1 for 8) || '\x01000000'::bytea || substring(c from 13 for 8)
                                   || substring(c from 25)) = dpbayes.ldp_collection_info(c) AS version_1_reads
FROM oue_c;
-- options
SELECT * FROM oue_c, dpbayes.ldp_posterior(c, '{"seed": 1, "colour": 1}');
SELECT * FROM oue_c, dpbayes.ldp_posterior(c, '{"seed": 1, "model": "gaussian"}');
SELECT * FROM oue_c, dpbayes.ldp_posterior(c, '{"seed": 1, "draws": 0}');
SELECT * FROM oue_c, dpbayes.ldp_posterior(c, '{"seed": 1, "alpha": -1}');
-- extreme prior options name the option (they ended in "the sampler found
-- no usable step size"); an option of another model is an error
SELECT * FROM gauss_c, dpbayes.ldp_posterior(c, '{"seed": 1, "mu_sd": 1e-300}');
SELECT * FROM gauss_c, dpbayes.ldp_posterior(c, '{"seed": 1, "sigma_shape": 1e300}');
SELECT * FROM gauss_c, dpbayes.ldp_posterior(c, '{"seed": 1, "mu_mean": 1e300}');
SELECT * FROM lin_c, dpbayes.ldp_posterior(c, '{"seed": 1, "tau_sd": 1e-300}');
SELECT * FROM lin_c, dpbayes.ldp_posterior(c, '{"seed": 1, "theta_sd": 1e300}');
SELECT * FROM oue_c, dpbayes.ldp_posterior(c, '{"seed": 1, "theta_sd": 2}');
SELECT * FROM gauss_c, dpbayes.ldp_posterior(c, '{"seed": 1, "model": "exponential"}');
SELECT * FROM gauss_c, dpbayes.ldp_oue_estimate(c);
