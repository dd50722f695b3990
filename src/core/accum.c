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

size_t
dpb_acc_ndoubles(int d, int poisson)
{
	size_t		q = (size_t) d + 2;

	return q * q + (poisson ? (q - 1) * (q - 1) : 0);
}

size_t
dpb_acc_size(int d, int poisson)
{
	size_t		q = (size_t) d + 2;

	return sizeof(double) * (dpb_acc_ndoubles(d, poisson) +
							 DPB_ACC_BATCH * (q + (poisson ? q - 1 : 0)));
}

void
dpb_acc_attach(dpb_acc *acc, void *mem, int d, int poisson)
{
	int			q = d + 2;
	double	   *m = mem;

	acc->d = d;
	acc->q = q;
	acc->poisson = poisson ? 1 : 0;
	acc->G = m;
	m += q * q;
	acc->H = poisson ? m : NULL;
	if (poisson)
		m += (q - 1) * (q - 1);
	acc->U = m;
	m += DPB_ACC_BATCH * q;
	acc->V = poisson ? m : NULL;
}

void
dpb_acc_init(dpb_acc *acc, void *mem, int d, int poisson)
{
	memset(mem, 0, dpb_acc_size(d, poisson));
	dpb_acc_attach(acc, mem, d, poisson);
	acc->nb = 0;
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
		cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, acc->q - 1, acc->nb,
					1.0, acc->V, acc->q - 1, 1.0, acc->H, acc->q - 1);
	acc->nb = 0;
}

void
dpb_acc_merge(dpb_acc *a, dpb_acc *b)
{
	size_t		k,
				n = dpb_acc_ndoubles(a->d, a->poisson);

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

void
dpb_acc_stats(const dpb_acc *acc, const dpb_layout *L, double *stats)
{
	int			q = acc->q,
				k,
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
				stats[k] = upper(acc->G, q, e.i + off, q - 1);
				break;
			case DPB_BLK_YY:
				stats[k] = upper(acc->G, q, q - 1, q - 1);
				break;
			case DPB_BLK_YT2:
				stats[k] = upper(acc->H, q - 1, e.i + off, e.j + off);
				break;
		}
	}
}
