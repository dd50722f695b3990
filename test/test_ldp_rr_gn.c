/*
 * test_ldp_rr_gn.c — the posteriors of rr and scalar_gaussian reports
 * (ldp_models.h: proportion, gaussian_gn; issue 24, item 8), in the style
 * of test_ldp_models.c: densities against quadrature, gradients against
 * central differences, the grouped and binned likelihood against its
 * bound, posterior means against a quadrature posterior, and coverage.
 *
 * Coverage is measured SBC-style: in each of R replications the truth is
 * drawn from the prior, reports are simulated, and the posterior's
 * interval between order statistics k and j of its M draws covers the
 * truth with probability exactly (j - k) / (M + 1) when the draws are
 * exact (the truth's rank among the draws is uniform).  The number of
 * covered replications is then Binomial(R, p): the check allows 4.5 of its
 * standard deviations (two-sided 7e-6, below UNIT_P_MIN / 2 for the few
 * checks of a test), and prints the count.  No verdict rests on one seed
 * or one chain: a wrong likelihood or a wrong noise scale moves the
 * coverage of all R replications (the controls below show how far).
 */
#include "unit.h"
#include "ldp_models.h"
#include "ldp_sim.h"
#include "ldp.h"
#include "diag.h"
#include "posterior.h"

#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- gaussian_gn: density ---- */

typedef struct gqp
{
	double		z,
				mu,
				sigma,
				tau;
} gqp;

static double
q_gn(double x, void *v)
{
	gqp		   *p = v;

	return gsl_ran_gaussian_pdf(x - p->mu, p->sigma) * gsl_ran_gaussian_pdf(p->z - x, p->tau);
}

/* the atoms and the in-range integral by adaptive quadrature */
static double
ref_gn(double z, double mu, double sigma, double a, double b, double tau)
{
	gqp			p = {z, mu, sigma, tau};
	gsl_function f = {q_gn, &p};
	gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
	double		r = 0,
				e;

	gsl_integration_qag(&f, a, b, 0, 1e-13, 1000, 6, w, &r, &e);
	gsl_integration_workspace_free(w);
	return r + gsl_cdf_gaussian_P(a - mu, sigma) * gsl_ran_gaussian_pdf(z - a, tau)
		+ gsl_cdf_gaussian_Q(b - mu, sigma) * gsl_ran_gaussian_pdf(z - b, tau);
}

static void
check_grad(const dpb_ldpm_data *dt, const dpb_ldpm_prior *pr, const double *phi,
		   const char *what)
{
	int			dim = dpb_ldpm_dim(dt);
	dpb_ldpm_ctx ctx = {dt, pr};
	double		g[8],
				gd[8],
				x[8],
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

/* the noise sd of a scalar_gaussian protocol on [a, b] (the drawn sd) */
static double
gn_tau(double eps, double a, double b)
{
	char		json[256];
	dpb_ldp_protocol p;
	dpb_ldp_calib c;
	dpb_err		err;

	snprintf(json, sizeof(json),
			 "{\"mechanism\":\"scalar_gaussian\",\"epsilon\":%.17g,\"delta\":1e-6,\"lower\":%.17g,\"upper\":%.17g}",
			 eps, a, b);
	if (dpb_ldp_protocol_parse(json, &p, &err) != DPB_OK || dpb_ldp_calibrate(&p, &c, &err) != DPB_OK)
		return NAN;
	return ldexp(sqrt((double) c.gauss_sigma2), c.grid_exp);
}

static void
test_gn_density(void)
{
	/* (z, mu, sigma, tau) on [a, b] = [-5, 5]: in range, beyond b, a narrow
	 * sigma, the mass mostly in an atom, a noise far wider than [a, b] */
	static const double v[8][4] = {
		{0.3, 0.5, 1.2, 2.0}, {-7, 1, 2, 1.5}, {9, -1, 0.7, 3}, {4.9, 4.0, 3.0, 0.5},
		{1.0, 0.9, 0.01, 1.0}, {6.0, 20, 0.5, 0.8}, {-30, 0.5, 1.5, 17.6}, {2.0, -8, 4, 0.05}};
	double		worst = 0;

	for (int i = 0; i < 8; i++)
	{
		double		l = dpb_ldpm_gn_logpdf(v[i][0], v[i][1], v[i][2], -5, 5, v[i][3], NULL, NULL),
					ref = ref_gn(v[i][0], v[i][1], v[i][2], -5, 5, v[i][3]);

		worst = fmax(worst, fabs(exp(l) - ref) / ref);
		CHECK_REL(exp(l), ref, 1e-9, "gaussian_gn density vs quadrature");
	}
	printf("  gaussian_gn density vs quadrature: worst rel. error %.2g\n", worst);
	/* far out: finite, with finite derivatives, and decreasing */
	{
		double		dm,
					ds,
					l1 = dpb_ldpm_gn_logpdf(400, 0.5, 1.5, -5, 5, 2.0, &dm, &ds),
					l2 = dpb_ldpm_gn_logpdf(800, 0.5, 1.5, -5, 5, 2.0, NULL, NULL);

		CHECK(isfinite(l1) && isfinite(dm) && isfinite(ds) && l2 < l1,
			  "gaussian_gn far out: %g %g %g %g", l1, l2, dm, ds);
	}
}

static void
test_gn_gradients(void)
{
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);
	ldp_sim		s;
	dpb_ldpm_prior pr;
	double		phis[4][2] = {{0.7, log(1.5)}, {6.5, log(0.2)}, {-2, log(0.01)}, {0, log(8)}};

	gsl_rng_set(r, USEED(41));
	ldp_sim_gaussian_gn(&s, r, 400, 1.0, 2.0, -5, 5, 3.0);
	dpb_ldpm_prior_default(&s.dt, &pr);
	for (int t = 0; t < 4; t++)
		check_grad(&s.dt, &pr, phis[t], "gaussian_gn");
	ldp_sim_free(&s);
	gsl_rng_free(r);
}

/* exact - binned log-likelihood */
static double
group_err(dpb_ldpm_data *dt, const dpb_ldpm_groups *g, const double *phi, double *ll_exact)
{
	dpb_ldpm_data gd = *dt;

	gd.n_grp = g->k, gd.gz = g->z, gd.gw = g->w;
	*ll_exact = dpb_ldpm_loglik(dt, phi, NULL);
	return *ll_exact - dpb_ldpm_loglik(&gd, phi, NULL);
}

static void
test_gn_grouping(void)
{
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);
	ldp_sim		s;
	dpb_ldpm_groups g;
	dpb_status	st;
	double		phis[5][2] = {{1, log(1.5)}, {-2, log(0.3)}, {4.9, log(0.01)},
	{0.2, log(8)}, {-7, log(0.5)}};
	double		tau = gn_tau(0.5, -5, 5);

	gsl_rng_set(r, USEED(43));
	CHECK(tau > 50 && tau < 200, "scalar_gaussian noise sd at eps 0.5: %g", tau);
	/* ties (reports on a coarse grid): exact grouping, the same sum */
	ldp_sim_gaussian_gn(&s, r, 20000, 1.0, 1.5, -5, 5, 3.0);
	for (long i = 0; i < s.dt.n_in; i++)
		s.z[i] = ldexp(round(ldexp(s.z[i], 2)), -2);
	st = dpb_ldpm_group(&s.dt, DPB_LDPM_BIN_TOL, DPB_LDPM_GROUP_MAX_DISTINCT, NULL, &g);
	CHECK(st == DPB_OK && g.exact && g.k > 20 && g.k < 400,
		  "gaussian_gn grouping: exact (status %d, exact %d, %ld terms)", (int) st, g.exact, g.k);
	for (int t = 0; t < 5 && g.k > 0; t++)
	{
		double		l0,
					e = group_err(&s.dt, &g, phis[t], &l0);

		CHECK(fabs(e) <= 1e-12 * fabs(l0), "gaussian_gn exact grouping at phi %d: error %g of %g",
			  t, e, l0);
	}
	dpb_ldpm_groups_free(&g);
	ldp_sim_free(&s);
	/* continuous reports: binned, c - v <= exact - binned <= c at every
	 * parameter, at the protocol's noise (eps 0.5 and 4) and a narrow one */
	{
		double		taus[3] = {tau, gn_tau(4, -5, 5), 1.0};
		long		ns[3] = {100000, 100000, 30000};

		for (int m = 0; m < 3; m++)
		{
			ldp_sim_gaussian_gn(&s, r, ns[m], 1.0, 1.5, -5, 5, taus[m]);
			st = dpb_ldpm_group(&s.dt, DPB_LDPM_BIN_TOL, DPB_LDPM_GROUP_MAX_DISTINCT, NULL, &g);
			printf("  gaussian_gn binning (tau %.3g): %ld reports, %ld bins, %ld terms, c %.3g, v %.3g\n",
				   taus[m], s.dt.n_in, g.bins, g.k, g.c, g.v);
			if (m < 2)
				CHECK(st == DPB_OK && !g.exact && g.k > 0 && g.k < s.dt.n_in / 20
					  && g.v <= DPB_LDPM_BIN_TOL,
					  "gaussian_gn binning: status %d, %ld terms, v %g", (int) st, g.k, g.v);
			else				/* a narrow noise: no B below n/2 meets the bound */
				CHECK(st == DPB_OK && (g.k == 0 || g.v <= DPB_LDPM_BIN_TOL),
					  "gaussian_gn binning, narrow noise: status %d, %ld terms, v %g", (int) st,
					  g.k, g.v);
			for (int t = 0; t < 5 && g.k > 0; t++)
			{
				double		l0,
							e = group_err(&s.dt, &g, phis[t], &l0),
							slack = 1e-11 * fabs(l0);

				CHECK(e <= g.c + slack && e >= g.c - g.v - slack,
					  "gaussian_gn binning (tau %g) at phi %d: error %g outside [%g, %g]",
					  taus[m], t, e, g.c - g.v, g.c);
			}
			dpb_ldpm_groups_free(&g);
			ldp_sim_free(&s);
		}
	}
	gsl_rng_free(r);
}

/* ---- posterior summaries ---- */

typedef struct psum
{
	int			nv;
	double		mean[4],
				se[4],
				sd[4];
} psum;

static dpb_status
run_post(const dpb_ldpm_data *dt, const dpb_ldpm_prior *pr, int chains, int warm, int draws,
		 uint64_t seed, double bin_tol, psum *ps, dpb_draws *keep)
{
	dpb_ldpm_run_opts o = {chains, warm, draws, seed, 0.8, 10, NULL, bin_tol};
	dpb_draws	dr;
	dpb_err		err;
	dpb_status	st = dpb_ldpm_run(dt, pr, &o, &dr, &err);
	int			n;
	double	   *x;

	if (st != DPB_OK)
		return st;
	n = dr.chains * dr.iters;
	x = malloc(sizeof(double) * n);
	ps->nv = dr.nvars;
	for (int k = 0; k < dr.nvars && k < 4; k++)
	{
		double		m = 0,
					v = 0;

		for (int i = 0; i < n; i++)
			m += (x[i] = dr.v[(size_t) i * dr.nvars + k]) / n;
		for (int i = 0; i < n; i++)
			v += (x[i] - m) * (x[i] - m) / (n - 1);
		ps->mean[k] = m;
		ps->sd[k] = sqrt(v);
		ps->se[k] = ps->sd[k] / sqrt(dpb_ess_bulk(x, dr.chains, dr.iters));
	}
	free(x);
	if (keep)
		*keep = dr;
	else
		dpb_draws_free(&dr);
	return DPB_OK;
}

static int
cmpd(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : (x > y);
}

/* the 1-based order statistics k < j of M draws for a central interval of
 * level lev, and its exact coverage (j - k) / (M + 1) */
static double
interval_idx(int M, double lev, int *k, int *j)
{
	*k = (int) floor((1 - lev) / 2 * (M + 1));
	*j = M + 1 - *k;
	if (*k < 1)
		*k = 1;
	return (double) (*j - *k) / (M + 1);
}

/* is truth in [x_(k), x_(j)) among the n draws of variable var? */
static int
covers(const dpb_draws *dr, int var, double truth, int k, int j)
{
	int			n = dr->chains * dr->iters,
				below = 0;

	(void) cmpd;
	for (int i = 0; i < n; i++)
		below += dr->v[(size_t) i * dr->nvars + var] < truth;
	return below >= k && below < j;
}

static void
check_coverage(const char *what, int covered, int R, double p)
{
	double		sd = sqrt(R * p * (1 - p));

	printf("  coverage %s: %d of %d (expected %.1f, sd %.1f)\n", what, covered, R, R * p, sd);
	CHECK(fabs(covered - R * p) <= 4.5 * sd, "coverage %s: %d of %d, expected %.1f +- %.1f",
		  what, covered, R, R * p, sd);
}

/* ---- gaussian_gn: the posterior ---- */

/*
 * The posterior mean of (mu, sigma) on a grid: prior (mu ~ N, sigma ~
 * Gamma) times the likelihood over mu x log sigma, with the Jacobian.
 */
static void
grid_post(const dpb_ldpm_data *dt, const dpb_ldpm_prior *pr, double *m)
{
	int			G = 160;
	double		lo0 = -4,
				hi0 = 6,
				lo1 = log(0.02),
				hi1 = log(25),
				mx = -INFINITY,
			   *lp = malloc(sizeof(double) * G * G),
				w = 0;
	dpb_ldpm_ctx ctx = {dt, pr};

	m[0] = m[1] = 0;
	for (int i = 0; i < G; i++)
		for (int j = 0; j < G; j++)
		{
			double		phi[2] = {lo0 + (hi0 - lo0) * (i + 0.5) / G, lo1 + (hi1 - lo1) * (j + 0.5) / G};

			lp[i * G + j] = dpb_ldpm_logp(phi, NULL, &ctx);
			mx = fmax(mx, lp[i * G + j]);
		}
	for (int i = 0; i < G; i++)
		for (int j = 0; j < G; j++)
		{
			double		e = exp(lp[i * G + j] - mx);

			w += e;
			m[0] += e * (lo0 + (hi0 - lo0) * (i + 0.5) / G);
			m[1] += e * exp(lo1 + (hi1 - lo1) * (j + 0.5) / G);
		}
	m[0] /= w;
	m[1] /= w;
	free(lp);
}

static void
test_gn_posterior(void)
{
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);
	ldp_sim		s;
	dpb_ldpm_prior pr;
	psum		ps,
				pb;
	double		gm[2],
				tau = gn_tau(2, -5, 5);

	gsl_rng_set(r, USEED(47));
	/* one data set: NUTS (ungrouped and binned) against the grid posterior,
	 * within 4.5 Monte Carlo standard errors (plus the grid's error, far
	 * smaller) */
	ldp_sim_gaussian_gn(&s, r, 1000, 1.0, 1.5, -5, 5, tau);
	dpb_ldpm_prior_default(&s.dt, &pr);
	grid_post(&s.dt, &pr, gm);
	CHECK(run_post(&s.dt, &pr, 2, 400, 1000, USEED(48), -1, &ps, NULL) == DPB_OK, "gaussian_gn run");
	CHECK(run_post(&s.dt, &pr, 2, 400, 1000, USEED(49), 0, &pb, NULL) == DPB_OK, "gaussian_gn binned run");
	for (int k = 0; k < 2; k++)
	{
		CHECK(fabs(ps.mean[k] - gm[k]) < 4.5 * ps.se[k] + 1e-3 * ps.sd[k],
			  "gaussian_gn: posterior mean %d %g vs grid %g (MC se %g)", k, ps.mean[k], gm[k], ps.se[k]);
		CHECK(fabs(pb.mean[k] - gm[k]) < 4.5 * pb.se[k] + 1e-3 * pb.sd[k],
			  "gaussian_gn binned: posterior mean %d %g vs grid %g (MC se %g)", k, pb.mean[k], gm[k], pb.se[k]);
		printf("  gaussian_gn posterior mean %d: grid %.4f, NUTS %.4f (se %.4f), binned %.4f (se %.4f), sd %.4f\n",
			   k, gm[k], ps.mean[k], ps.se[k], pb.mean[k], pb.se[k], ps.sd[k]);
	}
	ldp_sim_free(&s);
	gsl_rng_free(r);
}

/*
 * Coverage: R replications, (mu, log sigma) from the default prior on
 * [-5, 5], 300 reports of scalar_gaussian at eps 2 (noise sd 23.8: the
 * protocol's), one chain of 300 + 400.  Control: a model told half the
 * noise sd (on the first 100 data sets) puts the rest of the reports'
 * spread into sigma, and covers it far less often.
 */
static void
test_gn_coverage(void)
{
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);
	ldp_sim		s;
	dpb_ldpm_data dt0;
	dpb_ldpm_prior pr;
	int			R = 400,
				M = 400,
				cov[2][2] = {{0, 0}, {0, 0}},
				bad = 0,
				ctl = 0,
				k50,
				j50,
				k90,
				j90;
	double		p50 = interval_idx(M, 0.5, &k50, &j50),
				p90 = interval_idx(M, 0.9, &k90, &j90),
				tau = gn_tau(2, -5, 5);

	gsl_rng_set(r, USEED(51));
	memset(&dt0, 0, sizeof(dt0));
	dt0.model = DPB_LDPM_GAUSSIAN_GN;
	dt0.a = -5, dt0.b = 5, dt0.tau = tau;
	dpb_ldpm_prior_default(&dt0, &pr);
	for (int rep = 0; rep < R; rep++)
	{
		double		phi[2],
					truth[2];
		dpb_draws	dr;
		psum		ps;

		ldp_sim_prior_draw(&dt0, &pr, r, phi);
		truth[0] = phi[0], truth[1] = exp(phi[1]);
		ldp_sim_from_phi(&s, &dt0, r, 300, phi);
		if (run_post(&s.dt, &pr, 1, 300, M, USEED(1000 + rep), 0, &ps, &dr) != DPB_OK)
		{
			bad++;
			ldp_sim_free(&s);
			continue;
		}
		for (int v = 0; v < 2; v++)
		{
			cov[v][0] += covers(&dr, v, truth[v], k50, j50);
			cov[v][1] += covers(&dr, v, truth[v], k90, j90);
		}
		dpb_draws_free(&dr);
		if (rep < 100)
		{
			/* the control: the same reports, a model told half the noise */
			s.dt.tau = tau / 2;
			if (run_post(&s.dt, &pr, 1, 300, M, USEED(1000 + rep), 0, &ps, &dr) == DPB_OK)
			{
				ctl += covers(&dr, 1, truth[1], k90, j90);
				dpb_draws_free(&dr);
			}
		}
		ldp_sim_free(&s);
	}
	CHECK(bad == 0, "gaussian_gn coverage: %d runs failed", bad);
	printf("  control (half the noise sd): 90%% intervals of sigma cover %d of 100\n", ctl);
	CHECK(ctl < 60, "control: a model told half the noise covers sigma %d of 100 times", ctl);
	check_coverage("gaussian_gn mu 50%", cov[0][0], R - bad, p50);
	check_coverage("gaussian_gn mu 90%", cov[0][1], R - bad, p90);
	check_coverage("gaussian_gn sigma 50%", cov[1][0], R - bad, p50);
	check_coverage("gaussian_gn sigma 90%", cov[1][1], R - bad, p90);
	gsl_rng_free(r);
}

/* ---- proportion ---- */

static void
test_rr_likelihood(void)
{
	dpb_ldpm_data dt;
	dpb_ldpm_prior pr;
	double		phi[2] = {0.4, -1.1};

	memset(&dt, 0, sizeof(dt));
	dt.model = DPB_LDPM_PROPORTION;
	dt.groups = 2;
	dt.g_n[0] = 300, dt.g_k[0] = 170, dt.g_keep[0] = exp(1.0) / (1 + exp(1.0));
	dt.g_n[1] = 50, dt.g_k[1] = 12, dt.g_keep[1] = exp(0.3) / (1 + exp(0.3));
	dt.n = 350;
	/* the exact RR likelihood, by the definition */
	{
		double		ref = 0;

		for (int g = 0; g < 2; g++)
		{
			double		th = 1 / (1 + exp(-phi[g])),
						p = dt.g_keep[g],
						q = th * p + (1 - th) * (1 - p);

			ref += dt.g_k[g] * log(q) + (dt.g_n[g] - dt.g_k[g]) * log(1 - q);
		}
		CHECK_REL(dpb_ldpm_loglik(&dt, phi, NULL), ref, 1e-13, "proportion likelihood");
	}
	dpb_ldpm_prior_default(&dt, &pr);
	pr.beta_a = 2.5, pr.beta_b = 0.7;
	check_grad(&dt, &pr, phi, "proportion");
	phi[0] = 12, phi[1] = -15;	/* theta near 1 and 0 */
	check_grad(&dt, &pr, phi, "proportion near the edges");
	/* every count: all ones, all zeros, no reports */
	dt.g_k[0] = 300, dt.g_k[1] = 0;
	CHECK(isfinite(dpb_ldpm_loglik(&dt, phi, NULL)), "proportion at K = N and K = 0");
}

/* the posterior mean of theta (1 group) by quadrature over theta */
static double
rr_exact_mean(double n, double k, double p, double a, double b)
{
	int			G = 20000;
	double		mx = -INFINITY,
				w = 0,
				m = 0,
			   *l = malloc(sizeof(double) * G);

	for (int i = 0; i < G; i++)
	{
		double		t = (i + 0.5) / G,
					q = t * p + (1 - t) * (1 - p);

		l[i] = k * log(q) + (n - k) * log(1 - q) + (a - 1) * log(t) + (b - 1) * log(1 - t);
		mx = fmax(mx, l[i]);
	}
	for (int i = 0; i < G; i++)
	{
		double		e = exp(l[i] - mx);

		w += e;
		m += e * (i + 0.5) / G;
	}
	free(l);
	return m / w;
}

static void
test_rr_posterior(void)
{
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);
	dpb_ldpm_data dt0;
	dpb_ldpm_prior pr;
	ldp_sim		s;
	int			R = 1000,
				M = 400,
				k50,
				j50,
				k90,
				j90,
				cov1[2] = {0, 0},
				cov2[3][2] = {{0, 0}, {0, 0}, {0, 0}},
				ctl = 0,
				bad = 0;
	double		keep1 = exp(1.0) / (1 + exp(1.0)),
				p50 = interval_idx(M, 0.5, &k50, &j50),
				p90 = interval_idx(M, 0.9, &k90, &j90);

	gsl_rng_set(r, USEED(61));
	/* the exact posterior mean (quadrature) vs NUTS, a Beta(2, 3) prior */
	{
		double		th = 0.3;
		psum		ps;

		ldp_sim_proportion(&s, r, 1, 1000, &th, &keep1);
		dpb_ldpm_prior_default(&s.dt, &pr);
		pr.beta_a = 2, pr.beta_b = 3;
		CHECK(run_post(&s.dt, &pr, 4, 500, 1000, USEED(62), 0, &ps, NULL) == DPB_OK, "proportion run");
		{
			double		ex = rr_exact_mean(s.dt.g_n[0], s.dt.g_k[0], keep1, 2, 3);

			CHECK(fabs(ps.mean[0] - ex) < 4.5 * ps.se[0], "proportion: mean %g vs exact %g (se %g)",
				  ps.mean[0], ex, ps.se[0]);
			printf("  proportion posterior mean: exact %.5f, NUTS %.5f (se %.5f, sd %.4f)\n", ex,
				   ps.mean[0], ps.se[0], ps.sd[0]);
		}
		ldp_sim_free(&s);
	}
	/* coverage, one group: theta ~ Beta(1, 1), N = 200 at eps 1; control:
	 * the same draws judged by a model that ignores the flips (keep 0.99) */
	memset(&dt0, 0, sizeof(dt0));
	dt0.model = DPB_LDPM_PROPORTION;
	dt0.groups = 1;
	dt0.g_keep[0] = keep1;
	dpb_ldpm_prior_default(&dt0, &pr);
	for (int rep = 0; rep < R; rep++)
	{
		double		phi[1],
					th;
		dpb_draws	dr;
		psum		ps;

		ldp_sim_prior_draw(&dt0, &pr, r, phi);
		th = 1 / (1 + exp(-phi[0]));
		ldp_sim_from_phi(&s, &dt0, r, 200, phi);
		if (run_post(&s.dt, &pr, 1, 600, M, USEED(2000 + rep), 0, &ps, &dr) != DPB_OK)
		{
			bad++;
			continue;
		}
		cov1[0] += covers(&dr, 0, th, k50, j50);
		cov1[1] += covers(&dr, 0, th, k90, j90);
		dpb_draws_free(&dr);
		if (rep < 100)
		{
			s.dt.g_keep[0] = 0.99;
			if (run_post(&s.dt, &pr, 1, 200, M, USEED(2000 + rep), 0, &ps, &dr) == DPB_OK)
			{
				ctl += covers(&dr, 0, th, k90, j90);
				dpb_draws_free(&dr);
			}
		}
		ldp_sim_free(&s);
	}
	CHECK(bad == 0, "proportion coverage: %d runs failed", bad);
	check_coverage("proportion 50%", cov1[0], R - bad, p50);
	check_coverage("proportion 90%", cov1[1], R - bad, p90);
	printf("  control (flips ignored): 90%% intervals cover %d of 100\n", ctl);
	CHECK(ctl < 60, "control: a model ignoring the flips covers %d of 100", ctl);

	/* two groups, eps 1 and 0.5, N = 300 each: theta_a, theta_b and their
	 * difference */
	dt0.groups = 2;
	dt0.g_keep[1] = exp(0.5) / (1 + exp(0.5));
	for (int rep = 0; rep < R; rep++)
	{
		double		phi[2],
					t[3];
		dpb_draws	dr;
		psum		ps;

		ldp_sim_prior_draw(&dt0, &pr, r, phi);
		t[0] = 1 / (1 + exp(-phi[0]));
		t[1] = 1 / (1 + exp(-phi[1]));
		t[2] = t[0] - t[1];
		ldp_sim_from_phi(&s, &dt0, r, 300, phi);
		if (run_post(&s.dt, &pr, 1, 200, M, USEED(3000 + rep), 0, &ps, &dr) != DPB_OK)
		{
			bad++;
			ldp_sim_free(&s);
			continue;
		}
		CHECK(dr.nvars == 4 && strcmp(dr.names[2], "diff") == 0, "two groups: variables");
		for (int v = 0; v < 3; v++)
		{
			cov2[v][0] += covers(&dr, v, t[v], k50, j50);
			cov2[v][1] += covers(&dr, v, t[v], k90, j90);
		}
		dpb_draws_free(&dr);
		ldp_sim_free(&s);
	}
	CHECK(bad == 0, "two-group coverage: %d runs failed", bad);
	check_coverage("theta[a] 90%", cov2[0][1], R - bad, p90);
	check_coverage("theta[b] 90%", cov2[1][1], R - bad, p90);
	check_coverage("diff 50%", cov2[2][0], R - bad, p50);
	check_coverage("diff 90%", cov2[2][1], R - bad, p90);
	gsl_rng_free(r);
}

void		test_ldp_models_gn(void);
void
test_ldp_models_gn(void)
{
	test_gn_density();
	test_gn_gradients();
	test_gn_grouping();
	test_gn_posterior();
	test_gn_coverage();
}

void		test_ldp_models_rr(void);
void
test_ldp_models_rr(void)
{
	test_rr_likelihood();
	test_rr_posterior();
}
