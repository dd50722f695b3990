/*
 * glm_speed.c — wall time and ESS per second of noise-aware logistic
 * regression (NUTS, exact moments) at d = 2, 4, 8, 12: 4 chains x 1000
 * draws after 1000 warmup, on releases of N = 10^3 and 10^5 simulated
 * records (the cost must not depend on N).  Each cell is run RUNS times
 * (seeds 7, 8, ...); the table has the medians (and the largest R-hat,
 * the total of divergences).  Run by bench/glm_speed.sh.
 *
 *   bench/glm_speed [MAXD [RUNS [MIND]]]
 */
#include "bench_util.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_RUNS 15

static double
median(double *x, int n)
{
	gsl_sort(x, 1, n);
	return gsl_stats_median_from_sorted_data(x, 1, n);
}

int
main(int argc, char **argv)
{
	int			ds[] = {2, 4, 8, 12};
	long		Ns[] = {1000, 100000};
	int			maxd = argc > 1 ? atoi(argv[1]) : 8;
	int			runs = argc > 2 ? atoi(argv[2]) : 1;
	int			mind = argc > 3 ? atoi(argv[3]) : 1;
	int			a,
				b;

	gsl_set_error_handler_off();
	if (runs < 1 || runs > MAX_RUNS)
	{
		fprintf(stderr, "RUNS must be in 1 .. %d\n", MAX_RUNS);
		return 1;
	}
	printf("| d | N | statistics | parameters | runs | wall s | gradients / iteration | "
		   "min bulk ESS | min ESS/s | max R-hat | divergences |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (a = 0; a < 4; a++)
		for (b = 0; b < 2; b++)
		{
			dpb_release r;
			double		wall[MAX_RUNS],
						grads[MAX_RUNS],
						ess[MAX_RUNS],
						esss[MAX_RUNS],
						maxrhat = 0;
			long		div = 0;
			int			nvars = 0,
						run;

			if (ds[a] > maxd || ds[a] < mind)
				continue;
			bench_release(DPB_MODEL_LOGISTIC, ds[a], Ns[b], &r);
			for (run = 0; run < runs; run++)
			{
				dpb_infer_opts o;
				dpb_draws	dr;
				dpb_err		err;
				double		t0,
							miness = 1e300;
				double	   *x;
				int			k;

				dpb_infer_opts_default(&o, &r);
				o.seed = 7 + run;
				t0 = bench_now();
				if (dpb_posterior_run(&r, &o, &dr, &err) != DPB_OK)
				{
					fprintf(stderr, "sampler failed: %s\n", err.msg);
					return 1;
				}
				wall[run] = bench_now() - t0;
				x = malloc(sizeof(double) * dr.chains * dr.iters);
				for (k = 0; k < dr.nvars; k++)
				{
					dpb_summary s;

					bench_summarize_var(&dr, k, x, &s);
					if (s.ess_bulk < miness)
						miness = s.ess_bulk;
					if (s.rhat > maxrhat)
						maxrhat = s.rhat;
				}
				ess[run] = miness;
				esss[run] = miness / wall[run];
				grads[run] = (double) dr.proposals /
					((double) dr.chains * (o.warmup + o.draws));
				div += dr.divergences;
				nvars = dr.nvars;
				free(x);
				dpb_draws_free(&dr);
			}
			printf("| %d | %ld | %d | %d | %d | %.1f | %.1f | %.0f | %.0f | %.4f | %ld |\n",
				   ds[a], Ns[b], r.nstats, nvars, runs, median(wall, runs),
				   median(grads, runs), median(ess, runs), median(esss, runs),
				   maxrhat, div);
			fflush(stdout);
			dpb_release_free_stats(&r);
		}
	return 0;
}
