/*
 * test_ldp_models.c — the local-DP posteriors (ldp_models.h): the digest's
 * closed-form test vectors (§A5.4), quadrature, brute-force likelihoods,
 * gradients against finite differences, and posterior recovery.
 */
#include "unit.h"
#include "ldp_models.h"
#include "ldp_sim.h"
#include "diag.h"
#include "posterior.h"

#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- quadrature references ---- */

typedef struct qpar
{
	double		z,
				mu,
				sigma,
				rate,
				lambda;
} qpar;

static double
q_gauss(double x, void *v)
{
	qpar	   *p = v;

	return gsl_ran_gaussian_pdf(x - p->mu, p->sigma) * 0.5 * p->lambda
		* exp(-p->lambda * fabs(p->z - x));
}

static double
q_exp(double x, void *v)
{
	qpar	   *p = v;

	return p->rate * exp(-p->rate * x) * 0.5 * p->lambda * exp(-p->lambda * fabs(p->z - x));
}

/* eq. 28 by quadrature: atoms + the integral over (a, b), split at z */
static double
ref_gauss(double z, double mu, double sigma, double a, double b, double lambda)
{
	qpar		p = {z, mu, sigma, 0, lambda};
	gsl_function f = {q_gauss, &p};
	gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
	double		r1 = 0,
				r2 = 0,
				e,
				l = z < a ? a : (z > b ? b : z);

	if (l > a)
		gsl_integration_qag(&f, a, l, 0, 1e-13, 1000, 6, w, &r1, &e);
	if (l < b)
		gsl_integration_qag(&f, l, b, 0, 1e-13, 1000, 6, w, &r2, &e);
	gsl_integration_workspace_free(w);
	return r1 + r2 + 0.5 * lambda * (gsl_cdf_gaussian_P(a - mu, sigma) * exp(-lambda * fabs(z - a))
									 + gsl_cdf_gaussian_Q(b - mu, sigma) * exp(-lambda * fabs(z - b)));
}

static double
ref_exp(double z, double rate, double b, double lambda)
{
	qpar		p = {z, 0, 0, rate, lambda};
	gsl_function f = {q_exp, &p};
	gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
	double		r1 = 0,
				r2 = 0,
				e,
				l = z < 0 ? 0 : (z > b ? b : z);

	if (l > 0)
		gsl_integration_qag(&f, 0, l, 0, 1e-13, 1000, 6, w, &r1, &e);
	if (l < b)
		gsl_integration_qag(&f, l, b, 0, 1e-13, 1000, 6, w, &r2, &e);
	gsl_integration_workspace_free(w);
	return r1 + r2 + 0.5 * lambda * exp(-rate * b) * exp(-lambda * fabs(z - b));
}

static void
test_vectors(void)
{
	/* digest §A5.4, eq. 28: (z, mu, sigma, eps), [a, b] = [-5, 5] */
	static const double g[4][5] = {
		{0.3, 0.5, 1.2, 1.0, 0.0454937961047143},
		{-7, 1, 2, 0.5, 0.0168523787477726},
		{9, -1, 0.7, 2, 0.0136668089101756},
		{4.9, 4.0, 3.0, 0.1, 0.0049149019904910}};
	/* eq. 30: (z, rate, eps), b = 5 */
	static const double e[4][4] = {
		{1.0, 0.7, 1.0, 0.0840251878397231},
		{-3, 2.0, 0.5, 0.0352771066979470},
		{12, 0.3, 2, 0.0059169989803487},
		{2.5, 1.3, 0.4, 0.0347079608646853}};

	for (int i = 0; i < 4; i++)
	{
		double		v = exp(dpb_ldpm_gauss_logpdf(g[i][0], g[i][1], g[i][2], -5, 5,
												  g[i][3] / 10, NULL, NULL));

		CHECK_REL(v, g[i][4], 1e-12, "eq. 28 test vector");
		CHECK_REL(v, ref_gauss(g[i][0], g[i][1], g[i][2], -5, 5, g[i][3] / 10), 1e-10,
				  "eq. 28 vs quadrature");
		v = exp(dpb_ldpm_exp_logpdf(e[i][0], e[i][1], 5, e[i][2] / 5, NULL));
		CHECK_REL(v, e[i][3], 1e-12, "eq. 30 test vector");
		CHECK_REL(v, ref_exp(e[i][0], e[i][1], 5, e[i][2] / 5), 1e-10, "eq. 30 vs quadrature");
	}
	/* the removable singularity rate = lambda (b rate = eps) and near it */
	for (int i = -2; i <= 2; i++)
	{
		double		rate = 0.2 * (1 + i * 1e-9),
					v = exp(dpb_ldpm_exp_logpdf(2.0, rate, 5, 0.2, NULL));

		CHECK_REL(v, ref_exp(2.0, rate, 5, 0.2), 1e-10, "eq. 30 at rate = lambda");
	}
	/* far tails (log space): a report 400 noise scales away; a narrow sigma */
	{
		double		lz = dpb_ldpm_gauss_logpdf(4000, 0.5, 0.01, -5, 5, 0.1, NULL, NULL),
					la = dpb_ldpm_gauss_logpdf(5, 0.5, 0.01, -5, 5, 0.1, NULL, NULL);

		CHECK(isfinite(lz), "eq. 28 finite far out");
		CHECK_REL(lz - la, -0.1 * 3995, 1e-12, "eq. 28 factorises beyond b");
		CHECK_REL(exp(dpb_ldpm_gauss_logpdf(3, 20, 0.5, -5, 5, 0.7, NULL, NULL)),
				  ref_gauss(3, 20, 0.5, -5, 5, 0.7), 1e-8, "eq. 28 mass in the atom at b");
		lz = dpb_ldpm_exp_logpdf(-300, 1.1, 5, 0.3, NULL);
		la = dpb_ldpm_exp_logpdf(0, 1.1, 5, 0.3, NULL);
		CHECK_REL(lz - la, -0.3 * 300, 1e-12, "eq. 30 factorises below 0");
	}
}

/* ---- gradients ---- */

static void
check_grad(const dpb_ldpm_data *dt, const dpb_ldpm_prior *pr, const double *phi,
		   const char *what)
{
	int			dim = dpb_ldpm_dim(dt);
	dpb_ldpm_ctx ctx = {dt, pr};
	double		g[256],
				gd[256],
				x[256],
				worst = 0;

	dpb_ldpm_logp(phi, g, &ctx);
	memcpy(x, phi, sizeof(double) * dim);
	for (int j = 0; j < dim; j++)
	{
		double		h = 1e-5 * fmax(1, fabs(phi[j])),
					fp,
					fm;

		x[j] = phi[j] + h;
		fp = dpb_ldpm_logp(x, gd, &ctx);
		x[j] = phi[j] - h;
		fm = dpb_ldpm_logp(x, gd, &ctx);
		x[j] = phi[j];
		worst = fmax(worst, fabs((fp - fm) / (2 * h) - g[j]) / fmax(1, fabs(g[j])));
	}
	CHECK(worst < 1e-6, "%s: gradient vs central differences, worst rel. error %g", what, worst);
}

static void
test_gradients(void)
{
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);
	ldp_sim		s;
	dpb_ldpm_prior pr;
	double		phi[64];

	gsl_rng_set(r, USEED(11));
	ldp_sim_gaussian(&s, r, 400, 1.0, 2.0, -5, 5, 1.0);
	dpb_ldpm_prior_default(&s.dt, &pr);
	phi[0] = 0.7, phi[1] = log(1.5);
	check_grad(&s.dt, &pr, phi, "gaussian");
	phi[0] = 6.5, phi[1] = log(0.2);	/* mass mostly in the atom at b */
	check_grad(&s.dt, &pr, phi, "gaussian, atom");
	ldp_sim_free(&s);

	ldp_sim_exponential(&s, r, 400, 0.6, 5, 0.5);
	dpb_ldpm_prior_default(&s.dt, &pr);
	phi[0] = log(0.8);
	check_grad(&s.dt, &pr, phi, "exponential");
	phi[0] = log(0.1 + 1e-7);	/* rate near lambda = eps / b */
	check_grad(&s.dt, &pr, phi, "exponential at rate = lambda");
	ldp_sim_free(&s);

	{
		double		th[4] = {0.4, 0.3, 0.2, 0.1};

		ldp_sim_histogram(&s, r, 300, 4, th, 1.3);
		dpb_ldpm_prior_default(&s.dt, &pr);
		phi[0] = 0.3, phi[1] = -0.2, phi[2] = 0.5;
		check_grad(&s.dt, &pr, phi, "histogram");
		ldp_sim_free(&s);
	}
	{
		double		th[4] = {0.3, 1.0, -0.7, 0.4},
					mu[3] = {0.2, -0.1, 0.3},
					L[9] = {0.8, 0, 0, 0.2, 0.6, 0, -0.1, 0.3, 0.5};

		ldp_sim_regression(&s, r, DPB_LDPM_LINEAR, 500, 3, th, 0.5, mu, L, 0.7, 0.9, 0);
		dpb_ldpm_prior_default(&s.dt, &pr);
		for (int j = 0; j < dpb_ldpm_dim(&s.dt); j++)
			phi[j] = 0.3 * sin(1.7 * j + 0.4);
		check_grad(&s.dt, &pr, phi, "linear");
		ldp_sim_free(&s);
		ldp_sim_regression(&s, r, DPB_LDPM_LOGISTIC, 300, 3, th, 0, mu, L, 0.7, 0, 0.73);
		dpb_ldpm_prior_default(&s.dt, &pr);
		for (int j = 0; j < dpb_ldpm_dim(&s.dt); j++)
			phi[j] = 0.4 * cos(1.3 * j + 0.2);
		check_grad(&s.dt, &pr, phi, "logistic");
		ldp_sim_free(&s);
	}
	gsl_rng_free(r);
}

/* ---- brute-force likelihoods ---- */

static void
test_histogram_brute(void)
{
	/* eq. 31 summed over k, K = 4, eps 1.3: differences of the
	 * log-likelihood between two theta equal the brute-force ones */
	int			K = 4;
	double		eps = 1.3,
				p = exp(eps) / (1 + exp(eps)),
				th[2][4] = {{0.4, 0.3, 0.2, 0.1}, {0.1, 0.2, 0.3, 0.4}},
				ll[2],
				bf[2] = {0, 0},
				tot = 0;
	unsigned char pat[16 * 4];
	double		cnt[16];
	dpb_ldpm_data dt = {0};

	for (int u = 0; u < 16; u++)
	{
		cnt[u] = 1 + (u * 7) % 5;
		for (int j = 0; j < K; j++)
			pat[u * K + j] = (u >> j) & 1;
	}
	dt.model = DPB_LDPM_HISTOGRAM;
	dt.K = K;
	dt.eps = eps;
	dt.npat = 16;
	dt.pat = pat;
	dt.count = cnt;
	for (int t = 0; t < 2; t++)
	{
		double		phi[3];

		for (int k = 0; k < 3; k++)
			phi[k] = log(th[t][k] / th[t][3]);
		ll[t] = dpb_ldpm_loglik(&dt, phi, NULL);
		for (int u = 0; u < 16; u++)
		{
			double		pz = 0;

			for (int k = 0; k < K; k++)
			{
				double		f = th[t][k] * 0.5;

				for (int j = 0; j < K; j++)
					if (j != k)
						f *= pat[u * K + j] ? 1 - p : p;
				pz += f;
			}
			bf[t] += cnt[u] * log(pz);
			if (t == 0)
				tot += pz;
		}
	}
	CHECK_CLOSE(tot, 1.0, 1e-14, "eq. 31 sums to 1 over the 16 patterns");
	CHECK_CLOSE(ll[0] - ll[1], bf[0] - bf[1], 1e-12, "histogram log-likelihood vs eq. 31");

	/* the column sums are not sufficient: {110, 000} and {100, 010} */
	{
		unsigned char p1[6] = {1, 1, 0, 0, 0, 0},
					p2[6] = {1, 0, 0, 0, 1, 0};
		double		c1[2] = {1, 1},
					phi1[2] = {log(0.5 / 0.2), log(0.3 / 0.2)},
					phi2[2] = {0, 0},
					r1,
					r2;
		dpb_ldpm_data a = {0};

		a.model = DPB_LDPM_HISTOGRAM;
		a.K = 3;
		a.eps = 1;
		a.npat = 2;
		a.count = c1;
		a.pat = p1;
		r1 = dpb_ldpm_loglik(&a, phi1, NULL) - dpb_ldpm_loglik(&a, phi2, NULL);
		a.pat = p2;
		r2 = dpb_ldpm_loglik(&a, phi1, NULL) - dpb_ldpm_loglik(&a, phi2, NULL);
		CHECK(fabs(r1 - r2) > 1e-3, "same column sums, different likelihood ratios (%g, %g)",
			  r1, r2);
	}
	/* OUE estimate: unbiased on the expected column means; projection */
	{
		double		f[4],
					q = 1 / (1 + exp(eps)),
					cm[4];
		unsigned char one[4 * 4];
		dpb_ldpm_data a = {0};

		/* 4 patterns e_j with counts making the column means cm */
		for (int j = 0; j < 4; j++)
		{
			cm[j] = q + th[0][j] * (0.5 - q);
			for (int l = 0; l < 4; l++)
				one[j * 4 + l] = l == j;
		}
		a.model = DPB_LDPM_HISTOGRAM;
		a.K = 4;
		a.eps = eps;
		a.npat = 4;
		a.pat = one;
		a.count = cm;			/* column mean of j = cm_j / sum(cm) */
		dpb_ldpm_oue_estimate(&a, 0, f);
		{
			double		n = cm[0] + cm[1] + cm[2] + cm[3];

			CHECK_CLOSE(f[2], (cm[2] / n - q) / (0.5 - q), 1e-14, "OUE estimate");
		}
		dpb_ldpm_oue_estimate(&a, 1, f);
		CHECK_CLOSE(f[0] + f[1] + f[2] + f[3], 1.0, 1e-14, "projected estimate sums to 1");
		CHECK(f[0] >= 0 && f[1] >= 0 && f[2] >= 0 && f[3] >= 0, "projected estimate >= 0");
	}
}

/* log N(w; m, C) for a k-vector, by Cholesky (reference) */
static double
mvn_logpdf(int k, const double *w, const double *m, const double *C)
{
	double		Lc[25],
				y[5],
				ld = 0,
				q = 0;

	memcpy(Lc, C, sizeof(double) * k * k);
	for (int j = 0; j < k; j++)
	{
		for (int l = 0; l < j; l++)
			Lc[j * k + j] -= Lc[j * k + l] * Lc[j * k + l];
		Lc[j * k + j] = sqrt(Lc[j * k + j]);
		for (int i = j + 1; i < k; i++)
		{
			for (int l = 0; l < j; l++)
				Lc[i * k + j] -= Lc[i * k + l] * Lc[j * k + l];
			Lc[i * k + j] /= Lc[j * k + j];
		}
	}
	for (int i = 0; i < k; i++)
	{
		double		s = w[i] - m[i];

		for (int l = 0; l < i; l++)
			s -= Lc[i * k + l] * y[l];
		y[i] = s / Lc[i * k + i];
		q += y[i] * y[i];
		ld += log(Lc[i * k + i]);
	}
	return -0.5 * k * log(2 * M_PI) - ld - 0.5 * q;
}

static double
q_logit(double u, void *v)
{
	double	   *p = v;

	return gsl_ran_gaussian_pdf(u - p[0], sqrt(p[1])) / (1 + exp(-u));
}

static void
test_regression_brute(void)
{
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);
	ldp_sim		s;
	int			d = 2;
	double		th[3] = {0.5, 1.2, -0.8},
				mu[2] = {0.3, -0.2},
				L[4] = {0.9, 0, 0.3, 0.5},
				S[4],
				phi[16],
				sig = 0.4,
				sdx = 0.6,
				sdy = 0.8;

	gsl_rng_set(r, USEED(5));
	S[0] = L[0] * L[0];
	S[1] = S[2] = L[2] * L[0];
	S[3] = L[2] * L[2] + L[3] * L[3];
	/* linear: per-record joint Gaussian and eq. 41's factorisation */
	{
		double		W[50][3],
					C[9],
					m[3],
					bf = 0,
					bf41 = 0,
					ll;
		long		n = 50;

		/* simulate and keep the reports */
		memset(&s, 0, sizeof(s));
		for (long i = 0; i < n; i++)
		{
			double		e0 = gsl_ran_gaussian(r, 1),
						e1 = gsl_ran_gaussian(r, 1),
						x0 = mu[0] + L[0] * e0,
						x1 = mu[1] + L[2] * e0 + L[3] * e1;

			W[i][0] = x0 + gsl_ran_gaussian(r, sdx);
			W[i][1] = x1 + gsl_ran_gaussian(r, sdx);
			W[i][2] = th[0] + th[1] * x0 + th[2] * x1 + gsl_ran_gaussian(r, sig)
				+ gsl_ran_gaussian(r, sdy);
		}
		{
			double		sw[3] = {0},
						sww[9] = {0};
			dpb_ldpm_data dt = {0};

			for (long i = 0; i < n; i++)
				for (int a = 0; a < 3; a++)
				{
					sw[a] += W[i][a];
					for (int b = 0; b < 3; b++)
						sww[a * 3 + b] += W[i][a] * W[i][b];
				}
			dt.model = DPB_LDPM_LINEAR;
			dt.n = n;
			dt.d = d;
			dt.sd_x[0] = dt.sd_x[1] = sdx;
			dt.sd_y = sdy;
			dt.sw = sw;
			dt.sww = sww;
			phi[0] = th[0], phi[1] = th[1], phi[2] = th[2], phi[3] = log(sig);
			phi[4] = mu[0], phi[5] = mu[1], phi[6] = log(L[0]), phi[7] = log(L[3]);
			phi[8] = L[2];
			ll = dpb_ldpm_loglik(&dt, phi, NULL);
		}
		/* the joint Gaussian */
		C[0] = S[0] + sdx * sdx, C[1] = S[1], C[3] = S[2], C[4] = S[3] + sdx * sdx;
		C[2] = C[6] = S[0] * th[1] + S[1] * th[2];
		C[5] = C[7] = S[2] * th[1] + S[3] * th[2];
		C[8] = th[1] * C[2] + th[2] * C[5] + sig * sig + sdy * sdy;
		m[0] = mu[0], m[1] = mu[1], m[2] = th[0] + th[1] * mu[0] + th[2] * mu[1];
		for (long i = 0; i < n; i++)
		{
			/* eq. 41: N(z_x; mu, Sigma + D) N(z_y; theta_0 + theta'h, theta'A theta
			 * + sigma^2 + sd_y^2), h = mu + Sigma B^{-1}(z_x - mu) */
			double		B[4] = {C[0], C[1], C[3], C[4]},
						det = B[0] * B[3] - B[1] * B[2],
						Bi[4] = {B[3] / det, -B[1] / det, -B[2] / det, B[0] / det},
						dz[2] = {W[i][0] - mu[0], W[i][1] - mu[1]},
						t[2],
						h[2],
						SBS[4],
						A[4],
						mh,
						vA = 0;

			t[0] = Bi[0] * dz[0] + Bi[1] * dz[1];
			t[1] = Bi[2] * dz[0] + Bi[3] * dz[1];
			h[0] = mu[0] + S[0] * t[0] + S[1] * t[1];
			h[1] = mu[1] + S[2] * t[0] + S[3] * t[1];
			for (int a = 0; a < 2; a++)
				for (int b = 0; b < 2; b++)
				{
					SBS[a * 2 + b] = 0;
					for (int k = 0; k < 2; k++)
						for (int l = 0; l < 2; l++)
							SBS[a * 2 + b] += S[a * 2 + k] * Bi[k * 2 + l] * S[l * 2 + b];
					A[a * 2 + b] = S[a * 2 + b] - SBS[a * 2 + b];
				}
			for (int a = 0; a < 2; a++)
				for (int b = 0; b < 2; b++)
					vA += th[1 + a] * A[a * 2 + b] * th[1 + b];
			mh = th[0] + th[1] * h[0] + th[2] * h[1];
			bf += mvn_logpdf(3, W[i], m, C);
			bf41 += mvn_logpdf(2, W[i], m, B)
				+ log(gsl_ran_gaussian_pdf(W[i][2] - mh, sqrt(vA + sig * sig + sdy * sdy)));
		}
		CHECK_REL(ll, bf, 1e-12, "linear: O(1) likelihood vs per-record joint Gaussian");
		CHECK_REL(ll, bf41, 1e-12, "linear: O(1) likelihood vs eq. 41");
	}
	/* Gauss-Hermite vs adaptive quadrature */
	{
		static const double mv[9][2] = {{0, 0.01}, {1.5, 1}, {-2, 4}, {0.3, 9}, {4, 0.5},
			{0.7, 1.99}, {0.7, 2.01}, {-1, 25}, {0.5, 100}};
		gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);

		for (int i = 0; i < 9; i++)
		{
			double		p[2] = {mv[i][0], mv[i][1]},
						ref,
						err;
			gsl_function f = {q_logit, p};

			gsl_integration_qagi(&f, 0, 1e-12, 1000, w, &ref, &err);
			double		dm,
						ds,
						h = 1e-5;

			CHECK_CLOSE(dpb_ldpm_logistic_normal(p[0], p[1], &dm, &ds), ref, 1e-9,
						"E[sigmoid], Gauss-Hermite vs qagi");
			CHECK_CLOSE(dm, (dpb_ldpm_logistic_normal(p[0] + h, p[1], NULL, NULL) -
							 dpb_ldpm_logistic_normal(p[0] - h, p[1], NULL, NULL)) / (2 * h),
						1e-8, "dP/dm");
			if (p[1] > h)
				CHECK_CLOSE(ds, (dpb_ldpm_logistic_normal(p[0], p[1] + h, NULL, NULL) -
								 dpb_ldpm_logistic_normal(p[0], p[1] - h, NULL, NULL)) / (2 * h),
							1e-8, "dP/ds2");
		}
		gsl_integration_workspace_free(w);
	}
	/* logistic: per-record brute force with adaptive quadrature */
	{
		double		B[4] = {S[0] + sdx * sdx, S[1], S[2], S[3] + sdx * sdx},
					det = B[0] * B[3] - B[1] * B[2],
					Bi[4] = {B[3] / det, -B[1] / det, -B[2] / det, B[0] / det},
					pk = 0.8,
					bf = 0,
					ll;
		gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);

		ldp_sim_regression(&s, r, DPB_LDPM_LOGISTIC, 40, 2, th, 0, mu, L, sdx, 0, pk);
		phi[0] = th[0], phi[1] = th[1], phi[2] = th[2];
		phi[3] = mu[0], phi[4] = mu[1], phi[5] = log(L[0]), phi[6] = log(L[3]), phi[7] = L[2];
		ll = dpb_ldpm_loglik(&s.dt, phi, NULL);
		for (long i = 0; i < 40; i++)
		{
			const double *z = s.zx + 2 * i;
			double		dz[2] = {z[0] - mu[0], z[1] - mu[1]},
						t0 = Bi[0] * dz[0] + Bi[1] * dz[1],
						t1 = Bi[2] * dz[0] + Bi[3] * dz[1],
						h0 = mu[0] + S[0] * t0 + S[1] * t1,
						h1 = mu[1] + S[2] * t0 + S[3] * t1,
						A[4],
						vA = 0,
						p[2],
						P,
						err;
			gsl_function f = {q_logit, p};

			for (int a = 0; a < 2; a++)
				for (int b = 0; b < 2; b++)
				{
					double		sbs = 0;

					for (int k = 0; k < 2; k++)
						for (int l = 0; l < 2; l++)
							sbs += S[a * 2 + k] * Bi[k * 2 + l] * S[l * 2 + b];
					A[a * 2 + b] = S[a * 2 + b] - sbs;
				}
			for (int a = 0; a < 2; a++)
				for (int b = 0; b < 2; b++)
					vA += th[1 + a] * A[a * 2 + b] * th[1 + b];
			p[0] = th[0] + th[1] * h0 + th[2] * h1;
			p[1] = vA;
			gsl_integration_qagi(&f, 0, 1e-13, 1000, w, &P, &err);
			bf += mvn_logpdf(2, z, mu, B)
				+ log(s.zy[i] > 0.5 ? pk * P + (1 - pk) * (1 - P) : (1 - pk) * P + pk * (1 - P));
		}
		CHECK_REL(ll, bf, 1e-10, "logistic: likelihood vs per-record quadrature");
		gsl_integration_workspace_free(w);
		ldp_sim_free(&s);
	}
	gsl_rng_free(r);
}

/* ---- posterior recovery (a wrong likelihood fails these) ---- */

static void
recover(ldp_sim *s, const double *truth, const char *what)
{
	dpb_ldpm_prior pr;
	dpb_ldpm_run_opts o = {2, 300, 300, 42, 0.8, 10, NULL, 0};
	dpb_draws	dr;
	dpb_err		err;
	dpb_status	st;

	dpb_ldpm_prior_default(&s->dt, &pr);
	st = dpb_ldpm_run(&s->dt, &pr, &o, &dr, &err);
	CHECK(st == DPB_OK, "%s: run status %d", what, (int) st);
	if (st != DPB_OK)
		return;
	for (int k = 0; k < dr.nvars; k++)
	{
		double		m = 0,
					v = 0;
		int			n = dr.chains * dr.iters;

		for (int i = 0; i < n; i++)
			m += dr.v[(size_t) i * dr.nvars + k] / n;
		for (int i = 0; i < n; i++)
			v += pow(dr.v[(size_t) i * dr.nvars + k] - m, 2) / (n - 1);
		/* 4.5 posterior sd: a wrong likelihood is many sd off at these N */
		CHECK(fabs(m - truth[k]) < 4.5 * sqrt(v), "%s: %s mean %g sd %g truth %g", what,
			  dr.names[k], m, sqrt(v), truth[k]);
	}
	/* a divergence or two is a chain's bad luck; more is a broken model */
	printf("  %s: %ld divergences\n", what, dr.divergences);
	CHECK(dr.divergences <= 0.01 * dr.chains * dr.iters, "%s: %ld divergences", what,
		  dr.divergences);
	dpb_draws_free(&dr);
}

static void
test_recovery(void)
{
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);
	ldp_sim		s;

	gsl_rng_set(r, USEED(3));
	{
		double		t[2] = {1.0, 1.5};

		ldp_sim_gaussian(&s, r, 5000, t[0], t[1], -5, 5, 2.0);
		recover(&s, t, "gaussian");
		ldp_sim_free(&s);
	}
	{
		double		t[1] = {0.7};

		ldp_sim_exponential(&s, r, 5000, t[0], 5, 2.0);
		recover(&s, t, "exponential");
		ldp_sim_free(&s);
	}
	{
		double		t[3] = {0.7, 0.2, 0.1};

		ldp_sim_histogram(&s, r, 5000, 3, t, 2.0);
		recover(&s, t, "histogram");
		ldp_sim_free(&s);
	}
	{
		double		th[2] = {0.5, 1.5},
					mu[1] = {0.3},
					L[1] = {0.8},
					t[5] = {0.5, 1.5, 0.6, 0.3, 0.8};

		ldp_sim_regression(&s, r, DPB_LDPM_LINEAR, 20000, 1, th, 0.6, mu, L, 0.8, 1.0, 0);
		recover(&s, t, "linear");
		ldp_sim_free(&s);
	}
	{
		double		th[2] = {-0.5, 2.0},
					mu[1] = {0.3},
					L[1] = {0.8},
					t[4] = {-0.5, 2.0, 0.3, 0.8};

		ldp_sim_regression(&s, r, DPB_LDPM_LOGISTIC, 2500, 1, th, 0, mu, L, 0.5, 0, 0.85);
		recover(&s, t, "logistic");
		ldp_sim_free(&s);
	}
	gsl_rng_free(r);
}

/* ---- grouped and binned likelihoods (dpb_ldpm_group) ---- */

/* exact - binned log-likelihood and the two gradients' largest difference */
static double
group_err(dpb_ldpm_data *dt, const dpb_ldpm_groups *g, const double *phi, double *gdiff,
		  double *ll_exact)
{
	dpb_ldpm_data gd = *dt;
	double		g0[2],
				g1[2],
				l0,
				l1;
	int			dim = dpb_ldpm_dim(dt);

	gd.n_grp = g->k, gd.gz = g->z, gd.gw = g->w;
	l0 = dpb_ldpm_loglik(dt, phi, g0);
	l1 = dpb_ldpm_loglik(&gd, phi, g1);
	*gdiff = 0;
	for (int j = 0; j < dim; j++)
		*gdiff = fmax(*gdiff, fabs(g0[j] - g1[j]) / fmax(1, fabs(g0[j])));
	*ll_exact = l0;
	return l0 - l1;
}

/* posterior mean and its Monte Carlo standard error (bulk ESS) per variable */
static void
post_moments(const dpb_ldpm_data *dt, double bin_tol, uint64_t seed, double *m,
			 double *se, double *sd)
{
	dpb_ldpm_prior pr;
	dpb_ldpm_run_opts o = {2, 400, 1000, seed, 0.8, 10, NULL, bin_tol};
	dpb_draws	dr;
	dpb_err		err;
	dpb_status	st;

	dpb_ldpm_prior_default(dt, &pr);
	st = dpb_ldpm_run(dt, &pr, &o, &dr, &err);
	CHECK(st == DPB_OK, "grouped posterior: run status %d", (int) st);
	if (st != DPB_OK)
		return;
	for (int k = 0; k < dr.nvars; k++)
	{
		int			n = dr.chains * dr.iters;
		double	   *x = malloc(sizeof(double) * n),
					v = 0;

		m[k] = 0;
		for (int i = 0; i < n; i++)
			m[k] += (x[i] = dr.v[(size_t) i * dr.nvars + k]) / n;
		for (int i = 0; i < n; i++)
			v += (x[i] - m[k]) * (x[i] - m[k]) / (n - 1);
		sd[k] = sqrt(v);
		se[k] = sd[k] / sqrt(dpb_ess_bulk(x, dr.chains, dr.iters));
		free(x);
	}
	dpb_draws_free(&dr);
}

static int	group_polls;

static int
group_cancel(void)
{
	return ++group_polls >= 2;
}

static void
test_grouping(void)
{
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);
	ldp_sim		s;
	dpb_ldpm_groups g;
	dpb_status	st;
	double		phis[5][2] = {{1, log(1.5)}, {-2, log(0.3)}, {4.9, log(0.01)},
	{0.2, log(8)}, {-7, log(0.5)}};

	gsl_rng_set(r, USEED(21));
	/* ties: reports on the grid 2^-4 (161 values in [-5, 5]): exact */
	ldp_sim_gaussian(&s, r, 20000, 1.0, 1.5, -5, 5, 0.5);
	for (long i = 0; i < s.dt.n_in; i++)
		s.z[i] = fmin(5, fmax(-5, ldexp(round(ldexp(s.z[i], 4)), -4)));
	st = dpb_ldpm_group(&s.dt, DPB_LDPM_BIN_TOL, DPB_LDPM_GROUP_MAX_DISTINCT, NULL, &g);
	CHECK(st == DPB_OK && g.exact && g.k > 100 && g.k <= 161,
		  "grouping: exact on the grid (status %d, exact %d, %ld terms)", (int) st, g.exact, g.k);
	for (int t = 0; t < 5 && g.k > 0; t++)
	{
		double		gdiff,
					l0,
					e = group_err(&s.dt, &g, phis[t], &gdiff, &l0);

		CHECK(fabs(e) <= 1e-12 * fabs(l0) && gdiff < 1e-12,
			  "grouping: exact grouping at phi %d: error %g of %g, gradient %g", t, e, l0, gdiff);
	}
	dpb_ldpm_groups_free(&g);
	/* the same for the exponential model */
	ldp_sim_free(&s);
	ldp_sim_exponential(&s, r, 20000, 0.7, 5, 0.5);
	for (long i = 0; i < s.dt.n_in; i++)
		s.z[i] = fmin(5, fmax(0, ldexp(round(ldexp(s.z[i], 5)), -5)));
	st = dpb_ldpm_group(&s.dt, DPB_LDPM_BIN_TOL, DPB_LDPM_GROUP_MAX_DISTINCT, NULL, &g);
	CHECK(st == DPB_OK && g.exact && g.k <= 161, "grouping: exponential exact");
	for (int t = 0; t < 3 && g.k > 0; t++)
	{
		double		phi = log(0.05 + t * 0.7),
					gdiff,
					l0,
					e = group_err(&s.dt, &g, &phi, &gdiff, &l0);

		CHECK(fabs(e) <= 1e-12 * fabs(l0) && gdiff < 1e-12,
			  "grouping: exponential exact at rate %g: error %g, gradient %g", exp(phi), e, gdiff);
	}
	dpb_ldpm_groups_free(&g);
	ldp_sim_free(&s);

	/* continuous reports (all distinct): binned; c - v <= exact - binned <= c
	 * at every parameter, small sigma (a kink inside a bin) included */
	for (int model = 0; model < 2; model++)
	{
		if (model == 0)
			ldp_sim_gaussian(&s, r, 60000, 1.0, 1.5, -5, 5, 0.5);
		else
			ldp_sim_exponential(&s, r, 60000, 0.7, 5, 0.5);
		st = dpb_ldpm_group(&s.dt, DPB_LDPM_BIN_TOL, DPB_LDPM_GROUP_MAX_DISTINCT, NULL, &g);
		CHECK(st == DPB_OK && !g.exact && g.k > 0 && g.k < s.dt.n_in / 4
			  && g.v <= DPB_LDPM_BIN_TOL,
			  "binning: status %d, %ld terms for %ld reports, v %g", (int) st, g.k,
			  s.dt.n_in, g.v);
		printf("  binning (%s): %ld reports, %ld bins, %ld terms, c %.3g, v %.3g\n",
			   model ? "exponential" : "gaussian", s.dt.n_in, g.bins, g.k, g.c, g.v);
		for (int t = 0; t < (model ? 4 : 5) && g.k > 0; t++)
		{
			double		ph = log(0.02 + t * 0.6),
					   *phi = model ? &ph : phis[t],
						gdiff,
						l0,
						e = group_err(&s.dt, &g, phi, &gdiff, &l0),
						slack = 1e-11 * fabs(l0);

			CHECK(e <= g.c + slack && e >= g.c - g.v - slack,
				  "binning (%d) at phi %d: error %g outside [c - v, c] = [%g, %g]", model, t,
				  e, g.c - g.v, g.c);
		}
		dpb_ldpm_groups_free(&g);
		ldp_sim_free(&s);
	}

	/* query cancel: polled every 65536 reports (here by the passes over the bins) */
	ldp_sim_gaussian(&s, r, 400000, 1.0, 1.5, -5, 5, 0.5);
	group_polls = 0;
	st = dpb_ldpm_group(&s.dt, DPB_LDPM_BIN_TOL, DPB_LDPM_GROUP_MAX_DISTINCT, group_cancel, &g);
	CHECK(st == DPB_EINTR && g.k == 0 && g.z == NULL && group_polls == 2,
		  "grouping: cancel gives status %d after %d polls", (int) st, group_polls);
	ldp_sim_free(&s);

	/* the posterior: binned (about 128 bins of some 1100 reports) against
	 * ungrouped on the same data; means within 4.5 Monte Carlo standard
	 * errors of their difference (two-sided 7e-6 for a normal estimate,
	 * below UNIT_P_MIN / 2), so the bias of binning (v <= 0.05 nats)
	 * must stay well below one MC standard error to pass */
	ldp_sim_gaussian(&s, r, 5000, 1.0, 1.5, -5, 5, 0.5);
	st = dpb_ldpm_group(&s.dt, DPB_LDPM_BIN_TOL, DPB_LDPM_GROUP_MAX_DISTINCT, NULL, &g);
	CHECK(st == DPB_OK && g.k > 0 && g.k < s.dt.n_in / 4, "binning at N = 5000: %ld terms",
		  g.k);
	dpb_ldpm_groups_free(&g);
	{
		double		m0[2],
					s0[2],
					d0[2],
					m1[2],
					s1[2],
					d1[2];

		post_moments(&s.dt, -1, USEED(31), m0, s0, d0);
		post_moments(&s.dt, 0, USEED(32), m1, s1, d1);
		for (int k = 0; k < 2; k++)
		{
			CHECK(fabs(m0[k] - m1[k]) < 4.5 * sqrt(s0[k] * s0[k] + s1[k] * s1[k]),
				  "binned posterior: mean %d %g vs ungrouped %g (MC se %g, %g)", k, m1[k],
				  m0[k], s1[k], s0[k]);
			printf("  posterior mean %d: ungrouped %.4f (se %.4f, sd %.4f), binned %.4f (se %.4f)\n",
				   k, m0[k], s0[k], d0[k], m1[k], s1[k]);
		}
	}
	ldp_sim_free(&s);
	gsl_rng_free(r);
}

void
test_ldp_models(void)
{
	test_vectors();
	test_gradients();
	test_histogram_brute();
	test_regression_brute();
	test_recovery();
	test_grouping();
}
