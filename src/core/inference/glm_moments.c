/*
 * glm_moments.c — moments of one record's statistics under logistic and
 * Poisson regression with Gaussian features, and their exact derivatives
 * (see glm_moments.h for the method).
 *
 * Notation.  v = [1, x] (q = d + 1 entries; index 0 is the constant), with
 * mean mub = [1, mu], covariance Sb = [[0, 0], [0, Sigma]], thb = [theta_0
 * or 0, theta~], u = thb^T v, a = Sb thb = Cov(v, u), m_u = thb^T mub,
 * s^2 = thb^T Sb thb.  A statistic is y^c v_i v_j (c = 0, 1; v_0 = 1 stands
 * for an absent factor).  For one of the response functions
 * h in {1, E[y | u], E[y^2 | u]} ("classes" H_ONE, H_1, H_2) and
 * G_r = E[h^{(r)}(u)], with m_i(T) = mub_i + a_i T:
 *   E[v_i v_j h]         = L[Q_ij],           Q_ij = m_i m_j + Sb_ij,
 *   E[v_i v_j v_k v_l h] = L[m_i R_i + Sb_ij Q_kl + Sb_ik Q_jl + Sb_il Q_jk],
 *                          R_i = m_j Q_kl + Sb_jk m_l + Sb_jl m_k,
 * where L maps T^r to G_r (generalised Isserlis / Stein).  Equivalently
 *   E[v_a v_b v_g v_e h] = L[Q_ab Q_ge] + Sb_ag L[Q_be] + Sb_ae L[Q_bg]
 *       + Sb_bg L[Q_ae] + Sb_be L[Q_ag] - G_0 (Sb_ag Sb_be + Sb_ae Sb_bg),
 * which is how the values and the vector-Jacobian product are computed
 * (Q_ij and L_h[Q_ij] tabulated once per call, O(1) per pair of
 * statistics).  The partial derivatives of the first form (used for the
 * materialised dV): d/dmub_i = L[R_i], d/da_i = L[T R_i], d/dSb_ij =
 * L[Q_kl], d/dG_r = coefficient r of the polynomial; G_r depends on the
 * parameters through dG_r/dm_u = G_{r+1}, dG_r/ds^2 = G_{r+2}/2.
 */
#include "glm_moments.h"
#include "glm_ypois.h"

#include <cblas.h>
#include <gsl/gsl_integration.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#define NG 7					/* G_0 .. G_6 */
#define NGH 48					/* Gauss-Hermite nodes (s < GH_SWITCH) */
#define GH_SWITCH 0.8			/* both rules agree to ~1e-14 there */
#define TRAP_H (1.0 / 3.0)		/* trapezoid step in u (s >= GH_SWITCH) */
#define TRAP_J 120				/* grid u = j h, |j| <= TRAP_J (|u| <= 40) */
#define NTRAP (2 * TRAP_J + 1)

enum
{
	H_ONE = 0,
	H_1 = 1,
	H_2 = 2
};

/* ---- quadrature tables, built once ---- */

static int tables_ready = 0;
/* h^{(r+1)}(u) = S(u) Qc_r(tau), tau = tanh(u/2), S = (1 - tau^2)/2 */
static double Qc[NG - 1][NG];
static double gh_z[NGH],
			gh_w[NGH];
/*
 * For s >= GH_SWITCH: h = tanh(u/2) is split into erf(LAMBDA u), whose
 * Gaussian expectations are closed forms, plus a remainder that decays like
 * e^{-|u|}; trap_r[r][j] = the r-th derivative of the remainder at u = j h.
 */
#define LAMBDA 0.44311346272637900682	/* sqrt(pi)/4: same slope at 0 */
static double trap_r[NG][NTRAP];

/* h^{(r)}(u), r = 0..rmax, h = tanh(u/2) */
static void
tanh_derivs(double u, int rmax, double *out)
{
	double		e = exp(-fabs(u));
	double		ope = 1.0 + e;
	double		tau = -expm1(-fabs(u)) / ope;
	double		S = 2.0 * e / (ope * ope);
	int			r,
				k;

	if (u < 0)
		tau = -tau;
	out[0] = tau;
	for (r = 1; r <= rmax; r++)
	{
		const double *c = Qc[r - 1];
		double		acc = c[r - 1];

		for (k = r - 2; k >= 0; k--)
			acc = acc * tau + c[k];
		out[r] = S * acc;
	}
}

/* out[r] = d^r/du^r erf(c u) = c^r erf^{(r)}(c u), r < NG */
static void
erf_derivs(double c, double u, double *out)
{
	double		x = c * u,
				g = 2.0 / sqrt(M_PI) * exp(-x * x),
				Hm = 1.0,		/* physicists' Hermite H_{r-1}(x) */
				Hp = 2.0 * x,
				cr = c;
	int			r;

	out[0] = erf(x);
	for (r = 1; r < NG; r++)
	{
		/* erf^{(r)}(x) = (-1)^{r-1} H_{r-1}(x) 2/sqrt(pi) e^{-x^2} */
		out[r] = cr * ((r - 1) % 2 ? -1.0 : 1.0) * Hm * g;
		{
			double		Hn = 2.0 * x * Hp - 2.0 * r * Hm;

			Hm = Hp;
			Hp = Hn;
		}
		cr *= c;
	}
}

static dpb_status
build_tables(void)
{
	int			r,
				k,
				j;

	if (tables_ready)
		return DPB_OK;
	/* Qc_0 = 1; Qc_r = -tau Qc_{r-1} + (1 - tau^2)/2 Qc_{r-1}' */
	memset(Qc, 0, sizeof(Qc));
	Qc[0][0] = 1.0;
	for (r = 1; r < NG - 1; r++)
	{
		const double *c = Qc[r - 1];
		double	   *o = Qc[r];

		for (k = 0; k < r; k++)
			o[k + 1] -= c[k];
		for (k = 1; k < r; k++)
		{
			double		dk = k * c[k] / 2.0;	/* coefficient k-1 of Q'/2 */

			o[k - 1] += dk;
			o[k + 1] -= dk;
		}
	}
	{
		dpb_status	st = dpb_gauss_hermite(NGH, gh_z, gh_w);

		if (st != DPB_OK)
			return st;
	}
	for (j = 0; j < NTRAP; j++)
	{
		double		g[NG],
					e[NG];

		tanh_derivs((j - TRAP_J) * TRAP_H, NG - 1, g);
		erf_derivs(LAMBDA, (j - TRAP_J) * TRAP_H, e);
		for (r = 0; r < NG; r++)
			trap_r[r][j] = g[r] - e[r];
	}
	tables_ready = 1;
	return DPB_OK;
}

/* G[r] = E[tanh^{(r)}(u/2)], r = 0..NG-1, u ~ N(m, s2); tables built */
static void
logistic_G(double m, double s2, double *G)
{
	double		s;
	int			r,
				j;

	if (!(s2 > 0))
		s2 = 0;
	s = sqrt(s2);
	memset(G, 0, sizeof(double) * NG);
	if (s < GH_SWITCH)
	{
		for (j = 0; j < NGH; j++)
		{
			double		g[NG];

			tanh_derivs(m + s * gh_z[j], NG - 1, g);
			for (r = 0; r < NG; r++)
				G[r] += gh_w[j] * g[r];
		}
	}
	else
	{
		/*
		 * G_r = E[erf^{(r)}(LAMBDA u)] (closed form: E[erf(LAMBDA u)] =
		 * erf(c m), c = LAMBDA / sqrt(1 + 2 LAMBDA^2 s^2), differentiated in
		 * m) + int rem^{(r)}(v) phi_s(v - m) dv by the trapezoid rule on
		 * the fixed grid (the remainder is analytic in |Im v| < pi and
		 * decays like e^{-|v|}: geometric convergence).  phi_s at the
		 * nodes by a multiplicative recurrence from the node nearest m,
		 * over |v - m| <= 9 s.
		 */
		double		c = LAMBDA / sqrt(1.0 + 2.0 * LAMBDA * LAMBDA * s2),
					dl = TRAP_H / s,
					q2 = exp(-dl * dl),
					lo = ceil((m - 9.0 * s) / TRAP_H),
					hi = floor((m + 9.0 * s) / TRAP_H),
					jc = floor(m / TRAP_H + 0.5);
		int			jlo,
					jhi,
					j0;

		erf_derivs(c, m, G);
		if (lo < -TRAP_J)
			lo = -TRAP_J;
		if (hi > TRAP_J)
			hi = TRAP_J;
		if (lo > hi)
			return;
		jlo = (int) lo;
		jhi = (int) hi;
		if (jc < jlo)
			jc = jlo;
		if (jc > jhi)
			jc = jhi;
		j0 = (int) jc;
		{
			double		z0 = (j0 * TRAP_H - m) / s,
						ph0 = TRAP_H / (s * sqrt(2.0 * M_PI)) * exp(-0.5 * z0 * z0),
						ph,
						rho;
			double		acc[NG] = {0};

			/* upwards, j0 included */
			ph = ph0;
			rho = exp(-(z0 * dl + 0.5 * dl * dl));
			for (j = j0; j <= jhi; j++)
			{
				for (r = 0; r < NG; r++)
					acc[r] += trap_r[r][j + TRAP_J] * ph;
				ph *= rho;
				rho *= q2;
			}
			/* downwards */
			ph = ph0;
			rho = exp(z0 * dl - 0.5 * dl * dl);
			for (j = j0 - 1; j >= jlo; j--)
			{
				ph *= rho;
				rho *= q2;
				for (r = 0; r < NG; r++)
					acc[r] += trap_r[r][j + TRAP_J] * ph;
			}
			for (r = 0; r < NG; r++)
				G[r] += acc[r];
		}
	}
}

dpb_status
dpb_glm_logistic_expect(double mean, double var, int rmax, double *G)
{
	double		g[NG];
	dpb_status	st;

	if (rmax < 0 || rmax >= NG || !(var >= 0) || !dpb_isfinite(mean)
		|| !dpb_isfinite(var))
		return DPB_EINVAL;
	st = build_tables();
	if (st != DPB_OK)
		return st;
	logistic_G(mean, var, g);
	memcpy(G, g, sizeof(double) * (rmax + 1));
	return DPB_OK;
}

/* G[r] = E[p^{(r)}(u)], p(u) = c0 + c1 u + c2 u^2 + c3 u^3, u ~ N(m, s2) */
static void
poly_G(const double *c, double m, double s2, double *G)
{
	double		M[4] = {1.0, m, m * m + s2, m * m * m + 3 * m * s2};
	double		cc[4];
	int			r,
				j;

	memcpy(cc, c, sizeof(cc));
	for (r = 0; r < NG; r++)
	{
		double		acc = 0;

		for (j = 0; j < 4; j++)
			acc += cc[j] * M[j];
		G[r] = acc;
		/* differentiate */
		for (j = 0; j < 3; j++)
			cc[j] = (j + 1) * cc[j + 1];
		cc[3] = 0;
	}
}

/* ---- the per-call work area ---- */

typedef struct glm_work
{
	int			d,
				q,
				p,
				n,
				K,
				ic,
				pmu,			/* first mu parameter */
				psig;			/* first sigma parameter */
	int			logistic;
	double	   *mub,			/* q */
			   *ab,				/* q */
			   *Sb,				/* q x q */
			   *thb,			/* q */
			   *Dmu,			/* d m_u / d param (K) */
			   *Ds2,			/* d s^2 / d param (K) */
			   *Qt,				/* q x q x 3: coefficients of Q_ij(T) */
			   *LQ,				/* 3 x q x q: L_h[Q_ij] */
			   *HQ;				/* 3 x n x 3: H_h Q_k, (H_h)_rs = G_{r+s} */
	int		   *ci,
			   *ia,
			   *ib;
	double		mu_u,
				s2;
	double		G[3][NG];
	void	   *mem;
} glm_work;

static void
work_free(glm_work *W)
{
	free(W->mem);
	W->mem = NULL;
}

static inline int
sig_index(const glm_work *W, int f, int g)
{
	int			t;

	if (f > g)
	{
		t = f;
		f = g;
		g = t;
	}
	return W->psig + f * W->d - f * (f - 1) / 2 + (g - f);
}

static inline int
theta_index(const glm_work *W, int aug)
{
	/* the theta parameter multiplying v_aug (aug >= 1, or 0 with ic) */
	return W->ic ? aug : aug - 1;
}

static inline int
hclass(const glm_work *W, int c)
{
	if (c == 0)
		return H_ONE;
	if (c == 1)
		return H_1;
	return W->logistic ? H_ONE : H_2;
}

static dpb_status
work_init(glm_work *W, const dpb_layout *L, dpb_glm_approx approx,
		  const double *theta, const double *mu, const double *Sigma)
{
	int			d,
				q,
				n,
				K,
				i,
				j,
				k,
				h;
	size_t		nd,
				ni,
				qq;
	char	   *mem;
	dpb_status	st;

	memset(W, 0, sizeof(*W));
	if (L == NULL || theta == NULL || mu == NULL || Sigma == NULL)
		return DPB_EINVAL;
	if (L->model != DPB_MODEL_LOGISTIC && L->model != DPB_MODEL_POISSON)
		return DPB_EINVAL;
	if (approx != DPB_GLM_EXACT && approx != DPB_GLM_TAYLOR)
		return DPB_EINVAL;
	st = build_tables();
	if (st != DPB_OK)
		return st;
	d = W->d = L->d;
	q = W->q = d + 1;
	qq = (size_t) q * q;
	W->p = L->p;
	W->ic = L->intercept;
	n = W->n = L->nstats;
	K = W->K = dpb_glm_nparams(L);
	W->pmu = W->p;
	W->psig = W->p + d;
	W->logistic = L->model == DPB_MODEL_LOGISTIC;

	nd = 3 * (size_t) q + 2 * (size_t) K + qq + 3 * qq + 3 * qq + 9 * (size_t) n;
	ni = 3 * (size_t) n;
	mem = malloc(nd * sizeof(double) + ni * sizeof(int));
	if (mem == NULL)
		return DPB_ENOMEM;
	W->mem = mem;
	W->mub = (double *) mem;
	W->ab = W->mub + q;
	W->thb = W->ab + q;
	W->Dmu = W->thb + q;
	W->Ds2 = W->Dmu + K;
	W->Sb = W->Ds2 + K;
	W->Qt = W->Sb + qq;
	W->LQ = W->Qt + 3 * qq;
	W->HQ = W->LQ + 3 * qq;
	W->ci = (int *) (W->HQ + 9 * (size_t) n);
	W->ia = W->ci + n;
	W->ib = W->ia + n;

	/* augmented moments */
	W->mub[0] = 1.0;
	W->thb[0] = W->ic ? theta[0] : 0.0;
	memset(W->Sb, 0, sizeof(double) * qq);
	for (i = 0; i < d; i++)
	{
		W->mub[1 + i] = mu[i];
		W->thb[1 + i] = theta[W->ic + i];
		for (j = i; j < d; j++)
			W->Sb[(1 + i) * q + 1 + j] = W->Sb[(1 + j) * q + 1 + i] =
				Sigma[i * d + j];
	}
	W->ab[0] = 0.0;
	W->mu_u = W->thb[0];
	W->s2 = 0.0;
	for (i = 0; i < d; i++)
	{
		double		s = 0;

		for (j = 0; j < d; j++)
			s += W->Sb[(1 + i) * q + 1 + j] * W->thb[1 + j];
		W->ab[1 + i] = s;
		W->mu_u += W->thb[1 + i] * mu[i];
		W->s2 += W->thb[1 + i] * s;
	}
	if (!dpb_isfinite(W->mu_u) || !dpb_isfinite(W->s2))
	{
		work_free(W);
		return DPB_ENUMERIC;
	}
	if (W->s2 < 0)
		W->s2 = 0;				/* Sigma not PSD along theta: rounding */

	/* derivatives of m_u and s^2 with respect to the parameters */
	memset(W->Dmu, 0, sizeof(double) * 2 * K);
	if (W->ic)
		W->Dmu[0] = 1.0;
	for (i = 0; i < d; i++)
	{
		W->Dmu[theta_index(W, 1 + i)] = mu[i];
		W->Dmu[W->pmu + i] = W->thb[1 + i];
		W->Ds2[theta_index(W, 1 + i)] = 2.0 * W->ab[1 + i];
		for (j = i; j < d; j++)
			W->Ds2[sig_index(W, i, j)] = (i == j ? 1.0 : 2.0)
				* W->thb[1 + i] * W->thb[1 + j];
	}

	/* G tables */
	for (k = 0; k < NG; k++)
		W->G[H_ONE][k] = k == 0 ? 1.0 : 0.0;
	if (W->logistic)
	{
		if (approx == DPB_GLM_EXACT)
			logistic_G(W->mu_u, W->s2, W->G[H_1]);
		else
		{
			static const double tay[4] = {0.0, 0.5, 0.0, -1.0 / 24.0};

			poly_G(tay, W->mu_u, W->s2, W->G[H_1]);
		}
		memcpy(W->G[H_2], W->G[H_ONE], sizeof(W->G[H_2]));
	}
	else
	{
		if (approx == DPB_GLM_EXACT && L->y_clip > 0)
		{
			st = dpb_ypois_expect(L->y_clip, W->mu_u, W->s2, W->G[H_1],
								  W->G[H_2]);
			if (st != DPB_OK)
			{
				work_free(W);
				return st;
			}
		}
		else if (approx == DPB_GLM_EXACT)
		{
			double		e1 = exp(W->mu_u + 0.5 * W->s2),
						e2 = exp(2.0 * W->mu_u + 2.0 * W->s2),
						pw = 1.0;

			for (k = 0; k < NG; k++)
			{
				W->G[H_1][k] = e1;
				W->G[H_2][k] = e1 + pw * e2;
				pw *= 2.0;
			}
		}
		else
		{
			static const double t1[4] = {1.0, 1.0, 0.5, 0.0};
			static const double t2[4] = {2.0, 3.0, 2.5, 0.0};

			poly_G(t1, W->mu_u, W->s2, W->G[H_1]);
			poly_G(t2, W->mu_u, W->s2, W->G[H_2]);
		}
	}
	for (i = 0; i < 3; i++)
		for (k = 0; k < NG; k++)
			if (!dpb_isfinite(W->G[i][k]))
			{
				work_free(W);
				return DPB_ENUMERIC;
			}

	/* statistics: y^c v_ia v_ib */
	for (k = 0; k < n; k++)
	{
		dpb_entry	e;

		dpb_layout_entry(L, k, &e);
		W->ci[k] = e.ypow;
		W->ia[k] = e.i < 0 ? 0 : e.i + 1 - W->ic;
		W->ib[k] = e.j < 0 ? 0 : e.j + 1 - W->ic;
	}

	/* Q_ij(T) = (mub_i + a_i T)(mub_j + a_j T) + Sb_ij and L_h[Q_ij] */
	for (i = 0; i < q; i++)
		for (j = 0; j < q; j++)
		{
			double	   *Q = W->Qt + 3 * ((size_t) i * q + j);

			Q[0] = W->mub[i] * W->mub[j] + W->Sb[i * q + j];
			Q[1] = W->mub[i] * W->ab[j] + W->ab[i] * W->mub[j];
			Q[2] = W->ab[i] * W->ab[j];
			for (h = 0; h < 3; h++)
				W->LQ[h * qq + (size_t) i * q + j] =
					Q[0] * W->G[h][0] + Q[1] * W->G[h][1] + Q[2] * W->G[h][2];
		}
	/* H_h Q_k */
	for (h = 0; h < 3; h++)
		for (k = 0; k < n; k++)
		{
			const double *Q = W->Qt + 3 * ((size_t) W->ia[k] * q + W->ib[k]),
					   *G = W->G[h];
			double	   *o = W->HQ + 3 * ((size_t) h * n + k);

			o[0] = G[0] * Q[0] + G[1] * Q[1] + G[2] * Q[2];
			o[1] = G[1] * Q[0] + G[2] * Q[1] + G[3] * Q[2];
			o[2] = G[2] * Q[0] + G[3] * Q[1] + G[4] * Q[2];
		}
	return DPB_OK;
}

/* ---- values ---- */

/*
 * 1 when every x[0 .. len) is finite (an exponent field of all ones is an
 * infinity or a NaN): one branch-free pass, not a test and branch per entry.
 * The exponent field plus one in its lowest bit carries into the sign bit
 * only when the field is all ones, so the or of those sums has its top bit
 * set exactly when some entry is not finite: no compare in the loop.
 */
static int
all_finite(const double *x, size_t len)
{
	const uint64_t ex = UINT64_C(0x7ff0000000000000),
				one = UINT64_C(0x0010000000000000);
	uint64_t	acc[4] = {0, 0, 0, 0},
				u[4];
	size_t		i;

	/* four independent accumulators */
	for (i = 0; i + 4 <= len; i += 4)
	{
		memcpy(u, x + i, sizeof(u));
		acc[0] |= (u[0] & ex) + one;
		acc[1] |= (u[1] & ex) + one;
		acc[2] |= (u[2] & ex) + one;
		acc[3] |= (u[3] & ex) + one;
	}
	for (; i < len; i++)
	{
		memcpy(u, x + i, sizeof(u[0]));
		acc[0] |= (u[0] & ex) + one;
	}
	return ((acc[0] | acc[1] | acc[2] | acc[3]) >> 63) == 0;
}

/* E[y^c_k y^c_l t_k t_l] with (alpha, beta) = stat k, (gamma, delta) = l:
 *   L[Q_ab Q_gd] + S_ag L[Q_bd] + S_ad L[Q_bg] + S_bg L[Q_ad] + S_bd L[Q_ag]
 *   - G_0 (S_ag S_bd + S_ad S_bg) */
static inline double
second_moment(const glm_work *W, int k, int l, int h)
{
	const int	q = W->q,
				a = W->ia[k],
				b = W->ib[k],
				g = W->ia[l],
				e = W->ib[l];
	const double *Ql = W->Qt + 3 * (g * q + e),
			   *hq = W->HQ + 3 * (h * W->n + k),
			   *LQ = W->LQ + (size_t) h * q * q,
			   *Sb = W->Sb;
	double		sag = Sb[a * q + g],
				sae = Sb[a * q + e],
				sbg = Sb[b * q + g],
				sbe = Sb[b * q + e];

	return Ql[0] * hq[0] + Ql[1] * hq[1] + Ql[2] * hq[2]
		+ sag * LQ[b * q + e] + sae * LQ[b * q + g]
		+ sbg * LQ[a * q + e] + sbe * LQ[a * q + g]
		- W->G[h][0] * (sag * sbe + sae * sbg);
}

/* m (n) and V (n x n); in class H_ONE second_moment is Q_l0 Q_k0 + ... */
static void
moments_values(const glm_work *W, double *m, double *V)
{
	int			n = W->n,
				q = W->q,
				k,
				l;

	for (k = 0; k < n; k++)
		m[k] = W->LQ[(size_t) hclass(W, W->ci[k]) * q * q + W->ia[k] * q + W->ib[k]];
	for (k = 0; k < n; k++)
	{
		const int	a = W->ia[k],
					b = W->ib[k],
					ck = W->ci[k];
		const double *Sa = W->Sb + (size_t) a * q,
				   *Sbk = W->Sb + (size_t) b * q,
				   *Q0 = W->LQ + (size_t) H_ONE * q * q,
				   Qk0 = W->Qt[3 * (a * q + b)],
				   mk = m[k];

		for (l = k; l < n; l++)
		{
			const int	hc = hclass(W, ck + W->ci[l]),
						g = W->ia[l],
						e = W->ib[l];
			double		v;

			if (hc == H_ONE)
			{
				double		sag = Sa[g],
							sae = Sa[e],
							sbg = Sbk[g],
							sbe = Sbk[e];

				v = W->Qt[3 * (g * q + e)] * Qk0
					+ sag * Q0[b * q + e] + sae * Q0[b * q + g]
					+ sbg * Q0[a * q + e] + sbe * Q0[a * q + g]
					- (sag * sbe + sae * sbg);
			}
			else
				v = second_moment(W, k, l, hc);
			V[k * n + l] = V[l * n + k] = v - mk * m[l];
		}
	}
}

/* ---- local partial derivatives of one entry (materialised dV) ---- */

typedef struct loc
{
	double		P[5];			/* polynomial coefficients: d val / d G_r */
	double		muB[4],
				aB[4];
	double		SB[6];			/* pairs 01, 02, 03, 12, 13, 23 */
} loc;

static const int pair_a[6] = {0, 0, 0, 1, 1, 2};
static const int pair_b[6] = {1, 2, 3, 2, 3, 3};

/* E[v_i v_j h]: P[0..2], muB/aB[0..1], SB[0] */
static inline void
entry2(const glm_work *W, int i, int j, const double *G, loc *o)
{
	double		mi = W->mub[i],
				mj = W->mub[j],
				ai = W->ab[i],
				aj = W->ab[j];

	o->P[0] = mi * mj + W->Sb[i * W->q + j];
	o->P[1] = mi * aj + ai * mj;
	o->P[2] = ai * aj;
	o->muB[0] = mj * G[0] + aj * G[1];
	o->aB[0] = mj * G[1] + aj * G[2];
	o->muB[1] = mi * G[0] + ai * G[1];
	o->aB[1] = mi * G[1] + ai * G[2];
	o->SB[0] = G[0];
}

/* R = m_x Q + sA m_y + sB m_z (degree 3) */
static inline void
rpoly(double *R, double mx, double ax, const double *Q,
	  double sA, double my, double ay, double sB, double mz, double az)
{
	R[0] = mx * Q[0] + sA * my + sB * mz;
	R[1] = mx * Q[1] + ax * Q[0] + sA * ay + sB * az;
	R[2] = mx * Q[2] + ax * Q[1];
	R[3] = ax * Q[2];
}

static inline double
L0_3(const double *Q, const double *G)
{
	return Q[0] * G[0] + Q[1] * G[1] + Q[2] * G[2];
}

/*
 * E[v_i0 v_i1 v_i2 v_i3 h] = L[m_0 R_0 + S_01 Q_23 + S_02 Q_13 + S_03 Q_12]:
 * its partials (the polynomial P, d/dmub, d/da at the four slots, d/dSb at
 * the six pairs).
 */
static inline void
entry4(const glm_work *W, const int *ix, const double *G, loc *o)
{
	const int	q = W->q;
	const double *Sb = W->Sb;
	double		m0 = W->mub[ix[0]],
				m1 = W->mub[ix[1]],
				m2 = W->mub[ix[2]],
				m3 = W->mub[ix[3]],
				a0 = W->ab[ix[0]],
				a1 = W->ab[ix[1]],
				a2 = W->ab[ix[2]],
				a3 = W->ab[ix[3]];
	double		s01 = Sb[ix[0] * q + ix[1]],
				s02 = Sb[ix[0] * q + ix[2]],
				s03 = Sb[ix[0] * q + ix[3]],
				s12 = Sb[ix[1] * q + ix[2]],
				s13 = Sb[ix[1] * q + ix[3]];
	const double *Q01 = W->Qt + 3 * (ix[0] * q + ix[1]),
			   *Q02 = W->Qt + 3 * (ix[0] * q + ix[2]),
			   *Q03 = W->Qt + 3 * (ix[0] * q + ix[3]),
			   *Q12 = W->Qt + 3 * (ix[1] * q + ix[2]),
			   *Q13 = W->Qt + 3 * (ix[1] * q + ix[3]),
			   *Q23 = W->Qt + 3 * (ix[2] * q + ix[3]);
	double		R0[4],
				R1[4],
				R2[4],
				R3[4],
			   *P = o->P;

	rpoly(R0, m1, a1, Q23, s12, m3, a3, s13, m2, a2);
	rpoly(R1, m0, a0, Q23, s02, m3, a3, s03, m2, a2);
	rpoly(R2, m3, a3, Q01, s03, m1, a1, s13, m0, a0);
	rpoly(R3, m2, a2, Q01, s02, m1, a1, s12, m0, a0);
	P[0] = m0 * R0[0] + s01 * Q23[0] + s02 * Q13[0] + s03 * Q12[0];
	P[1] = m0 * R0[1] + a0 * R0[0] + s01 * Q23[1] + s02 * Q13[1] + s03 * Q12[1];
	P[2] = m0 * R0[2] + a0 * R0[1] + s01 * Q23[2] + s02 * Q13[2] + s03 * Q12[2];
	P[3] = m0 * R0[3] + a0 * R0[2];
	P[4] = a0 * R0[3];
#define LR(R, t) \
	do { \
		o->muB[t] = R[0] * G[0] + R[1] * G[1] + R[2] * G[2] + R[3] * G[3]; \
		o->aB[t] = R[0] * G[1] + R[1] * G[2] + R[2] * G[3] + R[3] * G[4]; \
	} while (0)
	LR(R0, 0);
	LR(R1, 1);
	LR(R2, 2);
	LR(R3, 3);
#undef LR
	o->SB[0] = L0_3(Q23, G);	/* 01 */
	o->SB[1] = L0_3(Q13, G);	/* 02 */
	o->SB[2] = L0_3(Q12, G);	/* 03 */
	o->SB[3] = L0_3(Q03, G);	/* 12 */
	o->SB[4] = L0_3(Q02, G);	/* 13 */
	o->SB[5] = L0_3(Q01, G);	/* 23 */
}

/* (d val / d m_u, d val / d s^2) from the polynomial P */
static inline void
gpart(const double *P, int np, const double *G, double *dmu, double *ds2)
{
	double		a = 0,
				b = 0;
	int			r;

	for (r = 0; r < np; r++)
	{
		a += P[r] * G[r + 1];
		b += P[r] * G[r + 2];
	}
	*dmu = a;
	*ds2 = 0.5 * b;
}

/*
 * Adds the local partials (mub, a, Sb at augmented indices ix[]) to
 * out[stride * param] for every parameter they reach (the part through G is
 * added separately).
 */
static inline void
scatter_local(const glm_work *W, const int *ix, int nix, const loc *o,
			  double *out, size_t stride)
{
	int			t,
				g,
				d = W->d;

	for (t = 0; t < nix; t++)
	{
		int			i = ix[t],
					f = i - 1;
		double		ab;

		if (i == 0)
			continue;
		out[stride * (W->pmu + f)] += o->muB[t];
		ab = o->aB[t];
		if (ab == 0.0)
			continue;
		/* a_f = sum_g Sigma_fg theta~_g */
		for (g = 0; g < d; g++)
		{
			out[stride * theta_index(W, 1 + g)] += ab * W->Sb[i * W->q + 1 + g];
			out[stride * sig_index(W, f, g)] += ab * W->thb[1 + g];
		}
	}
	if (nix == 2)
	{
		if (ix[0] > 0 && ix[1] > 0)
			out[stride * sig_index(W, ix[0] - 1, ix[1] - 1)] += o->SB[0];
		return;
	}
	for (t = 0; t < 6; t++)
	{
		int			i = ix[pair_a[t]],
					j = ix[pair_b[t]];

		if (i > 0 && j > 0)
			out[stride * sig_index(W, i - 1, j - 1)] += o->SB[t];
	}
}

int
dpb_glm_nparams(const dpb_layout *L)
{
	return L->p + L->d + L->d * (L->d + 1) / 2;
}

/* ---- materialised moments and derivatives ---- */

dpb_status
dpb_glm_moments(const dpb_layout *L, dpb_glm_approx approx,
				const double *theta, const double *mu, const double *Sigma,
				double *m, double *V, double *dm, double *dV)
{
	glm_work	W;
	dpb_status	st;
	int			n,
				K,
				k,
				l,
				P;
	size_t		nn;
	double	   *A = NULL,
			   *B = NULL,
			   *Am = NULL,
			   *Bm = NULL;
	loc			o;
	int			bad = 0;

	st = work_init(&W, L, approx, theta, mu, Sigma);
	if (st != DPB_OK)
		return st;
	n = W.n;
	K = W.K;
	nn = (size_t) n * n;
	moments_values(&W, m, V);
	if (dm != NULL || dV != NULL)
	{
		/* Am, Bm (n); with dV: A, B (n x n) and dm when the caller has none */
		size_t		sz = 2 * (size_t) n;

		if (dV != NULL)
			sz += 2 * nn + (dm == NULL ? (size_t) K * n : 0);
		Am = malloc(sizeof(double) * sz);
		if (Am == NULL)
		{
			work_free(&W);
			return DPB_ENOMEM;
		}
		Bm = Am + n;
		if (dV != NULL)
		{
			A = Bm + n;
			B = A + nn;
			if (dm == NULL)
				dm = B + nn;
		}
	}

	if (dm != NULL)
	{
		memset(dm, 0, sizeof(double) * K * n);
		for (k = 0; k < n; k++)
		{
			const double *G = W.G[hclass(&W, W.ci[k])];
			int			ix[2] = {W.ia[k], W.ib[k]};

			entry2(&W, ix[0], ix[1], G, &o);
			scatter_local(&W, ix, 2, &o, dm + k, n);
			gpart(o.P, 3, G, &Am[k], &Bm[k]);
		}
		for (P = 0; P < K; P++)
			for (k = 0; k < n; k++)
				dm[(size_t) P * n + k] += W.Dmu[P] * Am[k] + W.Ds2[P] * Bm[k];
	}

	if (dV != NULL)
	{
		/* local partials into the upper triangles, G part into A, B */
		memset(dV, 0, sizeof(double) * K * nn);
		for (k = 0; k < n; k++)
			for (l = k; l < n; l++)
			{
				const double *G = W.G[hclass(&W, W.ci[k] + W.ci[l])];
				int			ix[4] = {W.ia[k], W.ib[k], W.ia[l], W.ib[l]};

				entry4(&W, ix, G, &o);
				scatter_local(&W, ix, 4, &o, dV + (size_t) k * n + l, nn);
				gpart(o.P, 5, G, &A[k * n + l], &B[k * n + l]);
			}
		/* add the G part and -d(m m^T), mirror */
		for (P = 0; P < K; P++)
		{
			double	   *D = dV + (size_t) P * nn;
			const double *dmP = dm + (size_t) P * n;
			double		cm = W.Dmu[P],
						cs = W.Ds2[P];

			for (k = 0; k < n; k++)
			{
				double		dk = dmP[k],
							mk = m[k];
				double	   *Dk = D + (size_t) k * n;
				const double *Ak = A + (size_t) k * n,
						   *Bk = B + (size_t) k * n;

				for (l = k; l < n; l++)
				{
					double		v = Dk[l] + cm * Ak[l] + cs * Bk[l]
						- dk * m[l] - mk * dmP[l];

					Dk[l] = v;
					D[(size_t) l * n + k] = v;
					if (!dpb_isfinite(v))
						bad = 1;
				}
			}
		}
	}
	if (!all_finite(m, n) || !all_finite(V, nn) ||
		(dm != NULL && !all_finite(dm, (size_t) K * n)))
		bad = 1;
	free(Am);
	work_free(&W);
	return bad ? DPB_ENUMERIC : DPB_OK;
}

/* ---- vector-Jacobian product ---- */

static dpb_status
moments_vjp(const dpb_layout *L, dpb_glm_approx approx,
			const double *theta, const double *mu, const double *Sigma,
			dpb_glm_adjoint_fn adjoint, void *actx,
			double *Wbar_buf, double *mbar_buf, double *m, double *V, double *g)
{
	const double *Wbar = Wbar_buf;
	const double *mbar = mbar_buf;

	glm_work	W;
	dpb_status	st;
	int			n,
				K,
				q,
				d,
				k,
				l,
				h,
				f,
				j,
				r;
	size_t		qq;
	double	   *muB,
			   *aB,
			   *SB,
			   *QtB,
			   *LQB,
			   *WQ,
			   *mb;
	double		GB[3][5];
	double		mB_u = 0,
				s2B = 0;
	int			bad = 0;

	st = work_init(&W, L, approx, theta, mu, Sigma);
	if (st != DPB_OK)
		return st;
	n = W.n;
	K = W.K;
	q = W.q;
	d = W.d;
	qq = (size_t) q * q;
	muB = calloc(2 * (size_t) q + qq + 3 * qq + 3 * qq + 9 * (size_t) n + n,
				 sizeof(double));
	if (muB == NULL)
	{
		work_free(&W);
		return DPB_ENOMEM;
	}
	aB = muB + q;
	SB = aB + q;
	QtB = SB + qq;
	LQB = QtB + 3 * qq;
	WQ = LQB + 3 * qq;
	mb = WQ + 9 * (size_t) n;
	memset(GB, 0, sizeof(GB));

	moments_values(&W, m, V);
	/* the adjoints may depend on m and V (the sampler's W = M^-1 - a a^T) */
	if (adjoint != NULL && adjoint(m, V, Wbar_buf, mbar_buf, actx) != 0)
	{
		free(muB);
		work_free(&W);
		return DPB_ENUMERIC;
	}

	/* mean adjoint, including V = S - m m^T: mbar - (Wbar + Wbar^T) m */
	if (mbar != NULL)
		memcpy(mb, mbar, sizeof(double) * n);
	else
		memset(mb, 0, sizeof(double) * n);
	cblas_dgemv(CblasRowMajor, CblasNoTrans, n, n, -1.0, Wbar, n, m, 1, 1.0, mb, 1);
	cblas_dgemv(CblasRowMajor, CblasTrans, n, n, -1.0, Wbar, n, m, 1, 1.0, mb, 1);
	for (k = 0; k < n; k++)
		LQB[hclass(&W, W.ci[k]) * qq + W.ia[k] * q + W.ib[k]] += mb[k];

	/*
	 * second moments: adjoints of Q_k (through WQ), L_h[Q], Sb, G_0.  In
	 * class H_ONE (G = (1, 0, 0, ...): the features' own moments, and y^2 = 1
	 * in the logistic model) only the constant coefficients of Q and WQ
	 * reach anything and G_0's adjoint is not used, so those pairs skip the
	 * rest (the sums are the same).
	 */
	for (k = 0; k < n; k++)
	{
		const int	a = W.ia[k],
					b = W.ib[k],
					ck = W.ci[k];
		const double *Qk = W.Qt + 3 * (a * q + b),
				   *Sa = W.Sb + (size_t) a * q,
				   *Sbk = W.Sb + (size_t) b * q,
				   *Wk = Wbar + (size_t) k * n;

		for (l = k; l < n; l++)
		{
			const int	hc = hclass(&W, ck + W.ci[l]),
						gg = W.ia[l],
						e = W.ib[l];
			const double *Ql = W.Qt + 3 * (gg * q + e),
					   *LQ = W.LQ + hc * qq;
			double	   *LB = LQB + hc * qq,
					   *wk = WQ + 3 * (hc * n + k),
					   *wl = WQ + 3 * (hc * n + l);
			double		w = Wk[l] + (l != k ? Wbar[(size_t) l * n + k] : 0.0),
						sag,
						sae,
						sbg,
						sbe;

			if (w == 0.0)
				continue;
			sag = Sa[gg];
			sae = Sa[e];
			sbg = Sbk[gg];
			sbe = Sbk[e];
			/* L[Q_k Q_l] = Q_l^T H Q_k */
			wk[0] += w * Ql[0];
			wl[0] += w * Qk[0];
			/* Sb x L[Q] terms */
			LB[b * q + e] += w * sag;
			LB[b * q + gg] += w * sae;
			LB[a * q + e] += w * sbg;
			LB[a * q + gg] += w * sbe;
			if (hc == H_ONE)
			{
				SB[a * q + gg] += w * (LQ[b * q + e] - sbe);
				SB[a * q + e] += w * (LQ[b * q + gg] - sbg);
				SB[b * q + gg] += w * (LQ[a * q + e] - sae);
				SB[b * q + e] += w * (LQ[a * q + gg] - sag);
				continue;
			}
			{
				double		G0 = W.G[hc][0];

				wk[1] += w * Ql[1];
				wk[2] += w * Ql[2];
				wl[1] += w * Qk[1];
				wl[2] += w * Qk[2];
				SB[a * q + gg] += w * (LQ[b * q + e] - G0 * sbe);
				SB[a * q + e] += w * (LQ[b * q + gg] - G0 * sbg);
				SB[b * q + gg] += w * (LQ[a * q + e] - G0 * sae);
				SB[b * q + e] += w * (LQ[a * q + gg] - G0 * sag);
				GB[hc][0] -= w * (sag * sbe + sae * sbg);
			}
		}
	}

	/* WQ -> Q_k and G (H_rs = G_{r+s}; WQ holds both roles, hence 1/2) */
	for (h = 0; h < 3; h++)
		for (k = 0; k < n; k++)
		{
			const double *wq = WQ + 3 * (h * n + k),
					   *G = W.G[h];
			const int	ij = W.ia[k] * q + W.ib[k];
			const double *Qk = W.Qt + 3 * ij;
			double	   *QB = QtB + 3 * ij;

			if (h == H_ONE)
			{
				QB[0] += wq[0];
				continue;
			}
			QB[0] += G[0] * wq[0] + G[1] * wq[1] + G[2] * wq[2];
			QB[1] += G[1] * wq[0] + G[2] * wq[1] + G[3] * wq[2];
			QB[2] += G[2] * wq[0] + G[3] * wq[1] + G[4] * wq[2];
			for (r = 0; r < 3; r++)
				for (j = 0; j < 3; j++)
					GB[h][r + j] += 0.5 * Qk[r] * wq[j];
		}
	/* L_h[Q_ij] -> Q_ij and G */
	for (h = 0; h < 3; h++)
		for (k = 0; k < (int) qq; k++)
		{
			double		lb = LQB[h * qq + k];
			const double *Q = W.Qt + 3 * k;

			if (lb == 0.0)
				continue;
			if (h == H_ONE)
			{
				QtB[3 * k] += lb;
				continue;
			}
			for (r = 0; r < 3; r++)
			{
				QtB[3 * k + r] += lb * W.G[h][r];
				GB[h][r] += lb * Q[r];
			}
		}
	/* Q_ij -> mub, a, Sb */
	for (k = 0; k < q; k++)
		for (l = 0; l < q; l++)
		{
			const double *QB = QtB + 3 * (k * q + l);

			muB[k] += QB[0] * W.mub[l] + QB[1] * W.ab[l];
			muB[l] += QB[0] * W.mub[k] + QB[1] * W.ab[k];
			aB[k] += QB[1] * W.mub[l] + QB[2] * W.ab[l];
			aB[l] += QB[1] * W.mub[k] + QB[2] * W.ab[k];
			SB[k * q + l] += QB[0];
		}

	/* chain to the parameters */
	for (h = H_1; h <= H_2; h++)
	{
		double		a,
					b;

		gpart(GB[h], 5, W.G[h], &a, &b);
		mB_u += a;
		s2B += b;
	}
	for (k = 0; k < K; k++)
		g[k] = mB_u * W.Dmu[k] + s2B * W.Ds2[k];
	for (f = 0; f < d; f++)
	{
		double		ab = aB[1 + f];

		g[W.pmu + f] += muB[1 + f];
		for (j = 0; j < d; j++)
		{
			g[theta_index(&W, 1 + j)] += ab * W.Sb[(1 + f) * q + 1 + j];
			g[sig_index(&W, f, j)] += ab * W.thb[1 + j];
			if (j >= f)
				g[sig_index(&W, f, j)] += SB[(1 + f) * q + 1 + j]
					+ (j != f ? SB[(1 + j) * q + 1 + f] : 0.0);
		}
	}
	if (!all_finite(m, n) || !all_finite(V, (size_t) n * n) || !all_finite(g, K))
		bad = 1;
	free(muB);
	work_free(&W);
	return bad ? DPB_ENUMERIC : DPB_OK;
}

dpb_status
dpb_glm_moments_vjp(const dpb_layout *L, dpb_glm_approx approx,
					const double *theta, const double *mu, const double *Sigma,
					const double *Wbar, const double *mbar, double *m,
					double *V, double *g)
{
	return moments_vjp(L, approx, theta, mu, Sigma, NULL, NULL,
					   (double *) Wbar, (double *) mbar, m, V, g);
}

dpb_status
dpb_glm_moments_vjp_cb(const dpb_layout *L, dpb_glm_approx approx,
					   const double *theta, const double *mu, const double *Sigma,
					   dpb_glm_adjoint_fn adjoint, void *actx, double *Wbar,
					   double *mbar, double *m, double *V, double *g)
{
	return moments_vjp(L, approx, theta, mu, Sigma, adjoint, actx, Wbar, mbar,
					   m, V, g);
}
