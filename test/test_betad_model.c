/*
 * test_betad_model.c — the betaD posterior's log density (betad_model.h):
 * exact gradients against central finite differences (logistic and
 * Gaussian, with and without intercept, beta from 1.01 to 11, features with
 * huge values), and the limit beta -> 1, where the loss's gradient becomes
 * the log-likelihood's (a wrong formula fails it).
 */
#include "unit.h"

#include "betad/betad_model.h"
#include "betad/betad_kernel.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>

static void
make_data(gsl_rng *r, int gaussian, int n, int d, double xscale, double *X, double *y)
{
	int			i,
				j;

	for (i = 0; i < n; i++)
	{
		double		u = 0.3;

		for (j = 0; j < d; j++)
		{
			X[i * d + j] = xscale * gsl_ran_ugaussian(r);
			u += (j % 2 ? -0.7 : 0.5) * X[i * d + j];
		}
		if (gaussian)
			y[i] = u + 0.8 * gsl_ran_ugaussian(r);
		else
			y[i] = gsl_rng_uniform(r) < 1 / (1 + exp(-u)) ? 1 : -1;
	}
}

static void
check_gradients(gsl_rng *r)
{
	int			gaussian,
				ic,
				bi,
				bad = 0,
				tried = 0;
	double		betas[] = {1.01, 1.3, 3, 11};

	for (gaussian = 0; gaussian <= 1; gaussian++)
		for (ic = 0; ic <= 1; ic++)
			for (bi = 0; bi < 4; bi++)
			{
				/* more rows than a block of betad_model.c (512) once */
				int			n = bi == 1 ? 1100 : 60,
							d = 3,
							k,
							dim;
				double		X[1100 * 3],
							y[1100],
							work[2200],
							par[8],
							grad[8],
							xscale = bi == 3 ? 40.0 : 1.0;	/* huge u */
				dpb_betad_model m = {gaussian, d, ic, betas[bi], 2.0, 0.05, 1.0, 1.0,
				n, X, y, work, 0, 0, NULL, NULL};

				make_data(r, gaussian, n, d, xscale, X, y);
				dim = dpb_betad_dim(&m);
				for (k = 0; k < dim; k++)
					par[k] = 0.4 * gsl_ran_ugaussian(r) / (bi == 3 ? 20 : 1);
				(void) dpb_betad_logpost(&m, par, grad);
				for (k = 0; k < dim; k++)
				{
					double		h = 1e-5 * fmax(1, fabs(par[k])),
								save = par[k],
								fp,
								fm,
								fd;

					par[k] = save + h;
					fp = dpb_betad_logpost(&m, par, NULL);
					par[k] = save - h;
					fm = dpb_betad_logpost(&m, par, NULL);
					par[k] = save;
					fd = (fp - fm) / (2 * h);
					tried++;
					if (!(fabs(fd - grad[k]) <= 1e-5 * fmax(1, fabs(fd))))
					{
						if (bad++ < 5)
							CHECK(0, "gaussian %d ic %d beta %g: d/dpar[%d] = %.10g, finite difference %.10g",
								  gaussian, ic, betas[bi], k, grad[k], fd);
					}
				}
				CHECK(isfinite(dpb_betad_logpost(&m, par, NULL)), "finite log density");
			}
	CHECK(bad == 0, "%d of %d gradient entries differ from finite differences", bad, tried);
}

/* beta -> 1: the gradient of the betaD log density tends to the one of the
 * log-likelihood (the prior's part is the same) */
static void
check_beta_one_limit(gsl_rng *r)
{
	int			n = 80,
				d = 2,
				i,
				k;
	double		X[160],
				y[80],
				work[160],
				par[3] = {0.2, -0.4, 0.7},
				grad[3],
				ll[3] = {0, 0, 0};
	dpb_betad_model m = {0, d, 1, 1.0 + 1e-7, 1e6, 0, 0, 0, n, X, y, work, 0, 0, NULL, NULL};

	make_data(r, 0, n, d, 1.0, X, y);
	/* the logistic log-likelihood's gradient: sum_i y_i (1 - q_i) xbar_i */
	for (i = 0; i < n; i++)
	{
		double		u = par[0] + par[1] * X[i * d] + par[2] * X[i * d + 1],
					q = 1 / (1 + exp(-y[i] * u)),
					gi = y[i] * (1 - q);

		ll[0] += gi;
		ll[1] += gi * X[i * d];
		ll[2] += gi * X[i * d + 1];
	}
	(void) dpb_betad_logpost(&m, par, grad);
	for (k = 0; k < 3; k++)
		CHECK(fabs(grad[k] - ll[k]) < 1e-4 * fmax(1, fabs(ll[k])),
			  "beta -> 1: gradient %d %.8g, log-likelihood's %.8g", k, grad[k], ll[k]);
}

/*
 * The vector path of the per-record terms (libmvec, AVX2) against the
 * scalar reference on the same inputs: linear predictors from 0 to +-800
 * (exp underflows), an odd count (the scalar tail), beta from 1.01 to 11.
 * libmvec's exp and log are within 4 ulp, so sums and derivatives agree to
 * 1e-12 relative; a wrong blend or a swapped p / 1 - p is off by O(1).
 */
static void
check_kernel_paths(gsl_rng *r)
{
	enum { n = 1003 };
	static double u[n], y[n], yg[n], g1[n], g2[n];
	double		betas[] = {1.01, 1.5, 3, 11};
	int			bi,
				i,
				bad = 0;

	if (!dpb_betad_kernel_vector())
	{
#if defined(DPB_HAVE_LIBMVEC) && defined(__x86_64__)
		__builtin_cpu_init();
		CHECK(!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")),
			  "built with libmvec on an AVX2 CPU, but the scalar kernel is in use");
#endif
		printf("    (betad kernel: scalar path only on this build or CPU)\n");
		return;
	}
	for (i = 0; i < n; i++)
	{
		double		scale = i % 7 == 0 ? 800.0 : i % 3 == 0 ? 30.0 : 3.0;

		u[i] = scale * (2 * gsl_rng_uniform(r) - 1);
		y[i] = gsl_rng_uniform(r) < 0.5 ? 1 : -1;
		yg[i] = u[i] + (i % 5 == 0 ? 40.0 : 1.0) * gsl_ran_ugaussian(r);
	}
	u[0] = 0.0;
	u[1] = -0.0;
	for (bi = 0; bi < 4; bi++)
	{
		double		s1,
					s2,
					d1 = 0,
					d2 = 0;

		dpb_betad_kernel_force_scalar(1);
		s1 = dpb_betad_logistic_terms(u, y, n, betas[bi], g1);
		dpb_betad_kernel_force_scalar(0);
		s2 = dpb_betad_logistic_terms(u, y, n, betas[bi], g2);
		CHECK(fabs(s1 - s2) <= 1e-12 * fmax(1, fabs(s1)),
			  "logistic beta %g: vector sum %.17g, scalar %.17g", betas[bi], s2, s1);
		for (i = 0; i < n; i++)
			if (!(fabs(g1[i] - g2[i]) <= 1e-13 + 1e-12 * fabs(g1[i])) && bad++ < 3)
				CHECK(0, "logistic beta %g, record %d: vector %.17g, scalar %.17g",
					  betas[bi], i, g2[i], g1[i]);
		dpb_betad_kernel_force_scalar(1);
		s1 = dpb_betad_gauss_terms(u, yg, n, betas[bi], 2.5, g1, &d1);
		dpb_betad_kernel_force_scalar(0);
		s2 = dpb_betad_gauss_terms(u, yg, n, betas[bi], 2.5, g2, &d2);
		CHECK(fabs(s1 - s2) <= 1e-12 * fmax(1, fabs(s1)) &&
			  fabs(d1 - d2) <= 1e-12 * fmax(1, fabs(d1)),
			  "gaussian beta %g: vector %.17g %.17g, scalar %.17g %.17g", betas[bi], s2, d2,
			  s1, d1);
		for (i = 0; i < n; i++)
			if (!(fabs(g1[i] - g2[i]) <= 1e-13 + 1e-12 * fabs(g1[i])) && bad++ < 3)
				CHECK(0, "gaussian beta %g, record %d: vector %.17g, scalar %.17g",
					  betas[bi], i, g2[i], g1[i]);
	}
	CHECK(bad == 0, "%d per-record derivatives differ between the kernel's paths", bad);
}

void
test_betad_model(void)
{
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(r, USEED(31));
	check_gradients(r);
	check_beta_one_limit(r);
	check_kernel_paths(r);
	gsl_rng_free(r);
}
