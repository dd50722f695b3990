/*
 * release_json_in.c — parses the JSON form of a release (the text input of
 * dpbayes.release) into a dpb_release and validates it.
 *
 * Only the fields that determine the release are read; the derived ones
 * (entry labels, per-entry noise_sd, block noise scales) are recomputed.
 * The recorded calibration (sensitivity, noise_scale, block sensitivities)
 * must match what the parameters imply, so a hand-edited release that
 * claims less noise than it has, or more privacy, is rejected.
 */
#include "dpbayes_pg.h"

#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "layout.h"
#include "names.h"
#include "betad/betad_release.h"

pg_attribute_noreturn()
static void
bad(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type dpbayes.release"),
			 errdetail("%s", detail)));
	pg_unreachable();
}

static JsonbValue *
field(JsonbContainer *c, const char *key, bool required)
{
	JsonbValue *v = getKeyJsonValueFromContainer(c, key, strlen(key), NULL);

	if (v == NULL && required)
		bad(psprintf("Key \"%s\" is missing.", key));
	if (v != NULL && v->type == jbvNull)
		return NULL;
	return v;
}

static double
num(JsonbValue *v, const char *key)
{
	double		x;
	bool		overflow;

	if (v == NULL || v->type != jbvNumeric)
		bad(psprintf("Key \"%s\" must be a number.", key));
	x = dpb_pg_numeric_float8(v->val.numeric, &overflow);
	if (overflow)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("invalid input syntax for type dpbayes.release"),
				 errdetail("Key \"%s\" is out of the range of double precision.", key)));
	return x;
}

/* An integer in [lo, hi], parsed as an integer (never through a double). */
static int64
integer(JsonbValue *v, const char *key, int64 lo, int64 hi)
{
	int64		x = 0;
	int			st;

	if (v == NULL || v->type != jbvNumeric)
		bad(psprintf("Key \"%s\" must be a number.", key));
	st = dpb_pg_numeric_int64(v->val.numeric, lo, hi, &x);
	if (st < 0)
		bad(psprintf("Key \"%s\" must be an integer.", key));
	if (st == 0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("invalid input syntax for type dpbayes.release"),
				 errdetail("Key \"%s\" must be an integer between " INT64_FORMAT " and " INT64_FORMAT ".",
						   key, lo, hi)));
	return x;
}

/* untrusted text for a message */
static const char *
q(const char *s)
{
	return dpb_pg_quote(s, strlen(s));
}

static char *
str(JsonbValue *v, const char *key)
{
	if (v == NULL || v->type != jbvString)
		bad(psprintf("Key \"%s\" must be a string.", key));
	return pnstrdup(v->val.string.val, v->val.string.len);
}

static bool
boolean(JsonbValue *v, const char *key)
{
	if (v == NULL || v->type != jbvBool)
		bad(psprintf("Key \"%s\" must be true or false.", key));
	return v->val.boolean;
}

static JsonbContainer *
array(JsonbValue *v, const char *key, int *n)
{
	if (v == NULL || v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		bad(psprintf("Key \"%s\" must be an array.", key));
	*n = JsonContainerSize(v->val.binary.data);
	return v->val.binary.data;
}

static void
num_array(JsonbValue *v, const char *key, double *out, int want)
{
	int			n,
				i;
	JsonbContainer *c = array(v, key, &n);

	if (n != want)
		bad(psprintf("Key \"%s\" must have %d elements; it has %d.", key, want, n));
	for (i = 0; i < n; i++)
		out[i] = num(getIthJsonbValueFromContainer(c, i), key);
}

/* Lower-case hex of exactly n bytes. */
static void
hex_bytes(JsonbValue *v, const char *key, unsigned char *out, int n)
{
	char	   *s = str(v, key);
	int			i;

	if ((int) strlen(s) != 2 * n)
		bad(psprintf("Key \"%s\" must be %d hexadecimal digits.", key, 2 * n));
	for (i = 0; i < 2 * n; i++)
	{
		int			c = s[i],
					x = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (x < 0)
			bad(psprintf("Key \"%s\" must be %d lower-case hexadecimal digits.", key, 2 * n));
		if (i % 2 == 0)
			out[i / 2] = (unsigned char) (x << 4);
		else
			out[i / 2] |= (unsigned char) x;
	}
}

/* A signature's text (request id, dataset) as the UTF-8 the release stores. */
static void
sig_text(JsonbValue *v, const char *key, char *out)
{
	char	   *s;

	if (v == NULL || v->type != jbvString || v->val.string.len >= DPB_SIG_TEXT_MAX)
		bad(psprintf("Key \"%s\" of the signature must be a string of 1 to %d bytes.",
					 key, DPB_SIG_TEXT_MAX - 1));
	s = dpb_pg_to_utf8(v->val.string.val, v->val.string.len);
	if (!dpb_sig_text_ok(s, strlen(s)))
		bad(psprintf("Key \"%s\" of the signature must be 1 to %d bytes of text without control characters.",
					 key, DPB_SIG_TEXT_MAX - 1));
	strlcpy(out, s, DPB_SIG_TEXT_MAX);
}

/*
 * The optional "signature" object (release_sig.c); not checked here:
 * dpbayes.verify() does that against the server's keys.  "version" is
 * absent for version 1 (the text form of 0.1.0) and 2 for version 2, which
 * has a "binding"; a betaD release's signature is of version 2 only.
 */
static void
signature_from_json(JsonbValue *v, dpb_release_sig *sig, bool v1_allowed)
{
	JsonbContainer *c;
	JsonbValue *vv;
	char	   *alg;

	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		bad("Key \"signature\" must be an object.");
	c = v->val.binary.data;
	memset(sig, 0, sizeof(*sig));
	alg = str(field(c, "alg", true), "alg");
	if (strcmp(alg, "ed25519") != 0)
		bad("Key \"alg\" of the signature must be \"ed25519\".");
	vv = field(c, "version", false);
	sig->version = vv == NULL ? DPB_SIG_V1 : (int) integer(vv, "version", 0, 65535);
	if (sig->version != DPB_SIG_V2 && (sig->version != DPB_SIG_V1 || !v1_allowed))
		bad(v1_allowed ?
			"Key \"version\" of the signature must be 2, or absent for version 1." :
			"Key \"version\" of the signature must be 2: a betad release is signed with a binding.");
	hex_bytes(field(c, "key_id", true), "key_id", sig->key_id, DPB_SIG_KEYID_BYTES);
	sig_text(field(c, "request_id", true), "request_id", sig->request_id);
	sig_text(field(c, "dataset", true), "dataset", sig->dataset);
	if (sig->version == DPB_SIG_V2)
		hex_bytes(field(c, "binding", true), "binding", sig->binding, DPB_SIG_BINDING_BYTES);
	else if (getKeyJsonValueFromContainer(c, "binding", strlen("binding"), NULL) != NULL)
		bad("Key \"binding\" belongs to a signature of version 2.");
	hex_bytes(field(c, "value", true), "value", sig->value, DPB_SIG_BYTES);
	sig->present = 1;
}

static JsonbContainer *
parse_root(const char *text)
{
	Jsonb	   *jb = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));

	if (!JsonContainerIsObject(&jb->root))
		bad("A release is a JSON object.");
	return &jb->root;
}

/* "features": null or d names (the one rule of names.h) into p */
static void
features_field(JsonbContainer *root, int d, dpb_params *p)
{
	JsonbValue *v = field(root, "features", true);
	dpb_err		err;
	int			j;

	if (v != NULL)
	{
		int			n;
		JsonbContainer *c = array(v, "features", &n);

		if (n != d)
			bad("Key \"features\" must have d elements.");
		for (j = 0; j < n; j++)
		{
			JsonbValue *e = getIthJsonbValueFromContainer(c, j);
			char	   *nm;

			if (e == NULL || e->type != jbvString)
				bad("Key \"features\" must be an array of strings.");
			/* the one rule of names.h, on the UTF-8 the release stores */
			nm = e->val.string.len >= DPB_NAME_LEN ? e->val.string.val :
				dpb_pg_to_utf8(e->val.string.val, e->val.string.len);
			if (dpb_name_check(nm, nm == e->val.string.val ? (size_t) e->val.string.len : strlen(nm),
							   j, &err) != DPB_OK)
				bad(err.detail);
			strlcpy(p->names[j], nm, DPB_NAME_LEN);
		}
		p->has_names = 1;
	}
}

/* "lower"/"upper": both null or both d numbers, into p */
static void
bounds_fields(JsonbContainer *root, int d, dpb_params *p)
{
	JsonbValue *v = field(root, "lower", true);

	if (v != NULL)
	{
		num_array(v, "lower", p->lower, d);
		num_array(field(root, "upper", true), "upper", p->upper, d);
		p->has_bounds = 1;
	}
	else if (field(root, "upper", true) != NULL)
		bad("Keys \"lower\" and \"upper\" must both be null or both be arrays.");
}

static void release_from_root(JsonbContainer *root, dpb_release *r);

void
dpb_pg_release_from_json(const char *text, dpb_release *r)
{
	release_from_root(parse_root(text), r);
}

/* the kind of a release's JSON: "betad" or the default "statistics" */
static bool
root_is_betad(JsonbContainer *root)
{
	JsonbValue *v = field(root, "kind", false);

	if (v == NULL)
		return false;
	if (strcmp(str(v, "kind"), "betad") == 0)
		return true;
	if (strcmp(str(v, "kind"), "statistics") == 0)
		return false;
	bad("Key \"kind\" must be \"statistics\" or \"betad\".");
}

static void betad_from_root(JsonbContainer *root, dpb_betad_release *r);

Datum
dpb_pg_release_in_any(const char *text)
{
	JsonbContainer *root = parse_root(text);

	if (root_is_betad(root))
	{
		dpb_betad_release b;
		Datum		d;

		betad_from_root(root, &b);
		d = dpb_pg_betad_to_datum(&b);
		dpb_betad_release_free(&b);
		return d;
	}
	else
	{
		dpb_release r;

		release_from_root(root, &r);
		return dpb_pg_release_to_datum(&r);
	}
}

static void
release_from_root(JsonbContainer *root, dpb_release *r)
{
	JsonbContainer *blocks;
	JsonbValue *v;
	dpb_layout	L;
	dpb_err		err;
	dpb_status	st;
	int			nb,
				b;
	char	   *s;

	memset(r, 0, sizeof(*r));
	dpb_params_default(&r->p);

	s = str(field(root, "format", true), "format");
	if (strcmp(s, "dpbayes.release") != 0)
		bad("Key \"format\" must be \"dpbayes.release\".");
	r->version = (int) integer(field(root, "version", true), "version", 0, 65535);
	if (!DPB_RELEASE_VERSION_OK(r->version))
		bad(psprintf("Unsupported format version %d.", r->version));
	s = str(field(root, "model", true), "model");
	r->model = dpb_model_from_name(s);
	if (r->model == 0)
		bad(psprintf("Unknown model \"%s\".", q(s)));
	/* a release without the key predates add/remove neighbours */
	v = field(root, "neighbours", false);
	r->p.neighbours = v ? dpb_neighbours_from_name(str(v, "neighbours")) : DPB_NB_REPLACE;
	if (r->p.neighbours == 0)
		bad("Key \"neighbours\" must be \"add_remove\" or \"replace\".");
	v = field(root, "n", true);
	if (r->p.neighbours == DPB_NB_ADD_REMOVE)
	{
		/* N is private: the count block holds its noisy value */
		if (v != NULL)
			bad("Key \"n\" must be null under add_remove neighbours.");
		r->n = 0;
	}
	else
		r->n = integer(v, "n", 0, PG_INT64_MAX);
	r->d = (int) integer(field(root, "d", true), "d", 1, DPB_MAX_D);
	r->p.d = r->d;
	r->p.intercept = boolean(field(root, "intercept", true), "intercept");
	r->insecure = boolean(field(root, "insecure_test_noise", true), "insecure_test_noise");

	features_field(root, r->d, &r->p);
	s = str(field(root, "scaling", true), "scaling");
	r->p.scaling = dpb_scaling_from_name(s);
	if (r->p.scaling == 0)
		bad(psprintf("Unknown scaling \"%s\".", q(s)));
	bounds_fields(root, r->d, &r->p);
	r->p.clip = num(field(root, "clip", true), "clip");
	v = field(root, "y_bound", true);
	r->p.y_bound = v ? num(v, "y_bound") : 0.0;
	s = str(field(root, "mechanism", true), "mechanism");
	r->p.mechanism = dpb_mechanism_from_name(s);
	if (r->p.mechanism == 0)
		bad(psprintf("Unknown mechanism \"%s\".", q(s)));
	r->p.epsilon = num(field(root, "epsilon", true), "epsilon");
	r->p.delta = num(field(root, "delta", true), "delta");
	r->sensitivity = num(field(root, "sensitivity", true), "sensitivity");
	r->noise_scale = num(field(root, "noise_scale", true), "noise_scale");
	s = str(field(root, "noise_weights", true), "noise_weights");
	if (strcmp(s, "given") != 0 && strcmp(s, "auto") != 0)
		bad("Key \"noise_weights\" must be \"given\" or \"auto\".");

	v = field(root, "x_moments", false);
	r->p.x_moments = v ? num(v, "x_moments") : 0.0;
	/* format version 4: the share of the clamped-response count (optional,
	 * 0: none; releases of versions 2 and 3 have none) */
	v = field(root, "y_clamped", false);
	r->p.y_clamped = v ? num(v, "y_clamped") : 0.0;
	if (r->p.y_clamped != 0 && r->version <= DPB_RELEASE_VERSION_NO_YCLAMP)
		bad(psprintf("Key \"y_clamped\" must be 0 in a release of format version %d.", r->version));

	if (dpb_params_model_layout(&r->p, r->model, r->d, &L) != DPB_OK)
		bad("Invalid model or feature count.");
	if (r->p.x_moments > 0 && dpb_layout_add_xmoments(&L) != DPB_OK)
		bad("Key \"x_moments\" is only valid for linear releases with at most 16 features.");
	if (r->p.y_clamped > 0 && dpb_layout_add_yclamp(&L) != DPB_OK)
		bad("Key \"y_clamped\" is only valid for linear releases.");
	blocks = array(field(root, "blocks", true), "blocks", &nb);
	if (nb != L.nblocks)
		bad(psprintf("A %s release has %d blocks; this one has %d.",
					 dpb_model_name(r->model), L.nblocks, nb));
	r->nblocks = nb;
	r->nstats = L.nstats;
	r->stats = palloc(sizeof(double) * L.nstats);
	r->p.nweights = strcmp(s, "given") == 0 ? L.nmodel_blocks : 0;
	for (b = 0; b < nb; b++)
	{
		JsonbValue *bv = getIthJsonbValueFromContainer(blocks, b);
		JsonbContainer *bc;

		if (bv == NULL || bv->type != jbvBinary || !JsonContainerIsObject(bv->val.binary.data))
			bad("Each block must be an object.");
		bc = bv->val.binary.data;
		s = str(field(bc, "kind", true), "kind");
		if (strcmp(s, dpb_block_kind_name(L.kind[b])) != 0)
			bad(psprintf("Block %d must be of kind \"%s\".", b + 1,
						 dpb_block_kind_name(L.kind[b])));
		r->block_weight[b] = num(field(bc, "noise_weight", true), "noise_weight");
		if (b < r->p.nweights)
			r->p.noise_weights[b] = r->block_weight[b];
		r->block_sens[b] = num(field(bc, "sensitivity", true), "sensitivity");
		num_array(field(bc, "values", true), "values", r->stats + L.start[b], L.len[b]);
	}
	v = field(root, "signature", false);
	if (v != NULL)
		signature_from_json(v, &r->sig, true);
	dpb_release_derive(r);
	st = dpb_release_validate(r, &err);
	if (st != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_INVALID_TEXT_REPRESENTATION);
	/* the recorded grids (optional: they follow from the calibration) must
	 * be the derived ones */
	for (b = 0; b < nb; b++)
	{
		JsonbValue *bv = getIthJsonbValueFromContainer(blocks, b);
		JsonbValue *gv = field(bv->val.binary.data, "grid", false);

		if (gv != NULL &&
			num(gv, "grid") != (r->p.mechanism == DPB_MECH_NONE ? 0.0 : ldexp(1.0, r->grid_exp[b])))
			bad(psprintf("Block %d's grid does not match its privacy parameters.", b + 1));
	}
}

/* ---- kind "betad" (docs/release-format.md) ---- */

static void
betad_from_root(JsonbContainer *root, dpb_betad_release *r)
{
	dpb_betad_spec *sp = &r->s;
	JsonbContainer *sampler,
			   *draws,
			   *vars;
	JsonbValue *v;
	char	   *s;
	int			n,
				k,
				nvar;
	dpb_err		err;
	dpb_status	st;
	int64		version;

	memset(r, 0, sizeof(*r));
	if (strcmp(str(field(root, "format", true), "format"), "dpbayes.release") != 0)
		bad("Key \"format\" must be \"dpbayes.release\".");
	version = integer(field(root, "version", true), "version", 0, 65535);
	/* version 1 (0.1.0): replace-one only; version 2: unsigned; version 4:
	 * a network (issue 28) */
	if (version < 1 || version > DPB_BETAD_VERSION_MLP)
		bad("Unsupported betad format version.");
	s = str(field(root, "model", true), "model");
	if (strcmp(s, "mlp_classifier") == 0 || strcmp(s, "mlp_regression") == 0)
	{
		JsonbContainer *net;

		if (version != DPB_BETAD_VERSION_MLP)
			bad("A betad network release has version 4.");
		dpb_betad_spec_default(sp, strcmp(s, "mlp_regression") == 0);
		v = field(root, "network", true);
		if (v == NULL || v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
			bad("Key \"network\" must be an object.");
		net = v->val.binary.data;
		sp->hidden = (int) integer(field(net, "hidden", true), "hidden", 1, DPB_BETAD_MAX_HIDDEN);
		s = str(field(net, "activation", true), "activation");
		if (strcmp(s, "relu") == 0)
			sp->activation = DPB_BETAD_ACT_RELU;
		else if (strcmp(s, "tanh") == 0)
			sp->activation = DPB_BETAD_ACT_TANH;
		else
			bad("Key \"activation\" must be \"relu\" or \"tanh\".");
	}
	else if (strcmp(s, "logistic") != 0 && strcmp(s, "linear") != 0)
		bad(psprintf("Unknown betad model \"%s\".", q(s)));
	else if (version == DPB_BETAD_VERSION_MLP)
		bad("Version 4 of a betad release is a network's.");
	else
		dpb_betad_spec_default(sp, strcmp(s, "linear") == 0);
	s = str(field(root, "neighbours", true), "neighbours");
	if (strcmp(s, "replace") == 0)
	{
		sp->neighbours = DPB_NB_REPLACE;
		r->n = integer(field(root, "n", true), "n", 1, INT64CONST(9007199254740992));
	}
	else if (strcmp(s, "add_remove") == 0 && version >= 2)
	{
		sp->neighbours = DPB_NB_ADD_REMOVE;
		if (getKeyJsonValueFromContainer(root, "n", 1, NULL) != NULL)
			bad("An add_remove betad release records no \"n\".");
		r->n = -1;
	}
	else
		bad("Key \"neighbours\" must be \"add_remove\" or \"replace\" (version 1: \"replace\").");
	sp->epsilon = num(field(root, "epsilon", true), "epsilon");
	sp->delta_eff = num(field(root, "delta", true), "delta");
	sp->beta = num(field(root, "beta", true), "beta");
	sp->eps_draw = num(field(root, "epsilon_per_draw", true), "epsilon_per_draw");
	s = str(field(root, "root", true), "root");
	if (strcmp(s, "smaller") != 0 && strcmp(s, "larger") != 0)
		bad("Key \"root\" must be \"smaller\" or \"larger\".");
	sp->root = strcmp(s, "larger") == 0 ? DPB_BETAD_ROOT_LARGER : DPB_BETAD_ROOT_SMALLER;
	sp->ndraws = (int) integer(field(root, "ndraws", true), "ndraws", 1, DPB_BETAD_MAX_DRAWS);
	sp->delta = num(field(root, "composition_delta", true), "composition_delta");
	sp->fx.d = (int) integer(field(root, "d", true), "d", 1, DPB_MAX_D);
	sp->fx.intercept = boolean(field(root, "intercept", true), "intercept") ? 1 : 0;
	features_field(root, sp->fx.d, &sp->fx);
	bounds_fields(root, sp->fx.d, &sp->fx);
	v = field(root, "prior", true);
	if (v == NULL || v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		bad("Key \"prior\" must be an object.");
	sp->prior_sd = num(field(v->val.binary.data, "coefficient_sd", true), "coefficient_sd");
	if (sp->gaussian)
	{
		double		ab[2];

		num_array(field(v->val.binary.data, "sigma2_inverse_gamma", true),
				  "sigma2_inverse_gamma", ab, 2);
		sp->ig_a = ab[0];
		sp->ig_b = ab[1];
		sp->sigma2_floor = num(field(root, "sigma2_floor", true), "sigma2_floor");
		sp->y_scale = num(field(root, "y_scale", true), "y_scale");
	}
	else if (field(root, "sigma2_floor", true) != NULL || field(root, "y_scale", true) != NULL)
		bad("Keys \"sigma2_floor\" and \"y_scale\" must be null for the logistic model.");
	v = field(root, "sampler", true);
	if (v == NULL || v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		bad("Key \"sampler\" must be an object.");
	sampler = v->val.binary.data;
	s = str(field(sampler, "tier", true), "tier");
	if (strcmp(s, "exact") == 0)
	{
		sp->tier = DPB_BETAD_EXACT;
		r->trials = integer(field(sampler, "trials", true), "trials", 1,
							(int64) DPB_BETAD_EXACT_MAX_WORK);
		sp->delta_prime = num(field(sampler, "delta_prime_target", true), "delta_prime_target");
		r->delta_prime = num(field(root, "delta_prime", true), "delta_prime");
		if (boolean(field(root, "approximate_sampling", true), "approximate_sampling"))
			bad("Key \"approximate_sampling\" must be false for the exact tier.");
	}
	else if (strcmp(s, "approximate") == 0)
	{
		sp->tier = DPB_BETAD_APPROXIMATE;
		sp->sched.chains = (int) integer(field(sampler, "chains", true), "chains", 1, DPB_BETAD_MAX_CHAINS);
		sp->sched.warmup = (int) integer(field(sampler, "warmup", true), "warmup", 10, DPB_BETAD_MAX_ITERS);
		sp->sched.iters = (int) integer(field(sampler, "iterations", true), "iterations", 1, DPB_BETAD_MAX_ITERS);
		r->delta_prime = NAN;
		if (field(root, "delta_prime", true) != NULL ||
			!boolean(field(root, "approximate_sampling", true), "approximate_sampling"))
			bad("An approximate betad release has \"approximate_sampling\": true and \"delta_prime\": null.");
	}
	else
		bad("Key \"tier\" must be \"approximate\" or \"exact\".");
	r->insecure = boolean(field(root, "insecure_test_noise", true), "insecure_test_noise");
	nvar = dpb_betad_nvar(sp);
	vars = array(field(root, "variables", true), "variables", &n);
	if (n != nvar)
		bad("Key \"variables\" must name every released variable.");
	(void) vars;
	/* before the draws are allocated: a bad signature leaks nothing */
	v = field(root, "signature", false);
	if (v != NULL)
	{
		if (version < 3)
			bad("A betad release of version 1 or 2 is unsigned: a signature needs version 3.");
		signature_from_json(v, &r->sig, false);
	}
	draws = array(field(root, "draws", true), "draws", &n);
	if (n != sp->ndraws)
		bad("Key \"draws\" must have ndraws elements.");
	r->draws = malloc(sizeof(double) * nvar * sp->ndraws);
	if (r->draws == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	for (k = 0; k < n; k++)
		num_array(getIthJsonbValueFromContainer(draws, k), "draws", r->draws + (size_t) k * nvar, nvar);
	st = dpb_betad_release_validate(r, &err);
	if (st != DPB_OK)
	{
		dpb_betad_release_free(r);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type dpbayes.release"),
				 errdetail("%s", err.msg)));
	}
}
