/*
 * glm_summary.c — posterior summaries of the noise-aware logistic sampler
 * on bench_release()'s release, every variable (nuisance included): mean,
 * sd, MCSE of the mean (sd / sqrt(bulk ESS)), bulk ESS, R-hat, one tab-
 * separated line each.  bench/tools/glm_agree.sh builds it against two
 * versions of src/core and compares their means (the sampler may change,
 * the posterior must not).
 *
 *   glm_summary D N CHAINS DRAWS [SEED]
 */
#include "bench_util.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	dpb_release r;
	dpb_infer_opts o;
	dpb_draws	dr;
	dpb_err		err;
	double	   *x;
	int			k;

	if (argc < 5)
	{
		fprintf(stderr, "usage: glm_summary D N CHAINS DRAWS [SEED]\n");
		return 2;
	}
	gsl_set_error_handler_off();
	bench_release(DPB_MODEL_LOGISTIC, atoi(argv[1]), atol(argv[2]), &r);
	dpb_infer_opts_default(&o, &r);
	o.chains = atoi(argv[3]);
	o.draws = atoi(argv[4]);
	o.seed = argc > 5 ? strtoull(argv[5], NULL, 10) : 7;
	o.nuisance = 1;
	if (dpb_posterior_run(&r, &o, &dr, &err) != DPB_OK)
	{
		fprintf(stderr, "sampler failed: %s\n", err.msg);
		return 1;
	}
	x = malloc(sizeof(double) * dr.chains * dr.iters);
	printf("variable\tmean\tsd\tmcse\tess_bulk\trhat\n");
	for (k = 0; k < dr.nvars; k++)
	{
		dpb_summary s;

		bench_summarize_var(&dr, k, x, &s);
		printf("%s\t%.6g\t%.6g\t%.3g\t%.0f\t%.4f\n", dr.names[k], s.mean, s.sd,
			   s.sd / sqrt(s.ess_bulk), s.ess_bulk, s.rhat);
	}
	free(x);
	dpb_draws_free(&dr);
	dpb_release_free_stats(&r);
	return 0;
}
