/*
 * sim.h — simulated releases for the statistical tests: draws a table,
 * clips, accumulates and releases it with the core library, exactly as the
 * aggregates do, with a seeded (test-only) noise generator.
 */
#ifndef DPB_TEST_SIM_H
#define DPB_TEST_SIM_H

#include "release.h"

#include <gsl/gsl_rng.h>

/* Releases rows X (N x d, row-major) and Y under p for the model; stats
 * are malloc'ed into r->stats.  *clipped counts the records whose features
 * were projected onto the ball or whose response was clamped.  The noise
 * comes from `noise` (NULL: no noise, mechanism must be DPB_MECH_NONE). */
int			sim_release(dpb_model model, const dpb_params *p, int d,
						const double *X, const double *Y, int N,
						gsl_rng *noise, dpb_release *r, int *clipped);

/* An INSECURE bit source drawing bytes from a seeded GSL generator (the
 * generator must outlive it; free with dpb_rbits_free). */
dpb_rbits  *sim_bits(gsl_rng *g);

/* Rank-based calibration: returns the KS p-value of the ranks (randomised
 * to continuous uniforms) of `truth` among `ndraws` draws, over `reps`
 * replications; ranks[rep] holds the rank (0..ndraws). */
double		sim_rank_pvalue(const int *ranks, int reps, int ndraws, gsl_rng *rng);

/* Prints the 10-bin histograms of nvars variables' ranks (ranks[j * reps +
 * rep], 0..ndraws), for looking at the shape of a miscalibration. */
void		sim_rank_histograms(const int *ranks, int nvars, int reps, int ndraws);

/* A linear release of N rows, d = 2 (test_linear_nuts, bench/tools):
 * x ~ N((0.1, -0.1), ~(0.3, 0.2)^2), y = (0.4,) 0.8 x1 - 0.5 x2 + N(0, 0.5^2),
 * clip 1, y_bound 3, data from seed and noise from seed + 1; truth (may be
 * NULL) gets theta[0..2] and sigma. */
int			sim_linear_d2(int N, double eps, dpb_mechanism mech, dpb_neighbours nb,
						  int intercept, unsigned long seed, dpb_release *r, double *truth);

#endif
