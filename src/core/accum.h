/*
 * accum.h — accumulation of the released statistics of clipped records.
 */
#ifndef DPB_ACCUM_H
#define DPB_ACCUM_H

#include "layout.h"

/* Adds the (unweighted) monomials of the clipped record (z, y) to
 * sums[0 .. L->nstats-1]. */
void		dpb_accum_add(const dpb_layout *L, const double *z, double y,
						  double *sums);

/* The monomials of one record, written to out[0 .. L->nstats-1]. */
void		dpb_accum_record(const dpb_layout *L, const double *z, double y,
							 double *out);

#endif

/*
 * Batched accumulation (the aggregates' hot path).  Each clipped record
 * contributes u = [1, z, y] to G = sum u u^T and, for Poisson, the
 * y-weighted sqrt(y) [1, z] to H = sum y [1, z][1, z]^T; with x_moments
 * (xmom) u also holds the products z_a z_b (a <= b), so that G holds every
 * monomial of degree <= 4 in z that the X3 / X4 blocks need; records are
 * buffered and added DPB_ACC_BATCH at a time with a BLAS rank-k update
 * (dsyrk).  Every released statistic is an entry of G or H
 * (dpb_acc_stats).  The memory is one caller-allocated block of
 * dpb_acc_size() bytes, so that the aggregate can keep it in its memory
 * context and serialize G and H directly.
 */
#define DPB_ACC_BATCH 128

typedef struct dpb_acc
{
	int			d;
	int			q;				/* d + 2, plus d (d + 1) / 2 with xmom */
	int			poisson;		/* H is kept */
	int			xmom;			/* u holds the products for x_moments */
	int			nb;				/* records in the batch */
	double	   *G;				/* q x q (upper triangle used) */
	double	   *H;				/* (d+1) x (d+1), poisson only */
	double	   *U;				/* batch rows of u */
	double	   *V;				/* batch rows of sqrt(y) [1, z] */
} dpb_acc;

size_t		dpb_acc_size(int d, int poisson, int xmom);

/* Sets up acc in mem (dpb_acc_size(d, poisson, xmom) bytes, 8-byte
 * aligned) with G = H = 0. */
void		dpb_acc_init(dpb_acc *acc, void *mem, int d, int poisson, int xmom);

/* Re-points acc at mem after the block was copied elsewhere. */
void		dpb_acc_attach(dpb_acc *acc, void *mem, int d, int poisson, int xmom);

/* Fills the products z_a z_b of a row u whose [1, z, y] part is set. */
void		dpb_acc_add_products(dpb_acc *acc, double *u);

static inline void
dpb_acc_add(dpb_acc *acc, const double *z, double y)
{
	extern void dpb_acc_flush(dpb_acc *acc);
	double	   *u = acc->U + (size_t) acc->nb * acc->q;
	int			j;

	u[0] = 1.0;
	for (j = 0; j < acc->d; j++)
		u[1 + j] = z[j];
	u[acc->d + 1] = y;
	if (acc->xmom)
		dpb_acc_add_products(acc, u);
	if (acc->poisson)
	{
		double	   *v = acc->V + (size_t) acc->nb * (acc->d + 1);
		double		sy = __builtin_sqrt(y);	/* y >= 0 for Poisson */

		for (j = 0; j < acc->d + 1; j++)
			v[j] = sy * u[j];
	}
	if (++acc->nb == DPB_ACC_BATCH)
		dpb_acc_flush(acc);
}

/* Adds the buffered records to G (and H). */
void		dpb_acc_flush(dpb_acc *acc);

/* The statistics of layout L from a flushed accumulator. */
void		dpb_acc_stats(const dpb_acc *acc, const dpb_layout *L, double *stats);

/* a += b (both are flushed first). */
void		dpb_acc_merge(dpb_acc *a, dpb_acc *b);

/* Number of doubles of G and H (what serialization must keep). */
size_t		dpb_acc_ndoubles(int d, int poisson, int xmom);
