/*
 * clip.c — scaling and clipping of one record (see clip.h).
 */
#include "clip.h"

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
	double		ss = 0.0,
				f;

	if (c->has_bounds)
	{
		for (j = 0; j < d; j++)
		{
			double		v = x[j];

			if (v < c->lower[j])
				v = c->lower[j];
			else if (v > c->upper[j])
				v = c->upper[j];
			v = (v - c->center[j]) * c->gain[j];
			/* rounding must not push a coordinate past its bound */
			if (v > c->coord_bound)
				v = c->coord_bound;
			else if (v < -c->coord_bound)
				v = -c->coord_bound;
			z[j] = v;
			ss += v * v;
		}
	}
	else
	{
		for (j = 0; j < d; j++)
		{
			z[j] = x[j];
			ss += x[j] * x[j];
		}
	}
	if (ss <= c->R * c->R)
		return 0;
	/* project onto the ball; the factor is shaded down so that rounding
	 * cannot leave ||z|| above R */
	f = (c->R / sqrt(ss)) * (1.0 - 4 * 2.220446049250313e-16);
	for (j = 0; j < d; j++)
		z[j] *= f;
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

double
dpb_coord_bound(const dpb_params *p, int d)
{
	if (p->has_bounds && p->scaling == DPB_SCALE_BOX)
		return p->clip / sqrt((double) d);
	return p->clip;
}
