/*
 * params.h — the privacy parameters of a release, and their validation.
 *
 * The SQL constructor dpbayes.privacy(...) fills a dpb_params; every release
 * aggregate validates it (once per group) for its model before any row is
 * read.  All bounds are public: they must never be computed from the data.
 */
#ifndef DPB_PARAMS_H
#define DPB_PARAMS_H

#include "dpb.h"
#include "layout.h"

#define DPB_NAME_LEN 64			/* feature names, NUL included */

typedef struct dpb_params
{
	double		epsilon;		/* > 0 */
	double		delta;			/* (0, 1) for gaussian, 0 for laplace */
	double		clip;			/* R: L2 bound of the scaled features */
	double		y_bound;		/* |y| <= y_bound (linear), y <= y_bound
								 * (poisson); 0 when not given */
	int			d;				/* number of features (0: take from the
								 * lower/upper arrays or the first row) */
	int			has_bounds;		/* lower/upper given */
	double		lower[DPB_MAX_D];
	double		upper[DPB_MAX_D];
	int			intercept;
	dpb_mechanism mechanism;
	dpb_scaling scaling;
	dpb_neighbours neighbours;	/* add/remove-one (N private, released with
								 * noise) or replace-one (N public) */
	int			nweights;		/* 0, or the number of the model's blocks
								 * (the count block included, as the last
								 * one, under add/remove neighbours) */
	double		noise_weights[DPB_MAX_BLOCKS];	/* relative noise scales */
	double		x_moments;		/* share of the budget spent on the third and
								 * fourth moments of the features (linear
								 * only; 0: not released), in [0, 1) */
	double		y_clamped;		/* share of the budget spent on the number of
								 * records whose response was clamped (linear
								 * only; 0: not released), in [0, 1), with
								 * x_moments + y_clamped < 1 */
	int			y_clamped_set;	/* y_clamped given by the caller; when not,
								 * the SQL glue applies the model's default
								 * (dpb_params_default_y_clamped) and clears
								 * this.  Not part of a release. */
	int			has_names;
	char		names[DPB_MAX_D][DPB_NAME_LEN];
	int			unscaled;		/* no bounds by the caller's explicit choice
								 * (scaling "none": features already scaled
								 * to the ball); the SQL glue refuses a
								 * release without bounds otherwise (issue
								 * 25).  Not part of a release. */
} dpb_params;

/* The share y_clamped that central linear releases get by default
 * (dpb_params_default_y_clamped). */
#define DPB_Y_CLAMPED_DEFAULT 0.02

/* Defaults: epsilon 1, delta 1e-6, clip 1, intercept on, gaussian, box,
 * add/remove neighbours. */
void		dpb_params_default(dpb_params *p);

/*
 * Checks the parameters that do not depend on the model (epsilon, delta,
 * clip, bounds, names, weights > 0).  DPB_EINVAL with a message otherwise.
 */
dpb_status	dpb_params_check(const dpb_params *p, dpb_err *err);

/*
 * Checks the parameters against a model and a feature count d (from the
 * data): y_bound needed for linear/poisson, laplace only for linear,
 * bounds of length d, the number of noise weights equal to the number of
 * blocks.  d outside [1, DPB_MAX_D] is DPB_ERANGE.
 */
dpb_status	dpb_params_check_model(const dpb_params *p, dpb_model model, int d,
								   dpb_err *err);

/*
 * The default share of the clamped-response count for a central release of
 * this model with these parameters: DPB_Y_CLAMPED_DEFAULT for linear
 * releases with the gaussian or laplace mechanism, unless x_moments leaves
 * it no room (x_moments + DPB_Y_CLAMPED_DEFAULT >= 1); 0 otherwise.
 */
double		dpb_params_default_y_clamped(const dpb_params *p, dpb_model model);

/* The layout of the model's blocks under p's neighbouring relation (the
 * count block appended under add/remove), without the moment blocks. */
dpb_status	dpb_params_model_layout(const dpb_params *p, dpb_model model, int d,
									dpb_layout *L);

#endif
