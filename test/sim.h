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

/* Rank-based calibration: returns the KS p-value of the ranks (randomised
 * to continuous uniforms) of `truth` among `ndraws` draws, over `reps`
 * replications; ranks[rep] holds the rank (0..ndraws). */
double		sim_rank_pvalue(const int *ranks, int reps, int ndraws, gsl_rng *rng);

/* Print the ranks (0..ndraws) of one parameter over `reps` replications as a
 * 10-bin histogram, "  rank histogram <j>: c0 ... c9" (bench/sbc_*.sh store
 * these lines; bench/plots/sbc_ranks.sh draws them). */
void		sim_rank_histogram(const int *ranks, int reps, int ndraws, int j);

#endif
