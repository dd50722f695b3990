/*
 * ldp.h — local differential privacy: the public protocol object and the
 * client-side randomizers (issue 11; docs/ldp.md).
 *
 * A protocol is fixed and published before collection.  Its canonical JSON
 * (fixed key order, numbers as the first of %.15g, %.16g, %.17g that reads
 * back to the same double: the fewest significant digits) is hashed with SHA-256; the hex digest is the protocol
 * id, stamped on every report.  Client and server compute the calibration
 * from the parsed protocol with the same code (this file and the core's
 * release calibration), so they agree byte for byte.
 *
 * Every randomizer draws its bits from a dpb_rbits source: the operating
 * system's CSPRNG (dpb_ldp_rbits_os, getrandom(2)) on a client.  No floating
 * point touches the secret path: values are rounded to a public
 * power-of-two grid and the noise is the grid step times an exact integer
 * (docs/privacy.md §15); the Bernoulli draws of randomized response and
 * OUE are exact (dnoise.h) for the exact dyadic value of epsilon.
 */
#ifndef DPB_LDP_H
#define DPB_LDP_H

#include "dpb.h"
#include "dnoise.h"
#include "params.h"
#include "release.h"

#define DPB_LDP_PROTOCOL_VERSION 1
#define DPB_LDP_MAX_CATEGORIES 1024
#define DPB_LDP_ID_LEN 64		/* hex SHA-256, NUL not included */

/* Range of epsilon accepted by every mechanism (public parameters). */
#define DPB_LDP_EPS_MIN 1e-6
#define DPB_LDP_EPS_MAX 50.0

/* Bits of the scalar Laplace grid below the noise scale. */
#define DPB_LDP_SCALAR_GRID_BITS 20

typedef enum dpb_ldp_mech
{
	DPB_LDP_RR = 1,				/* 1-bit randomized response */
	DPB_LDP_OUE = 2,			/* optimal unary encoding, K categories */
	DPB_LDP_SCALAR_LAPLACE = 3, /* Laplace on a scalar clipped to [a, b] */
	DPB_LDP_SS_LINEAR = 4,		/* Gaussian on t(x, y), linear regression */
	DPB_LDP_SS_LOGISTIC = 5,	/* ... logistic regression */
	DPB_LDP_SS_POISSON = 6,		/* ... Poisson regression */
	DPB_LDP_SCALAR_GAUSSIAN = 7,	/* Gaussian on a scalar clipped to [a, b] */
	DPB_LDP_LINEAR_INPUT = 8,	/* Gaussian on the record (x, y), linear
								 * regression with perturbed inputs (R7) */
	DPB_LDP_LOGISTIC_INPUT = 9	/* Gaussian on x, randomized response on
								 * the label y in {0, 1} (R8) */
} dpb_ldp_mech;

#define DPB_LDP_MECH_MAX DPB_LDP_LOGISTIC_INPUT

/* Range of the public ratio sigma_y / sigma_x of linear_input. */
#define DPB_LDP_RATIO_MIN 1e-6
#define DPB_LDP_RATIO_MAX 1e6

typedef struct dpb_ldp_protocol
{
	dpb_ldp_mech mech;
	double		epsilon;
	/* scalar_laplace, scalar_gaussian */
	double		lower;
	double		upper;
	double		delta;			/* scalar_gaussian, *_input (ss_*: p.delta) */
	/* linear_input, logistic_input */
	double		clip;			/* R: x is clipped to the L2 ball of radius R */
	double		y_bound;		/* linear_input: y clipped to [-R_y, R_y] */
	double		y_noise_ratio;	/* linear_input: sigma_y / sigma_x (NaN: the
								 * default R_y / R) */
	double		label_share;	/* logistic_input: the label's share c of
								 * epsilon (default 0.5) */
	/* oue */
	int			categories;
	/* ss_*: the privacy parameters of a one-record, replace-one Gaussian
	 * release (mechanism gaussian, neighbours replace, box scaling) */
	dpb_params	p;
	int			d;
	char		id[DPB_LDP_ID_LEN + 1];
} dpb_ldp_protocol;

/* The public calibration every party derives from a protocol. */
typedef struct dpb_ldp_calib
{
	int			report_len;		/* values per report */
	/* rr, oue: epsilon = eps_num / 2^eps_log2den exactly */
	dpb_u128	eps_num;
	int			eps_log2den;
	double		p_keep;			/* rr: report x w.p. e^eps / (1 + e^eps);
								 * oue: a 0 bit stays 0 w.p. this */
	double		q_keep;			/* oue: a 1 bit stays 1 w.p. 1/2 */
	/* scalar_laplace: z = 2^grid_exp (v + Y), v in [vlo, vhi], Y discrete
	 * Laplace of integer scale t; pure epsilon_used = (vhi - vlo) / t */
	int			grid_exp;
	int64_t		vlo;
	int64_t		vhi;
	uint64_t	lap_t;
	double		epsilon_used;
	/* scalar_gaussian: the same grid and v, Y discrete Gaussian of integer
	 * variance sigma2 with (vhi - vlo)^2 / (2 sigma2) = rho_used <= rho*,
	 * the largest rho whose zCDP implies (epsilon, delta)-DP */
	uint64_t	gauss_sigma2;
	double		rho_used;
	/* linear_input, logistic_input: entry j of x (and linear y) is
	 * 2^in_gexp[.] (round(v_j / 2^in_gexp[.]) + Y_j), Y_j discrete Gaussian
	 * of integer variance in_sigma2[.]; [0] features, [1] the response
	 * (linear_input only).  in_sd = 2^in_gexp sqrt(in_sigma2), the noise
	 * sd; rho_used as above (the Gaussian part only).  logistic_input:
	 * the label is randomized response at eps_label = eps_num /
	 * 2^eps_log2den (p_keep), the features get eps_features and delta. */
	int			in_gexp[2];
	uint64_t	in_sigma2[2];
	double		in_sd[2];
	double		in_sens;		/* L2 sensitivity of (x, y / ratio) or x */
	double		eps_label;
	double		eps_features;
	/* ss_*: the calibrated one-record release (stats NULL) */
	dpb_release rel;
	dpb_layout	L;
} dpb_ldp_calib;

const char *dpb_ldp_mech_name(dpb_ldp_mech m);

/*
 * Parses and validates a protocol (a JSON object; keys in any order; an
 * "id" key, when present, must equal the id of the canonical form).
 * DPB_EINVAL with a message for malformed JSON, an unknown or duplicated
 * key, a missing or out-of-range parameter.  Fills p->id.
 */
dpb_status	dpb_ldp_protocol_parse(const char *json, dpb_ldp_protocol *p,
								   dpb_err *err);

/* Validates the fields (as parse does) and sets p->id. */
dpb_status	dpb_ldp_protocol_finish(dpb_ldp_protocol *p, dpb_err *err);

/* The canonical JSON (no "id" key) into out. */
dpb_status	dpb_ldp_protocol_canonical(const dpb_ldp_protocol *p, dpb_buf *out);

/* The canonical JSON followed by the "id" key (what a publisher prints). */
dpb_status	dpb_ldp_protocol_to_json(const dpb_ldp_protocol *p, dpb_buf *out);

/* Hex SHA-256 of len bytes into hex (DPB_LDP_ID_LEN + 1 bytes). */
void		dpb_ldp_sha256_hex(const void *data, size_t len, char *hex);

/* The first of "%.15g", "%.16g", "%.17g" that reads back to v (the
 * fewest significant digits; "0" for zero), into buf (>= 32). */
void		dpb_ldp_format_double(double v, char *buf);

dpb_status	dpb_ldp_calibrate(const dpb_ldp_protocol *p, dpb_ldp_calib *c,
							  dpb_err *err);

/* Calibration as JSON (fixed order), for the CLI and the server. */
dpb_status	dpb_ldp_calib_to_json(const dpb_ldp_protocol *p,
								  const dpb_ldp_calib *c, dpb_buf *out);

/* Column label k of a report (k < report_len) into buf. */
void		dpb_ldp_report_label(const dpb_ldp_protocol *p, const dpb_ldp_calib *c,
								 int k, char *buf, size_t buflen);

/* Number of input values per record: 1 (rr, oue, scalar_*) or d + 1 (ss_*,
 * *_input). */
int			dpb_ldp_input_len(const dpb_ldp_protocol *p);

/*
 * One report from one record.  in[] holds dpb_ldp_input_len(p) values:
 *   rr               x in {0, 1}
 *   oue              the category k in {1, ..., K}
 *   scalar_laplace,  x (finite; clipped to [lower, upper], never dropped)
 *   scalar_gaussian
 *   ss_*             x_1 .. x_d, y (finite; clipped by the protocol's
 *                    bounds; logistic y in {-1, +1}, 0 read as -1;
 *                    Poisson y >= 0)
 *   linear_input     x_1 .. x_d, y (finite; x clipped to the L2 ball of
 *                    radius clip, y to [-y_bound, y_bound])
 *   logistic_input   x_1 .. x_d, y (y in {0, 1}, -1 read as 0)
 * out[] receives report_len values, every one on its public grid (0/1 for
 * rr and oue).  DPB_EDATA for an invalid record (nothing drawn),
 * DPB_ERNG when the bit source failed.
 */
dpb_status	dpb_ldp_randomize(const dpb_ldp_protocol *p, const dpb_ldp_calib *c,
							  const double *in, dpb_rbits *rb, double *out,
							  dpb_err *err);

/* eps = num / 2^k exactly (a double is a dyadic rational). */
void		dpb_ldp_eps_dyadic(double eps, dpb_u128 *num, int *k);

/* Exact Bernoulli(1 / (1 + e^eps)) for eps = num / 2^log2den. */
dpb_status	dpb_ldp_flip(dpb_rbits *rb, dpb_u128 num, int log2den, int *out);

/* A bit source reading getrandom(2) (the only source a client may use for
 * real reports).  NULL when out of memory.  Fork-safe: a child never
 * reuses the bits its parent buffered.  Not thread-safe: one source per
 * thread (dnoise.h, dpb_rbits_new). */
dpb_rbits  *dpb_ldp_rbits_os(void);

/* Calibration and randomizer of linear_input / logistic_input
 * (ldp_input.c; called by dpb_ldp_calibrate / dpb_ldp_randomize). */
dpb_status	dpb_ldp_input_calibrate(const dpb_ldp_protocol *p, dpb_ldp_calib *c,
									dpb_err *err);
dpb_status	dpb_ldp_input_randomize(const dpb_ldp_protocol *p, const dpb_ldp_calib *c,
									const double *in, dpb_rbits *rb, double *out,
									dpb_err *err);
int			dpb_ldp_input_on_grid(const dpb_ldp_protocol *p, const dpb_ldp_calib *c,
								  const double *out);

/* 1 for linear_input and logistic_input. */
int			dpb_ldp_is_input(dpb_ldp_mech m);

/* 1 when every value of the report lies on its grid. */
int			dpb_ldp_report_on_grid(const dpb_ldp_protocol *p, const dpb_ldp_calib *c,
								   const double *out);

#endif
