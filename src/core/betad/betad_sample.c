/*
 * betad_sample.c — the betaD mechanism: NUTS on pi_beta with every random
 * number from a secure bit source (see betad_sample.h).
 */
#include "betad_sample.h"

#include "nuts.h"

#include <gsl/gsl_randist.h>
#include <stdlib.h>
#include <string.h>

/* ---- a gsl_rng reading a dpb_rbits ---- */

typedef struct rbits_state
{
	dpb_rbits  *rb;
} rbits_state;

static void
rbits_set(void *vstate, unsigned long seed)
{
	(void) vstate;
	(void) seed;				/* a secure source cannot be seeded */
}

static unsigned long
rbits_get(void *vstate)
{
	uint64_t	v = 0;

	(void) dpb_uniform_u64(((rbits_state *) vstate)->rb, (uint64_t) 1 << 32, &v);
	return (unsigned long) v;
}

/* k / 2^53 for k uniform on [1, 2^53): in (0, 1), exactly representable.
 * A failed source delivers zero bits; the value returned then is unusable
 * (the caller sees the failure flag) but must let GSL's rejection loops end:
 * not 0, 1/2 (the polar method rejects x = y = 0) or 1. */
static double
rbits_get_double(void *vstate)
{
	dpb_rbits  *rb = ((rbits_state *) vstate)->rb;
	int			tries;

	for (tries = 0; tries < 4; tries++)
	{
		uint64_t	k = 0;

		(void) dpb_uniform_u64(rb, (uint64_t) 1 << 53, &k);
		if (k != 0)
			return (double) k * (1.0 / 9007199254740992.0);
		if (dpb_rbits_failed(rb))
			break;
	}
	return 0.3;
}

static const gsl_rng_type rbits_type = {
	"dpbayes_rbits",
	0xffffffffUL,
	0,
	sizeof(rbits_state),
	&rbits_set,
	&rbits_get,
	&rbits_get_double
};

gsl_rng *
dpb_rbits_gsl_alloc(dpb_rbits *rb)
{
	gsl_rng    *r = gsl_rng_alloc(&rbits_type);

	if (r != NULL)
		((rbits_state *) r->state)->rb = rb;
	return r;
}

/* ---- the mechanism ---- */

void
dpb_betad_schedule_default(dpb_betad_schedule *s)
{
	s->chains = 4;
	s->warmup = 200;
	s->iters = 50;
}

void
dpb_betad_mlp_schedule_default(dpb_betad_schedule *s)
{
	/* one chain: the release is one uniformly chosen kept draw, and the
	 * chains are independent and identically run, so k chains give the
	 * released draw exactly the law of one chain's (docs/betad.md, "The
	 * default schedule"); networks need the time */
	s->chains = 1;
	s->warmup = 500;
	s->iters = 50;
}

static double
logp(const double *x, double *grad, void *ctx)
{
	return dpb_betad_logpost((const dpb_betad_model *) ctx, x, grad);
}

dpb_status
dpb_betad_chains(const dpb_betad_model *m, const dpb_betad_schedule *s, gsl_rng *g,
				 dpb_interrupt_fn interrupt, double *draws, dpb_nuts_stats *stats)
{
	int			dim = dpb_betad_dim(m),
				c,
				k;
	size_t		per = (size_t) s->iters * dim;
	double	   *init;
	dpb_nuts_opts o;
	dpb_status	status = DPB_OK;

	if (s->chains < 1 || s->warmup < 10 || s->iters < 1 || dim > DPB_BETAD_MAX_DIM)
		return DPB_EINVAL;
	init = malloc(sizeof(double) * dim);
	if (init == NULL)
		return DPB_ENOMEM;
	dpb_nuts_opts_default(&o);
	o.warmup = s->warmup;
	o.draws = s->iters;
	o.curvature_init = 1;
	/* a dense metric: as cheap as the diagonal one on independent features,
	 * 30% fewer gradients on strongly correlated ones (docs/betad.md,
	 * "Choosing the default schedule"); a network's weights: the diagonal
	 * one (docs/betad.md, "Neural networks") */
	o.dense = m->hidden > 0 ? 0 : 1;
	o.interrupt = interrupt;
	for (c = 0; c < s->chains && status == DPB_OK; c++)
	{
		/* initial values from the prior (eta: the log of an excess variance
		 * of about the floor's order) */
		for (k = 0; k < dim; k++)
			init[k] = gsl_ran_gaussian(g, m->prior_sd);
		if (m->gaussian)
			init[dim - 1] = gsl_ran_gaussian(g, 1.0);
		status = dpb_nuts_run(dim, logp, (void *) m, init, &o, g, draws + per * c, &stats[c]);
	}
	memset(init, 0, sizeof(double) * dim);
	free(init);
	return status;
}

dpb_status
dpb_betad_draw(const dpb_betad_model *m, const dpb_betad_schedule *s, dpb_rbits *rb,
			   dpb_interrupt_fn interrupt, double *theta, dpb_err *err)
{
	int			dim = dpb_betad_dim(m);
	size_t		per = (size_t) s->iters * dim;
	double	   *draws;
	gsl_rng    *g;
	dpb_nuts_stats *st;
	dpb_status	status;
	uint64_t	pick = 0;

	if (s->chains < 1 || s->warmup < 10 || s->iters < 1 || dim > DPB_BETAD_MAX_DIM)
	{
		dpb_err_set(err, "invalid betaD schedule", NULL);
		return DPB_EINVAL;
	}
	draws = malloc(sizeof(double) * per * s->chains);
	st = calloc(s->chains, sizeof(dpb_nuts_stats));
	g = dpb_rbits_gsl_alloc(rb);
	if (draws == NULL || g == NULL || st == NULL)
	{
		free(draws);
		free(st);
		if (g)
			gsl_rng_free(g);
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	status = dpb_betad_chains(m, s, g, interrupt, draws, st);
	memset(st, 0, sizeof(dpb_nuts_stats) * s->chains);	/* diagnostics never leave */
	free(st);
	if (status == DPB_OK)
		status = dpb_uniform_u64(rb, (uint64_t) s->chains * s->iters, &pick);
	if (status == DPB_OK && dpb_rbits_failed(rb))
		status = DPB_ERNG;
	if (status == DPB_OK)
		memcpy(theta, draws + pick * dim, sizeof(double) * dim);
	memset(draws, 0, sizeof(double) * per * s->chains);
	free(draws);
	gsl_rng_free(g);
	if (status == DPB_EINTR)
		dpb_err_set(err, "canceled", NULL);
	else if (status == DPB_ERNG)
		dpb_err_set(err, "could not generate random numbers", NULL);
	else if (status == DPB_ENOMEM)
		dpb_err_set(err, "out of memory", NULL);
	else if (status != DPB_OK)
	{
		/* a non-finite density along the path (badly scaled data): one
		 * status, no diagnostic (docs/betad.md) */
		status = DPB_ENUMERIC;
		dpb_err_set(err, "the betaD sampler failed", NULL);
	}
	return status;
}
