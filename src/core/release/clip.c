/*
 * clip.c — scaling and clipping of one record (see clip.h).
 */
#include "clip.h"

#include <float.h>
#include <math.h>
#include <string.h>

void
dpb_clipper_init(dpb_clipper *c, const dpb_params *p, dpb_model model, int d)
{
	int			j;
	double		s;

	memset(c, 0, sizeof(*c));
	c->d = d;
	c->R = p->clip;
	c->model = model;
	c->y_bound = model == DPB_MODEL_LOGISTIC ? 1.0 : p->y_bound;
	c->has_bounds = p->has_bounds;
	s = (p->scaling == DPB_SCALE_BOX) ? p->clip / sqrt((double) d) : p->clip;
	c->coord_bound = dpb_coord_bound(p, d);
	/* with bounds |z_j| <= R; for moderate R the plain sum of squares is
	 * exact enough and cannot overflow (see dpb_clip_x) */
	c->fast = p->has_bounds && p->clip >= 1e-100 && p->clip <= 1e100;
	c->fast_thr = c->R * (1.0 - (d + 8) * DBL_EPSILON);
	c->fast_thr *= c->fast_thr;
	if (p->has_bounds)
		for (j = 0; j < d; j++)
		{
			c->lower[j] = p->lower[j];
			c->upper[j] = p->upper[j];
			c->center[j] = 0.5 * p->lower[j] + 0.5 * p->upper[j];
			c->gain[j] = s / (0.5 * p->upper[j] - 0.5 * p->lower[j]);
		}
}

int
dpb_clip_x(const dpb_clipper *c, const double *x, double *z)
{
	int			j,
				d = c->d;
	double		m = 0.0,
				ss = 0.0,
				nf = 0.0,
				q,
				f,
				shade;

	/* nf += v - v: stays 0 for finite values, NaN from any NaN or
	 * infinity; checked once after the loop (one pass over x) */
	if (c->has_bounds)
	{
		for (j = 0; j < d; j++)
		{
			double		v = x[j];

			nf += v - v;
			if (v < c->lower[j])
				v = c->lower[j];
			else if (v > c->upper[j])
				v = c->upper[j];
			v = (v - c->center[j]) * c->gain[j];
			/* 0 * inf: the gain overflows when the bounds are a few
			 * subnormals apart; the centre maps to 0 */
			if (v != v)
				v = 0.0;
			/* rounding must not push a coordinate past its bound */
			if (v > c->coord_bound)
				v = c->coord_bound;
			else if (v < -c->coord_bound)
				v = -c->coord_bound;
			z[j] = v;
		}
	}
	else
		for (j = 0; j < d; j++)
		{
			nf += x[j] - x[j];
			z[j] = x[j];
		}
	if (nf != 0.0)
		return -1;

	/*
	 * Fast path (bounded features, 1e-100 <= R <= 1e100): |z_j| <= R, so
	 * sum z_j^2 <= 64 R^2 cannot overflow, and underflowing terms are below
	 * 1e-300, negligible against R^2 >= 1e-200.  Its relative rounding error
	 * is below (d + 1) eps, while fast_thr = (R (1 - (d + 8) eps))^2 leaves a
	 * margin of about 2 (d + 8) eps: a record accepted here has exact norm
	 * below R.  Anything else takes the careful path below.
	 */
	if (c->fast)
	{
		for (j = 0; j < d; j++)
			ss += z[j] * z[j];
		if (ss <= c->fast_thr)
			return 0;
		ss = 0.0;
	}

	/*
	 * ||z|| = m * sqrt(ss) with m = max |z_j| and ss = sum (z_j / m)^2 in
	 * [1, d]: no overflow or underflow for any finite input or R (z_j^2
	 * overflows from 1.4e154 and underflows below 1.5e-154).
	 */
	for (j = 0; j < d; j++)
		if (fabs(z[j]) > m)
			m = fabs(z[j]);
	if (m == 0.0)
		return 0;
	for (j = 0; j < d; j++)
	{
		double		u = z[j] / m;

		ss += u * u;
	}
	ss = sqrt(ss);

	/*
	 * The rounding errors of ss, of the square root and of the products
	 * below are below (d/4 + 3) DBL_EPSILON relative; the margin shade
	 * keeps the exact norm of the result <= R: a record is left alone only
	 * when its norm is below R (1 - shade), and a projected record is
	 * scaled to R (1 - shade).
	 */
	shade = 1.0 - (d + 8) * DBL_EPSILON;
	q = c->R / m;				/* may be +inf (tiny m) or 0 (huge m) */
	if (ss <= q * shade)
		return 0;
	f = (c->R / ss) * shade;	/* <= R: no overflow */
	for (j = 0; j < d; j++)
		z[j] = (z[j] / m) * f;
	return 1;
}

double
dpb_clip_y(const dpb_clipper *c, double y)
{
	double		b = c->y_bound;

	switch (c->model)
	{
		case DPB_MODEL_LOGISTIC:
			return y > 0 ? 1.0 : -1.0;
		case DPB_MODEL_POISSON:
			return y < 0 ? 0.0 : (y > b ? b : y);
		default:
			return y < -b ? -b : (y > b ? b : y);
	}
}

int
dpb_clip_y_clamped(const dpb_clipper *c, double y)
{
	return c->model == DPB_MODEL_LINEAR && (y < -c->y_bound || y > c->y_bound);
}

double
dpb_coord_bound(const dpb_params *p, int d)
{
	if (p->has_bounds && p->scaling == DPB_SCALE_BOX)
		return p->clip / sqrt((double) d);
	return p->clip;
}
