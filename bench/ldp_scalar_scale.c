/*
 * ldp_scalar_scale.c — the clipped Gaussian posterior (ldp_models.h) at
 * large N, grouped and binned (dpb_ldpm_group) or ungrouped:
 *
 *   ldp_scalar_scale N EPS MODE [ITERS [MECH]]
 *
 * MECH scalar_laplace (the default) or scalar_gaussian (delta 1e-6; model
 * gaussian_gn, every report a term: Gaussian noise does not factorise
 * beyond the bounds).
 *
 * N records x ~ N(1, 1.5^2) are randomized by the core's scalar_laplace
 * randomizer (dpb_ldp_randomize, clipped to [-5, 5], insecure seeded bits:
 * reports exactly as clients would send them, on the public grid), then
 * split as the server's collection does (below, above, in range).  MODE
 * "grouped" (the default path of dpb_ldpm_run) or "ungrouped" (bin_tol
 * -1); "evalonly": the ungrouped path's time per evaluation only.  One NUTS
 * chain, ITERS (500) warmup + ITERS draws, seed 1.  Prints one Markdown
 * row: N, in-range reports, distinct in-range values, terms, bins, the
 * bound v, the set-up (grouping) time, one evaluation, evaluations, the run
 * (set-up included), the posterior means of mu and sigma, max RSS.
 */
#include "bench_util.h"
#include "ldp.h"
#include "ldp_models.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int
cmpd(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : (x > y);
}

static long
distinct(const double *z, long n)
{
	double	   *s = malloc(sizeof(double) * (n > 0 ? n : 1));
	long		k = 0;

	memcpy(s, z, sizeof(double) * n);
	qsort(s, n, sizeof(double), cmpd);
	for (long i = 0; i < n; i++)
		k += i == 0 || s[i] != s[i - 1];
	free(s);
	return k;
}

int
main(int argc, char **argv)
{
	long		N;
	double		eps;
	const char *mode;
	int			it,
				gn;
	char		json[256];
	dpb_ldp_protocol p;
	dpb_ldp_calib c;
	dpb_err		err;
	dpb_rbits  *rb;
	gsl_rng    *r;
	dpb_ldpm_data dt;
	dpb_ldpm_prior pr;
	dpb_ldpm_groups g;
	double	   *z,
				t0,
				tg,
				te,
				trun,
				phi[2] = {1, log(1.5)},
				grad[2],
				m[2] = {0, 0};
	long		n_in = 0,
				n_low = 0,
				n_high = 0;
	struct rusage ru;

	if (argc < 4)
	{
		fprintf(stderr, "usage: ldp_scalar_scale N EPS grouped|ungrouped|evalonly [ITERS]\n");
		return 2;
	}
	gsl_set_error_handler_off();
	N = atol(argv[1]);
	eps = atof(argv[2]);
	mode = argv[3];
	it = argc > 4 ? atoi(argv[4]) : 500;
	gn = argc > 5 && strcmp(argv[5], "scalar_gaussian") == 0;
	if (gn)
		snprintf(json, sizeof(json),
				 "{\"mechanism\":\"scalar_gaussian\",\"epsilon\":%.17g,\"delta\":1e-6,\"lower\":-5,\"upper\":5}", eps);
	else
		snprintf(json, sizeof(json),
				 "{\"mechanism\":\"scalar_laplace\",\"epsilon\":%.17g,\"lower\":-5,\"upper\":5}", eps);
	if (dpb_ldp_protocol_parse(json, &p, &err) != DPB_OK
		|| dpb_ldp_calibrate(&p, &c, &err) != DPB_OK)
	{
		fprintf(stderr, "protocol: %s\n", err.msg);
		return 1;
	}
	rb = dpb_rbits_new_insecure_seeded(20261126);
	r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 7);
	z = malloc(sizeof(double) * N);
	memset(&dt, 0, sizeof(dt));
	dt.model = DPB_LDPM_GAUSSIAN;
	dt.a = ldexp((double) c.vlo, c.grid_exp);
	dt.b = ldexp((double) c.vhi, c.grid_exp);
	if (gn)
	{
		dt.model = DPB_LDPM_GAUSSIAN_GN;
		dt.tau = ldexp(sqrt((double) c.gauss_sigma2), c.grid_exp);
	}
	else
		dt.lambda = 1.0 / ldexp((double) c.lap_t, c.grid_exp);
	for (long i = 0; i < N; i++)
	{
		double		x = 1 + gsl_ran_gaussian(r, 1.5),
					out;

		if (dpb_ldp_randomize(&p, &c, &x, rb, &out, &err) != DPB_OK)
		{
			fprintf(stderr, "randomize: %s\n", err.msg);
			return 1;
		}
		if (gn)
			z[n_in++] = out;	/* every report */
		else if (out < dt.a)
			n_low++;
		else if (out > dt.b)
			n_high++;
		else
			z[n_in++] = out;
	}
	dt.n = (double) N;
	dt.n_low = (double) n_low;
	dt.n_high = (double) n_high;
	dt.n_in = n_in;
	dt.z = z;
	dpb_ldpm_prior_default(&dt, &pr);

	/* the set-up alone, and one evaluation of the path the run takes */
	t0 = bench_now();
	memset(&g, 0, sizeof(g));
	if (strcmp(mode, "grouped") == 0
		&& dpb_ldpm_group(&dt, DPB_LDPM_BIN_TOL, DPB_LDPM_GROUP_MAX_DISTINCT, NULL, &g) != DPB_OK)
		return 1;
	tg = bench_now() - t0;
	{
		dpb_ldpm_data gd = dt;
		int			ne = 0;

		if (g.k > 0)
			gd.n_grp = g.k, gd.gz = g.z, gd.gw = g.w;
		t0 = bench_now();
		do
			dpb_ldpm_loglik(&gd, phi, grad);
		while (++ne < 3 || bench_now() - t0 < 0.3);
		te = (bench_now() - t0) / ne;
	}
	printf("| %ld | %s | %ld | %ld | %ld | %ld | %.2g | %.3f s | %.3g ms |", N, mode, n_in,
		   distinct(z, n_in), g.k > 0 ? g.k : n_in, g.bins, g.v, tg, 1e3 * te);
	if (strcmp(mode, "evalonly") == 0 || it == 0)
		printf(" - | - | - | - |");
	else
	{
		dpb_ldpm_run_opts o = {1, it, it, 1, 0.8, 10, NULL,
		strcmp(mode, "grouped") == 0 ? 0 : -1};
		dpb_draws	dr;

		t0 = bench_now();
		if (dpb_ldpm_run(&dt, &pr, &o, &dr, &err) != DPB_OK)
		{
			fprintf(stderr, "run: %s\n", err.msg);
			return 1;
		}
		trun = bench_now() - t0;
		for (int i = 0; i < dr.iters; i++)
			for (int k = 0; k < 2; k++)
				m[k] += dr.v[(size_t) i * 2 + k] / dr.iters;
		printf(" %ld | %.2f s | %.4f | %.4f |", dr.proposals, trun, m[0], m[1]);
		dpb_draws_free(&dr);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf(" %.0f MB |\n", ru.ru_maxrss / 1024.0);
	dpb_ldpm_groups_free(&g);
	dpb_rbits_free(rb);
	gsl_rng_free(r);
	free(z);
	return 0;
}
