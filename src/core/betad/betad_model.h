/*
 * betad_model.h — the beta-divergence posterior pi_beta(theta | D) of
 * betaD-Bayes: log density and exact gradient (issue 10; formulas of the
 * digest, §B2, "log target and gradient").
 *
 * Logistic, y in {-1, +1}: parameters theta = [theta_0 (intercept), theta_1
 * .. theta_d]; u_i = xbar_i' theta, p_i = sigma(u_i), q_i = sigma(y_i u_i):
 *     log pi = log prior(theta) + sum_i [ q_i^b / b - (p_i^beta + (1 - p_i)^beta) / beta ]
 * Gaussian regression: parameters [w (intercept first), eta] with the
 * variance sigma^2 = s^2 + e^eta above the public floor s^2 (Jacobian e^eta),
 * r_i = y_i - xbar_i' w:
 *     log pi = log prior(w, sigma^2) + eta + sum_i [ f_i^b / b - (2 pi)^(-b/2)
 *              sigma^(-b) beta^(-3/2) ],  f_i^b = (2 pi sigma^2)^(-b/2)
 *              exp(-b r_i^2 / (2 sigma^2)).
 * Priors (proper, as a bounded loss requires): theta, w ~ N(0, prior_sd^2 I);
 * sigma^2 ~ InverseGamma(ig_a, ig_b) restricted to sigma^2 >= s^2.
 * b = beta - 1 > 0.  Powers are exp(b log q) with log q = -log1p(e^{-y u})
 * (features are not clipped, so u can be huge).  Each evaluation is O(N d)
 * (BLAS dgemv): there is no sufficient statistic.
 */
#ifndef DPB_BETAD_MODEL_H
#define DPB_BETAD_MODEL_H

#include "dpb.h"

typedef struct dpb_betad_model
{
	int			gaussian;		/* 0 logistic, 1 Gaussian regression */
	int			d;				/* features */
	int			intercept;		/* 1: xbar = [1, x] */
	double		beta;			/* > 1 */
	double		prior_sd;		/* of theta / w */
	double		s2;				/* Gaussian: the variance floor on y's scale */
	double		ig_a;			/* Gaussian: InverseGamma prior of sigma^2 */
	double		ig_b;
	int64_t		n;				/* rows */
	const double *X;			/* n x d, row-major, public scaling applied */
	const double *y;			/* logistic: +-1; Gaussian: y / y_scale */
	double	   *work;			/* 2 n doubles of scratch (caller-owned) */
} dpb_betad_model;

/* Number of unconstrained parameters: d + intercept (+ 1 for eta). */
int			dpb_betad_dim(const dpb_betad_model *m);

/* log pi_beta at par (up to a constant); grad (dim entries) when not NULL.
 * -INFINITY outside the support (never for finite par). */
double		dpb_betad_logpost(const dpb_betad_model *m, const double *par, double *grad);

/* sum_i -l_beta(D_i, theta) (the data part of log pi_beta) at the
 * coefficients coef and, Gaussian, the variance sigma2 (>= s2); uses the
 * first n doubles of work. */
double		dpb_betad_negloss(const dpb_betad_model *m, const double *coef, double sigma2);

#endif
