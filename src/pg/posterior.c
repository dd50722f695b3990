/*
 * posterior.c — dpbayes.posterior() and dpbayes.posterior_summary():
 * posterior draws on a release, in materialize mode.
 *
 * The core sampler runs with malloc'd memory and polls for query cancel
 * through a callback that only reads the pending-interrupt flags (it never
 * longjmps out of core code); once the core has returned and freed its
 * memory, CHECK_FOR_INTERRUPTS() raises the cancel error.
 */
#include "dpbayes_pg.h"
#include "ldp_collect.h"

#include "compat.h"

#include "miscadmin.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "clip.h"
#include "diag.h"
#include "glm_exact.h"

#include "catalog/pg_type.h"
#include "utils/array.h"

#include <stdlib.h>

static int
pg_interrupt(void)
{
	/* a progress NOTICE when one is due (it never raises: progress.c) */
	if (dpb_pg_progress_poll())
		return 1;
	return InterruptPending && (QueryCancelPending || ProcDiePending);
}

/*
 * Progress of a sampler's run (progress.c; docs/posterior.md, "Progress"):
 * when it is on, the run's schedule and cost estimate (the one that
 * refuses runs over an hour: a lower bound) before sampling, when the
 * estimate is at least a tenth of the progress interval (1 s by default),
 * then NOTICEs during the run.
 */
static void
progress_start(const char *what, const dpb_release *r, const dpb_infer_opts *o)
{
	double		step_s,
				run_s;
	int			iv = dpb_pg_progress_interval_ms();
	bool		iid;
	int			thin = o->thin > 0 ? o->thin : 1;

	if (!dpb_pg_progress_enabled())
		return;
	iid = r->model == DPB_MODEL_LINEAR && o->method != DPB_METHOD_NOISE_AWARE;
	if (dpb_posterior_cost(r, o, &step_s, &run_s) == DPB_OK && run_s * 1e4 >= iv)
		ereport(NOTICE,
				(iid ?
				 errmsg("%s: %d chain%s of %d independent draws", what, o->chains,
						o->chains == 1 ? "" : "s", o->draws) :
				 errmsg("%s: %d chain%s of %d warmup and %d sampling iterations with the %s sampler",
						what, o->chains, o->chains == 1 ? "" : "s", o->warmup, o->draws * thin,
						dpb_sampler_name(dpb_posterior_sampler(r, o))),
				 errdetail("Estimated run time: at least %s (a lower bound: a run can take several times longer). %s",
						   dpb_pg_format_duration(run_s),
						   iv == 0 ? "Progress is reported at every iteration (dpbayes.progress_interval = 0)." :
						   psprintf("Progress is reported every %s (dpbayes.progress_interval).",
									dpb_pg_format_duration(iv / 1000.0)))));
	dpb_pg_progress_begin(what, false);
}

/* After the core's run: the end of its progress reports; a progress NOTICE
 * that failed (it stopped the run) is raised now. */
static void
progress_stop(dpb_status st, dpb_draws *dr)
{
	dpb_pg_progress_end();
	if (dpb_pg_progress_failed())
	{
		if (st == DPB_OK)
			dpb_draws_free(dr);
		dpb_pg_progress_rethrow();
	}
}

/* draws, chains and warmup from arguments first .. first + 2 */
static void
sampler_args(FunctionCallInfo fcinfo, int first, dpb_infer_opts *o)
{
	o->draws = PG_GETARG_INT32(first);
	o->chains = PG_GETARG_INT32(first + 1);
	o->warmup = PG_GETARG_INT32(first + 2);
	if (o->draws < 1 || o->draws > DPB_MAX_DRAWS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("draws must be between 1 and %d", DPB_MAX_DRAWS)));
	if (o->chains < 1 || o->chains > DPB_MAX_CHAINS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("chains must be between 1 and %d", DPB_MAX_CHAINS)));
	if (o->warmup < 1 || o->warmup > DPB_MAX_WARMUP)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("warmup must be between 1 and %d", DPB_MAX_WARMUP)));
	o->interrupt = pg_interrupt;
}

/* The seed: given, or drawn securely and reported.  Called after every
 * other argument was checked, so that bad input gives no NOTICE. */
static void
sampler_seed(FunctionCallInfo fcinfo, int argno, dpb_infer_opts *o)
{
	if (PG_ARGISNULL(argno))
	{
		uint64		s;

		if (!pg_strong_random(&s, sizeof(s)))
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("could not generate a random seed")));
		o->seed = s & INT64CONST(0x7fffffffffffffff);
		ereport(NOTICE,
				(errmsg("posterior seed: " INT64_FORMAT, (int64) o->seed),
				 errhint("Pass seed => " INT64_FORMAT " to reproduce these draws.",
						 (int64) o->seed)));
	}
	else
		o->seed = (uint64) PG_GETARG_INT64(argno);
}

/* dpb_summarize of variable k of dr; x: chains * iters scratch */
static void
summarize_var(const dpb_draws *dr, int k, double *x, dpb_summary *s)
{
	CHECK_FOR_INTERRUPTS();
	for (int c = 0; c < dr->chains; c++)
		for (int i = 0; i < dr->iters; i++)
			x[(size_t) c * dr->iters + i] =
				dr->v[((size_t) c * dr->iters + i) * dr->nvars + k];
	if (dpb_summarize(x, dr->chains, dr->iters, s) != DPB_OK)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
}

/*
 * Stan-like warnings after a run (docs/posterior.md, "Warnings"): one
 * WARNING when a reported variable has R-hat > DPB_WARN_RHAT, a bulk or
 * tail ESS below DPB_WARN_ESS_PER_CHAIN per chain, when a transition
 * after warmup diverged, when a chain never moved after warmup, or when a
 * NUTS warmup was shorter than DPB_SHORT_WARMUP; a NOTICE when more than
 * DPB_NOTICE_REJECTED of the
 * proposed states were rejected.  The diagnostics are dpb_summarize's (NaN
 * ones, from too few or constant draws, are not compared).
 */
#define DPB_WARN_RHAT 1.01
#define DPB_WARN_ESS_PER_CHAIN 100.0
#define DPB_NOTICE_REJECTED 0.01
#define DPB_SHORT_WARMUP 150

/*
 * With an unknown N and no n_prior, the hint of a convergence warning also
 * names an n_prior computed from the released count (dpb_n_prior_suggest;
 * issue 26, item 3): N's posterior may reach towards 0, where theta and
 * sigma fall back to their priors, and the chains then mix slowly.  NULL
 * when it does not apply.
 */
static char *
n_prior_hint(const dpb_draws *dr, const dpb_infer_opts *o)
{
	double		lo,
				hi;
	bool		has_n = false;

	if (o == NULL || o->count.n_known || o->method != DPB_METHOD_NOISE_AWARE ||
		o->count.n_lo != 0 || !isinf(o->count.n_hi) || !(o->count.n_sd > 0))
		return NULL;
	for (int k = 0; k < dr->nvars; k++)
		if (strcmp(dr->names[k], "n") == 0)
			has_n = true;
	if (!has_n)
		return NULL;
	dpb_n_prior_suggest(o, &lo, &hi);
	if (lo <= 0)
		return psprintf("The number of records is unknown (flat prior) and the released count is too noisy to "
						"rule out very few records: if the table's size is public knowledge, give it as options "
						"{\"n_prior\": [lo, hi]} (docs/posterior.md, \"The number of records\").");
	return psprintf("The number of records is unknown (flat prior): a prior from the released count may help, "
					"options {\"n_prior\": [%.0f, %.0f]} (the count plus or minus %g of its noise %s, "
					"docs/posterior.md, \"The number of records\").",
					lo, hi, o->count.n_laplace ? DPB_N_PRIOR_K_LAPLACE : DPB_N_PRIOR_K_GAUSS,
					o->count.n_laplace ? "scales" : "sds");
}

static void
run_warnings(const dpb_draws *dr, const char *sampler, bool laplace_omega,
			 const dpb_infer_opts *o)
{
	char	   *nhint = n_prior_hint(dr, o);

	double	   *x = palloc(sizeof(double) * (size_t) dr->chains * dr->iters);
	double		max_rhat = -INFINITY,
				min_bulk = INFINITY,
				min_tail = INFINITY;
	int			bad_vars = 0,
				stuck;
	/*
	 * Stan's windowed adaptation needs 150 iterations: a shorter warmup
	 * always warns, whatever the diagnostics say (they are unreliable
	 * from a chain whose step size and metric were not adapted)
	 */
	bool		short_warmup = dr->warmup > 0 && dr->warmup < DPB_SHORT_WARMUP &&
		strcmp(sampler, "nuts") == 0;
	double		ess_min = DPB_WARN_ESS_PER_CHAIN * dr->chains;

	for (int k = 0; k < dr->nvars; k++)
	{
		dpb_summary s;
		int			bad = 0;

		summarize_var(dr, k, x, &s);
		if (s.rhat > DPB_WARN_RHAT)
			bad = 1;
		if (s.ess_bulk < ess_min || s.ess_tail < ess_min)
			bad = 1;
		if (s.rhat > max_rhat)
			max_rhat = s.rhat;
		if (s.ess_bulk < min_bulk)
			min_bulk = s.ess_bulk;
		if (s.ess_tail < min_tail)
			min_tail = s.ess_tail;
		bad_vars += bad;
	}
	pfree(x);
	stuck = dpb_draws_stuck_chains(dr);
	if (stuck > 0)
	{
		/* a sampler outcome, not an input error (issue 22) */
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("the posterior draws may not be reliable"),
				 errdetail("Sampler %s: %d of %d chains never moved after warmup (every proposal was "
						   "rejected, so all of their draws are equal).",
						   sampler, stuck, dr->chains),
				 errhint("A short warmup leaves the step size untuned: raise warmup (the default is "
						 "1000 iterations). If a chain still never moves after a long warmup, check "
						 "that the prior options suit the scale of the data.")));
		return;
	}
	if (bad_vars > 0 || dr->divergences > 0 || short_warmup)
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("the posterior draws may not be reliable"),
				 !dpb_isfinite(max_rhat) || !dpb_isfinite(min_bulk) ?
				 /* too few draws for R-hat and ESS (they are NaN) */
				 errdetail("Sampler %s: the run's %d warmup iterations are fewer than the %d the adaptation "
						   "needs, and its %d draws per chain are too few for R-hat and ESS.",
						   sampler, dr->warmup, DPB_SHORT_WARMUP, dr->iters) :
				 errdetail("Sampler %s: %ld divergent transitions after warmup; %d of %d variables have R-hat > %.2f "
						   "or a bulk or tail ESS below %.0f (%.0f per chain): max R-hat %.3f, "
						   "min bulk ESS %.0f, min tail ESS %.0f.",
						   sampler, dr->divergences, bad_vars, dr->nvars, DPB_WARN_RHAT, ess_min,
						   DPB_WARN_ESS_PER_CHAIN, max_rhat, min_bulk, min_tail),
				 short_warmup ?
				 errhint("A warmup of %d iterations is too short to adapt the sampler: raise warmup "
						 "(the default is 1000 iterations) and draws until every rhat <= %.2f and "
						 "ess_bulk, ess_tail >= %.0f per chain.",
						 dr->warmup, DPB_WARN_RHAT, DPB_WARN_ESS_PER_CHAIN) :
				 dr->divergences > 0 && laplace_omega ?
				 errhint("The divergences may come from the Laplace noise's variance steps: try options "
						 "{\"laplace_noise\": \"latent\"} (docs/posterior.md, \"Laplace releases\"), or raise "
						 "options.target_accept (e.g. 0.95).%s%s", nhint ? " " : "", nhint ? nhint : "") :
				 dr->divergences > 0 ?
				 errhint("Raise options.target_accept (e.g. 0.95); if the R-hat or ESS warning remains, "
						 "raise warmup and draws, and read the summary's rhat, ess_bulk and ess_tail.%s%s",
						 nhint ? " " : "", nhint ? nhint : "") :
				 errhint("Raise warmup and draws (with the gibbs sampler also options.thin, e.g. 10) "
						 "until every rhat <= %.2f and ess_bulk, ess_tail >= %.0f per chain.%s%s",
						 DPB_WARN_RHAT, DPB_WARN_ESS_PER_CHAIN, nhint ? " " : "", nhint ? nhint : "")));
	if (dr->proposals > 0 && dr->rejected > DPB_NOTICE_REJECTED * (double) dr->proposals)
		ereport(NOTICE,
				(errmsg("%ld of %ld proposed sampler states (%.1f%%) were rejected (non-finite density or a matrix not positive definite)",
						dr->rejected, dr->proposals, 100.0 * dr->rejected / dr->proposals),
				 errhint("Check that the prior options suit the scale of the data.")));
}

/* Errors and warnings after a sampler run (the core has freed its memory). */
static void
sampler_finish(dpb_status st, dpb_err *err, dpb_draws *dr, const char *sampler,
			   bool laplace_omega, const dpb_infer_opts *o)
{
	if (st == DPB_EINTR)
	{
		dpb_pg_progress_rethrow();
		CHECK_FOR_INTERRUPTS();
	}
	if (st == DPB_ENOTSUP)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s", err->msg),
				 err->detail[0] ? errdetail("%s", err->detail) : 0));
	if (st == DPB_ERANGE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s", err->msg),
				 errdetail("%s", err->detail),
				 errhint("Use fewer features, or fewer chains, draws and warmup iterations; "
						 "docs/posterior.md (\"Limits\") has the cost model.")));
	if (st != DPB_OK)
		dpb_pg_raise(st, err, ERRCODE_INVALID_PARAMETER_VALUE);
	PG_TRY();
	{
		run_warnings(dr, sampler, laplace_omega, o);
	}
	PG_CATCH();
	{
		dpb_draws_free(dr);
		PG_RE_THROW();
	}
	PG_END_TRY();
}

/* The method argument: noise_aware, naive or nonprivate; a non-private
 * release is always analysed exactly. */
static dpb_method
parse_method(const char *method, const dpb_release *r)
{
	dpb_method	m;

	if (strcmp(method, "noise_aware") == 0)
		m = DPB_METHOD_NOISE_AWARE;
	else if (strcmp(method, "naive") == 0)
		m = DPB_METHOD_NAIVE;
	else if (strcmp(method, "nonprivate") == 0)
		m = DPB_METHOD_NONPRIVATE;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown method \"%s\"", dpb_pg_quote(method, strlen(method))),
				 errhint("Use \"noise_aware\", \"naive\" or \"nonprivate\".")));
	if (r->p.mechanism == DPB_MECH_NONE && m == DPB_METHOD_NOISE_AWARE)
		m = DPB_METHOD_NONPRIVATE;
	return m;
}

/* One run of the sampler on r with o (seed set): progress, the run, its
 * errors and warnings. */
static void
run_once(const char *what, const dpb_release *r, const dpb_infer_opts *o, dpb_draws *dr)
{
	dpb_err		err;
	dpb_status	st;

	progress_start(what, r, o);
	st = dpb_posterior_run(r, o, dr, &err);
	progress_stop(st, dr);
	sampler_finish(st, &err, dr,
				   dpb_sampler_name(dpb_posterior_sampler(r, o)),
				   r->model == DPB_MODEL_LINEAR && r->p.mechanism == DPB_MECH_LAPLACE
				   && o->method == DPB_METHOD_NOISE_AWARE
				   && dpb_posterior_sampler(r, o) == DPB_SAMPLER_NUTS && !o->lin.laplace_latent, o);
}

/* Arguments: r, draws, chains, warmup, seed, method, options. */
static void
run_sampler(FunctionCallInfo fcinfo, dpb_release *r, dpb_draws *dr,
			dpb_infer_opts *o)
{
	int			i;

	for (i = 0; i < 7; i++)
		if (PG_ARGISNULL(i) && i != 4)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("only the seed may be null")));
	dpb_pg_release_from_datum(PG_GETARG_DATUM(0), r);
	dpb_pg_warn_insecure(r);
	dpb_infer_opts_default(o, r);
	sampler_args(fcinfo, 1, o);
	o->method = parse_method(text_to_cstring(PG_GETARG_TEXT_PP(5)), r);
	dpb_pg_parse_infer_opts(PG_GETARG_JSONB_P(6), r, o);
	sampler_seed(fcinfo, 4, o);
	run_once("posterior", r, o, dr);
}

/* Rows (chain, iteration, draw, variable, value); frees the draws. */
static void
emit_draws(ReturnSetInfo *rsinfo, dpb_draws *dr)
{
	PG_TRY();
	{
		int			c,
					i,
					k;
		Datum	   *names = palloc(sizeof(Datum) * dr->nvars);

		for (k = 0; k < dr->nvars; k++)
			names[k] = CStringGetTextDatum(dpb_pg_from_utf8(dr->names[k]));
		for (c = 0; c < dr->chains; c++)
			for (i = 0; i < dr->iters; i++)
			{
				CHECK_FOR_INTERRUPTS();
				for (k = 0; k < dr->nvars; k++)
				{
					Datum		v[5];
					bool		n[5] = {false, false, false, false, false};

					v[0] = Int32GetDatum(c + 1);
					v[1] = Int32GetDatum(i + 1);
					v[2] = Int32GetDatum(c * dr->iters + i + 1);
					v[3] = names[k];
					v[4] = Float8GetDatum(dr->v[((size_t) c * dr->iters + i) * dr->nvars + k]);
					tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
				}
			}
	}
	PG_FINALLY();
	{
		dpb_draws_free(dr);
	}
	PG_END_TRY();
}

/* dpb_summarize of every variable of dr (palloc'd) */
static dpb_summary *
summarize_all(const dpb_draws *dr)
{
	double	   *x = palloc(sizeof(double) * (size_t) dr->chains * dr->iters);
	dpb_summary *s = palloc(sizeof(dpb_summary) * dr->nvars);

	for (int k = 0; k < dr->nvars; k++)
		summarize_var(dr, k, x, &s[k]);
	pfree(x);
	return s;
}

/* posterior sd / prior sd: 0 for an infinite prior sd, NaN when either is
 * unknown */
static double
sd_ratio(double post_sd, double prior_sd)
{
	if (isnan(post_sd) || isnan(prior_sd))
		return NAN;
	if (isinf(prior_sd))
		return 0;
	return prior_sd > 0 ? post_sd / prior_sd : NAN;
}

/*
 * The prior-dominance NOTICE (docs/posterior.md, "How much did the data move
 * the prior?"): a coefficient whose posterior sd is more than
 * DPB_NOTICE_PRIOR_SD_RATIO of its prior sd.  In a normal model the ratio is
 * sqrt(prior precision / posterior precision): 0.9 means the data added less
 * than a quarter (0.23) of the prior's precision, i.e. the posterior is more
 * than 80% prior.  With the default 4 x 1000 draws the sd is estimated to
 * about 1/sqrt(2 ESS) ~ 2-3% (ESS >= 400: 3.5%), so a ratio near 1 is told
 * from 0.9 by more than 3 standard errors.
 */
#define DPB_NOTICE_PRIOR_SD_RATIO 0.9

static void
prior_notice(const dpb_draws *dr, const dpb_summary *s, const double *psd)
{
	StringInfoData list;
	int			n = 0,
				first = -1;

	initStringInfo(&list);
	for (int k = 0; k < dr->nvars; k++)
	{
		double		q = sd_ratio(s[k].sd, psd[k]);

		if (strncmp(dr->names[k], "theta[", 6) != 0 || !(q > DPB_NOTICE_PRIOR_SD_RATIO))
			continue;
		if (first < 0)
			first = k;
		appendStringInfo(&list, "%s%s (%.0f%%)", n ? ", " : "",
						 dpb_pg_from_utf8(dr->names[k]), 100 * q);
		n++;
	}
	if (n == 0)
		return;
	ereport(NOTICE,
			(n == 1 ?
			 errmsg("the data barely moved %s: its posterior sd is %.0f%% of its prior sd",
					dpb_pg_from_utf8(dr->names[first]),
					100 * sd_ratio(s[first].sd, psd[first])) :
			 errmsg("the data barely moved %d coefficients: their posterior sd is more than %.0f%% of their prior sd",
					n, 100 * DPB_NOTICE_PRIOR_SD_RATIO),
			 n > 1 ? errdetail("Posterior sd as a share of the prior sd: %s.", list.data) : 0,
			 errhint("The posterior of such a coefficient is mostly its prior: a larger epsilon or more "
					 "records would let the data speak; dpbayes.prior_sensitivity() shows how much the "
					 "summary moves under a vaguer and a tighter prior.")));
	pfree(list.data);
}

/* One summary row per variable (with psd: the prior_sd and sd_ratio
 * columns too); frees the draws. */
static void
emit_summary_rows(ReturnSetInfo *rsinfo, dpb_draws *dr, const double *psd)
{
	PG_TRY();
	{
		dpb_summary *sa = summarize_all(dr);
		int			i,
					k,
					ncol = psd ? 14 : 12;

		if (psd)
			prior_notice(dr, sa, psd);
		for (k = 0; k < dr->nvars; k++)
		{
			dpb_summary s = sa[k];
			Datum		v[14];
			bool		n[14];

			CHECK_FOR_INTERRUPTS();
			v[0] = CStringGetTextDatum(dpb_pg_from_utf8(dr->names[k]));
			v[1] = Float8GetDatum(s.mean);
			v[2] = Float8GetDatum(s.median);
			v[3] = Float8GetDatum(s.sd);
			v[4] = Float8GetDatum(s.mad);
			v[5] = Float8GetDatum(s.q5);
			v[6] = Float8GetDatum(s.q95);
			v[7] = Float8GetDatum(s.rhat);
			v[8] = Float8GetDatum(s.ess_bulk);
			v[9] = Float8GetDatum(s.ess_tail);
			v[10] = Float8GetDatum(s.prob_positive);
			v[11] = Int64GetDatum((int64) dr->divergences);
			if (psd)
			{
				v[12] = Float8GetDatum(psd[k]);
				v[13] = Float8GetDatum(sd_ratio(s.sd, psd[k]));
			}
			for (i = 0; i < ncol; i++)
				n[i] = false;
			/* NaN statistics (too few draws: one draw has no sd; constant
			 * draws; a prior sd not computed) become NULL */
			for (i = 1; i < ncol; i++)
				if (i != 11 && isnan(DatumGetFloat8(v[i])))
					n[i] = true;
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
		}
	}
	PG_FINALLY();
	{
		dpb_draws_free(dr);
	}
	PG_END_TRY();
}

/* The summary of a run of r with o, with its prior columns; frees the
 * draws. */
static void
emit_summary(ReturnSetInfo *rsinfo, dpb_draws *dr, const dpb_release *r,
			 const dpb_infer_opts *o)
{
	double	   *psd = palloc(sizeof(double) * (dr->nvars > 0 ? dr->nvars : 1));

	dpb_prior_sd(r, o, dr, psd);
	emit_summary_rows(rsinfo, dr, psd);
}

PG_FUNCTION_INFO_V1(dpbayes_posterior);
Datum
dpbayes_posterior(PG_FUNCTION_ARGS)
{
	dpb_release r;
	dpb_infer_opts o;
	dpb_draws	dr;

	InitMaterializedSRF(fcinfo, 0);
	run_sampler(fcinfo, &r, &dr, &o);
	emit_draws((ReturnSetInfo *) fcinfo->resultinfo, &dr);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(dpbayes_posterior_summary);
Datum
dpbayes_posterior_summary(PG_FUNCTION_ARGS)
{
	dpb_release r;
	dpb_infer_opts o;
	dpb_draws	dr;

	InitMaterializedSRF(fcinfo, 0);
	run_sampler(fcinfo, &r, &dr, &o);
	emit_summary((ReturnSetInfo *) fcinfo->resultinfo, &dr, &r, &o);
	return (Datum) 0;
}

/*
 * NOT PRIVATE: dpbayes.nonprivate_posterior(model, x float8[][], y float8[],
 * p, draws, chains, warmup, seed, options) — logistic or Poisson regression
 * on raw rows (clipped exactly like the release aggregates), with the same
 * theta prior as the noise-aware model.  For comparisons only.
 */
static void
run_nonprivate(FunctionCallInfo fcinfo, dpb_draws *dr, dpb_release *metap,
			   dpb_infer_opts *op)
{
	char	   *model = NULL;
	ArrayType  *xa,
			   *ya;
	dpb_release meta;
	dpb_infer_opts o;
	dpb_clipper clip;
	dpb_err		err;
	dpb_status	st;
	double	   *X,
			   *Y,
			   *Z,
			   *Yc;
	int			N,
				d,
				i,
				j;

	for (i = 0; i < 9; i++)
		if (PG_ARGISNULL(i) && i != 7)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("only the seed may be null")));
	memset(&meta, 0, sizeof(meta));
	meta.version = DPB_RELEASE_VERSION;
	model = text_to_cstring(PG_GETARG_TEXT_PP(0));
	meta.model = dpb_model_from_name(model);
	if (meta.model != DPB_MODEL_LOGISTIC && meta.model != DPB_MODEL_POISSON)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("model must be \"logistic\" or \"poisson\""),
				 errhint("For linear regression use dpbayes.nonprivate_linear_stats().")));
	xa = PG_GETARG_ARRAYTYPE_P(1);
	ya = PG_GETARG_ARRAYTYPE_P(2);
	if (ARR_NDIM(xa) != 2 || ARR_NDIM(ya) != 1 || ARR_DIMS(xa)[0] != ARR_DIMS(ya)[0] ||
		array_contains_nulls(xa) || array_contains_nulls(ya))
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("x must be an N x d array and y an array of N values, without nulls")));
	N = ARR_DIMS(xa)[0];
	d = ARR_DIMS(xa)[1];
	dpb_pg_params_from_datum(PG_GETARG_DATUM(3), &meta.p);
	st = dpb_params_check_model(&meta.p, meta.model, d, &err);
	if (st != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	dpb_pg_require_bounds(&meta.p);
	meta.p.d = d;
	meta.p.mechanism = DPB_MECH_NONE;
	meta.d = d;
	meta.n = N;
	dpb_infer_opts_default(&o, &meta);
	sampler_args(fcinfo, 4, &o);
	dpb_pg_parse_infer_opts(PG_GETARG_JSONB_P(8), &meta, &o);

	X = (double *) ARR_DATA_PTR(xa);
	Y = (double *) ARR_DATA_PTR(ya);
	Z = palloc(sizeof(double) * (size_t) N * d);
	Yc = palloc(sizeof(double) * N);
	dpb_clipper_init(&clip, &meta.p, meta.model, d);
	for (i = 0; i < N; i++)
	{
		if ((i & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		for (j = 0; j < d; j++)
			if (isnan(X[(size_t) i * d + j]) || isinf(X[(size_t) i * d + j]))
				ereport(ERROR,
						(errcode(ERRCODE_DATA_EXCEPTION),
						 errmsg("feature values must be finite")));
		if (isnan(Y[i]) || isinf(Y[i]))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("response must be finite")));
		if (meta.model == DPB_MODEL_POISSON)
			dpb_pg_check_count(Y[i]);
		else if (Y[i] != 0 && Y[i] != 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("logistic y must be 0 or 1"),
					 errdetail("The array y holds a value other than 0 and 1: logistic regression takes labels, "
							   "not probabilities or scores."),
					 errhint("Pass the labels as 1 (positive) and 0, e.g. (diabetes = 'pos')::int, "
							 "or y = 1 or y > 0.5 to turn a number into a label.")));
		dpb_clip_x(&clip, X + (size_t) i * d, Z + (size_t) i * d);
		/* logistic: y = 1 is the positive class (1 / true) */
		Yc[i] = dpb_clip_y(&clip, Y[i]);
	}
	sampler_seed(fcinfo, 7, &o);
	progress_start("nonprivate_posterior", &meta, &o);
	st = dpb_glm_exact_run(&meta, Z, Yc, N, &o, dr, &err);
	progress_stop(st, dr);
	sampler_finish(st, &err, dr, dpb_sampler_name(dpb_posterior_sampler(&meta, &o)), false, NULL);
	if (metap)
		*metap = meta;
	if (op)
		*op = o;
}

PG_FUNCTION_INFO_V1(dpbayes_nonprivate_posterior);
Datum
dpbayes_nonprivate_posterior(PG_FUNCTION_ARGS)
{
	dpb_draws	dr;

	InitMaterializedSRF(fcinfo, 0);
	run_nonprivate(fcinfo, &dr, NULL, NULL);
	emit_draws((ReturnSetInfo *) fcinfo->resultinfo, &dr);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(dpbayes_nonprivate_posterior_summary);
Datum
dpbayes_nonprivate_posterior_summary(PG_FUNCTION_ARGS)
{
	dpb_draws	dr;
	dpb_release meta;
	dpb_infer_opts o;

	InitMaterializedSRF(fcinfo, 0);
	run_nonprivate(fcinfo, &dr, &meta, &o);
	emit_summary((ReturnSetInfo *) fcinfo->resultinfo, &dr, &meta, &o);
	return (Datum) 0;
}

/* Shared with the local-DP posteriors (ldp_posterior.c, ldp_collect.h). */
int
dpb_pg_interrupt(void)
{
	return pg_interrupt();
}

void
dpb_pg_sampler_finish(dpb_status st, dpb_err *err, dpb_draws *dr)
{
	sampler_finish(st, err, dr, "nuts", false, NULL);
}

void
dpb_pg_progress_stop(dpb_status st, dpb_draws *dr)
{
	progress_stop(st, dr);
}

void
dpb_pg_emit_draws(ReturnSetInfo *rsinfo, dpb_draws *dr)
{
	emit_draws(rsinfo, dr);
}

void
dpb_pg_emit_summary(ReturnSetInfo *rsinfo, dpb_draws *dr)
{
	emit_summary_rows(rsinfo, dr, NULL);
}

/*
 * dpbayes.prior_sensitivity(r, draws, chains, warmup, seed, options,
 * alternatives): the noise-aware posterior of r under its prior (options)
 * and under two alternative priors, one summary row per (prior, variable)
 * with the shift of the mean in base posterior sds (docs/posterior.md, "How
 * much did the data move the prior?").  The alternatives are a jsonb array
 * of two option objects applied over options, or by default the prior of
 * the coefficients ten times wider ("vaguer") and ten times narrower
 * ("tighter") than options resolve it to (alt_default).  The three runs share
 * the seed (common random numbers: the shifts' Monte Carlo error is smaller
 * than that of independent runs).
 */
#define SENS_NRUN 3

/* CONTEXT line of the warnings and errors of one of the runs */
static void
sens_context(void *arg)
{
	errcontext("prior_sensitivity, the run under the %s prior", (const char *) arg);
}

/* The default alternative priors: the coefficients' prior scale times f. */
static void
alt_default(const dpb_release *r, const dpb_infer_opts *base, double f,
			dpb_infer_opts *alt)
{
	*alt = *base;
	for (int j = 0; j <= DPB_MAX_D; j++)
	{
		/* linear: sd of theta_j | sigma^2 is sigma / sqrt(precision) (the
		 * NIG prior), theta_sd_j (the weak prior, the default of NUTS) */
		alt->lin.theta_precision[j] = base->lin.theta_precision[j] / (f * f);
		alt->lin.theta_sd[j] = base->lin.theta_sd[j] * f;
		/* GLM: the range of the option (infer_opts.c, PRIOR_SCALE_*) */
		alt->glm.theta_scale[j] = fmin(1e4, fmax(1e-4, base->glm.theta_scale[j] * f));
	}
	alt->lin.intercept_sd = base->lin.intercept_sd * f;
	if (base->glm.theta_norm_bound > 0)
		alt->glm.theta_norm_bound = base->glm.theta_norm_bound * f;
}

PG_FUNCTION_INFO_V1(dpbayes_prior_sensitivity);
Datum
dpbayes_prior_sensitivity(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo;
	dpb_release r;
	dpb_infer_opts o[SENS_NRUN];
	const char *label[SENS_NRUN] = {"base", "vaguer", "tighter"};
	dpb_summary *sum[SENS_NRUN];
	double	   *psd[SENS_NRUN];
	dpb_draws	dr;
	int			nvars = 0,
				i,
				k;
	char		(*names)[DPB_VAR_NAME_LEN] = NULL;

	InitMaterializedSRF(fcinfo, 0);
	rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	for (i = 0; i < 7; i++)
		if (PG_ARGISNULL(i) && i != 4 && i != 6)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("only the seed and the alternatives may be null")));
	dpb_pg_release_from_datum(PG_GETARG_DATUM(0), &r);
	dpb_pg_warn_insecure(&r);
	dpb_infer_opts_default(&o[0], &r);
	sampler_args(fcinfo, 1, &o[0]);
	o[0].method = parse_method("noise_aware", &r);
	dpb_pg_parse_infer_opts(PG_GETARG_JSONB_P(5), &r, &o[0]);
	if (PG_ARGISNULL(6))
	{
		alt_default(&r, &o[0], 10.0, &o[1]);
		alt_default(&r, &o[0], 0.1, &o[2]);
	}
	else
	{
		Jsonb	   *alts = PG_GETARG_JSONB_P(6);

		if (!JB_ROOT_IS_ARRAY(alts) || JB_ROOT_IS_SCALAR(alts) ||
			JB_ROOT_COUNT(alts) != SENS_NRUN - 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("alternatives must be a JSON array of two option objects"),
					 errhint("For example '[{\"theta_scale\": 50}, {\"theta_scale\": 0.5}]'; each object is "
							 "applied over options.")));
		for (i = 1; i < SENS_NRUN; i++)
		{
			JsonbValue *e = getIthJsonbValueFromContainer(&alts->root, i - 1);

			if (e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("alternatives must be a JSON array of two option objects"),
						 errdetail("Element %d is not an object.", i)));
			o[i] = o[0];
			dpb_pg_parse_infer_opts(JsonbValueToJsonb(e), &r, &o[i]);
			if (o[i].nuisance != o[0].nuisance)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("the alternative priors must report the same variables as the base prior"),
						 errdetail("Alternative %d changes option \"nuisance\".", i),
						 errhint("Give only prior options in alternatives (e.g. theta_scale, theta_precision, "
								 "sigma2_shape, sigma2_scale).")));
		}
		label[1] = "alternative 1";
		label[2] = "alternative 2";
	}
	sampler_seed(fcinfo, 4, &o[0]);
	for (i = 1; i < SENS_NRUN; i++)
		o[i].seed = o[0].seed;

	for (i = 0; i < SENS_NRUN; i++)
	{
		ErrorContextCallback cb;

		cb.callback = sens_context;
		cb.arg = (void *) label[i];
		cb.previous = error_context_stack;
		error_context_stack = &cb;
		run_once(psprintf("prior_sensitivity (%s prior)", label[i]), &r, &o[i], &dr);
		error_context_stack = cb.previous;
		PG_TRY();
		{
			/* the alternatives may not change the reported variables
			 * (options nuisance, or an N made known) */
			if (i == 0)
			{
				nvars = dr.nvars;
				names = palloc(sizeof(*names) * (nvars > 0 ? nvars : 1));
				memcpy(names, dr.names, sizeof(*names) * nvars);
			}
			else if (dr.nvars != nvars ||
					 memcmp(names, dr.names, sizeof(*names) * nvars) != 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("the alternative priors must report the same variables as the base prior"),
						 errdetail("Alternative %d changes the variables the posterior reports.", i),
						 errhint("Give only prior options in alternatives (e.g. theta_scale, theta_precision, "
								 "sigma2_shape, sigma2_scale).")));
			sum[i] = summarize_all(&dr);
			psd[i] = palloc(sizeof(double) * (nvars > 0 ? nvars : 1));
			dpb_prior_sd(&r, &o[i], &dr, psd[i]);
			if (i == 0)
				prior_notice(&dr, sum[0], psd[0]);
		}
		PG_FINALLY();
		{
			dpb_draws_free(&dr);
		}
		PG_END_TRY();
	}

	for (i = 0; i < SENS_NRUN; i++)
		for (k = 0; k < nvars; k++)
		{
			const dpb_summary *s = &sum[i][k],
					   *b = &sum[0][k];
			Datum		v[8];
			bool		n[8];
			int			c;

			v[0] = CStringGetTextDatum(label[i]);
			v[1] = CStringGetTextDatum(dpb_pg_from_utf8(names[k]));
			v[2] = Float8GetDatum(s->mean);
			v[3] = Float8GetDatum(s->sd);
			v[4] = Float8GetDatum(psd[i][k]);
			v[5] = Float8GetDatum(sd_ratio(s->sd, psd[i][k]));
			v[6] = Float8GetDatum(b->sd > 0 ? (s->mean - b->mean) / b->sd : NAN);
			v[7] = Float8GetDatum(b->sd > 0 ? s->sd / b->sd : NAN);
			for (c = 0; c < 8; c++)
				n[c] = c >= 2 && isnan(DatumGetFloat8(v[c]));
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
		}
	return (Datum) 0;
}
