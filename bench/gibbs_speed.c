/*
 * gibbs_speed.c — speed of the Gibbs-SS sampler (noise-aware linear
 * regression) at d = 2, 5, 10, and its independence of N.
 *
 * Builds a release of simulated data with the core library (as the
 * aggregate does), then times one chain of ITERS iterations (no warmup,
 * all draws kept) with clock_gettime(CLOCK_MONOTONIC), REPS times, and
 * prints the median and min/max iterations per second.  Run by
 * bench/gibbs_speed.sh; no server needed.
 */
#include "bench_util.h"
#include "gibbs_linear.h"

#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>

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
	int			iters = argc > 1 ? atoi(argv[1]) : 20000;
	int			reps = argc > 2 ? atoi(argv[2]) : 5;
	int			ds[] = {2, 5, 10};
	long		Ns[] = {1000, 1000000};
	int			a,
				b,
				k;

	gsl_set_error_handler_off();
	printf("| d | N | statistics | iterations | median s | min s | max s | iterations/s (median) |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (a = 0; a < 3; a++)
		for (b = 0; b < 2; b++)
		{
			dpb_release r;
			dpb_infer_opts o;
			dpb_draws	dr;
			dpb_err		err;
			double		t[64];

			bench_release(DPB_MODEL_LINEAR, ds[a], Ns[b], &r);
			dpb_infer_opts_default(&o, &r);
			o.sampler = DPB_SAMPLER_GIBBS;
			o.chains = 1;
			o.warmup = 1;
			o.draws = iters;
			for (k = 0; k < reps && k < 64; k++)
			{
				double		t0;

				o.seed = k + 1;
				t0 = bench_now();
				if (dpb_posterior_run(&r, &o, &dr, &err) != DPB_OK)
				{
					fprintf(stderr, "sampler failed: %s\n", err.msg);
					return 1;
				}
				t[k] = bench_now() - t0;
				dpb_draws_free(&dr);
			}
			qsort(t, reps, sizeof(double), cmp);
			printf("| %d | %ld | %d | %d | %.3f | %.3f | %.3f | %.0f |\n",
				   ds[a], Ns[b], r.nstats, iters, t[reps / 2], t[0], t[reps - 1],
				   iters / t[reps / 2]);
			fflush(stdout);
			dpb_release_free_stats(&r);
		}
	return 0;
}
