/*
 * sensitivity.h — sensitivities of the released statistics.
 *
 * The derivations are in docs/privacy.md; test/test_sensitivity.c checks
 * every closed form against a brute-force maximisation.  Neighbouring tables
 * differ in one record replaced by another (bounded DP).
 *
 * Notation: records are clipped so that ||z|| <= R; w = [1, z] with an
 * intercept (k = 1) or w = z (k = 0); A = ||w||^2 = k + ||z||^2,
 * T = <w, w'> = k + <z, z'>.  y is bounded as dpb_model_ydomain() says, with
 * bound Ry (ignored, taken as 1, for logistic).
 */
#ifndef DPB_SENSITIVITY_H
#define DPB_SENSITIVITY_H

#include "layout.h"

/*
 * Gaussian releases.  Block b receives N(0, (nw[b] * sigma0)^2) noise on each
 * of its weighted entries (nw = relative noise weights, all > 0; NULL means
 * all 1).  Rescaling each block by 1/nw[b] turns the release into a single
 * Gaussian mechanism with noise sigma0 and L2 sensitivity
 *
 *     Delta^2 = sup_{r, r'} sum_b ||B_b(r) - B_b(r')||^2 / nw[b]^2 .
 *
 * dpb_sens_l2 returns that Delta (never below the true supremum: it is the
 * privacy proof).  R > 0; Ry > 0 for linear and Poisson.
 */
dpb_status	dpb_sens_l2(const dpb_layout *L, double R, double Ry,
						const double *nw, double *delta, dpb_err *err);

/* The L2 sensitivity of block b alone (reported in the release). */
double		dpb_sens_l2_block(const dpb_layout *L, int b, double R, double Ry);

/*
 * The squared weighted distance sum_b ||B_b(r) - B_b(r')||^2 / nw[b]^2 as a
 * function of a = ||z||^2, a2 = ||z'||^2, t = <z, z'>, y, y2 (the polynomial
 * identities of docs/privacy.md).  Used by the tests' brute-force search.
 */
double		dpb_sens_pair_sq(const dpb_layout *L, const double *nw,
							 double a, double a2, double t, double y, double y2);

/*
 * Add/remove-one layouts (L->add_remove; docs/privacy.md §13): the change
 * of the release is one record's whole contribution, so
 *
 *     Delta^2 = sup_r sum_b ||B_b(r)||^2 / nw[b]^2 ,
 *
 * the count block contributing 1 / nw^2.  dpb_sens_record_sq is the sum as
 * a function of a = ||z||^2 and y; dpb_sens_l2 returns its value at
 * a = R^2, |y| = Ry (exact), dpb_sens_l2_block that of one block, and
 * dpb_sens_l1_block the sum over the block's entries of the largest
 * |monomial| over one record.
 */
double		dpb_sens_record_sq(const dpb_layout *L, const double *nw,
							   double a, double y);

/*
 * Laplace releases (pure epsilon).  Every coordinate of z satisfies
 * |z_j| <= B (B = R/sqrt(d) for box scaling, R for ball scaling) and
 * ||z|| <= R.  Returns the L1 sensitivity of block b: the sum over its
 * entries of the largest change of that entry's (unweighted) value when one
 * record is replaced.  Block b with Laplace scale b_b costs
 * l1_b / b_b of epsilon; the release costs the sum over blocks.
 */
double		dpb_sens_l1_block(const dpb_layout *L, int b, double B, double R,
							  double Ry);

#endif
