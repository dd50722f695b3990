/*
 * ldp_post_reg.c — regression on perturbed inputs (digest §A3.8, §A3.9).
 *
 * Both models: x ~ N(mu, Sigma), Sigma = L L' (L lower triangular with a
 * positive diagonal), z_x = x + N(0, D), D = diag(sd_x^2).
 *
 * Linear (y = theta_0 + theta'x + e, e ~ N(0, sigma^2), z_y = y + N(0,
 * sd_y^2)): w = (z_x, z_y) ~ N(m, C) with m = (mu, theta_0 + theta'mu) and
 *   C = [[Sigma + D, Sigma theta], [theta'Sigma, theta'Sigma theta + sigma^2 + sd_y^2]]
 * (the paper's eq. 41 is its conditional factorisation), so the
 * log-likelihood needs only N, sum w, sum w w'.
 *
 * Logistic (y ~ Bernoulli(sigmoid(theta_0 + theta'x)), z_y = RR(y) kept
 * w.p. p): the z_x part is the Gaussian above (O(1)); given z_x, theta'x ~
 * N(m_i, s^2) with v = B^{-1} Sigma theta, B = Sigma + D, m_i = theta_0 +
 * theta'mu + v'(z_i - mu), s^2 = theta'Sigma (theta - v), and P(y = 1 | z_i)
 * = E[sigmoid] by Gauss-Hermite quadrature; Pr[z_y = 1 | z_i] = (1 - p) +
 * (2p - 1) P.
 *
 * Gradients: dlogL = tr(G dC) + g_m'dm for the Gaussian part (G = (C^{-1} M
 * C^{-1} - N C^{-1}) / 2, M the scatter about m), then chained to
 * (theta, sigma, mu, Sigma) and from Sigma to L (d/dL = 2 H L when dlogL =
 * tr(H dSigma), H symmetric).  Derivations in docs/ldp.md.
 */
#include "ldp_models.h"

#include <gsl/gsl_integration.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXK (DPB_LDPM_MAX_D + 1)
#define LOG_2PI 1.83787706640934548356

/*
 * Gaussian log-likelihood of N vectors (dimension k) with sum s and sum of
 * outer products S2, under N(m, C); G (k x k) with dlogL = tr(G dC) and g
 * (k) = dlogL/dm.  NaN when C is not positive definite.
 */
static double
gauss_suff(int k, double N, const double *s, const double *S2, const double *m,
		   const double *C, double *G, double *g)
{
	double		Cbuf[MAXK * MAXK],
				M[MAXK * MAXK],
				T[MAXK * MAXK],
				logdet = 0,
				tr = 0;
	gsl_matrix_view Cv = gsl_matrix_view_array(Cbuf, k, k);
	int			i,
				j,
				l;

	memcpy(Cbuf, C, sizeof(double) * k * k);
	if (gsl_linalg_cholesky_decomp1(&Cv.matrix) != 0)
		return NAN;
	for (i = 0; i < k; i++)
	{
		double		dii = Cbuf[i * k + i];

		if (!(dii > 0))
			return NAN;
		logdet += 2 * log(dii);
	}
	if (gsl_linalg_cholesky_invert(&Cv.matrix) != 0)
		return NAN;
	/* Cbuf is now C^{-1}; M = S2 - m s' - s m' + N m m' */
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++)
			M[i * k + j] = S2[i * k + j] - m[i] * s[j] - s[i] * m[j] + N * m[i] * m[j];
	/* T = C^{-1} M */
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++)
		{
			double		a = 0;

			for (l = 0; l < k; l++)
				a += Cbuf[i * k + l] * M[l * k + j];
			T[i * k + j] = a;
		}
	for (i = 0; i < k; i++)
		tr += T[i * k + i];
	/* G = (T C^{-1} - N C^{-1}) / 2 */
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++)
		{
			double		a = 0;

			for (l = 0; l < k; l++)
				a += T[i * k + l] * Cbuf[l * k + j];
			G[i * k + j] = 0.5 * (a - N * Cbuf[i * k + j]);
		}
	/* symmetrise (rounding) */
	for (i = 0; i < k; i++)
		for (j = 0; j < i; j++)
			G[i * k + j] = G[j * k + i] = 0.5 * (G[i * k + j] + G[j * k + i]);
	for (i = 0; i < k; i++)
	{
		double		a = 0;

		for (j = 0; j < k; j++)
			a += Cbuf[i * k + j] * (s[j] - N * m[j]);
		g[i] = a;
	}
	return -0.5 * N * (k * LOG_2PI + logdet) - 0.5 * tr;
}

/* L (d x d, lower) and Sigma = L L' from log-diagonal ld and off-diagonal
 * od (row by row, i > j) */
static void
build_sigma(int d, const double *ld, const double *od, double *L, double *S)
{
	int			i,
				j,
				l,
				q = 0;

	memset(L, 0, sizeof(double) * d * d);
	for (i = 0; i < d; i++)
	{
		L[i * d + i] = exp(ld[i]);
		for (j = 0; j < i; j++)
			L[i * d + j] = od[q++];
	}
	for (i = 0; i < d; i++)
		for (j = 0; j <= i; j++)
		{
			double		a = 0;

			for (l = 0; l <= j; l++)
				a += L[i * d + l] * L[j * d + l];
			S[i * d + j] = S[j * d + i] = a;
		}
}

/* gradient in (ld, od) from H (dlogL = tr(H dSigma), H symmetric):
 * d/dL = 2 H L, lower part; the diagonal through exp */
/* off-diagonal entries before row i */
#define OD_ROW(i) ((i) * ((i) - 1) / 2)

static void
chain_sigma_full(int d, const double *H, const double *L, double *gld, double *god)
{
	for (int i = 0; i < d; i++)
		for (int j = 0; j <= i; j++)
		{
			double		a = 0;

			for (int l = j; l < d; l++)
				a += H[i * d + l] * L[l * d + j];
			a *= 2;
			if (i == j)
				gld[i] = a * L[i * d + i];
			else
				god[OD_ROW(i) + j] = a;
		}
}

static double
sigmoid(double u)
{
	return u >= 0 ? 1 / (1 + exp(-u)) : exp(u) / (1 + exp(u));
}

static double gh_x[DPB_LDPM_GH_NODES],
			gh_w[DPB_LDPM_GH_NODES],
			gl_x[DPB_LDPM_GH_NODES],
			gl_w[DPB_LDPM_GH_NODES];
static int	gh_ready = 0;

/* Gauss-Hermite (weight e^{-x^2}) and Gauss-Laguerre (weight e^{-x})
 * nodes, once */
static int
gh_init(void)
{
	gsl_integration_fixed_workspace *h,
			   *l;

	if (gh_ready)
		return 1;
	h = gsl_integration_fixed_alloc(gsl_integration_fixed_hermite,
									DPB_LDPM_GH_NODES, 0.0, 1.0, 0.0, 0.0);
	l = gsl_integration_fixed_alloc(gsl_integration_fixed_laguerre,
									DPB_LDPM_GH_NODES, 0.0, 1.0, 0.0, 0.0);
	if (h == NULL || l == NULL)
	{
		if (h)
			gsl_integration_fixed_free(h);
		if (l)
			gsl_integration_fixed_free(l);
		return 0;
	}
	for (int q = 0; q < DPB_LDPM_GH_NODES; q++)
	{
		gh_x[q] = gsl_integration_fixed_nodes(h)[q];
		gh_w[q] = gsl_integration_fixed_weights(h)[q] / sqrt(M_PI);
		gl_x[q] = gsl_integration_fixed_nodes(l)[q];
		gl_w[q] = gsl_integration_fixed_weights(l)[q];
	}
	gsl_integration_fixed_free(h);
	gsl_integration_fixed_free(l);
	gh_ready = 1;
	return 1;
}

/* above this variance, Gauss-Hermite on sigmoid loses accuracy (the poles
 * of sigmoid at +-i pi come within a few node spacings): use the step
 * decomposition below */
#define GH_MAX_S2 2.0

/* E[sigmoid(u)], u ~ N(m, s2), for many m at one s2: the Gauss-Hermite
 * branch precomputes e^{-sqrt(2) s x_q}, so one exp per m */
typedef struct lnpre
{
	double		s2,
				s,
				E[DPB_LDPM_GH_NODES],	/* Hermite: e^{-sqrt(2) s x_q} */
				F[DPB_LDPM_GH_NODES],	/* Laguerre: w_q / (1 + e^{-v_q}) */
				G[DPB_LDPM_GH_NODES];	/* ... e^{-v_q^2 / (2 s2)} */
	int			gh;
} lnpre;

static int
ln_prep(lnpre *p, double s2)
{
	if (!gh_init())
		return 0;
	p->s2 = s2 > 0 ? s2 : 0;
	p->s = sqrt(p->s2);
	p->gh = p->s2 <= GH_MAX_S2;
	if (p->gh)
		for (int q = 0; q < DPB_LDPM_GH_NODES; q++)
			p->E[q] = exp(-M_SQRT2 * p->s * gh_x[q]);
	else
		for (int q = 0; q < DPB_LDPM_GH_NODES; q++)
		{
			p->F[q] = gl_w[q] / (1 + exp(-gl_x[q]));
			p->G[q] = exp(-0.5 * gl_x[q] * gl_x[q] / p->s2);
		}
	return 1;
}

static double
ln_eval(const lnpre *p, double m, double *dm, double *ds2)
{
	double		P = 0,
				dP = 0,
				dS = 0,
				s = p->s,
				s2 = p->s2;

	if (p->gh)
	{
		/* sigmoid(m + c x) = 1 / (1 + e^{-m} e^{-c x}); |c x| <= 15 here */
		int			fast = fabs(m) < 650;
		double		em = fast ? exp(-m) : 0;

		for (int q = 0; q < DPB_LDPM_GH_NODES; q++)
		{
			double		sg = fast ? 1 / (1 + em * p->E[q]) : sigmoid(m + M_SQRT2 * s * gh_x[q]),
						d1 = sg * (1 - sg);

			P += gh_w[q] * sg;
			dP += gh_w[q] * d1;
			if (s > 1e-8)
				dS += gh_w[q] * d1 * M_SQRT2 * gh_x[q];
			else
				dS += gh_w[q] * d1 * (1 - 2 * sg);	/* sigmoid'' */
		}
		/* d/ds2 = (dP/ds) / (2 s); at s = 0 the heat-equation limit
		 * E[sigmoid''] / 2 */
		dS = s > 1e-8 ? dS / (2 * s) : 0.5 * dS;
	}
	else
	{
		/*
		 * sigmoid(u) = 1[u > 0] - sign(u) sigmoid(-|u|):
		 * P = Phi(m/s) + int_0^inf sigmoid(-v) [N(-v; m, s2) - N(v; m, s2)] dv,
		 * sigmoid(-v) = e^{-v} / (1 + e^{-v}): Gauss-Laguerre, whose
		 * integrand 1 / (1 + e^{-v}) times the Gaussians is smooth.
		 */
		double		t = m / s,
					ph = exp(-0.5 * t * t) / sqrt(2 * M_PI);

		P = 0.5 * erfc(-t * M_SQRT1_2);
		dP = ph / s;
		dS = -ph * m / (2 * s2 * s);
		/* N(-+v; m, s2) = c G_q e^{-+v m / s2}, c = e^{-m^2 / (2 s2)} / (s sqrt(2 pi)):
		 * one exp per node (directly where the factors would overflow) */
		double		c = exp(-0.5 * t * t) / (s * sqrt(2 * M_PI));

		for (int q = 0; q < DPB_LDPM_GH_NODES; q++)
		{
			double		v = gl_x[q],
						f = p->F[q],
						em = (-v - m) / s,
						ep = (v - m) / s,
						a = v * m / s2,
						nm,
						np;

			if (fabs(a) < 600)
			{
				double		e = exp(a);

				nm = c * p->G[q] / e;
				np = c * p->G[q] * e;
			}
			else
			{
				nm = exp(-0.5 * em * em) / (s * sqrt(2 * M_PI));
				np = exp(-0.5 * ep * ep) / (s * sqrt(2 * M_PI));
			}

			P += f * (nm - np);
			dP += f * (nm * em - np * ep) / s;
			dS += f * (nm * (em * em - 1) - np * (ep * ep - 1)) / (2 * s2);
		}
	}
	if (dm)
	{
		*dm = dP;
		*ds2 = dS;
	}
	return P;
}

double
dpb_ldpm_logistic_normal(double m, double s2, double *dm, double *ds2)
{
	lnpre		p;

	if (!ln_prep(&p, s2))
		return NAN;
	return ln_eval(&p, m, dm, ds2);
}

double
dpb_ldpm_reg_loglik(const dpb_ldpm_data *dt, const double *phi, double *grad)
{
	int			d = dt->d,
				lin = dt->model == DPB_LDPM_LINEAR,
				i,
				j;
	const double *theta = phi + 1;
	double		theta0 = phi[0],
				sigma = lin ? exp(phi[d + 1]) : 0;
	const double *mu = phi + (lin ? d + 2 : d + 1);
	const double *ld = mu + d;
	const double *od = ld + d;
	double		L[DPB_LDPM_MAX_D * DPB_LDPM_MAX_D],
				S[DPB_LDPM_MAX_D * DPB_LDPM_MAX_D],
				H[DPB_LDPM_MAX_D * DPB_LDPM_MAX_D],
				C[MAXK * MAXK],
				G[MAXK * MAXK],
				m[MAXK],
				g[MAXK],
				St[DPB_LDPM_MAX_D],
				gth[DPB_LDPM_MAX_D],
				gmu[DPB_LDPM_MAX_D],
				gth0 = 0,
				ll;
	int			k = lin ? d + 1 : d;

	build_sigma(d, ld, od, L, S);
	for (i = 0; i < d; i++)
	{
		double		a = 0;

		for (j = 0; j < d; j++)
			a += S[i * d + j] * theta[j];
		St[i] = a;				/* Sigma theta */
	}
	/* the Gaussian part: (z_x, z_y) for linear, z_x for logistic */
	for (i = 0; i < d; i++)
	{
		for (j = 0; j < d; j++)
			C[i * k + j] = S[i * d + j];
		C[i * k + i] += dt->sd_x[i] * dt->sd_x[i];
		m[i] = mu[i];
	}
	if (lin)
	{
		double		tSt = 0,
					tmu = 0;

		for (i = 0; i < d; i++)
		{
			C[i * k + d] = C[d * k + i] = St[i];
			tSt += theta[i] * St[i];
			tmu += theta[i] * mu[i];
		}
		C[d * k + d] = tSt + sigma * sigma + dt->sd_y * dt->sd_y;
		m[d] = theta0 + tmu;
	}
	ll = gauss_suff(k, dt->n, dt->sw, dt->sww, m, C, G, g);
	if (!isfinite(ll))
		return NAN;
	/* H = G_xx (+ linear terms); gradients in theta and mu */
	for (i = 0; i < d; i++)
	{
		for (j = 0; j < d; j++)
			H[i * d + j] = G[i * k + j];
		gmu[i] = g[i];
		gth[i] = 0;
	}
	if (lin)
	{
		double		Gyy = G[d * k + d],
					gy = g[d];

		for (i = 0; i < d; i++)
		{
			double		gxy = G[i * k + d];

			for (j = 0; j < d; j++)
				H[i * d + j] += gxy * theta[j] + theta[i] * G[j * k + d]
					+ Gyy * theta[i] * theta[j];
			gmu[i] += gy * theta[i];
			gth[i] += gy * mu[i] + 2 * Gyy * St[i];
			for (j = 0; j < d; j++)
				gth[i] += 2 * S[i * d + j] * G[j * k + d];
		}
		gth0 = gy;
		if (grad)
			grad[d + 1] = Gyy * 2 * sigma * sigma;
	}
	else
	{
		/* the labels: B = Sigma + D (C), v = B^{-1} Sigma theta */
		double		Bc[DPB_LDPM_MAX_D * DPB_LDPM_MAX_D],
					v[DPB_LDPM_MAX_D],
					tv[DPB_LDPM_MAX_D],
					u[DPB_LDPM_MAX_D],
					r[DPB_LDPM_MAX_D],
					s2 = 0,
					c0 = theta0,
					A = 0,
					bs = 0,
					p = dt->rr_keep,
					e = 2 * p - 1;
		lnpre		lp;
		gsl_matrix_view Bv = gsl_matrix_view_array(Bc, d, d);
		gsl_vector_view vv = gsl_vector_view_array(v, d);
		gsl_vector_const_view Stv = gsl_vector_const_view_array(St, d);
		gsl_vector_view uv = gsl_vector_view_array(u, d);
		gsl_vector_const_view rv = gsl_vector_const_view_array(r, d);

		for (i = 0; i < d; i++)
			for (j = 0; j < d; j++)
				Bc[i * d + j] = C[i * k + j];
		if (gsl_linalg_cholesky_decomp1(&Bv.matrix) != 0 ||
			gsl_linalg_cholesky_solve(&Bv.matrix, &Stv.vector, &vv.vector) != 0)
			return NAN;
		for (i = 0; i < d; i++)
		{
			tv[i] = theta[i] - v[i];
			s2 += St[i] * tv[i];
			c0 += tv[i] * mu[i];
			r[i] = 0;
		}
		if (s2 < 0)
			s2 = 0;
		if (!ln_prep(&lp, s2))
			return NAN;
		for (long n = 0; n < (long) dt->n; n++)
		{
			const double *z = dt->zx + (size_t) n * d;
			double		mi = c0,
						dPm,
						dPs,
						P,
						pr,
						dl;

			for (j = 0; j < d; j++)
				mi += v[j] * z[j];
			P = ln_eval(&lp, mi, &dPm, &dPs);
			if (dt->zy[n] > 0.5)
			{
				pr = (1 - p) + e * P;
				dl = e / pr;
			}
			else
			{
				pr = p - e * P;
				dl = -e / pr;
			}
			ll += log(pr);
			A += dl * dPm;
			bs += dl * dPs;
			for (j = 0; j < d; j++)
				r[j] += dl * dPm * z[j];
		}
		if (!isfinite(ll))
			return NAN;
		/* sum_i a_i dm_i = A dtheta0 + A mu'dtheta + A (theta - v)'dmu
		 *                  + (r - A mu)'dv,
		 * dv = B^{-1} dSigma (theta - v) + B^{-1} Sigma dtheta */
		for (i = 0; i < d; i++)
			r[i] -= A * mu[i];
		if (gsl_linalg_cholesky_solve(&Bv.matrix, &rv.vector, &uv.vector) != 0)
			return NAN;
		gth0 = A;
		for (i = 0; i < d; i++)
		{
			double		Su = 0,
						Stv = 0;

			for (j = 0; j < d; j++)
			{
				Su += S[i * d + j] * u[j];
				Stv += S[i * d + j] * tv[j];
				H[i * d + j] += 0.5 * (u[i] * tv[j] + tv[i] * u[j])
					+ bs * tv[i] * tv[j];
			}
			gth[i] += A * mu[i] + Su + 2 * bs * Stv;
			gmu[i] += A * tv[i];
		}
	}
	if (grad)
	{
		double	   *gmu_out = grad + (mu - phi);

		grad[0] = gth0;
		for (i = 0; i < d; i++)
		{
			grad[1 + i] = gth[i];
			gmu_out[i] = gmu[i];
		}
		chain_sigma_full(d, H, L, grad + (ld - phi), grad + (od - phi));
	}
	return ll;
}
