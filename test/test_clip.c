/*
 * test_clip.c — scaling and clipping of records (clip.h): box and ball
 * scaling of bounded features, clamping of out-of-bound values, projection
 * onto the ball (||z|| <= R, never above, also with huge and tiny values),
 * the response clamp and dpb_coord_bound.
 *
 * Norms are measured exactly enough to see an excess of one rounding: the
 * coordinates are scaled by a power of two (exact) and their squares summed
 * in double-double arithmetic (fma).  (Not long double: valgrind computes
 * it in double precision.)
 */
#include "unit.h"
#include "clip.h"

#include <float.h>
#include <gsl/gsl_rng.h>
#include <string.h>

typedef struct sqnorm
{
	double		hi,
				lo;				/* ||z||^2 = (hi + lo) 2^(2e), hi in [1/4, d) */
	int			e;
	int			zero;
} sqnorm;

static sqnorm
sq_norm(const double *z, int d)
{
	sqnorm		q = {0, 0, 0, 0};
	double		m = 0;
	int			j;

	for (j = 0; j < d; j++)
		m = fmax(m, fabs(z[j]));
	if (m == 0)
	{
		q.zero = 1;
		return q;
	}
	(void) frexp(m, &q.e);		/* m = f 2^e, f in [1/2, 1) */
	for (j = 0; j < d; j++)
	{
		double		u = ldexp(z[j], -q.e),
					p = u * u,
					pe = fma(u, u, -p),
					s = q.hi + p,
					bv = s - q.hi;

		/* two-sum of hi and p, plus the product's error */
		q.lo += ((q.hi - (s - bv)) + (p - bv)) + pe;
		q.hi = s;
	}
	{
		double		s = q.hi + q.lo;

		q.lo = q.lo - (s - q.hi);
		q.hi = s;
	}
	return q;
}

/* ||z|| <= R, decided to double-double precision */
static int
norm_le(const double *z, int d, double R)
{
	sqnorm		q = sq_norm(z, d);
	double		Rs,
				th,
				tl;

	if (q.zero)
		return R >= 0;
	Rs = ldexp(R, -q.e);
	th = Rs * Rs;
	tl = fma(Rs, Rs, -th);
	return q.hi < th || (q.hi == th && q.lo <= tl);
}

/* ||z|| / R in double (no overflow: computed in the scaled units) */
static double
norm_ratio(const double *z, int d, double R)
{
	sqnorm		q = sq_norm(z, d);

	if (q.zero)
		return 0;
	return sqrt(q.hi + q.lo) / ldexp(R, -q.e);
}

/* z_j / ||z|| */
static double
unit_coord(const double *z, int d, int j)
{
	sqnorm		q = sq_norm(z, d);

	return q.zero ? 0 : ldexp(z[j], -q.e) / sqrt(q.hi + q.lo);
}

static void
bounded_params(dpb_params *p, int d, double R, dpb_scaling sc,
			   const double *lo, const double *hi)
{
	dpb_params_default(p);
	p->d = d;
	p->clip = R;
	p->y_bound = 3.0;
	p->scaling = sc;
	p->has_bounds = 1;
	memcpy(p->lower, lo, sizeof(double) * d);
	memcpy(p->upper, hi, sizeof(double) * d);
}

/* box scaling: lower -> -R/sqrt(d), upper -> +R/sqrt(d), mid -> 0 */
static void
check_box(gsl_rng *rng, int d, double R)
{
	dpb_params	p;
	dpb_clipper c;
	double		lo[DPB_MAX_D],
				hi[DPB_MAX_D],
				x[DPB_MAX_D],
				z[DPB_MAX_D],
				z2[DPB_MAX_D];
	double		s = R / sqrt((double) d);
	int			j,
				k,
				bad = 0,
				ret;

	for (j = 0; j < d; j++)
	{
		lo[j] = -1.0 - 3.0 * gsl_rng_uniform(rng);
		hi[j] = lo[j] + 0.5 + 10.0 * gsl_rng_uniform(rng);
	}
	bounded_params(&p, d, R, DPB_SCALE_BOX, lo, hi);
	CHECK(dpb_params_check_model(&p, DPB_MODEL_LINEAR, d, NULL) == DPB_OK, "box params");
	dpb_clipper_init(&c, &p, DPB_MODEL_LINEAR, d);

	/* all at the lower bound, all at the upper bound: the box's corners lie
	 * on the sphere, so only rounding may project them */
	memcpy(x, lo, sizeof(double) * d);
	dpb_clip_x(&c, x, z);
	for (j = 0; j < d; j++)
		bad += fabs(z[j] + s) > 1e-13 * s;
	CHECK(bad == 0, "box d=%d R=%g: lower -> -R/sqrt(d) (z0 %.17g, want %.17g)",
		  d, R, z[0], -s);
	CHECK(norm_le(z, d, R), "box d=%d corner norm above R", d);
	bad = 0;
	memcpy(x, hi, sizeof(double) * d);
	dpb_clip_x(&c, x, z);
	for (j = 0; j < d; j++)
		bad += fabs(z[j] - s) > 1e-13 * s;
	CHECK(bad == 0, "box d=%d R=%g: upper -> R/sqrt(d) (z0 %.17g, want %.17g)",
		  d, R, z[0], s);
	CHECK(norm_le(z, d, R), "box d=%d corner norm above R", d);

	/* the midpoint maps to 0 */
	bad = 0;
	for (j = 0; j < d; j++)
		x[j] = 0.5 * lo[j] + 0.5 * hi[j];
	ret = dpb_clip_x(&c, x, z);
	for (j = 0; j < d; j++)
		bad += fabs(z[j]) > 1e-14 * s;
	CHECK(bad == 0 && ret == 0, "box d=%d: mid -> 0 (z0 %g, ret %d)", d, z[0], ret);

	/* one feature at a bound, the others at the midpoint */
	for (k = 0; k < d; k++)
	{
		for (j = 0; j < d; j++)
			x[j] = 0.5 * lo[j] + 0.5 * hi[j];
		x[k] = (k % 2) ? hi[k] : lo[k];
		dpb_clip_x(&c, x, z);
		CHECK(fabs(z[k] - ((k % 2) ? s : -s)) <= 1e-13 * s,
			  "box d=%d feature %d at bound: %.17g", d, k, z[k]);
	}

	/* interior points: the affine map, no projection (the box is inside) */
	for (k = 0; k < 50; k++)
	{
		double		t[DPB_MAX_D];

		bad = 0;
		for (j = 0; j < d; j++)
		{
			t[j] = 0.01 + 0.98 * gsl_rng_uniform(rng);
			x[j] = lo[j] + t[j] * (hi[j] - lo[j]);
		}
		ret = dpb_clip_x(&c, x, z);
		for (j = 0; j < d; j++)
			bad += fabs(z[j] - s * (2 * t[j] - 1)) > 1e-12 * s;
		CHECK(bad == 0 && ret == 0, "box d=%d interior point %d (ret %d)", d, k, ret);
	}

	/* out of bounds: clamped to the bound first */
	for (k = 0; k < 20; k++)
	{
		/* finite (up to 1e300): infinities are rejected, tested below */
		double		far = k < 10 ? 1e-3 + 1e3 * gsl_rng_uniform(rng) :
			fmin(pow(10.0, 10 + 29 * (k - 10)), 1e300);

		for (j = 0; j < d; j++)
			x[j] = (j + k) % 2 ? hi[j] + far : lo[j] - far;
		dpb_clip_x(&c, x, z);
		for (j = 0; j < d; j++)
			x[j] = (j + k) % 2 ? hi[j] : lo[j];
		dpb_clip_x(&c, x, z2);
		CHECK(memcmp(z, z2, sizeof(double) * d) == 0,
			  "box d=%d: out-of-bound values (by %g) are clamped to the bounds", d, far);
	}
	x[0] = -DBL_MAX;
	for (j = 1; j < d; j++)
		x[j] = DBL_MAX;
	dpb_clip_x(&c, x, z);
	CHECK(fabs(z[0] + s) <= 1e-13 * s && (d == 1 || fabs(z[1] - s) <= 1e-13 * s),
		  "box d=%d: +-DBL_MAX clamped", d);
}

/* ball scaling: [lower, upper] -> [-R, R], then the projection */
static void
check_ball(gsl_rng *rng, int d, double R)
{
	dpb_params	p;
	dpb_clipper c;
	double		lo[DPB_MAX_D],
				hi[DPB_MAX_D],
				x[DPB_MAX_D],
				z[DPB_MAX_D];
	int			j,
				k,
				bad,
				ret;

	for (j = 0; j < d; j++)
	{
		lo[j] = 10.0 * gsl_rng_uniform(rng) - 5.0;
		hi[j] = lo[j] + 0.1 + 100.0 * gsl_rng_uniform(rng);
	}
	bounded_params(&p, d, R, DPB_SCALE_BALL, lo, hi);
	dpb_clipper_init(&c, &p, DPB_MODEL_POISSON, d);

	for (k = 0; k < d; k++)
	{
		for (j = 0; j < d; j++)
			x[j] = 0.5 * lo[j] + 0.5 * hi[j];
		x[k] = (k % 2) ? hi[k] : lo[k];
		dpb_clip_x(&c, x, z);
		bad = 0;
		for (j = 0; j < d; j++)
			if (j != k)
				bad += fabs(z[j]) > 1e-14 * R;
		CHECK(fabs(z[k] - ((k % 2) ? R : -R)) <= 1e-13 * R && bad == 0,
			  "ball d=%d feature %d at bound: %.17g (R %g)", d, k, z[k], R);
		CHECK(norm_le(z, d, R), "ball d=%d: norm above R", d);
	}
	/* all at the upper bound: the corner (R, ..., R) projects to R/sqrt(d) */
	memcpy(x, hi, sizeof(double) * d);
	ret = dpb_clip_x(&c, x, z);
	bad = 0;
	for (j = 0; j < d; j++)
		bad += fabs(z[j] - R / sqrt((double) d)) > 1e-13 * R;
	CHECK(bad == 0, "ball d=%d: corner projected to R/sqrt(d)", d);
	CHECK(d == 1 || ret == 1, "ball d=%d: corner projection reported", d);
	CHECK(norm_le(z, d, R), "ball d=%d: corner norm above R", d);

	/* random points in the box: the affine image, projected when outside
	 * the ball, in the same direction */
	for (k = 0; k < 200; k++)
	{
		double		a[DPB_MAX_D];
		double		na;

		for (j = 0; j < d; j++)
		{
			double		t = gsl_rng_uniform(rng);

			x[j] = lo[j] + t * (hi[j] - lo[j]);
			a[j] = R * (2 * t - 1);
		}
		na = norm_ratio(a, d, 1.0);
		ret = dpb_clip_x(&c, x, z);
		bad = 0;
		for (j = 0; j < d; j++)
		{
			double		want = na > R ? (double) (a[j] * (R / na)) : a[j];

			bad += fabs(z[j] - want) > 1e-11 * R;
		}
		CHECK(bad == 0, "ball d=%d point %d: z is the projected affine image", d, k);
		CHECK(norm_le(z, d, R), "ball d=%d point %d: norm above R", d, k);
		if (na > R * (1 + 1e-12))
			CHECK(ret == 1, "ball d=%d point %d: projection not reported", d, k);
		else if (na < R * (1 - 1e-12))
			CHECK(ret == 0, "ball d=%d point %d: spurious projection", d, k);
	}
}

/* without bounds: identity inside the ball, radial projection outside */
static void
check_nobounds_point(const dpb_clipper *c, const double *x, int d, const char *what)
{
	double		z[DPB_MAX_D];
	double		R = c->R,
				rx = norm_ratio(x, d, R),	/* ||x|| / R */
				rz;
	int			ret = dpb_clip_x(c, x, z),
				j,
				bad = 0;

	rz = norm_ratio(z, d, R);
	for (j = 0; j < d; j++)
		bad += !dpb_isfinite(z[j]);
	CHECK(bad == 0, "%s: non-finite output", what);
	CHECK(norm_le(z, d, R), "%s: ||z|| / R - 1 = %.3g above 0", what, rz - 1);
	if (rx <= 1 - 1e-12)
	{
		CHECK(ret == 0 && memcmp(x, z, sizeof(double) * d) == 0,
			  "%s: a point inside the ball must be unchanged", what);
		return;
	}
	if (rx > 1 + 1e-12)
		CHECK(ret == 1, "%s: projection not reported", what);
	/* on the sphere, in the direction of x */
	CHECK(rz >= 1 - 1e-12, "%s: projected to ||z|| = %.17g R", what, rz);
	for (j = 0; j < d; j++)
	{
		double		want = unit_coord(x, d, j) * R;

		bad += fabs(z[j] - want) > 1e-12 * R;
	}
	CHECK(bad == 0, "%s: projection changed the direction", what);
}

static double
wild_value(gsl_rng *rng)
{
	double		u = gsl_rng_uniform(rng);
	double		sgn = gsl_rng_uniform(rng) < 0.5 ? -1.0 : 1.0;

	if (u < 0.05)
		return 0.0;
	if (u < 0.1)
		return sgn * DBL_MAX * gsl_rng_uniform(rng);
	if (u < 0.15)
		return sgn * DBL_MIN * gsl_rng_uniform(rng);	/* subnormal */
	return sgn * pow(10.0, 600.0 * gsl_rng_uniform(rng) - 300.0);
}

void
test_clip(void)
{
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);
	const double Rs[] = {1.0, 2.5, 1e-3, 1e6};
	const int	ds[] = {1, 2, 3, 4, 5, 9, DPB_MAX_D};
	dpb_params	p;
	dpb_clipper c;
	double		x[DPB_MAX_D],
				z[DPB_MAX_D];
	int			i,
				k,
				j,
				d;
	char		what[160];

	gsl_rng_set(rng, USEED(7));
	for (i = 0; i < (int) (sizeof(ds) / sizeof(ds[0])); i++)
		for (k = 0; k < (int) (sizeof(Rs) / sizeof(Rs[0])); k++)
		{
			check_box(rng, ds[i], Rs[k]);
			check_ball(rng, ds[i], Rs[k]);
		}

	/* no bounds: hand-picked points */
	{
		const double big[] = {1e200, -1e200, 3e199};
		const double tiny[] = {1e-200, 2e-200};
		const double sub[] = {4e-320, -3e-320, 1e-321};
		const double nearsub[] = {3 * DBL_MIN, -2 * DBL_MIN, 1e-320};
		const double plain[] = {3.0, 4.0};

		dpb_params_default(&p);
		p.y_bound = 1;
		p.clip = 1.0;
		dpb_clipper_init(&c, &p, DPB_MODEL_LINEAR, 2);
		check_nobounds_point(&c, plain, 2, "(3, 4), R = 1");
		dpb_clip_x(&c, plain, z);
		CHECK(fabs(z[0] - 0.6) < 1e-13 && fabs(z[1] - 0.8) < 1e-13,
			  "(3, 4) -> (0.6, 0.8): (%.17g, %.17g)", z[0], z[1]);
		p.clip = 5.0;
		dpb_clipper_init(&c, &p, DPB_MODEL_LINEAR, 2);
		check_nobounds_point(&c, plain, 2, "(3, 4), R = 5");

		p.clip = 1.0;
		dpb_clipper_init(&c, &p, DPB_MODEL_LINEAR, 3);
		check_nobounds_point(&c, big, 3, "1e200 features, R = 1");
		p.clip = 1e200;
		dpb_clipper_init(&c, &p, DPB_MODEL_LINEAR, 3);
		check_nobounds_point(&c, big, 3, "1e200 features, R = 1e200");
		p.clip = 1e-300;
		dpb_clipper_init(&c, &p, DPB_MODEL_LINEAR, 2);
		check_nobounds_point(&c, tiny, 2, "1e-200 features, R = 1e-300");
		p.clip = DBL_MIN;
		dpb_clipper_init(&c, &p, DPB_MODEL_LINEAR, 3);
		check_nobounds_point(&c, sub, 3, "subnormal features, R = DBL_MIN");
		check_nobounds_point(&c, nearsub, 3, "features near DBL_MIN, R = DBL_MIN");
		p.clip = 1e-321;		/* subnormal R: rejected, see test_params */
		CHECK(dpb_params_check(&p, NULL) == DPB_EINVAL, "subnormal clip rejected");
		p.clip = 1.0;
		dpb_clipper_init(&c, &p, DPB_MODEL_LINEAR, 3);
		check_nobounds_point(&c, sub, 3, "subnormal features, R = 1");
	}

	/* many random points, huge and tiny values, every mode: ||z|| <= R and
	 * |z_j| <= dpb_coord_bound always */
	for (k = 0; k < 30000; k++)
	{
		int			mode = k % 3,	/* 0 none, 1 box, 2 ball */
					bad = 0;
		double		R = pow(10.0, 600.0 * gsl_rng_uniform(rng) - 300.0);
		double		cb;

		d = 1 + (int) gsl_rng_uniform_int(rng, (k % 5 == 0) ? DPB_MAX_D : 6);
		if (k % 7 == 0)
			R = (k % 2) ? 1.0 : DBL_MAX / 2;
		else if (k % 11 == 0)
			R = DBL_MIN * (1 + 3 * gsl_rng_uniform(rng));
		dpb_params_default(&p);
		p.clip = R;
		p.y_bound = 1;
		p.d = d;
		if (mode > 0)
		{
			p.has_bounds = 1;
			p.scaling = mode == 1 ? DPB_SCALE_BOX : DPB_SCALE_BALL;
			for (j = 0; j < d; j++)
			{
				double		a = wild_value(rng),
							b = wild_value(rng);

				if (a == b)
					b = a == 0 ? 1.0 : a * (a > 0 ? 2.0 : 0.5);
				p.lower[j] = fmin(a, b);
				p.upper[j] = fmax(a, b);
			}
		}
		if (dpb_params_check(&p, NULL) != DPB_OK)
		{
			CHECK(0, "random params %d rejected", k);
			continue;
		}
		dpb_clipper_init(&c, &p, DPB_MODEL_LINEAR, d);
		cb = dpb_coord_bound(&p, d);
		for (j = 0; j < d; j++)
			x[j] = gsl_rng_uniform(rng) < 0.1 && mode > 0 ?
				(gsl_rng_uniform(rng) < 0.5 ? p.lower[j] : p.upper[j]) :
				wild_value(rng);
		if (mode == 0)
		{
			snprintf(what, sizeof(what), "random point %d (no bounds, d=%d, R=%g)", k, d, R);
			check_nobounds_point(&c, x, d, what);
			continue;
		}
		dpb_clip_x(&c, x, z);
		for (j = 0; j < d; j++)
			bad += !dpb_isfinite(z[j]) || fabs(z[j]) > cb;
		CHECK(bad == 0, "random point %d (%s, d=%d, R=%g): |z_j| above %g or not finite",
			  k, mode == 1 ? "box" : "ball", d, R, cb);
		CHECK(norm_le(z, d, R), "random point %d (%s, d=%d, R=%g): ||z|| / R - 1 = %.3g",
			  k, mode == 1 ? "box" : "ball", d, R, norm_ratio(z, d, R) - 1);
	}

	/* the corners of the box, every d: the box is inside the ball, but the
	 * rounded corner must not be outside it */
	for (d = 1; d <= DPB_MAX_D; d++)
		for (k = 0; k < 4; k++)
		{
			double		lo[DPB_MAX_D],
						hi[DPB_MAX_D];
			const double R = k == 0 ? 1.0 : k == 1 ? 0.3 : k == 2 ? 7.0 : 1e-5;

			for (j = 0; j < d; j++)
			{
				lo[j] = -1.0 - j;
				hi[j] = 2.0 + 0.5 * j;
				x[j] = (j % 3) ? hi[j] : lo[j] - 1;
			}
			bounded_params(&p, d, R, DPB_SCALE_BOX, lo, hi);
			dpb_clipper_init(&c, &p, DPB_MODEL_LINEAR, d);
			dpb_clip_x(&c, x, z);
			CHECK(norm_le(z, d, R), "box corner d=%d R=%g: ||z|| / R - 1 = %.3g",
				  d, R, norm_ratio(z, d, R) - 1);
			CHECK(norm_ratio(z, d, R) >= 1 - 1e-13, "box corner d=%d R=%g: shrunk", d, R);
		}

	/* bounds a few subnormals apart: the gain overflows to infinity; the
	 * output must stay finite and bounded (the centre maps to 0) */
	{
		double		lo[2] = {0.0, -1.0},
					hi[2] = {4.9406564584124654e-324, 1.0};

		bounded_params(&p, 2, 1.0, DPB_SCALE_BOX, lo, hi);
		CHECK(dpb_params_check(&p, NULL) == DPB_OK, "subnormal-width bounds accepted");
		dpb_clipper_init(&c, &p, DPB_MODEL_LINEAR, 2);
		for (k = 0; k < 3; k++)
		{
			x[0] = k == 0 ? 0.0 : k == 1 ? hi[0] : -5.0;
			x[1] = 0.0;
			dpb_clip_x(&c, x, z);
			CHECK(dpb_isfinite(z[0]) && fabs(z[0]) <= dpb_coord_bound(&p, 2) &&
				  z[1] == 0.0, "subnormal-width bounds, x = %g: z = (%g, %g)",
				  x[0], z[0], z[1]);
		}
	}

	/* dpb_coord_bound: R/sqrt(d) for box scaling with bounds, R otherwise */
	dpb_params_default(&p);
	p.clip = 3.0;
	p.has_bounds = 1;
	p.scaling = DPB_SCALE_BOX;
	CHECK_REL(dpb_coord_bound(&p, 4), 1.5, 1e-15, "coord bound box d=4");
	CHECK_REL(dpb_coord_bound(&p, 1), 3.0, 1e-15, "coord bound box d=1");
	CHECK_REL(dpb_coord_bound(&p, 9), 1.0, 1e-15, "coord bound box d=9");
	p.scaling = DPB_SCALE_BALL;
	CHECK(dpb_coord_bound(&p, 4) == 3.0, "coord bound ball");
	p.scaling = DPB_SCALE_BOX;
	p.has_bounds = 0;
	CHECK(dpb_coord_bound(&p, 4) == 3.0, "coord bound without bounds");

	/* non-finite input: -1 from the clipping pass itself, every mode, any
	 * position, whether or not the value would be clamped */
	for (k = 0; k < 3; k++)
	{
		const double bad_vals[] = {NAN, INFINITY, -INFINITY};
		double		lo[5] = {-1, -2, 0, 1, -5},
					hi[5] = {1, 2, 3, 4, 5};
		int			b;

		if (k == 0)
		{
			dpb_params_default(&p);
			p.y_bound = 1;
		}
		else
			bounded_params(&p, 5, 1.0, k == 1 ? DPB_SCALE_BOX : DPB_SCALE_BALL, lo, hi);
		dpb_clipper_init(&c, &p, DPB_MODEL_LINEAR, 5);
		for (j = 0; j < 5; j++)
			for (b = 0; b < 3; b++)
			{
				int			i2;

				for (i2 = 0; i2 < 5; i2++)
					x[i2] = 0.5 * lo[i2] + 0.5 * hi[i2];
				x[j] = bad_vals[b];
				CHECK(dpb_clip_x(&c, x, z) == -1, "mode %d: %g at %d not rejected",
					  k, bad_vals[b], j);
			}
		for (j = 0; j < 5; j++)
			x[j] = j % 2 ? DBL_MAX : -DBL_MAX;
		CHECK(dpb_clip_x(&c, x, z) >= 0, "mode %d: +-DBL_MAX taken for non-finite", k);
	}

	/* dpb_clip_y */
	dpb_params_default(&p);
	p.y_bound = 2.5;
	dpb_clipper_init(&c, &p, DPB_MODEL_LINEAR, 1);
	CHECK(dpb_clip_y(&c, 1.25) == 1.25, "linear y inside");
	CHECK(dpb_clip_y(&c, -2.5) == -2.5 && dpb_clip_y(&c, 2.5) == 2.5, "linear y at bounds");
	CHECK(dpb_clip_y(&c, 7.0) == 2.5, "linear y above");
	CHECK(dpb_clip_y(&c, -1e300) == -2.5, "linear y below");
	CHECK(dpb_clip_y(&c, 0.0) == 0.0, "linear y zero");
	dpb_clipper_init(&c, &p, DPB_MODEL_POISSON, 1);
	CHECK(dpb_clip_y(&c, 1.25) == 1.25, "poisson y inside");
	CHECK(dpb_clip_y(&c, 0.0) == 0.0, "poisson y zero");
	CHECK(dpb_clip_y(&c, 2.5) == 2.5, "poisson y at bound");
	CHECK(dpb_clip_y(&c, 3.0) == 2.5 && dpb_clip_y(&c, 1e300) == 2.5, "poisson y above");
	CHECK(dpb_clip_y(&c, -1.0) == 0.0, "poisson y below 0");
	p.y_bound = 0;
	dpb_clipper_init(&c, &p, DPB_MODEL_LOGISTIC, 1);
	CHECK(dpb_clip_y(&c, 1.0) == 1.0 && dpb_clip_y(&c, -1.0) == -1.0, "logistic +-1 kept");
	CHECK(dpb_clip_y(&c, 5.0) == 1.0 && dpb_clip_y(&c, -0.5) == -1.0, "logistic sign");
	gsl_rng_free(rng);
}
