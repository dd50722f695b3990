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
#include "posterior.h"			/* dpb_interrupt_fn */

/*
 * One-hidden-layer networks (issue 28; docs/betad.md, "Neural networks"):
 * with hidden = H > 0 the model's output for a row x (scaled features) is
 *     f(x) = c_0 + sum_h c_h act(b_h + sum_j W_hj x_j),
 * act ReLU (max(0, a)) or tanh, and the loss is the logistic betaD loss on
 * u = f(x) (classification) or the Gaussian one with mean f(x) (regression:
 * y / y_scale, sigma^2 = s^2 + e^eta as above).  Parameters, in this order:
 *     W1: H rows of d + 1, row h = [b_h, W_h1 .. W_hd]   (H (d + 1))
 *     w2: [c_0, c_1 .. c_H]                               (H + 1)
 *     eta (regression only)                               (1)
 * N(0, prior_sd^2) on every weight and bias; eta's prior as above.  The
 * gradient is exact (back-propagation, dgemm over blocks of rows); every
 * block polls interrupt (a nonzero return makes the evaluation NaN; the
 * sampler then sees the interrupt at its own poll).  intercept must be 1.
 */
#define DPB_BETAD_ACT_RELU 0
#define DPB_BETAD_ACT_TANH 1
#define DPB_BETAD_MAX_HIDDEN 64
/* rows per block of the network's evaluation */
#define DPB_BETAD_MLP_BLOCK 256
/* the largest number of parameters the sampler takes */
#define DPB_BETAD_MAX_DIM 2048

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
	int			hidden;			/* 0: the linear predictor; H > 0: a network */
	int			activation;		/* network: DPB_BETAD_ACT_* */
	double	   *nwork;			/* network: dpb_betad_mlp_nwork(H) doubles */
	dpb_interrupt_fn interrupt; /* network: polled per block; may be NULL */
} dpb_betad_model;

/* doubles of block scratch (nwork) a network of H hidden units needs */
size_t		dpb_betad_mlp_nwork(int hidden);

/* the network's log density (dpb_betad_logpost dispatches to it) */
double		dpb_betad_mlp_logpost(const dpb_betad_model *m, const double *par, double *grad);

/* the network's data part, as dpb_betad_negloss (par: W1, w2) */
double		dpb_betad_mlp_negloss(const dpb_betad_model *m, const double *par, double sigma2);

/* the network's output f(x) for one row x (d scaled features) */
double		dpb_betad_mlp_output(int d, int hidden, int activation, const double *par,
								 const double *x);

/* (1/beta) int f^beta of the Gaussian model with variance s2, b = beta - 1 */
double		dpb_betad_gauss_integ(double b, double beta, double s2);

/* Number of unconstrained parameters: d + intercept (+ 1 for eta); a
 * network: H (d + 1) + H + 1 (+ 1 for eta). */
int			dpb_betad_dim(const dpb_betad_model *m);

/* log pi_beta at par (up to a constant); grad (dim entries) when not NULL.
 * -INFINITY outside the support (never for finite par). */
double		dpb_betad_logpost(const dpb_betad_model *m, const double *par, double *grad);

/* sum_i -l_beta(D_i, theta) (the data part of log pi_beta) at the
 * coefficients coef and, Gaussian, the variance sigma2 (>= s2); uses the
 * first n doubles of work. */
double		dpb_betad_negloss(const dpb_betad_model *m, const double *coef, double sigma2);

#endif
