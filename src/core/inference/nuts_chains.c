/*
 * nuts_chains.c — the chain loop of the NUTS posterior samplers (see
 * nuts_chains.h).
 */
#include "nuts_chains.h"
#include "progress.h"

#include <stdlib.h>
#include <string.h>

dpb_status
dpb_nuts_chains(const dpb_nuts_model *m, const dpb_infer_opts *o, int thin,
				dpb_draws *out, dpb_err *err)
{
	size_t		kept = (size_t) o->draws * thin;
	double	   *phi = malloc(sizeof(double) * (2 + kept) * (size_t) m->dim);
	double	   *grad,
			   *buf;
	dpb_nuts_opts no;
	dpb_status	st = DPB_OK;

	if (phi == NULL)
	{
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	grad = phi + m->dim;
	buf = grad + m->dim;
	dpb_nuts_opts_default(&no);
	no.warmup = o->warmup;
	no.draws = (int) kept;
	no.target_accept = o->nuts.target_accept;
	no.max_depth = o->nuts.max_depth;
	no.curvature_init = 1;
	no.interrupt = o->interrupt;
	no.init_max_depth = m->init_max_depth;
	no.gibbs = m->gibbs;
	no.warm_restart = m->warm_restart;
	no.recoord_window = m->recoord_window;
	no.recoord_last = m->recoord_last;
	no.recoord = m->recoord;
	for (int ci = 0; ci < o->chains && st == DPB_OK; ci++)
	{
		gsl_rng    *rng = dpb_chain_rng(o->seed, ci);
		dpb_nuts_stats ns;
		int			tries;

		if (rng == NULL)
		{
			st = DPB_ENOMEM;
			dpb_err_set(err, "out of memory", NULL);
			break;
		}
		dpb_progress_chain(ci + 1, o->chains);
		if (m->chain_start)
			m->chain_start(m->ctx, rng);
		for (tries = 0; tries < 100; tries++)
		{
			if (o->interrupt != NULL && o->interrupt())
			{
				st = DPB_EINTR;
				break;
			}
			m->init(m->ctx, rng, phi);
			if (dpb_isfinite(m->logp(phi, grad, m->ctx)))
				break;
		}
		if (st == DPB_OK && tries == 100)
		{
			st = DPB_ENUMERIC;
			dpb_err_set(err, "the prior puts no mass where the likelihood of the release is",
						"The log density is not finite at 100 starting points drawn for the sampler, "
						"so it has no valid starting point; check the prior options (%s).",
						m->prior_options);
		}
		if (st == DPB_OK)
			st = dpb_nuts_run(m->dim, m->logp, m->ctx, phi, &no, rng, buf, &ns);
		gsl_rng_free(rng);
		if (st != DPB_OK)
		{
			if (st == DPB_EINTR)
				dpb_err_set(err, "canceling statement due to user request", NULL);
			else if (st == DPB_ENOMEM)
				dpb_err_set(err, "out of memory", NULL);
			else if (st != DPB_ENUMERIC || tries < 100)
				dpb_err_set(err, "the sampler failed", m->fail_hint ? "%s" : NULL, m->fail_hint);
			break;
		}
		out->divergences += ns.divergences;
		out->rejected += ns.invalid;
		out->proposals += ns.gradient_evals + ns.invalid;
		for (int i = 0; i < o->draws; i++)
			m->record(m->ctx, buf + ((size_t) i * thin + thin - 1) * m->dim,
					  out->v + ((size_t) ci * o->draws + i) * out->nvars);
	}
	free(phi);
	return st;
}
