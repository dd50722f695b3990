/*
 * glm_ypois.c — Gaussian expectations of the clipped Poisson response and
 * of its derivatives (see glm_ypois.h for the method).
 *
 * Derivatives.  With lambda = e^u, p(j) = P(Y = j): d/du p(j) = (j - lambda)
 * p(j), d/du F(j) = -lambda p(j), d/du Q(K) = lambda p(K), and lambda p(j) =
 * (j + 1) p(j + 1).  Let J = K + 1, pi = p(J), A = lambda F(K-1),
 * C = lambda^2 F(K-2).  Then A' = A - K J pi, C' = 2 C - (K-1) K J pi,
 * (B Q(K))' = B J pi, and d^i/du^i pi = P_i(J - lambda, lambda) pi with the
 * Charlier-type polynomials P_0 = 1, P_{i+1} = t P_i + dP_i/du
 * (dt/du = -lambda, dlambda/du = lambda).  Hence, for r >= 1,
 *   h1^{(r)} = A + pi (B J P_{r-1} - K J S_r),         S_r = sum_{i<r} P_i,
 *   h2^{(r)} = 2^r C + A + pi (B^2 J P_{r-1} - K J S_r - (K-1) K J T_r),
 *                                    T_r = sum_{i<r} 2^{r-1-i} P_i.
 *
 * Reference.  For u ~ N(m, s^2), sigma^2 = omega^2 + s^2:
 *   E[e^{ku} Phi((u - c)/omega)] = e^{k m + k^2 s^2 / 2} Phi((m + k s^2 - c)/sigma),
 *   E[Phi((u - c)/omega)]        = Phi((m - c)/sigma),
 * and G_r is the r-th derivative in m of the expectation.  Products of a
 * huge e^{k m + k^2 s^2/2} and a tiny normal tail are formed in logs.
 */
#include "glm_ypois.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_sf_erf.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NR 7					/* r = 0..6 */
#define NCB 7					/* powers of t and of lambda */
#define NGH 48
#define TAIL_Z 9.5				/* |u - m| <= TAIL_Z s holds all the mass */
#define MAXJ 200000

/* ---- process-wide tables ---- */

static int	static_ready = 0;
static double charl[NR][NCB][NCB];	/* P_i = sum charl[i][a][b] t^a lambda^b */
static double gh_z[NGH],
			gh_w[NGH];
static const double binom[NR][NR] = {
	{1}, {1, 1}, {1, 2, 1}, {1, 3, 3, 1}, {1, 4, 6, 4, 1},
	{1, 5, 10, 10, 5, 1}, {1, 6, 15, 20, 15, 6, 1}
};

/* the remainder table for one B */
typedef struct ytab
{
	double		B,
				K,
				c,				/* log B */
				om,				/* width of the reference step */
				du;				/* grid step */
	double		c1[3],			/* h1 ~ c1[1] e^u + c1[2] e^{2u} on the left */
				c2[3];			/* h2 likewise */
	int			jlo,
				jhi;
	double	   *R;				/* node j: R[(j - jlo) * 2 NR + (0|NR) + r] */
} ytab;

static ytab cache = {0};

static dpb_status
static_init(void)
{
	dpb_status	st;
	int			i,
				a,
				b;

	if (static_ready)
		return DPB_OK;
	memset(charl, 0, sizeof(charl));
	charl[0][0][0] = 1.0;
	for (i = 0; i + 1 < NR; i++)
		for (a = 0; a < NCB; a++)
			for (b = 0; b < NCB; b++)
			{
				double		v = charl[i][a][b];

				if (v == 0)
					continue;
				/* t * t^a l^b */
				if (a + 1 < NCB)
					charl[i + 1][a + 1][b] += v;
				/* d/du t^a l^b = -a t^{a-1} l^{b+1} + b t^a l^b */
				if (a > 0 && b + 1 < NCB)
					charl[i + 1][a - 1][b + 1] -= a * v;
				charl[i + 1][a][b] += b * v;
			}
	st = dpb_gauss_hermite(NGH, gh_z, gh_w);
	if (st != DPB_OK)
		return st;
	static_ready = 1;
	return DPB_OK;
}

dpb_status
dpb_gauss_hermite(int n, double *z, double *w)
{
	gsl_integration_fixed_workspace *ws;
	double		sum = 0;
	int			k;

	ws = gsl_integration_fixed_alloc(gsl_integration_fixed_hermite, n,
									 0.0, 0.5, 0.0, 0.0);
	if (ws == NULL)
		return DPB_ENOMEM;
	for (k = 0; k < n; k++)
	{
		z[k] = gsl_integration_fixed_nodes(ws)[k];
		w[k] = gsl_integration_fixed_weights(ws)[k];
		sum += w[k];
	}
	gsl_integration_fixed_free(ws);
	if (!(sum > 0))
		return DPB_ENUMERIC;
	for (k = 0; k < n; k++)
		w[k] /= sum;
	return DPB_OK;
}

/* regularised incomplete gamma functions; an underflow is a zero */
static double
gam_q(double a, double x)
{
	gsl_sf_result r;
	int			st = gsl_sf_gamma_inc_Q_e(a, x, &r);

	return st == GSL_SUCCESS || st == GSL_EUNDRFLW ? r.val : NAN;
}

static double
gam_p(double a, double x)
{
	gsl_sf_result r;
	int			st = gsl_sf_gamma_inc_P_e(a, x, &r);

	return st == GSL_SUCCESS || st == GSL_EUNDRFLW ? r.val : NAN;
}

/* P_i(t, lambda), i = 0..NR-1 */
static void
charlier(double t, double lam, double *P)
{
	double		tp[NCB],
				lp[NCB];
	int			i,
				a,
				b;

	tp[0] = lp[0] = 1.0;
	for (a = 1; a < NCB; a++)
	{
		tp[a] = tp[a - 1] * t;
		lp[a] = lp[a - 1] * lam;
	}
	for (i = 0; i < NR; i++)
	{
		double		acc = 0;

		for (a = 0; a <= i; a++)
			for (b = 0; b < NCB; b++)
				if (charl[i][a][b] != 0)
					acc += charl[i][a][b] * tp[a] * lp[b];
		P[i] = acc;
	}
}

static void
exact_h(double B, double K, double u, double *h1, double *h2)
{
	double		lam,
				J = K + 1.0,
				kj = K * J,
				g = (K - 1.0) * K * J,
				F1,
				F2,
				QK,
				pi,
				A,
				C,
				P[NR],
				S = 0,
				T = 0;
	int			r;

	memset(h1, 0, sizeof(double) * NR);
	memset(h2, 0, sizeof(double) * NR);
	if (u > 700.0)
	{
		/* lambda > 1e304: every count is clipped */
		h1[0] = B;
		h2[0] = B * B;
		return;
	}
	lam = exp(u);
	F1 = K >= 1 ? gam_q(K, lam) : 0.0;
	F2 = K >= 2 ? gam_q(K - 1.0, lam) : 0.0;
	QK = gam_p(J, lam);
	pi = exp(J * u - lam - gsl_sf_lngamma(J + 1.0));
	A = lam * F1;
	C = lam * lam * F2;
	h1[0] = A + B * QK;
	h2[0] = C + A + B * B * QK;
	if (pi > 0)
		charlier(J - lam, lam, P);
	else
		memset(P, 0, sizeof(P));
	for (r = 1; r < NR; r++)
	{
		S += P[r - 1];
		T = 2.0 * T + P[r - 1];
		h1[r] = A + (pi > 0 ? pi * (B * J * P[r - 1] - kj * S) : 0.0);
		h2[r] = ldexp(C, r) + A
			+ (pi > 0 ? pi * (B * B * J * P[r - 1] - kj * S - g * T) : 0.0);
	}
}

/* He_n(z), n = 0..NR-1 (probabilists' Hermite) */
static void
hermite(double z, double *He)
{
	int			n;

	He[0] = 1.0;
	He[1] = z;
	for (n = 1; n + 1 < NR; n++)
		He[n + 1] = z * He[n] - n * He[n - 1];
}

/* the reference and its u-derivatives at one node */
static void
ref_h(const ytab *T, double u, double *r1, double *r2)
{
	double		v = (u - T->c) / T->om,
				He[NR],
				ph = exp(-0.5 * v * v) / sqrt(2.0 * M_PI),
				Dc[NR],			/* Phic^{(j)}(v) */
				D[NR],			/* Phi^{(j)}(v) */
				e[3];
	int			r,
				j,
				k;

	hermite(v, He);
	D[0] = 0.5 * erfc(-v * M_SQRT1_2);
	Dc[0] = 0.5 * erfc(v * M_SQRT1_2);
	for (j = 1; j < NR; j++)
	{
		D[j] = ((j - 1) % 2 ? -1.0 : 1.0) * He[j - 1] * ph;
		Dc[j] = -D[j];
	}
	e[1] = exp(u);
	e[2] = e[1] * e[1];
	for (r = 0; r < NR; r++)
	{
		double		a1 = 0,
					a2 = 0,
					omj = 1.0;

		for (j = 0; j <= r; j++)
		{
			for (k = 1; k <= 2; k++)
			{
				double		t = binom[r][j] * pow((double) k, r - j) * e[k] * omj * Dc[j];

				a1 += T->c1[k] * t;
				a2 += T->c2[k] * t;
			}
			omj /= T->om;
		}
		omj = pow(T->om, -r);
		r1[r] = a1 + T->B * omj * D[r];
		r2[r] = a2 + T->B * T->B * omj * D[r];
	}
}

/* E[ref^{(r)}(u)], u ~ N(m, s2) */
static void
ref_expect(const ytab *T, double m, double s2, double *G1, double *G2)
{
	double		sig = sqrt(T->om * T->om + s2),
				He[NR],
				z0 = (m - T->c) / sig,
				ph0 = exp(-0.5 * z0 * z0) / sqrt(2.0 * M_PI),
				Dk[3][NR];
	int			r,
				j,
				k;

	for (k = 1; k <= 2; k++)
	{
		double		z = (m + k * s2 - T->c) / sig,
					lM = k * m + 0.5 * k * k * s2,
					phM = exp(lM - 0.5 * z * z) / sqrt(2.0 * M_PI);

		hermite(z, He);
		/* M_k Phic(z), in logs */
		Dk[k][0] = exp(lM + gsl_sf_log_erfc(z * M_SQRT1_2) - M_LN2);
		for (j = 1; j < NR; j++)
			Dk[k][j] = (j % 2 ? -1.0 : 1.0) * He[j - 1] * phM;	/* M_k Phic^{(j)} */
	}
	hermite(z0, He);
	for (r = 0; r < NR; r++)
	{
		double		t[3] = {0, 0, 0},
					W;

		for (k = 1; k <= 2; k++)
		{
			double		sj = 1.0;

			for (j = 0; j <= r; j++)
			{
				t[k] += binom[r][j] * pow((double) k, r - j) * sj * Dk[k][j];
				sj /= sig;
			}
		}
		if (r == 0)
			W = 0.5 * erfc(-z0 * M_SQRT1_2);
		else
			W = pow(sig, -r) * ((r - 1) % 2 ? -1.0 : 1.0) * He[r - 1] * ph0;
		G1[r] = T->c1[1] * t[1] + T->c1[2] * t[2] + T->B * W;
		G2[r] = T->c2[1] * t[1] + T->c2[2] * t[2] + T->B * T->B * W;
	}
}

/* largest |h - ref| over r and both functions at u; rem gets the values */
static double
remainder_at(const ytab *T, double u, double *rem)
{
	double		h1[NR],
				h2[NR],
				f1[NR],
				f2[NR],
				mx = 0;
	int			r;

	exact_h(T->B, T->K, u, h1, h2);
	ref_h(T, u, f1, f2);
	for (r = 0; r < NR; r++)
	{
		rem[r] = h1[r] - f1[r];
		rem[NR + r] = h2[r] - f2[r];
		if (!(fabs(rem[r]) <= mx))
			mx = fabs(rem[r]);
		if (!(fabs(rem[NR + r]) <= mx))
			mx = fabs(rem[NR + r]);
	}
	return mx;
}

/* how far the remainder reaches from c in direction dir (+1 or -1) */
static int
reach(const ytab *T, int dir, double tol, int *out)
{
	double		rem[2 * NR];
	int			j,
				quiet = 0,
				last = 0;

	for (j = 0; j <= MAXJ; j++)
	{
		double		mx = remainder_at(T, T->c + dir * j * T->du, rem);

		if (!dpb_isfinite(mx))
			return 0;
		if (mx > tol)
		{
			last = j;
			quiet = 0;
		}
		else if (++quiet >= 16)
			break;
	}
	if (j > MAXJ)
		return 0;
	*out = last + 1;
	return 1;
}

static dpb_status
build_tab(double B)
{
	ytab		T;
	double		g1,
				g2,
				tol;
	int			up,
				down,
				j,
				n;

	memset(&T, 0, sizeof(T));
	T.B = B;
	T.K = floor(B);
	T.c = log(B);
	T.om = 1.0 / sqrt(T.K + 1.0);
	T.du = 0.1 * T.om;
	/* h = sum_y g(y) p(y): the coefficient of lambda^k is Delta^k g(0) / k! */
	g1 = fmin(1.0, B);
	g2 = fmin(2.0, B);
	T.c1[1] = g1;
	T.c1[2] = 0.5 * (g2 - 2.0 * g1);
	T.c2[1] = g1 * g1;
	T.c2[2] = 0.5 * (g2 * g2 - 2.0 * g1 * g1);
	tol = 1e-17 * fmax(1.0, B * B);
	if (!reach(&T, +1, tol, &up) || !reach(&T, -1, tol, &down))
		return DPB_ENUMERIC;
	T.jlo = -down;
	T.jhi = up;
	n = T.jhi - T.jlo + 1;
	T.R = malloc(sizeof(double) * 2 * NR * (size_t) n);
	if (T.R == NULL)
		return DPB_ENOMEM;
	for (j = T.jlo; j <= T.jhi; j++)
		remainder_at(&T, T.c + j * T.du, T.R + (size_t) (j - T.jlo) * 2 * NR);
	free(cache.R);
	cache = T;
	return DPB_OK;
}

dpb_status
dpb_ypois_h(double B, double u, double *h1, double *h2)
{
	dpb_status	st;

	if (!(B > 0) || !dpb_isfinite(B) || !dpb_isfinite(u) || h1 == NULL || h2 == NULL)
		return DPB_EINVAL;
	st = static_init();
	if (st != DPB_OK)
		return st;
	exact_h(B, floor(B), u, h1, h2);
	return DPB_OK;
}

dpb_status
dpb_ypois_expect(double B, double m, double s2, double *G1, double *G2)
{
	dpb_status	st;
	double		s;
	int			r,
				j;

	if (!(B > 0) || !dpb_isfinite(B) || !dpb_isfinite(m) || !(s2 >= 0)
		|| !dpb_isfinite(s2) || G1 == NULL || G2 == NULL)
		return DPB_EINVAL;
	st = static_init();
	if (st != DPB_OK)
		return st;
	if (cache.R == NULL || cache.B != B)
	{
		st = build_tab(B);
		if (st != DPB_OK)
			return st;
	}
	s = sqrt(s2);
	memset(G1, 0, sizeof(double) * NR);
	memset(G2, 0, sizeof(double) * NR);
	if (s < 2.0 * cache.du)
	{
		/* narrow u: Gauss-Hermite on h itself */
		int			k,
					nk = s > 0 ? NGH : 1;

		for (k = 0; k < nk; k++)
		{
			double		h1[NR],
						h2[NR],
						w = s > 0 ? gh_w[k] : 1.0;

			exact_h(B, cache.K, m + s * (s > 0 ? gh_z[k] : 0.0), h1, h2);
			for (r = 0; r < NR; r++)
			{
				G1[r] += w * h1[r];
				G2[r] += w * h2[r];
			}
		}
	}
	else
	{
		double		lo = ceil((m - TAIL_Z * s - cache.c) / cache.du),
					hi = floor((m + TAIL_Z * s - cache.c) / cache.du),
					wn = cache.du / (s * sqrt(2.0 * M_PI));
		int			jlo,
					jhi;

		ref_expect(&cache, m, s2, G1, G2);
		lo = fmin(fmax(lo, cache.jlo), cache.jhi + 1.0);
		hi = fmax(fmin(hi, cache.jhi), cache.jlo - 1.0);
		jlo = (int) lo;
		jhi = (int) hi;
		for (j = jlo; j <= jhi; j++)
		{
			double		z = (cache.c + j * cache.du - m) / s,
						w = wn * exp(-0.5 * z * z);
			const double *R = cache.R + (size_t) (j - cache.jlo) * 2 * NR;

			for (r = 0; r < NR; r++)
			{
				G1[r] += w * R[r];
				G2[r] += w * R[NR + r];
			}
		}
	}
	for (r = 0; r < NR; r++)
		if (!dpb_isfinite(G1[r]) || !dpb_isfinite(G2[r]))
			return DPB_ENUMERIC;
	return DPB_OK;
}
