/*
 * accum.c — sums of the released monomials (the hot loop of the release
 * aggregates).  The order of entries is the one documented in layout.h.
 */
#include "accum.h"

#include <string.h>

/* upper triangle of w w^T, scaled by f, optionally skipping (0, 0) */
static inline double *
add_t2(double *o, const double *w, int p, double f, int skip00)
{
	int			i,
				j;

	for (i = 0; i < p; i++)
	{
		double		wi = f * w[i];

		for (j = (i == 0 && skip00) ? 1 : i; j < p; j++)
			*o++ += wi * w[j];
	}
	return o;
}

/* the X3 / X4 monomials of z, in the layout's lexicographic order */
static void
add_xmoments(double *o, const double *z, int d, int deg)
{
	int			a,
				b,
				c,
				e;

	for (a = 0; a < d; a++)
		for (b = a; b < d; b++)
		{
			double		zab = z[a] * z[b];

			for (c = b; c < d; c++)
			{
				double		zabc = zab * z[c];

				if (deg == 3)
					*o++ += zabc;
				else
					for (e = c; e < d; e++)
						*o++ += zabc * z[e];
			}
		}
}

void
dpb_accum_add(const dpb_layout *L, const double *z, double y, double *sums)
{
	double		w[DPB_MAX_D + 1];
	int			p = L->p,
				ic = L->intercept,
				b,
				i;

	if (ic)
		w[0] = 1.0;
	memcpy(w + ic, z, sizeof(double) * L->d);
	for (b = 0; b < L->nblocks; b++)
	{
		double	   *o = sums + L->start[b];

		switch (L->kind[b])
		{
			case DPB_BLK_T1:
				for (i = 0; i < p; i++)
					o[i] += w[i];
				break;
			case DPB_BLK_T2:
				add_t2(o, w, p, 1.0, ic);
				break;
			case DPB_BLK_YT1:
				for (i = 0; i < p; i++)
					o[i] += y * w[i];
				break;
			case DPB_BLK_YY:
				o[0] += y * y;
				break;
			case DPB_BLK_YT2:
				add_t2(o, w, p, y, 0);
				break;
			case DPB_BLK_X3:
				add_xmoments(o, z, L->d, 3);
				break;
			case DPB_BLK_X4:
				add_xmoments(o, z, L->d, 4);
				break;
			case DPB_BLK_COUNT:
				o[0] += 1.0;
				break;
			case DPB_BLK_YCLAMP:
				/* an indicator of the raw response, which (z, y) no longer
				 * holds: the caller counts it (dpb_acc_add_yclamped) */
				break;
		}
	}
}

void
dpb_accum_record(const dpb_layout *L, const double *z, double y, double *out)
{
	memset(out, 0, sizeof(double) * L->nstats);
	dpb_accum_add(L, z, y, out);
}

/* ---- exact fixed-point accumulation (accum.h) ---- */

#include <math.h>
#include <stdlib.h>

/* length of u: [1, z, y], plus the products z_a z_b (a <= b) for the
 * moments */
static size_t
acc_q(int d, int xmom)
{
	return (size_t) d + 2 + (xmom ? (size_t) d * (d + 1) / 2 : 0);
}

size_t
dpb_acc_total_bytes(int d, int poisson, int xmom)
{
	size_t		q = acc_q(d, xmom),
				h = (size_t) d + 1;

	/* G, H (poisson), the clamped-response count */
	return sizeof(dpb_i128) * (q * q + (poisson ? h * h : 0) + 1);
}

size_t
dpb_acc_size(int d, int poisson, int xmom)
{
	size_t		q = acc_q(d, xmom),
				h = (size_t) d + 1;

	return dpb_acc_total_bytes(d, poisson, xmom) +
		sizeof(int64_t) * (q * q + q + h);
}

/* the smallest k with x <= 2^k, for x > 0 finite */
static int
ceil_log2(double x)
{
	int			e;
	double		f = frexp(x, &e);	/* x = f 2^e, f in [0.5, 1) */

	return f == 0.5 ? e - 1 : e;
}

/* floor(x 2^k) as an integer, for 0 <= x 2^k < 2^62 */
static int64_t
floor_scaled(double x, int k)
{
	return (int64_t) floor(ldexp(x, k));
}

void
dpb_acc_init(dpb_acc *acc, void *mem, const dpb_acc_bounds *b)
{
	int			d = b->d,
				poisson = b->model == DPB_MODEL_POISSON,
				xmom = b->xmom ? 1 : 0,
				bits = xmom ? 22 : poisson ? 20 : 26;
	size_t		q = acc_q(d, xmom),
				h = (size_t) d + 1;
	char	   *m = mem;

	/* 16-byte aligned: the totals are 128-bit integers */
	memset(mem, 0, dpb_acc_size(d, poisson, xmom));
	acc->d = d;
	acc->q = (int) q;
	acc->xmom = xmom;
	acc->poisson = poisson;
	acc->nb = 0;
	/* R 2^kz <= 2^bits; B <= R */
	acc->kz = bits - ceil_log2(b->R);
	acc->rq = floor_scaled(b->R, acc->kz);
	acc->bq = floor_scaled(b->B < b->R ? b->B : b->R, acc->kz);
	if (b->model == DPB_MODEL_LOGISTIC)
	{
		acc->ky = 0;			/* y = +-1 exactly */
		acc->ylo = -1;
		acc->yhi = 1;
	}
	else
	{
		acc->ky = bits - ceil_log2(b->Ry);
		acc->yhi = floor_scaled(b->Ry, acc->ky);
		acc->ylo = poisson ? 0 : -acc->yhi;
	}
	acc->gz = ldexp(1.0, acc->kz);
	acc->gy = ldexp(1.0, acc->ky);
	acc->G = (dpb_i128 *) m;
	m += sizeof(dpb_i128) * q * q;
	acc->H = poisson ? (dpb_i128 *) m : NULL;
	if (poisson)
		m += sizeof(dpb_i128) * h * h;
	acc->yc = (dpb_i128 *) m;
	m += sizeof(dpb_i128);
	acc->Gc = (int64_t *) m;
	m += sizeof(int64_t) * q * q;
	acc->u = (int64_t *) m;
	m += sizeof(int64_t) * q;
	acc->v = (int64_t *) m;
}

/*
 * x rounded to the nearest integer (ties to even), for |x| < 2^51: adding
 * and subtracting 1.5 * 2^52 leaves no fraction bits (IEEE default rounding;
 * the volatile keeps the compiler from folding it).  NaN never reaches here
 * (clipping rejects it); out-of-range values are clamped by the caller's
 * bounds first.
 */
static inline int64_t
round_int(double x)
{
	volatile double t = x + 6755399441055744.0;

	return (int64_t) (t - 6755399441055744.0);
}

/* x 2^k rounded, clamped to [lo, hi] (|lo|, |hi| < 2^51) */
static inline int64_t
quantise(double x, double scale, int64_t lo, int64_t hi)
{
	double		v = x * scale;	/* exact: scale is a power of two */

	if (v <= (double) lo)
		return lo;
	if (v >= (double) hi)
		return hi;
	return round_int(v);
}

void
dpb_acc_quantise(dpb_acc *acc, const double *z, double y)
{
	int64_t    *u = acc->u,
				ss = 0;
	int			d = acc->d,
				j;

	u[0] = 1;
	for (j = 0; j < d; j++)
	{
		int64_t		n = quantise(z[j], acc->gz, -acc->bq, acc->bq);

		u[1 + j] = n;
		ss += n * n;			/* <= 64 * 2^52 */
	}
	/*
	 * Rounding may have left the ball by up to sqrt(d) / 2 units (a record
	 * clipped by the caller is on its boundary up to rounding): scale down,
	 * truncating towards zero, then shrink the largest coordinate one unit
	 * at a time until the exact integer test holds.
	 */
	if (ss > acc->rq * acc->rq)
	{
		double		f = (double) acc->rq / sqrt((double) ss);

		ss = 0;
		for (j = 0; j < d; j++)
		{
			u[1 + j] = (int64_t) ((double) u[1 + j] * f);
			ss += u[1 + j] * u[1 + j];
		}
	}
	while (ss > acc->rq * acc->rq)
	{
		int			jm = 0;
		int64_t		n;

		for (j = 1; j < d; j++)
			if (llabs(u[1 + j]) > llabs(u[1 + jm]))
				jm = j;
		n = u[1 + jm];
		ss -= 2 * llabs(n) - 1;
		u[1 + jm] = n > 0 ? n - 1 : n + 1;
	}
	if (acc->ky == 0 && acc->ylo == -1)
		u[d + 1] = y > 0 ? 1 : -1;
	else
		u[d + 1] = quantise(y, acc->gy, acc->ylo, acc->yhi);
	if (acc->xmom)
	{
		int64_t    *o = u + d + 2;
		int			a,
					b;

		for (a = 0; a < d; a++)
			for (b = a; b < d; b++)
				*o++ = u[1 + a] * u[1 + b];
	}
	if (acc->poisson)
		for (j = 0; j <= d; j++)
			acc->v[j] = u[d + 1] * u[j];
}

void
dpb_acc_add(dpb_acc *acc, const double *z, double y)
{
	const int64_t *u = acc->u;
	int			q = acc->q,
				i,
				j;

	dpb_acc_quantise(acc, z, y);
	if (!acc->xmom)
	{
		/* monomials of degree 2, below 2^52: 64-bit chunk sums */
		for (i = 0; i < q; i++)
		{
			int64_t		ui = u[i],
					   *row = acc->Gc + (size_t) i * q;

			for (j = i; j < q; j++)
				row[j] += ui * u[j];
		}
		if (++acc->nb == DPB_ACC_CHUNK)
			dpb_acc_flush(acc);
	}
	else
	{
		/* with the products z_a z_b (< 2^44) in u: degree up to 4, below
		 * 2^88, straight into the 128-bit totals */
		for (i = 0; i < q; i++)
		{
			dpb_i128	ui = u[i],
					   *row = acc->G + (size_t) i * q;

			for (j = i; j < q; j++)
				row[j] += ui * u[j];
		}
	}
	if (acc->poisson)
	{
		int			h = acc->d + 1;

		/* y w_i w_j below 2^60, straight into the 128-bit totals */
		for (i = 0; i < h; i++)
		{
			int64_t		vi = acc->v[i];
			dpb_i128   *row = acc->H + (size_t) i * h;

			for (j = i; j < h; j++)
				row[j] += vi * u[j];
		}
	}
}

void
dpb_acc_flush(dpb_acc *acc)
{
	size_t		k,
				n = (size_t) acc->q * acc->q;

	if (acc->nb == 0)
		return;
	for (k = 0; k < n; k++)
	{
		acc->G[k] += acc->Gc[k];
		acc->Gc[k] = 0;
	}
	acc->nb = 0;
}

void
dpb_acc_merge(dpb_acc *a, dpb_acc *b)
{
	size_t		k,
				n = (size_t) a->q * a->q;

	dpb_acc_flush(a);
	dpb_acc_flush(b);
	for (k = 0; k < n; k++)
		a->G[k] += b->G[k];
	if (a->poisson)
	{
		n = (size_t) (a->d + 1) * (a->d + 1);
		for (k = 0; k < n; k++)
			a->H[k] += b->H[k];
	}
	*a->yc += *b->yc;
}

void
dpb_acc_add_yclamped(dpb_acc *acc)
{
	(*acc->yc)++;
}

/* entry (a, b) of a symmetric matrix kept in its upper triangle */
static inline dpb_i128
upper(const dpb_i128 *M, int n, int a, int b)
{
	return a <= b ? M[a * n + b] : M[b * n + a];
}

/* u index of the product z_a z_b (feature indices a <= b) */
static inline int
prod_index(int d, int a, int b)
{
	return d + 2 + a * d - a * (a - 1) / 2 + (b - a);
}

/* the exponent of u entry a */
static inline int
u_exp(const dpb_acc *acc, int a)
{
	if (a == 0)
		return 0;
	if (a <= acc->d)
		return acc->kz;
	if (a == acc->d + 1)
		return acc->ky;
	return 2 * acc->kz;
}

void
dpb_acc_fixed(dpb_acc *acc, const dpb_layout *L, dpb_i128 *I, int *e)
{
	int			q = acc->q,
				h = acc->d + 1,
				d = acc->d,
				k,
				a = 0,
				b = 0,
				ic = L->intercept,
				off = L->intercept ? 0 : 1;	/* w index -> u index */
	dpb_entry	en;

	dpb_acc_flush(acc);
	for (k = 0; k < L->nstats; k++)
	{
		int			hmat = 0;

		dpb_layout_entry(L, k, &en);
		switch (L->kind[en.block])
		{
			case DPB_BLK_T1:
				a = 0, b = en.i + off;
				break;
			case DPB_BLK_T2:
				a = en.i + off, b = en.j + off;
				break;
			case DPB_BLK_YT1:
				a = en.i + off, b = d + 1;
				break;
			case DPB_BLK_YY:
				a = b = d + 1;
				break;
			case DPB_BLK_YT2:
				hmat = 1, a = en.i + off, b = en.j + off;
				break;
			case DPB_BLK_X3:
				/* z_a * (z_b z_c); w index - ic = feature index */
				a = 1 + en.i - ic, b = prod_index(d, en.j - ic, en.k - ic);
				break;
			case DPB_BLK_X4:
				a = prod_index(d, en.i - ic, en.j - ic);
				b = prod_index(d, en.k - ic, en.l - ic);
				break;
			case DPB_BLK_COUNT:
				/* the number of records: the sum of u_0 u_0 = 1 */
				a = b = 0;
				break;
			case DPB_BLK_YCLAMP:
				hmat = -1;		/* not a sum of monomials of u */
				break;
		}
		if (hmat < 0)
		{
			I[k] = *acc->yc;
			e[k] = 0;
		}
		else if (hmat)
		{
			I[k] = upper(acc->H, h, a, b);
			e[k] = acc->ky + u_exp(acc, a) + u_exp(acc, b);
		}
		else
		{
			I[k] = upper(acc->G, q, a, b);
			e[k] = u_exp(acc, a) + u_exp(acc, b);
		}
	}
}

int
dpb_acc_stats(dpb_acc *acc, const dpb_layout *L, double *stats)
{
	dpb_i128   *I = malloc(sizeof(dpb_i128) * (L->nstats > 0 ? L->nstats : 1));
	int		   *e = malloc(sizeof(int) * (L->nstats > 0 ? L->nstats : 1));
	int			k;

	if (I == NULL || e == NULL)
	{
		free(I);
		free(e);
		return 0;
	}
	dpb_acc_fixed(acc, L, I, e);
	for (k = 0; k < L->nstats; k++)
		stats[k] = ldexp((double) I[k], -e[k]);
	free(I);
	free(e);
	return 1;
}
