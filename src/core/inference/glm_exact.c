/*
 * glm_exact.c — NOT PRIVATE reference posterior of logistic and Poisson
 * regression on the clipped rows themselves (NUTS on theta).
 */
#include "glm_exact.h"
#include "progress.h"

#include "nuts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double
dpb_glm_exact_logp(const double *theta, double *grad, void *vctx)
{
	const dpb_glm_exact_ctx *c = vctx;
	const dpb_infer_opts *o = c->o;
	int			p = c->p,
				d = c->d,
				ic = c->intercept,
				j;
	long		i;
	double		lp = 0;

	memset(grad, 0, sizeof(double) * p);
	lp = dpb_theta_log_prior(o, p, theta, grad);
	if (!dpb_isfinite(lp))
		return lp;
	for (i = 0; i < c->N; i++)
	{
		const double *z = c->Z + (size_t) i * d;
		double		u = ic ? theta[0] : 0,
					y = c->Y[i],
					g;

		for (j = 0; j < d; j++)
			u += theta[ic + j] * z[j];
		if (c->model == DPB_MODEL_LOGISTIC)
		{
			/* log sigmoid(y u), stable for large |u| */
			double		t = y * u;

			lp += t >= 0 ? -log1p(exp(-t)) : t - log1p(exp(t));
			g = y / (1 + exp(t));	/* d/du log sigmoid(y u) */
		}
		else
		{
			double		eu = exp(u);

			lp += y * u - eu;
			g = y - eu;
		}
		if (ic)
			grad[0] += g;
		for (j = 0; j < d; j++)
			grad[ic + j] += g * z[j];
	}
	return dpb_isfinite(lp) ? lp : NAN;
}

dpb_status
dpb_glm_exact_run(const dpb_release *meta, const double *Z, const double *Y,
				  long N, const dpb_infer_opts *o, dpb_draws *out, dpb_err *err)
{
	dpb_glm_exact_ctx c;
	dpb_nuts_opts no;
	double		gain[DPB_MAX_D],
				center[DPB_MAX_D];
	int			nvars = dpb_nvars(meta, 0, 0, 0),
				ci,
				i,
				j;
	double	   *buf;
	dpb_status	st = DPB_OK;

	c.model = meta->model;
	c.d = meta->d;
	c.intercept = meta->p.intercept ? 1 : 0;
	c.p = c.d + c.intercept;
	c.N = N;
	c.Z = Z;
	c.Y = Y;
	c.o = o;
	dpb_feature_map(meta, gain, center);
	buf = malloc(sizeof(double) * ((size_t) o->draws * c.p + c.p));
	if (buf == NULL || dpb_draws_alloc(out, o->chains, o->draws, nvars) != DPB_OK)
	{
		free(buf);
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	dpb_name_vars(meta, 0, 0, 0, out->names);
	dpb_nuts_opts_default(&no);
	no.warmup = o->warmup;
	no.draws = o->draws;
	no.target_accept = o->nuts.target_accept;
	no.max_depth = o->nuts.max_depth;
	no.interrupt = o->interrupt;
	for (ci = 0; ci < o->chains; ci++)
	{
		gsl_rng    *rng = dpb_chain_rng(o->seed, ci);
		double	   *init = buf + (size_t) o->draws * c.p;
		dpb_nuts_stats ns;

		if (rng == NULL)
		{
			st = DPB_ENOMEM;
			break;
		}
		dpb_progress_chain(ci + 1, o->chains);
		for (j = 0; j < c.p; j++)
			init[j] = 0.1 * (gsl_rng_uniform(rng) - 0.5);
		st = dpb_nuts_run(c.p, dpb_glm_exact_logp, &c, init, &no, rng, buf, &ns);
		gsl_rng_free(rng);
		if (st != DPB_OK)
			break;
		out->divergences += ns.divergences;
		out->rejected += ns.invalid;
		out->proposals += ns.gradient_evals + ns.invalid;
		for (i = 0; i < o->draws; i++)
			dpb_record_draw(meta, gain, center, buf + (size_t) i * c.p, NULL, NULL,
							NULL, NULL, 0, out->v + ((size_t) ci * o->draws + i) * nvars);
	}
	free(buf);
	if (st != DPB_OK)
	{
		dpb_draws_free(out);
		dpb_err_set(err, st == DPB_EINTR ? "canceling statement due to user request" :
					st == DPB_ENOMEM ? "out of memory" : "the sampler failed", NULL);
	}
	return st;
}
