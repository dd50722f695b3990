/*
 * layout.h — which statistics a release holds, in which order.
 *
 * A record (x, y) is first clipped (clip.h) to z with ||z||_2 <= R.  The
 * released statistics are sums over records of monomials in w and y, where
 * w = [1, z] when the model has an intercept and w = z otherwise
 * (p = d + intercept entries).  They are grouped in blocks; each block gets
 * its own noise scale.  Entries of the "t2" kinds carry a weight sqrt(2) on
 * their off-diagonal monomials (see docs/privacy.md): the weighted block
 * satisfies ||t2(w) - t2(w')||^2 = ||w||^4 + ||w'||^4 - 2<w,w'>^2.
 * The released value of an entry is the plain (unweighted) sum; its noise
 * standard deviation is sigma_block / weight.
 *
 * Block kinds (i <= j index w; the constant monomial w_0 w_0 = 1 is dropped
 * from T2 when the model has an intercept: its sum is N, public under
 * replace neighbours and released as the COUNT block under add/remove):
 *   T1   w_i               (only Poisson without intercept)
 *   T2   w_i w_j           weight sqrt(2) when i < j
 *   YT1  y w_i
 *   YY   y^2
 *   YT2  y w_i w_j         weight sqrt(2) when i < j
 *
 * Blocks of each model, in release order:
 *   linear                 T2, YT1, YY        (LDP paper Lemma 3.1 order)
 *   logistic               YT1, T2            (GLM paper Lemma 3.3 order)
 *   poisson, intercept     T2, YT2            (T1 and YT1 are contained in
 *                                              T2 and YT2 through w_0 = 1)
 *   poisson, no intercept  T1, T2, YT1, YT2   (GLM paper Lemma 3.5 order)
 *
 * Within T2 / YT2 the order is i = 0..p-1, j = i..p-1; within T1 / YT1 it is
 * i = 0..p-1.
 *
 * Under add/remove-one neighbours (dpb_layout_add_count) the number of
 * records is private and the model's blocks end with
 *   COUNT  1                 (one entry: the number of records)
 * which is then the last of the model's blocks (counted in nmodel_blocks and
 * nmodel); add_remove is set, and the sensitivities are those of one
 * record's whole contribution (docs/privacy.md §13).
 *
 * Moments of the features (linear releases with x_moments, for the
 * "noisy" moments of Gibbs-SS; dpb_layout_add_xmoments) follow the model's
 * blocks:
 *   X3   z_a z_b z_c       a <= b <= c (only with an intercept)
 *   X4   z_a z_b z_c z_e   a <= b <= c <= e
 * over the d features (not w: the monomials of lower degree are in T2).
 * An entry whose index multiset has multiplicities m_1, m_2, ... carries the
 * weight sqrt(k! / (m_1! m_2! ...)) (k = 3 or 4), so that the weighted block
 * of z satisfies ||X_k(z)||^2 = ||z||^(2k) and <X_k(z), X_k(z')> = <z,z'>^k.
 * The order is lexicographic in (a, b, c[, e]).
 *
 * The count of clamped responses (linear releases with y_clamped;
 * dpb_layout_add_yclamp) comes after every other block, x moments
 * included, and is not one of the model's blocks:
 *   YCLAMP  1{|y_raw| > Ry}  (one entry: the number of records whose raw
 *                             response was outside [-Ry, Ry] and clamped)
 * Its monomial is not one of (z, y) after clipping: it depends on the raw
 * y (docs/privacy.md §17).
 */
#ifndef DPB_LAYOUT_H
#define DPB_LAYOUT_H

#include "dpb.h"

typedef enum dpb_block_kind
{
	DPB_BLK_T1 = 1,
	DPB_BLK_T2 = 2,
	DPB_BLK_YT1 = 3,
	DPB_BLK_YY = 4,
	DPB_BLK_YT2 = 5,
	DPB_BLK_X3 = 6,
	DPB_BLK_X4 = 7,
	DPB_BLK_COUNT = 8,
	DPB_BLK_YCLAMP = 9
} dpb_block_kind;

/* The response's domain, which the sensitivity depends on. */
typedef enum dpb_ydomain
{
	DPB_Y_SIGNED = 1,			/* -Ry <= y <= Ry       (linear) */
	DPB_Y_BINARY = 2,			/* y in {-1, +1}        (logistic) */
	DPB_Y_NONNEG = 3			/* 0 <= y <= Ry         (poisson) */
} dpb_ydomain;

typedef struct dpb_layout
{
	dpb_model	model;
	int			d;				/* number of features */
	int			intercept;		/* 1 when w = [1, z] */
	int			p;				/* d + intercept */
	int			nblocks;
	dpb_block_kind kind[DPB_MAX_BLOCKS];
	int			start[DPB_MAX_BLOCKS];	/* offset of the block in stats[] */
	int			len[DPB_MAX_BLOCKS];	/* entries in the block */
	int			nstats;			/* total entries */
	int			nmodel_blocks;	/* blocks of the model (the X3 / X4 blocks of
								 * x_moments come after them) */
	int			nmodel;			/* entries of the model's blocks */
	int			xmoments;		/* the X3 / X4 blocks are present */
	int			add_remove;		/* add/remove-one neighbours: the COUNT block
								 * ends the model's blocks */
	int			yclamp;			/* the YCLAMP block ends the layout */
	double		y_clip;			/* Poisson: the bound y was clipped at, for
								 * the moments of min(y, y_clip) (inference
								 * sets it; 0: y is modelled unclipped) */
} dpb_layout;

/* One released entry: the monomial y^ypow * w_i * w_j (i or j = -1 when
 * absent) and its weight (1 or sqrt(2)).  Entries of the moment blocks are
 * w_i w_j w_k (X3) or w_i w_j w_k w_l (X4), with w indices (>= intercept)
 * and the multinomial weight; k and l are -1 elsewhere. */
typedef struct dpb_entry
{
	int			block;
	int			ypow;
	int			i;
	int			j;
	int			k;
	int			l;
	double		weight;
} dpb_entry;

/* Fills the layout; returns DPB_EINVAL for an unknown model or d outside
 * [1, DPB_MAX_D]. */
dpb_status	dpb_layout_init(dpb_layout *L, dpb_model model, int d, int intercept);

/*
 * Appends the X3 (with an intercept) and X4 blocks of the features'
 * moments.  Only linear layouts with d <= DPB_MAX_D_XMOM; DPB_EINVAL
 * otherwise.
 */
dpb_status	dpb_layout_add_xmoments(dpb_layout *L);

/*
 * Appends the COUNT block (one entry, the number of records) as the last of
 * the model's blocks and marks the layout add/remove.  Call it after
 * dpb_layout_init and before dpb_layout_add_xmoments; DPB_EINVAL otherwise
 * (or when it is already there).
 */
dpb_status	dpb_layout_add_count(dpb_layout *L);

/* Index of the count entry in stats[], or -1 when L has none. */
int			dpb_layout_count_index(const dpb_layout *L);

/*
 * Appends the YCLAMP block (one entry: the number of records whose raw
 * response was clamped) after every other block.  Call it last, after
 * dpb_layout_add_count and dpb_layout_add_xmoments; linear layouts only,
 * once (DPB_EINVAL otherwise).  nmodel_blocks and nmodel do not change.
 */
dpb_status	dpb_layout_add_yclamp(dpb_layout *L);

/* Index of the clamped-response count in stats[], or -1 when L has none. */
int			dpb_layout_yclamp_index(const dpb_layout *L);

/* A linear model statistic k (< nmodel) is the product v_a v_b of two
 * coordinates of v = [w_0 .. w_{p-1}, y]; y is index p. */
void		dpb_layout_linear_factors(const dpb_layout *L, int k, int *a, int *b);

/* Number of multisets of size k from n items: C(n + k - 1, k). */
int			dpb_multisets(int n, int k);

/* Describes entry k (0 <= k < nstats). */
void		dpb_layout_entry(const dpb_layout *L, int k, dpb_entry *e);

dpb_ydomain dpb_model_ydomain(dpb_model model);

const char *dpb_block_kind_name(dpb_block_kind kind);

/* Human-readable label of entry k, e.g. "y*age*bmi", "age^2", "y" ("n" for
 * the count, "n_y_clamped" for the clamped-response count), written
 * into buf (NUL-terminated, truncated to buflen). names[] holds the d
 * feature names (or NULL for x1..xd). */
void		dpb_layout_label(const dpb_layout *L, int k, const char *const *names,
							 char *buf, size_t buflen);

#endif
