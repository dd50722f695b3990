/*
 * release.h — a differentially private release: metadata + noisy statistics.
 *
 * A release is self-describing: it records the model, the public bounds,
 * the mechanism and its calibration (sensitivity, noise scales), and the
 * noisy sums in the layout of layout.h.  It is packed into a portable byte
 * string (the SQL type dpbayes.release) and printed as JSON.  Every consumer
 * unpacks it with dpb_release_unpack(), which rejects malformed, truncated
 * and inconsistent input: the calibration is recomputed from the recorded
 * parameters and must match.
 */
#ifndef DPB_RELEASE_H
#define DPB_RELEASE_H

#include "params.h"
#include "layout.h"

#include <gsl/gsl_rng.h>

#define DPB_RELEASE_VERSION 1

typedef struct dpb_release
{
	int			version;
	dpb_model	model;
	int			d;
	int64_t		n;				/* number of records (public) */
	int			insecure;		/* made with deterministic test noise */
	dpb_params	p;				/* the privacy parameters (d, bounds, names) */

	/* calibration */
	double		sensitivity;	/* gaussian: joint L2 Delta of the weighted
								 * release; laplace: sum_b l1_b / w_b */
	double		noise_scale;	/* gaussian: sigma0; laplace: b0 */
	int			nblocks;
	double		block_weight[DPB_MAX_BLOCKS];	/* relative noise scales */
	double		block_sens[DPB_MAX_BLOCKS]; /* L2 (gaussian) or L1 (laplace)
											 * sensitivity of the block alone */

	int			nstats;
	double	   *stats;			/* nstats noisy sums (caller-owned) */
} dpb_release;

/*
 * Fills the calibration fields of r from r->model, r->d and r->p.  The
 * layout and parameters must be valid for the model.
 */
dpb_status	dpb_release_calibrate(dpb_release *r, dpb_err *err);

/* The layout of r's statistics. */
dpb_status	dpb_release_layout(const dpb_release *r, dpb_layout *L);

/* Noise standard deviation of each entry (in released, unweighted units);
 * out has nstats entries.  For laplace the sd is sqrt(2) times the scale. */
void		dpb_release_noise_sd(const dpb_release *r, double *out);

/* Noise scale of each entry: sigma for gaussian, b for laplace. */
void		dpb_release_noise_scale(const dpb_release *r, double *out);

/* Adds one draw of the calibrated noise to every entry of r->stats. */
dpb_status	dpb_release_add_noise(dpb_release *r, gsl_rng *rng, dpb_err *err);

/* Packed size, packing and unpacking.  dpb_release_unpack allocates
 * r->stats with malloc (free with dpb_release_free_stats) and validates. */
size_t		dpb_release_packed_size(const dpb_release *r);
void		dpb_release_pack(const dpb_release *r, unsigned char *buf);
dpb_status	dpb_release_unpack(const unsigned char *buf, size_t len,
							   dpb_release *r, dpb_err *err);
void		dpb_release_free_stats(dpb_release *r);

/* Largest noise scale of one entry: a draw can then never overflow. */
#define DPB_MAX_NOISE_SCALE 1e290

/*
 * Checks the parameters for a model and d and that their calibration is
 * usable: finite, positive, every entry's noise scale at most
 * DPB_MAX_NOISE_SCALE (DPB_EINVAL otherwise).  The release aggregates call
 * it before reading any row, so that parameters whose release could not be
 * stored are refused at once.
 */
dpb_status	dpb_release_check_params(dpb_model model, const dpb_params *p, int d,
									 dpb_err *err);

/* Full consistency check of a release (done by unpack; exposed for the JSON
 * input path and the aggregates' final function): the parameters (feature
 * names by the rule of names.h), the layout, finite statistics, and a
 * usable calibration equal to the one the parameters imply. */
dpb_status	dpb_release_validate(const dpb_release *r, dpb_err *err);

/* A growable string for JSON output (malloc'ed). */
typedef struct dpb_buf
{
	char	   *data;
	size_t		len;
	size_t		cap;
	int			oom;
} dpb_buf;

void		dpb_buf_init(dpb_buf *b);
void		dpb_buf_free(dpb_buf *b);
void		dpb_buf_puts(dpb_buf *b, const char *s);
void		dpb_buf_printf(dpb_buf *b, const char *fmt,...)
#if defined(__GNUC__)
			__attribute__((format(printf, 2, 3)))
#endif
			;

/* The release as JSON (see docs/release-format.md). */
dpb_status	dpb_release_to_json(const dpb_release *r, dpb_buf *out);

#endif
