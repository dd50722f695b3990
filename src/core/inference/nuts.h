/*
 * nuts.h — the No-U-Turn sampler with Stan's warmup adaptation.
 *
 * Multinomial NUTS (Hoffman & Gelman 2014; Betancourt 2017, "A conceptual
 * introduction to Hamiltonian Monte Carlo") with the generalized no-U-turn
 * criterion, checked across merged subtrees as in Stan >= 2.21, and biased
 * progressive sampling at the top level.  Euclidean metric, diagonal or
 * (dense) full.
 *
 * Warmup as in Stan: the initial step-size heuristic, dual averaging of the
 * step size towards an average acceptance statistic target_accept, and a
 * windowed estimate of the inverse metric (fast buffer 75, slow windows of
 * 25 doubling, terminal buffer 50; 15% / 75% / 10% of the warmup when it is
 * shorter than 150; no metric adaptation below 20 warmup iterations).
 * Optionally (curvature_init) the inverse metric starts, instead of as the
 * identity, as 1 / the diagonal of the negative Hessian of log p at the
 * initial point (central differences of the gradient, 2 dim evaluations;
 * where it is negative, log p locally convex far from the posterior,
 * min(1, 1 / its absolute value); 1 where it is not finite or nearly 0):
 * when the posterior scales span orders of magnitude, the identity makes
 * the first window (before any metric update) run at a step size fit for
 * the narrowest direction and trajectories of up to 2^max_depth steps.  The metric adaptation then
 * regularises towards 1e-3 min(1, this initial metric) rather than 1e-3 I.
 * With dense, the slow windows estimate the full covariance (shrunk towards
 * its diagonal by dim / (n + dim) for a window of n draws, then regularised
 * as the diagonal one), as Stan's dense_e adaptation; the metric starts
 * diagonal.  Each leapfrog step then costs O(dim^2) more.  Optionally
 * (init_max_depth) the trees before the first metric update (the initial
 * fast buffer and the first slow window) are limited to a smaller depth:
 * far from the typical set, or with the metric of the starting point, they
 * otherwise run to max_depth.  Optionally (warm_restart) the dual averaging
 * restarts after a metric update from the heuristic's step size, with
 * smaller first steps (nuts.c).  Optionally (recoord) the model may change
 * its coordinates, and ask for a dense metric, at the end of a slow window,
 * from the warmup's draws.  See nuts.c for the details.
 */
#ifndef DPB_NUTS_H
#define DPB_NUTS_H

#include "dpb.h"
#include "posterior.h"			/* dpb_interrupt_fn */

#include <gsl/gsl_rng.h>

/*
 * Log density (up to a constant) at x (dim values); writes its gradient into
 * grad (dim values) and returns the log density.  A non-finite return value
 * (NaN, +-inf) marks an invalid point: the sampler treats it as a divergence
 * of the trajectory (a rejection), never crashes; grad may be left unset then.
 * The sampler never calls f at a non-finite x.
 */
typedef double (*dpb_logp_fn) (const double *x, double *grad, void *ctx);

#define DPB_RECOORD_MAPPED 1
#define DPB_RECOORD_DENSE 2

typedef struct dpb_nuts_opts
{
	int			warmup;			/* adaptation iterations (>= 0) */
	int			draws;			/* kept iterations (>= 0) */
	double		target_accept;	/* dual-averaging target, in (0, 1) */
	int			max_depth;		/* tree depth limit, 1 .. 30 */
	int			curvature_init; /* nonzero: the inverse metric starts as the
								 * inverse curvature at init (see above),
								 * else as the identity */
	int			dense;			/* nonzero: a dense metric (see above) */
	int			init_max_depth; /* > 0: the tree depth limit until the
								 * first metric update (see above), else
								 * max_depth */
	int			warm_restart;	/* nonzero: warm restarts of the dual
								 * averaging after metric updates (nuts.c) */
	dpb_interrupt_fn interrupt; /* polled before every density evaluation, may be NULL */
	/* Optional Gibbs step after every transition (warmup included), may be
	 * NULL: it may change the target's conditioning state held in f's ctx
	 * (e.g. latent noise variances), never x; the sampler then evaluates f
	 * at x afresh.  So NUTS updates x | rest and this the rest | x.  A
	 * nonzero return stops the run with DPB_ENUMERIC. */
	int			(*gibbs) (const double *x, void *ctx);
	/* Optional choice of coordinates and metric during warmup (may be
	 * NULL): at the end of the slow window number recoord_window (1 = the
	 * first), and of the following ones up to recoord_last (0: only
	 * recoord_window) while it returned 0, recoord gets the n >= 2 draws of
	 * the slow windows so far
	 * (n x dim, row-major) and the current point q.  It may map the draws
	 * and q (in place) to other coordinates of the same density, which f
	 * (its ctx) uses from then on, and return DPB_RECOORD_MAPPED; with
	 * DPB_RECOORD_DENSE (or-ed) the metric is dense from then on.  The
	 * metric is then estimated from all these draws, not only the last
	 * window's.  The sampling phase runs in the coordinates and with the
	 * metric of the end of warmup, fixed. */
	int			recoord_window;
	int			recoord_last;
	int			(*recoord) (int n, double *draws, double *q, void *ctx);
} dpb_nuts_opts;

typedef struct dpb_nuts_stats
{
	long		divergences;	/* divergent transitions after warmup */
	long		warmup_divergences; /* ... during warmup */
	long		invalid;		/* evaluations with a non-finite log density
								 * or gradient (warmup included) */
	double		step_size;		/* adapted step size */
	double		mean_accept;	/* mean acceptance statistic after warmup */
	double		mean_tree_depth;	/* after warmup */
	long		gradient_evals; /* calls of f, warmup and heuristics included */
	long		warmup_gradient_evals;	/* ... of which during warmup */
} dpb_nuts_stats;

/* warmup 1000, draws 1000, target_accept 0.8, max_depth 10,
 * curvature_init 0, init_max_depth 0, warm_restart 0, no interrupt, no
 * gibbs step, no recoord window */
void		dpb_nuts_opts_default(dpb_nuts_opts *o);

/*
 * Runs one chain from init (dim values; f must be finite there, with a
 * finite gradient, else DPB_EINVAL).  draws receives o->draws x dim values,
 * row-major, after warmup.  rng is seeded by the caller.  o == NULL means
 * the defaults; stats may be NULL.
 *
 * Returns DPB_OK; DPB_EINVAL for bad arguments; DPB_EINTR when o->interrupt
 * (called at least once per iteration) returns nonzero; DPB_ENOMEM; and
 * DPB_ENUMERIC when the step-size heuristic finds no usable step size (it
 * grows beyond 1e7, which means an improper density, or underflows to 0).
 * Everything allocated is freed on every path; stats are filled in any case
 * (with what was done so far).
 */
dpb_status	dpb_nuts_run(int dim, dpb_logp_fn f, void *ctx, const double *init,
						 const dpb_nuts_opts *o, gsl_rng *rng, double *draws,
						 dpb_nuts_stats *stats);

/* The same; inv_metric (dim values, may be NULL) receives the diagonal
 * inverse metric after warmup (the adapted posterior variances). */
dpb_status	dpb_nuts_run_metric(int dim, dpb_logp_fn f, void *ctx,
								const double *init, const dpb_nuts_opts *o,
								gsl_rng *rng, double *draws,
								dpb_nuts_stats *stats, double *inv_metric);

#endif							/* DPB_NUTS_H */
