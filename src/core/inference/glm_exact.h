/*
 * glm_exact.h — NOT PRIVATE: Bayesian logistic and Poisson regression on
 * raw (clipped) rows with the same theta prior as the noise-aware model,
 * for comparisons (dpbayes.nonprivate_posterior()).
 */
#ifndef DPB_GLM_EXACT_H
#define DPB_GLM_EXACT_H

#include "posterior.h"

/*
 * meta: a release value describing the model, d, the public scaling and
 * names (its statistics are not used).  Z: N x d clipped, scaled features;
 * Y: N clipped responses (logistic: +1 / -1).  Draws of theta (and no
 * nuisance parameters) in the user's units.
 */
dpb_status	dpb_glm_exact_run(const dpb_release *meta, const double *Z,
							  const double *Y, long N, const dpb_infer_opts *o,
							  dpb_draws *out, dpb_err *err);

/* The log posterior of theta and its gradient (exposed for tests). */
typedef struct dpb_glm_exact_ctx
{
	dpb_model	model;
	int			d,
				p,
				intercept;
	long		N;
	const double *Z,
			   *Y;
	const dpb_infer_opts *o;
} dpb_glm_exact_ctx;

double		dpb_glm_exact_logp(const double *theta, double *grad, void *ctx);

#endif
