/*
 * glm_speed.c — wall time and ESS per second of noise-aware logistic
 * regression (NUTS, exact moments) at d = 2, 4, 8: 4 chains x 1000 draws
 * after 1000 warmup, on releases of N = 10^3 and 10^5 simulated records
 * (the cost must not depend on N).  Run by bench/glm_speed.sh.
 */
#include "bench_util.h"

#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	int			ds[] = {2, 4, 8};
	long		Ns[] = {1000, 100000};
	int			maxd = argc > 1 ? atoi(argv[1]) : 8;
	int			a,
				b;

	gsl_set_error_handler_off();
	printf("| d | N | statistics | parameters | wall s | min bulk ESS | min ESS/s | max R-hat | divergences |\n");
	printf("|---|---|---|---|---|---|---|---|---|\n");
	for (a = 0; a < 3; a++)
		for (b = 0; b < 2; b++)
		{
			dpb_release r;
			dpb_infer_opts o;
			dpb_draws	dr;
			dpb_err		err;
			double		t0,
						t,
						miness = 1e300,
						maxrhat = 0;
			double	   *x;
			int			k;

			if (ds[a] > maxd)
				continue;
			bench_release(DPB_MODEL_LOGISTIC, ds[a], Ns[b], &r);
			dpb_infer_opts_default(&o, &r);
			o.seed = 7;
			t0 = bench_now();
			if (dpb_posterior_run(&r, &o, &dr, &err) != DPB_OK)
			{
				fprintf(stderr, "sampler failed: %s\n", err.msg);
				return 1;
			}
			t = bench_now() - t0;
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
			printf("| %d | %ld | %d | %d | %.1f | %.0f | %.0f | %.4f | %ld |\n", ds[a], Ns[b],
				   r.nstats, dr.nvars, t, miness, miness / t, maxrhat, dr.divergences);
			fflush(stdout);
			free(x);
			dpb_draws_free(&dr);
			dpb_release_free_stats(&r);
		}
	return 0;
}
