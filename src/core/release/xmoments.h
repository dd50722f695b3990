/*
 * xmoments.h — the "noisy" moments of the features for Gibbs-SS (B&S 2019,
 * Gibbs-SS-Noisy).
 *
 * A linear release made with x_moments > 0 also holds the sums of the
 * third (X3, with an intercept) and fourth (X4) degree monomials of the
 * clipped features (layout.h).  Divided by the public N, together with the
 * released t2 block they give every second and fourth moment
 * eta_ab = E[w_a w_b] and eta_abce = E[w_a w_b w_c w_e] of w ([1, z] or z)
 * that the CLT approximation s ~ N(N m, N V) of the linear model needs.
 * Only released (noisy) values are used: nothing here reads exact data.
 *
 * With y = theta^T w + e, e ~ N(0, sigma^2) independent of w, the moments of
 * v = [w, y] follow from the eta's by contracting indices with theta and
 * adding the e terms (docs/posterior.md, "noisy moments"); no Gaussian
 * assumption on x is made, which is what the option is for.
 */
#ifndef DPB_XMOMENTS_H
#define DPB_XMOMENTS_H

#include "release.h"

typedef struct dpb_xmom
{
	int			p;				/* entries of w */
	int			d;
	double		N;				/* the number of records the moments are
								 * divided by */
	double	   *eta2;			/* p x p */
	double	   *eta4;			/* p^4, every index order */
	double	   *mu;				/* d: mean of z implied by eta2 (0 without
								 * an intercept) */
	double	   *Sigma;			/* d x d: its covariance, PSD-projected */
	/* scratch of dpb_xmom_stat_moments: theta contractions */
	double	   *c3,
			   *c2,
			   *c1,
			   *s1;
} dpb_xmom;

/*
 * Reads the moments from release r (linear, with x_moments), divided by the
 * number of records N (the release's count, or the current value of an
 * unknown N).  DPB_EINVAL when r holds no moments or N <= 0; DPB_ENOMEM.
 */
dpb_status	dpb_xmom_from_release(const dpb_release *r, double N, dpb_xmom *x,
								  dpb_err *err);

/*
 * Divides the moments by N instead of x->N (an unknown N changed): every
 * eta entry but the constant E[1] = 1 of an intercept scales by x->N / N.
 * With moments nonzero, also recomputes mu and Sigma.
 */
void		dpb_xmom_set_n(dpb_xmom *x, int intercept, double N, int moments);

void		dpb_xmom_free(dpb_xmom *x);

/*
 * Mean m (L->nmodel) and covariance V (nmodel x nmodel, full) of one
 * record's model statistics under (theta, sigma2) and the moments x.
 * V may be indefinite when the moments are noisy (the caller projects).
 */
void		dpb_xmom_stat_moments(const dpb_layout *L, dpb_xmom *x,
								  const double *theta, double sigma2,
								  double *m, double *V);

/* The full fourth-moment tensor eta4 of w from mean mu and covariance
 * Sigma of a Gaussian z (Isserlis), and eta2: for tests and for comparing
 * the noisy path with the Gaussian one. */
void		dpb_xmom_gaussian(dpb_xmom *x, int intercept, const double *mu,
							  const double *Sigma);

/* Allocates x for d features (p = d + intercept). */
dpb_status	dpb_xmom_alloc(dpb_xmom *x, int d, int intercept);

#endif
