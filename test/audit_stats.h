/*
 * audit_stats.h — the confidence bounds of the unit tests' privacy audits
 * (test_attack.c, test_betad_audit.c, test_betad_mlp.c): Clopper–Pearson
 * bounds of a rate, and the epsilon a distinguishing test demonstrates.
 */
#ifndef DPB_TEST_AUDIT_STATS_H
#define DPB_TEST_AUDIT_STATS_H

/* the x with P(Beta(a, b) <= x) = q, by bisection (robust for every
 * parameter, unlike the inverse CDFs at extreme tails) */
double		audit_beta_quantile(double q, double a, double b);

/* Clopper–Pearson bounds of a binomial proportion k / n, each one-sided at
 * level alpha */
double		audit_cp_lower(int k, int n, double alpha);
double		audit_cp_upper(int k, int n, double alpha);

/*
 * The epsilon an attack demonstrates with confidence 1 - 2 alpha from tp
 * "guess D" answers on D's releases and fp on D''s, n rounds each (both
 * directions of the (epsilon, delta) inequality; delta 0 for pure DP); 0
 * when it demonstrates nothing.
 */
double		audit_eps_lower_bound(int tp, int fp, int n, double delta, double alpha);

#endif
