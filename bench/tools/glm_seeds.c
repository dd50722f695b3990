/*
 * glm_seeds.c — one line per sampler seed for the default noise-aware GLM
 * posterior of one bench_release() release: gradients per iteration (warmup
 * included), divergences, the smallest bulk ESS and the largest R-hat over
 * the reported variables, and the wall time.  Built by glm_ab.sh.
 *
 *   glm_seeds D N SEED0 NSEEDS [logistic|poisson]
 */
#include "bench_util.h"

#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	dpb_release r;
	int			d,
				s0,
				ns;
	long		N;

	if (argc < 5)
	{
		fprintf(stderr, "usage: glm_seeds D N SEED0 NSEEDS [logistic|poisson]\n");
		return 2;
	}
	d = atoi(argv[1]);
	N = atol(argv[2]);
	s0 = atoi(argv[3]);
	ns = atoi(argv[4]);
	gsl_set_error_handler_off();
	bench_release(argc > 5 && argv[5][0] == 'p' ? DPB_MODEL_POISSON : DPB_MODEL_LOGISTIC,
				  d, N, &r);
	for (int s = s0; s < s0 + ns; s++)
	{
		dpb_infer_opts o;
		dpb_draws	dr;
		dpb_err		err;
		double		t0,
					wall,
					miness = 1e300,
					maxr = 0;
		double	   *x;

		dpb_infer_opts_default(&o, &r);
		o.seed = (unsigned long) s;
		t0 = bench_now();
		if (dpb_posterior_run(&r, &o, &dr, &err) != DPB_OK)
		{
			fprintf(stderr, "sampler failed: %s\n", err.msg);
			return 1;
		}
		wall = bench_now() - t0;
		x = malloc(sizeof(double) * dr.chains * dr.iters);
		for (int k = 0; k < dr.nvars; k++)
		{
			dpb_summary su;

			bench_summarize_var(&dr, k, x, &su);
			if (su.ess_bulk < miness)
				miness = su.ess_bulk;
			if (su.rhat > maxr)
				maxr = su.rhat;
		}
		printf("seed %d gradients/iteration %.2f divergences %ld min_bulk_ess %.0f max_rhat %.4f wall_s %.1f\n",
			   s, (double) dr.proposals / ((double) dr.chains * (o.warmup + o.draws)),
			   dr.divergences, miness, maxr, wall);
		fflush(stdout);
		free(x);
		dpb_draws_free(&dr);
	}
	dpb_release_free_stats(&r);
	return 0;
}
