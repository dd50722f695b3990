/*
 * ldp_input.c — input perturbation for regression (digest R7, R8;
 * docs/ldp.md "Input perturbation"): the client reports its record itself,
 * with noise, so that the aggregator can fit models that marginalise the
 * true record (linear: jointly Gaussian; logistic: Gauss-Hermite).
 *
 *   linear_input     report (z_x, z_y) = (x + N_x, y + N_y): one Gaussian
 *                    mechanism on v = (x, y / kappa), kappa = sigma_y /
 *                    sigma_x public, L2 sensitivity 2 sqrt(R^2 + (R_y /
 *                    kappa)^2) under replace-one (||x|| <= R, |y| <= R_y);
 *   logistic_input   report (z_x, z_y) = (x + N_x, RR(y)): the Gaussian
 *                    mechanism on x (sensitivity 2R) at eps_x = (1 - c)
 *                    eps and delta, randomized response on y in {0, 1} at
 *                    eps_y = c eps; basic composition gives (eps, delta).
 *
 * As everywhere on the secret path, each value is rounded to a public
 * power-of-two grid 2^m (m chosen from the public sigma, 2^m <= 2^-20
 * sigma) and the noise is 2^m times an exact discrete Gaussian integer of
 * integer variance s2 = ceil((sigma / 2^m)^2).  Rounding moves each grid
 * coordinate by at most one unit more than the exact difference, so the
 * integer query q(v) satisfies, in noise units,
 *     || (q_j(v) - q_j(v')) / sqrt(s2_j) ||_2 <= sens_units + eta,
 *     sens_units = sqrt(4R^2 / sd_x^2 + 4 R_y^2 / sd_y^2),
 *     eta = sqrt(sum_j 1 / s2_j),
 * (sd = 2^m sqrt(s2), the noise sd actually drawn) and the multivariate
 * discrete Gaussian is rho = (sens_units + eta)^2 / 2 - zCDP (Canonne,
 * Kamath & Steinke 2020, Thm 14).  sigma_x = Delta / (sqrt(2 rho*) -
 * sqrt(K) 2^-20) makes rho <= rho*, checked after rounding.
 */
#include "ldp.h"

#include <math.h>
#include <string.h>

#define NEED(cond, ...) \
	do { if (!(cond)) { dpb_err_set(err, "invalid protocol", __VA_ARGS__); \
		return DPB_EINVAL; } } while (0)

int
dpb_ldp_is_input(dpb_ldp_mech m)
{
	return m == DPB_LDP_LINEAR_INPUT || m == DPB_LDP_LOGISTIC_INPUT;
}

/* the grid of a noise scale sigma: 2^m <= 2^-20 sigma < 2^(m+1) */
static dpb_status
grid_for(double sigma, int *gexp, uint64_t *s2, double *sd, dpb_err *err)
{
	int			e;
	dpb_status	st;

	(void) frexp(sigma, &e);
	*gexp = (e - 1) - DPB_LDP_SCALAR_GRID_BITS;
	if ((st = dpb_dgauss_sigma2_on_grid(sigma, *gexp, s2, err)) != DPB_OK)
		return st;
	*sd = ldexp(sqrt((double) *s2), *gexp);
	return DPB_OK;
}

dpb_status
dpb_ldp_input_calibrate(const dpb_ldp_protocol *p, dpb_ldp_calib *c, dpb_err *err)
{
	int			linear = p->mech == DPB_LDP_LINEAR_INPUT;
	int			K = p->d + (linear ? 1 : 0);
	double		R = p->clip,
				Ry = linear ? p->y_bound : 0,
				kappa = linear ? p->y_noise_ratio : 1,
				rho_star,
				room,
				sigma_x,
				sens_units,
				eta;
	dpb_status	st;

	c->report_len = p->d + 1;
	c->epsilon_used = p->epsilon;
	if (linear)
		c->eps_features = p->epsilon;
	else
	{
		/* the label's share, then the rest (rounded down) to x */
		c->eps_label = p->label_share * p->epsilon;
		c->eps_features = (p->epsilon - c->eps_label) * (1 - 1e-12);
		NEED(c->eps_label >= DPB_LDP_EPS_MIN && c->eps_features >= DPB_LDP_EPS_MIN,
			 "label_share times epsilon and the rest must both be at least %g.",
			 DPB_LDP_EPS_MIN);
		dpb_ldp_eps_dyadic(c->eps_label, &c->eps_num, &c->eps_log2den);
		c->p_keep = 1.0 / (1.0 + exp(-c->eps_label));
	}
	if ((st = dpb_zcdp_rho(c->eps_features, p->delta, &rho_star, err)) != DPB_OK)
		return st;
	c->in_sens = 2 * sqrt(R * R + (Ry / kappa) * (Ry / kappa));
	room = sqrt(2 * rho_star) - sqrt((double) K) * ldexp(1.0, -DPB_LDP_SCALAR_GRID_BITS);
	NEED(room > 0.5 * sqrt(2 * rho_star),
		 "epsilon and delta are too small: rounding to the noise grid would take more than half of the privacy budget.");
	sigma_x = c->in_sens / room * (1 + 1e-12);
	NEED(dpb_isfinite(sigma_x) && sigma_x > 0 && dpb_isfinite(kappa * sigma_x),
		 "The noise scale is not finite.");
	if ((st = grid_for(sigma_x, &c->in_gexp[0], &c->in_sigma2[0], &c->in_sd[0], err)) != DPB_OK)
		return st;
	if (linear &&
		(st = grid_for(kappa * sigma_x, &c->in_gexp[1], &c->in_sigma2[1], &c->in_sd[1], err)) != DPB_OK)
		return st;
	/* the guarantee with the noise actually drawn */
	sens_units = 4 * R * R / (c->in_sd[0] * c->in_sd[0]);
	eta = (double) p->d / (double) c->in_sigma2[0];
	if (linear)
	{
		sens_units += 4 * Ry * Ry / (c->in_sd[1] * c->in_sd[1]);
		eta += 1.0 / (double) c->in_sigma2[1];
	}
	sens_units = sqrt(sens_units);
	eta = sqrt(eta);
	c->rho_used = 0.5 * (sens_units + eta) * (sens_units + eta);
	NEED(c->rho_used <= rho_star, "The noise calibration does not meet the budget.");
	/* grid coordinates of clipped values stay far below 2^50 */
	NEED(ldexp(R, -c->in_gexp[0]) <= 0x1p50 &&
		 (!linear || ldexp(Ry, -c->in_gexp[1]) <= 0x1p50),
		 "The clipping bounds are too large for the noise grid.");
	return DPB_OK;
}

/* 2^gexp (round(v / 2^gexp) + Y), Y ~ N_Z(0, s2) */
static dpb_status
noisy(double v, int gexp, uint64_t s2, dpb_rbits *rb, double *out)
{
	int64_t		q = (int64_t) nearbyint(ldexp(v, -gexp)),
				Y;
	dpb_status	st = dpb_dgauss(rb, s2, &Y);

	if (st != DPB_OK)
		return st;
	q += Y;
	if (q > ((int64_t) 1 << 53))
		q = (int64_t) 1 << 53;
	if (q < -((int64_t) 1 << 53))
		q = -((int64_t) 1 << 53);
	*out = ldexp((double) q, gexp);
	return DPB_OK;
}

dpb_status
dpb_ldp_input_randomize(const dpb_ldp_protocol *p, const dpb_ldp_calib *c,
						const double *in, dpb_rbits *rb, double *out, dpb_err *err)
{
	int			d = p->d,
				j,
				flip;
	double		x[DPB_MAX_D],
				y = in[d],
				m = 0,
				nrm = 0;
	dpb_status	st = DPB_OK;

	for (j = 0; j <= d; j++)
		if (!dpb_isfinite(in[j]))
		{
			dpb_err_set(err, "feature and response values must be finite", NULL);
			return DPB_EDATA;
		}
	if (p->mech == DPB_LDP_LOGISTIC_INPUT)
	{
		if (y == -1)
			y = 0;
		if (y != 0 && y != 1)
		{
			dpb_err_set(err, "a logistic_input response must be 0 or 1 (-1 is read as 0)", NULL);
			return DPB_EDATA;
		}
	}
	else
		y = y < -p->y_bound ? -p->y_bound : y > p->y_bound ? p->y_bound : y;
	/* clip x to the L2 ball of radius R (scaled norm: no overflow) */
	for (j = 0; j < d; j++)
		m = fmax(m, fabs(in[j]));
	if (m > 0)
	{
		for (j = 0; j < d; j++)
			nrm += (in[j] / m) * (in[j] / m);
		nrm = m * sqrt(nrm);
	}
	for (j = 0; j < d; j++)
	{
		x[j] = nrm > p->clip ? in[j] / nrm * p->clip : in[j];
		x[j] = fmin(fmax(x[j], -p->clip), p->clip);
	}
	for (j = 0; j < d && st == DPB_OK; j++)
		st = noisy(x[j], c->in_gexp[0], c->in_sigma2[0], rb, &out[j]);
	if (st == DPB_OK)
	{
		if (p->mech == DPB_LDP_LINEAR_INPUT)
			st = noisy(y, c->in_gexp[1], c->in_sigma2[1], rb, &out[d]);
		else if ((st = dpb_ldp_flip(rb, c->eps_num, c->eps_log2den, &flip)) == DPB_OK)
			out[d] = (double) ((y == 1) ^ flip);
	}
	memset(x, 0, sizeof(x));
	if (st != DPB_OK)
		memset(out, 0, sizeof(double) * (d + 1));
	return st;
}

static int
on_grid(double v, int gexp)
{
	double		q = ldexp(v, -gexp);

	return dpb_isfinite(q) && q == floor(q) && fabs(q) <= 0x1p53;
}

int
dpb_ldp_input_on_grid(const dpb_ldp_protocol *p, const dpb_ldp_calib *c,
					  const double *out)
{
	int			j;

	for (j = 0; j < p->d; j++)
		if (!on_grid(out[j], c->in_gexp[0]))
			return 0;
	if (p->mech == DPB_LDP_LINEAR_INPUT)
		return on_grid(out[p->d], c->in_gexp[1]);
	return out[p->d] == 0 || out[p->d] == 1;
}
