/*
 * sensitivity.c — L2 (Gaussian) and L1 (Laplace) sensitivities of the
 * released blocks (see sensitivity.h).
 *
 * Every closed form here is derived in docs/privacy.md, section by section
 * in the same order as the functions below, and checked against a
 * brute-force search in test/test_sensitivity.c.  The sensitivity is the
 * privacy proof: each function returns the exact supremum (or, for the
 * Laplace L1 bound, a valid upper bound), never less.
 *
 * Notation (docs/privacy.md §2): k = intercept (0 or 1), Am = k + R^2 is the
 * largest ||w||^2, T = <w, w'> ranges over [k - R^2, k + R^2] and c_b =
 * 1 / nw[b]^2 is the weight of block b in the joint squared distance.
 */
#include "sensitivity.h"

#include <math.h>

/*
 * Relative safety margin applied to every returned sensitivity, so that
 * floating-point rounding (a few ulps per formula) can never make the
 * result fall below the true supremum.
 */
#define SENS_MARGIN 1e-10

static double
sq(double v)
{
	return v * v;
}

/* The response's bound: Ry, or 1 for the binary (logistic) response. */
static double
y_bound(const dpb_layout *L, double Ry)
{
	return dpb_model_ydomain(L->model) == DPB_Y_BINARY ? 1.0 : Ry;
}

/*
 * ||B(r) - B(r')||^2 of one (unweighted) block as a polynomial in
 * a = ||z||^2, a2 = ||z'||^2, t = <z, z'>, y, y2 and the intercept k, with
 * A = k + a, A2 = k + a2, T = k + t (docs/privacy.md §1; the moment blocks
 * X3 / X4 are monomials of z, not of w: §12).
 */
static double
block_norm_sq(dpb_block_kind kind, double k, double a, double a2, double t,
			  double y, double y2)
{
	/*
	 * Expanded so that the intercept's constant terms cancel algebraically,
	 * not in floating point: (k + a)^2 + (k + a2)^2 - 2 (k + t)^2 computed
	 * as written loses the O(R^2) part when R^2 is below the double's
	 * resolution of k (docs/privacy.md §14).
	 */
	double		d1 = a + a2 - 2.0 * t,
				yd = y - y2;

	switch (kind)
	{
		case DPB_BLK_T1:
			return d1;
		case DPB_BLK_T2:
			return 2.0 * k * d1 + a * a + a2 * a2 - 2.0 * t * t;
		case DPB_BLK_YT1:
			return k * yd * yd + y * y * a + y2 * y2 * a2 - 2.0 * y * y2 * t;
		case DPB_BLK_YY:
			return sq(y * y - y2 * y2);
		case DPB_BLK_YT2:
			return k * k * yd * yd
				+ 2.0 * k * (y * y * a + y2 * y2 * a2 - 2.0 * y * y2 * t)
				+ y * y * a * a + y2 * y2 * a2 * a2 - 2.0 * y * y2 * t * t;
		case DPB_BLK_X3:
			return a * a * a + a2 * a2 * a2 - 2.0 * t * t * t;
		case DPB_BLK_X4:
			return sq(a * a) + sq(a2 * a2) - 2.0 * sq(t * t);
		case DPB_BLK_COUNT:
			return 0.0;			/* 1 - 1 (not in replace layouts anyway) */
		case DPB_BLK_YCLAMP:
			/* (1{|y_raw| > Ry} - 1{|y2_raw| > Ry})^2 is not a function of
			 * the clamped y: its supremum 1, reached by a clamped record
			 * against an unclamped one (docs/privacy.md §17) */
			return 1.0;
	}
	return NAN;
}

/* ---------------------------------------------------------------------
 * Add/remove-one neighbours (docs/privacy.md §13): the release changes by
 * one record's whole contribution B_b(r).  ||B_b(r)||^2 as a polynomial in
 * a = ||z||^2 and y, with A = k + a; the T2 block of a model with an
 * intercept leaves out w_0 w_0 = 1, so its norm is A^2 - 1 = a (2 + a),
 * written so that nothing cancels for a small a.  Every one is
 * nondecreasing in a and in y^2.
 * --------------------------------------------------------------------- */
static double
record_norm_sq(dpb_block_kind kind, int k, double a, double y)
{
	double		A = k + a,
				y2 = y * y;

	switch (kind)
	{
		case DPB_BLK_COUNT:
			return 1.0;
		case DPB_BLK_YCLAMP:
			/* the indicator's supremum over the raw records clamped to y:
			 * 1 (reached at |y| = Ry, where every block peaks) */
			return 1.0;
		case DPB_BLK_T1:
			return A;
		case DPB_BLK_T2:
			return k ? a * (2.0 + a) : a * a;
		case DPB_BLK_YT1:
			return y2 * A;
		case DPB_BLK_YY:
			return y2 * y2;
		case DPB_BLK_YT2:
			return y2 * A * A;
		case DPB_BLK_X3:
			return a * a * a;
		case DPB_BLK_X4:
			return sq(a * a);
	}
	return NAN;
}

double
dpb_sens_record_sq(const dpb_layout *L, const double *nw, double a, double y)
{
	double		sum = 0.0;
	int			b;

	for (b = 0; b < L->nblocks; b++)
	{
		double		c = nw ? 1.0 / sq(nw[b]) : 1.0;

		sum += c * record_norm_sq(L->kind[b], L->intercept, a, y);
	}
	return sum;
}

double
dpb_sens_pair_sq(const dpb_layout *L, const double *nw,
				 double a, double a2, double t, double y, double y2)
{
	double		k = L->intercept;
	double		sum = 0.0;
	int			b;

	for (b = 0; b < L->nblocks; b++)
	{
		double		c = nw ? 1.0 / sq(nw[b]) : 1.0;

		sum += c * block_norm_sq(L->kind[b], k, a, a2, t, y, y2);
	}
	return sum;
}

/*
 * Offsets from the intercept (docs/privacy.md §14).  The inner variable u
 * = |T| ranges over [max(0, k - R^2), k + R^2]; it is carried as s = u - k
 * in [smin, R^2], smin = max(-k, -R^2), so that Am^2 - u^2 is evaluated as
 * (R^2 - s) (2k + R^2 + s) without cancellation when R^2 << k.
 */
static double
s_min(int k, double R2)
{
	return k ? fmax(-(double) k, -R2) : 0.0;
}

/* Am^2 - u^2 = (Am - u) (Am + u) with u = k + s, Am = k + R^2. */
static double
am2_minus_u2(int k, double R2, double s)
{
	return (R2 - s) * (2.0 * k + R2 + s);
}

/* Am^2 - T0^2, T0 = max(0, k - R^2) the smallest |T|: 4 k R^2 when
 * R^2 < k, Am^2 otherwise. */
static double
am2_minus_t02(int k, double R2)
{
	return R2 < k ? 4.0 * k * R2 : sq(k + R2);
}

/* ---------------------------------------------------------------------
 * Logistic: blocks YT1 (weight cL) and T2 (weight cQ), y in {-1, +1}.
 * Delta^2 = 2 cL Am + 2 cQ Am^2 + max_{u in [lo, hi]} (2 cL u - 2 cQ u^2),
 * u = |T|, lo = max(0, k - R^2), hi = k + R^2   (docs/privacy.md §3),
 * evaluated as 2 cL (Am + u) + 2 cQ (Am^2 - u^2) in s = u - k (§14).
 * --------------------------------------------------------------------- */
static double
sup_logistic(int k, double R, double cL, double cQ)
{
	double		R2 = R * R;
	double		s = fmin(fmax(cL / (2.0 * cQ) - k, s_min(k, R2)), R2);

	return 2.0 * cL * (2.0 * k + R2 + s) + 2.0 * cQ * am2_minus_u2(k, R2, s);
}

/* ---------------------------------------------------------------------
 * Linear: blocks T2 (cQ), YT1 (cL), YY (cS), |y| <= Ry (docs/privacy.md §4).
 * With |y| = Ry and q = |y'| in [0, Ry]:
 *   F(q) = 2 cQ Am^2 + cL Am (Ry^2 + q^2) + cS (Ry^2 - q^2)^2
 *          + max_{u in [lo, hi]} (2 cL Ry q u - 2 cQ u^2).
 * --------------------------------------------------------------------- */
typedef struct linear_prob
{
	int			k;
	double		R2,
				smin,
				Am,
				Ry,
				lo,
				hi,
				cQ,
				cL,
				cS;
} linear_prob;

static double
linear_F(const linear_prob *P, double q)
{
	/* the inner maximiser u = k + s, clamped in s (§14) */
	double		s = P->cL * P->Ry * q / (2.0 * P->cQ) - P->k;

	s = fmin(fmax(s, P->smin), P->R2);
	return 2.0 * P->cQ * am2_minus_u2(P->k, P->R2, s)
		+ P->cL * P->Am * (sq(P->Ry) + q * q)
		+ P->cS * sq(sq(P->Ry) - q * q)
		+ 2.0 * P->cL * P->Ry * q * (P->k + s);
}

/* dF/dq on a piece where the inner maximiser is the constant U. */
static double
linear_dF_const(const linear_prob *P, double U, double q)
{
	return 4.0 * P->cS * q * q * q
		+ 2.0 * (P->cL * P->Am - 2.0 * P->cS * sq(P->Ry)) * q
		+ 2.0 * P->cL * P->Ry * U;
}

/*
 * On a piece [q0, q1] with constant inner maximiser U, F is a quartic
 * whose second derivative 12 cS q^2 + 2 (cL Am - 2 cS Ry^2) is negative
 * only for q < qi.  On [q0, min(q1, qi)] F is concave, so dF/dq is
 * decreasing and its sign change (if any) is the piece's only interior
 * local maximum; on [qi, q1] F is convex and peaks at an endpoint.
 * Returns the largest F over the candidates of the piece.
 */
static double
linear_piece_max(const linear_prob *P, double U, double q0, double q1)
{
	double		best = fmax(linear_F(P, q0), linear_F(P, q1));
	double		qi2 = (2.0 * P->cS * sq(P->Ry) - P->cL * P->Am) / (6.0 * P->cS);
	double		lo,
				hi;
	int			it;

	if (!(q1 > q0) || !(qi2 > q0 * q0))
		return best;
	lo = q0;
	hi = fmin(q1, sqrt(qi2));
	best = fmax(best, linear_F(P, hi));
	if (!(linear_dF_const(P, U, lo) > 0.0 && linear_dF_const(P, U, hi) < 0.0))
		return best;
	for (it = 0; it < 200 && hi - lo > 1e-16 * fmax(1.0, hi); it++)
	{
		double		mid = 0.5 * (lo + hi);

		if (linear_dF_const(P, U, mid) > 0.0)
			lo = mid;
		else
			hi = mid;
	}
	best = fmax(best, linear_F(P, lo));
	return fmax(best, linear_F(P, hi));
}

static double
sup_linear(int k, double R, double Ry, double cQ, double cL, double cS)
{
	linear_prob P;
	double		qlo,
				qhi,
				best;

	P.k = k;
	P.R2 = R * R;
	P.smin = s_min(k, P.R2);
	P.Am = k + R * R;
	P.Ry = Ry;
	P.lo = fmax(0.0, k - R * R);
	P.hi = P.Am;
	P.cQ = cQ;
	P.cL = cL;
	P.cS = cS;

	/* piece boundaries in q: the inner maximiser cL Ry q / (2 cQ) hits lo
	 * at qlo and hi at qhi */
	qlo = fmin(2.0 * cQ * P.lo / (cL * Ry), Ry);
	qhi = fmin(2.0 * cQ * P.hi / (cL * Ry), Ry);

	best = fmax(linear_F(&P, 0.0), linear_F(&P, Ry));
	best = fmax(best, fmax(linear_F(&P, qlo), linear_F(&P, qhi)));
	/* u = lo on [0, qlo]; interior on [qlo, qhi] (F convex in q^2 there:
	 * endpoints only); u = hi on [qhi, Ry] */
	best = fmax(best, linear_piece_max(&P, P.lo, 0.0, qlo));
	best = fmax(best, linear_piece_max(&P, P.hi, qhi, Ry));
	return best;
}

/* ---------------------------------------------------------------------
 * Poisson with intercept (k = 1): blocks T2 (cQ), YT2 (cP), 0 <= y <= Ry.
 * T^2 is minimised at T0 = max(0, 1 - R^2); the rest is a convex
 * quadratic form in (y, y'), maximal at a corner (docs/privacy.md §5).
 * --------------------------------------------------------------------- */
static double
sup_poisson_ic(double R, double Ry, double cQ, double cP)
{
	double		Am2 = sq(1.0 + R * R);
	double		D = am2_minus_t02(1, R * R);	/* Am^2 - T0^2, §14 */

	return 2.0 * cQ * D + cP * sq(Ry) * fmax(Am2, 2.0 * D);
}

/* ---------------------------------------------------------------------
 * Poisson without intercept (k = 0): blocks T1 (c1), T2 (c2), YT1 (c3),
 * YT2 (c4), 0 <= y <= Ry.  With y = Ry and q = y' the objective
 *   H(q) = alpha(q) + max_{|t| <= R^2} (-beta(q) t - gamma(q) t^2)
 * is convex in q, so the supremum is max(H(0), H(Ry)) (docs/privacy.md §6).
 * --------------------------------------------------------------------- */
static double
poisson_noic_H(double R, double Ry, double q,
			   double c1, double c2, double c3, double c4)
{
	double		R2 = R * R;
	double		alpha = 2.0 * c1 * R2 + 2.0 * c2 * R2 * R2
		+ (c3 * R2 + c4 * R2 * R2) * (Ry * Ry + q * q);
	double		beta = 2.0 * c1 + 2.0 * c3 * Ry * q;
	double		gamma = 2.0 * c2 + 2.0 * c4 * Ry * q;

	/* t = -R^2: alpha + beta R^2 - gamma R^4 with the cancelling terms
	 * removed (§14); otherwise the interior maximum alpha + beta^2 / 4 gamma */
	if (beta >= 2.0 * gamma * R2)
		return 4.0 * c1 * R2 + c3 * R2 * sq(Ry + q) + c4 * R2 * R2 * sq(Ry - q);
	return alpha + beta * beta / (4.0 * gamma);
}

static double
sup_poisson_noic(double R, double Ry,
				 double c1, double c2, double c3, double c4)
{
	return fmax(poisson_noic_H(R, Ry, 0.0, c1, c2, c3, c4),
				poisson_noic_H(R, Ry, Ry, c1, c2, c3, c4));
}

/* ---------------------------------------------------------------------
 * Moments of x: blocks X3 (c3; 0 when absent) and X4 (c4).  The sum
 *   c3 (a^3 + a'^3 - 2 t^3) + c4 (a^4 + a'^4 - 2 t^4)
 * grows with a and a' for fixed t (and so does the range of t), so
 * a = a' = R^2; then g(t) = -2 c3 t^3 - 2 c4 t^4 is negative for t > 0 and
 * on [-R^2, 0] increases towards t* = -3 c3 / (4 c4), its only stationary
 * point there (docs/privacy.md §12).
 * --------------------------------------------------------------------- */
static double
sup_xmoments(double R, double c3, double c4)
{
	double		R2 = R * R;
	double		m = 3.0 * c3 / (4.0 * c4);	/* |t*| */

	/* t = -R^2: the X4 terms cancel exactly (§14) */
	if (m >= R2)
		return 4.0 * c3 * R2 * R2 * R2;
	/* -2 c3 t^3 - 2 c4 t^4 at t = -m is 2 m^3 (c3 - c4 m) = m^3 c3 / 2 */
	return 2.0 * c3 * R2 * R2 * R2 + 2.0 * c4 * sq(R2 * R2) + 0.5 * c3 * m * m * m;
}

/* Checks that L is one of the layouts dpb_layout_init builds, possibly
 * followed by the moment blocks of dpb_layout_add_xmoments and the YCLAMP
 * block of dpb_layout_add_yclamp. */
static int
layout_ok(const dpb_layout *L)
{
	static const dpb_block_kind lin[] = {DPB_BLK_T2, DPB_BLK_YT1, DPB_BLK_YY};
	static const dpb_block_kind logi[] = {DPB_BLK_YT1, DPB_BLK_T2};
	static const dpb_block_kind pic[] = {DPB_BLK_T2, DPB_BLK_YT2};
	static const dpb_block_kind pno[] = {DPB_BLK_T1, DPB_BLK_T2, DPB_BLK_YT1,
	DPB_BLK_YT2};
	const dpb_block_kind *want;
	int			n,
				b;

	if (L == NULL || (L->intercept != 0 && L->intercept != 1))
		return 0;
	switch (L->model)
	{
		case DPB_MODEL_LINEAR:
			want = lin;
			n = 3;
			break;
		case DPB_MODEL_LOGISTIC:
			want = logi;
			n = 2;
			break;
		case DPB_MODEL_POISSON:
			want = L->intercept ? pic : pno;
			n = L->intercept ? 2 : 4;
			break;
		default:
			return 0;
	}
	if (L->nmodel_blocks != n + (L->add_remove ? 1 : 0))
		return 0;
	for (b = 0; b < n; b++)
		if (L->kind[b] != want[b])
			return 0;
	if (L->add_remove && L->kind[n++] != DPB_BLK_COUNT)
		return 0;
	if (L->yclamp &&
		(L->model != DPB_MODEL_LINEAR || L->kind[L->nblocks - 1] != DPB_BLK_YCLAMP))
		return 0;
	if (!L->xmoments)
		return L->nblocks == n + L->yclamp;
	if (L->model != DPB_MODEL_LINEAR || L->nblocks != n + 1 + L->intercept + L->yclamp)
		return 0;
	if (L->intercept && L->kind[n++] != DPB_BLK_X3)
		return 0;
	return L->kind[n] == DPB_BLK_X4;
}

static int
positive_finite(double v)
{
	return dpb_isfinite(v) && v > 0.0;
}

dpb_status
dpb_sens_l2(const dpb_layout *L, double R, double Ry,
			const double *nw, double *delta, dpb_err *err)
{
	double		c[DPB_MAX_BLOCKS] = {0};
	double		sup2;
	int			b;

	*delta = NAN;
	if (!layout_ok(L))
	{
		dpb_err_set(err, "unsupported release layout", NULL);
		return DPB_EINVAL;
	}
	if (!positive_finite(R))
	{
		dpb_err_set(err, "clip bound must be positive and finite", NULL);
		return DPB_EINVAL;
	}
	if (L->model != DPB_MODEL_LOGISTIC && !positive_finite(Ry))
	{
		dpb_err_set(err, "response bound must be positive and finite", NULL);
		return DPB_EINVAL;
	}
	for (b = 0; b < L->nblocks; b++)
	{
		double		w = nw ? nw[b] : 1.0;

		if (!positive_finite(w))
		{
			dpb_err_set(err, "noise weights must be positive and finite",
						"Noise weight %d is not.", b + 1);
			return DPB_EINVAL;
		}
		c[b] = 1.0 / sq(w);
	}

	if (L->add_remove)
	{
		/*
		 * One record's whole contribution: every block norm is
		 * nondecreasing in a = ||z||^2 and y^2, so all of them peak
		 * together at ||z|| = R, |y| = Ry (docs/privacy.md §13).  Exact,
		 * moment blocks included.
		 */
		double		nwv[DPB_MAX_BLOCKS];

		for (b = 0; b < L->nblocks; b++)
			nwv[b] = 1.0 / sqrt(c[b]);
		sup2 = dpb_sens_record_sq(L, nw ? nwv : NULL, R * R, y_bound(L, Ry));
	}
	else
	switch (L->model)
	{
		case DPB_MODEL_LINEAR:
			sup2 = sup_linear(L->intercept, R, Ry, c[0], c[1], c[2]);
			break;
		case DPB_MODEL_LOGISTIC:
			sup2 = sup_logistic(L->intercept, R, c[0], c[1]);
			break;
		default:
			if (L->intercept)
				sup2 = sup_poisson_ic(R, Ry, c[0], c[1]);
			else
				sup2 = sup_poisson_noic(R, Ry, c[0], c[1], c[2], c[3]);
			break;
	}
	/*
	 * The moment blocks: the supremum of a sum is at most the sum of the
	 * suprema, so adding theirs bounds the joint release (exactly what
	 * composing the two Gaussian mechanisms would give).
	 */
	if (L->xmoments && !L->add_remove)
	{
		int			nb = L->nmodel_blocks;

		sup2 += sup_xmoments(R, L->intercept ? c[nb] : 0.0, c[nb + L->intercept]);
	}
	/*
	 * The clamped-response count (docs/privacy.md §17): the indicator moves
	 * by at most 1, so under replace-one its c adds to the supremum (an
	 * upper bound, as for the moments); under add/remove it is in the
	 * record's sum above, exactly.
	 */
	if (L->yclamp && !L->add_remove)
		sup2 += c[L->nblocks - 1];
	if (!dpb_isfinite(sup2) || sup2 < 0.0)
	{
		dpb_err_set(err, "sensitivity is not representable",
					"the clip, response bound or noise weights are too extreme");
		return DPB_ERANGE;
	}
	*delta = sqrt(sup2) * (1.0 + SENS_MARGIN);
	if (!dpb_isfinite(*delta))
	{
		dpb_err_set(err, "sensitivity is not representable",
					"the clip, response bound or noise weights are too extreme");
		return DPB_ERANGE;
	}
	return DPB_OK;
}

/* ---------------------------------------------------------------------
 * One block alone (docs/privacy.md §7).  T0 = max(0, k - R^2) is the
 * smallest |T|, Tmin = k - R^2 the smallest T; the differences Am^2 - T0^2
 * and Am - Tmin are taken in closed form (§14).
 * --------------------------------------------------------------------- */
double
dpb_sens_l2_block(const dpb_layout *L, int b, double R, double Ry)
{
	double		k,
				Am,
				D,
				v;
	dpb_ydomain dom;

	if (L == NULL || b < 0 || b >= L->nblocks || !positive_finite(R))
		return NAN;
	dom = dpb_model_ydomain(L->model);
	Ry = y_bound(L, Ry);
	if (!positive_finite(Ry))
		return NAN;
	if (L->add_remove)			/* docs/privacy.md §13 */
		return sqrt(record_norm_sq(L->kind[b], L->intercept, R * R, Ry)) *
			(1.0 + SENS_MARGIN);
	k = L->intercept ? 1.0 : 0.0;
	Am = k + R * R;
	D = am2_minus_t02((int) k, R * R);	/* Am^2 - T0^2 (§14) */

	switch (L->kind[b])
	{
		case DPB_BLK_T1:
			v = 4.0 * R * R;
			break;
		case DPB_BLK_T2:
			v = 2.0 * D;
			break;
		case DPB_BLK_YT1:
			if (dom == DPB_Y_NONNEG)
				v = sq(Ry) * fmax(Am, 4.0 * R * R);	/* Am - Tmin = 2 R^2 */
			else
				v = 4.0 * sq(Ry) * Am;
			break;
		case DPB_BLK_YY:
			v = dom == DPB_Y_BINARY ? 0.0 : sq(sq(Ry));
			break;
		case DPB_BLK_YT2:
			if (dom == DPB_Y_NONNEG)
				v = sq(Ry) * fmax(Am * Am, 2.0 * D);
			else
				v = 4.0 * sq(Ry) * Am * Am;
			break;
		case DPB_BLK_X3:
			v = 4.0 * R * R * R * R * R * R;
			break;
		case DPB_BLK_X4:
			v = 2.0 * sq(R * R * R * R);
			break;
		case DPB_BLK_YCLAMP:
			v = 1.0;			/* an indicator (§17) */
			break;
		default:
			return NAN;
	}
	return sqrt(v) * (1.0 + SENS_MARGIN);
}

/* ---------------------------------------------------------------------
 * Laplace: per-entry ranges (docs/privacy.md §8).  An entry is g(y) h(z)
 * with g = y^ypow and h a monomial of degree <= 2 in z; y and z vary
 * independently, so the entry's range is spanned by the four products of
 * the endpoints of g's and h's ranges.
 * --------------------------------------------------------------------- */
/*
 * Range of a moment entry z_i z_j z_k [z_l]: with multiplicities m_f of
 * degree g, |monomial| <= min(B^g, prod_f (m_f R^2 / g)^(m_f / 2)) (the
 * box, or the ball's maximum by Lagrange / AM-GM); the range is [0, M]
 * when every m_f is even, [-M, M] otherwise (docs/privacy.md §12).
 */
static double
xmoment_range(const dpb_entry *en, double B, double R, int absmax)
{
	int			idx[4] = {en->i, en->j, en->k, en->l};
	int			g = en->l >= 0 ? 4 : 3,
				t = 0,
				odd = 0;
	double		ball = 1.0,
				M;

	while (t < g)
	{
		int			run = 1;

		while (t + run < g && idx[t + run] == idx[t])
			run++;
		ball *= pow(run * R * R / g, 0.5 * run);
		odd |= run & 1;
		t += run;
	}
	M = fmin(pow(B, g), ball);
	if (absmax)
		return M;				/* add/remove: sup |monomial| */
	return odd ? 2.0 * M : M;
}

double
dpb_sens_l1_block(const dpb_layout *L, int b, double B, double R, double Ry)
{
	dpb_ydomain dom;
	double		m,
				P,
				sum = 0.0;
	int			e;

	if (L == NULL || b < 0 || b >= L->nblocks ||
		!positive_finite(B) || !positive_finite(R))
		return NAN;
	dom = dpb_model_ydomain(L->model);
	Ry = y_bound(L, Ry);
	if (!positive_finite(Ry))
		return NAN;
	if (L->kind[b] == DPB_BLK_YCLAMP)
		return 1.0 + SENS_MARGIN;	/* an indicator, either relation (§17) */
	m = fmin(B, R);				/* largest |z_i| */
	P = fmin(B * B, 0.5 * R * R);	/* largest |z_i z_j|, i != j */

	for (e = L->start[b]; e < L->start[b] + L->len[b]; e++)
	{
		dpb_entry	en;
		int			fi,
					fj;
		double		hl,
					hh,
					gl,
					gh,
					p[4],
					lo,
					hi;
		int			i;

		dpb_layout_entry(L, e, &en);
		if (en.k >= 0)
		{
			sum += xmoment_range(&en, B, R, L->add_remove);
			continue;
		}
		/* feature indices of the monomial's factors (-1: none / the 1) */
		fi = en.i >= 0 ? en.i - L->intercept : -1;
		fj = en.j >= 0 ? en.j - L->intercept : -1;
		if (fi < 0 && fj < 0)
		{
			hl = 1.0;
			hh = 1.0;
		}
		else if (fi < 0 || fj < 0)
		{
			hl = -m;
			hh = m;
		}
		else if (fi == fj)
		{
			hl = 0.0;
			hh = m * m;
		}
		else
		{
			hl = -P;
			hh = P;
		}

		switch (en.ypow)
		{
			case 0:
				gl = 1.0;
				gh = 1.0;
				break;
			case 1:
				gl = dom == DPB_Y_NONNEG ? 0.0 : -Ry;
				gh = Ry;
				break;
			default:
				gl = dom == DPB_Y_BINARY ? 1.0 : 0.0;
				gh = sq(Ry);
				break;
		}

		p[0] = gl * hl;
		p[1] = gl * hh;
		p[2] = gh * hl;
		p[3] = gh * hh;
		lo = hi = p[0];
		for (i = 1; i < 4; i++)
		{
			lo = fmin(lo, p[i]);
			hi = fmax(hi, p[i]);
		}
		/* replace: the entry's range; add/remove: its largest |value|
		 * (the count's entry, the monomial 1, gives 1) */
		sum += L->add_remove ? fmax(fabs(lo), fabs(hi)) : hi - lo;
	}
	return sum * (1.0 + SENS_MARGIN);
}
