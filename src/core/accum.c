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
		}
	}
}

void
dpb_accum_record(const dpb_layout *L, const double *z, double y, double *out)
{
	memset(out, 0, sizeof(double) * L->nstats);
	dpb_accum_add(L, z, y, out);
}

/* ---- batched accumulation ---- */

#include <cblas.h>

/* length of u: [1, z, y], plus the products z_a z_b (a <= b) for the
 * moments */
static size_t
acc_q(int d, int xmom)
{
	return (size_t) d + 2 + (xmom ? (size_t) d * (d + 1) / 2 : 0);
}

size_t
dpb_acc_ndoubles(int d, int poisson, int xmom)
{
	size_t		q = acc_q(d, xmom),
				h = (size_t) d + 1;

	return q * q + (poisson ? h * h : 0);
}

size_t
dpb_acc_size(int d, int poisson, int xmom)
{
	size_t		q = acc_q(d, xmom),
				h = (size_t) d + 1;

	return sizeof(double) * (dpb_acc_ndoubles(d, poisson, xmom) +
							 DPB_ACC_BATCH * (q + (poisson ? h : 0)));
}

void
dpb_acc_attach(dpb_acc *acc, void *mem, int d, int poisson, int xmom)
{
	int			q = (int) acc_q(d, xmom),
				h = d + 1;
	double	   *m = mem;

	acc->d = d;
	acc->q = q;
	acc->xmom = xmom ? 1 : 0;
	acc->poisson = poisson ? 1 : 0;
	acc->G = m;
	m += q * q;
	acc->H = poisson ? m : NULL;
	if (poisson)
		m += h * h;
	acc->U = m;
	m += DPB_ACC_BATCH * q;
	acc->V = poisson ? m : NULL;
}

void
dpb_acc_init(dpb_acc *acc, void *mem, int d, int poisson, int xmom)
{
	memset(mem, 0, dpb_acc_size(d, poisson, xmom));
	dpb_acc_attach(acc, mem, d, poisson, xmom);
	acc->nb = 0;
}

void
dpb_acc_add_products(dpb_acc *acc, double *u)
{
	const double *z = u + 1;
	double	   *o = u + acc->d + 2;
	int			a,
				b;

	for (a = 0; a < acc->d; a++)
		for (b = a; b < acc->d; b++)
			*o++ = z[a] * z[b];
}

void
dpb_acc_flush(dpb_acc *acc)
{
	if (acc->nb == 0)
		return;
	/* G += U^T U over the batch (upper triangle, row-major) */
	cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, acc->q, acc->nb,
				1.0, acc->U, acc->q, 1.0, acc->G, acc->q);
	if (acc->poisson)
		cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, acc->d + 1, acc->nb,
					1.0, acc->V, acc->d + 1, 1.0, acc->H, acc->d + 1);
	acc->nb = 0;
}

void
dpb_acc_merge(dpb_acc *a, dpb_acc *b)
{
	size_t		k,
				n = dpb_acc_ndoubles(a->d, a->poisson, a->xmom);

	dpb_acc_flush(a);
	dpb_acc_flush(b);
	/* G and H are contiguous at the start of the block */
	for (k = 0; k < n; k++)
		a->G[k] += b->G[k];
}

/* entry (a, b) of a symmetric matrix kept in its upper triangle */
static inline double
upper(const double *M, int n, int a, int b)
{
	return a <= b ? M[a * n + b] : M[b * n + a];
}

/* u index of the product z_a z_b (feature indices a <= b) */
static inline int
prod_index(int d, int a, int b)
{
	return d + 2 + a * d - a * (a - 1) / 2 + (b - a);
}

void
dpb_acc_stats(const dpb_acc *acc, const dpb_layout *L, double *stats)
{
	int			q = acc->q,
				h = acc->d + 1,
				d = acc->d,
				k,
				ic = L->intercept,
				off = L->intercept ? 0 : 1;	/* w index -> u index */
	dpb_entry	e;

	for (k = 0; k < L->nstats; k++)
	{
		dpb_layout_entry(L, k, &e);
		switch (L->kind[e.block])
		{
			case DPB_BLK_T1:
				stats[k] = upper(acc->G, q, 0, e.i + off);
				break;
			case DPB_BLK_T2:
				stats[k] = upper(acc->G, q, e.i + off, e.j + off);
				break;
			case DPB_BLK_YT1:
				stats[k] = upper(acc->G, q, e.i + off, d + 1);
				break;
			case DPB_BLK_YY:
				stats[k] = upper(acc->G, q, d + 1, d + 1);
				break;
			case DPB_BLK_YT2:
				stats[k] = upper(acc->H, h, e.i + off, e.j + off);
				break;
			case DPB_BLK_X3:
				/* z_a * (z_b z_c); w index - ic = feature index */
				stats[k] = upper(acc->G, q, 1 + e.i - ic,
								 prod_index(d, e.j - ic, e.k - ic));
				break;
			case DPB_BLK_X4:
				stats[k] = upper(acc->G, q, prod_index(d, e.i - ic, e.j - ic),
								 prod_index(d, e.k - ic, e.l - ic));
				break;
			case DPB_BLK_COUNT:
				/* the number of records: sum of u_0 u_0 = 1 */
				stats[k] = upper(acc->G, q, 0, 0);
				break;
		}
	}
}
