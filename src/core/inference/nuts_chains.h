/*
 * nuts_chains.h — the chains of a NUTS posterior run: per chain a seeded
 * generator, a valid starting point (up to 100 tries, polling the
 * interrupt), dpb_nuts_run with the run's options, the sampler statistics
 * and the kept draws mapped to the output variables.
 */
#ifndef DPB_NUTS_CHAINS_H
#define DPB_NUTS_CHAINS_H

#include "nuts.h"

typedef struct dpb_nuts_model
{
	int			dim;
	dpb_logp_fn logp;
	void	   *ctx;
	/* a starting point (the density is checked by the driver) */
	void		(*init) (void *ctx, gsl_rng *rng, double *phi);
	/* called once per chain with its generator before init; may be NULL */
	void		(*chain_start) (void *ctx, gsl_rng *rng);
	/* one kept draw phi -> out (nvars values) */
	void		(*record) (void *ctx, const double *phi, double *out);
	/* the Gibbs step between transitions (dpb_nuts_opts.gibbs), may be NULL */
	int			(*gibbs) (const double *x, void *ctx);
	/* the prior options named when no starting point is valid */
	const char *prior_options;
	/* the errhint when a run fails numerically after a valid start, may be
	 * NULL */
	const char *fail_hint;
	/* > 0: the tree depth limit of the initial fast buffer
	 * (dpb_nuts_opts.init_max_depth) */
	int			init_max_depth;
	/* warm restarts of the step size adaptation (dpb_nuts_opts.warm_restart) */
	int			warm_restart;
	/* the choice of coordinates and metric in warmup
	 * (dpb_nuts_opts.recoord_window, recoord_last and recoord, with ctx),
	 * may be 0, 0, NULL */
	int			recoord_window;
	int			recoord_last;
	int			(*recoord) (int n, double *draws, double *q, void *ctx);
} dpb_nuts_model;

/* Runs o->chains chains of o->warmup + o->draws * thin iterations (keeps
 * every thin-th) into out (allocated by the caller: o->chains x o->draws x
 * nvars).  On failure sets err; the caller frees out. */
dpb_status	dpb_nuts_chains(const dpb_nuts_model *m, const dpb_infer_opts *o, int thin,
							dpb_draws *out, dpb_err *err);

#endif
