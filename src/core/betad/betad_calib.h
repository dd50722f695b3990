/*
 * betad_calib.h — the privacy calibration of betaD-Bayes one-posterior
 * sampling (Jewson, Ghalebikesabi & Holmes; docs/betad.md).
 *
 * One exact draw from the beta-divergence posterior pi(theta) exp(-sum_i
 * l_beta(D_i, theta)) is (2 M^b / b, 0)-DP when the model density is bounded
 * by M, b = beta - 1 > 0 (their Theorem 1, replace-one neighbours).
 *
 *   logistic (M = 1):                  epsilon = 2 / b,  beta = 1 + 2 / epsilon
 *   Gaussian regression, sigma^2 >= s^2 on the model's y scale,
 *   M = (2 pi s^2)^(-1/2), k = ln M:   epsilon(b) = 2 exp(b k) / b
 *
 * For k <= 0 (s^2 >= 1 / (2 pi)) epsilon(b) decreases from infinity to 0 and
 * every epsilon has one b = W0(2|k| / epsilon) / |k|.  For k > 0 epsilon(b)
 * has the minimum epsilon_min = 2 e k at b = 1 / k; an epsilon >= epsilon_min
 * has two roots b = -W0(-2k / epsilon) / k (the smaller, the default) and
 * b = -W_{-1}(-2k / epsilon) / k.  Lambert W from GSL.
 *
 * The Gaussian model is fitted to y / y_scale (a PUBLIC constant, never
 * computed from the data), so the floor on that scale is s^2 =
 * sigma2_floor / y_scale^2 with sigma2_floor in the units of y.
 */
#ifndef DPB_BETAD_CALIB_H
#define DPB_BETAD_CALIB_H

#include "dpb.h"

typedef enum dpb_betad_root
{
	DPB_BETAD_ROOT_SMALLER = 0,	/* closer to the standard posterior */
	DPB_BETAD_ROOT_LARGER = 1
} dpb_betad_root;

/* log M = -1/2 ln(2 pi s^2) of the Gaussian model with floor s^2 =
 * sigma2_floor / y_scale^2. */
double		dpb_betad_gauss_logm(double sigma2_floor, double y_scale);

/*
 * epsilon of one exact draw for beta > 1: logistic (gaussian = 0) or
 * Gaussian regression with the floor.  NaN for invalid input.
 */
double		dpb_betad_epsilon(int gaussian, double beta, double sigma2_floor, double y_scale);

/* The smallest reachable epsilon of the Gaussian model (0 when every
 * epsilon > 0 is reachable). */
double		dpb_betad_epsilon_min(double sigma2_floor, double y_scale);

/*
 * beta for a target epsilon.  DPB_EINVAL for an epsilon, floor or scale
 * that is not positive and finite; DPB_ERANGE when epsilon is below
 * epsilon_min (the message's detail gives epsilon_min and the floor on
 * the original scale that would reach epsilon).
 */
dpb_status	dpb_betad_beta(int gaussian, double epsilon, double sigma2_floor,
						   double y_scale, dpb_betad_root root, double *beta,
						   dpb_err *err);

#endif
