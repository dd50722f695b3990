/*
 * ldp_posterior.c — dpbayes.ldp_posterior(collected bytea, options jsonb)
 * and dpbayes.ldp_posterior_summary(...): noise-aware posteriors on a
 * collection of local-DP reports (ldp_models.h; docs/ldp.md), with the
 * output paths of dpbayes.posterior.  And dpbayes.ldp_oue_estimate(), the
 * OUE point estimate (the baseline of the paper's Fig. 3).
 *
 * Options (all optional): model ("gaussian", the default, or "exponential"
 * for scalar_laplace reports; "gaussian" for scalar_gaussian; "proportion"
 * for rr; "histogram" for OUE; "linear" for linear_input, "logistic" for
 * logistic_input), draws, chains, warmup, seed, target_accept, max_depth,
 * bin_tol (the binned scalar models), and the prior's keys (docs/ldp.md).
 * dpbayes.ldp_posterior_compare(a, b, options) and its _summary: two
 * collections of rr reports, the proportions of two groups and their
 * difference.
 */
#include "ldp_collect.h"

#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "catalog/pg_type.h"

#define bad_option dpb_pg_bad_option
#define opt_num dpb_pg_option_number

static int
opt_int(JsonbValue *v, const char *key, int lo, int hi)
{
	double		x = opt_num(v, key);

	if (x != floor(x) || x < lo || x > hi)
		bad_option(key, psprintf("An integer between %d and %d is expected.", lo, hi));
	return (int) x;
}

typedef struct ldpp_opts
{
	dpb_ldpm_run_opts run;
	dpb_ldpm_prior prior;
	bool		have_seed;
	bool		have_bin_tol;
	char		model[32];
	unsigned	given;			/* bit i: prior_keys[i] was given */
} ldpp_opts;

/* the largest binning tolerance accepted (nats): the bound is on the
 * variation of the log-likelihood's error over the whole parameter space */
#define LDPP_MAX_BIN_TOL 1.0
/*
 * The prior's options (docs/ldp.md): the models they apply to and their
 * kind.  A scale or rate must lie within a factor PRIOR_FACTOR of its
 * default, which follows the scale of the reports; a shape in
 * [SHAPE_MIN, SHAPE_MAX]; mu_mean within PRIOR_FACTOR widths of the
 * clipping interval.  Outside these the sampler finds no usable step size
 * or never moves (issue 25), so they are errors naming the option.
 */
#define PRIOR_FACTOR 1e4
#define SHAPE_MIN 1e-2
#define SHAPE_MAX 1e4

enum
{
	PK_LOCATION, PK_SCALE, PK_RATE, PK_SHAPE
};

#define M_GAUSS (1u << DPB_LDPM_GAUSSIAN)
#define M_EXP (1u << DPB_LDPM_EXPONENTIAL)
#define M_HIST (1u << DPB_LDPM_HISTOGRAM)
#define M_LIN (1u << DPB_LDPM_LINEAR)
#define M_LOGIT (1u << DPB_LDPM_LOGISTIC)
#define M_GAUSS_GN (1u << DPB_LDPM_GAUSSIAN_GN)
#define M_PROP (1u << DPB_LDPM_PROPORTION)

typedef struct prior_key
{
	const char *name;
	size_t		off;
	unsigned	models;
	int			kind;
} prior_key;

static const prior_key prior_keys[] = {
	{"mu_mean", offsetof(dpb_ldpm_prior, mu_mean), M_GAUSS | M_GAUSS_GN, PK_LOCATION},
	{"mu_sd", offsetof(dpb_ldpm_prior, mu_sd), M_GAUSS | M_GAUSS_GN, PK_SCALE},
	{"sigma_shape", offsetof(dpb_ldpm_prior, sigma_shape), M_GAUSS | M_GAUSS_GN, PK_SHAPE},
	{"sigma_rate", offsetof(dpb_ldpm_prior, sigma_rate), M_GAUSS | M_GAUSS_GN, PK_RATE},
	{"rate_shape", offsetof(dpb_ldpm_prior, rate_shape), M_EXP, PK_SHAPE},
	{"rate_rate", offsetof(dpb_ldpm_prior, rate_rate), M_EXP, PK_RATE},
	{"alpha", offsetof(dpb_ldpm_prior, alpha), M_HIST, PK_SHAPE},
	{"theta_sd", offsetof(dpb_ldpm_prior, theta_sd), M_LIN | M_LOGIT, PK_SCALE},
	{"noise_sd", offsetof(dpb_ldpm_prior, noise_sd), M_LIN, PK_SCALE},
	{"x_mean_sd", offsetof(dpb_ldpm_prior, x_mean_sd), M_LIN | M_LOGIT, PK_SCALE},
	{"tau_sd", offsetof(dpb_ldpm_prior, tau_sd), M_LIN | M_LOGIT, PK_SCALE},
	{"beta_a", offsetof(dpb_ldpm_prior, beta_a), M_PROP, PK_SHAPE},
	{"beta_b", offsetof(dpb_ldpm_prior, beta_b), M_PROP, PK_SHAPE},
	{NULL, 0, 0, 0}
};

#define PRIOR_VAL(pr, k) (*(double *) ((char *) (pr) + (k)->off))

/*
 * The given prior options: each must apply to the model and lie in its
 * range (def: the defaults for these reports; dt: the model's data).
 */
static void
check_prior_options(const ldpp_opts *o, const dpb_ldpm_prior *def, const dpb_ldpm_data *dt)
{
	for (const prior_key *k = prior_keys; k->name; k++)
	{
		double		v,
					dv,
					lo,
					hi;

		if (!(o->given & (1u << (k - prior_keys))))
			continue;
		if (!(k->models & (1u << dt->model)))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"%s\" does not apply to the %s model", k->name,
							dpb_ldpm_model_name(dt->model)),
					 errhint("docs/ldp.md lists the prior options of each model.")));
		v = PRIOR_VAL(&o->prior, k);
		dv = PRIOR_VAL(def, k);
		switch (k->kind)
		{
			case PK_LOCATION:
				{
					double		w = fmax(dt->b - dt->a, 1.0);

					lo = dv - PRIOR_FACTOR * w;
					hi = dv + PRIOR_FACTOR * w;
					break;
				}
			case PK_SHAPE:
				lo = SHAPE_MIN;
				hi = SHAPE_MAX;
				break;
			default:
				lo = dv / PRIOR_FACTOR;
				hi = dv * PRIOR_FACTOR;
				break;
		}
		if (!(v >= lo && v <= hi))
			bad_option(k->name,
					   k->kind == PK_SHAPE ?
					   psprintf("The value must lie between %g and %g (docs/errors.md, \"Local-DP prior options\").", lo, hi) :
					   k->kind == PK_LOCATION ?
					   psprintf("The value must lie between %.6g and %.6g: within %g widths of the clipping interval of its default, %.6g (docs/errors.md, \"Local-DP prior options\").",
								lo, hi, PRIOR_FACTOR, dv) :
					   psprintf("The value must lie between %.6g and %.6g: within a factor of %g of its default for these reports, %.6g (docs/errors.md, \"Local-DP prior options\").",
								lo, hi, PRIOR_FACTOR, dv));
	}
}

/* The model data of collection st for the chosen model. */
static void
build_data(ldpc_state *st, const char *model, dpb_ldpm_data *dt)
{
	memset(dt, 0, sizeof(*dt));
	dt->n = (double) st->n;
	if (st->p.mech == DPB_LDP_RR)
	{
		if (model[0] != '\0' && strcmp(model, "proportion") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid value for option \"model\""),
					 errdetail("Reports of rr fit the model \"proportion\".")));
		dt->model = DPB_LDPM_PROPORTION;
		dt->groups = 1;
		dt->g_n[0] = (double) st->n;
		dt->g_k[0] = (double) st->ones;
		dt->g_keep[0] = st->c.p_keep;
	}
	else if (st->p.mech == DPB_LDP_SCALAR_GAUSSIAN)
	{
		if (model[0] != '\0' && strcmp(model, "gaussian") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid value for option \"model\""),
					 errdetail("Reports of scalar_gaussian fit the model \"gaussian\".")));
		/* the grid's clipping interval; the noise is a discrete Gaussian of
		 * variance sigma2 on the grid 2^grid_exp, modelled as continuous
		 * (its grid is 2^-20 of its sd) */
		dt->model = DPB_LDPM_GAUSSIAN_GN;
		dt->a = st->a;
		dt->b = st->b;
		dt->tau = ldexp(sqrt((double) st->c.gauss_sigma2), st->c.grid_exp);
		dt->n_in = st->nz;
		dt->z = st->z;
	}
	else if (st->p.mech == DPB_LDP_SCALAR_LAPLACE)
	{
		if (model[0] == '\0' || strcmp(model, "gaussian") == 0)
			dt->model = DPB_LDPM_GAUSSIAN;
		else if (strcmp(model, "exponential") == 0)
		{
			dt->model = DPB_LDPM_EXPONENTIAL;
			if (st->c.vlo != 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("the exponential model needs a protocol with lower bound 0")));
		}
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid value for option \"model\""),
					 errdetail("Reports of scalar_laplace fit the models \"gaussian\" and \"exponential\".")));
		/* the grid's clipping interval; the noise is a discrete Laplace of
		 * scale t on the grid 2^grid_exp, modelled as continuous */
		dt->a = st->a;
		dt->b = st->b;
		dt->lambda = 1.0 / ldexp((double) st->c.lap_t, st->c.grid_exp);
		dt->n_low = (double) st->n_low;
		dt->n_high = (double) st->n_high;
		dt->n_in = st->nz;
		dt->z = st->z;
	}
	else if (dpb_ldp_is_input(st->p.mech))
	{
		int			lin = st->p.mech == DPB_LDP_LINEAR_INPUT,
					d = st->d,
					k = st->k;
		const char *name = lin ? "linear" : "logistic";

		if (model[0] != '\0' && strcmp(model, name) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid value for option \"model\""),
					 errdetail("Reports of %s fit the model \"%s\".", dpb_ldp_mech_name(st->p.mech), name)));
		dt->model = lin ? DPB_LDPM_LINEAR : DPB_LDPM_LOGISTIC;
		dt->d = d;
		for (int j = 0; j < d; j++)
			dt->sd_x[j] = st->c.in_sd[0];
		if (lin)
		{
			dt->sd_y = st->c.in_sd[1];
			dt->sw = st->sw;
			dt->sww = st->sww;
		}
		else
		{
			/* the x block of the sums; the reports split into z_x and z_y */
			double	   *sw = palloc(sizeof(double) * d),
					   *sww = palloc(sizeof(double) * d * d),
					   *zx = MemoryContextAllocHuge(CurrentMemoryContext,
													sizeof(double) * d * (st->nr > 0 ? st->nr : 1)),
					   *zy = MemoryContextAllocHuge(CurrentMemoryContext,
													sizeof(double) * (st->nr > 0 ? st->nr : 1));

			for (int a = 0; a < d; a++)
			{
				sw[a] = st->sw[a];
				for (int b = 0; b < d; b++)
					sww[a * d + b] = st->sww[a * k + b];
			}
			for (int64 i = 0; i < st->nr; i++)
			{
				memcpy(zx + i * d, st->rep + i * k, sizeof(double) * d);
				zy[i] = st->rep[i * k + d];
			}
			dt->sw = sw;
			dt->sww = sww;
			dt->zx = zx;
			dt->zy = zy;
			dt->rr_keep = st->c.p_keep;
		}
	}
	else
	{
		unsigned char *pat;
		double	   *cnt;

		if (model[0] != '\0' && strcmp(model, "histogram") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid value for option \"model\""),
					 errdetail("Reports of oue fit the model \"histogram\".")));
		dt->model = DPB_LDPM_HISTOGRAM;
		dt->K = st->K;
		dt->eps = st->p.epsilon;
		dt->npat = st->np;
		pat = MemoryContextAllocHuge(CurrentMemoryContext, (Size) (st->np > 0 ? st->np : 1) * st->K);
		cnt = palloc(sizeof(double) * (st->np > 0 ? st->np : 1));
		for (int64 u = 0; u < st->np; u++)
		{
			for (int k = 0; k < st->K; k++)
				pat[u * st->K + k] = (st->pw[u * st->W + k / 64] >> (k % 64)) & 1;
			cnt[u] = (double) st->pc[u];
		}
		dt->pat = pat;
		dt->count = cnt;
	}
}

static void
parse_opts(Jsonb *jb, ldpp_opts *o, bool want_model)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (!JB_ROOT_IS_OBJECT(jb))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("options must be a JSON object")));
	it = JsonbIteratorInit(&jb->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		char	   *key;
		JsonbValue	val;

		if (tok != WJB_KEY)
			continue;
		key = pnstrdup(v.val.string.val, v.val.string.len);
		tok = JsonbIteratorNext(&it, &val, true);
		if (strcmp(key, "model") == 0)
		{
			if (!want_model || val.type != jbvString || val.val.string.len >= (int) sizeof(o->model))
				bad_option(key, "A model name is expected.");
			memcpy(o->model, val.val.string.val, val.val.string.len);
			o->model[val.val.string.len] = '\0';
		}
		else if (strcmp(key, "draws") == 0)
			o->run.draws = opt_int(&val, key, 1, DPB_MAX_DRAWS);
		else if (strcmp(key, "chains") == 0)
			o->run.chains = opt_int(&val, key, 1, DPB_MAX_CHAINS);
		else if (strcmp(key, "warmup") == 0)
			o->run.warmup = opt_int(&val, key, 1, DPB_MAX_WARMUP);
		else if (strcmp(key, "seed") == 0)
		{
			double		x = opt_num(&val, key);

			if (x != floor(x) || x < 0 || x > 9007199254740992.0)
				bad_option(key, "An integer between 0 and 2^53 is expected.");
			o->run.seed = (uint64) x;
			o->have_seed = true;
		}
		else if (strcmp(key, "target_accept") == 0)
		{
			o->run.target_accept = opt_num(&val, key);
			if (!(o->run.target_accept > 0 && o->run.target_accept < 1))
				bad_option(key, "The value must lie strictly between 0 and 1.");
		}
		else if (strcmp(key, "max_depth") == 0)
			o->run.max_depth = opt_int(&val, key, 1, 15);
		else if (strcmp(key, "bin_tol") == 0)
		{
			double		x = opt_num(&val, key);

			if (!(x >= 0 && x <= LDPP_MAX_BIN_TOL))
				bad_option(key, "A number of nats from 0 (no binning: every report its own term) to 1 is expected.");
			/* 0: the ungrouped path (dpb_ldpm_run_opts: bin_tol < 0) */
			o->run.bin_tol = x > 0 ? x : -1;
			o->have_bin_tol = true;
		}
		else
		{
			const prior_key *k;

			for (k = prior_keys; k->name; k++)
				if (strcmp(key, k->name) == 0)
					break;
			if (k->name == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("unknown option \"%s\"", dpb_pg_quote(key, strlen(key))),
						 errhint("docs/ldp.md lists the options of dpbayes.ldp_posterior.")));
			PRIOR_VAL(&o->prior, k) = opt_num(&val, key);
			o->given |= 1u << (k - prior_keys);
		}
	}
}

/*
 * The draws of dpbayes.ldp_posterior(collected, options), or with compare
 * of dpbayes.ldp_posterior_compare(a, b, options): the proportions of two
 * collections of rr reports (independent groups, possibly of different
 * protocols) and their difference.
 */
static void
run_ldp(FunctionCallInfo fcinfo, dpb_draws *dr, bool compare)
{
	ldpc_state *st,
			   *st2 = NULL;
	ldpp_opts	o;
	dpb_ldpm_prior def;
	dpb_ldpm_data dt;
	dpb_err		err;
	dpb_status	s;
	Jsonb	   *jb;
	int			optarg = compare ? 2 : 1;

	for (int i = 0; i <= optarg; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the collection and the options must not be null")));
	st = dpb_pg_ldpc_parse(PG_GETARG_BYTEA_PP(0));
	dpb_pg_ldpc_warn_insecure(st);
	if (compare)
	{
		st2 = dpb_pg_ldpc_parse(PG_GETARG_BYTEA_PP(1));
		if (!st->insecure)
			dpb_pg_ldpc_warn_insecure(st2);
		if (st->p.mech != DPB_LDP_RR || st2->p.mech != DPB_LDP_RR)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("dpbayes.ldp_posterior_compare compares two collections of rr reports"),
					 errdetail("The proportions of two groups are compared on reports of randomized response (mechanism rr)."),
					 errhint("Analyse other collections one at a time with dpbayes.ldp_posterior.")));
	}
	memset(&o, 0, sizeof(o));
	o.run.chains = 4;
	o.run.warmup = 1000;
	o.run.draws = 1000;
	o.run.target_accept = 0.8;
	o.run.max_depth = 10;
	o.run.interrupt = dpb_pg_interrupt;
	jb = PG_GETARG_JSONB_P(optarg);
	/* the model first: the default priors depend on it */
	parse_opts(jb, &o, true);
	build_data(st, o.model, &dt);
	if (st->n == 0 || (st2 != NULL && st2->n == 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the collection holds no reports")));
	if (st2 != NULL)
	{
		dpb_ldpm_data dt2;

		build_data(st2, o.model, &dt2);
		dt.groups = 2;
		dt.g_n[1] = dt2.g_n[0];
		dt.g_k[1] = dt2.g_k[0];
		dt.g_keep[1] = dt2.g_keep[0];
		dt.n += dt2.n;
	}
	if (o.have_bin_tol && !DPB_LDPM_IS_SCALAR(dt.model))
		bad_option("bin_tol", "The option applies to the binned scalar models: gaussian and exponential on scalar_laplace reports, gaussian on scalar_gaussian reports.");
	dpb_ldpm_prior_default(&dt, &o.prior);
	def = o.prior;
	parse_opts(jb, &o, true);
	check_prior_options(&o, &def, &dt);
	memset(&err, 0, sizeof(err));
	if (dpb_ldpm_prior_check(&o.prior, &err) != DPB_OK)
		dpb_pg_raise(DPB_EINVAL, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	if (!o.have_seed)
	{
		uint64		sd;

		if (!pg_strong_random(&sd, sizeof(sd)))
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("could not generate a random seed")));
		o.run.seed = sd & ((UINT64CONST(1) << 53) - 1);
		ereport(NOTICE,
				(errmsg("posterior seed: " UINT64_FORMAT, o.run.seed),
				 errhint("Pass options.seed = " UINT64_FORMAT " to reproduce these draws.",
						 o.run.seed)));
	}
	if (dpb_pg_progress_enabled())
	{
		int			iv = dpb_pg_progress_interval_ms();

		ereport(NOTICE,
				(errmsg("ldp_posterior: %d chain%s of %d warmup and %d sampling iterations with the nuts sampler (%s model)",
						o.run.chains, o.run.chains == 1 ? "" : "s", o.run.warmup, o.run.draws,
						dpb_ldpm_model_name(dt.model)),
				 iv == 0 ? errdetail("Progress is reported at every iteration (dpbayes.progress_interval = 0).") :
				 errdetail("Progress is reported every %s (dpbayes.progress_interval).",
						   dpb_pg_format_duration(iv / 1000.0))));
	}
	dpb_pg_progress_begin("ldp_posterior", false);
	s = dpb_ldpm_run(&dt, &o.prior, &o.run, dr, &err);
	dpb_pg_progress_stop(s, dr);
	if (s == DPB_ENUMERIC)
	{
		/* no starting point or step size: name the prior options given */
		StringInfoData names;

		initStringInfo(&names);
		for (const prior_key *k = prior_keys; k->name; k++)
			if (o.given & (1u << (k - prior_keys)))
				appendStringInfo(&names, "%s%s", names.len ? ", " : "", k->name);
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s", err.msg),
				 err.detail[0] ? errdetail("%s", err.detail) : 0,
				 names.len ?
				 errhint("Check the prior options given (%s) against the scale of the reports, or leave them out: "
						 "the defaults follow the protocol's bounds (docs/ldp.md).", names.data) :
				 errhint("The default prior follows the protocol's bounds; a prior option suited to the data may help (docs/ldp.md).")));
	}
	dpb_pg_sampler_finish(s, &err, dr);
}

PG_FUNCTION_INFO_V1(dpbayes_ldp_posterior);
Datum
dpbayes_ldp_posterior(PG_FUNCTION_ARGS)
{
	dpb_draws	dr;

	InitMaterializedSRF(fcinfo, 0);
	run_ldp(fcinfo, &dr, false);
	dpb_pg_emit_draws((ReturnSetInfo *) fcinfo->resultinfo, &dr);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(dpbayes_ldp_posterior_summary);
Datum
dpbayes_ldp_posterior_summary(PG_FUNCTION_ARGS)
{
	dpb_draws	dr;

	InitMaterializedSRF(fcinfo, 0);
	run_ldp(fcinfo, &dr, false);
	dpb_pg_emit_summary((ReturnSetInfo *) fcinfo->resultinfo, &dr);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(dpbayes_ldp_posterior_compare);
Datum
dpbayes_ldp_posterior_compare(PG_FUNCTION_ARGS)
{
	dpb_draws	dr;

	InitMaterializedSRF(fcinfo, 0);
	run_ldp(fcinfo, &dr, true);
	dpb_pg_emit_draws((ReturnSetInfo *) fcinfo->resultinfo, &dr);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(dpbayes_ldp_posterior_compare_summary);
Datum
dpbayes_ldp_posterior_compare_summary(PG_FUNCTION_ARGS)
{
	dpb_draws	dr;

	InitMaterializedSRF(fcinfo, 0);
	run_ldp(fcinfo, &dr, true);
	dpb_pg_emit_summary((ReturnSetInfo *) fcinfo->resultinfo, &dr);
	return (Datum) 0;
}

/* dpbayes.ldp_oue_estimate(collected bytea, simplex boolean) -> float8[] */
PG_FUNCTION_INFO_V1(dpbayes_ldp_oue_estimate);
Datum
dpbayes_ldp_oue_estimate(PG_FUNCTION_ARGS)
{
	ldpc_state *st = dpb_pg_ldpc_parse(PG_GETARG_BYTEA_PP(0));
	dpb_ldpm_data dt;
	double	   *f;
	Datum	   *e;

	if (st->p.mech != DPB_LDP_OUE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the collection does not hold OUE reports")));
	if (st->n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the collection holds no reports")));
	dpb_pg_ldpc_warn_insecure(st);
	build_data(st, "", &dt);
	f = palloc(sizeof(double) * st->K);
	e = palloc(sizeof(Datum) * st->K);
	dpb_ldpm_oue_estimate(&dt, PG_GETARG_BOOL(1), f);
	for (int k = 0; k < st->K; k++)
		e[k] = Float8GetDatum(f[k]);
	PG_RETURN_ARRAYTYPE_P(construct_array(e, st->K, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/* dpbayes.ldp_collection_info(collected bytea) -> jsonb: the protocol and the
 * counts (all already private) */
PG_FUNCTION_INFO_V1(dpbayes_ldp_collection_info);
Datum
dpbayes_ldp_collection_info(PG_FUNCTION_ARGS)
{
	ldpc_state *st = dpb_pg_ldpc_parse(PG_GETARG_BYTEA_PP(0));
	StringInfoData b;

	initStringInfo(&b);
	appendStringInfo(&b, "{\"protocol\": %s, \"reports\": " INT64_FORMAT, st->proto_json, st->n);
	if (st->p.mech == DPB_LDP_RR)
		appendStringInfo(&b, ", \"ones\": " INT64_FORMAT, st->ones);
	else if (st->p.mech == DPB_LDP_SCALAR_GAUSSIAN)
		;						/* every report is kept */
	else if (st->p.mech == DPB_LDP_SCALAR_LAPLACE)
		appendStringInfo(&b, ", \"below\": " INT64_FORMAT ", \"above\": " INT64_FORMAT
						 ", \"in_range\": " INT64_FORMAT, st->n_low, st->n_high, st->nz);
	else if (dpb_ldp_is_input(st->p.mech))
		appendStringInfo(&b, ", \"features\": %d", st->d);
	else
		appendStringInfo(&b, ", \"patterns\": " INT64_FORMAT, st->np);
	if (st->insecure)
		appendStringInfoString(&b, ", \"insecure_test_reports\": true");
	appendStringInfoChar(&b, '}');
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data)));
}
