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
