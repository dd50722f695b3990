/*
 * release.c — calibration, noise, packing and validation of releases.
 */
#include "release.h"

#include "clip.h"
#include "dnoise.h"
#include "names.h"
#include "sensitivity.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "DPBR"

dpb_status
dpb_release_layout(const dpb_release *r, dpb_layout *L)
{
	dpb_status	st = dpb_params_model_layout(&r->p, r->model, r->d, L);

	if (st == DPB_OK && r->p.x_moments > 0)
		st = dpb_layout_add_xmoments(L);
	if (st == DPB_OK && r->p.y_clamped > 0)
		st = dpb_layout_add_yclamp(L);
	return st;
}

/* The layout of the model's blocks alone (L without the moment blocks and
 * the clamped-response count). */
static void
model_layout(const dpb_layout *L, dpb_layout *M)
{
	*M = *L;
	M->nblocks = L->nmodel_blocks;
	M->nstats = L->nmodel;
	M->xmoments = 0;
	M->yclamp = 0;
}

/* L without the clamped-response count (the model's and moment blocks). */
static void
no_yclamp_layout(const dpb_layout *L, dpb_layout *M)
{
	*M = *L;
	if (L->yclamp)
	{
		M->nblocks--;
		M->nstats--;
		M->yclamp = 0;
	}
}

/* the moment blocks X3 / X4: after the model's, before the YCLAMP block */
static int
is_moment_block(const dpb_layout *L, int b)
{
	return L->kind[b] == DPB_BLK_X3 || L->kind[b] == DPB_BLK_X4;
}

/*
 * Noise weights of the moment blocks: each block's own sensitivity times
 * one factor lambda, chosen so that the moments take the share s =
 * p.x_moments of the privacy budget (docs/privacy.md §12): of the squared
 * L2 sensitivity of the weighted release (gaussian; as zCDP's rho adds up)
 * or of the L1 sensitivity, i.e. of epsilon (laplace).  base_main is the
 * model blocks' part (Delta^2 or sum l1_b / w_b), base_mom the moments'
 * part with lambda = 1; the moments' part scales as lambda^-2 (gaussian)
 * or lambda^-1 (laplace).  The clamped-response count takes its own share
 * s_c = p.y_clamped of the same total (§17), so the model's blocks keep
 * 1 - s - s_c of it: moments / main = s / (1 - s - s_c).
 */
static double
moment_lambda(const dpb_release *r, double base_main, double base_mom)
{
	double		s = r->p.x_moments,
				ratio = base_mom * (1.0 - s - r->p.y_clamped) / (s * base_main);

	return dpb_mech_gaussian(r->p.mechanism) ? sqrt(ratio) : ratio;
}

/*
 * The noise weight of the clamped-response count (docs/privacy.md §17):
 * its part of the total, 1 / w^2 (gaussian: sensitivity 1, weight w) or
 * 1 / w (laplace), is s_c / (1 - s - s_c) times base_main, the model
 * blocks' part, so that it takes the share s_c = p.y_clamped of the total.
 */
static dpb_status
yclamp_weight(dpb_release *r, const dpb_layout *L, double base_main, dpb_err *err)
{
	double		sc = r->p.y_clamped,
				part = sc * base_main / (1.0 - r->p.x_moments - sc),
				w = dpb_mech_gaussian(r->p.mechanism) ? 1.0 / sqrt(part) : 1.0 / part;

	if (!dpb_isfinite(w) || !(w > 0) || !(w >= DBL_MIN))
	{
		dpb_err_set(err, "y_clamped is too extreme to calibrate",
					"y_clamped = %.3g leaves the %s so little of the budget that its noise is not representable.",
					sc, sc < 0.5 ? "count of clamped responses" : "model's statistics");
		return DPB_ERANGE;
	}
	r->block_weight[L->nblocks - 1] = w;
	return DPB_OK;
}

/*
 * Scales the moment blocks' weights by lambda.  A share x_moments so close
 * to 0 or 1 that a weight is no longer a positive finite number cannot be
 * calibrated: the error names x_moments (it used to surface as "noise
 * weights must be positive and finite", about weights nobody gave).
 */
static dpb_status
moment_weights(dpb_release *r, const dpb_layout *L, double lambda, dpb_err *err)
{
	for (int b = L->nmodel_blocks; b < L->nblocks; b++)
	{
		double		w = r->block_weight[b] * lambda;

		if (!is_moment_block(L, b))
			continue;

		if (!dpb_isfinite(w) || !(w > 0) || !(w >= DBL_MIN))
		{
			dpb_err_set(err, "x_moments is too extreme to calibrate",
						"x_moments = %.3g leaves the %s so little of the budget that its noise is not representable.",
						r->p.x_moments, r->p.x_moments < 0.5 ? "moments of the features" : "model's statistics");
			return DPB_ERANGE;
		}
		r->block_weight[b] = w;
	}
	return DPB_OK;
}

static double
response_bound(const dpb_release *r)
{
	return r->model == DPB_MODEL_LOGISTIC ? 1.0 : r->p.y_bound;
}

/*
 * ---- the discrete mechanism (docs/privacy.md §15) ----
 *
 * Entry k of block b has a nominal noise scale: sigma_k = w_b sigma0 /
 * weight_k (gaussian: the weighted entry gets sd w_b sigma0) or b_k = w_b b0
 * (laplace).  The block's grid is g_b = 2^m_b with
 *
 *     m_b = max(floor(log2(min_k scale_k)) - DPB_GRID_BITS,  range_b),
 *
 * range_b = ceil(log2(M_b)) + DPB_GRID_ROWS_LOG2 - 52, M_b a public bound on
 * one record's monomials in the block: so g_b <= 2^-20 scale_k unless the
 * range term wins, and the sums of up to 2^DPB_GRID_ROWS_LOG2 records are
 * below 2^52 grid steps (exact doubles, never clamped).  The integer noise of
 * entry k is a discrete Gaussian of variance s_k = ceil((sigma_k / g_b)^2)
 * or a discrete Laplace of scale t_k = ceil(b_k / g_b), computed exactly
 * (dnoise.h): the real noise is never below the nominal scale.
 */

/* floor(log2(x)) for finite x > 0 */
static int
floor_log2(double x)
{
	int			e;

	(void) frexp(x, &e);		/* x = f 2^e, f in [0.5, 1) */
	return e - 1;
}

/* the smallest k with x <= 2^k, for finite x > 0 */
static int
ceil_log2(double x)
{
	int			e;
	double		f = frexp(x, &e);

	return f == 0.5 ? e - 1 : e;
}

/*
 * range_b: ceil(log2) of a bound on one record's monomials in block b (the
 * sum of the factors' exponents, so it cannot overflow), plus
 * DPB_GRID_ROWS_LOG2 - 52.  |w_i| <= A = max(1, R) with an intercept (R
 * without), |y| <= Ry, |z_j| <= R.
 *
 * T2 never holds w_0 w_0 = 1 (layout.h: the constant is dropped, its sum
 * is N), so every one of its monomials has a feature factor: |w_i w_j| <=
 * A R = R max(1, R), i.e. max(R, R^2) with an intercept and R^2 without.
 * Release format version 2 bounded it by A^2, which kept the grid at 2^-16
 * for every R < 1 while the block's sensitivity shrinks like R: the noise
 * grew like 1 / R below R of about 1e-3 (docs/privacy.md §15).  Releases of
 * version 2 keep that grid, so that they still validate.  The bound only
 * sizes the grid: the calibration pays for whatever grid this returns
 * (range_cost), so it affects utility, never the guarantee.
 */
static int
range_exp(const dpb_release *r, const dpb_layout *L, int b)
{
	double		R = r->p.clip,
				Ry = r->model == DPB_MODEL_LOGISTIC ? 1.0 : r->p.y_bound;
	int			eA = ceil_log2(L->intercept ? fmax(1.0, R) : R),
				eR = ceil_log2(R),
				eY = ceil_log2(Ry),
				e = 0;

	switch (L->kind[b])
	{
		case DPB_BLK_T1:
			e = eA;
			break;
		case DPB_BLK_T2:
			e = r->version == DPB_RELEASE_VERSION_GRID_A2 ? 2 * eA : eA + eR;
			break;
		case DPB_BLK_YT1:
			e = eY + eA;
			break;
		case DPB_BLK_YY:
			e = 2 * eY;
			break;
		case DPB_BLK_YT2:
			e = eY + 2 * eA;
			break;
		case DPB_BLK_X3:
			e = 3 * eR;
			break;
		case DPB_BLK_X4:
			e = 4 * eR;
			break;
		case DPB_BLK_COUNT:
		case DPB_BLK_YCLAMP:
			e = 0;				/* 0 or 1 per record */
			break;
	}
	return e + DPB_GRID_ROWS_LOG2 - 52;
}

static void
nominal_scale(const dpb_release *r, const dpb_layout *L, double *out)
{
	dpb_entry	e;
	int			k;

	for (k = 0; k < L->nstats; k++)
	{
		dpb_layout_entry(L, k, &e);
		if (dpb_mech_gaussian(r->p.mechanism))
			out[k] = r->block_weight[e.block] * r->noise_scale / e.weight;
		else
			out[k] = r->block_weight[e.block] * r->noise_scale;
	}
}

/* the integer noise parameter of an entry: s (gaussian) or t (laplace);
 * the scale is at least 2^20 grid steps and inside the samplers' ranges
 * (0 is returned only for a release whose calibration is broken, and the
 * sampler then refuses it) */
static uint64_t
entry_param(dpb_mechanism mech, double scale, int m)
{
	uint64_t	v = 0;

	if (dpb_mech_gaussian(mech))
		(void) dpb_dgauss_sigma2_on_grid(scale, m, &v, NULL);
	else
		(void) dpb_dlaplace_t_on_grid(scale, m, &v, NULL);
	return v;
}

/*
 * The range grids' cost in units of sigma0 (gaussian: the L2 norm over the
 * entries of 2^range_b weight_k / w_b) or of b0 (laplace: the sum over the
 * entries of 2^range_b / w_b): one grid step per entry, in the weighted
 * space where the sensitivity is measured.
 */
static double
range_cost(const dpb_release *r, const dpb_layout *L)
{
	double		c = 0;
	dpb_entry	e;
	int			k;

	for (k = 0; k < L->nstats; k++)
	{
		double		g;

		dpb_layout_entry(L, k, &e);
		g = ldexp(1.0, range_exp(r, L, e.block)) / r->block_weight[e.block];
		if (dpb_mech_gaussian(r->p.mechanism))
			c += (g * e.weight) * (g * e.weight);
		else
			c += g;
	}
	return dpb_mech_gaussian(r->p.mechanism) ? sqrt(c) : c;
}

/*
 * Sets the grids from the nominal scales; returns the rounding term of the
 * guarantee: eta = sqrt(sum_k (g_k / sigma_k)^2) (gaussian: the L2 norm of
 * one grid step per entry, in noise units) or sum_k 1 / t_k (laplace).
 */
static dpb_status
set_grid(dpb_release *r, const dpb_layout *L, double *eta, dpb_err *err)
{
	double	   *sc = malloc(sizeof(double) * (L->nstats > 0 ? L->nstats : 1));
	double		acc = 0;
	int			b,
				k;

	if (sc == NULL)
	{
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	nominal_scale(r, L, sc);
	for (b = 0; b < L->nblocks; b++)
	{
		double		mn = INFINITY;
		int			m;

		for (k = L->start[b]; k < L->start[b] + L->len[b]; k++)
			mn = fmin(mn, sc[k]);
		if (!(mn > 0) || !dpb_isfinite(mn) || mn < 1e-290 || mn > 1e290)
		{
			free(sc);
			dpb_err_set(err, "the privacy parameters give a noise scale that is not representable",
						"Block %d's noise scale is outside [1e-290, 1e290].", b + 1);
			return DPB_EINVAL;
		}
		m = floor_log2(mn) - DPB_GRID_BITS;
		if (range_exp(r, L, b) > m)
			m = range_exp(r, L, b);
		r->grid_exp[b] = m;
		for (k = L->start[b]; k < L->start[b] + L->len[b]; k++)
		{
			double		g = ldexp(1.0, m);

			if (dpb_mech_gaussian(r->p.mechanism))
				acc += (g / sc[k]) * (g / sc[k]);
			else
				acc += 1.0 / (double) entry_param(DPB_MECH_LAPLACE, sc[k], m);
		}
	}
	free(sc);
	*eta = dpb_mech_gaussian(r->p.mechanism) ? sqrt(acc) : acc;
	return DPB_OK;
}

/*
 * Gaussian: the integer vector m(D) = round(S(D) / g) moves by at most
 * Delta / sigma0 + eta in noise units between neighbours (sensitivity plus
 * one grid step per entry), so the discrete Gaussian is rho-zCDP with rho =
 * (Delta / sigma0 + eta)^2 / 2 (Canonne, Kamath & Steinke 2020, Thm 14).
 * Since g_k <= max(2^-20 sigma_k, 2^range_k), eta <= sqrt(K) 2^-20 + c /
 * sigma0 (c = range_cost), and sigma0 = (Delta + c) / (sqrt(2 rho*) -
 * sqrt(K) 2^-20) makes rho <= rho*, the largest rho that implies (epsilon,
 * delta)-DP (their Corollary 13).
 */
static dpb_status
calibrate_gaussian(dpb_release *r, const dpb_layout *L, dpb_err *err)
{
	double		rho_star,
				eta,
				eta_max = sqrt((double) L->nstats) * ldexp(1.0, -DPB_GRID_BITS),
				room;
	dpb_status	st;

	if ((st = dpb_zcdp_rho(r->p.epsilon, r->p.delta, &rho_star, err)) != DPB_OK)
		return st;
	room = sqrt(2.0 * rho_star) - eta_max;
	r->noise_scale = (r->sensitivity + range_cost(r, L)) / room;
	if (!(room > 0.5 * sqrt(2.0 * rho_star)) || !dpb_isfinite(r->noise_scale))
	{
		dpb_err_set(err, "epsilon and delta are too small for this release",
					"Rounding to the noise grid would take more than half of the privacy budget.");
		return DPB_EINVAL;
	}
	if ((st = set_grid(r, L, &eta, err)) != DPB_OK)
		return st;
	r->rho = 0.5 * (r->sensitivity / r->noise_scale + eta) *
		(r->sensitivity / r->noise_scale + eta);
	return DPB_OK;
}

/*
 * Laplace: entry k moves by at most |dS_k| / g + 1 grid units, so the
 * discrete Laplace of scale t_k costs at most |dS_k| / b_k + g_k / b_k; the
 * release costs Delta_1 / b0 + eta <= (Delta_1 + c) / b0 + K 2^-20 =
 * epsilon (c = range_cost).
 */
static dpb_status
calibrate_laplace(dpb_release *r, const dpb_layout *L, dpb_err *err)
{
	double		eta,
				eta_max = (double) L->nstats * ldexp(1.0, -DPB_GRID_BITS),
				room = r->p.epsilon - eta_max;
	dpb_status	st;

	r->noise_scale = (r->sensitivity + range_cost(r, L)) / room;
	if (!(room > 0.5 * r->p.epsilon) || !dpb_isfinite(r->noise_scale))
	{
		dpb_err_set(err, "epsilon is too small for this release",
					"Rounding to the noise grid would take more than half of the privacy budget.");
		return DPB_EINVAL;
	}
	if ((st = set_grid(r, L, &eta, err)) != DPB_OK)
		return st;
	r->rho = 0.5 * r->p.epsilon * r->p.epsilon;
	return DPB_OK;
}

/* A block's sensitivity overflows for a huge clip or y_bound (R^4, Ry^4). */
static int
sens_representable(const dpb_release *r, int b, dpb_err *err)
{
	if (dpb_isfinite(r->block_sens[b]))
		return 1;
	dpb_err_set(err, "the privacy parameters give a sensitivity that is not representable",
				"Block %d's sensitivity overflows double precision: clip or y_bound is too large.",
				b + 1);
	return 0;
}

dpb_status
dpb_release_calibrate(dpb_release *r, dpb_err *err)
{
	dpb_layout	L;
	dpb_status	st;
	double		R = r->p.clip,
				Ry = response_bound(r),
				lambda;
	int			b;

	if (dpb_release_layout(r, &L) != DPB_OK)
	{
		dpb_err_set(err, "invalid release layout", NULL);
		return DPB_EINVAL;
	}
	r->nblocks = L.nblocks;
	r->nstats = L.nstats;
	for (b = 0; b < L.nblocks; b++)
		r->block_weight[b] = b < r->p.nweights ? r->p.noise_weights[b] : 1.0;

	if (r->p.mechanism == DPB_MECH_NONE)
	{
		/* exact statistics (the non-private reference): no noise */
		for (b = 0; b < L.nblocks; b++)
		{
			r->block_sens[b] = 0;
			r->grid_exp[b] = 0;
		}
		r->sensitivity = 0;
		r->noise_scale = 0;
		r->rho = 0;
		return DPB_OK;
	}
	/*
	 * Noise weights: given, or by default each block's own sensitivity, so
	 * that every block is perturbed in proportion to how much one record can
	 * move it (equal weights would drown the feature blocks in the noise
	 * that y^2 needs when y_bound is large).
	 */
	if (dpb_mech_gaussian(r->p.mechanism))
	{
		for (b = 0; b < L.nblocks; b++)
		{
			r->block_sens[b] = dpb_sens_l2_block(&L, b, R, Ry);
			if (!sens_representable(r, b, err))
				return DPB_ERANGE;
			if (!r->p.nweights || b >= L.nmodel_blocks)
				r->block_weight[b] = r->block_sens[b];
		}
		if (L.xmoments || L.yclamp)
		{
			dpb_layout	M,
						X;
			double		dm,
						dall;

			model_layout(&L, &M);
			if ((st = dpb_sens_l2(&M, R, Ry, r->block_weight, &dm, err)) != DPB_OK)
				return st;
			if (L.xmoments)
			{
				/* the moments' part: the model's and moment blocks' Delta^2
				 * less the model's (the two add up, §12 and §13) */
				no_yclamp_layout(&L, &X);
				if ((st = dpb_sens_l2(&X, R, Ry, r->block_weight, &dall, err)) != DPB_OK)
					return st;
				lambda = moment_lambda(r, dm * dm, dall * dall - dm * dm);
				if ((st = moment_weights(r, &L, lambda, err)) != DPB_OK)
					return st;
			}
			if (L.yclamp && (st = yclamp_weight(r, &L, dm * dm, err)) != DPB_OK)
				return st;
		}
		st = dpb_sens_l2(&L, R, Ry, r->block_weight, &r->sensitivity, err);
		if (st != DPB_OK)
			return st;
		return calibrate_gaussian(r, &L, err);
	}
	else
	{
		double		B = dpb_coord_bound(&r->p, r->d),
					main = 0,
					mom = 0;

		for (b = 0; b < L.nblocks; b++)
		{
			r->block_sens[b] = dpb_sens_l1_block(&L, b, B, R, Ry);
			if (!sens_representable(r, b, err))
				return DPB_ERANGE;
			if (!r->p.nweights || b >= L.nmodel_blocks)
				r->block_weight[b] = r->block_sens[b];
			if (b < L.nmodel_blocks)
				main += r->block_sens[b] / r->block_weight[b];
			else if (is_moment_block(&L, b))
				mom += r->block_sens[b] / r->block_weight[b];
		}
		if (L.xmoments)
		{
			lambda = moment_lambda(r, main, mom);
			if ((st = moment_weights(r, &L, lambda, err)) != DPB_OK)
				return st;
		}
		if (L.yclamp && (st = yclamp_weight(r, &L, main, err)) != DPB_OK)
			return st;
		r->sensitivity = 0;
		for (b = 0; b < L.nblocks; b++)
			r->sensitivity += r->block_sens[b] / r->block_weight[b];
		return calibrate_laplace(r, &L, err);
	}
}

void
dpb_release_noise_scale(const dpb_release *r, double *out)
{
	dpb_layout	L;
	dpb_entry	e;
	int			k;

	/* out has r->nstats entries: never write more (a release whose count
	 * does not match its layout is invalid anyway) */
	if (dpb_release_layout(r, &L) != DPB_OK)
		return;
	for (k = 0; k < L.nstats && k < r->nstats; k++)
	{
		double		nominal;
		int			m;

		dpb_layout_entry(&L, k, &e);
		m = r->grid_exp[e.block];
		if (dpb_mech_gaussian(r->p.mechanism))
		{
			nominal = r->block_weight[e.block] * r->noise_scale / e.weight;
			out[k] = ldexp(sqrt((double) entry_param(r->p.mechanism, nominal, m)), m);
			/* the sum of n independent reports: n times the variance of one
			 * (every report drew the same integer variance) */
			if (r->p.mechanism == DPB_MECH_LDP_GAUSSIAN)
				out[k] *= sqrt((double) r->n);
		}
		else if (r->p.mechanism == DPB_MECH_LAPLACE)
		{
			nominal = r->block_weight[e.block] * r->noise_scale;
			out[k] = ldexp((double) entry_param(r->p.mechanism, nominal, m), m);
		}
		else
			out[k] = 0;
	}
}

void
dpb_release_count(const dpb_release *r, double *n, double *n_sd, int *known)
{
	dpb_layout	L;
	int			k;

	if (r->p.neighbours == DPB_NB_REPLACE || dpb_release_layout(r, &L) != DPB_OK ||
		(k = dpb_layout_count_index(&L)) < 0 || k >= r->nstats || r->stats == NULL)
	{
		*n = (double) r->n;
		*n_sd = 0.0;
		*known = 1;
		return;
	}
	*n = r->stats[k];
	if (r->p.mechanism == DPB_MECH_NONE)
	{
		*n_sd = 0.0;
		*known = 1;
		return;
	}
	/* the count's weight is 1 (layout.h), so its sd is its block's */
	*n_sd = r->block_weight[L.nmodel_blocks - 1] * r->noise_scale;
	if (r->p.mechanism == DPB_MECH_LAPLACE)
		*n_sd *= M_SQRT2;
	*known = 0;
}

int
dpb_release_yclamp(const dpb_release *r, double *count, double *sd)
{
	dpb_layout	L;
	int			k;
	double	   *all;

	*count = 0.0;
	*sd = 0.0;
	if (dpb_release_layout(r, &L) != DPB_OK || (k = dpb_layout_yclamp_index(&L)) < 0 ||
		k >= r->nstats || r->stats == NULL)
		return 0;
	all = malloc(sizeof(double) * (size_t) r->nstats);
	if (all == NULL)
		return 0;
	dpb_release_noise_sd(r, all);
	*count = r->stats[k];
	*sd = all[k];
	free(all);
	return 1;
}

void
dpb_release_noise_sd(const dpb_release *r, double *out)
{
	int			k;

	dpb_release_noise_scale(r, out);
	if (r->p.mechanism == DPB_MECH_LAPLACE)
		for (k = 0; k < r->nstats; k++)
			out[k] *= M_SQRT2;
}

#define GRID_MAX ((int64_t) 1 << 52)

/*
 * I 2^-sh rounded to the nearest integer (ties to even), clamped to
 * [-2^52, 2^52].  |I| < 2^116 (at most 2^63 records of monomials below
 * 2^52), so for sh >= 120 the result is 0.
 */
static int64_t
round_shift(dpb_i128 I, int sh)
{
	dpb_i128	q;

	if (I == 0)
		return 0;
	if (sh <= 0)
	{
		dpb_i128	lim = (dpb_i128) GRID_MAX;

		if (-sh >= 64)
			return I > 0 ? GRID_MAX : -GRID_MAX;
		lim >>= -sh;			/* |I| 2^-sh <= 2^52 iff |I| <= lim */
		if (I > lim)
			return GRID_MAX;
		if (I < -lim)
			return -GRID_MAX;
		return (int64_t) (I * ((dpb_i128) 1 << -sh));
	}
	if (sh >= 120)
		return 0;
	{
		dpb_i128	half = (dpb_i128) 1 << (sh - 1),
					rem;

		q = I >> sh;			/* floor: arithmetic shift */
		rem = I - q * ((dpb_i128) 1 << sh); /* in [0, 2^sh) */
		if (rem > half || (rem == half && (q & 1)))
			q += 1;
	}
	if (q > GRID_MAX)
		return GRID_MAX;
	if (q < -GRID_MAX)
		return -GRID_MAX;
	return (int64_t) q;
}

dpb_status
dpb_release_add_noise(dpb_release *r, const dpb_i128 *I, const int *e,
					  dpb_rbits *rb, dpb_err *err)
{
	dpb_layout	L;
	dpb_entry	en;
	int			k;

	if (dpb_release_layout(r, &L) != DPB_OK || L.nstats != r->nstats ||
		L.nblocks != r->nblocks)
	{
		dpb_err_set(err, "invalid release", "The release is not calibrated for its layout.");
		return DPB_ECORRUPT;
	}
	if (r->p.mechanism == DPB_MECH_NONE)
	{
		for (k = 0; k < r->nstats; k++)
			r->stats[k] = I ? ldexp((double) I[k], -e[k]) : 0.0;
		return DPB_OK;
	}
	if (r->p.mechanism == DPB_MECH_LDP_GAUSSIAN)
	{
		/* its noise comes from the clients, never from here */
		dpb_err_set(err, "an ldp_gaussian release is a sum of local-DP reports",
					"Only dpbayes.ldp_release makes it; no noise is added to it.");
		return DPB_EINVAL;
	}
	for (k = 0; k < r->nstats; k++)
	{
		double		nominal;
		int			m;
		int64_t		v,
					y = 0;
		dpb_status	st;

		dpb_layout_entry(&L, k, &en);
		m = r->grid_exp[en.block];
		v = I ? round_shift(I[k], e[k] + m) : 0;
		if (r->p.mechanism == DPB_MECH_GAUSSIAN)
		{
			nominal = r->block_weight[en.block] * r->noise_scale / en.weight;
			st = dpb_dgauss(rb, entry_param(DPB_MECH_GAUSSIAN, nominal, m), &y);
		}
		else
		{
			nominal = r->block_weight[en.block] * r->noise_scale;
			st = dpb_dlaplace(rb, entry_param(DPB_MECH_LAPLACE, nominal, m), &y);
		}
		if (st != DPB_OK || dpb_rbits_failed(rb))
		{
			memset(r->stats, 0, sizeof(double) * r->nstats);
			dpb_err_set(err, "could not generate random numbers", NULL);
			return DPB_ERNG;
		}
		/* |y| < 2^50 by the samplers' ranges; clamping after the noise is
		 * post-processing */
		v += y;
		if (v >= ((int64_t) 1 << 53))
			v = ((int64_t) 1 << 53) - 1;
		if (v <= -((int64_t) 1 << 53))
			v = -((int64_t) 1 << 53) + 1;
		r->stats[k] = ldexp((double) v, m);
	}
	return DPB_OK;
}

int
dpb_release_on_grid(const dpb_release *r, int *bad_index)
{
	dpb_layout	L;
	dpb_entry	en;
	int			k;

	if (r->p.mechanism == DPB_MECH_NONE)
		return 1;
	if (dpb_release_layout(r, &L) != DPB_OK || L.nstats != r->nstats)
		return 0;
	for (k = 0; k < r->nstats; k++)
	{
		double		x;

		dpb_layout_entry(&L, k, &en);
		x = ldexp(r->stats[k], -r->grid_exp[en.block]);
		if (!dpb_isfinite(x) || x != floor(x) || fabs(x) >= 9007199254740992.0)
		{
			if (bad_index)
				*bad_index = k;
			return 0;
		}
	}
	return 1;
}

/* ---- packing: little-endian, byte by byte ---- */

static void
put_u64(unsigned char **p, uint64_t v)
{
	int			i;

	for (i = 0; i < 8; i++)
		(*p)[i] = (unsigned char) (v >> (8 * i));
	*p += 8;
}

static void
put_f64(unsigned char **p, double v)
{
	uint64_t	u;

	memcpy(&u, &v, 8);
	put_u64(p, u);
}

static void
put_u16(unsigned char **p, unsigned v)
{
	(*p)[0] = (unsigned char) v;
	(*p)[1] = (unsigned char) (v >> 8);
	*p += 2;
}

static void
put_u8(unsigned char **p, unsigned v)
{
	**p = (unsigned char) v;
	*p += 1;
}

typedef struct reader
{
	const unsigned char *p;
	size_t		left;
	int			bad;
} reader;

static const unsigned char *
take(reader *rd, size_t n)
{
	const unsigned char *q = rd->p;

	if (rd->bad || rd->left < n)
	{
		rd->bad = 1;
		return NULL;
	}
	rd->p += n;
	rd->left -= n;
	return q;
}

static uint64_t
get_u64(reader *rd)
{
	const unsigned char *q = take(rd, 8);
	uint64_t	v = 0;
	int			i;

	if (q == NULL)
		return 0;
	for (i = 0; i < 8; i++)
		v |= (uint64_t) q[i] << (8 * i);
	return v;
}

static double
get_f64(reader *rd)
{
	uint64_t	u = get_u64(rd);
	double		v;

	memcpy(&v, &u, 8);
	return v;
}

static unsigned
get_u16(reader *rd)
{
	const unsigned char *q = take(rd, 2);

	return q ? (unsigned) q[0] | ((unsigned) q[1] << 8) : 0;
}

static unsigned
get_u8(reader *rd)
{
	const unsigned char *q = take(rd, 1);

	return q ? q[0] : 0;
}

#define FLAG_INTERCEPT 1
#define FLAG_INSECURE 2
#define FLAG_BOUNDS 4
#define FLAG_NAMES 8
#define FLAG_XMOMENTS 16		/* followed by the f64 share p.x_moments */
#define FLAG_ADD_REMOVE 32		/* add/remove neighbours: the n field is 0 */
#define FLAG_SIGNED 64			/* followed, after the statistics, by the
								 * version-1 signature: key id, value,
								 * request id and dataset (length byte +
								 * UTF-8 each) */
#define FLAG_SIG_VERSIONED 128	/* followed, after the statistics, by a
								 * versioned signature block: its version
								 * (2), key id, value, request id, dataset,
								 * binding (release_sig.c); never with
								 * FLAG_SIGNED */
/*
 * The second flags byte (version 4; the reserved byte, always 0, before):
 */
#define FLAG2_YCLAMP 1			/* followed, after the x_moments share when
								 * present, by the f64 share p.y_clamped */
#define FLAGS2_KNOWN FLAG2_YCLAMP

/* the signature block: the 0.1.0 block for version 1, else versioned */
#define SIG_VERSIONED(sig) ((sig)->version != DPB_SIG_V1)

size_t
dpb_release_packed_size(const dpb_release *r)
{
	size_t		sz = 4 + 2 + 1 + 1 + 1 + 1 + 2 + 1 + 1 + 8 + 6 * 8;
	int			j;

	sz += 2 * 8 * (size_t) r->nblocks + 1;	/* weights, block_sens, nweights */
	if (r->p.x_moments > 0)
		sz += 8;
	if (r->p.y_clamped > 0)
		sz += 8;
	if (r->p.has_bounds)
		sz += 2 * 8 * (size_t) r->d;
	if (r->p.has_names)
		for (j = 0; j < r->d; j++)
			sz += 1 + strlen(r->p.names[j]);
	sz += 4 + 8 * (size_t) r->nstats;
	if (r->sig.present)
		sz += dpb_sig_block_size(&r->sig, SIG_VERSIONED(&r->sig));
	return sz;
}

void
dpb_release_pack(const dpb_release *r, unsigned char *buf)
{
	unsigned char *p = buf;
	int			j,
				flags = 0;

	memcpy(p, MAGIC, 4);
	p += 4;
	put_u16(&p, (unsigned) r->version);
	put_u8(&p, (unsigned) r->model);
	put_u8(&p, (unsigned) r->p.mechanism);
	put_u8(&p, (unsigned) r->p.scaling);
	if (r->p.intercept)
		flags |= FLAG_INTERCEPT;
	if (r->insecure)
		flags |= FLAG_INSECURE;
	if (r->p.has_bounds)
		flags |= FLAG_BOUNDS;
	if (r->p.has_names)
		flags |= FLAG_NAMES;
	if (r->p.x_moments > 0)
		flags |= FLAG_XMOMENTS;
	if (r->p.neighbours == DPB_NB_ADD_REMOVE)
		flags |= FLAG_ADD_REMOVE;
	if (r->sig.present)
		flags |= SIG_VERSIONED(&r->sig) ? FLAG_SIG_VERSIONED : FLAG_SIGNED;
	put_u8(&p, (unsigned) flags);
	put_u16(&p, (unsigned) r->d);
	put_u8(&p, (unsigned) r->nblocks);
	put_u8(&p, (unsigned) r->p.nweights);
	put_u64(&p, (uint64_t) r->n);
	put_f64(&p, r->p.epsilon);
	put_f64(&p, r->p.delta);
	put_f64(&p, r->p.clip);
	put_f64(&p, r->p.y_bound);
	put_f64(&p, r->sensitivity);
	put_f64(&p, r->noise_scale);
	/* the second flags byte (reserved, 0, before version 4) */
	put_u8(&p, r->p.y_clamped > 0 ? FLAG2_YCLAMP : 0);
	if (r->p.x_moments > 0)
		put_f64(&p, r->p.x_moments);
	if (r->p.y_clamped > 0)
		put_f64(&p, r->p.y_clamped);
	for (j = 0; j < r->nblocks; j++)
	{
		put_f64(&p, r->block_weight[j]);
		put_f64(&p, r->block_sens[j]);
	}
	if (r->p.has_bounds)
		for (j = 0; j < r->d; j++)
		{
			put_f64(&p, r->p.lower[j]);
			put_f64(&p, r->p.upper[j]);
		}
	if (r->p.has_names)
		for (j = 0; j < r->d; j++)
		{
			size_t		l = strlen(r->p.names[j]);

			put_u8(&p, (unsigned) l);
			memcpy(p, r->p.names[j], l);
			p += l;
		}
	p[0] = (unsigned char) r->nstats;
	p[1] = (unsigned char) (r->nstats >> 8);
	p[2] = (unsigned char) (r->nstats >> 16);
	p[3] = (unsigned char) (r->nstats >> 24);
	p += 4;
	for (j = 0; j < r->nstats; j++)
		put_f64(&p, r->stats[j]);
	if (r->sig.present)
		(void) dpb_sig_block_write(&r->sig, SIG_VERSIONED(&r->sig), p);
}

void
dpb_release_free_stats(dpb_release *r)
{
	free(r->stats);
	r->stats = NULL;
}

dpb_status
dpb_release_unpack(const unsigned char *buf, size_t len, dpb_release *r,
				   dpb_err *err)
{
	reader		rd = {buf, len, 0};
	const unsigned char *m;
	unsigned	flags,
				flags2,
				nst,
				j;
	const unsigned char *q;
	dpb_status	st;

	memset(r, 0, sizeof(*r));
	dpb_params_default(&r->p);
	m = take(&rd, 4);
	if (m == NULL || memcmp(m, MAGIC, 4) != 0)
	{
		dpb_err_set(err, "invalid release", "The value is not a dpbayes release.");
		return DPB_ECORRUPT;
	}
	r->version = (int) get_u16(&rd);
	if (!rd.bad && !DPB_RELEASE_VERSION_OK(r->version))
	{
		dpb_err_set(err, "unsupported release format version",
					"Version %d; this build reads versions %d to %d.",
					r->version, DPB_RELEASE_VERSION_GRID_A2, DPB_RELEASE_VERSION);
		return DPB_ECORRUPT;
	}
	r->model = (dpb_model) get_u8(&rd);
	r->p.mechanism = (dpb_mechanism) get_u8(&rd);
	r->p.scaling = (dpb_scaling) get_u8(&rd);
	flags = get_u8(&rd);
	r->p.intercept = (flags & FLAG_INTERCEPT) != 0;
	r->insecure = (flags & FLAG_INSECURE) != 0;
	r->p.has_bounds = (flags & FLAG_BOUNDS) != 0;
	r->p.has_names = (flags & FLAG_NAMES) != 0;
	r->p.neighbours = (flags & FLAG_ADD_REMOVE) ? DPB_NB_ADD_REMOVE : DPB_NB_REPLACE;
	r->d = (int) get_u16(&rd);
	r->p.d = r->d;
	r->nblocks = (int) get_u8(&rd);
	r->p.nweights = (int) get_u8(&rd);
	r->n = (int64_t) get_u64(&rd);
	r->p.epsilon = get_f64(&rd);
	r->p.delta = get_f64(&rd);
	r->p.clip = get_f64(&rd);
	r->p.y_bound = get_f64(&rd);
	r->sensitivity = get_f64(&rd);
	r->noise_scale = get_f64(&rd);
	flags2 = get_u8(&rd);
	if (r->version <= DPB_RELEASE_VERSION_NO_YCLAMP)
		flags2 = 0;				/* a reserved byte, never read */
	else if (flags2 & ~FLAGS2_KNOWN)
		rd.bad = 1;
	if (flags & FLAG_XMOMENTS)
	{
		r->p.x_moments = get_f64(&rd);
		if (!(r->p.x_moments > 0))
			rd.bad = 1;			/* the flag means a positive share */
	}
	if (flags2 & FLAG2_YCLAMP)
	{
		r->p.y_clamped = get_f64(&rd);
		if (!(r->p.y_clamped > 0))
			rd.bad = 1;
	}
	if (rd.bad || ((flags & FLAG_SIGNED) && (flags & FLAG_SIG_VERSIONED)) ||
		r->d < 1 || r->d > DPB_MAX_D ||
		r->nblocks < 1 || r->nblocks > DPB_MAX_BLOCKS ||
		r->p.nweights < 0 || r->p.nweights > r->nblocks)
	{
		dpb_err_set(err, "invalid release", "The release header is malformed or truncated.");
		return DPB_ECORRUPT;
	}
	for (j = 0; j < (unsigned) r->nblocks; j++)
	{
		r->block_weight[j] = get_f64(&rd);
		r->block_sens[j] = get_f64(&rd);
		if (j < (unsigned) r->p.nweights)
			r->p.noise_weights[j] = r->block_weight[j];
	}
	if (r->p.has_bounds)
		for (j = 0; j < (unsigned) r->d; j++)
		{
			r->p.lower[j] = get_f64(&rd);
			r->p.upper[j] = get_f64(&rd);
		}
	if (r->p.has_names)
		for (j = 0; j < (unsigned) r->d; j++)
		{
			unsigned	l = get_u8(&rd);

			if (l >= DPB_NAME_LEN || (q = take(&rd, l)) == NULL)
			{
				rd.bad = 1;
				break;
			}
			/* a NUL inside would end the name early (names.h) */
			if (memchr(q, '\0', l) != NULL)
			{
				dpb_err_set(err, "invalid release",
							"Feature %u's name contains a NUL byte.", j + 1);
				return DPB_ECORRUPT;
			}
			memcpy(r->p.names[j], q, l);
			r->p.names[j][l] = '\0';
		}
	q = take(&rd, 4);
	if (q == NULL)
	{
		dpb_err_set(err, "invalid release", "The release is truncated.");
		return DPB_ECORRUPT;
	}
	nst = (unsigned) q[0] | ((unsigned) q[1] << 8) | ((unsigned) q[2] << 16) |
		((unsigned) q[3] << 24);
	if (nst > 100000 || ((flags & (FLAG_SIGNED | FLAG_SIG_VERSIONED)) ?
						 rd.left <= 8 * (size_t) nst : rd.left != 8 * (size_t) nst))
	{
		dpb_err_set(err, "invalid release",
					"The release's length does not match its statistics.");
		return DPB_ECORRUPT;
	}
	r->nstats = (int) nst;
	r->stats = malloc(sizeof(double) * (nst > 0 ? nst : 1));
	if (r->stats == NULL)
	{
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	for (j = 0; j < nst; j++)
		r->stats[j] = get_f64(&rd);
	/* the signature block ends the buffer (release_sig.c checks its length,
	 * version and texts) */
	if ((flags & (FLAG_SIGNED | FLAG_SIG_VERSIONED)) &&
		(st = dpb_sig_block_read(rd.p, rd.left, (flags & FLAG_SIG_VERSIONED) != 0,
								 &r->sig, err)) != DPB_OK)
	{
		dpb_release_free_stats(r);
		return st;
	}
	dpb_release_derive(r);
	st = dpb_release_validate(r, err);
	if (st != DPB_OK)
		dpb_release_free_stats(r);
	return st;
}

/*
 * The calibration must be usable: finite and positive, with every entry's
 * noise scale at most DPB_MAX_NOISE_SCALE, so that no draw of the noise
 * (a few hundred scales at the very most) can overflow a double.
 */
static dpb_status
calibration_usable(const dpb_release *r, dpb_err *err)
{
	double	   *scale;
	int			b,
				k;

	if (r->p.mechanism == DPB_MECH_NONE)
		return DPB_OK;
	if (!(dpb_isfinite(r->sensitivity) && r->sensitivity > 0 &&
		  dpb_isfinite(r->noise_scale) && r->noise_scale > 0))
	{
		dpb_err_set(err, "the privacy parameters give a noise scale that is not representable",
					"The sensitivity or the noise scale is not a positive finite number.");
		return DPB_EINVAL;
	}
	for (b = 0; b < r->nblocks; b++)
		if (!(dpb_isfinite(r->block_weight[b]) && r->block_weight[b] > 0 &&
			  dpb_isfinite(r->block_sens[b]) && r->block_sens[b] > 0))
		{
			dpb_err_set(err, "the privacy parameters give a noise scale that is not representable",
						"Block %d's sensitivity or noise weight is not a positive finite number.",
						b + 1);
			return DPB_EINVAL;
		}
	scale = malloc(sizeof(double) * (r->nstats > 0 ? r->nstats : 1));
	if (scale == NULL)
	{
		dpb_err_set(err, "out of memory", NULL);
		return DPB_ENOMEM;
	}
	dpb_release_noise_scale(r, scale);
	for (k = 0; k < r->nstats; k++)
		if (!(dpb_isfinite(scale[k]) && scale[k] <= DPB_MAX_NOISE_SCALE))
		{
			free(scale);
			dpb_err_set(err, "the privacy parameters give a noise scale that is not representable",
						"Statistic %d would get noise of scale above %g.", k + 1,
						DPB_MAX_NOISE_SCALE);
			return DPB_EINVAL;
		}
	free(scale);
	return DPB_OK;
}

dpb_status
dpb_release_check_params(dpb_model model, const dpb_params *p, int d, dpb_err *err)
{
	dpb_release r;
	dpb_status	st;

	memset(&r, 0, sizeof(r));
	r.version = DPB_RELEASE_VERSION;
	r.model = model;
	r.p = *p;
	r.p.d = d;
	r.d = d;
	if ((st = dpb_params_check_model(&r.p, model, d, err)) != DPB_OK ||
		(st = dpb_release_calibrate(&r, err)) != DPB_OK)
		return st;
	return calibration_usable(&r, err);
}

static int
close_rel(double a, double b)
{
	if (!dpb_isfinite(a) || !dpb_isfinite(b))
		return 0;
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

dpb_status
dpb_release_validate(const dpb_release *r, dpb_err *err)
{
	dpb_release chk;
	dpb_layout	L;
	dpb_err		e2;
	int			j,
				b;

	if (!DPB_RELEASE_VERSION_OK(r->version))
	{
		dpb_err_set(err, "unsupported release format version", NULL);
		return DPB_ECORRUPT;
	}
	if (r->model != DPB_MODEL_LINEAR && r->model != DPB_MODEL_LOGISTIC &&
		r->model != DPB_MODEL_POISSON)
	{
		dpb_err_set(err, "invalid release", "Unknown model.");
		return DPB_ECORRUPT;
	}
	if (r->n < 0)
	{
		dpb_err_set(err, "invalid release", "The row count is negative.");
		return DPB_ECORRUPT;
	}
	if (r->p.mechanism == DPB_MECH_LDP_GAUSSIAN &&
		(r->p.neighbours != DPB_NB_REPLACE || r->n < 1 || r->p.x_moments != 0 ||
		 r->p.scaling != DPB_SCALE_BOX || r->p.has_names))
	{
		/* exactly what dpbayes.ldp_release makes from an ss_* protocol */
		dpb_err_set(err, "invalid release",
					"An ldp_gaussian release sums at least one report under replace-one neighbours, with box scaling, no feature moments and no feature names.");
		return DPB_ECORRUPT;
	}
	if (r->p.y_clamped != 0 &&
		(r->version <= DPB_RELEASE_VERSION_NO_YCLAMP ||
		 r->p.mechanism == DPB_MECH_LDP_GAUSSIAN))
	{
		/* the block exists from version 4 on, in central releases only
		 * (an LDP release's statistics are fixed by its protocol) */
		dpb_err_set(err, "invalid release",
					r->p.mechanism == DPB_MECH_LDP_GAUSSIAN ?
					"An ldp_gaussian release has no count of clamped responses." :
					"A release of format version %d has no count of clamped responses (y_clamped).",
					r->version);
		return DPB_ECORRUPT;
	}
	if (r->p.neighbours == DPB_NB_ADD_REMOVE && r->n != 0)
	{
		/* N is private there: only its noisy count may be released */
		dpb_err_set(err, "invalid release",
					"A release under add_remove neighbours must not record the row count.");
		return DPB_ECORRUPT;
	}
	if (r->p.d != r->d ||
		dpb_params_check_model(&r->p, r->model, r->d, &e2) != DPB_OK)
	{
		if (r->p.d != r->d)
			dpb_err_set(err, "invalid release", "Its feature counts do not match.");
		else
			dpb_err_set(err, "invalid release", "Its privacy parameters are invalid (%s). %s",
						e2.msg, e2.detail);
		return DPB_ECORRUPT;
	}
	dpb_release_layout(r, &L);
	if (r->nblocks != L.nblocks || r->nstats != L.nstats)
	{
		dpb_err_set(err, "invalid release",
					"A %s release with %d features has %d statistics; this one has %d.",
					dpb_model_name(r->model), r->d, L.nstats, r->nstats);
		return DPB_ECORRUPT;
	}
	for (j = 0; j < r->nstats; j++)
		if (!dpb_isfinite(r->stats[j]))
		{
			dpb_err_set(err, "invalid release", "Statistic %d is not finite.", j + 1);
			return DPB_ECORRUPT;
		}
	/* the calibration must be the one the parameters imply */
	chk = *r;
	chk.stats = NULL;
	if (dpb_release_calibrate(&chk, &e2) != DPB_OK)
	{
		dpb_err_set(err, "invalid release", "Its calibration fails: %s.", e2.msg);
		return DPB_ECORRUPT;
	}
	if (calibration_usable(&chk, &e2) != DPB_OK)
	{
		dpb_err_set(err, "invalid release", "%s", e2.detail);
		return DPB_ECORRUPT;
	}
	if (!close_rel(chk.sensitivity, r->sensitivity) ||
		!close_rel(chk.noise_scale, r->noise_scale))
	{
		dpb_err_set(err, "inconsistent release",
					"The recorded sensitivity or noise scale does not match the privacy parameters.");
		return DPB_ECORRUPT;
	}
	for (b = 0; b < r->nblocks; b++)
		if (!close_rel(chk.block_sens[b], r->block_sens[b]) ||
			!close_rel(chk.block_weight[b], r->block_weight[b]) ||
			chk.grid_exp[b] != r->grid_exp[b])
		{
			dpb_err_set(err, "inconsistent release",
						"Block %d's sensitivity, noise weight or noise grid does not match the privacy parameters.",
						b + 1);
			return DPB_ECORRUPT;
		}
	if (!dpb_release_on_grid(r, &j))
	{
		dpb_err_set(err, "inconsistent release",
					"Statistic %d is not a multiple of its block's noise grid.", j + 1);
		return DPB_ECORRUPT;
	}
	return DPB_OK;
}

void
dpb_release_derive(dpb_release *r)
{
	dpb_release chk = *r;
	dpb_err		e2;
	int			b;

	chk.stats = NULL;
	if (dpb_release_calibrate(&chk, &e2) != DPB_OK)
		return;					/* validation reports it */
	for (b = 0; b < DPB_MAX_BLOCKS; b++)
		r->grid_exp[b] = chk.grid_exp[b];
	r->rho = chk.rho;
}

/* ---- a whole release from rows in memory (tests, benchmarks, clients) ---- */

dpb_status
dpb_release_from_rows(dpb_release *r, dpb_model model, const dpb_params *p, int d,
					  const double *X, const double *Y, int64_t n, dpb_rbits *rb,
					  int64_t *clipped, dpb_err *err)
{
	dpb_layout	L;
	dpb_clipper c;
	dpb_acc		acc;
	dpb_acc_bounds ab;
	double		z[DPB_MAX_D];
	dpb_i128   *I = NULL;
	int		   *e = NULL;
	void	   *raw = NULL;
	size_t		sz;
	int64_t		i;
	dpb_status	st;

	memset(r, 0, sizeof(*r));
	r->version = DPB_RELEASE_VERSION;
	r->model = model;
	r->d = d;
	r->p = *p;
	r->p.d = d;
	/* under add/remove the exact N is not released (the count block is) */
	r->n = r->p.neighbours == DPB_NB_REPLACE ? n : 0;
	if (clipped)
		*clipped = 0;
	if ((st = dpb_params_check_model(&r->p, model, d, err)) != DPB_OK ||
		(st = dpb_release_calibrate(r, err)) != DPB_OK ||
		(st = dpb_release_layout(r, &L)) != DPB_OK)
		return st;
	dpb_clipper_init(&c, &r->p, model, d);
	ab.model = model;
	ab.d = d;
	ab.xmom = r->p.x_moments > 0;
	ab.R = r->p.clip;
	ab.B = dpb_coord_bound(&r->p, d);
	ab.Ry = r->p.y_bound;
	sz = dpb_acc_size(d, model == DPB_MODEL_POISSON, ab.xmom);
	raw = malloc(sz + 16);
	r->stats = calloc(L.nstats > 0 ? L.nstats : 1, sizeof(double));
	I = malloc(sizeof(dpb_i128) * (L.nstats > 0 ? L.nstats : 1));
	e = malloc(sizeof(int) * (L.nstats > 0 ? L.nstats : 1));
	if (raw == NULL || r->stats == NULL || I == NULL || e == NULL)
	{
		dpb_err_set(err, "out of memory", NULL);
		st = DPB_ENOMEM;
		goto done;
	}
	dpb_acc_init(&acc, (void *) (((uintptr_t) raw + 15) & ~(uintptr_t) 15), &ab);
	for (i = 0; i < n; i++)
	{
		double		y = dpb_clip_y(&c, Y[i]);
		int			cl = dpb_clip_x(&c, X + (size_t) i * d, z);

		if (cl < 0)
		{
			dpb_err_set(err, "feature values must be finite", NULL);
			st = DPB_EINVAL;
			goto done;
		}
		if (clipped && (cl || y != Y[i]))
			(*clipped)++;
		dpb_acc_add(&acc, z, y);
		if (dpb_clip_y_clamped(&c, Y[i]))
			dpb_acc_add_yclamped(&acc);
	}
	dpb_acc_fixed(&acc, &L, I, e);
	if (rb != NULL)
		st = dpb_release_add_noise(r, I, e, rb, err);
	else
	{
		/* the exact sums (tests only: such an object is not a release) */
		for (i = 0; i < L.nstats; i++)
			r->stats[i] = ldexp((double) I[i], -e[i]);
		st = DPB_OK;
	}
done:
	free(raw);
	free(I);
	free(e);
	if (st != DPB_OK)
		dpb_release_free_stats(r);
	return st;
}
