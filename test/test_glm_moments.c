/*
 * test_glm_moments.c — moments of one record's statistics under logistic and
 * Poisson regression (glm_moments.h):
 *   - the 1-D logistic expectations against adaptive quadrature;
 *   - m, V against an independent slow implementation (Gauss-Hermite over u
 *     of the conditional Gaussian x | u, Isserlis) to ~1e-9;
 *   - m, V against Monte Carlo (10^6 draws for the main cases), logistic
 *     and Poisson, with and without intercept, ||theta|| = 5, theta~ = 0;
 *   - exact vs Taylor: close at ||theta|| = 0.3, the Taylor y*w block far
 *     off at ||theta|| = 3 while exact matches Monte Carlo;
 *   - the T1 / T2 blocks equal the Gaussian moments (independent of theta);
 *   - derivatives against central finite differences, every parameter, both
 *     models, both approximations; the vector-Jacobian product against the
 *     materialised derivatives;
 *   - a timing printout (not asserted).
 */
#include "unit.h"

#include "accum.h"
#include "gibbs_linear.h"
#include "glm_moments.h"
#include "glm_ypois.h"
#include "linalg.h"

#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Monte Carlo checks: a moment is "bad" beyond MC_Z standard errors.  Each
 * run compares ~100 means and ~3000 covariances whose products have heavy
 * tails (up to y^2 x^2); max z reached 4.1 over 8 seeds at 2e5 draws, so
 * 5 gave a false alarm every few hundred runs; 5.5 keeps a wrong moment
 * (off by more than a few standard errors of 2e5 draws) failing.
 */
#define MC_Z 5.5

/* ---- helpers ---- */

typedef struct glm_case
{
	const char *name;
	dpb_model	model;
	int			d;
	int			ic;
	double		theta[9];
	double		mu[8];
	double		Sigma[64];
	double		y_clip;			/* Poisson: counts clipped here (0: not) */
} glm_case;

static double
u_of(const dpb_layout *L, const double *theta, const double *x)
{
	double		u = L->intercept ? theta[0] : 0.0;
	int			i;

	for (i = 0; i < L->d; i++)
		u += theta[L->intercept + i] * x[i];
	return u;
}

/* a random symmetric positive definite d x d matrix, scale ~ sc */
static void
rand_spd(gsl_rng *rng, int d, double sc, double *S)
{
	double		A[64];
	int			i,
				j,
				k;

	for (i = 0; i < d * d; i++)
		A[i] = gsl_ran_ugaussian(rng);
	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++)
		{
			double		s = 0;

			for (k = 0; k < d; k++)
				s += A[i * d + k] * A[j * d + k];
			S[i * d + j] = sc * (s / d + (i == j ? 0.3 : 0.0));
		}
}

/* ---- 1. the 1-D logistic expectations ---- */

typedef struct hpar
{
	double		m,
				s;
	int			r;
} hpar;

/* d^r/du^r tanh(u/2) by the recursion in long double, r <= 6 */
static double
tanh_der(double u, int r)
{
	long double t = tanhl(u / 2.0L),
				S = (1 - t * t) / 2,
				c[7][7],
				acc = 0;
	int			k,
				j;

	memset(c, 0, sizeof(c));
	c[0][0] = 1;
	for (k = 1; k < 7; k++)
	{
		for (j = 0; j < k; j++)
			c[k][j + 1] -= c[k - 1][j];
		for (j = 1; j < k; j++)
		{
			long double dk = j * c[k - 1][j] / 2;

			c[k][j - 1] += dk;
			c[k][j + 1] -= dk;
		}
	}
	if (r == 0)
		return (double) t;
	for (j = r - 1; j >= 0; j--)
		acc = acc * t + c[r - 1][j];
	return (double) (S * acc);
}

static double
hfun(double z, void *vp)
{
	hpar	   *p = vp;

	return tanh_der(p->m + p->s * z, p->r) * exp(-0.5 * z * z) / sqrt(2 * M_PI);
}

static void
test_quadrature(void)
{
	gsl_integration_workspace *ws = gsl_integration_workspace_alloc(20000);
	static const double ms[] = {0, 0.7, -2, 5, -12, 30};
	static const double ss[] = {0, 0.05, 0.3, 0.79, 0.81, 1.5, 3, 8, 15};
	double		worst = 0;
	int			a,
				b,
				r;

	for (a = 0; a < 6; a++)
		for (b = 0; b < 9; b++)
		{
			double		G[7];

			CHECK(dpb_glm_logistic_expect(ms[a], ss[b] * ss[b], 6, G) == DPB_OK,
				  "logistic_expect status");
			for (r = 0; r < 7; r++)
			{
				hpar		hp = {ms[a], ss[b], r};
				double		ref,
							err;

				if (ss[b] == 0)
					ref = tanh_der(ms[a], r);
				else
				{
					gsl_function F = {hfun, &hp};
					double		pts[3] = {-40, -ms[a] / ss[b], 40};

					if (pts[1] < -39)
						pts[1] = -39;
					if (pts[1] > 39)
						pts[1] = 39;
					/* may report roundoff (tolerance unreachable); the value
					 * is still accurate to ~1e-15 */
					gsl_integration_qagp(&F, pts, 3, 1e-16, 1e-13, 20000, ws,
										 &ref, &err);
				}
				if (fabs(G[r] - ref) > worst)
					worst = fabs(G[r] - ref);
				CHECK(fabs(G[r] - ref) < 1e-11,
					  "E[h^(%d)(u)], m = %g, s = %g: %.15g vs %.15g", r, ms[a],
					  ss[b], G[r], ref);
			}
		}
	printf("  logistic E[h^(r)(u)], r <= 6: max abs error vs adaptive quadrature %.1e\n",
		   worst);
	gsl_integration_workspace_free(ws);
}

/* ---- 2. an independent slow implementation ---- */

/*
 * m and V by Gauss-Hermite (nq nodes) over u of the conditional Gaussian
 * x | u ~ N(mu + c z, Sigma - c c^T), c = Sigma theta~ / s, z = (u - m_u)/s,
 * with Isserlis for the non-central fourth moments.  Requires s > 0.
 */
static void
ref_moments(const dpb_layout *L, dpb_glm_approx ap, const double *theta,
			const double *mu, const double *Sigma, double *m, double *V)
{
	int			d = L->d,
				q = d + 1,
				n = L->nstats,
				ic = L->intercept,
				nq = 200,
				i,
				j,
				k,
				l,
				t;
	gsl_integration_fixed_workspace *ws =
		gsl_integration_fixed_alloc(gsl_integration_fixed_hermite, nq, 0, 0.5, 0, 0);
	const double *z = gsl_integration_fixed_nodes(ws),
			   *wt = gsl_integration_fixed_weights(ws);
	double		c[9],
				C[81],
				mc[9],
				mu_u = ic ? theta[0] : 0,
				s2 = 0,
				wsum = 0;
	int		   *ya = malloc(sizeof(int) * 3 * n),
			   *ia = ya + n,
			   *ib = ia + n;
	double	   *S = calloc((size_t) n * n, sizeof(double));

	for (k = 0; k < n; k++)
	{
		dpb_entry	e;

		dpb_layout_entry(L, k, &e);
		ya[k] = e.ypow;
		ia[k] = e.i < 0 ? 0 : e.i + 1 - ic;
		ib[k] = e.j < 0 ? 0 : e.j + 1 - ic;
	}
	for (i = 0; i < d; i++)
	{
		double		s = 0;

		for (j = 0; j < d; j++)
			s += Sigma[i * d + j] * theta[ic + j];
		c[i] = s;
		s2 += theta[ic + i] * s;
		mu_u += theta[ic + i] * mu[i];
	}
	for (i = 0; i < d; i++)
		c[i] /= sqrt(s2);
	memset(C, 0, sizeof(C));
	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++)
			C[(1 + i) * q + 1 + j] = Sigma[i * d + j] - c[i] * c[j];
	memset(m, 0, sizeof(double) * n);
	for (t = 0; t < nq; t++)
		wsum += wt[t];
	for (t = 0; t < nq; t++)
	{
		double		u = mu_u + sqrt(s2) * z[t],
					w = wt[t] / wsum,
					h[3];

		h[0] = 1;
		if (L->model == DPB_MODEL_LOGISTIC)
		{
			h[1] = ap == DPB_GLM_EXACT ? tanh(u / 2) : u / 2 - u * u * u / 24;
			h[2] = 1;
		}
		else if (ap == DPB_GLM_EXACT)
		{
			h[1] = exp(u);
			h[2] = exp(u) + exp(2 * u);
		}
		else
		{
			/* the second-order expansions of e^u and e^{2u} */
			h[1] = 1 + u + u * u / 2;
			h[2] = h[1] + 1 + 2 * u + 2 * u * u;
		}
		mc[0] = 1;
		for (i = 0; i < d; i++)
			mc[1 + i] = mu[i] + c[i] * z[t];
		for (k = 0; k < n; k++)
		{
			int			a = ia[k],
						b = ib[k];

			m[k] += w * h[ya[k]] * (mc[a] * mc[b] + C[a * q + b]);
			for (l = k; l < n; l++)
			{
				int			e = ia[l],
							f = ib[l];
				double		v;

				v = mc[a] * mc[b] * mc[e] * mc[f]
					+ C[a * q + b] * mc[e] * mc[f] + C[a * q + e] * mc[b] * mc[f]
					+ C[a * q + f] * mc[b] * mc[e] + C[b * q + e] * mc[a] * mc[f]
					+ C[b * q + f] * mc[a] * mc[e] + C[e * q + f] * mc[a] * mc[b]
					+ C[a * q + b] * C[e * q + f] + C[a * q + e] * C[b * q + f]
					+ C[a * q + f] * C[b * q + e];
				S[k * n + l] += w * h[ya[k] + ya[l]] * v;
			}
		}
	}
	for (k = 0; k < n; k++)
		for (l = k; l < n; l++)
			V[k * n + l] = V[l * n + k] = S[k * n + l] - m[k] * m[l];
	free(S);
	free(ya);
	gsl_integration_fixed_free(ws);
}

static void
test_reference(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int			rep;
	double		worst = 0;

	/* fixed cases (not USEED): a deterministic accuracy check, no chain */
	gsl_rng_set(rng, 11);
	for (rep = 0; rep < 12; rep++)
	{
		dpb_model	model = rep % 2 ? DPB_MODEL_POISSON : DPB_MODEL_LOGISTIC;
		dpb_glm_approx ap = rep < 8 ? DPB_GLM_EXACT : DPB_GLM_TAYLOR;
		int			ic = (rep / 2) % 2,
					d = rep < 4 ? 3 : 2,
					n,
					k,
					i;
		dpb_layout	L;
		double		theta[9],
					mu[8],
					Sigma[64],
					m[80],
					V[6400],
					mr[80],
					Vr[6400],
					sc = 0;

		dpb_layout_init(&L, model, d, ic);
		n = L.nstats;
		rand_spd(rng, d, model == DPB_MODEL_POISSON ? 0.1 : 0.5, Sigma);
		for (i = 0; i < L.p; i++)
			theta[i] = (model == DPB_MODEL_POISSON ? 0.5 : 1.5) * gsl_ran_ugaussian(rng);
		for (i = 0; i < d; i++)
			mu[i] = 0.3 * gsl_ran_ugaussian(rng);
		CHECK(dpb_glm_moments(&L, ap, theta, mu, Sigma, m, V, NULL, NULL) == DPB_OK,
			  "status");
		ref_moments(&L, ap, theta, mu, Sigma, mr, Vr);
		for (k = 0; k < n * n; k++)
			sc = fmax(sc, fabs(Vr[k]));
		for (k = 0; k < n; k++)
		{
			sc = fmax(sc, fabs(mr[k]));
		}
		for (k = 0; k < n; k++)
		{
			worst = fmax(worst, fabs(m[k] - mr[k]) / sc);
			CHECK(fabs(m[k] - mr[k]) <= 1e-9 * sc, "rep %d m[%d]: %.12g vs %.12g",
				  rep, k, m[k], mr[k]);
		}
		for (k = 0; k < n * n; k++)
		{
			worst = fmax(worst, fabs(V[k] - Vr[k]) / sc);
			CHECK(fabs(V[k] - Vr[k]) <= 1e-9 * sc, "rep %d V[%d]: %.12g vs %.12g",
				  rep, k, V[k], Vr[k]);
		}
	}
	printf("  m, V (exact and taylor) vs conditional-Gaussian Gauss-Hermite reference: max error %.1e (relative to max |entry|)\n",
		   worst);
	gsl_rng_free(rng);
}

/* ---- 3. Monte Carlo ---- */

typedef struct mc_result
{
	int			bad_m,
				bad_V;
	double		maxz_m,
				maxz_V;
	double		mc_m[80];		/* Monte Carlo means */
	double		se_m[80];
} mc_result;

/* compares m, V of approx with ndraw simulated records */
static void
mc_compare(const glm_case *c, dpb_glm_approx approx, int ndraw,
		   unsigned long seed, mc_result *res)
{
	dpb_layout	L;
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double		Lc[64],
				x[8],
				t[80],
				cen[80];
	double	   *m,
			   *V,
			   *s1,
			   *s2,
			   *s4;
	int			n,
				d = c->d,
				i,
				k,
				l,
				r;

	dpb_layout_init(&L, c->model, d, c->ic);
	L.y_clip = c->y_clip;
	n = L.nstats;
	m = malloc(sizeof(double) * (n + 4 * (size_t) n * n));
	V = m + n;
	s1 = V + n * n;
	s2 = s1 + n * n;
	s4 = s2 + n * n;
	memset(s1, 0, sizeof(double) * 3 * n * n);
	CHECK(dpb_glm_moments(&L, approx, c->theta, c->mu, c->Sigma, m, V, NULL, NULL) == DPB_OK,
		  "%s: status", c->name);
	memcpy(Lc, c->Sigma, sizeof(double) * d * d);
	dpb_chol(Lc, d, NULL);
	gsl_rng_set(rng, USEED(seed));
	for (r = 0; r < ndraw; r++)
	{
		double		u,
					y;

		for (i = 0; i < d; i++)
			x[i] = gsl_ran_ugaussian(rng);
		dpb_tri_mul(Lc, d, x);
		for (i = 0; i < d; i++)
			x[i] += c->mu[i];
		u = u_of(&L, c->theta, x);
		if (c->model == DPB_MODEL_LOGISTIC)
			y = gsl_rng_uniform(rng) < 1.0 / (1.0 + exp(-u)) ? 1.0 : -1.0;
		else
			y = (double) gsl_ran_poisson(rng, exp(u));
		if (c->y_clip > 0 && y > c->y_clip)
			y = c->y_clip;
		dpb_accum_record(&L, x, y, t);
		for (k = 0; k < n; k++)
			cen[k] = t[k] - m[k];
		for (k = 0; k < n; k++)
		{
			double		ck = cen[k];

			s1[k] += ck;
			for (l = k; l < n; l++)
			{
				double		p = ck * cen[l];

				s2[k * n + l] += p;
				s4[k * n + l] += p * p;
			}
		}
	}
	memset(res, 0, sizeof(*res));
	/* standard errors from the draws themselves */
	for (k = 0; k < n; k++)
	{
		double		mk = s1[k] / ndraw;

		res->mc_m[k] = m[k] + mk;
		res->se_m[k] = sqrt(fmax(s2[k * n + k] / ndraw - mk * mk, 0) / ndraw);
	}
	for (k = 0; k < n; k++)
	{
		double		mk = s1[k] / ndraw,
					se = res->se_m[k],
					z = se > 0 ? fabs(mk) / se : (fabs(mk) > 1e-12 ? 1e9 : 0);

		res->maxz_m = fmax(res->maxz_m, z);
		if (z > MC_Z)
			res->bad_m++;
		for (l = k; l < n; l++)
		{
			/*
			 * cov = mean(c_k c_l) - mean(c_k) mean(c_l), c centred at the
			 * model's m: the first term has standard error sev, the second
			 * is O(se_k se_l)
			 */
			double		e2 = s2[k * n + l] / ndraw,
						cov = e2 - mk * (s1[l] / ndraw),
						sev = sqrt(fmax(s4[k * n + l] / ndraw - e2 * e2, 0) / ndraw),
						tol = sev + 5 * se * res->se_m[l],
						dz = fabs(cov - V[k * n + l]);

			z = tol > 0 ? dz / tol : (dz > 1e-12 ? 1e9 : 0);
			res->maxz_V = fmax(res->maxz_V, z);
			if (z > MC_Z)
				res->bad_V++;
		}
	}
	free(m);
	gsl_rng_free(rng);
}

static const glm_case case_logit5 = {
	"logistic, intercept, d = 3, ||theta|| = 5", DPB_MODEL_LOGISTIC, 3, 1,
	{0.5, 3.0, -3.0, 2.3}, {0.3, -0.2, 0.1},
	{0.8, 0.2, -0.1, 0.2, 0.6, 0.15, -0.1, 0.15, 0.7}, 0
};
static const glm_case case_logit_small_s = {
	"logistic, no intercept, d = 3, s < 0.8", DPB_MODEL_LOGISTIC, 3, 0,
	{0.9, -0.6, 0.4}, {0.5, -0.3, 0.8},
	{0.2, 0.05, 0.0, 0.05, 0.3, -0.06, 0.0, -0.06, 0.25}, 0
};
static const glm_case case_pois_ic = {
	"poisson, intercept, d = 3", DPB_MODEL_POISSON, 3, 1,
	{0.3, 0.6, -0.5, 0.4}, {0.2, 0.1, -0.3},
	{0.25, 0.05, 0.02, 0.05, 0.2, -0.04, 0.02, -0.04, 0.3}, 0
};
static const glm_case case_pois_noic = {
	"poisson, no intercept, d = 3", DPB_MODEL_POISSON, 3, 0,
	{0.7, -0.4, 0.5}, {0.6, -0.2, 0.4},
	{0.25, 0.05, 0.02, 0.05, 0.2, -0.04, 0.02, -0.04, 0.3}, 0
};
/* clipped counts: E[y] = 1.8 against the bounds 4 and 2.5 (K = 2) */
static const glm_case case_pois_clip4 = {
	"poisson, intercept, d = 3, y clipped at 4", DPB_MODEL_POISSON, 3, 1,
	{0.3, 0.6, -0.5, 0.4}, {0.2, 0.1, -0.3},
	{0.25, 0.05, 0.02, 0.05, 0.2, -0.04, 0.02, -0.04, 0.3}, 4.0
};
static const glm_case case_pois_clip_frac = {
	"poisson, no intercept, d = 2, y clipped at 2.5, s = 1.6", DPB_MODEL_POISSON, 2, 0,
	{1.5, -1.5}, {0.3, 0.2},
	{0.6, 0.1, 0.1, 0.5}, 2.5
};
static const glm_case case_logit3 = {
	"logistic, intercept, d = 2, ||theta|| = 3", DPB_MODEL_LOGISTIC, 2, 1,
	{0.0, 2.4, 1.8}, {0.0, 0.0},
	{1.0, 0.0, 0.0, 1.0}, 0
};
static const glm_case case_logit_flat = {
	"logistic, intercept, d = 3, theta~ = 0", DPB_MODEL_LOGISTIC, 3, 1,
	{0.8, 0, 0, 0}, {0.3, -0.2, 0.1},
	{0.8, 0.2, -0.1, 0.2, 0.6, 0.15, -0.1, 0.15, 0.7}, 0
};
static const glm_case case_pois_flat = {
	"poisson, no intercept, d = 2, theta = 0", DPB_MODEL_POISSON, 2, 0,
	{0, 0}, {0.4, -0.3},
	{0.3, 0.1, 0.1, 0.2}, 0
};

static void
report_mc(const glm_case *c, int ndraw, const mc_result *r)
{
	printf("  MC %-45s %8d draws: max |z| mean %.2f, cov %.2f\n", c->name,
		   ndraw, r->maxz_m, r->maxz_V);
	CHECK(r->bad_m == 0, "%s: %d means beyond %g MC standard errors (max z %.1f)",
		  c->name, r->bad_m, MC_Z, r->maxz_m);
	CHECK(r->bad_V == 0, "%s: %d covariances beyond %g MC standard errors (max z %.1f)",
		  c->name, r->bad_V, MC_Z, r->maxz_V);
}

static void
test_monte_carlo(void)
{
	mc_result	r;
	const glm_case *big[] = {&case_logit5, &case_pois_ic, &case_pois_noic};
	const glm_case *small[] = {&case_logit_small_s, &case_logit_flat, &case_pois_flat};
	int			i;

	for (i = 0; i < 3; i++)
	{
		mc_compare(big[i], DPB_GLM_EXACT, 1000000, 100 + i, &r);
		report_mc(big[i], 1000000, &r);
	}
	for (i = 0; i < 3; i++)
	{
		mc_compare(small[i], DPB_GLM_EXACT, 200000, 200 + i, &r);
		report_mc(small[i], 200000, &r);
	}
	/* the moments of min(y, y_clip) (glm_ypois.c) */
	mc_compare(&case_pois_clip4, DPB_GLM_EXACT, 1000000, 300, &r);
	report_mc(&case_pois_clip4, 1000000, &r);
	mc_compare(&case_pois_clip_frac, DPB_GLM_EXACT, 1000000, 301, &r);
	report_mc(&case_pois_clip_frac, 1000000, &r);
}

/* ---- 0. the clipped Poisson response (glm_ypois.c) ---- */

typedef struct ypois_arg
{
	double		B,
				m,
				s;
	int			r,
				which;
} ypois_arg;

static double
ypois_integrand(double u, void *v)
{
	const ypois_arg *a = v;
	double		h1[7],
				h2[7],
				z = (u - a->m) / a->s;

	dpb_ypois_h(a->B, u, h1, h2);
	return (a->which ? h2 : h1)[a->r] * exp(-0.5 * z * z) / (a->s * sqrt(2.0 * M_PI));
}

static double
ypois_abs_integrand(double u, void *v)
{
	return fabs(ypois_integrand(u, v));
}

static void
test_ypois(void)
{
	static const double Bs[] = {0.5, 1.0, 1.5, 3.0, 10.0, 40.5, 1000.0};
	static const double ms[] = {-3.0, 0.0, 1.5, 3.0, 6.0};
	static const double ss[] = {0.0, 0.01, 0.05, 0.3, 1.0, 3.0, 6.0};
	gsl_integration_workspace *ws = gsl_integration_workspace_alloc(10000);
	double		max_h = 0,
				max_fd = 0,
				max_g = 0;
	int			b,
				i,
				j,
				r,
				w,
				bad = 0;

	for (b = 0; b < 7; b++)
	{
		double		B = Bs[b],
					u;

		/* values against the direct sum, derivatives against differences */
		for (u = -6.0; u < fmin(log(B) + 3.0, 7.5); u += 0.37)
		{
			double		h1[7],
						h2[7],
						a1[7],
						a2[7],
						b1[7],
						b2[7],
						d1 = 0,
						d2 = 0,
						lam = exp(u),
						e;
			int			y;

			dpb_ypois_h(B, u, h1, h2);
			for (y = 0; y < 2000; y++)
			{
				double		p = gsl_ran_poisson_pdf(y, lam),
							g = fmin(y, B);

				d1 += g * p;
				d2 += g * g * p;
			}
			e = fmax(fabs(h1[0] - d1) / d1, fabs(h2[0] - d2) / d2);
			max_h = fmax(max_h, e);
			bad += !(e < 1e-10);
			dpb_ypois_h(B, u + 1e-5, a1, a2);
			dpb_ypois_h(B, u - 1e-5, b1, b2);
			for (r = 0; r < 6; r++)
			{
				double		f1 = (a1[r] - b1[r]) / 2e-5,
							f2 = (a2[r] - b2[r]) / 2e-5,
							e1 = fabs(f1 - h1[r + 1]) / fmax(fmax(fabs(h1[r + 1]), fabs(h1[r])), 1e-3),
							e2 = fabs(f2 - h2[r + 1]) / fmax(fmax(fabs(h2[r + 1]), fabs(h2[r])), 1e-3);

				max_fd = fmax(max_fd, fmax(e1, e2));
				bad += !(e1 < 1e-5 && e2 < 1e-5);
			}
		}
		/* G_r against adaptive quadrature, split at log B */
		for (i = 0; i < 5; i++)
			for (j = 0; j < 7; j++)
			{
				double		G[2][7];

				CHECK(dpb_ypois_expect(B, ms[i], ss[j] * ss[j], G[0], G[1]) == DPB_OK,
					  "ypois_expect B %g", B);
				for (w = 0; w < 2; w++)
					for (r = 0; r < 7; r++)
					{
						ypois_arg	a = {B, ms[i], ss[j], r, w};
						gsl_function F = {ypois_integrand, &a},
									Fa = {ypois_abs_integrand, &a};
						double		res,
									res_abs = 0,
									err,
									pts[3] = {ms[i] - 12 * ss[j], log(B), ms[i] + 12 * ss[j]},
									e;

						if (ss[j] == 0)
						{
							double		h[2][7];

							dpb_ypois_h(B, ms[i], h[0], h[1]);
							res = h[w][r];
						}
						else if (pts[1] > pts[0] && pts[1] < pts[2])
						{
							gsl_integration_qagp(&F, pts, 3, 1e-14, 1e-12, 10000, ws, &res, &err);
							gsl_integration_qagp(&Fa, pts, 3, 1e-14, 1e-6, 10000, ws, &res_abs, &err);
						}
						else
						{
							gsl_integration_qag(&F, pts[0], pts[2], 1e-14, 1e-12, 10000, 6, ws, &res, &err);
							gsl_integration_qag(&Fa, pts[0], pts[2], 1e-14, 1e-6, 10000, 6, ws, &res_abs, &err);
						}

						/*
						 * relative, with a floor: near log B, h^{(r)} is
						 * ~B K^{r/2} with both signs, and its expectation
						 * can be many orders smaller than E|h^{(r)}| (by
						 * 1e-9 at B = 1000, r = 6), which no method in
						 * double precision resolves; and far right of log
						 * B every G_r, r >= 1, is ~0 on the scale B^w
						 */
						e = fabs(G[w][r] - res)
							/ (fabs(res) + 1e-3 * res_abs + 1e-7 * pow(B, w + 1));
						max_g = fmax(max_g, e);
						if (!(e < 1e-8))
						{
							bad++;
							printf("  ypois B %g m %g s %g h%d G_%d: %.12g vs %.12g\n",
								   B, ms[i], ss[j], w + 1, r, G[w][r], res);
						}
					}
			}
	}
	CHECK(bad == 0, "clipped Poisson response: %d values off", bad);
	printf("  clipped Poisson response (7 bounds 0.5..1000): h vs direct sums %.1e, h' vs differences %.1e, "
		   "G_r vs adaptive quadrature %.1e (max scaled error)\n", max_h, max_fd, max_g);
	{
		double		G1[7],
					G2[7];

		CHECK(dpb_ypois_expect(0.0, 0, 1, G1, G2) == DPB_EINVAL, "B = 0 refused");
		CHECK(dpb_ypois_expect(3.0, NAN, 1, G1, G2) == DPB_EINVAL, "m = NaN refused");
		CHECK(dpb_ypois_expect(3.0, 0, -1, G1, G2) == DPB_EINVAL, "s2 < 0 refused");
		CHECK(dpb_ypois_expect(3.0, 800.0, 0.0, G1, G2) == DPB_OK && G1[0] == 3.0 && G2[0] == 9.0
			  && G1[1] == 0, "u far right: every count clipped");
	}
	gsl_integration_workspace_free(ws);
}

/* ---- 4. exact vs Taylor ---- */

static void
test_taylor(void)
{
	dpb_layout	L;
	mc_result	r;
	double		me[80],
				Ve[6400],
				mt[80],
				Vt[6400],
				eu_e = 0,
				eu_t = 0,
				eu_mc = 0,
				se_mc = 0,
				worst = 0,
				scale = 0;
	int			n,
				k,
				i,
				rep,
				far = 0;
	/*
	 * small ||theta|| = 0.3: both models, with and without intercept.  The
	 * differences are the Taylor remainders, of order ||theta||^5 for
	 * tanh(u/2) - (u/2 - u^3/24) and ||theta||^3 for e^u - (1 + u + u^2/2):
	 * check the size at 0.3 and the order from 0.3 vs 0.1.
	 */
	static const double th_small[3] = {0.1, -0.2, 0.2};

	for (rep = 0; rep < 4; rep++)
	{
		dpb_model	model = rep % 2 ? DPB_MODEL_POISSON : DPB_MODEL_LOGISTIC;
		int			ic = rep / 2,
					sz;
		double		mu[2] = {0.2, -0.1},
					Sigma[4] = {0.5, 0.1, 0.1, 0.4},
					diff[2],
					order,
					tol = model == DPB_MODEL_LOGISTIC ? 1e-4 : 5e-2;

		dpb_layout_init(&L, model, 2, ic);
		n = L.nstats;
		for (sz = 0; sz < 2; sz++)
		{
			double		theta[3],
						f = sz == 0 ? 1.0 : 1.0 / 3.0;

			for (i = 0; i < L.p; i++)
				theta[i] = f * th_small[i + 1 - ic];
			/* ||theta|| = 0.3 with the intercept, 0.283 without */
			dpb_glm_moments(&L, DPB_GLM_EXACT, theta, mu, Sigma, me, Ve, NULL, NULL);
			dpb_glm_moments(&L, DPB_GLM_TAYLOR, theta, mu, Sigma, mt, Vt, NULL, NULL);
			scale = 0;
			worst = 0;
			for (k = 0; k < n; k++)
				scale = fmax(scale, fabs(me[k]));
			for (k = 0; k < n * n; k++)
				scale = fmax(scale, fabs(Ve[k]));
			for (k = 0; k < n; k++)
				worst = fmax(worst, fabs(me[k] - mt[k]));
			for (k = 0; k < n * n; k++)
				worst = fmax(worst, fabs(Ve[k] - Vt[k]));
			diff[sz] = worst / scale;
		}
		order = log(diff[0] / diff[1]) / log(3.0);
		printf("  small theta, %s%s: max |exact - taylor| / max entry = %.1e at ||theta|| = 0.3, %.1e at 0.1 (order %.1f)\n",
			   model == DPB_MODEL_LOGISTIC ? "logistic" : "poisson",
			   ic ? ", intercept" : "", diff[0], diff[1], order);
		CHECK(diff[0] <= tol, "exact vs taylor at ||theta|| = 0.3: %g", diff[0]);
		CHECK(model == DPB_MODEL_LOGISTIC ? order > 4.5 : order > 2.5,
			  "exact - taylor should shrink like ||theta||^%d (order %.2f)",
			  model == DPB_MODEL_LOGISTIC ? 5 : 3, order);
	}

	/* ||theta|| = 3: E[u tanh(u/2)] = theta . E[y w] */
	dpb_layout_init(&L, DPB_MODEL_LOGISTIC, 2, 1);
	n = L.nstats;
	dpb_glm_moments(&L, DPB_GLM_EXACT, case_logit3.theta, case_logit3.mu,
					case_logit3.Sigma, me, Ve, NULL, NULL);
	dpb_glm_moments(&L, DPB_GLM_TAYLOR, case_logit3.theta, case_logit3.mu,
					case_logit3.Sigma, mt, Vt, NULL, NULL);
	mc_compare(&case_logit3, DPB_GLM_EXACT, 1000000, 300, &r);
	report_mc(&case_logit3, 1000000, &r);
	for (k = 0; k < L.p; k++)		/* the YT1 block comes first */
	{
		eu_e += case_logit3.theta[k] * me[k];
		eu_t += case_logit3.theta[k] * mt[k];
		eu_mc += case_logit3.theta[k] * r.mc_m[k];
		se_mc += case_logit3.theta[k] * case_logit3.theta[k] * r.se_m[k] * r.se_m[k];
		if (fabs(mt[k] - me[k]) > 10 * r.se_m[k] + 0.2 * fabs(me[k]))
			far++;
	}
	se_mc = sqrt(se_mc);			/* rough (ignores correlations) */
	printf("  ||theta|| = 3: E[u tanh(u/2)] exact %.4f, taylor %.4f, MC %.4f (+- %.4f)\n",
		   eu_e, eu_t, eu_mc, se_mc);
	printf("                 E[y x1]       exact %.4f, taylor %.4f, MC %.4f (+- %.4f)\n",
		   me[1], mt[1], r.mc_m[1], r.se_m[1]);
	CHECK(eu_t < 0 && eu_e > 0, "taylor E[u tanh(u/2)] should have the wrong sign here");
	CHECK(far >= 2, "the taylor y*w block should be far off at ||theta|| = 3 (%d entries)", far);
	CHECK(fabs(eu_e - eu_mc) < 5 * 3 * se_mc, "exact E[u tanh(u/2)] vs MC");
	/* Taylor fails the Monte Carlo test */
	mc_compare(&case_logit3, DPB_GLM_TAYLOR, 200000, 301, &r);
	CHECK(r.bad_m > 0, "taylor at ||theta|| = 3 unexpectedly matches MC (max z %.1f)",
		  r.maxz_m);
	printf("  ||theta|| = 3, taylor vs MC: %d means beyond 5 SE (max z %.0f)\n",
		   r.bad_m, r.maxz_m);
}

/* ---- 5. the covariate blocks are Gaussian moments ---- */

static void
test_gaussian_blocks(void)
{
	int			rep;

	for (rep = 0; rep < 6; rep++)
	{
		dpb_model	model = rep < 4 ? (rep % 2 ? DPB_MODEL_POISSON : DPB_MODEL_LOGISTIC)
			: DPB_MODEL_POISSON;
		int			ic = (rep / 2) % 2,
					d = 3,
					n,
					K,
					b,
					k,
					l,
					P;
		dpb_glm_approx ap = rep >= 4 ? DPB_GLM_TAYLOR : DPB_GLM_EXACT;
		dpb_layout	L,
					Llin;
		double		theta[4] = {0.4, -1.1, 0.7, 2.0},
					theta2[4] = {-0.9, 0.3, -0.2, 0.5},
					mu[3] = {0.2, -0.4, 0.1},
					Sigma[9] = {0.5, 0.1, -0.05, 0.1, 0.4, 0.12, -0.05, 0.12, 0.6},
					m[40],
					V[1600],
					m2[40],
					V2[1600],
					ml[40],
					Vl[1600],
				   *dm,
				   *dV,
					th_lin[5] = {0};
		int			t2 = -1,
					t2l = 0,
					t1 = -1,
					bad = 0,
					badth = 0;

		if (rep >= 4)
			ic = rep - 4;
		dpb_layout_init(&L, model, d, ic);
		dpb_layout_init(&Llin, DPB_MODEL_LINEAR, d, ic);
		n = L.nstats;
		K = dpb_glm_nparams(&L);
		dm = malloc(sizeof(double) * K * n * (n + 1));
		dV = dm + K * n;
		dpb_glm_moments(&L, ap, theta, mu, Sigma, m, V, dm, dV);
		dpb_glm_moments(&L, ap, theta2, mu, Sigma, m2, V2, NULL, NULL);
		dpb_linear_stat_moments(&Llin, th_lin, 1.0, mu, Sigma, ml, Vl);
		for (b = 0; b < L.nblocks; b++)
		{
			if (L.kind[b] == DPB_BLK_T2)
				t2 = b;
			if (L.kind[b] == DPB_BLK_T1)
				t1 = b;
		}
		CHECK(t2 >= 0 && L.len[t2] == Llin.len[t2l], "t2 block");
		for (k = 0; k < L.len[t2]; k++)
		{
			int			a = L.start[t2] + k,
						al = Llin.start[t2l] + k;

			if (fabs(m[a] - ml[al]) > 1e-13 || m[a] != m2[a])
				bad++;
			for (l = 0; l < L.len[t2]; l++)
			{
				int			c = L.start[t2] + l,
							cl = Llin.start[t2l] + l;

				if (fabs(V[a * n + c] - Vl[al * Llin.nstats + cl]) > 1e-13
					|| V[a * n + c] != V2[a * n + c])
					bad++;
				for (P = 0; P < L.p; P++)
					if (dV[(size_t) P * n * n + a * n + c] != 0.0)
						badth++;
			}
			for (P = 0; P < L.p; P++)
				if (dm[P * n + a] != 0.0)
					badth++;
		}
		if (t1 >= 0)
		{
			/* T1 = x: mean mu, covariance Sigma */
			for (k = 0; k < d; k++)
			{
				if (fabs(m[L.start[t1] + k] - mu[k]) > 1e-15)
					bad++;
				for (l = 0; l < d; l++)
					if (fabs(V[(L.start[t1] + k) * n + L.start[t1] + l] - Sigma[k * d + l]) > 1e-15)
						bad++;
			}
		}
		CHECK(bad == 0, "%s%s: %d covariate-block moments differ from the Gaussian ones",
			  dpb_model_name(model), ic ? " (intercept)" : "", bad);
		CHECK(badth == 0, "%d covariate-block derivatives w.r.t. theta are not 0", badth);
		free(dm);
	}
}

/* ---- 6. derivatives ---- */

/* parameter vector <-> (theta, mu, Sigma) */
static void
unpack(const dpb_layout *L, const double *par, double *theta, double *mu,
	   double *Sigma)
{
	int			d = L->d,
				k = 0,
				i,
				j;

	for (i = 0; i < L->p; i++)
		theta[i] = par[k++];
	for (i = 0; i < d; i++)
		mu[i] = par[k++];
	for (i = 0; i < d; i++)
		for (j = i; j < d; j++)
		{
			Sigma[i * d + j] = Sigma[j * d + i] = par[k++];
		}
}

typedef struct fd_stats
{
	double		max_rel;		/* over entries with |analytic| > 1e-3 scale */
	int			bad;
	int			checked;
} fd_stats;

static void
check_derivs(const dpb_layout *L, dpb_glm_approx ap, const double *par0,
			 fd_stats *fs)
{
	int			n = L->nstats,
				K = dpb_glm_nparams(L),
				nn = n * n,
				P,
				k,
				s;
	double		theta[9],
				mu[8],
				Sigma[64],
				par[60];
	double	   *m = malloc(sizeof(double) * (size_t) (n + nn) * (2 + K) * 2),
			   *V = m + n,
			   *dm = V + nn,
			   *dV = dm + (size_t) K * n,
			   *fm = dV + (size_t) K * nn,
			   *fV = fm + n,
			   *acc = fV + nn;
	double		scale = 0;
	static const double coef[4] = {1.0 / 12, -8.0 / 12, 8.0 / 12, -1.0 / 12};
	static const int step[4] = {-2, -1, 1, 2};
	const double h = 1e-3;

	unpack(L, par0, theta, mu, Sigma);
	CHECK(dpb_glm_moments(L, ap, theta, mu, Sigma, m, V, dm, dV) == DPB_OK, "status");
	for (k = 0; k < K * n; k++)
		scale = fmax(scale, fabs(dm[k]));
	for (k = 0; k < K * nn; k++)
		scale = fmax(scale, fabs(dV[k]));
	for (P = 0; P < K; P++)
	{
		memset(acc, 0, sizeof(double) * (n + nn));
		for (s = 0; s < 4; s++)
		{
			memcpy(par, par0, sizeof(double) * K);
			par[P] += step[s] * h;
			unpack(L, par, theta, mu, Sigma);
			dpb_glm_moments(L, ap, theta, mu, Sigma, fm, fV, NULL, NULL);
			for (k = 0; k < n + nn; k++)
				acc[k] += coef[s] * fm[k] / h;
		}
		for (k = 0; k < n + nn; k++)
		{
			double		an = k < n ? dm[P * n + k] : dV[(size_t) P * nn + k - n],
						err = fabs(acc[k] - an);

			fs->checked++;
			if (err > 1e-6 * fabs(an) + 1e-9 * scale)
			{
				if (fs->bad < 5)
					printf("    param %d entry %d: analytic %.12g, FD %.12g\n", P, k, an, acc[k]);
				fs->bad++;
			}
			if (fabs(an) > 1e-3 * scale)
				fs->max_rel = fmax(fs->max_rel, err / fabs(an));
		}
	}
	free(m);
}

static void
random_point(gsl_rng *rng, const dpb_layout *L, double tnorm, double *par)
{
	int			d = L->d,
				k = 0,
				i,
				j;
	double		S[64],
				nr = 0;

	for (i = 0; i < L->p; i++)
	{
		par[i] = gsl_ran_ugaussian(rng);
		nr += par[i] * par[i];
	}
	for (i = 0; i < L->p; i++)
		par[i] *= tnorm / sqrt(nr);
	k = L->p;
	for (i = 0; i < d; i++)
		par[k++] = 0.3 * gsl_ran_ugaussian(rng);
	rand_spd(rng, d, 0.3, S);
	for (i = 0; i < d; i++)
		for (j = i; j < d; j++)
			par[k++] = S[i * d + j];
}

static void
test_derivatives(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int			rep;
	fd_stats	tot = {0, 0, 0};

	gsl_rng_set(rng, USEED(7));
	for (rep = 0; rep < 16; rep++)
	{
		dpb_model	model = rep % 2 ? DPB_MODEL_POISSON : DPB_MODEL_LOGISTIC;
		int			ic = (rep / 2) % 2;
		dpb_glm_approx ap = (rep / 4) % 2 ? DPB_GLM_TAYLOR : DPB_GLM_EXACT;
		int			d = rep < 8 ? 3 : 2;
		/* logistic: s below and above the quadrature switch */
		double		tnorm = model == DPB_MODEL_POISSON ? 0.8 : (rep < 8 ? 1.0 : 6.0);
		dpb_layout	L;
		double		par[60];
		fd_stats	fs = {0, 0, 0};

		dpb_layout_init(&L, model, d, ic);
		random_point(rng, &L, tnorm, par);
		check_derivs(&L, ap, par, &fs);
		CHECK(fs.bad == 0, "%s%s %s d = %d: %d of %d derivatives differ from FD",
			  dpb_model_name(model), ic ? " (intercept)" : "",
			  ap == DPB_GLM_EXACT ? "exact" : "taylor", d, fs.bad, fs.checked);
		tot.checked += fs.checked;
		tot.max_rel = fmax(tot.max_rel, fs.max_rel);
	}
	/* clipped counts (glm_ypois.c): s on both sides of its quadrature
	 * switch, bounds with K = 0, 1, 2, 10 */
	for (rep = 0; rep < 8; rep++)
	{
		static const double clip[4] = {0.7, 1.0, 2.5, 10.0};
		dpb_layout	L;
		double		par[60];
		fd_stats	fs = {0, 0, 0};
		int			i;

		dpb_layout_init(&L, DPB_MODEL_POISSON, 2, rep % 2);
		L.y_clip = clip[rep / 2];
		random_point(rng, &L, rep < 4 ? 1.5 : 0.8, par);
		if (rep == 7)
			for (i = L.intercept; i < L.p; i++)
				par[i] *= 1e-3;	/* s below 2 du: Gauss-Hermite */
		check_derivs(&L, DPB_GLM_EXACT, par, &fs);
		CHECK(fs.bad == 0, "poisson clipped at %g: %d of %d derivatives differ from FD",
			  L.y_clip, fs.bad, fs.checked);
		tot.checked += fs.checked;
		tot.max_rel = fmax(tot.max_rel, fs.max_rel);
	}
	/* theta~ = 0 (s = 0): derivatives still exact */
	for (rep = 0; rep < 2; rep++)
	{
		dpb_layout	L;
		double		par[60];
		fd_stats	fs = {0, 0, 0};
		int			i;

		dpb_layout_init(&L, rep ? DPB_MODEL_POISSON : DPB_MODEL_LOGISTIC, 3, 1);
		random_point(rng, &L, 1.0, par);
		for (i = 1; i < L.p; i++)
			par[i] = 0;
		check_derivs(&L, DPB_GLM_EXACT, par, &fs);
		CHECK(fs.bad == 0, "theta~ = 0: %d of %d derivatives differ from FD", fs.bad, fs.checked);
		tot.checked += fs.checked;
		tot.max_rel = fmax(tot.max_rel, fs.max_rel);
	}
	printf("  derivatives: %d entries vs 5-point central differences, max relative error %.1e\n",
		   tot.checked, tot.max_rel);
	gsl_rng_free(rng);
}

static void
test_vjp(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int			rep;
	double		worst = 0;

	gsl_rng_set(rng, USEED(5));
	for (rep = 0; rep < 8; rep++)
	{
		dpb_model	model = rep % 2 ? DPB_MODEL_POISSON : DPB_MODEL_LOGISTIC;
		int			ic = (rep / 2) % 2,
					d = rep < 4 ? 4 : 2,
					n,
					K,
					k,
					P;
		dpb_glm_approx ap = rep < 6 ? DPB_GLM_EXACT : DPB_GLM_TAYLOR;
		dpb_layout	L;
		double		par[60],
					theta[9],
					mu[8],
					Sigma[64],
					g[60],
					ref[60],
					sc = 0;
		double	   *buf,
				   *m,
				   *V,
				   *dm,
				   *dV,
				   *W,
				   *mb,
				   *m2,
				   *V2;

		dpb_layout_init(&L, model, d, ic);
		n = L.nstats;
		K = dpb_glm_nparams(&L);
		buf = malloc(sizeof(double) * ((size_t) (n + n * n) * (K + 2) + n * n + n + n + n * n));
		m = buf;
		V = m + n;
		dm = V + n * n;
		dV = dm + K * n;
		W = dV + (size_t) K * n * n;
		mb = W + n * n;
		m2 = mb + n;
		V2 = m2 + n;
		random_point(rng, &L, model == DPB_MODEL_POISSON ? 0.8 : 3.0, par);
		unpack(&L, par, theta, mu, Sigma);
		for (k = 0; k < n * n; k++)
			W[k] = gsl_ran_ugaussian(rng);
		for (k = 0; k < n; k++)
			mb[k] = gsl_ran_ugaussian(rng);
		dpb_glm_moments(&L, ap, theta, mu, Sigma, m, V, dm, dV);
		CHECK(dpb_glm_moments_vjp(&L, ap, theta, mu, Sigma, W, rep % 3 ? mb : NULL,
								  m2, V2, g) == DPB_OK, "vjp status");
		for (P = 0; P < K; P++)
		{
			double		s = 0;

			for (k = 0; k < n * n; k++)
				s += W[k] * dV[(size_t) P * n * n + k];
			if (rep % 3)
				for (k = 0; k < n; k++)
					s += mb[k] * dm[P * n + k];
			ref[P] = s;
			sc = fmax(sc, fabs(s));
		}
		for (P = 0; P < K; P++)
		{
			worst = fmax(worst, fabs(g[P] - ref[P]) / sc);
			CHECK(fabs(g[P] - ref[P]) <= 1e-11 * sc, "vjp param %d: %.15g vs %.15g",
				  P, g[P], ref[P]);
		}
		for (k = 0; k < n; k++)
			CHECK(m2[k] == m[k], "vjp m");
		for (k = 0; k < n * n; k++)
			CHECK(fabs(V2[k] - V[k]) <= 1e-15 * fmax(1, fabs(V[k])), "vjp V");
		free(buf);
	}
	printf("  vector-Jacobian product vs materialised dV, dm: max relative error %.1e\n", worst);
	gsl_rng_free(rng);
}

static void
test_errors(void)
{
	dpb_layout	L;
	double		theta[2] = {800.0, 0.0},
				mu[1] = {0.0},
				Sigma[1] = {1.0},
				m[10],
				V[100];

	dpb_layout_init(&L, DPB_MODEL_POISSON, 1, 1);
	CHECK(dpb_glm_moments(&L, DPB_GLM_EXACT, theta, mu, Sigma, m, V, NULL, NULL) == DPB_ENUMERIC,
		  "overflow must be DPB_ENUMERIC");
	dpb_layout_init(&L, DPB_MODEL_LINEAR, 1, 1);
	CHECK(dpb_glm_moments(&L, DPB_GLM_EXACT, theta, mu, Sigma, m, V, NULL, NULL) == DPB_EINVAL,
		  "linear layout must be DPB_EINVAL");
	/* huge ||theta|| for logistic stays finite */
	dpb_layout_init(&L, DPB_MODEL_LOGISTIC, 1, 1);
	theta[0] = 3.0;
	theta[1] = 300.0;
	CHECK(dpb_glm_moments(&L, DPB_GLM_EXACT, theta, mu, Sigma, m, V, NULL, NULL) == DPB_OK,
		  "logistic with ||theta|| = 300");
}

/* ---- 7. timing ---- */

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static void
test_timing(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	static const int ds[3] = {2, 4, 8};
	int			mi,
				di;

	gsl_rng_set(rng, USEED(3));
	printf("  timing per call (us, best of 5 batches; intercept, exact):\n"
		   "                         model      d  nstats  K   m,V   vjp   m,V,dm,dV\n");
	for (mi = 0; mi < 2; mi++)
		for (di = 0; di < 3; di++)
		{
			dpb_model	model = mi ? DPB_MODEL_POISSON : DPB_MODEL_LOGISTIC;
			dpb_layout	L;
			int			n,
						K,
						k,
						b,
						it,
						reps;
			double		par[60],
						theta[9],
						mu[8],
						Sigma[64],
						g[60],
						t0,
						tm,
						tv,
						td;
			double	   *m,
					   *V,
					   *dm,
					   *dV,
					   *W;

			dpb_layout_init(&L, model, ds[di], 1);
			n = L.nstats;
			K = dpb_glm_nparams(&L);
			m = malloc(sizeof(double) * ((size_t) (n + n * n) * (K + 1) + n * n));
			V = m + n;
			dm = V + n * n;
			dV = dm + K * n;
			W = dV + (size_t) K * n * n;
			random_point(rng, &L, mi ? 0.8 : 3.0, par);
			unpack(&L, par, theta, mu, Sigma);
			for (k = 0; k < n * n; k++)
				W[k] = gsl_ran_ugaussian(rng);
			reps = ds[di] == 8 ? 100 : 1000;
			tm = tv = td = 1e300;
			for (b = 0; b < 5; b++)		/* best of 5 batches */
			{
				t0 = now_us();
				for (it = 0; it < reps; it++)
					dpb_glm_moments(&L, DPB_GLM_EXACT, theta, mu, Sigma, m, V, NULL, NULL);
				tm = fmin(tm, (now_us() - t0) / reps);
				t0 = now_us();
				for (it = 0; it < reps; it++)
					dpb_glm_moments_vjp(&L, DPB_GLM_EXACT, theta, mu, Sigma, W, NULL, m, V, g);
				tv = fmin(tv, (now_us() - t0) / reps);
				t0 = now_us();
				for (it = 0; it < reps; it++)
					dpb_glm_moments(&L, DPB_GLM_EXACT, theta, mu, Sigma, m, V, dm, dV);
				td = fmin(td, (now_us() - t0) / reps);
			}
			printf("                         %-9s %2d  %5d  %3d  %5.1f %5.1f  %7.1f\n",
				   dpb_model_name(model), ds[di], n, K, tm, tv, td);
			free(m);
		}
	gsl_rng_free(rng);
}

void
test_glm_moments(void)
{
	test_ypois();
	test_quadrature();
	test_reference();
	test_gaussian_blocks();
	test_derivatives();
	test_vjp();
	test_errors();
	test_taylor();
	test_monte_carlo();
	test_timing();
}
