/*
 * bench_util.h — what the C benchmarks share: a monotonic clock, the
 * simulated releases and per-variable summaries (bench/gibbs_speed.c, bench/glm_speed.c,
 * bench/tools/glm_profile.c, bench/tools/glm_summary.c).
 */
#ifndef DPB_BENCH_UTIL_H
#define DPB_BENCH_UTIL_H

#include "diag.h"
#include "posterior.h"
#include "release.h"

/* seconds, CLOCK_MONOTONIC */
double		bench_now(void);

/*
 * A release of N simulated records with d features and an intercept,
 * epsilon = 1, delta = 1e-5, Gaussian noise; generator mt19937 with its
 * default seed.
 *   linear    x_j ~ N(0, 0.25^2), y = 0.5 + x_0 - x_1 + x_2 - ... + N(0, 0.5^2),
 *             y_bound 4;
 *   logistic  x_j ~ N(0, 0.36 / d), P(y = 1) = 1 / (1 + e^{-u}),
 *             u = -0.3 + 2 (x_0 - x_1 + x_2 - ...).
 */
void		bench_release(dpb_model model, int d, long N, dpb_release *r);

/*
 * The same with a given epsilon and mechanism (delta 1e-5 for gaussian, 0
 * for laplace), and Poisson regression too:
 *   poisson   x_j ~ N(0, 0.36 / d), y ~ Poisson(e^u),
 *             u = 0.3 + x_0 - x_1 + x_2 - ..., y_bound 10.
 * bench_release is bench_release_grid(.., 1, DPB_MECH_GAUSSIAN, ..).
 */
void		bench_release_grid(dpb_model model, int d, long N, double epsilon,
							   dpb_mechanism mech, dpb_release *r);

/* dpb_summarize of variable k of dr (all chains); x: chains * iters scratch */
/*
 * The synthetic betaD logistic data of bench/betad_speed.c: N rows of d
 * features N(0, 1) (AR(1) with correlation rho between neighbours when rho
 * != 0), coefficients (intercept first) N(0, 0.5^2), y = +-1 from the
 * logistic model; seed 1.
 */
void		bench_betad_logistic_data(long N, int d, double rho, double *X, double *y);

void		bench_summarize_var(const dpb_draws *dr, int k, double *x, dpb_summary *s);

#endif
