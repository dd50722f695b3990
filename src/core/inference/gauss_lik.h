/*
 * gauss_lik.h — the release likelihood of the marginalised models
 * (glm_model.c, linear_model.c): log N(z; N m, M = N V + D) and its
 * adjoints, so that d lik = <Wbar, dV> + mbar . dm (+ dlik_dN dN).
 */
#ifndef DPB_GAUSS_LIK_H
#define DPB_GAUSS_LIK_H

#include "dpb.h"

/*
 * n statistics; z, D (noise variances), m (n) and V (n x n, lower triangle
 * read) given; M (n x n) is scratch and ends as the lower triangle of
 * M^{-1}; Wbar (n x n, full, symmetric) = -1/2 N (M^{-1} - alpha alpha^T)
 * and mbar (n) = N alpha, alpha = M^{-1} (z - N m); *dlik_dN =
 * -1/2 <M^{-1} - alpha alpha^T, V> + alpha^T m when dlik_dN is not NULL.
 * Wbar NULL (then dlik_dN must be NULL too): Wbar is not formed, the
 * caller reads it from M^{-1} (lower triangle) and alpha = mbar / N.
 * Returns 0, or 1 when M is not positive definite or lik not finite.
 */
int			dpb_gauss_lik_adjoint(int n, double N, const double *z, const double *D,
								  const double *m, const double *V, double *M,
								  double *Wbar, double *mbar, double *lik,
								  double *dlik_dN);

/*
 * The Laplace-Gaussian convolution (the density of g + l, g ~ N(0, v),
 * l ~ Laplace(b)) at r, times 2b so that it tends to exp(-|r| / b) as
 * v -> 0: log f = -log 2 - r^2 / (2v) + log(erfcx(x1) + erfcx(x2)),
 * x1,2 = (v / b -/+ r) / sqrt(2v) (erfcx(x) = e^{x^2} erfc(x), from GSL's
 * hazard function for x >= 0, so that neither e^{v / 2b^2} nor erfc of a
 * large argument is formed).  Its derivatives in r and v into *dr and *dv.
 * Used where one statistic's latent part and its Laplace noise are
 * integrated out together (linear_model.c, the mixed root form).
 */
double		dpb_laplace_gauss_logconv(double r, double v, double b, double *dr, double *dv);

#endif
