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


/*
 * Exact fixed-point accumulation (the aggregates' hot path).
 *
 * Every clipped record is first QUANTISED onto a public power-of-two grid:
 * z_j = nz_j 2^-kz, y = ny 2^-ky with integers nz_j, ny, rounded to nearest
 * and then forced back into the clipped domain in exact integer arithmetic
 * (|nz_j| <= floor(B 2^kz), sum_j nz_j^2 <= floor(R 2^kz)^2, |ny| <=
 * floor(Ry 2^ky)).  The quantised record is therefore itself a record of
 * the domain the sensitivities of sensitivity.h are derived for, and the
 * released function is exactly the sum over records of the monomials of
 * the quantised records: no floating-point error enters the sums, they do
 * not depend on the order of the rows (parallel releases are reproducible),
 * and the sensitivity proofs apply with no slack (docs/privacy.md §15).
 *
 * The record u = [1, nz, ny] (with x_moments also the products nz_a nz_b,
 * a <= b) is added to G = sum u u^T (upper triangle) and, for Poisson, v =
 * ny [1, nz] to H = sum v [1, nz]^T.  Bits per coordinate, and how:
 *     linear, logistic        26 bits; G's monomials (degree 2) are below
 *                             2^52 and summed as 64-bit integers in chunks
 *                             of DPB_ACC_CHUNK records (1024 * 2^52 < 2^63),
 *                             then carried into 128-bit totals
 *     Poisson                 20 bits; G as above, H's monomials y w_i w_j
 *                             (below 2^60) straight into 128-bit totals
 *     linear with x_moments   22 bits; G's monomials (degree <= 4, below
 *                             2^88) straight into 128-bit totals
 * (every total stays below 2^127 up to 2^38 records).  Rounding a
 * coordinate moves it by at most 2^-(bits+1) of the radius; at 26 bits the
 * sums of N records move by at most N R^2 2^-26 even when every record
 * rounds the same way (docs/privacy.md §15).  Logistic y = +-1 is exact
 * (ky = 0).  The entry (a, b) of G is G_ab 2^-(e_a + e_b), e = 0 for the
 * constant, kz for z, ky for y, 2 kz for the products.
 */
#define DPB_ACC_CHUNK 1024

#if !defined(__SIZEOF_INT128__)
#error "dpbayes needs a compiler with 128-bit integers (__int128; GCC or Clang on a 64-bit target): the exact sums of quantised statistics reach 2^127; 32-bit targets are not supported (docs/ldp-client.md, \"32-bit targets\")"
#endif
typedef __int128 dpb_i128;

typedef struct dpb_acc
{
	int			d;
	int			q;				/* d + 2, plus d (d + 1) / 2 with xmom */
	int			poisson;		/* H is kept */
	int			xmom;			/* u holds the products for x_moments */
	int			nb;				/* records in the current chunk */
	int			kz;				/* z_j = nz_j 2^-kz */
	int			ky;				/* y = ny 2^-ky */
	int64_t		rq;				/* floor(R 2^kz): the ball, exactly */
	int64_t		bq;				/* floor(B 2^kz): the coordinate bound */
	int64_t		ylo;			/* ny in [ylo, yhi] */
	int64_t		yhi;
	double		gz;				/* 2^kz */
	double		gy;				/* 2^ky */
	dpb_i128   *G;				/* q x q totals (upper triangle used) */
	dpb_i128   *H;				/* (d+1) x (d+1) totals, poisson only */
	dpb_i128   *yc;				/* the number of records whose response was
								 * clamped (dpb_acc_add_yclamped; the YCLAMP
								 * block, layout.h); one total after G and H */
	int64_t    *Gc;				/* the chunk's G (without x_moments) */
	int64_t    *u;				/* the current record, q entries */
	int64_t    *v;				/* ny [1, nz], d + 1 entries */
} dpb_acc;

/* The public bounds the accumulator quantises to. */
typedef struct dpb_acc_bounds
{
	dpb_model	model;
	int			d;
	int			xmom;
	double		R;				/* ||z|| <= R */
	double		B;				/* |z_j| <= B (B <= R) */
	double		Ry;				/* |y| <= Ry (linear), 0 <= y <= Ry (poisson) */
} dpb_acc_bounds;

size_t		dpb_acc_size(int d, int poisson, int xmom);

/* Sets up acc in mem (dpb_acc_size(d, poisson, xmom) bytes, 16-byte
 * aligned) with G = H = 0. */
void		dpb_acc_init(dpb_acc *acc, void *mem, const dpb_acc_bounds *b);

/* Adds one clipped record (||z|| <= R, |z_j| <= B, y in its range up to
 * rounding: the quantisation enforces the bounds exactly). */
void		dpb_acc_add(dpb_acc *acc, const double *z, double y);

/* Counts one record whose raw response was clamped (dpb_clip_y_clamped),
 * in addition to dpb_acc_add of the clamped record. */
void		dpb_acc_add_yclamped(dpb_acc *acc);

/* Carries the chunk into the totals. */
void		dpb_acc_flush(dpb_acc *acc);

/* The exact statistics of layout L: stats k = I[k] 2^-e[k]. */
void		dpb_acc_fixed(dpb_acc *acc, const dpb_layout *L, dpb_i128 *I, int *e);

/* The same as doubles (rounded; only for the non-private reference).
 * Returns 0 when out of memory. */
int			dpb_acc_stats(dpb_acc *acc, const dpb_layout *L, double *stats);

/* a += b (both are flushed first). */
void		dpb_acc_merge(dpb_acc *a, dpb_acc *b);

/* Bytes of the totals G, H and the clamped-response count (what
 * serialization must keep); they are contiguous at acc->G after a flush. */
size_t		dpb_acc_total_bytes(int d, int poisson, int xmom);

/* The quantisation of one record as dpb_acc_add does it: u (q entries)
 * and its exponents; for tests. */
void		dpb_acc_quantise(dpb_acc *acc, const double *z, double y);

#endif
