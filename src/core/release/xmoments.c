/*
 * xmoments.c — second and fourth moments of w from a release's x_moments
 * blocks, and the linear model's statistic moments from them (see
 * xmoments.h).
 */
#include "xmoments.h"

#include "linalg.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

dpb_status
dpb_xmom_alloc(dpb_xmom *x, int d, int intercept)
{
	size_t		p = (size_t) d + (intercept ? 1 : 0);
	double	   *m;

	memset(x, 0, sizeof(*x));
	m = calloc(p * p + p * p * p * p + d + (size_t) d * d + p * p * p + p * p + 2 * p,
			   sizeof(double));
	if (m == NULL)
		return DPB_ENOMEM;
	x->p = (int) p;
	x->d = d;
	x->eta2 = m;
	x->eta4 = x->eta2 + p * p;
	x->mu = x->eta4 + p * p * p * p;
	x->Sigma = x->mu + d;
	x->c3 = x->Sigma + (size_t) d * d;
	x->c2 = x->c3 + p * p * p;
	x->c1 = x->c2 + p * p;
	x->s1 = x->c1 + p;
	return DPB_OK;
}

void
dpb_xmom_free(dpb_xmom *x)
{
	free(x->eta2);
	memset(x, 0, sizeof(*x));
}

/* ---- moments of z as dense symmetric tensors, then of w ---- */

typedef struct zmom
{
	int			d;
	double	   *m1,
			   *m2,
			   *m3,
			   *m4;				/* d, d^2, d^3, d^4 */
} zmom;

/* stores v at every permutation of the g feature indices f[] */
static void
put_sym(zmom *Z, const int *f, int g, double v)
{
	int			d = Z->d,
				a,
				b,
				c,
				e;

	switch (g)
	{
		case 1:
			Z->m1[f[0]] = v;
			break;
		case 2:
			Z->m2[f[0] * d + f[1]] = Z->m2[f[1] * d + f[0]] = v;
			break;
		case 3:
			for (a = 0; a < 3; a++)
				for (b = 0; b < 3; b++)
					if (b != a)
						Z->m3[(f[a] * d + f[b]) * d + f[3 - a - b]] = v;
			break;
		case 4:
			for (a = 0; a < 4; a++)
				for (b = 0; b < 4; b++)
					for (c = 0; c < 4; c++)
					{
						if (b == a || c == a || c == b)
							continue;
						e = 6 - a - b - c;
						Z->m4[((f[a] * d + f[b]) * d + f[c]) * d + f[e]] = v;
					}
			break;
	}
}

/* E[w_idx[0] ... w_idx[n-1]] from the z moments (w_0 = 1 with ic) */
static double
w_moment(const zmom *Z, int ic, const int *idx, int n)
{
	int			f[4],
				g = 0,
				t,
				d = Z->d;

	for (t = 0; t < n; t++)
		if (idx[t] >= ic)
			f[g++] = idx[t] - ic;
	switch (g)
	{
		case 0:
			return 1.0;
		case 1:
			return Z->m1[f[0]];
		case 2:
			return Z->m2[f[0] * d + f[1]];
		case 3:
			return Z->m3[(f[0] * d + f[1]) * d + f[2]];
		default:
			return Z->m4[((f[0] * d + f[1]) * d + f[2]) * d + f[3]];
	}
}

/* eta2 and eta4 of w from the z moments */
static void
fill_eta(dpb_xmom *x, const zmom *Z, int ic)
{
	int			p = x->p,
				idx[4];

	for (idx[0] = 0; idx[0] < p; idx[0]++)
		for (idx[1] = 0; idx[1] < p; idx[1]++)
		{
			x->eta2[idx[0] * p + idx[1]] = w_moment(Z, ic, idx, 2);
			for (idx[2] = 0; idx[2] < p; idx[2]++)
				for (idx[3] = 0; idx[3] < p; idx[3]++)
					x->eta4[((idx[0] * p + idx[1]) * p + idx[2]) * p + idx[3]] =
						w_moment(Z, ic, idx, 4);
		}
}

/* mean and PSD-projected covariance of z implied by eta2 */
static dpb_status
fill_mean_cov(dpb_xmom *x, int ic)
{
	int			d = x->d,
				p = x->p,
				i,
				j,
				changed;

	for (i = 0; i < d; i++)
		x->mu[i] = ic ? x->eta2[i + 1] : 0.0;
	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++)
			x->Sigma[i * d + j] = x->eta2[(i + ic) * p + j + ic] - x->mu[i] * x->mu[j];
	return dpb_psd_project(x->Sigma, d, 0.0, &changed);
}

dpb_status
dpb_xmom_from_release(const dpb_release *r, double N, dpb_xmom *x, dpb_err *err)
{
	dpb_layout	L;
	zmom		Z;
	double	   *buf;
	int			d = r->d,
				ic,
				k;
	dpb_status	st;

	if (dpb_release_layout(r, &L) != DPB_OK || !L.xmoments)
	{
		dpb_err_set(err, "the release holds no moments of the features",
					"Make the release with x_moments => a share of the budget in dpbayes.privacy(...).");
		return DPB_EINVAL;
	}
	if (!(N > 0))
	{
		dpb_err_set(err, "the release has no records",
					"Moments of the features need N > 0.");
		return DPB_EINVAL;
	}
	ic = L.intercept;
	if ((st = dpb_xmom_alloc(x, d, ic)) != DPB_OK)
	{
		dpb_err_set(err, "out of memory", NULL);
		return st;
	}
	buf = calloc((size_t) d + (size_t) d * d + (size_t) d * d * d + (size_t) d * d * d * d,
				 sizeof(double));
	if (buf == NULL)
	{
		dpb_xmom_free(x);
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	Z.d = d;
	Z.m1 = buf;
	Z.m2 = Z.m1 + d;
	Z.m3 = Z.m2 + (size_t) d * d;
	Z.m4 = Z.m3 + (size_t) d * d * d;
	for (k = 0; k < L.nstats; k++)
	{
		dpb_entry	e;
		dpb_block_kind kind;
		int			f[4],
					w[4],
					g = 0,
					t;

		dpb_layout_entry(&L, k, &e);
		kind = L.kind[e.block];
		if (kind != DPB_BLK_T2 && kind != DPB_BLK_X3 && kind != DPB_BLK_X4)
			continue;
		w[0] = e.i;
		w[1] = e.j;
		w[2] = e.k;
		w[3] = e.l;
		for (t = 0; t < 4; t++)
			if (w[t] >= ic)
				f[g++] = w[t] - ic;
		put_sym(&Z, f, g, r->stats[k] / N);
	}
	fill_eta(x, &Z, ic);
	x->N = N;
	free(buf);
	if ((st = fill_mean_cov(x, ic)) != DPB_OK)
	{
		dpb_xmom_free(x);
		dpb_err_set(err, "could not decompose the moments of the features", NULL);
		return st;
	}
	return DPB_OK;
}

void
dpb_xmom_set_n(dpb_xmom *x, int intercept, double N, int moments)
{
	size_t		p = x->p,
				k;
	double		f = x->N / N;

	if (!(N > 0) || N == x->N)
		return;
	for (k = 0; k < p * p; k++)
		x->eta2[k] *= f;
	for (k = 0; k < p * p * p * p; k++)
		x->eta4[k] *= f;
	if (intercept)
		x->eta2[0] = x->eta4[0] = 1.0;	/* E[1] */
	x->N = N;
	if (moments)
		fill_mean_cov(x, intercept ? 1 : 0);
}

void
dpb_xmom_gaussian(dpb_xmom *x, int intercept, const double *mu,
				  const double *Sigma)
{
	int			p = x->p,
				d = x->d,
				ic = intercept ? 1 : 0,
				a,
				b,
				c,
				e;
	double		mw[DPB_MAX_D + 1];
	double	   *C = calloc((size_t) p * p, sizeof(double));

	if (C == NULL)
		return;
	if (ic)
		mw[0] = 1.0;
	for (a = 0; a < d; a++)
	{
		mw[a + ic] = mu[a];
		for (b = 0; b < d; b++)
			C[(a + ic) * p + b + ic] = Sigma[a * d + b];
	}
#define CW(i, j) C[(i) * p + (j)]
	for (a = 0; a < p; a++)
		for (b = 0; b < p; b++)
		{
			x->eta2[a * p + b] = CW(a, b) + mw[a] * mw[b];
			for (c = 0; c < p; c++)
				for (e = 0; e < p; e++)
					x->eta4[((a * p + b) * p + c) * p + e] =
						mw[a] * mw[b] * mw[c] * mw[e]
						+ CW(a, b) * mw[c] * mw[e] + CW(a, c) * mw[b] * mw[e]
						+ CW(a, e) * mw[b] * mw[c] + CW(b, c) * mw[a] * mw[e]
						+ CW(b, e) * mw[a] * mw[c] + CW(c, e) * mw[a] * mw[b]
						+ CW(a, b) * CW(c, e) + CW(a, c) * CW(b, e) + CW(a, e) * CW(b, c);
		}
#undef CW
	free(C);
	fill_mean_cov(x, ic);
}

/* ---- the statistic moments ---- */

/* model statistics of a linear release with DPB_MAX_D_XMOM features */
#define XM_MAX_STATS ((DPB_MAX_D_XMOM + 1) * (DPB_MAX_D_XMOM + 2) / 2 + DPB_MAX_D_XMOM + 2)

typedef struct contr
{
	const dpb_xmom *x;
	double		sigma2,
				c0,
				s0;
} contr;

/* E[v_a v_b v_c v_e], v = [w, y] */
static double
e4(const contr *K, const int *idx)
{
	const dpb_xmom *x = K->x;
	int			p = x->p,
				w[4],
				nw = 0,
				ny = 0,
				t;
	double		s2 = K->sigma2;

	for (t = 0; t < 4; t++)
		if (idx[t] == p)
			ny++;
		else
			w[nw++] = idx[t];
	switch (ny)
	{
		case 0:
			return x->eta4[((w[0] * p + w[1]) * p + w[2]) * p + w[3]];
		case 1:
			return x->c3[(w[0] * p + w[1]) * p + w[2]];
		case 2:
			return x->c2[w[0] * p + w[1]] + s2 * x->eta2[w[0] * p + w[1]];
		case 3:
			return x->c1[w[0]] + 3.0 * s2 * x->s1[w[0]];
		default:
			return K->c0 + 6.0 * s2 * K->s0 + 3.0 * s2 * s2;
	}
}

/* E[v_a v_b] */
static double
e2(const contr *K, int a, int b)
{
	const dpb_xmom *x = K->x;
	int			p = x->p;

	if (a == p && b == p)
		return K->s0 + K->sigma2;
	if (a == p)
		return x->s1[b];
	if (b == p)
		return x->s1[a];
	return x->eta2[a * p + b];
}

void
dpb_xmom_stat_moments(const dpb_layout *L, dpb_xmom *x, const double *theta,
					  double sigma2, double *m, double *V)
{
	int			p = x->p,
				n = L->nmodel,
				k,
				l;
	int			ia[XM_MAX_STATS],
				ib[XM_MAX_STATS];
	contr		K;

	if (n > XM_MAX_STATS)
		return;					/* not a layout with x_moments */
	/* contractions of eta4 and eta2 with theta (y = theta^T w + e) */
	cblas_dgemv(CblasRowMajor, CblasNoTrans, p * p * p, p, 1.0, x->eta4, p,
				theta, 1, 0.0, x->c3, 1);
	cblas_dgemv(CblasRowMajor, CblasNoTrans, p * p, p, 1.0, x->c3, p,
				theta, 1, 0.0, x->c2, 1);
	cblas_dgemv(CblasRowMajor, CblasNoTrans, p, p, 1.0, x->c2, p,
				theta, 1, 0.0, x->c1, 1);
	cblas_dgemv(CblasRowMajor, CblasNoTrans, p, p, 1.0, x->eta2, p,
				theta, 1, 0.0, x->s1, 1);
	K.x = x;
	K.sigma2 = sigma2;
	K.c0 = cblas_ddot(p, x->c1, 1, theta, 1);
	K.s0 = cblas_ddot(p, x->s1, 1, theta, 1);

	for (k = 0; k < n; k++)
	{
		dpb_layout_linear_factors(L, k, &ia[k], &ib[k]);
		m[k] = e2(&K, ia[k], ib[k]);
	}
	for (k = 0; k < n; k++)
		for (l = 0; l <= k; l++)
		{
			int			idx[4] = {ia[k], ib[k], ia[l], ib[l]};

			V[k * n + l] = V[l * n + k] = e4(&K, idx) - m[k] * m[l];
		}
}
