/*
 * betad.c — SQL helpers of the betaD-Bayes calibration (issue 10, first
 * part): epsilon <-> beta and epsilon_min, for the docs, for planning a
 * release, and for tests (src/core/betad/betad_calib.h, docs/betad.md).
 */
#include "dpbayes_pg.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "betad/betad_calib.h"
#include "betad/betad_release.h"

/* the model argument: 'logistic' or 'linear' (Gaussian regression) */
static int
betad_gaussian(FunctionCallInfo fcinfo, int arg)
{
	char	   *m;

	if (PG_ARGISNULL(arg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("model must not be null"),
				 errhint("Use 'logistic' or 'linear'.")));
	m = text_to_cstring(PG_GETARG_TEXT_PP(arg));
	if (strcmp(m, "logistic") == 0)
		return 0;
	if (strcmp(m, "linear") == 0)
		return 1;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown betaD model"),
			 errdetail("betaD-Bayes supports the models \"logistic\" and \"linear\" (Gaussian regression)."),
			 errhint("Use 'logistic' or 'linear'.")));
	return 0;
}

/* sigma2_floor and y_scale of the Gaussian model (floor required) */
static void
betad_floor(FunctionCallInfo fcinfo, int gaussian, int farg, int sarg,
			double *floor_, double *scale)
{
	*floor_ = PG_ARGISNULL(farg) ? NAN : PG_GETARG_FLOAT8(farg);
	*scale = PG_ARGISNULL(sarg) ? 1.0 : PG_GETARG_FLOAT8(sarg);
	if (gaussian && PG_ARGISNULL(farg))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the linear model needs sigma2_floor"),
				 errdetail("The privacy of a Gaussian model rests on a public lower bound on the residual variance."),
				 errhint("Pass sigma2_floor => a public floor on the residual variance, in the units of y.")));
	if (!gaussian && !PG_ARGISNULL(farg))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sigma2_floor applies only to the linear model")));
	if (gaussian && !(*floor_ > 0 && isfinite(*floor_) && *scale > 0 && isfinite(*scale)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sigma2_floor and y_scale must be positive and finite")));
}

PG_FUNCTION_INFO_V1(dpbayes_betad_beta);
Datum
dpbayes_betad_beta(PG_FUNCTION_ARGS)
{
	int			gaussian = betad_gaussian(fcinfo, 1);
	double		eps,
				fl,
				sc,
				beta;
	dpb_betad_root root = DPB_BETAD_ROOT_SMALLER;
	dpb_err		err;
	dpb_status	st;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("epsilon must not be null")));
	eps = PG_GETARG_FLOAT8(0);
	betad_floor(fcinfo, gaussian, 2, 3, &fl, &sc);
	if (!PG_ARGISNULL(4))
	{
		char	   *r = text_to_cstring(PG_GETARG_TEXT_PP(4));

		if (strcmp(r, "larger") == 0)
			root = DPB_BETAD_ROOT_LARGER;
		else if (strcmp(r, "smaller") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("root must be \"smaller\" or \"larger\"")));
	}
	st = dpb_betad_beta(gaussian, eps, fl, sc, root, &beta, &err);
	if (st == DPB_ERANGE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", err.msg),
				 errdetail("%s", err.detail),
				 errhint("Use a larger epsilon, a larger public sigma2_floor, or a smaller public y_scale (the model is fitted to y / y_scale).")));
	if (st != DPB_OK)
		dpb_pg_raise(st, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	PG_RETURN_FLOAT8(beta);
}

PG_FUNCTION_INFO_V1(dpbayes_betad_epsilon);
Datum
dpbayes_betad_epsilon(PG_FUNCTION_ARGS)
{
	int			gaussian = betad_gaussian(fcinfo, 1);
	double		beta,
				fl,
				sc,
				eps;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("beta must not be null")));
	beta = PG_GETARG_FLOAT8(0);
	betad_floor(fcinfo, gaussian, 2, 3, &fl, &sc);
	if (!(beta > 1 && isfinite(beta)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("beta must be greater than 1 and finite")));
	eps = dpb_betad_epsilon(gaussian, beta, fl, sc);
	if (!isfinite(eps))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("epsilon is not representable for this beta")));
	PG_RETURN_FLOAT8(eps);
}

PG_FUNCTION_INFO_V1(dpbayes_betad_epsilon_min);
Datum
dpbayes_betad_epsilon_min(PG_FUNCTION_ARGS)
{
	double		fl,
				sc;

	betad_floor(fcinfo, 1, 0, 1, &fl, &sc);
	PG_RETURN_FLOAT8(dpb_betad_epsilon_min(fl, sc));
}

/* ---- the parameters of a betaD release: dpbayes.betad(...) ---- */

/* 23 since 0.2.0 (neighbours, scaling, hidden, activation); a betad_params
 * value stored by 0.1.0 has 19 and was made for replace-one neighbours; one
 * stored before the scaling attribute (issue 25) has 20, before the
 * network's (issue 28) 21 */
#define NATTS_B 23
#define NATTS_B_V3 21
#define NATTS_B_V2 20
#define NATTS_B_V1 19
enum
{
	B_EPSILON, B_MODEL, B_PRIOR_SD, B_SIGMA2_FLOOR, B_Y_SCALE, B_INTERCEPT, B_BETA,
	B_LOWER, B_UPPER, B_FEATURES, B_DRAWS, B_DELTA, B_TIER, B_DELTA_PRIME, B_CHAINS,
	B_WARMUP, B_ITERATIONS, B_ROOT, B_SIGMA2_PRIOR, B_NEIGHBOURS, B_SCALING, B_HIDDEN,
	B_ACTIVATION
};

static const char *const battnames[NATTS_B] = {
	"epsilon", "model", "prior_sd", "sigma2_floor", "y_scale", "intercept", "beta",
	"lower", "upper", "features", "draws", "delta", "tier", "delta_prime", "chains",
	"warmup", "iterations", "root", "sigma2_prior", "neighbours", "scaling", "hidden",
	"activation"
};

#define NATTS_B_OK(n) ((n) == NATTS_B || (n) == NATTS_B_V3 || (n) == NATTS_B_V2 || \
					   (n) == NATTS_B_V1)

static const char *
betad_text(const Datum *v, const bool *isnull, int a)
{
	return isnull[a] ? NULL : TextDatumGetCString(v[a]);
}

/* Raises a core failure of the parameters (epsilon_min with its hint). */
static void
betad_spec_raise(dpb_status st, const dpb_err *err)
{
	if (st == DPB_ERANGE && strstr(err->msg, "smallest epsilon") != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", err->msg),
				 errdetail("%s", err->detail),
				 errhint("Use a larger epsilon, a larger public sigma2_floor, or a smaller public y_scale (the model is fitted to y / y_scale).")));
	dpb_pg_raise(st, err, ERRCODE_INVALID_PARAMETER_VALUE);
}

/* Fills s from the NATTS_B values (NULL = not given; a NULL neighbours
 * means absent_nb) and checks it. */
static void
betad_fill(const Datum *v, const bool *isnull, dpb_neighbours absent_nb, dpb_betad_spec *s)
{
	const char *m = betad_text(v, isnull, B_MODEL),
			   *t;
	int			gaussian,
				network = 0,
				nlo = 0,
				nup = 0;
	dpb_err		err;
	dpb_status	st;

	if (m == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("model must not be null"),
				 errhint("Use 'logistic' or 'linear'.")));
	if (strcmp(m, "logistic") == 0)
		gaussian = 0;
	else if (strcmp(m, "linear") == 0)
		gaussian = 1;
	else if (strcmp(m, "mlp_classifier") == 0 || strcmp(m, "mlp_regression") == 0)
	{
		gaussian = strcmp(m, "mlp_regression") == 0;
		network = 1;
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown betaD model"),
				 errdetail("betaD-Bayes supports the models \"logistic\" and \"linear\" (Gaussian regression), and the networks \"mlp_classifier\" and \"mlp_regression\"."),
				 errhint("Use 'logistic' or 'linear'.")));
	dpb_betad_spec_default(s, gaussian);
	if (network)
	{
		/* the paper's network: 10 ReLU units, N(0, 1) on every weight, and
		 * the networks' default schedule (docs/betad.md, "Neural networks") */
		s->hidden = 10;
		s->activation = DPB_BETAD_ACT_RELU;
		s->prior_sd = 1.0;
		dpb_betad_mlp_schedule_default(&s->sched);
	}
	if (!network && (!isnull[B_HIDDEN] || !isnull[B_ACTIVATION]))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("hidden and activation apply only to the network models"),
				 errhint("Use model => 'mlp_classifier' or 'mlp_regression' for a network.")));
	if (network && !isnull[B_HIDDEN])
	{
		int32		hu = DatumGetInt32(v[B_HIDDEN]);

		if (hu < 1 || hu > DPB_BETAD_MAX_HIDDEN)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("hidden must be between 1 and %d", DPB_BETAD_MAX_HIDDEN)));
		s->hidden = hu;
	}
	if (network && (t = betad_text(v, isnull, B_ACTIVATION)) != NULL)
	{
		if (strcmp(t, "tanh") == 0)
			s->activation = DPB_BETAD_ACT_TANH;
		else if (strcmp(t, "relu") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("activation must be \"relu\" or \"tanh\"")));
	}
	if (isnull[B_EPSILON] && isnull[B_BETA])
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("epsilon must not be null"),
				 errhint("Give epsilon (or beta, from which epsilon follows).")));
	if (!isnull[B_EPSILON])
		s->epsilon = DatumGetFloat8(v[B_EPSILON]);
	if (!isnull[B_BETA])
		s->beta = DatumGetFloat8(v[B_BETA]);
	if (!isnull[B_PRIOR_SD])
		s->prior_sd = DatumGetFloat8(v[B_PRIOR_SD]);
	if (gaussian && isnull[B_SIGMA2_FLOOR])
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the %s model needs sigma2_floor", network ? "mlp_regression" : "linear"),
				 errdetail("The privacy of a Gaussian model rests on a public lower bound on the residual variance."),
				 errhint("Pass sigma2_floor => a public floor on the residual variance, in the units of y.")));
	if (!gaussian && (!isnull[B_SIGMA2_FLOOR] || !isnull[B_Y_SCALE] || !isnull[B_SIGMA2_PRIOR]))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 network ? errmsg("sigma2_floor, y_scale and sigma2_prior apply only to the regression models") :
				 errmsg("sigma2_floor, y_scale and sigma2_prior apply only to the linear model")));
	if (gaussian)
	{
		s->sigma2_floor = DatumGetFloat8(v[B_SIGMA2_FLOOR]);
		if (!isnull[B_Y_SCALE])
			s->y_scale = DatumGetFloat8(v[B_Y_SCALE]);
		if (!isnull[B_SIGMA2_PRIOR])
		{
			double		ab[2];

			if (dpb_pg_float8_array(v[B_SIGMA2_PRIOR], "sigma2_prior", ab, 2) != 2)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("sigma2_prior must have two elements"),
						 errdetail("sigma2 / y_scale^2 has an InverseGamma(a, b) prior above the floor: give {a, b}.")));
			s->ig_a = ab[0];
			s->ig_b = ab[1];
		}
	}
	if (!isnull[B_INTERCEPT])
		s->fx.intercept = DatumGetBool(v[B_INTERCEPT]) ? 1 : 0;
	if (!isnull[B_LOWER])
		nlo = dpb_pg_float8_array(v[B_LOWER], "lower", s->fx.lower, DPB_MAX_D);
	if (!isnull[B_UPPER])
		nup = dpb_pg_float8_array(v[B_UPPER], "upper", s->fx.upper, DPB_MAX_D);
	if (isnull[B_LOWER] != isnull[B_UPPER] || nlo != nup || (!isnull[B_LOWER] && nlo == 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("lower and upper must be given together, non-empty and of the same length"),
				 errdetail("They are public constants used only to scale the features (never to clip them).")));
	if ((t = betad_text(v, isnull, B_SCALING)) != NULL)
	{
		if (strcmp(t, "none") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("scaling must be \"none\" or left out"),
					 errdetail("betaD scales each feature by its public bounds lower and upper, or, with scaling => 'none', uses the features as given."),
					 errhint("Pass lower and upper, or scaling => 'none' for features already on a unit scale.")));
		if (nlo > 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("scaling \"none\" cannot be combined with lower and upper"),
					 errdetail("scaling => 'none' uses the features as given, without scales."),
					 errhint("Leave out scaling to scale by the bounds.")));
		s->fx.unscaled = 1;
	}
	if (nlo > 0)
	{
		s->fx.has_bounds = 1;
		s->fx.d = nlo;
	}
	if (!isnull[B_FEATURES])
	{
		int			nn = dpb_pg_name_array(v[B_FEATURES], &s->fx);

		if (nn == 0 || (s->fx.d != 0 && nn != s->fx.d))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("features must be non-empty and as long as the bounds")));
		s->fx.has_names = 1;
		s->fx.d = nn;
	}
	if (!isnull[B_DRAWS])
		s->ndraws = DatumGetInt32(v[B_DRAWS]);
	if (!isnull[B_DELTA])
		s->delta = DatumGetFloat8(v[B_DELTA]);
	if ((t = betad_text(v, isnull, B_TIER)) != NULL)
	{
		if (strcmp(t, "exact") == 0)
			s->tier = DPB_BETAD_EXACT;
		else if (strcmp(t, "approximate") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("tier must be \"approximate\" or \"exact\"")));
	}
	if (!isnull[B_DELTA_PRIME])
	{
		if (s->tier != DPB_BETAD_EXACT)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("delta_prime applies only to the exact tier"),
					 errdetail("The approximate tier's delta' is not certified (docs/betad.md).")));
		s->delta_prime = DatumGetFloat8(v[B_DELTA_PRIME]);
	}
	else if (s->tier == DPB_BETAD_EXACT)
		s->delta_prime = 1e-9;
	if (!isnull[B_CHAINS])
		s->sched.chains = DatumGetInt32(v[B_CHAINS]);
	if (!isnull[B_WARMUP])
		s->sched.warmup = DatumGetInt32(v[B_WARMUP]);
	if (!isnull[B_ITERATIONS])
		s->sched.iters = DatumGetInt32(v[B_ITERATIONS]);
	if ((t = betad_text(v, isnull, B_ROOT)) != NULL)
	{
		if (strcmp(t, "larger") == 0)
			s->root = DPB_BETAD_ROOT_LARGER;
		else if (strcmp(t, "smaller") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("root must be \"smaller\" or \"larger\"")));
	}
	s->neighbours = absent_nb;
	if ((t = betad_text(v, isnull, B_NEIGHBOURS)) != NULL)
	{
		if (strcmp(t, "replace") == 0)
			s->neighbours = DPB_NB_REPLACE;
		else if (strcmp(t, "add_remove") == 0)
			s->neighbours = DPB_NB_ADD_REMOVE;
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("neighbours must be \"add_remove\" or \"replace\""),
					 errhint("Use 'replace' only when the number of records is public: it is released.")));
	}
	st = dpb_betad_spec_check(s, &err);
	if (st != DPB_OK)
		betad_spec_raise(st, &err);
}

PG_FUNCTION_INFO_V1(dpbayes_betad);
Datum
dpbayes_betad(PG_FUNCTION_ARGS)
{
	Datum		v[NATTS_B];
	bool		isnull[NATTS_B];
	dpb_betad_spec s;
	TupleDesc	tupdesc;
	int			i,
				nargs = PG_NARGS();

	/*
	 * 19 arguments: the 0.1.0 SQL definition, still installed between a new
	 * library and ALTER EXTENSION dpbayes UPDATE; its releases were
	 * replace-one
	 */
	if (!NATTS_B_OK(nargs))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_FUNCTION_DEFINITION),
				 errmsg("dpbayes.betad takes %d arguments", NATTS_B)));
	for (i = 0; i < NATTS_B; i++)
	{
		isnull[i] = i >= nargs || PG_ARGISNULL(i);
		v[i] = isnull[i] ? (Datum) 0 : PG_GETARG_DATUM(i);
	}
	betad_fill(v, isnull, nargs == NATTS_B_V1 ? DPB_NB_REPLACE : DPB_NB_ADD_REMOVE, &s);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("function returning record called in context that cannot accept type record")));
	if (!NATTS_B_OK(tupdesc->natts))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("dpbayes.betad_params has %d attributes, expected %d", tupdesc->natts, NATTS_B)));
	tupdesc = BlessTupleDesc(tupdesc);
	/* store what was derived and the defaults applied: the value is
	 * explicit, and epsilon and beta are checked against each other */
	v[B_EPSILON] = Float8GetDatum(s.epsilon);
	v[B_BETA] = Float8GetDatum(s.beta);
	v[B_PRIOR_SD] = Float8GetDatum(s.prior_sd);
	v[B_INTERCEPT] = BoolGetDatum(s.fx.intercept != 0);
	v[B_DRAWS] = Int32GetDatum(s.ndraws);
	v[B_TIER] = CStringGetTextDatum(s.tier == DPB_BETAD_EXACT ? "exact" : "approximate");
	v[B_CHAINS] = Int32GetDatum(s.sched.chains);
	v[B_WARMUP] = Int32GetDatum(s.sched.warmup);
	v[B_ITERATIONS] = Int32GetDatum(s.sched.iters);
	v[B_ROOT] = CStringGetTextDatum(s.root == DPB_BETAD_ROOT_LARGER ? "larger" : "smaller");
	v[B_NEIGHBOURS] = CStringGetTextDatum(s.neighbours == DPB_NB_REPLACE ? "replace" : "add_remove");
	isnull[B_EPSILON] = isnull[B_BETA] = isnull[B_PRIOR_SD] = isnull[B_INTERCEPT] = false;
	isnull[B_DRAWS] = isnull[B_TIER] = isnull[B_CHAINS] = isnull[B_WARMUP] = false;
	isnull[B_ITERATIONS] = isnull[B_ROOT] = isnull[B_NEIGHBOURS] = false;
	isnull[B_HIDDEN] = isnull[B_ACTIVATION] = s.hidden == 0;
	v[B_HIDDEN] = Int32GetDatum(s.hidden);
	v[B_ACTIVATION] = s.hidden == 0 ? (Datum) 0 :
		CStringGetTextDatum(s.activation == DPB_BETAD_ACT_TANH ? "tanh" : "relu");
	isnull[B_SCALING] = !s.fx.unscaled;
	v[B_SCALING] = s.fx.unscaled ? CStringGetTextDatum("none") : (Datum) 0;
	isnull[B_DELTA] = s.ndraws == 1;
	v[B_DELTA] = Float8GetDatum(s.delta);
	isnull[B_DELTA_PRIME] = s.tier != DPB_BETAD_EXACT;
	v[B_DELTA_PRIME] = Float8GetDatum(s.delta_prime);
	if (s.gaussian)
	{
		Datum		ab[2] = {Float8GetDatum(s.ig_a), Float8GetDatum(s.ig_b)};

		v[B_Y_SCALE] = Float8GetDatum(s.y_scale);
		isnull[B_Y_SCALE] = false;
		v[B_SIGMA2_PRIOR] = PointerGetDatum(construct_array(ab, 2, FLOAT8OID, 8,
															FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
		isnull[B_SIGMA2_PRIOR] = false;
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, v, isnull)));
}

void
dpb_pg_betad_from_datum(Datum composite, dpb_betad_spec *s)
{
	HeapTupleHeader th = DatumGetHeapTupleHeader(composite);
	Datum		v[NATTS_B];
	bool		isnull[NATTS_B];
	int			i,
				natts = HeapTupleHeaderGetNatts(th);

	if (!NATTS_B_OK(natts))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("betaD parameters have %d attributes, expected %d", natts, NATTS_B)));
	for (i = 0; i < NATTS_B; i++)
	{
		/* the 0.1.0 type has no neighbours attribute at all */
		isnull[i] = true;
		v[i] = i < natts ? GetAttributeByName(th, battnames[i], &isnull[i]) : (Datum) 0;
	}
	/* a value stored by 0.1.0 (no neighbours) was made for replace-one */
	betad_fill(v, isnull, natts == NATTS_B_V1 ? DPB_NB_REPLACE : DPB_NB_ADD_REMOVE, s);
}

/*
 * dpbayes.betad_charge_of(p betad_params, OUT mechanism, OUT sensitivity,
 * OUT noise_scale, OUT rho, OUT epsilon, OUT delta, OUT neighbours): what the
 * governed ledger charges for a betaD release under p, from the parameters
 * alone (docs/governance.md §2): mechanism "betad", sensitivity = the
 * epsilon of one exact draw (eps1, the range of the loss), noise_scale =
 * beta, rho = k eps1^2 / 8 (k draws of an eps1-bounded-range mechanism,
 * Cesar & Rogers 2021), epsilon and delta = the release's total (the
 * smaller of k eps1 and the zCDP conversion at delta), neighbours.
 */
PG_FUNCTION_INFO_V1(dpbayes_betad_charge_of);
Datum
dpbayes_betad_charge_of(PG_FUNCTION_ARGS)
{
	dpb_betad_spec s;
	TupleDesc	td;
	Datum		v[7];
	bool		nulls[7] = {0};

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the betaD parameters must not be null")));
	td = dpb_pg_result_desc(fcinfo);
	dpb_pg_betad_from_datum(PG_GETARG_DATUM(0), &s);
	/* refused here, before the governed procedure charges anything */
	dpb_pg_betad_require_scales(&s);
	v[0] = CStringGetTextDatum("betad");
	v[1] = Float8GetDatum(s.eps_draw);
	v[2] = Float8GetDatum(s.beta);
	v[3] = Float8GetDatum((double) s.ndraws * s.eps_draw * s.eps_draw / 8.0);
	v[4] = Float8GetDatum(s.epsilon);
	v[5] = Float8GetDatum(s.delta_eff);
	v[6] = CStringGetTextDatum(dpb_neighbours_name(s.neighbours));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(td, v, nulls)));
}

void
dpb_pg_betad_require_scales(const dpb_betad_spec *s)
{
	if (s->fx.has_bounds || s->fx.unscaled)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("a betaD release needs public scales of its features"),
			 errdetail("The prior N(0, prior_sd^2) is on the coefficients of the scaled features: without "
					   "lower and upper the features are used as given, so the prior, and the sampler's "
					   "step sizes, depend on the features' units."),
			 errhint("Pass lower => ARRAY[...] and upper => ARRAY[...] to dpbayes.betad(): public bounds "
					 "used only to scale the features, never to clip them. For features already on a unit "
					 "scale, pass scaling => 'none'.")));
}

/*
 * dpbayes.betad_predict(release, x float8[]): the output of a betaD
 * release for one row of its features in their original units (issue 28):
 * the class probability (logistic, mlp_classifier) or the mean of y in its
 * units (linear, mlp_regression); with k draws, the mean over them.  Pure
 * post-processing of the released draws.
 */
PG_FUNCTION_INFO_V1(dpbayes_betad_predict);
Datum
dpbayes_betad_predict(PG_FUNCTION_ARGS)
{
	dpb_betad_release r;
	double		x[DPB_MAX_D],
				sum = 0;
	int			n,
				k;

	if (!dpb_pg_datum_is_betad(PG_GETARG_DATUM(0)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("betad_predict needs a release of kind betad"),
				 errdetail("The release is a release of statistics, not a draw of a model's parameters."),
				 errhint("Use a release of dpbayes.betad_logistic, betad_linear, betad_mlp_classifier or betad_mlp_regression.")));
	dpb_pg_betad_release_from_datum(PG_GETARG_DATUM(0), &r);
	n = dpb_pg_float8_array(PG_GETARG_DATUM(1), "x", x, DPB_MAX_D);
	if (n != r.s.fx.d)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("x must have one value per feature of the release"),
				 errdetail("The release has %d features; x has %d values.", r.s.fx.d, n),
				 errhint("Give the features in the release's order, in their original units.")));
	for (k = 0; k < r.s.ndraws; k++)
		sum += dpb_betad_predict(&r, k, x);
	sum /= r.s.ndraws;
	if (!isfinite(sum))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the prediction is not finite"),
				 errhint("Give features of the size the release was made for.")));
	PG_RETURN_FLOAT8(sum);
}
