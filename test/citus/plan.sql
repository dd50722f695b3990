-- test/citus.sh: the plan of a release over the distributed table
EXPLAIN (VERBOSE, COSTS OFF)
SELECT dpbayes.logistic_release(ARRAY[x1, x2, x3], y,
         dpbayes.privacy(epsilon => 1, lower => '{-1,-1,-1}', upper => '{1,1,1}'))
FROM t;
