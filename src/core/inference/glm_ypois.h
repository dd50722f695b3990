/*
 * glm_ypois.h — Gaussian expectations of the clipped Poisson response.
 *
 * A Poisson release clips each count at y_bound = B before summing, so the
 * model's statistics carry min(y, B), not y.  With Y ~ Poisson(lambda),
 * lambda = e^u, the response functions are
 *   h1(u) = E[min(Y, B)]   = lambda F(K-1) + B Q(K),
 *   h2(u) = E[min(Y, B)^2] = lambda^2 F(K-2) + lambda F(K-1) + B^2 Q(K),
 * K = floor(B), F(j) = P(Y <= j), Q(K) = P(Y > K) (docs/posterior.md,
 * "Clipped counts").  Their u-derivatives are closed forms in the Poisson
 * probability pi = P(Y = K + 1) times Charlier polynomials.
 *
 * The moments machinery (glm_moments.c) needs G_r = E[h^{(r)}(u)],
 * u ~ N(m, s^2), r = 0..6.  They are computed as
 *   G_r = E[ref^{(r)}(u)] (closed form) + E[(h - ref)^{(r)}(u)] (trapezoid),
 * where ref(u) = (c1 e^u + c2 e^{2u}) (1 - W(u)) + h(+inf) W(u),
 * W(u) = Phi((u - log B) / omega), c1, c2 the exact Taylor coefficients of
 * h in lambda, omega = 1 / sqrt(K + 1).  The remainder h - ref is entire and
 * decays on both sides (like lambda^3 or faster on the left, like a Gaussian
 * on the right), so the trapezoid rule on a fixed grid u_j = log B + j du,
 * du = 0.1 / sqrt(K + 1), is spectrally accurate once s >= 2 du; for
 * smaller s, 48-node Gauss-Hermite on h itself.  The remainder at the grid
 * nodes is tabulated once per B (a process-wide single-entry cache: not
 * for concurrent use from several threads with different B).
 */
#ifndef DPB_GLM_YPOIS_H
#define DPB_GLM_YPOIS_H

#include "dpb.h"

/* h1^{(r)}(u) and h2^{(r)}(u), r = 0..6 (7 entries each); B > 0. */
dpb_status	dpb_ypois_h(double B, double u, double *h1, double *h2);

/*
 * G1[r] = E[h1^{(r)}(u)], G2[r] = E[h2^{(r)}(u)], r = 0..6, u ~ N(m, s2),
 * s2 >= 0.  DPB_EINVAL for bad arguments, DPB_ENOMEM, DPB_ENUMERIC.
 */
dpb_status	dpb_ypois_expect(double B, double m, double s2, double *G1,
							 double *G2);

/*
 * n-node Gauss-Hermite rule for E[f(Z)], Z ~ N(0, 1): nodes z, weights w
 * (summing to 1), by GSL.  Shared with glm_moments.c.
 */
dpb_status	dpb_gauss_hermite(int n, double *z, double *w);

#endif
