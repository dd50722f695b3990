/*
 * clip.h — scaling and clipping of one record by public bounds.
 *
 * With bounds, feature j is clamped to [lower_j, upper_j] and mapped affinely
 * onto [-s, s], s = R/sqrt(d) ("box": the whole box lies inside the L2 ball
 * of radius R, so only out-of-bound values are changed) or s = R ("ball":
 * more signal per feature, but the box's corners are cut by the projection).
 * Without bounds the features are used as given.  Finally z is projected onto
 * the ball ||z||_2 <= R.  The response is clamped to its public bound.
 */
#ifndef DPB_CLIP_H
#define DPB_CLIP_H

#include "params.h"

typedef struct dpb_clipper
{
	int			d;
	double		R;
	int			has_bounds;
	double		lower[DPB_MAX_D];
	double		upper[DPB_MAX_D];
	double		center[DPB_MAX_D];	/* (lower + upper) / 2 */
	double		gain[DPB_MAX_D];	/* s / ((upper - lower) / 2) */
	double		coord_bound;	/* bound on |z_j| after clipping */
	int			fast;			/* sum of squares cannot over/underflow */
	double		fast_thr;		/* (R (1 - (d + 8) eps))^2 */
	double		y_bound;
	dpb_model	model;
} dpb_clipper;

void		dpb_clipper_init(dpb_clipper *c, const dpb_params *p, dpb_model model,
							 int d);

/* Clips x (d values) into z; returns 1 when the ball projection changed the
 * record, 0 otherwise, and -1 (z unspecified) when a value of x is NaN or
 * infinite: the finiteness check is part of the clipping pass. */
int			dpb_clip_x(const dpb_clipper *c, const double *x, double *z);

/* Clamps the response into its public range: [-Ry, Ry] (linear), [0, Ry]
 * (poisson; negative values are rejected before), identity for logistic's
 * +-1. */
double		dpb_clip_y(const dpb_clipper *c, double y);

/* 1 when dpb_clip_y clamps the response of a linear model (|y| > y_bound:
 * the records the YCLAMP block counts, layout.h), 0 otherwise (always 0
 * for logistic and poisson). */
int			dpb_clip_y_clamped(const dpb_clipper *c, double y);

/* The per-feature scale s/half-width and centre used to map back to the
 * original units: z_j = gain_j * (x_j - center_j) when not clipped. */

#endif

/* The bound on |z_j| after clipping, as used by the Laplace sensitivity:
 * R/sqrt(d) with box scaling, R otherwise. */
double		dpb_coord_bound(const dpb_params *p, int d);
