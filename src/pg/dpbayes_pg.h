/*
 * dpbayes_pg.h — shared declarations of the PostgreSQL glue (src/pg).
 */
#ifndef DPBAYES_PG_H
#define DPBAYES_PG_H

#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "access/tupdesc.h"

#include "dpb.h"
#include "params.h"
#include "release.h"
#include "posterior.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include <gsl/gsl_rng.h>

/* module.c */
extern int	dpbayes_insecure_noise_seed;
extern bool dpbayes_betad_buffer_unbounded;

/* Reports a core failure: maps the status to a SQLSTATE (DPB_ECORRUPT uses
 * corrupt_code) and never returns. */
pg_attribute_noreturn()
void		dpb_pg_raise(dpb_status st, const dpb_err *err, int corrupt_code);

/* A generator for release noise: the secure one, or the deterministic test
 * stream when dpbayes.insecure_noise_seed is set (then *insecure = true).
 * The secure one is malloc'ed: release it with dpb_pg_noise_rng_done(). */
dpb_rbits  *dpb_pg_noise_bits(bool *insecure);
void		dpb_pg_noise_bits_done(dpb_rbits *r);

/* privacy.c: the dpbayes.privacy composite into a dpb_params (checked with
 * dpb_params_check; errors are raised). */
void		dpb_pg_params_from_datum(Datum composite, dpb_params *p);
/* The same for a central release of model: y_clamped as given to
 * dpbayes.privacy(), or when not given (NULL) the model's default share of
 * the clamped-response count (dpb_params_default_y_clamped: 0.02 for
 * linear, 0 otherwise). */
void		dpb_pg_params_for_release(Datum composite, dpb_model model, dpb_params *p);

/* privacy.c: a release's parameters must have public bounds, or scaling
 * "none" chosen explicitly (issue 25): else an error that says why, what to
 * pass and how to opt out. */
void		dpb_pg_require_bounds(const dpb_params *p);

/* privacy.c: a float8[] of finite values (at most maxn; returns the count)
 * and a text[] of feature names into p->names (returns the count). */
int			dpb_pg_float8_array(Datum d, const char *what, double *out, int maxn);
int			dpb_pg_name_array(Datum d, dpb_params *p);

/* betad.c: the dpbayes.betad_params composite into a checked spec (errors
 * are raised). */
struct dpb_betad_spec;
void		dpb_pg_betad_from_datum(Datum composite, struct dpb_betad_spec *s);

/* betad.c: betaD parameters must scale the features by public bounds, or
 * have scaling "none" chosen explicitly (issue 25). */
void		dpb_pg_betad_require_scales(const struct dpb_betad_spec *s);

/* release_io.c: a release datum into a dpb_release with palloc'd stats
 * (validated), and a dpb_release into a new datum. */
void		dpb_pg_release_from_datum(Datum d, dpb_release *r);
Datum		dpb_pg_release_to_datum(const dpb_release *r);

/* release_io.c: the WARNING of every inference over a release made with
 * dpbayes.insecure_noise_seed (a no-op for other releases). */
void		dpb_pg_warn_insecure(const dpb_release *r);

/* release_json_in.c: parses the JSON form (errors are raised); the _any
 * form accepts both kinds (statistics, betad) and returns the datum. */
void		dpb_pg_release_from_json(const char *text, dpb_release *r);
Datum		dpb_pg_release_in_any(const char *text);

/* release_io.c: a betaD release into a new dpbayes.release datum; whether
 * a release datum is of kind betad; a betaD release datum into a
 * dpb_betad_release with palloc'd draws (validated). */
struct dpb_betad_release;
Datum		dpb_pg_betad_to_datum(const struct dpb_betad_release *r);
bool		dpb_pg_datum_is_betad(Datum d);
void		dpb_pg_betad_release_from_datum(Datum d, struct dpb_betad_release *r);

/* input.c: untrusted input.  dpb_pg_quote: at most 64 bytes of s, escaped,
 * for a message (names.h).  dpb_pg_numeric_float8: a numeric as double
 * without echoing it; *overflow when it is finite but beyond the double
 * range (tiny values round to 0 as in arithmetic).  dpb_pg_numeric_int64:
 * 1 and *out when n is an integer in [lo, hi], 0 when an integer out of it,
 * -1 when not an integer.  dpb_pg_to_utf8 / dpb_pg_from_utf8: the release's
 * UTF-8 names from and to the server encoding. */
char	   *dpb_pg_quote(const char *s, size_t len);
double		dpb_pg_numeric_float8(Numeric n, bool *overflow);
int			dpb_pg_numeric_int64(Numeric n, int64 lo, int64 hi, int64 *out);
char	   *dpb_pg_to_utf8(const char *s, size_t len);
char	   *dpb_pg_from_utf8(const char *s);

/* release_agg.c: a Poisson response (finite) must be a whole number >= 0;
 * errors name no value. */
void		dpb_pg_check_count(double y);

/* governance.c: the blessed tuple descriptor of a function returning a
 * composite (OUT parameters); errors when called where no record fits. */
TupleDesc	dpb_pg_result_desc(FunctionCallInfo fcinfo);

/* progress.c: progress NOTICEs of long runs (docs/posterior.md,
 * "Progress").  begin before the core's run (elapsed_only: a betaD
 * release, which shows nothing but the time), end after it; the interrupt
 * callbacks call poll, which returns nonzero when a NOTICE failed (the run
 * must stop; rethrow raises that error once the core has returned). */
void		dpb_pg_progress_define_gucs(void);
bool		dpb_pg_progress_enabled(void);
int			dpb_pg_progress_interval_ms(void);
char	   *dpb_pg_format_duration(double s);
void		dpb_pg_progress_begin(const char *what, bool elapsed_only);
int			dpb_pg_progress_poll(void);
void		dpb_pg_progress_end(void);
bool		dpb_pg_progress_failed(void);
void		dpb_pg_progress_rethrow(void);

/* infer_opts.c: the options jsonb of dpbayes.posterior() */
void		dpb_pg_parse_infer_opts(Jsonb *jb, const dpb_release *r,
									dpb_infer_opts *o);

#endif
