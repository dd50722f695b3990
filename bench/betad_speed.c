/*
 * betad_speed.c — one betaD logistic draw (the release's mechanism,
 * dpb_betad_run) at N = 1e5, d = 10 with the default schedule, against a
 * baseline measured in the same process: one evaluation of the betaD log
 * density and gradient (O(N d), what every leapfrog step costs).  Random
 * bits from /dev/urandom (the server uses pg_strong_random).  Prints
 * markdown rows: repeat, seconds, gradient evaluations equivalent.
 */
#include "betad/betad_release.h"
#include "betad/betad_kernel.h"
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
				par[11],
				grad[11],
				t0,
				tg,
				times[16];
	FILE	   *ur = fopen("/dev/urandom", "rb");
	dpb_betad_spec s;
	dpb_betad_model m = {0};
	dpb_err		err;
	long		i;

	bench_betad_logistic_data(N, d, 0.0, X, y);
	/* DUMP=file: write the data (y as 0/1, then the d features) for
	 * bench/betad_stan.sh and stop */
	if (getenv("DUMP"))
	{
		FILE	   *f = fopen(getenv("DUMP"), "w");

		if (f == NULL)
			return 1;
		for (i = 0; i < N; i++)
		{
			fprintf(f, "%d", y[i] > 0);
			for (j = 0; j < d; j++)
				fprintf(f, ",%.17g", X[i * d + j]);
			fputc('\n', f);
		}
		return fclose(f) != 0;
	}
	/* baseline: one log density + gradient evaluation */
	m = (dpb_betad_model) {.d = d, .intercept = 1, .beta = 3, .prior_sd = 3, .n = N, .X = X,
		.y = y, .work = work};
	for (j = 0; j <= d; j++)
		par[j] = 0.1 * (j % 3) - 0.1;	/* the cost does not depend on the point */
	/* the scalar kernel first (the reference), then the one in use; the
	 * median of 5 rounds of 10 evaluations each */
	for (j = 1; j >= 0; j--)
	{
		double		rt[5];
		int			rd;

		dpb_betad_kernel_force_scalar(j);
		for (rd = 0; rd < 5; rd++)
		{
			t0 = bench_now();
			for (k = 0; k < 10; k++)
				(void) dpb_betad_logpost(&m, par, grad);
			rt[rd] = (bench_now() - t0) / 10;
		}
		qsort(rt, 5, sizeof(double), cmp);
		tg = rt[2];
		if (j == 1)
			printf("N = %ld, d = %d; one log density + gradient, scalar kernel: %.2f ms\n", N, d, 1e3 * tg);
		else
			printf("N = %ld, d = %d; one log density + gradient, %s kernel (in use): %.2f ms (baseline)\n\n",
				   N, d, dpb_betad_kernel_vector() ? "vector (libmvec AVX2)" : "scalar", 1e3 * tg);
	}
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
