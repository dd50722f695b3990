/*
 * betad_release.h — the betaD-Bayes release: one (or k) draws from the
 * beta-divergence posterior, the privacy mechanism of issue 10
 * (docs/betad.md, docs/release-format.md "kind betad").
 *
 * A dpb_betad_spec holds the public parameters (the SQL constructor
 * dpbayes.betad(...)); dpb_betad_spec_check derives beta and the epsilon of
 * one draw from them, and the total (epsilon, delta) of k draws composed as
 * the exponential mechanism's bounded-range zCDP (k eps1^2 / 8, converted by
 * dpb_zcdp_eps; pure composition k eps1 when that is smaller).
 *
 * dpb_betad_run draws from the rows held in memory: the approximate tier
 * runs NUTS with the fixed public schedule (dpb_betad_draw), the certified
 * exact tier rejection sampling from the prior with a fixed number of
 * trials T derived from the public N, epsilon and the stated delta'.  The
 * draws are released in the user's original units (coefficients of the
 * unscaled features, sigma2 in the units of y^2), rounded to 12 significant
 * digits.  Nothing else (no seed, no diagnostic) leaves.
 *
 * The release packs into the bytes of the SQL type dpbayes.release with its
 * own magic "DPBD"; dpb_betad_release_validate recomputes beta, epsilon,
 * delta and delta' from the parameters (a hand-edited epsilon fails).  The
 * packed form is canonical: fields that do not apply (the schedule of the
 * exact tier, the delta' target of the approximate one) are written with
 * fixed values, so that the JSON form, which omits them, packs back to the
 * same bytes and a signature survives it.
 */
#ifndef DPB_BETAD_RELEASE_H
#define DPB_BETAD_RELEASE_H

#include "betad/betad_calib.h"
#include "betad/betad_sample.h"
#include "params.h"
#include "release.h"			/* dpb_buf */

/*
 * 4: a network (issue 28): two more header fields after the signature
 * flag, the hidden units and the activation; releases of the logistic and
 * linear models are still written as version 3 (their bytes unchanged).
 * 3: a signature flag after the neighbours, and when it is 1 a versioned
 * signature block (release_sig.c, version 2) after the draws; 2: the
 * neighbours (add/remove: no n); 1: replace-one with n.  New releases are
 * version 3; versions 1 and 2 (never signed) are still read.
 */
#define DPB_BETAD_VERSION 3
#define DPB_BETAD_VERSION_MLP 4
#define DPB_BETAD_MAGIC "DPBD"
#define DPB_BETAD_MAX_DRAWS 100
#define DPB_BETAD_MAX_CHAINS 64
#define DPB_BETAD_MAX_ITERS 100000
/* the exact tier: at most this many record evaluations per draw (T n) */
#define DPB_BETAD_EXACT_MAX_WORK 5e7

typedef enum dpb_betad_tier
{
	DPB_BETAD_APPROXIMATE = 0,	/* NUTS, fixed schedule; delta' not certified */
	DPB_BETAD_EXACT = 1			/* rejection from the prior, delta' certified */
} dpb_betad_tier;

typedef struct dpb_betad_spec
{
	int			gaussian;		/* 0 logistic, 1 linear (Gaussian regression) */
	double		epsilon;		/* total over all draws (derived when NaN) */
	double		delta;			/* zCDP conversion delta of k > 1 draws (0 for k = 1) */
	double		beta;			/* per draw (derived when NaN) */
	dpb_betad_root root;
	double		prior_sd;		/* N(0, prior_sd^2) coefficients (scaled features) */
	double		sigma2_floor;	/* linear: in the units of y^2 */
	double		y_scale;		/* linear: the public scale of y */
	double		ig_a,
				ig_b;			/* linear: sigma^2 / y_scale^2 ~ IG(a, b) above the floor */
	dpb_params	fx;				/* d, intercept, lower/upper (scaling only), names */
	dpb_betad_schedule sched;
	int			ndraws;			/* k */
	dpb_betad_tier tier;
	double		delta_prime;	/* exact tier: the target delta' of the release */
	/*
	 * DPB_NB_ADD_REMOVE (the default): N is private and not released; one
	 * exact draw is (range of -l_beta)-DP, half the replace-one epsilon
	 * (docs/betad.md, "Neighbours").  DPB_NB_REPLACE: N is public and
	 * released; the exact tier needs it.
	 */
	dpb_neighbours neighbours;
	/*
	 * A one-hidden-layer network (issue 28; betad_model.h) when hidden > 0:
	 * gaussian 0 the classifier, 1 the regression; activation
	 * DPB_BETAD_ACT_RELU or _TANH (0 when hidden is 0).  Biases always
	 * (intercept 1), approximate tier only.
	 */
	int			hidden;
	int			activation;

	/* derived by dpb_betad_spec_check */
	double		eps_draw;		/* epsilon of one exact draw */
	double		delta_eff;		/* the reported delta of the composition */
} dpb_betad_spec;

/* Defaults: prior_sd 3, y_scale 1, IG(1, 1), intercept, 4 x 1000 + 1000,
 * one draw, approximate tier, delta' target 1e-9, smaller root, add/remove
 * neighbours. */
void		dpb_betad_spec_default(dpb_betad_spec *s, int gaussian);

/*
 * Checks the public parameters and derives beta from epsilon (beta NaN) or
 * epsilon from beta (epsilon NaN); when both are given, the epsilon of beta
 * must equal the given epsilon (to 1e-9 relative).  Fills eps_draw and
 * delta_eff and sets epsilon to the recomputed total.  DPB_ERANGE for an
 * epsilon below epsilon_min (the detail says how to reach it).
 */
dpb_status	dpb_betad_spec_check(dpb_betad_spec *s, dpb_err *err);

/*
 * epsilon of one exact draw at this beta under the spec's neighbours: the
 * replace-one epsilon of dpb_betad_epsilon, halved under add/remove.
 */
double		dpb_betad_eps_draw(const dpb_betad_spec *s, double beta);

/* Number of released variables: intercept, d coefficients (, sigma2); a
 * network: H (d + 1) + H + 1 (, sigma2), in the model's order
 * (betad_model.h), in the original units. */
int			dpb_betad_nvar(const dpb_betad_spec *s);

/*
 * The exact tier for n records: per-record loss range r (so every proposal
 * is accepted with probability >= exp(-n r)), the fixed number of trials T
 * per draw and the delta' = (1 + e^epsilon) k (1 - e^{-n r})^T it
 * certifies (<= the target).  DPB_ERANGE when T n exceeds
 * DPB_BETAD_EXACT_MAX_WORK (infeasible: n epsilon too large).
 */
dpb_status	dpb_betad_exact_plan(const dpb_betad_spec *s, int64_t n, int64_t *trials,
								 double *delta_prime, dpb_err *err);

typedef struct dpb_betad_release
{
	dpb_betad_spec s;			/* fx.d fixed */
	int64_t		n;				/* records (public: replace-one neighbours);
								 * -1 under add/remove (private, not
								 * released) */
	int			insecure;		/* made with the insecure test stream */
	int64_t		trials;			/* exact tier: T per draw; else 0 */
	double		delta_prime;	/* exact tier: certified; else NaN */
	double	   *draws;			/* ndraws x nvar, original units (malloc'ed) */
	dpb_release_sig sig;		/* governed releases only: version 2 */
} dpb_betad_release;

/*
 * The draws from n rows: X (n x d, row-major) and y (logistic: +-1; linear:
 * y in its units) are OVERWRITTEN by their publicly scaled versions.
 * work: 2 n doubles.  r->s is copied from s (checked), r->draws malloc'ed.
 * DPB_EINTR when interrupt() asked to stop, DPB_ERNG when rb failed.
 */
dpb_status	dpb_betad_run(const dpb_betad_spec *s, int64_t n, double *X, double *y,
						  double *work, dpb_rbits *rb, dpb_interrupt_fn interrupt,
						  dpb_betad_release *r, dpb_err *err);

/*
 * NOT PRIVATE (for choosing a schedule on public or synthetic data): the
 * whole chains of the approximate tier's sampler, in the original units
 * (chains x iterations x nvar, chain-major; nvar = dim), and each chain's
 * NUTS statistics, from the generator g.  X and y are scaled in place.
 */
dpb_status	dpb_betad_tune(const dpb_betad_spec *s, int64_t n, double *X, double *y,
						   double *work, gsl_rng *g, dpb_interrupt_fn interrupt,
						   double *draws, dpb_nuts_stats *stats, dpb_err *err);

/* Full consistency check: parameters, derived epsilon/delta/delta'
 * recomputed and equal, finite draws, sigma2 above the floor. */
dpb_status	dpb_betad_release_validate(const dpb_betad_release *r, dpb_err *err);

/* 1 when the packed bytes are a betaD release (magic "DPBD"). */
int			dpb_betad_is_packed(const unsigned char *buf, size_t len);
size_t		dpb_betad_packed_size(const dpb_betad_release *r);
void		dpb_betad_pack(const dpb_betad_release *r, unsigned char *buf);
/* allocates r->draws (dpb_betad_release_free) and validates */
dpb_status	dpb_betad_unpack(const unsigned char *buf, size_t len, dpb_betad_release *r,
							 dpb_err *err);
void		dpb_betad_release_free(dpb_betad_release *r);

/*
 * Signatures (release_sig.c, docs/governance.md §6): version 2 only, over
 * the release packed without its signature.  dpb_betad_sign replaces any
 * signature of r.
 */
dpb_status	dpb_betad_sign(dpb_betad_release *r, const unsigned char priv[DPB_SIG_KEY_BYTES],
						   const char *request_id, const char *dataset,
						   const unsigned char binding[DPB_SIG_BINDING_BYTES], dpb_err *err);
dpb_sig_check dpb_betad_verify(const dpb_betad_release *r,
							   const unsigned char pub[DPB_SIG_KEY_BYTES]);

/* Variable name of released entry j (intercept, feature names or xJ,
 * sigma2) into out (DPB_NAME_LEN + 8 bytes). */
void		dpb_betad_var_name(const dpb_betad_spec *s, int j, char *out, size_t outlen);

/*
 * The model's output at one row x (d features, original units) for draw k
 * of r: the class probability (logistic, network classifier) or the mean
 * of y in its units (linear, network regression).
 */
double		dpb_betad_predict(const dpb_betad_release *r, int k, const double *x);

/* "logistic", "linear", "mlp_classifier" or "mlp_regression" */
const char *dpb_betad_model_name(const dpb_betad_spec *s);

/* The JSON form (docs/release-format.md, kind "betad"). */
dpb_status	dpb_betad_to_json(const dpb_betad_release *r, dpb_buf *out);

#endif
