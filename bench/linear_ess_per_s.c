/*
 * linear_ess_per_s.c — effective draws per second of the default linear
 * sampler (NUTS, statistics marginalised) against the old default
 * (Gibbs-SS, no thinning) on the same releases, both at the default run
 * (4 chains x 1000 draws after 1000 warmup).  For each release and sampler:
 * wall time of the run, the worst (smallest) bulk and tail ESS over the
 * reported variables and the worst R-hat; ESS/s = min(bulk, tail) / time.
 * Run by bench/linear_ess_per_s.sh; no server needed.
 */
#include "bench_util.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void		openblas_set_num_threads(int n);

static int
cmp(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

/* runs one sampler; worst diagnostics over the variables */
static int
measure(const dpb_release *r, dpb_sampler s, double *secs, double *ess, double *rhat)
{
	dpb_infer_opts o;
	dpb_draws	dr;
	dpb_err		err;
	double		t0,
			   *x;

	dpb_infer_opts_default(&o, r);
	o.sampler = s;
	o.seed = 1;
	t0 = bench_now();
	if (dpb_posterior_run(r, &o, &dr, &err) != DPB_OK)
	{
		fprintf(stderr, "sampler failed: %s %s\n", err.msg, err.detail);
		return 1;
	}
	*secs = bench_now() - t0;
	*ess = 1e300;
	*rhat = 0;
	x = malloc(sizeof(double) * dr.chains * dr.iters);
	for (int k = 0; k < dr.nvars; k++)
	{
		dpb_summary sm;

		bench_summarize_var(&dr, k, x, &sm);
		*ess = fmin(*ess, fmin(sm.ess_bulk, sm.ess_tail));
		*rhat = fmax(*rhat, sm.rhat);
	}
	free(x);
	dpb_draws_free(&dr);
	return 0;
}

int
main(void)
{
	int			ds[] = {2, 5};
	long		Ns[] = {1000, 50000, 1000000};
	double		epss[] = {0.5, 1};
	double		nuts_rate[64],
				gibbs_rate[64],
				ratio[64];
	int			n = 0;

	gsl_set_error_handler_off();
	openblas_set_num_threads(1);
	printf("| d | N | eps | noise | NUTS s | NUTS min ESS | NUTS max R-hat | NUTS ESS/s "
		   "| Gibbs s | Gibbs min ESS | Gibbs max R-hat | Gibbs ESS/s | ratio |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 3; b++)
			for (int e = 0; e < 2; e++)
				for (int m = 0; m < 2; m++)
				{
					dpb_release r;
					double		tn,
								en,
								rn,
								tg,
								eg,
								rg;

					bench_release_grid(DPB_MODEL_LINEAR, ds[a], Ns[b], epss[e],
									   m ? DPB_MECH_LAPLACE : DPB_MECH_GAUSSIAN, &r);
					if (measure(&r, DPB_SAMPLER_NUTS, &tn, &en, &rn) ||
						measure(&r, DPB_SAMPLER_GIBBS, &tg, &eg, &rg))
						return 1;
					nuts_rate[n] = en / tn;
					gibbs_rate[n] = eg / tg;
					ratio[n] = nuts_rate[n] / gibbs_rate[n];
					printf("| %d | %ld | %g | %s | %.2f | %.0f | %.4f | %.0f | %.2f | %.0f | %.4f | %.1f | %.1f |\n",
						   ds[a], Ns[b], epss[e], m ? "laplace" : "gaussian", tn, en, rn,
						   nuts_rate[n], tg, eg, rg, gibbs_rate[n], ratio[n]);
					fflush(stdout);
					n++;
					dpb_release_free_stats(&r);
				}
	qsort(nuts_rate, n, sizeof(double), cmp);
	qsort(gibbs_rate, n, sizeof(double), cmp);
	qsort(ratio, n, sizeof(double), cmp);
	printf("\nMedians over the %d releases: NUTS %.0f ESS/s, Gibbs-SS %.1f ESS/s; "
		   "median per-release ratio %.1f (min %.1f, max %.1f).\n",
		   n, nuts_rate[n / 2], gibbs_rate[n / 2], ratio[n / 2], ratio[0], ratio[n - 1]);
	return 0;
}
