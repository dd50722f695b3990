/*
 * dpb.h — common definitions of the dpbayes core library.
 *
 * The core is plain C99 with no PostgreSQL headers: it is linked into the
 * extension and into the unit tests under test/.  It never calls exit(),
 * abort() or longjmp(); every fallible function returns a dpb_status and,
 * where useful, writes a human-readable message into a dpb_err.  The glue in
 * src/pg/ maps statuses to SQLSTATEs.
 */
#ifndef DPB_H
#define DPB_H

#include <stddef.h>
#include <stdint.h>

/* Largest number of features a release may have. t2 blocks hold O(d^2)
 * entries and the GLM moment computations are O(d^4) per evaluation. */
#define DPB_MAX_D 64

/* Largest number of features of a release that also releases the third and
 * fourth moments of the features (x_moments): those blocks hold O(d^4)
 * entries. */
#define DPB_MAX_D_XMOM 16

/* Largest number of statistic blocks of a model (and of noise weights):
 * up to 4 blocks of sums, plus the count under add/remove neighbours. */
#define DPB_MAX_MODEL_BLOCKS 5

/* Largest number of statistic blocks in one release: up to 5 of the model,
 * plus the 2 moment blocks of x_moments and the y_clamped count. */
#define DPB_MAX_BLOCKS 8

typedef enum dpb_status
{
	DPB_OK = 0,
	DPB_EINVAL,					/* invalid parameter value (user input) */
	DPB_EDATA,					/* invalid data value (NaN, infinity, ...) */
	DPB_ERANGE,					/* value out of the allowed range */
	DPB_ECORRUPT,				/* malformed, truncated or inconsistent release */
	DPB_ENOMEM,					/* out of memory */
	DPB_ENUMERIC,				/* numerical failure (root finding, ...) */
	DPB_EINTR,					/* interrupted by the host (query cancel) */
	DPB_ERNG,					/* the random source failed */
	DPB_ENOTSUP					/* not supported (yet) */
} dpb_status;

/* A short error message; filled by functions that fail.  Never contains
 * data-derived values (exact statistics must not leave an aggregate). */
typedef struct dpb_err
{
	char		msg[256];
	char		detail[256];
} dpb_err;

void		dpb_err_set(dpb_err *err, const char *msg, const char *detailfmt,...)
#if defined(__GNUC__)
			__attribute__((format(printf, 3, 4)))
#endif
			;

typedef enum dpb_model
{
	DPB_MODEL_LINEAR = 1,
	DPB_MODEL_LOGISTIC = 2,
	DPB_MODEL_POISSON = 3
} dpb_model;

typedef enum dpb_mechanism
{
	DPB_MECH_GAUSSIAN = 1,		/* analytic Gaussian mechanism, (eps, delta) */
	DPB_MECH_LAPLACE = 2,		/* Laplace mechanism, pure eps */
	DPB_MECH_NONE = 3,			/* NOT PRIVATE: exact statistics, for the
								 * non-private reference only */
	DPB_MECH_LDP_GAUSSIAN = 4	/* the sum of n local-DP reports, each a
								 * one-record replace-one Gaussian release
								 * (docs/ldp.md); no noise added by the
								 * server, the noise of the sum has
								 * variance n times a report's */
} dpb_mechanism;

/* gaussian or ldp_gaussian: the calibration and the grids of the Gaussian
 * mechanism */
#define dpb_mech_gaussian(m) ((m) == DPB_MECH_GAUSSIAN || (m) == DPB_MECH_LDP_GAUSSIAN)

typedef enum dpb_scaling
{
	/* map [lower_j, upper_j] onto [-R/sqrt(d), R/sqrt(d)]: the box lies in
	 * the ball, clipping only catches out-of-bound values */
	DPB_SCALE_BOX = 1,
	/* map [lower_j, upper_j] onto [-R, R], then project onto the ball */
	DPB_SCALE_BALL = 2
} dpb_scaling;

/*
 * The neighbouring relation the privacy guarantee is stated for
 * (docs/privacy.md §13).  Under add/remove-one neighbours the number of
 * records N is private and is released with noise (a count block); under
 * replace-one neighbours N is public and is recorded exactly.
 */
typedef enum dpb_neighbours
{
	DPB_NB_ADD_REMOVE = 1,		/* one record added or removed (the default) */
	DPB_NB_REPLACE = 2			/* one record replaced: N public */
} dpb_neighbours;

const char *dpb_model_name(dpb_model m);
const char *dpb_neighbours_name(dpb_neighbours n);
const char *dpb_mechanism_name(dpb_mechanism m);
const char *dpb_scaling_name(dpb_scaling s);

/* Parses names; return 0 when unknown. */
dpb_model	dpb_model_from_name(const char *s);
dpb_mechanism dpb_mechanism_from_name(const char *s);
dpb_scaling dpb_scaling_from_name(const char *s);
dpb_neighbours dpb_neighbours_from_name(const char *s);

/* Finite check without relying on compiler flags. */
static inline int
dpb_isfinite(double v)
{
	return v == v && v - v == 0.0;
}

#endif							/* DPB_H */
