/*
 * glm_moments.h — mean and covariance of ONE record's released statistics
 * under a logistic or Poisson regression with Gaussian features, and their
 * exact derivatives (DESIGN.md section 3.2).
 *
 * Model: x ~ N(mu, Sigma) (d features, the clipped/scaled ones; clipping
 * itself is not modelled), w = [1, x] with an intercept else w = x, the
 * linear predictor u = theta^T w (theta has p = d + intercept entries) and
 *   logistic  y in {-1, +1}, P(y = +1 | x) = 1 / (1 + e^{-u}),
 *             so E[y | u] = tanh(u / 2) and y^2 = 1;
 *   poisson   y ~ Poisson(e^u), E[y | u] = e^u, E[y^2 | u] = e^u + e^{2u}
 *             (or, with L->y_clip = B, the moments of min(y, B)).
 * The statistics are the unweighted monomials y^ypow w_i w_j of the layout
 * (layout.h).  m = E[t(x, y)] (nstats), V = Cov[t(x, y)] (nstats^2).
 *
 * Method.  With v = [1, x], a = Cov(v, u) = [0, Sigma theta~], m_u = E[u],
 * s^2 = Var[u], Stein's lemma gives for any h and k <= 4 indices
 *   E[v_i1 .. v_ik h(u)] = sum over partial pairings of the indices:
 *       prod(paired: Sigma_ij) prod(others: mu_i or a_i) G_r,
 *   G_r = E[h^{(r)}(u)], r = the number of indices that took a_i,
 * i.e. each moment is a short polynomial in (mu, a, Sigma) whose "powers"
 * are the scalars G_0..G_4 of a 1-D Gaussian expectation.  (This is the
 * conditional representation x | u = mu + a (u - m_u)/s^2 + Gaussian noise
 * of DESIGN.md after integrating by parts; it never divides by s, so
 * theta~ = 0 is a regular point, derivatives included.)  The G's:
 *   DPB_GLM_EXACT  logistic: h = tanh(u/2), G_r by quadrature: when
 *                    s < 0.8, 48-node Gauss-Hermite in (u - m_u)/s; else
 *                    h = erf(lambda u) + remainder, the erf part in closed
 *                    form, the remainder (decaying like e^{-|u|}) by the
 *                    trapezoid rule (step 1/3, |u| <= 40).  Both agree with
 *                    adaptive quadrature to ~1e-15 (r <= 5) and with each
 *                    other at the switch to ~1e-14;
 *                  poisson with L->y_clip = B > 0 (what inference uses:
 *                    the release clips counts at y_bound): h = E[min(y, B)
 *                    | u] and E[min(y, B)^2 | u], G_r by glm_ypois.h;
 *                  poisson with y_clip = 0 (unclipped y): closed form,
 *                    E[e^{ku}] = e^{k m_u + k^2 s^2/2},
 *                    E[(e^{ku})^{(r)}] = k^r E[e^{ku}] (exponential tilt);
 *   DPB_GLM_TAYLOR the GLM paper's approximation: logistic
 *                    tanh(u/2) ~ u/2 - u^3/24 (y^2 = 1 kept exact; the
 *                    paper labels the classes the other way round,
 *                    E[y | x] = (1 - e^u)/(1 + e^u), hence its signs);
 *                  poisson e^u ~ 1 + u + u^2/2 (second order around 0) in
 *                    E[y | u], and E[y^2 | u] = e^u + e^{2u} ~
 *                    2 + 3u + 5u^2/2 (each exponential expanded to second
 *                    order); the paper's supplement with its Poisson
 *                    formulas is not available here, so this is our reading.
 * The covariance is E[t t^T] - m m^T (fourth moments minus products).
 *
 * Derivatives: d G_r / d m_u = G_{r+1}, d G_r / d s^2 = G_{r+2} / 2 (heat
 * equation), the rest is the chain rule through a = Sigma theta~,
 * m_u = theta_0 + theta~^T mu, s^2 = theta~^T Sigma theta~ — exact, no
 * finite differences.
 *
 * Parameters, K = p + d + d(d+1)/2 of them, in this order: theta (p),
 * mu (d), the unique entries sigma_ij of Sigma, i <= j, row by row
 * (sigma_00, sigma_01, .., sigma_0,d-1, sigma_11, ..).  A derivative with
 * respect to sigma_ij, i != j, perturbs Sigma_ij and Sigma_ji together.
 *
 * Cost: O(nstats^2) per call for m, V and for the vector-Jacobian product
 * (plus the 1-D quadrature, ~0.5-3.5 us); O(K nstats^2) with the full dV.
 *
 * Thread safety: the quadrature tables are built on the first call
 * (a process-wide static, deterministic; call once from one thread before
 * using the functions from several).
 */
#ifndef DPB_GLM_MOMENTS_H
#define DPB_GLM_MOMENTS_H

#include "layout.h"

typedef enum dpb_glm_approx
{
	DPB_GLM_EXACT = 1,
	DPB_GLM_TAYLOR = 2
} dpb_glm_approx;

/* K = p + d + d(d+1)/2 */
int			dpb_glm_nparams(const dpb_layout *L);

/*
 * m: nstats; V: nstats * nstats (symmetric, full); dm: K * nstats (row k =
 * dm/dparam_k) or NULL; dV: K * nstats * nstats (block k = dV/dparam_k,
 * full n x n) or NULL.  Sigma is d * d, symmetric positive definite (only
 * its upper triangle is read).  Returns DPB_OK, DPB_ENOMEM, DPB_ENUMERIC if
 * something non-finite arises (e.g. e^u overflows), or DPB_EINVAL for a
 * layout that is not logistic / Poisson or an unknown approx.
 */
dpb_status	dpb_glm_moments(const dpb_layout *L, dpb_glm_approx approx,
							const double *theta, const double *mu,
							const double *Sigma, double *m, double *V,
							double *dm, double *dV);

/*
 * The vector-Jacobian product the sampler needs, without materialising dV:
 *   g_k = sum_ab Wbar_ab dV_ab/dparam_k + sum_a mbar_a dm_a/dparam_k,
 * k < K.  Wbar is n x n (need not be symmetric), mbar is n or NULL (zero).
 * Also writes m and V (as dpb_glm_moments).  Same statuses.
 */
dpb_status	dpb_glm_moments_vjp(const dpb_layout *L, dpb_glm_approx approx,
								const double *theta, const double *mu,
								const double *Sigma, const double *Wbar,
								const double *mbar, double *m, double *V,
								double *g);

/*
 * The same in one pass when the adjoints depend on m and V: after m and V
 * are computed, adjoint(m, V, Wbar, mbar, actx) fills Wbar (n x n) and mbar
 * (n) — the caller's buffers — and returns 0, or nonzero to abort
 * (DPB_ENUMERIC).  Saves a second evaluation of the moments.
 */
typedef int (*dpb_glm_adjoint_fn) (const double *m, const double *V,
								   double *Wbar, double *mbar, void *actx);

dpb_status	dpb_glm_moments_vjp_cb(const dpb_layout *L, dpb_glm_approx approx,
								   const double *theta, const double *mu,
								   const double *Sigma, dpb_glm_adjoint_fn adjoint,
								   void *actx, double *Wbar, double *mbar,
								   double *m, double *V, double *g);

/*
 * The 1-D building block (exposed for tests): G[r] = E[h^{(r)}(u)],
 * r = 0..rmax (rmax <= 6), u ~ N(mean, var), h(u) = tanh(u/2), by the
 * quadrature described above.  var >= 0.  Returns DPB_ENOMEM (tables) or
 * DPB_EINVAL.
 */
dpb_status	dpb_glm_logistic_expect(double mean, double var, int rmax,
									double *G);

#endif
