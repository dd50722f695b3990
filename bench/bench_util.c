/*
 * bench_util.c — clock, simulated releases and summaries of the C
 * benchmarks (see bench_util.h).
 */
#include "bench_util.h"


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
	bench_release_grid(model, d, N, 1.0, DPB_MECH_GAUSSIAN, r);
}

void
bench_release_grid(dpb_model model, int d, long N, double epsilon,
				   dpb_mechanism mech, dpb_release *r)
{
	int			linear = model == DPB_MODEL_LINEAR,
				poisson = model == DPB_MODEL_POISSON;
	dpb_params	p;
	dpb_err		err;
	dpb_rbits  *rb;
	gsl_rng    *g = gsl_rng_alloc(gsl_rng_mt19937);
	double	   *X = malloc(sizeof(double) * (size_t) N * d),
			   *Y = malloc(sizeof(double) * (size_t) N),
				sx = linear ? 0.25 : 0.6 / sqrt((double) d);
	long		i;
	int			j;

	dpb_params_default(&p);
	p.epsilon = epsilon;
	p.mechanism = mech;
	p.delta = mech == DPB_MECH_LAPLACE ? 0 : 1e-5;
	if (linear)
		p.y_bound = 4;
	if (poisson)
		p.y_bound = 10;
	/* YCLAMPED=s: linear releases with the block y_clamped of share s
	 * (the SQL aggregates' default is 0.02), which the posterior's clamp reads */
	if (linear && getenv("YCLAMPED") && *getenv("YCLAMPED"))
		p.y_clamped = atof(getenv("YCLAMPED"));
	p.d = d;
	for (i = 0; i < N; i++)
	{
		double		u = linear ? 0.5 : poisson ? 0.3 : -0.3,
				   *x = X + (size_t) i * d;

		for (j = 0; j < d; j++)
		{
			x[j] = sx * gsl_ran_ugaussian(g);
			u += (j % 2 ? -1.0 : 1.0) * (linear || poisson ? 1.0 : 2.0) * x[j];
		}
		if (linear)
			Y[i] = u + 0.5 * gsl_ran_ugaussian(g);
		else if (poisson)
			Y[i] = (double) gsl_ran_poisson(g, exp(u));
		else
			Y[i] = gsl_rng_uniform(g) < 1 / (1 + exp(-u)) ? 1 : -1;
	}
	/* reproducible (INSECURE) noise: benchmarks only */
	rb = dpb_rbits_new_insecure_seeded((uint64_t) N * 64 + (uint64_t) d);
	dpb_release_from_rows(r, model, &p, d, X, Y, N, rb, NULL, &err);
	dpb_rbits_free(rb);
	free(X);
	free(Y);
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

void
bench_betad_logistic_data(long N, int d, double rho, double *X, double *y)
{
	gsl_rng    *g = gsl_rng_alloc(gsl_rng_mt19937);
	double		theta[DPB_MAX_D + 1];
	long		i;
	int			j;

	gsl_rng_set(g, 1);
	for (j = 0; j <= d; j++)
		theta[j] = gsl_ran_gaussian(g, 0.5);
	for (i = 0; i < N; i++)
	{
		double		u = theta[0];

		for (j = 0; j < d; j++)
		{
			X[i * d + j] = gsl_ran_ugaussian(g);
			if (j > 0 && rho != 0)
				X[i * d + j] = rho * X[i * d + j - 1] + sqrt(1 - rho * rho) * X[i * d + j];
			u += theta[j + 1] * X[i * d + j];
		}
		y[i] = gsl_rng_uniform(g) < 1 / (1 + exp(-u)) ? 1 : -1;
	}
	gsl_rng_free(g);
}
