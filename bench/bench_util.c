/*
 * bench_util.c — clock, simulated releases and summaries of the C
 * benchmarks (see bench_util.h).
 */
#include "bench_util.h"

#include "accum.h"
#include "clip.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double
bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

void
bench_release(dpb_model model, int d, long N, dpb_release *r)
{
	int			linear = model == DPB_MODEL_LINEAR;
	dpb_params	p;
	dpb_layout	L;
	dpb_clipper c;
	dpb_err		err;
	gsl_rng    *g = gsl_rng_alloc(gsl_rng_mt19937);
	double		x[DPB_MAX_D],
				z[DPB_MAX_D],
				sx = linear ? 0.25 : 0.6 / sqrt((double) d);
	long		i;
	int			j;

	dpb_params_default(&p);
	p.epsilon = 1;
	p.delta = 1e-5;
	if (linear)
		p.y_bound = 4;
	p.d = d;
	memset(r, 0, sizeof(*r));
	r->version = DPB_RELEASE_VERSION;
	r->model = model;
	r->d = d;
	r->n = N;
	r->p = p;
	dpb_layout_init(&L, model, d, 1);
	dpb_clipper_init(&c, &p, model, d);
	r->stats = calloc(L.nstats, sizeof(double));
	for (i = 0; i < N; i++)
	{
		double		u = linear ? 0.5 : -0.3,
					y;

		for (j = 0; j < d; j++)
		{
			x[j] = sx * gsl_ran_ugaussian(g);
			u += (j % 2 ? -1.0 : 1.0) * (linear ? 1.0 : 2.0) * x[j];
		}
		dpb_clip_x(&c, x, z);
		if (linear)
			y = dpb_clip_y(&c, u + 0.5 * gsl_ran_ugaussian(g));
		else
			y = gsl_rng_uniform(g) < 1 / (1 + exp(-u)) ? 1 : -1;
		dpb_accum_add(&L, z, y, r->stats);
	}
	dpb_release_calibrate(r, &err);
	dpb_release_add_noise(r, g, &err);
	gsl_rng_free(g);
}

void
bench_summarize_var(const dpb_draws *dr, int k, double *x, dpb_summary *s)
{
	int			c,
				i;

	for (c = 0; c < dr->chains; c++)
		for (i = 0; i < dr->iters; i++)
			x[c * dr->iters + i] = dr->v[((size_t) c * dr->iters + i) * dr->nvars + k];
	dpb_summarize(x, dr->chains, dr->iters, s);
}
