/*
 * omega_grad.c — the cost of one log density + gradient of the linear
 * model's NUTS target (linear_model.c, dpb_lin_logp) on a release of the
 * posterior grid (bench_release_grid, reproducible insecure noise), at the
 * chain's initial point: the median over REPS (default 7) of the mean time
 * of CALLS (default 2000) calls.  No server needed.
 *
 *   bench/tools/omega_grad D N EPS [laplace|gaussian] [omega|latent|latent_mixed|latent_chol]
 */
#include "bench_util.h"
#include "linear_model.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
cmp(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	int			d = argc > 1 ? atoi(argv[1]) : 10;
	long		N = argc > 2 ? atol(argv[2]) : 10000;
	double		eps = argc > 3 ? atof(argv[3]) : 1;
	int			lap = argc > 4 ? strcmp(argv[4], "gaussian") != 0 : 1;
	const char *form = argc > 5 ? argv[5] : "omega";
	int			reps = getenv("REPS") ? atoi(getenv("REPS")) : 7,
				calls = getenv("CALLS") ? atoi(getenv("CALLS")) : 2000;
	dpb_release r;
	dpb_infer_opts o;
	dpb_lin_ctx *c;
	gsl_rng    *rng;
	double	   *phi,
			   *g,
			   *t,
				lp = 0;

	gsl_set_error_handler_off();
	bench_release_grid(DPB_MODEL_LINEAR, d, N, eps,
					   lap ? DPB_MECH_LAPLACE : DPB_MECH_GAUSSIAN, &r);
	dpb_infer_opts_default(&o, &r);
	if (o.lin.xmoments == DPB_XMOM_NOISY)
		o.lin.xmoments = DPB_XMOM_UPDATE;
	o.lin.laplace_latent = strcmp(form, "latent") == 0 ? 2 :
		strcmp(form, "latent_chol") == 0 ? 1 :
		strcmp(form, "latent_mixed") == 0 ? DPB_LIN_LATENT_MIXED : 0;
	/* the mixed form in its default coordinates (polar from d = 8) */
	o.lin.polar = o.lin.laplace_latent == DPB_LIN_LATENT_MIXED && d >= DPB_LIN_MIXED_MIN_D;
	c = dpb_lin_ctx_new(&r, &o);
	if (c == NULL)
	{
		fprintf(stderr, "omega_grad: no context\n");
		return 1;
	}
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 1);
	dpb_lin_set_rng(c, rng);
	phi = malloc(sizeof(double) * dpb_lin_ctx_dim(c));
	g = malloc(sizeof(double) * dpb_lin_ctx_dim(c));
	t = malloc(sizeof(double) * reps);
	dpb_lin_init(c, rng, phi);
	for (int k = 0; k < reps; k++)
	{
		double		t0 = bench_now();

		for (int i = 0; i < calls; i++)
			lp += dpb_lin_logp(phi, g, c);
		t[k] = (bench_now() - t0) / calls * 1e6;
	}
	qsort(t, reps, sizeof(double), cmp);
	printf("d %d N %ld eps %g %s %s dim %d: %.2f us per gradient (median of %d x %d calls; min %.2f, max %.2f) logp %.10g grad[0] %.10g\n",
		   d, N, eps, lap ? "laplace" : "gaussian", form, dpb_lin_ctx_dim(c), t[reps / 2], reps,
		   calls, t[0], t[reps - 1], lp / ((double) reps * calls), g[0]);
	return 0;
}
