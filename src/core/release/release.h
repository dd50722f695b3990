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
#include "accum.h"
#include "dnoise.h"

/*
 * Version 2: discrete noise on a power-of-two grid (docs/privacy.md §15).
 * Version 3: the same, with the grid of a T2 block with an intercept sized
 * by its largest monomial R max(1, R) instead of max(1, R)^2 (a finer grid
 * for R <= 1/2, so less noise; nothing else differs).  New releases are
 * version 3; version 2 releases are still read and validated with their own
 * grid.  Version 1 releases (floating-point noise, which leaks the exact
 * sums) are refused.
 * Version 4: the same, and a linear release may end with the YCLAMP block
 * (layout.h), the noisy number of records whose response was clamped, with
 * its share p.y_clamped of the budget (the second flags byte of the binary
 * form, docs/release-format.md).  New releases are version 4; versions 2
 * and 3 are still read (they have no such block).
 */
#define DPB_RELEASE_VERSION 4
#define DPB_RELEASE_VERSION_GRID_A2 2	/* the oldest version read */
#define DPB_RELEASE_VERSION_NO_YCLAMP 3 /* the newest without y_clamped */
#define DPB_RELEASE_VERSION_OK(v) \
	((v) >= DPB_RELEASE_VERSION_GRID_A2 && (v) <= DPB_RELEASE_VERSION)

/*
 * The noise grid.  Block b's released values are exact multiples of
 * g_b = 2^grid_exp[b]: the larger of 2^-DPB_GRID_BITS times the smallest
 * noise scale of the block's entries and a grid on which the sums of up to
 * 2^DPB_GRID_ROWS_LOG2 records stay below 2^52 steps (release.c).  The noise
 * is g_b times a discrete Gaussian (or discrete Laplace) integer; released
 * multiples m of g_b satisfy |m| < 2^53, so every value is an exact double.
 * The rounding to the grid is paid for in the calibration.
 */
#define DPB_GRID_BITS 20
#define DPB_GRID_ROWS_LOG2 36

/*
 * The signature of a governed release (docs/governance.md §6): Ed25519 over
 * the canonical form (release_sig.c), made by the server's signing key for
 * one request on one dataset.  Unsigned releases have present = 0.
 *
 * Version 1 (dpbayes 0.1.0) signs the release, the key id, the request id
 * and the dataset.  Version 2 also signs a 32-byte binding: the SHA-256 of
 * a canonical text the caller builds (the dataset's stable id, the columns,
 * the requester, the charge, the group key...).  Version 1 signatures are
 * still read and verified; only statistics releases have them.
 */
#define DPB_SIG_BYTES 64
#define DPB_SIG_KEYID_BYTES 8
#define DPB_SIG_KEY_BYTES 32
#define DPB_SIG_TEXT_MAX 256	/* request id, dataset: < 256 bytes of UTF-8 */
#define DPB_SIG_BINDING_BYTES 32
#define DPB_SIG_V1 1
#define DPB_SIG_V2 2

typedef struct dpb_release_sig
{
	int			present;
	int			version;		/* DPB_SIG_V1 or DPB_SIG_V2 */
	unsigned char key_id[DPB_SIG_KEYID_BYTES];	/* SHA-256(public key)[0..8) */
	unsigned char value[DPB_SIG_BYTES];
	char		request_id[DPB_SIG_TEXT_MAX];
	char		dataset[DPB_SIG_TEXT_MAX];
	unsigned char binding[DPB_SIG_BINDING_BYTES];	/* version 2 only */
} dpb_release_sig;

typedef struct dpb_release
{
	int			version;
	dpb_model	model;
	int			d;
	int64_t		n;				/* number of records under replace-one
								 * neighbours (public); always 0 under
								 * add/remove, where N is private and only
								 * its noisy count is released */
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
	int			grid_exp[DPB_MAX_BLOCKS];	/* g_b = 2^grid_exp[b] */
	double		rho;			/* gaussian: the release is rho-zCDP
								 * (rho <= rho*(epsilon, delta)); laplace:
								 * the epsilon actually used */

	int			nstats;
	double	   *stats;			/* nstats noisy sums (caller-owned) */

	dpb_release_sig sig;		/* governed releases only */
} dpb_release;

/*
 * Fills the calibration fields of r from r->model, r->d and r->p.  The
 * layout and parameters must be valid for the model.
 */
dpb_status	dpb_release_calibrate(dpb_release *r, dpb_err *err);

/* The layout of r's statistics. */
dpb_status	dpb_release_layout(const dpb_release *r, dpb_layout *L);

/* The number of records as the posterior should treat it: exact (known = 1,
 * n_sd = 0) under replace; the noisy count and its noise sd (known = 0)
 * under add_remove.  (A non-private reference release, mechanism "none",
 * holds the exact count: known = 1 there.) */
void		dpb_release_count(const dpb_release *r, double *n, double *n_sd, int *known);

/* The release's count of clamped responses (the y_clamped block, format
 * version 4; docs/privacy.md §17): returns 1 and its noisy value and noise
 * sd (0 for mechanism "none"), or 0 when r has no such block (versions 2
 * and 3, logistic, Poisson, LDP, y_clamped 0). */
int			dpb_release_yclamp(const dpb_release *r, double *count, double *sd);

/* Noise standard deviation of each entry (in released, unweighted units);
 * out has nstats entries.  For laplace the sd is sqrt(2) times the scale.
 * These are the scales of the discrete noise actually drawn (g sqrt(s) and
 * g t below), a hair above the calibrated ones. */
void		dpb_release_noise_sd(const dpb_release *r, double *out);

/* Noise scale of each entry: sigma for gaussian, b for laplace. */
void		dpb_release_noise_scale(const dpb_release *r, double *out);

/*
 * Releases the exact statistics stats_k = I[k] 2^-e[k] (dpb_acc_fixed):
 * each is rounded to its block's grid, clamped to |m| <= 2^52 grid units
 * (both 1-Lipschitz up to the rounding paid for in the calibration), and
 * g_b times an exact discrete Gaussian / Laplace integer drawn from rb is
 * added.  Writes r->stats (nstats entries, caller-allocated).  I and e may
 * be NULL for an empty group (all sums 0).  Mechanism "none" writes the
 * exact sums rounded to doubles.
 */
dpb_status	dpb_release_add_noise(dpb_release *r, const dpb_i128 *I, const int *e,
								  dpb_rbits *rb, dpb_err *err);

/* 1 when every statistic of r lies on its block's grid. */
int			dpb_release_on_grid(const dpb_release *r, int *bad_index);

/*
 * A release of n rows held in memory (X row-major n x d, Y n values): clip,
 * accumulate exactly (accum.h), calibrate, and add noise from rb.  With rb
 * NULL the stats are the exact sums (for tests; not a release).  r->stats is
 * malloc'ed (dpb_release_free_stats).  *clipped (may be NULL) counts the
 * records that clipping changed.
 */
dpb_status	dpb_release_from_rows(dpb_release *r, dpb_model model, const dpb_params *p,
								  int d, const double *X, const double *Y, int64_t n,
								  dpb_rbits *rb, int64_t *clipped, dpb_err *err);

/* Packed size, packing and unpacking.  dpb_release_unpack allocates
 * r->stats with malloc (free with dpb_release_free_stats) and validates. */
size_t		dpb_release_packed_size(const dpb_release *r);
void		dpb_release_pack(const dpb_release *r, unsigned char *buf);
dpb_status	dpb_release_unpack(const unsigned char *buf, size_t len,
							   dpb_release *r, dpb_err *err);
void		dpb_release_free_stats(dpb_release *r);

/* Fills the fields that follow from the recorded parameters (the noise
 * grids, rho); unpack does it, and so must any other input path before
 * dpb_release_validate. */
void		dpb_release_derive(dpb_release *r);

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

/*
 * Signatures (release_sig.c).  The signed message of version 1 is the
 * domain string "dpbayes.release.signature.v1" with its NUL, the packed
 * release without its signature, the key id, and the request id and
 * dataset, each preceded by its length byte.  Version 2: the domain string
 * "dpbayes.release.signature.v2" with its NUL, the same fields, then the
 * 32-byte binding.  The same message serves every kind of release (the
 * packed form starts with the kind's magic).
 */
typedef enum dpb_sig_check
{
	DPB_SIG_VALID = 0,
	DPB_SIG_UNSIGNED = 1,
	DPB_SIG_KEY_MISMATCH = 2,	/* signed by another key */
	DPB_SIG_BAD = 3				/* the release or its signature was changed */
} dpb_sig_check;

/* A fresh Ed25519 key pair from the OS's random source (DPB_EINTERNAL when
 * libcrypto fails). */
dpb_status	dpb_sig_keygen(unsigned char pub[DPB_SIG_KEY_BYTES],
						   unsigned char priv[DPB_SIG_KEY_BYTES], dpb_err *err);
/* The key id of a public key: the first 8 bytes of its SHA-256. */
void		dpb_sig_key_id(const unsigned char pub[DPB_SIG_KEY_BYTES],
						   unsigned char id[DPB_SIG_KEYID_BYTES]);
/* 1 when s (len bytes) may be a request id or dataset of a signature:
 * 1..255 bytes of valid UTF-8 without control characters. */
int			dpb_sig_text_ok(const char *s, size_t len);

/*
 * The kind-independent core: sig (replaced) becomes a signature of the
 * given version over packed (plen bytes: the release packed without a
 * signature); binding is read for version 2 only.  DPB_EINVAL for a bad
 * version or text, DPB_ERNG when libcrypto fails (sig is then cleared).
 */
dpb_status	dpb_sig_make(dpb_release_sig *sig, const unsigned char priv[DPB_SIG_KEY_BYTES],
						 int version, const char *request_id, const char *dataset,
						 const unsigned char *binding, const unsigned char *packed,
						 size_t plen, dpb_err *err);
/* Checks sig over packed (the release packed without a signature). */
dpb_sig_check dpb_sig_check_packed(const dpb_release_sig *sig, const unsigned char *packed,
								   size_t plen, const unsigned char pub[DPB_SIG_KEY_BYTES]);

/*
 * The signature block of the binary forms.  Unversioned (version 1 only,
 * the block of 0.1.0): key id, value, request id and dataset (length byte
 * + UTF-8 each).  Versioned: one version byte (2), key id, value, request
 * id, dataset, binding.  dpb_sig_block_read parses exactly len bytes
 * (DPB_ECORRUPT with a message otherwise: a bad length, an unknown version,
 * a bad text).
 */
size_t		dpb_sig_block_size(const dpb_release_sig *sig, int versioned);
unsigned char *dpb_sig_block_write(const dpb_release_sig *sig, int versioned,
								   unsigned char *p);
dpb_status	dpb_sig_block_read(const unsigned char *p, size_t len, int versioned,
							   dpb_release_sig *sig, dpb_err *err);

/* Signs r (replacing any signature) for this request and dataset:
 * version 1. */
dpb_status	dpb_release_sign(dpb_release *r, const unsigned char priv[DPB_SIG_KEY_BYTES],
							 const char *request_id, const char *dataset, dpb_err *err);
/* The same with a binding: version 2. */
dpb_status	dpb_release_sign2(dpb_release *r, const unsigned char priv[DPB_SIG_KEY_BYTES],
							  const char *request_id, const char *dataset,
							  const unsigned char binding[DPB_SIG_BINDING_BYTES],
							  dpb_err *err);
/* Checks r's signature (either version) against a public key. */
dpb_sig_check dpb_release_verify(const dpb_release *r,
								 const unsigned char pub[DPB_SIG_KEY_BYTES]);
const char *dpb_sig_check_name(dpb_sig_check c);

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

/* JSON pieces: a quoted, escaped string; a number with 17 significant
 * digits (null when not finite); an array of n numbers. */
void		dpb_json_str(dpb_buf *b, const char *s);
void		dpb_json_num(dpb_buf *b, double v);
void		dpb_json_nums(dpb_buf *b, const double *v, int n);

/* , "signature": {...} of a signed release (nothing when unsigned): alg,
 * key id, request id, dataset, value; version 2 also "version": 2 and the
 * binding (lower-case hex). */
void		dpb_sig_to_json(dpb_buf *b, const dpb_release_sig *sig);

/* The release as JSON (see docs/release-format.md). */
dpb_status	dpb_release_to_json(const dpb_release *r, dpb_buf *out);

#endif
