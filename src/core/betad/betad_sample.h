/*
 * betad_sample.h — one draw from the betaD posterior, the privacy mechanism
 * of betaD-Bayes (issue 10; docs/betad.md).
 *
 * The whole MCMC run is the mechanism: every random number (initial values
 * drawn from the prior, momenta, tree directions, the choice of the
 * released draw) comes from a dpb_rbits source (pg_strong_random in the
 * server), through a GSL generator that reads it (dpb_rbits_gsl_alloc).
 * The schedule (chains, warmup, iterations) is public and fixed: nothing
 * depends on the data's diagnostics, and none (R-hat, ESS, step size,
 * divergences) is returned.  A finite run only approximates the exact draw
 * of Theorem 1: the delta' of the paper's Proposition 2 is not certified
 * (docs/betad.md).
 */
#ifndef DPB_BETAD_SAMPLE_H
#define DPB_BETAD_SAMPLE_H

#include "betad/betad_model.h"
#include "dnoise.h"
#include "posterior.h"			/* dpb_interrupt_fn */
#include "nuts.h"

#include <gsl/gsl_rng.h>

/* A GSL generator whose bits all come from rb (malloc'ed; gsl_rng_free()
 * it; rb must outlive it).  NULL when out of memory.  After use, check
 * dpb_rbits_failed(rb). */
gsl_rng    *dpb_rbits_gsl_alloc(dpb_rbits *rb);

typedef struct dpb_betad_schedule
{
	int			chains;			/* >= 1 */
	int			warmup;			/* >= 10 */
	int			iters;			/* kept iterations per chain, >= 1 */
} dpb_betad_schedule;

/* The default public schedule: 4 chains, 200 warmup, 50 kept iterations
 * each (docs/betad.md, "Choosing the default schedule"). */
void		dpb_betad_schedule_default(dpb_betad_schedule *s);

/* The networks' default public schedule (docs/betad.md, "Neural networks",
 * where the rule that chose it is): 1 chain, 500 warmup, 50 kept
 * iterations. */
void		dpb_betad_mlp_schedule_default(dpb_betad_schedule *s);

/*
 * Runs the chains and writes one draw, chosen uniformly among all kept
 * iterations, to theta (dpb_betad_dim(m) entries, the model's
 * parametrisation).  Nothing else leaves the function.  DPB_EINTR when
 * interrupt() asked to stop, DPB_ERNG when rb failed.
 */
dpb_status	dpb_betad_draw(const dpb_betad_model *m, const dpb_betad_schedule *s,
						   dpb_rbits *rb, dpb_interrupt_fn interrupt, double *theta,
						   dpb_err *err);

/*
 * NOT PRIVATE (tuning only): the whole chains (chains x iters x dim,
 * chain-major) and each chain's NUTS statistics, from any generator g.
 * dpb_betad_draw runs this with the secure generator and lets only one
 * draw out.
 */
dpb_status	dpb_betad_chains(const dpb_betad_model *m, const dpb_betad_schedule *s,
							 gsl_rng *g, dpb_interrupt_fn interrupt, double *draws,
							 dpb_nuts_stats *stats);

#endif
