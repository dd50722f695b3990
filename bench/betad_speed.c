/*
 * betad_speed.c — one betaD logistic draw (the release's mechanism,
 * dpb_betad_run) at N = 1e5, d = 10 with the default schedule, against a
 * baseline measured in the same process: one evaluation of the betaD log
 * density and gradient (O(N d), what every leapfrog step costs).  Random
 * bits from /dev/urandom (the server uses pg_strong_random).  Prints
 * markdown rows: repeat, seconds, gradient evaluations equivalent.
 */
#include "betad/betad_release.h"
#include "bench_util.h"

#include <gsl/gsl_randist.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int
urandom_fill(void *ctx, void *buf, size_t len)
{
	return fread(buf, 1, len, (FILE *) ctx) == len;
}

static int
cmp(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	long		N = argc > 1 ? atol(argv[1]) : 100000;
	int			d = 10,
				reps = argc > 2 ? atoi(argv[2]) : 3,
				k,
				j;
	double	   *X = malloc(sizeof(double) * N * d),
			   *y = malloc(sizeof(double) * N),
			   *Xc = malloc(sizeof(double) * N * d),
			   *yc = malloc(sizeof(double) * N),
			   *work = malloc(sizeof(double) * 2 * N),
				theta[11],
				par[11],
				grad[11],
				t0,
				tg,
				times[16];
	gsl_rng    *g = gsl_rng_alloc(gsl_rng_mt19937);
	FILE	   *ur = fopen("/dev/urandom", "rb");
	dpb_betad_spec s;
	dpb_betad_model m = {0};
	dpb_err		err;
	long		i;

	gsl_rng_set(g, 1);
	for (j = 0; j <= d; j++)
		theta[j] = gsl_ran_gaussian(g, 0.5);
	for (i = 0; i < N; i++)
	{
		double		u = theta[0];

		for (j = 0; j < d; j++)
		{
			X[i * d + j] = gsl_ran_ugaussian(g);
			u += theta[j + 1] * X[i * d + j];
		}
		y[i] = gsl_rng_uniform(g) < 1 / (1 + exp(-u)) ? 1 : -1;
	}
	/* baseline: one log density + gradient evaluation */
	m.d = d;
	m.intercept = 1;
	m.beta = 3;
	m.prior_sd = 3;
	m.n = N;
	m.X = X;
	m.y = y;
	m.work = work;
	for (j = 0; j <= d; j++)
		par[j] = theta[j];
	t0 = bench_now();
	for (k = 0; k < 20; k++)
		(void) dpb_betad_logpost(&m, par, grad);
	tg = (bench_now() - t0) / 20;
	printf("N = %ld, d = %d; one log density + gradient: %.2f ms (baseline)\n\n", N, d, 1e3 * tg);
	dpb_betad_spec_default(&s, 0);
	s.epsilon = 1;
	s.fx.d = d;
	if (argc > 4)
	{
		s.sched.warmup = atoi(argv[3]);
		s.sched.iters = atoi(argv[4]);
	}
	printf("| repeat | schedule | seconds | gradient evaluations equivalent |\n|---|---|---|---|\n");
	for (k = 0; k < reps && k < 16; k++)
	{
		dpb_rbits  *rb = dpb_rbits_new(urandom_fill, ur);
		dpb_betad_release r;

		memcpy(Xc, X, sizeof(double) * N * d);
		memcpy(yc, y, sizeof(double) * N);
		t0 = bench_now();
		if (dpb_betad_run(&s, N, Xc, yc, work, rb, NULL, &r, &err) != DPB_OK)
		{
			fprintf(stderr, "betad run failed: %s\n", err.msg);
			return 1;
		}
		times[k] = bench_now() - t0;
		printf("| %d | %d chains x (%d warmup + %d) | %.1f | %.0f |\n", k + 1, s.sched.chains,
			   s.sched.warmup, s.sched.iters, times[k], times[k] / tg);
		dpb_betad_release_free(&r);
		dpb_rbits_free(rb);
	}
	qsort(times, reps, sizeof(double), cmp);
	printf("\nmedian: %.1f s (target < 30 s)\n", times[reps / 2]);
	return 0;
}
