/*
 * step_cost.c — the measurements behind the size limit and the cancel
 * latency of docs/posterior.md ("Limits", "Cancel"); no server needed.
 *
 *   bench/tools/step_cost D linear     one Gibbs-SS iteration (and set-up)
 *   bench/tools/step_cost D logistic   one GLM log density + gradient
 *   bench/tools/step_cost D cancel T   a logistic run (limit bypassed:
 *                                      dpb_glm_run) interrupted after T s:
 *                                      how long until it returns
 *
 * The release is bench_release()'s (2000 records, add/remove neighbours:
 * an unknown N), the options the defaults with seed 1.
 */
#include "bench_util.h"
#include "gibbs_linear.h"
#include "glm_model.h"
#include "posterior.h"

#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double t_fire;

static int
fire_at(void)
{
	return bench_now() >= t_fire;
}

int
main(int argc, char **argv)
{
	int			d = argc > 1 ? atoi(argv[1]) : 8;
	const char *what = argc > 2 ? argv[2] : "logistic";
	int			lin = strcmp(what, "linear") == 0;
	dpb_release r;
	dpb_infer_opts o;
	dpb_draws	dr;
	dpb_err		err;
	double		t0;

	gsl_set_error_handler_off();
	bench_release(lin ? DPB_MODEL_LINEAR : DPB_MODEL_LOGISTIC, d, 2000, &r);
	dpb_infer_opts_default(&o, &r);
	o.seed = 1;
	o.chains = 1;
	if (strcmp(what, "cancel") == 0)
	{
		double		after = argc > 3 ? atof(argv[3]) : 1.0;
		dpb_status	st;

		o.interrupt = fire_at;
		t_fire = bench_now() + after;
		st = dpb_glm_run(&r, &o, &dr, &err);
		printf("logistic d=%d: interrupt at %.1f s, returned %.3f s later (%s)\n", d, after,
			   bench_now() - t_fire, st == DPB_EINTR ? "interrupted" : "not interrupted");
		if (st == DPB_OK)
			dpb_draws_free(&dr);
	}
	else if (lin)
	{
		double		t1;

		o.warmup = 1;
		o.draws = 1;
		t0 = bench_now();
		if (dpb_gibbs_linear_run(&r, &o, &dr, &err) == DPB_OK)
			dpb_draws_free(&dr);
		t1 = bench_now() - t0;
		o.warmup = 5;
		o.draws = 5;
		t0 = bench_now();
		if (dpb_gibbs_linear_run(&r, &o, &dr, &err) == DPB_OK)
			dpb_draws_free(&dr);
		printf("linear d=%d: %d statistics; set-up + 2 iterations %.3f s, one iteration %.4f s\n",
			   d, r.nstats, t1, (bench_now() - t0 - t1) / 8);
	}
	else
	{
		dpb_glm_ctx *c = dpb_glm_ctx_new(&r, &o);
		int			dim = dpb_glm_dim(d, 1) + 1;
		double	   *phi = malloc(sizeof(double) * 2 * dim),
					lp = 0;
		gsl_rng    *rng = dpb_chain_rng(1, 0);
		int			k;

		dpb_glm_init(c, rng, phi);
		t0 = bench_now();
		for (k = 0; k < 3 || bench_now() - t0 < 0.5; k++)
			lp += dpb_glm_logp(phi, phi + dim, c);
		printf("logistic d=%d: %d statistics; one gradient %.4f s (logp %.3g)\n", d, r.nstats,
			   (bench_now() - t0) / k, lp / k);
		gsl_rng_free(rng);
		free(phi);
		dpb_glm_ctx_free(c);
	}
	free(r.stats);
	return 0;
}
