/*
 * infer_opts.c — the `options` jsonb of dpbayes.posterior(): parsed into a
 * dpb_infer_opts with documented defaults (docs/posterior.md).  Unknown keys
 * and invalid values are errors.  Values about the features (x_mean, x_cov,
 * x_scale) are in the user's original units and converted here to the
 * release's scaled units; the regression prior (theta_*, sigma2_*) and the
 * GLM's mu_scale and tau_scale are on the scaled model.
 */
#include "dpbayes_pg.h"
#include "ldp_collect.h"

#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "linalg.h"
#include "linear_model.h"
#include "posterior.h"

/*
 * Ranges of the prior options, on the scaled model (docs/posterior.md,
 * "Prior checks"): outside them the posterior cannot be sampled (every
 * proposal rejected, or no finite starting point), so they are errors.
 */
#define PRIOR_SCALE_MIN 1e-4	/* theta_scale, mu_scale, tau_scale,
								 * theta_sd */
#define PRIOR_SCALE_MAX 1e4
#define PRIOR_LKJ_MAX 1e4		/* lkj_eta in (0, PRIOR_LKJ_MAX] */
#define PRIOR_VAR_MIN 1e-8		/* diagonal of x_cov, x_scale (scaled) */
#define PRIOR_VAR_MAX 1e8

pg_attribute_noreturn()
static void
bad_option(const char *key, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value for option \"%s\"", key),
			 errdetail("%s", what)));
	pg_unreachable();
}

static double
jnum(JsonbValue *v, const char *key)
{
	double		x;
	bool		overflow;

	if (v->type != jbvNumeric)
		bad_option(key, "A number is expected.");
	x = dpb_pg_numeric_float8(v->val.numeric, &overflow);	/* no echo */
	if (overflow)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("invalid value for option \"%s\"", key),
				 errdetail("The value is out of the range of double precision.")));
	if (isnan(x) || isinf(x))
		bad_option(key, "The value must be finite.");
	return x;
}

static double
jpos(JsonbValue *v, const char *key)
{
	double		x = jnum(v, key);

	if (!(x > 0))
		bad_option(key, "The value must be positive.");
	return x;
}

/* A number (broadcast to n) or an array of exactly n numbers. */
static void
jvec(JsonbValue *v, const char *key, double *out, int n, bool positive)
{
	int			i;

	if (v->type == jbvNumeric)
	{
		double		x = positive ? jpos(v, key) : jnum(v, key);

		for (i = 0; i < n; i++)
			out[i] = x;
		return;
	}
	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		bad_option(key, "A number or an array of numbers is expected.");
	if (JsonContainerSize(v->val.binary.data) != n)
		bad_option(key, psprintf("The array must have %d elements.", n));
	for (i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(v->val.binary.data, i);

		out[i] = positive ? jpos(e, key) : jnum(e, key);
	}
}

/* A d x d matrix as an array of d arrays of d numbers, symmetric PD. */
static void
jmat(JsonbValue *v, const char *key, double *out, int d)
{
	int			i,
				j;

	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data) ||
		JsonContainerSize(v->val.binary.data) != d)
		bad_option(key, psprintf("An array of %d rows is expected.", d));
	for (i = 0; i < d; i++)
	{
		JsonbValue *row = getIthJsonbValueFromContainer(v->val.binary.data, i);

		if (row->type != jbvBinary || !JsonContainerIsArray(row->val.binary.data) ||
			JsonContainerSize(row->val.binary.data) != d)
			bad_option(key, psprintf("Each row must be an array of %d numbers.", d));
		for (j = 0; j < d; j++)
			out[i * d + j] = jnum(getIthJsonbValueFromContainer(row->val.binary.data, j), key);
	}
	for (i = 0; i < d; i++)
	{
		if (!(out[i * d + i] > 0))
			bad_option(key, "The diagonal must be positive.");
		for (j = 0; j < i; j++)
			if (fabs(out[i * d + j] - out[j * d + i]) > 1e-12 * (fabs(out[i * d + j]) + 1e-300))
				bad_option(key, "The matrix must be symmetric.");
	}
}

/* x in [lo, hi], else an error naming the option */
static void
check_range(const char *key, const double *x, int n, double lo, double hi)
{
	for (int i = 0; i < n; i++)
		if (!(x[i] >= lo && x[i] <= hi))
			bad_option(key, psprintf("The value must lie between %g and %g on the scaled model "
									 "(docs/posterior.md, \"Prior checks\").", lo, hi));
}

/* a scaled covariance-like matrix: bounded diagonal, positive definite */
static void
check_cov(const char *key, const double *m, int d)
{
	double	   *a = palloc(sizeof(double) * d * d);

	for (int i = 0; i < d; i++)
		check_range(key, m + i * d + i, 1, PRIOR_VAR_MIN, PRIOR_VAR_MAX);
	memcpy(a, m, sizeof(double) * d * d);
	if (dpb_chol_nocopy(a, d) != DPB_OK)
		bad_option(key, "The matrix must be positive definite.");
	pfree(a);
}

/* option keys and the models they apply to (L linear, G logistic/poisson) */
typedef struct opt_key
{
	const char *name;
	bool		linear;
	bool		glm;
} opt_key;

static const opt_key known_keys[] = {
	{"prior", true, false},
	{"theta_sd", true, false},
	{"intercept_sd", true, false},
	{"sigma2_mean", true, false},
	{"theta_mean", true, false},
	{"theta_precision", true, false},
	{"sigma2_shape", true, false},
	{"sigma2_scale", true, false},
	{"x_moments", true, false},
	{"x_cov", true, false},
	{"x_kappa", true, false},
	{"x_df", true, false},
	{"x_scale", true, false},
	{"x_mean", true, true},
	{"theta_scale", false, true},
	{"theta_norm_bound", false, true},
	{"mu_scale", false, true},
	{"tau_scale", false, true},
	{"lkj_eta", false, true},
	{"moments", false, true},
	{"target_accept", true, true},
	{"max_depth", true, true},
	{"nuisance", true, true},
	{"thin", true, false},
	{"sampler", true, true},
	{"laplace_noise", true, false},
	{"clamp", true, false},
	{"n_prior", true, true},
	{NULL, false, false}
};

/* seen[] entry of a known key */
static bool
given(const bool *seen, const char *name)
{
	for (const opt_key *k = known_keys; k->name; k++)
		if (strcmp(k->name, name) == 0)
			return seen[k - known_keys];
	return false;
}

pg_attribute_noreturn()
static void
option_not_applicable(const char *key, const char *detail, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("option \"%s\" does not apply to this run", key),
			 errdetail("%s", detail),
			 hint ? errhint("%s", hint) : 0));
	pg_unreachable();
}

/*
 * Options that the run would ignore are errors naming the option (issue
 * 25): an option the user gave expects an effect.  Checked once all keys
 * are read (a JSON object's keys come in no useful order).  The model
 * family is checked per key above; here: the release's mechanism, the
 * sampler the run uses, the method, and the linear model's x_moments.
 */
static void
not_applicable(const bool *seen, const dpb_release *r, const dpb_infer_opts *o)
{
	bool		linear = r->model == DPB_MODEL_LINEAR;
	dpb_sampler s = dpb_posterior_sampler(r, o);
	bool		gibbs = s == DPB_SAMPLER_GIBBS;
	bool		iid = linear && o->method != DPB_METHOD_NOISE_AWARE;
	const char *how = iid ?
		"This run draws independent samples from the conjugate posterior of the naive or non-private method." :
		"This run uses the gibbs sampler (options.sampler \"gibbs\", x_moments \"noisy\", or a model too large for NUTS).";

	/*
	 * The prior of (theta, sigma^2): the NUTS sampler uses options.prior
	 * (default "weak"); Gibbs-SS and the naive and non-private methods use
	 * the conjugate NIG prior only.  The keys of the other prior are errors.
	 */
	if (linear)
	{
		static const char *const weak_keys[] = {"theta_sd", "intercept_sd", "sigma2_mean"};
		static const char *const nig_keys[] = {"theta_precision", "sigma2_shape", "sigma2_scale"};
		bool		nig = o->lin.prior == DPB_LIN_PRIOR_NIG;

		if ((gibbs || iid) && given(seen, "prior") && !nig)
			option_not_applicable("prior",
								  psprintf("Only the NUTS sampler has the \"weak\" prior. %s", how),
								  "Use \"prior\": \"nig\", or leave it out.");
		for (int i = 0; i < 3; i++)
		{
			if (given(seen, weak_keys[i]) && (nig || gibbs || iid))
				option_not_applicable(weak_keys[i],
									  nig ? "It is a parameter of the \"weak\" prior; this run uses \"prior\": \"nig\"." :
									  psprintf("It is a parameter of the \"weak\" prior of the NUTS sampler. %s", how),
									  nig ? "Leave it out, or leave \"prior\" out." :
									  "Leave it out, or use options.sampler \"nuts\" (with x_moments \"update\" or \"prior\").");
			if (given(seen, nig_keys[i]) && !nig && !gibbs && !iid)
				option_not_applicable(nig_keys[i],
									  "It is a parameter of the normal-inverse-gamma prior, which is no longer the default of the NUTS sampler (the \"weak\" prior is; docs/posterior.md, \"Fixed-truth coverage\").",
									  "Add \"prior\": \"nig\" to use the prior of version 0.1, or use theta_sd, intercept_sd and sigma2_mean.");
		}
		if (given(seen, "intercept_sd") && !r->p.intercept)
			option_not_applicable("intercept_sd",
								  "It is the prior sd of the intercept; this release has no intercept.",
								  "Leave it out.");
	}
	if (given(seen, "laplace_noise"))
	{
		if (r->p.mechanism != DPB_MECH_LAPLACE)
			option_not_applicable("laplace_noise",
								  psprintf("It chooses how the noise of a Laplace release is modelled; this release's noise is %s.",
										   dpb_mechanism_name(r->p.mechanism)),
								  "Leave it out.");
		if (o->method != DPB_METHOD_NOISE_AWARE)
			option_not_applicable("laplace_noise",
								  "It chooses how the noise is modelled, which only the noise_aware method does.",
								  "Leave it out, or use method => 'noise_aware'.");
		if (gibbs)
			option_not_applicable("laplace_noise",
								  "It chooses the form of the Laplace noise for the NUTS sampler; the gibbs sampler always uses the scale mixture.",
								  "Leave it out, or use options.sampler \"nuts\".");
	}
	if (given(seen, "clamp"))
	{
		if (o->method != DPB_METHOD_NOISE_AWARE)
			option_not_applicable("clamp",
								  "It changes the model of the noisy statistics, which only the noise_aware method has.",
								  "Leave it out, or use method => 'noise_aware'.");
		if (gibbs)
			option_not_applicable("clamp",
								  "It is a setting of the NUTS sampler's model; the gibbs sampler keeps the unclamped model.",
								  "Leave it out, or use options.sampler \"nuts\" (with x_moments \"update\" or \"prior\").");
	}
	if (given(seen, "target_accept") || given(seen, "max_depth"))
	{
		const char *key = given(seen, "target_accept") ? "target_accept" : "max_depth";

		if (gibbs)
			option_not_applicable(key,
								  psprintf("It is a setting of the NUTS sampler. %s", how),
								  iid ? "Leave it out." : "Leave it out, or use options.sampler \"nuts\" (with x_moments \"update\" or \"prior\").");
	}
	if (given(seen, "thin") && iid)
		option_not_applicable("thin",
							  "The draws of the naive and non-private methods are independent: thinning them changes nothing.",
							  "Leave it out.");
	if (linear && o->lin.xmoments != DPB_XMOM_UPDATE)
	{
		static const char *const upd[] = {"x_kappa", "x_df", "x_scale"};

		for (int i = 0; i < 3; i++)
			if (given(seen, upd[i]))
				option_not_applicable(upd[i],
									  psprintf("It is a parameter of the prior that x_moments \"update\" (the default) places on the features' moments; this run uses x_moments \"%s\".",
											   o->lin.xmoments == DPB_XMOM_PRIOR ? "prior" : "noisy"),
									  "Leave it out, or use x_moments \"update\".");
	}
	if (linear && o->lin.xmoments != DPB_XMOM_PRIOR && given(seen, "x_cov"))
		option_not_applicable("x_cov",
							  "It is the fixed covariance of the features that x_moments \"prior\" uses.",
							  "Add \"x_moments\": \"prior\", or leave x_cov out.");
}

void
dpb_pg_parse_infer_opts(Jsonb *jb, const dpb_release *r, dpb_infer_opts *o)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	double		gain[DPB_MAX_D],
				center[DPB_MAX_D];
	int			d = r->d,
				p = d + r->p.intercept,
				i,
				j;
	bool		seen[lengthof(known_keys)] = {0};

	if (!JB_ROOT_IS_OBJECT(jb))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("options must be a JSON object")));
	dpb_feature_map(r, gain, center);

	it = JsonbIteratorInit(&jb->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		char	   *key;
		JsonbValue	val;
		const opt_key *k;
		bool		linear = r->model == DPB_MODEL_LINEAR;

		if (tok != WJB_KEY)
			continue;
		key = pnstrdup(v.val.string.val, v.val.string.len);
		tok = JsonbIteratorNext(&it, &val, true);
		for (k = known_keys; k->name; k++)
			if (strcmp(k->name, key) == 0)
				break;
		if (k->name == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown option \"%s\"", dpb_pg_quote(key, strlen(key))),
					 errhint("See docs/posterior.md for the options of each model.")));
		if (linear ? !k->linear : !k->glm)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"%s\" does not apply to %s regression", key,
							dpb_model_name(r->model))));
		seen[k - known_keys] = true;
		if (strcmp(key, "prior") == 0)
		{
			char	   *m;

			if (val.type != jbvString)
				bad_option(key, "\"weak\" or \"nig\" is expected.");
			m = pnstrdup(val.val.string.val, val.val.string.len);
			if (strcmp(m, "weak") == 0)
				o->lin.prior = DPB_LIN_PRIOR_WEAK;
			else if (strcmp(m, "nig") == 0)
				o->lin.prior = DPB_LIN_PRIOR_NIG;
			else
				bad_option(key, "\"weak\" or \"nig\" is expected.");
		}
		else if (strcmp(key, "theta_sd") == 0)
		{
			double		t[DPB_MAX_D];

			jvec(&val, key, t, d, true);
			check_range(key, t, d, PRIOR_SCALE_MIN, PRIOR_SCALE_MAX);
			for (i = 0; i < d; i++)
				o->lin.theta_sd[r->p.intercept + i] = t[i];
		}
		else if (strcmp(key, "intercept_sd") == 0)
		{
			o->lin.intercept_sd = jpos(&val, key);
		}
		else if (strcmp(key, "sigma2_mean") == 0)
		{
			o->lin.sigma2_mean = jpos(&val, key);
		}
		else if (strcmp(key, "theta_mean") == 0)
			jvec(&val, key, o->lin.theta_mean, p, false);
		else if (strcmp(key, "theta_precision") == 0)
			jvec(&val, key, o->lin.theta_precision, p, true);
		else if (strcmp(key, "sigma2_shape") == 0)
			o->lin.sigma2_shape = jpos(&val, key);
		else if (strcmp(key, "sigma2_scale") == 0)
			o->lin.sigma2_scale = jpos(&val, key);
		else if (strcmp(key, "x_kappa") == 0)
			o->lin.x_kappa = jpos(&val, key);
		else if (strcmp(key, "x_df") == 0)
		{
			o->lin.x_df = jnum(&val, key);
			if (!(o->lin.x_df > d - 1))
				bad_option(key, psprintf("The degrees of freedom must exceed d - 1 = %d.", d - 1));
		}
		else if (strcmp(key, "x_mean") == 0)
		{
			jvec(&val, key, o->x_mean, d, false);
			for (i = 0; i < d; i++)
				o->x_mean[i] = gain[i] * (o->x_mean[i] - center[i]);
		}
		else if (strcmp(key, "x_cov") == 0 || strcmp(key, "x_scale") == 0)
		{
			double	   *m = strcmp(key, "x_cov") == 0 ? o->lin.x_cov : o->lin.x_scale;

			jmat(&val, key, m, d);
			for (i = 0; i < d; i++)
				for (j = 0; j < d; j++)
					m[i * d + j] *= gain[i] * gain[j];
			check_cov(key, m, d);
		}
		else if (strcmp(key, "x_moments") == 0)
		{
			char	   *s;

			if (val.type != jbvString)
				bad_option(key, "\"update\", \"prior\" or \"noisy\" is expected.");
			s = pnstrdup(val.val.string.val, val.val.string.len);
			if (strcmp(s, "update") == 0)
				o->lin.xmoments = DPB_XMOM_UPDATE;
			else if (strcmp(s, "prior") == 0)
				o->lin.xmoments = DPB_XMOM_PRIOR;
			else if (strcmp(s, "noisy") == 0)
				o->lin.xmoments = DPB_XMOM_NOISY;
			else
				bad_option(key, "\"update\", \"prior\" or \"noisy\" is expected.");
		}
		else if (strcmp(key, "theta_scale") == 0)
		{
			jvec(&val, key, o->glm.theta_scale, p, true);
			check_range(key, o->glm.theta_scale, p, PRIOR_SCALE_MIN, PRIOR_SCALE_MAX);
		}
		else if (strcmp(key, "theta_norm_bound") == 0)
			o->glm.theta_norm_bound = jpos(&val, key);
		else if (strcmp(key, "mu_scale") == 0)
		{
			o->glm.mu_scale = jpos(&val, key);
			check_range(key, &o->glm.mu_scale, 1, PRIOR_SCALE_MIN, PRIOR_SCALE_MAX);
		}
		else if (strcmp(key, "tau_scale") == 0)
		{
			o->glm.tau_scale = jpos(&val, key);
			check_range(key, &o->glm.tau_scale, 1, PRIOR_SCALE_MIN, PRIOR_SCALE_MAX);
		}
		else if (strcmp(key, "lkj_eta") == 0)
		{
			o->glm.lkj_eta = jpos(&val, key);
			check_range(key, &o->glm.lkj_eta, 1, 0, PRIOR_LKJ_MAX);
		}
		else if (strcmp(key, "moments") == 0)
		{
			char	   *m;

			if (val.type != jbvString)
				bad_option(key, "\"exact\" or \"taylor\" is expected.");
			m = pnstrdup(val.val.string.val, val.val.string.len);
			if (strcmp(m, "exact") == 0)
				o->glm.approx = 1;
			else if (strcmp(m, "taylor") == 0)
				o->glm.approx = 2;
			else
				bad_option(key, "\"exact\" or \"taylor\" is expected.");
		}
		else if (strcmp(key, "target_accept") == 0)
		{
			o->nuts.target_accept = jnum(&val, key);
			if (!(o->nuts.target_accept > 0.5 && o->nuts.target_accept < 1))
				bad_option(key, "A number between 0.5 and 1 (exclusive) is expected.");
		}
		else if (strcmp(key, "max_depth") == 0)
		{
			double		t = jnum(&val, key);

			if (t != floor(t) || t < 1 || t > 15)
				bad_option(key, "An integer between 1 and 15 is expected.");
			o->nuts.max_depth = (int) t;
		}
		else if (strcmp(key, "thin") == 0)
		{
			double		t = jnum(&val, key);

			if (t != floor(t) || t < 1 || t > 1000)
				bad_option(key, "An integer between 1 and 1000 is expected.");
			o->thin = (int) t;
		}
		else if (strcmp(key, "laplace_noise") == 0)
		{
			char	   *m;

			if (val.type != jbvString)
				bad_option(key, "\"auto\", \"omega\", \"latent\", \"latent_mixed\" or \"latent_chol\" is expected.");
			m = pnstrdup(val.val.string.val, val.val.string.len);
			if (strcmp(m, "auto") == 0)
				o->lin.laplace_latent = -1;
			else if (strcmp(m, "omega") == 0)
				o->lin.laplace_latent = 0;
			else if (strcmp(m, "latent") == 0)
				o->lin.laplace_latent = 2;
			else if (strcmp(m, "latent_chol") == 0)
				o->lin.laplace_latent = 1;
			else if (strcmp(m, "latent_mixed") == 0)
				o->lin.laplace_latent = DPB_LIN_LATENT_MIXED;
			else
				bad_option(key, "\"auto\", \"omega\", \"latent\", \"latent_mixed\" or \"latent_chol\" is expected.");
		}
		else if (strcmp(key, "sampler") == 0)
		{
			char	   *m;

			if (val.type != jbvString)
				bad_option(key, "\"nuts\" or \"gibbs\" is expected.");
			m = pnstrdup(val.val.string.val, val.val.string.len);
			if (strcmp(m, "nuts") == 0)
				o->sampler = DPB_SAMPLER_NUTS;
			else if (strcmp(m, "gibbs") == 0 && linear)
				o->sampler = DPB_SAMPLER_GIBBS;
			else
				bad_option(key, linear ? "\"nuts\" or \"gibbs\" is expected." :
						   "\"nuts\" is the only sampler of logistic and Poisson regression.");
		}
		else if (strcmp(key, "n_prior") == 0)
		{
			double		b[2];

			if (o->count.n_known)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("option \"n_prior\" applies only when the number of records is unknown"),
						 errdetail("This release holds the exact number of records (neighbours \"replace\").")));
			if (val.type == jbvNumeric)
				bad_option(key, "An array [lo, hi] is expected.");
			jvec(&val, key, b, 2, false);
			if (!(b[0] >= 0 && b[1] > b[0]))
				bad_option(key, "The bounds must satisfy 0 <= lo < hi.");
			o->count.n_lo = b[0];
			o->count.n_hi = b[1];
		}
		else if (strcmp(key, "clamp") == 0)
		{
			if (val.type == jbvString && val.val.string.len == 4 &&
				strncmp(val.val.string.val, "auto", 4) == 0)
				o->lin.clamp = -1;
			else if (val.type != jbvBool)
				bad_option(key, "true, false or \"auto\" is expected.");
			else
				o->lin.clamp = val.val.boolean ? 1 : 0;
		}
		else if (strcmp(key, "nuisance") == 0)
		{
			if (val.type != jbvBool)
				bad_option(key, "true or false is expected.");
			o->nuisance = val.val.boolean ? 1 : 0;
		}
	}
	not_applicable(seen, r, o);
	/* laplace_noise "auto" (the default): the form is chosen here, from
	 * the release and the options as parsed, so that the run and its
	 * warnings' hint see the same form */
	if (o->lin.laplace_latent < 0)
	{
		int			lat = dpb_lin_use_latent(r, o);

		if (lat < 0)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory")));
		o->lin.laplace_latent = lat;
	}
}

/* Shared with the options of the local-DP posteriors (ldp_posterior.c). */
void
dpb_pg_bad_option(const char *key, const char *what)
{
	bad_option(key, what);
}

double
dpb_pg_option_number(JsonbValue *v, const char *key)
{
	return jnum(v, key);
}
