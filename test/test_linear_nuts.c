/*
 * test_linear_nuts.c — the default linear sampler (linear_model.h): the
 * gradient of the log density against central differences, concentration
 * on the truth at large N, and agreement with long, thinned Gibbs-SS runs
 * on the same releases (means within 4.5 Monte Carlo standard errors, sds
 * within 3.5 times the measured spread of their ratio, see
 * check_agreement), Gaussian and Laplace, N known and unknown.
 */
#include "unit.h"

#include "diag.h"
#include "gauss_lik.h"
#include "linear_model.h"
#include "sim.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the release of sim_linear_d2 (test/sim.h) on the test's seed */
static int
make_release(int N, double eps, dpb_mechanism mech, dpb_neighbours nb, int intercept,
			 unsigned long seed, dpb_release *r, double *truth)
{
	return sim_linear_d2(N, eps, mech, nb, intercept, USEED(seed), r, truth);
}

/* >= 0: check_gradient's clamp takes a count of clamped records, this
 * share of the noisy N, with this noise sd (dpb_lin_clamp_scale) */
static double grad_count_share = -1,
			grad_count_sd = -1;

/* prior: 0 the default (weak), 1 NIG, 2 weak with other scales; latent
 * >= 10: latent - 10 with the polar coordinates */
static void
check_gradient(const dpb_release *r0, dpb_xmoments xm, int latent, int prior, double yb,
			   const char *what)
{
	dpb_release rb = *r0;		/* yb > 0: the clamp on, at y_bound yb */
	const dpb_release *r = &rb;
	dpb_infer_opts o;
	dpb_lin_ctx *c;
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double		phi[64],
				g[64],
				g1[64],
				g2[64],
				worst = 0;
	int			dim,
				i,
				t;

	if (yb > 0)
		rb.p.y_bound = yb;
	dpb_infer_opts_default(&o, r);
	CHECK(o.lin.clamp == -1 && o.lin.clamp_count_sd < 0,
		  "the clamp is auto by default, without a count");
	o.lin.clamp = yb > 0;		/* y_bound yb: with the clamp */
	if (yb > 0 && grad_count_sd >= 0)
	{
		o.lin.clamp_count = grad_count_share * o.count.n_hat;
		o.lin.clamp_count_sd = grad_count_sd;
	}
	o.lin.xmoments = xm;
	o.lin.laplace_latent = latent % 10;
	o.lin.polar = latent >= 10;
	o.lin.theta_precision[1] = 0.5;
	o.lin.theta_mean[2] = -0.2;
	o.lin.x_kappa = 2;
	o.x_mean[0] = 0.05;
	o.lin.x_scale[1] = o.lin.x_scale[2] = 0.02;
	if (prior == 1)
		o.lin.prior = DPB_LIN_PRIOR_NIG;
	if (prior == 2)
	{
		o.lin.theta_sd[1] = 0.4;
		o.lin.theta_sd[2] = 3;
		o.lin.intercept_sd = 0.3;
		o.lin.sigma2_mean = 0.1;
	}
	if (!o.count.n_known)
		o.count.n_hi = 3 * o.count.n_hat;	/* the logistic u transform */
	c = dpb_lin_ctx_new(r, &o);
	dim = dpb_lin_ctx_dim(c);
	gsl_rng_set(rng, USEED(42));
	for (t = 0; t < 3; t++)
	{
		double		lp;

		dpb_lin_init(c, rng, phi);
		/* away from the fit, so that every term of the gradient matters */
		for (i = 0; i < dim; i++)
			phi[i] += 0.05 * gsl_ran_ugaussian(rng);
		lp = dpb_lin_logp(phi, g, c);
		CHECK(dpb_isfinite(lp), "%s: log density finite at a start", what);
		for (i = 0; i < dim; i++)
		{
			double		h = 1e-5 * fmax(1, fabs(phi[i])),
						x0 = phi[i],
						fp,
						fm,
						fd,
						err;

			phi[i] = x0 + h;
			fp = dpb_lin_logp(phi, g1, c);
			phi[i] = x0 - h;
			fm = dpb_lin_logp(phi, g2, c);
			phi[i] = x0;
			fd = (fp - fm) / (2 * h);
			err = fabs(fd - g[i]) / fmax(1.0, fabs(fd));
			if (err > worst)
				worst = err;
			CHECK(err < 1e-5, "%s: d/dphi[%d]: analytic %.10g, central differences %.10g",
				  what, i, g[i], fd);
		}
	}
	printf("  linear nuts gradient (%s, dim %d): max relative error %.2g\n", what, dim, worst);
	dpb_lin_ctx_free(c);
	gsl_rng_free(rng);
}

/* y ~ N(m, s2): y^k phi at y (quadrature of the clamp's moments) */
/* y^k times y's density, or (B - y)^k with B set (u = B - y_c in
 * saturation, test_linear_clamp_moments) */
struct clamp_q
{
	double		m,
				s;
	int			k;
	double		B;
};

static double
clamp_integrand(double y, void *vp)
{
	const struct clamp_q *q = vp;

	return pow(q->B != 0 ? q->B - y : y, q->k) * gsl_ran_gaussian_pdf(y - q->m, q->s);
}

/*
 * c's derivatives in m and s2 against central differences of
 * dpb_lin_clamp_moments (then dpb_lin_clamp_scale with (N, c, v) = sc[0..2]
 * when sc is given)
 */
static void
check_clamp_derivs(const dpb_lin_clamp *c, double m, double s2, double B,
				   const double *sc, const char *what, size_t t)
{
	for (int v = 0; v < 2; v++)
	{
		double		h = v ? 1e-6 * s2 : 1e-6,
					dm = v ? 0 : h,
					ds = v ? h : 0,
					got[3],
					fd[3];
		dpb_lin_clamp cp,
					cm;

		dpb_lin_clamp_moments(m + dm, s2 + ds, B, &cp);
		dpb_lin_clamp_moments(m - dm, s2 - ds, B, &cm);
		if (sc)
		{
			dpb_lin_clamp_scale(&cp, m + dm, sc[0], sc[1], sc[2]);
			dpb_lin_clamp_scale(&cm, m - dm, sc[0], sc[1], sc[2]);
		}
		fd[0] = (cp.mean - cm.mean) / (2 * h);
		fd[1] = (cp.var - cm.var) / (2 * h);
		fd[2] = (cp.P - cm.P) / (2 * h);
		got[0] = v ? c->dmean_ds2 : c->dmean_dm;
		got[1] = v ? c->dvar_ds2 : c->dvar_dm;
		got[2] = v ? c->dP_ds2 : c->dP_dm;
		for (int j = 0; j < 3; j++)
			CHECK(fabs(got[j] - fd[j]) < 1e-6 * fmax(1, fabs(fd[j])),
				  "%s %zu: derivative %d in %s: %.10g, central differences %.10g",
				  what, t, j, v ? "s2" : "m", got[j], fd[j]);
	}
}

/*
 * The clamped moments (dpb_lin_clamp_moments) against adaptive quadrature
 * (GSL QAGS on [-B, B], the clamped mass from QAGIL / QAGIU), their
 * derivatives against central differences, the cancellation-free dvar and
 * omp against var - s2 and 1 - P, and at a bound far out the unclamped
 * moments exactly.
 */
void
test_linear_clamp_moments(void)
{
	const double cases[][3] = {	/* m, s2, B */
		{0.0, 1.0, 1.0}, {0.4, 0.3, 0.8}, {-0.7, 0.05, 0.5}, {2.5, 1.0, 1.0},
		{-3.0, 0.2, 1.0}, {0.1, 4.0, 0.3}, {0.05, 0.11, 1.0}, {0.9, 0.01, 1.0},
	};
	gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
	double		worst = 0;

	for (size_t t = 0; t < sizeof(cases) / sizeof(cases[0]); t++)
	{
		double		m = cases[t][0],
					s2 = cases[t][1],
					B = cases[t][2],
					in[3],
					lo,
					hi,
					err,
					E1,
					E2;
		struct clamp_q q = {m, sqrt(s2), 0, 0};
		gsl_function F = {clamp_integrand, &q};
		dpb_lin_clamp c;

		for (q.k = 0; q.k <= 2; q.k++)
			gsl_integration_qags(&F, -B, B, 1e-13, 1e-11, 1000, w, &in[q.k], &err);
		q.k = 0;
		gsl_integration_qagil(&F, -B, 1e-13, 1e-11, 1000, w, &lo, &err);
		gsl_integration_qagiu(&F, B, 1e-13, 1e-11, 1000, w, &hi, &err);
		E1 = in[1] + B * (hi - lo);
		E2 = in[2] + B * B * (hi + lo);
		dpb_lin_clamp_moments(m, s2, B, &c);
		CHECK(fabs(c.P - in[0]) < 1e-10, "case %zu: P %.12g, quadrature %.12g", t, c.P, in[0]);
		CHECK(fabs(c.omp - (lo + hi)) < 1e-10, "case %zu: 1 - P %.12g, quadrature %.12g",
			  t, c.omp, lo + hi);
		CHECK(fabs(c.mean - E1) < 1e-9, "case %zu: E[y_c] %.12g, quadrature %.12g", t, c.mean, E1);
		CHECK(fabs(c.var - (E2 - E1 * E1)) < 1e-9, "case %zu: Var(y_c) %.12g, quadrature %.12g",
			  t, c.var, E2 - E1 * E1);
		CHECK(fabs(c.dvar - (c.var - s2)) < 1e-12 * fmax(1, s2), "case %zu: dvar", t);
		worst = fmax(worst, fmax(fabs(c.mean - E1), fabs(c.var - (E2 - E1 * E1))));
		/* derivatives in m and in s2 */
		check_clamp_derivs(&c, m, s2, B, NULL, "case", t);
	}
	/*
	 * Saturation, |m| > B: Var(y_c) is far below s2, and s2 + (E[y_c^2] -
	 * m^2 - s2) - ... loses its digits (terms of size m^2); against the
	 * quadrature of u = B - y_c's moments (m > 0; m < 0 by symmetry), to
	 * 1e-8 relative where the old difference was off by up to 1e-15 / Var
	 */
	{
		const double sat[][3] = {	/* m, s2, B */
			{1.5, 0.25, 1.0}, {4.0, 0.25, 1.0}, {-3.0, 0.09, 1.5}, {12.0, 1.0, 4.0},
			{10.0, 0.5, 4.0}, {-9.0, 0.04, 8.0},
		};

		for (size_t t = 0; t < sizeof(sat) / sizeof(sat[0]); t++)
		{
			double		mm = fabs(sat[t][0]),
						s = sqrt(sat[t][1]),
						B = sat[t][2],
						Fa = gsl_cdf_ugaussian_P((-B - mm) / s),
						e[3],
						err,
						vq;
			struct clamp_q qu = {mm, s, 0, B};
			gsl_function F = {clamp_integrand, &qu};
			dpb_lin_clamp c;

			for (qu.k = 1; qu.k <= 2; qu.k++)
			{
				gsl_integration_qags(&F, -B, B, 0, 1e-12, 1000, w, &e[qu.k], &err);
				e[qu.k] += pow(2 * B, qu.k) * Fa;
			}
			vq = e[2] - e[1] * e[1];
			dpb_lin_clamp_moments(sat[t][0], sat[t][1], B, &c);
			CHECK(fabs(c.var - vq) <= 1e-8 * vq, "saturated case %zu: Var(y_c) %.12g, quadrature %.12g",
				  t, c.var, vq);
			CHECK(fabs(c.mean - (sat[t][0] > 0 ? B - e[1] : e[1] - B)) <= 1e-12 * B,
				  "saturated case %zu: E[y_c] %.15g", t, c.mean);
			CHECK(c.dvar == c.var - sat[t][1], "saturated case %zu: dvar", t);
			worst = fmax(worst, fabs(c.var - vq) / vq);
		}
	}

	/*
	 * dpb_lin_clamp_scale's derivatives in m and s2 (kappa depends on both
	 * through A = N (1 - P)) against central differences, for a precise
	 * count, a noisy one, an exact one (v = 0), and the cap; and its limits:
	 * a count of variance 0 sets omp = c / N (kappa = c / A), a hopeless
	 * one leaves the Gaussian correction
	 */
	{
		const double sc[][6] = {	/* m, s2, B, N, c, v */
			{0.1, 0.11, 1, 1e5, 300, 900},
			{-0.2, 0.05, 0.9, 1e4, 20, 400},
			{0.1, 0.11, 1, 1e5, 300, 0},
			{0.0, 0.02, 1, 1e5, 50, 0},	/* A tiny: the cap */
			{0.2, 0.5, 1, 1e3, 700, 100},	/* c / A above 1: the cap */
			{0.3, 0.3, 1, 2e3, 0, 25},
		};

		for (size_t t = 0; t < sizeof(sc) / sizeof(sc[0]); t++)
		{
			double		m = sc[t][0],
						s2 = sc[t][1],
						B = sc[t][2],
						N = sc[t][3],
						cc = sc[t][4],
						v = sc[t][5];
			dpb_lin_clamp c;

			dpb_lin_clamp_moments(m, s2, B, &c);
			dpb_lin_clamp_scale(&c, m, N, cc, v);
			CHECK(fabs(c.var - s2 - c.dvar) < 1e-12 && fabs(c.P + c.omp - 1) < 1e-15,
				  "scale case %zu: var, dvar, P and omp agree", t);
			if (v == 0 && t == 2)
				CHECK(fabs(c.omp - cc / N) < 1e-12 * cc / N,
					  "scale case %zu: an exact count sets the share: %.10g, %.10g", t, c.omp, cc / N);
			if (t == 3 || t == 4)
			{
				dpb_lin_clamp g;

				dpb_lin_clamp_moments(m, s2, B, &g);
				CHECK(g.omp > 0 && c.omp == DPB_LIN_CLAMP_KMAX * g.omp &&
					  c.dvar == DPB_LIN_CLAMP_KMAX * g.dvar,
					  "scale case %zu: kappa capped at %g", t, DPB_LIN_CLAMP_KMAX);
			}
			check_clamp_derivs(&c, m, s2, B, sc[t] + 3, "scale case", t);
		}
		/* a hopeless count (v huge) leaves the Gaussian correction */
		{
			dpb_lin_clamp g,
						k;

			dpb_lin_clamp_moments(0.1, 0.11, 1, &g);
			k = g;
			dpb_lin_clamp_scale(&k, 0.1, 1e5, 0, 1e30);
			CHECK(fabs(k.mean - g.mean) < 1e-12 && fabs(k.dvar - g.dvar) < 1e-12 * fabs(g.dvar),
				  "a hopeless count leaves the Gaussian tails");
		}
	}
	/* a bound 60 sd out clamps nothing, to the last digits */
	{
		dpb_lin_clamp c;

		dpb_lin_clamp_moments(0.3, 0.04, 12.3, &c);
		CHECK(c.P == 1 && c.omp == 0 && c.mean == 0.3 && c.dvar == 0 && c.var == 0.04,
			  "far bound: P %.17g, mean %.17g, var %.17g", c.P, c.mean, c.var);
	}
	printf("  clamped moments against quadrature: max error %.2g\n", worst);
	gsl_integration_workspace_free(w);
}

/* the Laplace-Gaussian convolution's integrand: N(g; 0, v) e^{-|r - g| / b} */
struct lgc
{
	double		r,
				v,
				b;
};

static double
lgc_integrand(double g, void *vp)
{
	const struct lgc *q = vp;

	return exp(-0.5 * g * g / q->v - fabs(q->r - g) / q->b) / sqrt(2 * M_PI * q->v);
}

/*
 * dpb_laplace_gauss_logconv (the mixed form's Sigma y^2 term): against
 * adaptive quadrature (its value is log of 2b times the density), its
 * derivatives against central differences, and its limit as v -> 0, the
 * Laplace alone (-|r| / b), where the old form lost every digit to the
 * cancellation of x^2 against r^2 / (2v) and a chain could freeze at
 * sigma -> 0 (2026-11-27)
 */
void
test_laplace_logconv(void)
{
	gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
	const double vs[] = {1e-4, 1e-2, 1, 1e2, 1e4},
				rs[] = {-5, -0.3, 0, 0.7, 2};
	double		worst = 0;

	for (size_t a = 0; a < sizeof(vs) / sizeof(vs[0]); a++)
		for (size_t k = 0; k < sizeof(rs) / sizeof(rs[0]); k++)
		{
			struct lgc	q = {rs[k] * 1.3, vs[a] * 1.69, 1.3};
			gsl_function F = {lgc_integrand, &q};
			double		in1,
						in2,
						e1,
						e2,
						dr,
						dv,
						l = dpb_laplace_gauss_logconv(q.r, q.v, q.b, &dr, &dv),
						ref;

			/* (-inf, lo], [lo, hi], [hi, inf): the kink r and the normal's
			 * centre 0 as end points */
			double		lo = fmin(0, q.r),
						hi = fmax(0, q.r),
						in3 = 0,
						e3;

			gsl_integration_qagil(&F, lo, 0, 1e-13, 1000, w, &in1, &e1);
			gsl_integration_qagiu(&F, hi, 0, 1e-13, 1000, w, &in2, &e2);
			if (hi > lo)
				gsl_integration_qags(&F, lo, hi, 0, 1e-13, 1000, w, &in3, &e3);
			in2 += in3;
			ref = log(in1 + in2);
			worst = fmax(worst, fabs(l - ref));
			CHECK(fabs(l - ref) < 1e-9 * fmax(1, fabs(ref)),
				  "logconv v %g r %g: %.14g, quadrature %.14g", q.v, q.r, l, ref);
		}
	/* derivatives, small v included */
	{
		const double pts[][2] = {{-0.4, 1e-12}, {0.9, 1e-20}, {0.05, 1e-6}, {-2, 0.3},
		{1.5, 40}, {0, 2}, {-0.2, 1e-30}};

		for (size_t t = 0; t < sizeof(pts) / sizeof(pts[0]); t++)
		{
			double		r = pts[t][0],
						v = pts[t][1],
						b = 0.8,
						dr,
						dv,
						d1,
						d2,
						hr = 1e-6,
						hv = 1e-5 * v,
						fr,
						fv;

			dpb_laplace_gauss_logconv(r, v, b, &dr, &dv);
			fr = (dpb_laplace_gauss_logconv(r + hr, v, b, &d1, &d2) -
				  dpb_laplace_gauss_logconv(r - hr, v, b, &d1, &d2)) / (2 * hr);
			fv = (dpb_laplace_gauss_logconv(r, v + hv, b, &d1, &d2) -
				  dpb_laplace_gauss_logconv(r, v - hv, b, &d1, &d2)) / (2 * hv);
			CHECK(isfinite(dr) && fabs(dr - fr) < 1e-6 * fmax(1, fabs(fr)),
				  "logconv d/dr at r %g v %g: %.10g, central differences %.10g", r, v, dr, fr);
			if (v >= 1e-6)
				CHECK(isfinite(dv) && fabs(dv - fv) < 1e-5 * fmax(1, fabs(fv)),
					  "logconv d/dv at r %g v %g: %.10g, central differences %.10g", r, v, dv, fv);
			else
				CHECK(isfinite(dv) && fabs(dv - 0.5 / (b * b)) < 1e-3 / (b * b),
					  "logconv d/dv at r %g v %g: %.10g, the Laplace limit 1/(2b^2) %.10g",
					  r, v, dv, 0.5 / (b * b));
		}
	}
	/* v -> 0: the Laplace alone */
	{
		const double tv[] = {1e-12, 1e-20, 1e-30},
					tr[] = {-5, -0.3, 0.7, 2};

		for (size_t a = 0; a < 3; a++)
			for (size_t k = 0; k < 4; k++)
			{
				double		dr,
							dv,
							l = dpb_laplace_gauss_logconv(tr[k], tv[a], 1.0, &dr, &dv);

				CHECK(fabs(l + fabs(tr[k])) < 1e-6, "logconv v %g r %g: %.14g, the Laplace limit %.14g",
					  tv[a], tr[k], l, -fabs(tr[k]));
				CHECK(fabs(dr + (tr[k] > 0 ? 1 : -1)) < 1e-6, "logconv v %g r %g: d/dr %.10g",
					  tv[a], tr[k], dr);
			}
	}
	printf("  laplace-gauss convolution against quadrature: max error %.2g\n", worst);
	gsl_integration_workspace_free(w);
}

void
test_linear_nuts_grad(void)
{
	struct
	{
		dpb_mechanism mech;
		dpb_neighbours nb;
		int			intercept;
		dpb_xmoments xm;
		int			latent,
					prior;
		const char *what;
	}			cases[] = {
		{DPB_MECH_GAUSSIAN, DPB_NB_REPLACE, 1, DPB_XMOM_UPDATE, 0, 0, "gaussian, N known"},
		{DPB_MECH_GAUSSIAN, DPB_NB_ADD_REMOVE, 1, DPB_XMOM_UPDATE, 0, 0, "gaussian, N unknown"},
		{DPB_MECH_LAPLACE, DPB_NB_ADD_REMOVE, 1, DPB_XMOM_UPDATE, 0, 0, "laplace, N unknown"},
		{DPB_MECH_LAPLACE, DPB_NB_ADD_REMOVE, 1, DPB_XMOM_UPDATE, 1, 0, "laplace latent, N unknown"},
		{DPB_MECH_LAPLACE, DPB_NB_REPLACE, 0, DPB_XMOM_PRIOR, 1, 0, "laplace latent, N known, fixed x"},
		{DPB_MECH_LAPLACE, DPB_NB_ADD_REMOVE, 1, DPB_XMOM_UPDATE, 2, 0, "laplace root, N unknown"},
		{DPB_MECH_LAPLACE, DPB_NB_REPLACE, 1, DPB_XMOM_UPDATE, 2, 0, "laplace root, N known"},
		{DPB_MECH_LAPLACE, DPB_NB_REPLACE, 0, DPB_XMOM_PRIOR, 2, 0, "laplace root, N known, fixed x"},
		{DPB_MECH_LAPLACE, DPB_NB_ADD_REMOVE, 0, DPB_XMOM_UPDATE, 2, 0, "laplace root, no intercept"},
		{DPB_MECH_GAUSSIAN, DPB_NB_REPLACE, 0, DPB_XMOM_UPDATE, 0, 0, "no intercept"},
		{DPB_MECH_GAUSSIAN, DPB_NB_REPLACE, 1, DPB_XMOM_PRIOR, 0, 0, "fixed x moments"},
		{DPB_MECH_GAUSSIAN, DPB_NB_ADD_REMOVE, 1, DPB_XMOM_UPDATE, 0, 1, "prior nig, N unknown"},
		{DPB_MECH_GAUSSIAN, DPB_NB_REPLACE, 0, DPB_XMOM_UPDATE, 0, 1, "prior nig, no intercept"},
		{DPB_MECH_GAUSSIAN, DPB_NB_REPLACE, 1, DPB_XMOM_UPDATE, 0, 2, "prior weak, other scales"},
		{DPB_MECH_LAPLACE, DPB_NB_REPLACE, 0, DPB_XMOM_UPDATE, 1, 2, "prior weak, other scales, latent"},
		{DPB_MECH_LAPLACE, DPB_NB_REPLACE, 1, DPB_XMOM_UPDATE, 2, 2, "prior weak, other scales, root"},
		{DPB_MECH_LAPLACE, DPB_NB_ADD_REMOVE, 1, DPB_XMOM_UPDATE, 3, 0, "laplace mixed, N unknown"},
		{DPB_MECH_LAPLACE, DPB_NB_REPLACE, 1, DPB_XMOM_UPDATE, 3, 0, "laplace mixed, N known"},
		{DPB_MECH_LAPLACE, DPB_NB_REPLACE, 0, DPB_XMOM_PRIOR, 3, 0, "laplace mixed, N known, fixed x"},
		{DPB_MECH_LAPLACE, DPB_NB_ADD_REMOVE, 0, DPB_XMOM_UPDATE, 3, 1, "laplace mixed, no intercept, nig"},
		{DPB_MECH_LAPLACE, DPB_NB_ADD_REMOVE, 1, DPB_XMOM_UPDATE, 10, 0, "polar, omega, N unknown"},
		{DPB_MECH_LAPLACE, DPB_NB_REPLACE, 0, DPB_XMOM_UPDATE, 10, 1, "polar, omega, no intercept, nig"},
		{DPB_MECH_GAUSSIAN, DPB_NB_REPLACE, 1, DPB_XMOM_PRIOR, 10, 2, "polar, gaussian, fixed x"},
		{DPB_MECH_LAPLACE, DPB_NB_ADD_REMOVE, 1, DPB_XMOM_UPDATE, 13, 0, "polar, mixed, N unknown"},
		{DPB_MECH_LAPLACE, DPB_NB_REPLACE, 1, DPB_XMOM_PRIOR, 12, 2, "polar, root, fixed x"},
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
	{
		dpb_release r;

		if (make_release(500, 1.0, cases[k].mech, cases[k].nb, cases[k].intercept, 11 + k,
						 &r, NULL) != 0)
		{
			CHECK(0, "sim_release failed");
			continue;
		}
		check_gradient(&r, cases[k].xm, cases[k].latent, cases[k].prior, 0, cases[k].what);
		/* the clamp (o->lin.clamp) with a noticeable share of y clamped: y_bound 0.8
		 * against y's mean 0.4 and sd 0.55 (sim_linear_d2): 15-25% */
		{
			char		w[160];

			snprintf(w, sizeof(w), "%s, y_bound small", cases[k].what);
			check_gradient(&r, cases[k].xm, cases[k].latent, cases[k].prior, 0.8, w);
			/* with a count of clamped records (dpb_lin_clamp_scale): 8% of
			 * N, precise (kappa about 0.4) and noisy (kappa between) */
			grad_count_share = 0.08;
			grad_count_sd = (k % 2) ? 2 : 30;
			snprintf(w, sizeof(w), "%s, y_bound small, count sd %g", cases[k].what, grad_count_sd);
			check_gradient(&r, cases[k].xm, cases[k].latent, cases[k].prior, 0.8, w);
			grad_count_share = grad_count_sd = -1;
		}
		dpb_release_free_stats(&r);
	}

	/*
	 * The latent forms' statistics s = N m + B eta are linear in eta (the
	 * last coordinates of phi): B's columns s(e_j) - s(0), and B B^T must be
	 * N V (Isserlis' covariance), s(0) = N m, at points away from the fit
	 * (an exact identity, up to rounding).  The mixed form (3) leaves out
	 * of s_yy the part that it integrates out: there B B^T is N V less
	 * 2 N sigma^4 at (yy, yy) alone
	 */
	for (int form = 1; form <= 3; form++)
		for (int ic = 0; ic <= 1; ic++)
		{
			dpb_release r;
			dpb_infer_opts o;
			dpb_lin_ctx *c;
			gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
			double		phi[64],
						s0[64],
						s1[64],
						m[64],
						V[64 * 64],
						B[64 * 64],
						worst = 0;
			int			dim,
						dphi,
						n,
						nl,
						nyy = 0,
						i,
						j,
						l;

			if (make_release(500, 1.0, DPB_MECH_LAPLACE, DPB_NB_ADD_REMOVE, ic, 60 + ic, &r, NULL) != 0)
			{
				CHECK(0, "sim_release failed");
				gsl_rng_free(rng);
				continue;
			}
			dpb_infer_opts_default(&o, &r);
			o.lin.laplace_latent = form;
			o.lin.clamp = 1;
			c = dpb_lin_ctx_new(&r, &o);
			dim = dpb_lin_ctx_dim(c);
			o.lin.laplace_latent = 0;
			{
				dpb_lin_ctx *c0 = dpb_lin_ctx_new(&r, &o);

				dphi = dpb_lin_ctx_dim(c0);
				dpb_lin_ctx_free(c0);
			}
			nl = dim - dphi;
			gsl_rng_set(rng, USEED(77 + form));
			dpb_lin_init(c, rng, phi);
			for (i = 0; i < dphi; i++)
				phi[i] += 0.2 * gsl_ran_ugaussian(rng);
			CHECK(dpb_lin_latent_stats(c, phi, s0, m, V) == 0, "latent stats at eta = 0");
			/* the modelled statistics of d = 2: x, y, xx, xy, yy (9) or
			 * without the intercept xx, xy, yy (6) */
			n = ic ? 9 : 6;
			CHECK(nl >= n - (form == 3), "form %d: %d latent coordinates for %d statistics", form, nl, n);
			for (j = 0; j < nl; j++)
			{
				phi[dphi + j] = 1;
				dpb_lin_latent_stats(c, phi, s1, m, V);
				phi[dphi + j] = 0;
				for (i = 0; i < n; i++)
					B[i * nl + j] = s1[i] - s0[i];
			}
			{
				double		N;
				double		th[DPB_MAX_D + 1],
							s2,
							mu[DPB_MAX_D],
							Sg[DPB_MAX_D * DPB_MAX_D];

				dpb_lin_unpack(c, phi, th, &s2, mu, Sg, &N);
				/* with the clamp (on here) the part integrated out is
				 * 2 N W^2, W = Var(y_c) - P^2 theta_x' Sigma theta_x
				 * (dpb_lin_clamp_moments) in place of sigma^2 */
				{
					int			icc = ic ? 1 : 0;
					double		my = icc ? th[0] : 0,
								r2 = 0;
					dpb_lin_clamp cl;

					for (i = 0; i < 2; i++)
					{
						my += th[icc + i] * mu[i];
						for (l = 0; l < 2; l++)
							r2 += th[icc + i] * Sg[i * 2 + l] * th[icc + l];
					}
					dpb_lin_clamp_moments(my, r2 + s2, r.p.y_bound, &cl);
					s2 = cl.var - cl.P * cl.P * r2;
				}
				for (i = 0; i < n; i++)
				{
					CHECK(fabs(s0[i] - N * m[i]) <= 1e-9 * fmax(1, fabs(N * m[i])),
						  "form %d, intercept %d: s(0)[%d] = %g, N m = %g", form, ic, i, s0[i], N * m[i]);
					for (l = 0; l < n; l++)
					{
						double		t = 0,
									want = N * V[i * n + l],
									scale = N * sqrt(V[i * n + i] * V[l * n + l]),
									err;

						for (j = 0; j < nl; j++)
							t += B[i * nl + j] * B[l * nl + j];
						/* the one diagonal entry that differs must be sum
						 * y^2's, less 2 N sigma^4 */
						if (form == 3 && i == l && fabs(t - want) > 1e-7 * scale)
						{
							want -= 2 * N * s2 * s2;
							nyy++;
						}
						err = fabs(t - want) / scale;
						if (err > worst)
							worst = err;
						CHECK(err < 1e-7, "form %d, intercept %d: (B B^T)[%d][%d] = %g, N V = %g",
							  form, ic, i, l, t, want);
					}
				}
			}
			CHECK(nyy == (form == 3), "form %d, intercept %d: %d entries of B B^T differ from N V",
				  form, ic, nyy);
			printf("  latent form %d, intercept %d: B B^T = N V to %.2g\n", form, ic, worst);
			dpb_lin_ctx_free(c);
			gsl_rng_free(rng);
			dpb_release_free_stats(&r);
		}

	/*
	 * laplace_noise "auto" (the default, -1): the latent form where the
	 * noise dominates every statistic (300 rows at epsilon 0.1), omega where
	 * it does not (50 000 rows at epsilon 1); an explicit choice stands;
	 * Gaussian releases have no form to choose
	 */
	{
		struct
		{
			int			N;
			double		eps;
			dpb_mechanism mech;
			dpb_neighbours nb;
			int			set,
						want;
		}			rc[] = {
			{300, 0.1, DPB_MECH_LAPLACE, DPB_NB_ADD_REMOVE, -1, 2},
			{300, 0.1, DPB_MECH_LAPLACE, DPB_NB_REPLACE, -1, 2},
			{50000, 1.0, DPB_MECH_LAPLACE, DPB_NB_ADD_REMOVE, -1, 0},
			{300, 0.1, DPB_MECH_LAPLACE, DPB_NB_REPLACE, 0, 0},
			{50000, 1.0, DPB_MECH_LAPLACE, DPB_NB_REPLACE, 1, 1},
			{50000, 1.0, DPB_MECH_LAPLACE, DPB_NB_REPLACE, 2, 2},
			{300, 0.1, DPB_MECH_GAUSSIAN, DPB_NB_REPLACE, -1, 0},
		};

		for (size_t k = 0; k < sizeof(rc) / sizeof(rc[0]); k++)
		{
			dpb_release r;
			dpb_infer_opts o;
			int			got;

			if (make_release(rc[k].N, rc[k].eps, rc[k].mech, rc[k].nb, 1, 40 + k, &r, NULL) != 0)
			{
				CHECK(0, "sim_release failed");
				continue;
			}
			dpb_infer_opts_default(&o, &r);
			CHECK(o.lin.laplace_latent == -1, "the default is auto");
			o.lin.laplace_latent = rc[k].set;
			got = dpb_lin_use_latent(&r, &o);
			CHECK(got == rc[k].want, "laplace_noise case %zu (N %d, eps %g, set %d): latent %d, want %d",
				  k, rc[k].N, rc[k].eps, rc[k].set, got, rc[k].want);
			dpb_release_free_stats(&r);
		}
	}

	/*
	 * The mixed form: features concentrated within their bounds (x ~ N(0,
	 * 0.25^2), clip 1), y wide (y_bound 4), N = 1e4, epsilon 1, replace-one
	 * (the grid's cell): the noise dominates every statistic but sum y^2.
	 * "auto" takes the mixed form at d = 10 and the omega form at d = 5
	 * (below DPB_LIN_MIXED_MIN_D)
	 */
	for (int d = 5; d <= 10; d += 5)
	{
		gsl_rng    *g = gsl_rng_alloc(gsl_rng_mt19937),
				   *nz = gsl_rng_alloc(gsl_rng_mt19937);
		int			N = 10000,
					cl;
		double	   *X = malloc(sizeof(double) * N * d),
				   *Y = malloc(sizeof(double) * N),
					share,
					rest;
		dpb_params	p;
		dpb_release r;
		dpb_infer_opts o;
		dpb_lin_ctx *c;

		gsl_rng_set(g, USEED(90 + d));
		gsl_rng_set(nz, USEED(91 + d));
		for (int i = 0; i < N; i++)
		{
			double		u = 0.5;

			for (int j = 0; j < d; j++)
			{
				X[i * d + j] = 0.25 * gsl_ran_ugaussian(g);
				u += (j % 2 ? -1.0 : 1.0) * X[i * d + j];
			}
			Y[i] = u + 0.5 * gsl_ran_ugaussian(g);
		}
		dpb_params_default(&p);
		p.epsilon = 1;
		p.delta = 0;
		p.mechanism = DPB_MECH_LAPLACE;
		p.neighbours = DPB_NB_REPLACE;
		p.d = d;
		p.y_bound = 4;
		CHECK(sim_release(DPB_MODEL_LINEAR, &p, d, X, Y, N, nz, &r, &cl) == 0, "mixed: release");
		dpb_infer_opts_default(&o, &r);
		o.lin.laplace_latent = 0;
		c = dpb_lin_ctx_new(&r, &o);
		share = dpb_lin_noise_shares(c, &rest);
		dpb_lin_ctx_free(c);
		CHECK(share < DPB_LIN_LATENT_SHARE && rest >= DPB_LIN_LATENT_SHARE,
			  "mixed, d = %d: noise shares %.3f (all), %.3f (all but sum y^2)", d, share, rest);
		dpb_infer_opts_default(&o, &r);
		CHECK(dpb_lin_use_latent(&r, &o) == (d >= DPB_LIN_MIXED_MIN_D ? DPB_LIN_LATENT_MIXED : 0),
			  "mixed, d = %d: auto takes form %d", d, dpb_lin_use_latent(&r, &o));
		printf("  laplace_noise auto, d = %d: shares %.3f, %.3f (all but sum y^2): form %d\n", d,
			   share, rest, dpb_lin_use_latent(&r, &o));
		dpb_release_free_stats(&r);
		free(X);
		free(Y);
		gsl_rng_free(g);
		gsl_rng_free(nz);
	}
}

/* summaries of the first 4 variables (theta 0..2, sigma) */
static void
summaries(const dpb_draws *dr, dpb_summary *s)
{
	int			n = dr->chains * dr->iters;
	double	   *x = malloc(sizeof(double) * n);

	for (int k = 0; k < 4; k++)
	{
		for (int i = 0; i < n; i++)
			x[i] = dr->v[(size_t) i * dr->nvars + k];
		dpb_summarize(x, dr->chains, dr->iters, &s[k]);
	}
	free(x);
}

static int
run(const dpb_release *r, dpb_sampler sampler, int draws, int thin, dpb_draws *dr,
	double *secs)
{
	dpb_infer_opts o;
	dpb_err		err;
	struct timespec t0,
				t1;
	dpb_status	st;

	dpb_infer_opts_default(&o, r);
	/* Gibbs-SS has only the NIG prior: the same posterior for both */
	o.lin.prior = DPB_LIN_PRIOR_NIG;
	o.sampler = sampler;
	o.draws = draws;
	o.thin = thin;
	o.seed = USEED(7);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	st = dpb_posterior_run(r, &o, dr, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (secs)
		*secs = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
	CHECK(st == DPB_OK, "posterior (%s): %s %s", dpb_sampler_name(sampler), err.msg, err.detail);
	return st == DPB_OK;
}

/*
 * The new sampler and a long, thinned Gibbs-SS run on one release: means
 * within 4.5 MCSE (sd / sqrt(ESS) of each run, combined), sds within
 * 3.5 sigma_r of each other, where sigma_r = sqrt(1.9^2 / n_nuts + 1.4^2 /
 * n_gibbs) is the measured spread of the ratio of two runs' sd estimates
 * from n kept draws each (bench/results/linear_agree.md: one run's sd has a
 * relative sd of a / sqrt(n), a up to 1.9 for NUTS and 1.4 for Gibbs-SS
 * thinned by 10).  With 4 x 4000 draws each that is 6.5%.  The old 5% with
 * 4 x 1000 draws was 2 sigma_r: one seed in 8 failed, on any kernel (issue
 * 22: 1.0608 under OPENBLAS_CORETYPE=Haswell).  Pooled over 20 seeds the
 * two samplers' sds agree to 0.5% (0.9980-1.0048, se 0.3%), so neither is
 * wrong.
 */
static void
check_agreement(dpb_mechanism mech, dpb_neighbours nb, int N, double eps, const char *what)
{
	dpb_release r;
	dpb_draws	a,
				b;
	dpb_summary sa[4],
				sb[4];
	double		ta,
				tb;

	if (make_release(N, eps, mech, nb, 1, 99, &r, NULL) != 0)
	{
		CHECK(0, "sim_release failed");
		return;
	}
	if (run(&r, DPB_SAMPLER_NUTS, 4000, 1, &a, &ta) &&
		run(&r, DPB_SAMPLER_GIBBS, 4000, 10, &b, &tb))
	{
		double		na = (double) a.chains * a.iters,
					nb = (double) b.chains * b.iters,
					tol_sd = 3.5 * sqrt(1.9 * 1.9 / na + 1.4 * 1.4 / nb);

		summaries(&a, sa);
		summaries(&b, sb);
		for (int k = 0; k < 4; k++)
		{
			double		mcse = sqrt(sa[k].sd * sa[k].sd / sa[k].ess_bulk +
									sb[k].sd * sb[k].sd / sb[k].ess_bulk);

			printf("  %s var %d: nuts mean %.5g sd %.4g (rhat %.4f, ess %.0f/%.0f, %.2f s); "
				   "gibbs thin 10 mean %.5g sd %.4g (rhat %.4f, ess %.0f/%.0f, %.2f s)\n",
				   what, k, sa[k].mean, sa[k].sd, sa[k].rhat, sa[k].ess_bulk, sa[k].ess_tail, ta,
				   sb[k].mean, sb[k].sd, sb[k].rhat, sb[k].ess_bulk, sb[k].ess_tail, tb);
			CHECK(fabs(sa[k].mean - sb[k].mean) < 4.5 * mcse,
				  "%s var %d: means differ by %.3g, 4.5 MCSE = %.3g", what, k,
				  sa[k].mean - sb[k].mean, 4.5 * mcse);
			CHECK(fabs(sa[k].sd / sb[k].sd - 1) < tol_sd, "%s var %d: sd ratio %.4f (tolerance %.4f)",
				  what, k, sa[k].sd / sb[k].sd, tol_sd);
			CHECK(sa[k].rhat <= 1.01 && sa[k].ess_bulk >= 400 && sa[k].ess_tail >= 400,
				  "%s var %d: nuts rhat %.4f ess %.0f / %.0f", what, k, sa[k].rhat,
				  sa[k].ess_bulk, sa[k].ess_tail);
		}
		dpb_draws_free(&a);
		dpb_draws_free(&b);
	}
	dpb_release_free_stats(&r);
}

/* large N: the posterior sits on the truth (theta within 5 sd and 0.05) */
static void
check_concentration(dpb_mechanism mech)
{
	dpb_release r;
	dpb_draws	a;
	dpb_summary s[4];
	double		truth[4];

	if (make_release(200000, 1.0, mech, DPB_NB_ADD_REMOVE, 1, 5, &r, truth) != 0)
	{
		CHECK(0, "sim_release failed");
		return;
	}
	if (run(&r, DPB_SAMPLER_DEFAULT, 500, 1, &a, NULL))
	{
		summaries(&a, s);
		for (int k = 0; k < 4; k++)
		{
			printf("  N = 2e5 %s: var %d mean %.4f sd %.4f truth %.4f rhat %.4f\n",
				   mech == DPB_MECH_LAPLACE ? "laplace" : "gaussian", k, s[k].mean, s[k].sd,
				   truth[k], s[k].rhat);
			CHECK(fabs(s[k].mean - truth[k]) < 5 * s[k].sd + 1e-3 && s[k].sd < 0.05,
				  "var %d: mean %.4f sd %.4f truth %.4f", k, s[k].mean, s[k].sd, truth[k]);
		}
		dpb_draws_free(&a);
	}
	dpb_release_free_stats(&r);
}

void		openblas_set_num_threads(int n);
int			openblas_get_num_threads(void);

void
test_linear_nuts(void)
{
	int			threads = openblas_get_num_threads();

	openblas_set_num_threads(1);	/* as in the server */
	check_concentration(DPB_MECH_GAUSSIAN);
	check_concentration(DPB_MECH_LAPLACE);
	check_agreement(DPB_MECH_GAUSSIAN, DPB_NB_REPLACE, 50000, 1.0, "gaussian N known");
	check_agreement(DPB_MECH_GAUSSIAN, DPB_NB_ADD_REMOVE, 50000, 1.0, "gaussian N unknown");
	check_agreement(DPB_MECH_LAPLACE, DPB_NB_ADD_REMOVE, 50000, 1.0, "laplace N unknown");
	openblas_set_num_threads(threads);
}
