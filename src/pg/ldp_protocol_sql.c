/*
 * ldp_protocol_sql.c — the local-DP protocol in SQL (docs/ldp.md "The
 * server"): the constructor dpbayes.ldp_protocol(...), its canonical text,
 * id and calibration, and the ingest check dpbayes.ldp_check(report,
 * protocol).  Every function parses the protocol with the client's code
 * (src/core/ldp), so client and server agree byte for byte.
 */
#include "ldp_pg.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#define PLAUSIBLE_SD 12.0		/* Gaussian: 2 Phi(-12) = 3.6e-33 per entry */
#define PLAUSIBLE_LAPLACE 40.0	/* Laplace: e^-40 = 4.2e-18 per entry */

static void
raise_protocol(dpb_status st, const dpb_err *err)
{
	dpb_pg_raise(st == DPB_ENOMEM ? st : DPB_EINVAL, err, ERRCODE_INVALID_PARAMETER_VALUE);
}

/* the plausible range of every report entry (post-processing of public
 * quantities only) */
static void
set_ranges(LdpProto *lp)
{
	const dpb_ldp_protocol *p = &lp->p;
	const dpb_ldp_calib *c = &lp->c;
	int			k;

	switch (p->mech)
	{
		case DPB_LDP_RR:
		case DPB_LDP_OUE:
			for (k = 0; k < lp->n; k++)
			{
				lp->lo[k] = 0;
				lp->hi[k] = 1;
			}
			break;
		case DPB_LDP_SCALAR_LAPLACE:
		case DPB_LDP_SCALAR_GAUSSIAN:
			{
				double		w = p->mech == DPB_LDP_SCALAR_LAPLACE ?
					PLAUSIBLE_LAPLACE * ldexp((double) c->lap_t, c->grid_exp) :
					PLAUSIBLE_SD * ldexp(sqrt((double) c->gauss_sigma2), c->grid_exp);

				lp->gexp[0] = c->grid_exp;
				lp->lo[0] = p->lower - w;
				lp->hi[0] = p->upper + w;
				break;
			}
		case DPB_LDP_LINEAR_INPUT:
		case DPB_LDP_LOGISTIC_INPUT:
			for (k = 0; k <= p->d; k++)
			{
				double		b = k < p->d ? p->clip : p->y_bound,
							sd = c->in_sd[k < p->d ? 0 : 1];

				lp->gexp[k] = c->in_gexp[k < p->d ? 0 : 1];
				lp->lo[k] = -b - PLAUSIBLE_SD * sd;
				lp->hi[k] = b + PLAUSIBLE_SD * sd;
				if (k == p->d && p->mech == DPB_LDP_LOGISTIC_INPUT)
				{
					lp->gexp[k] = 0;
					lp->lo[k] = 0;
					lp->hi[k] = 1;
				}
			}
			break;
		default:
			{
				/*
				 * ss_*: one record's entry k lies within its block's L2
				 * sensitivity of the value at a centre record (x = 0),
				 * which itself is at most the block's range: |t_k| <= 2
				 * block_sens, plus the noise.
				 */
				double	   *sd = palloc(sizeof(double) * lp->n);
				dpb_entry	e;

				dpb_release_noise_sd(&c->rel, sd);
				for (k = 0; k < lp->n; k++)
				{
					double		w;

					dpb_layout_entry(&c->L, k, &e);
					lp->gexp[k] = c->rel.grid_exp[e.block];
					w = 2 * c->rel.block_sens[e.block] + PLAUSIBLE_SD * sd[k];
					lp->lo[k] = -w;
					lp->hi[k] = w;
				}
				pfree(sd);
			}
	}
}

char *
dpb_pg_ldp_raw_text(const struct varlena *raw, LdpArgKind kind)
{
	if (kind == LDP_ARG_JSONB)
	{
		const Jsonb *jb = (const Jsonb *) raw;

		return JsonbToCString(NULL, (JsonbContainer *) &jb->root, VARSIZE(jb));
	}
	return text_to_cstring((const text *) raw);
}

void
dpb_pg_ldp_parse(const struct varlena *raw, LdpArgKind kind, LdpProto *lp, MemoryContext cxt)
{
	char	   *txt = dpb_pg_ldp_raw_text(raw, kind);
	dpb_err		err;
	dpb_status	st;
	MemoryContext old;

	memset(&err, 0, sizeof(err));
	if ((st = dpb_ldp_protocol_parse(txt, &lp->p, &err)) != DPB_OK ||
		(st = dpb_ldp_calibrate(&lp->p, &lp->c, &err)) != DPB_OK)
		raise_protocol(st, &err);
	pfree(txt);
	lp->kind = kind;
	lp->n = lp->c.report_len;
	old = MemoryContextSwitchTo(cxt);
	lp->gexp = palloc0(sizeof(int) * lp->n);
	lp->lo = palloc(sizeof(double) * lp->n);
	lp->hi = palloc(sizeof(double) * lp->n);
	set_ranges(lp);
	MemoryContextSwitchTo(old);
}

LdpProto *
dpb_pg_ldp_alloc(MemoryContext cxt)
{
	return (LdpProto *) TYPEALIGN(16, MemoryContextAllocZero(cxt, sizeof(LdpProto) + 16));
}

LdpProto *
dpb_pg_ldp_cached(LdpProto **cache, const struct varlena *raw, LdpArgKind kind,
				  MemoryContext cxt)
{
	LdpProto   *lp = *cache;
	Size		len = VARSIZE(raw);

	if (lp != NULL && lp->kind == kind && lp->len == len && memcmp(lp->bytes, raw, len) == 0)
		return lp;
	lp = dpb_pg_ldp_alloc(cxt);
	dpb_pg_ldp_parse(raw, kind, lp, cxt);
	lp->bytes = MemoryContextAlloc(cxt, len);
	memcpy(lp->bytes, raw, len);
	lp->len = len;
	*cache = lp;
	return lp;
}

LdpProto *
dpb_pg_ldp_fn_protocol(FunctionCallInfo fcinfo, int argno, LdpArgKind kind)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the protocol must not be null")));
	return dpb_pg_ldp_cached((LdpProto **) &fcinfo->flinfo->fn_extra,
							 PG_DETOAST_DATUM(PG_GETARG_DATUM(argno)), kind,
							 fcinfo->flinfo->fn_mcxt);
}

void
dpb_pg_ldp_check_id(FunctionCallInfo fcinfo, int argno, const LdpProto *lp, int64 ordinal,
					bool *insecure)
{
	text	   *t;
	const char *id;
	int			len;

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the protocol id of report " INT64_FORMAT " is null", ordinal),
				 errdetail("Every report carries the id of the protocol it was randomized under."),
				 errhint("Filter reports without an id explicitly (WHERE protocol_id IS NOT NULL).")));
	t = PG_GETARG_TEXT_PP(argno);
	id = VARDATA_ANY(t);
	len = VARSIZE_ANY_EXHDR(t);
	if (len >= 14 && memcmp(id, "insecure_test:", 14) == 0)
	{
		*insecure = true;
		id += 14;
		len -= 14;
	}
	if (len != DPB_LDP_ID_LEN || memcmp(id, lp->p.id, DPB_LDP_ID_LEN) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("report " INT64_FORMAT " was made under another protocol", ordinal),
				 errdetail("Its protocol id differs from the id of the given protocol: it was randomized under other parameters (another epsilon, other bounds or another mechanism), or its id was altered. Reports of different protocols cannot be analysed as one."),
				 errhint("Select the reports of one protocol (WHERE protocol_id = dpbayes.ldp_protocol_id(protocol)).")));
}

int
dpb_pg_ldp_report_ok(const LdpProto *lp, const double *z)
{
	int			k;

	/*
	 * Within the range (NaN fails too) and an integer multiple of 2^gexp[k]
	 * below 2^53 units: the core's dpb_ldp_report_on_grid, without its
	 * per-call setup (0/1 for rr, oue and the logistic_input label, whose
	 * grid is 1 and range [0, 1]).  Equivalent to it for values in range
	 * (the core also accepts exactly 2^53 units, a clamp no plausible
	 * report reaches).
	 */
	for (k = 0; k < lp->n; k++)
	{
		double		q;

		if (!(z[k] >= lp->lo[k] && z[k] <= lp->hi[k]))
			return 0;
		q = ldexp(z[k], -lp->gexp[k]);
		if (q != floor(q) || fabs(q) >= 0x1p53)
			return 0;
	}
	return 1;
}

double *
dpb_pg_ldp_report_values(ArrayType *a, const LdpProto *lp, const char **why)
{
	if (ARR_ELEMTYPE(a) != FLOAT8OID)
	{
		*why = "The report must be a double precision array.";
		return NULL;
	}
	if (ARR_NDIM(a) != 1 || ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a)) != lp->n)
	{
		*why = "The report must be a one-dimensional array of the protocol's report_len values.";
		return NULL;
	}
	if (ARR_HASNULL(a) && array_contains_nulls(a))
	{
		*why = "The report must not contain NULL values.";
		return NULL;
	}
	return (double *) ARR_DATA_PTR(a);
}

/* ---- SQL functions ---- */

static text *
buf_text(dpb_buf *b, dpb_status st)
{
	text	   *t;

	if (st != DPB_OK || b->oom)
	{
		dpb_buf_free(b);
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	}
	t = cstring_to_text(b->data);
	dpb_buf_free(b);
	return t;
}

static Datum
text_jsonb(text *t)
{
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(text_to_cstring(t)));
}

/* a JSON number from a double argument (finite) */
static void
put_num(StringInfo s, const char *key, double v)
{
	char		num[32];

	if (!isfinite(v))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be finite", key)));
	dpb_ldp_format_double(v, num);
	appendStringInfo(s, ",\"%s\":%s", key, num);
}

static void
put_arr(StringInfo s, const char *key, ArrayType *a, bool scalar)
{
	Datum	   *el;
	bool	   *nulls;
	int			n,
				i;

	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a one-dimensional array", key)));
	deconstruct_array(a, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &el, &nulls, &n);
	if (n > DPB_MAX_D)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s has too many elements", key)));
	if (scalar && n != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must have one element for a scalar mechanism", key)));
	for (i = 0; i < n; i++)
		if (nulls[i] || !isfinite(DatumGetFloat8(el[i])))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s must not contain NULL or non-finite values", key)));
	if (scalar)
	{
		put_num(s, key, DatumGetFloat8(el[0]));
		return;
	}
	appendStringInfo(s, ",\"%s\":[", key);
	for (i = 0; i < n; i++)
	{
		char		num[32];

		dpb_ldp_format_double(DatumGetFloat8(el[i]), num);
		appendStringInfo(s, "%s%s", i ? "," : "", num);
	}
	appendStringInfoChar(s, ']');
}

/*
 * dpbayes.ldp_protocol(mechanism, epsilon, delta, d, categories, lower,
 * upper, clip, y_bound, intercept, noise_weights, y_noise_ratio,
 * label_share[, scaling]): the published protocol (canonical keys plus "id"), as text
 * (0.2.0: byte for byte the text to publish) or jsonb (0.1.0).  NULL
 * arguments are absent keys; the core's parser validates.
 */
static Datum
ldp_protocol_impl(FunctionCallInfo fcinfo, LdpArgKind kind)
{
	StringInfoData s;
	char	   *mech;
	const char *c;
	bool		scalar;
	dpb_ldp_protocol p;
	dpb_err		err;
	dpb_buf		b;
	dpb_status	st;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("mechanism and epsilon must not be null")));
	mech = text_to_cstring(PG_GETARG_TEXT_PP(0));
	for (c = mech; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || *c == '_'))
			break;
	if (*c != '\0' || strlen(mech) > 32)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown local-DP mechanism"),
				 errhint("Use rr, oue, scalar_laplace, scalar_gaussian, ss_linear, ss_logistic, ss_poisson, linear_input or logistic_input.")));
	scalar = strncmp(mech, "scalar_", 7) == 0;
	initStringInfo(&s);
	appendStringInfo(&s, "{\"mechanism\":\"%s\"", mech);
	put_num(&s, "epsilon", PG_GETARG_FLOAT8(1));
	if (!PG_ARGISNULL(2))
		put_num(&s, "delta", PG_GETARG_FLOAT8(2));
	if (!PG_ARGISNULL(3))
		appendStringInfo(&s, ",\"d\":%d", PG_GETARG_INT32(3));
	if (!PG_ARGISNULL(4))
		appendStringInfo(&s, ",\"categories\":%d", PG_GETARG_INT32(4));
	if (!PG_ARGISNULL(5))
		put_arr(&s, "lower", PG_GETARG_ARRAYTYPE_P(5), scalar);
	if (!PG_ARGISNULL(6))
		put_arr(&s, "upper", PG_GETARG_ARRAYTYPE_P(6), scalar);
	if (!PG_ARGISNULL(7))
		put_num(&s, "clip", PG_GETARG_FLOAT8(7));
	if (!PG_ARGISNULL(8))
		put_num(&s, "y_bound", PG_GETARG_FLOAT8(8));
	if (!PG_ARGISNULL(9))
		appendStringInfo(&s, ",\"intercept\":%s", PG_GETARG_BOOL(9) ? "true" : "false");
	if (!PG_ARGISNULL(10))
		put_arr(&s, "noise_weights", PG_GETARG_ARRAYTYPE_P(10), false);
	if (!PG_ARGISNULL(11))
		put_num(&s, "y_noise_ratio", PG_GETARG_FLOAT8(11));
	if (!PG_ARGISNULL(12))
		put_num(&s, "label_share", PG_GETARG_FLOAT8(12));
	/* scaling: 0.2.0's form only (0.1.0's jsonb form has 13 arguments) */
	if (PG_NARGS() > 13 && !PG_ARGISNULL(13))
	{
		char	   *sc = text_to_cstring(PG_GETARG_TEXT_PP(13));

		if (strcmp(sc, "none") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("scaling must be \"none\" or left out"),
					 errdetail("A summed-statistics protocol scales each feature by its public bounds lower and upper, or, with scaling => 'none', uses the features as given."),
					 errhint("Pass lower and upper, or scaling => 'none' for features already scaled to the ball of radius clip.")));
		appendStringInfoString(&s, ",\"scaling\":\"none\"");
	}
	appendStringInfoChar(&s, '}');
	memset(&err, 0, sizeof(err));
	if ((st = dpb_ldp_protocol_parse(s.data, &p, &err)) != DPB_OK)
		raise_protocol(st, &err);
	dpb_buf_init(&b);
	st = dpb_ldp_protocol_to_json(&p, &b);
	if (kind == LDP_ARG_TEXT)
		PG_RETURN_TEXT_P(buf_text(&b, st));
	PG_RETURN_DATUM(text_jsonb(buf_text(&b, st)));
}

/* dpbayes.ldp_protocol_text(jsonb): the canonical text with its id, byte for
 * byte what `dpbayes-ldp protocol` prints (the text to publish) */
static Datum
ldp_protocol_text_impl(FunctionCallInfo fcinfo, LdpArgKind kind)
{
	LdpProto   *lp = dpb_pg_ldp_fn_protocol(fcinfo, 0, kind);
	dpb_buf		b;

	dpb_buf_init(&b);
	PG_RETURN_TEXT_P(buf_text(&b, dpb_ldp_protocol_to_json(&lp->p, &b)));
}

static Datum
ldp_protocol_id_impl(FunctionCallInfo fcinfo, LdpArgKind kind)
{
	PG_RETURN_TEXT_P(cstring_to_text(dpb_pg_ldp_fn_protocol(fcinfo, 0, kind)->p.id));
}

/* dpbayes.ldp_calibration_text(jsonb): what `dpbayes-ldp calibration`
 * prints; dpbayes.ldp_calibration(jsonb) the same as jsonb */
static Datum
ldp_calibration_text_impl(FunctionCallInfo fcinfo, LdpArgKind kind)
{
	LdpProto   *lp = dpb_pg_ldp_fn_protocol(fcinfo, 0, kind);
	dpb_buf		b;

	dpb_buf_init(&b);
	PG_RETURN_TEXT_P(buf_text(&b, dpb_ldp_calib_to_json(&lp->p, &lp->c, &b)));
}

static Datum
ldp_calibration_impl(FunctionCallInfo fcinfo, LdpArgKind kind)
{
	LdpProto   *lp = dpb_pg_ldp_fn_protocol(fcinfo, 0, kind);
	dpb_buf		b;

	dpb_buf_init(&b);
	PG_RETURN_DATUM(text_jsonb(buf_text(&b, dpb_ldp_calib_to_json(&lp->p, &lp->c, &b))));
}

/* dpbayes.ldp_report_columns(jsonb): the report's column labels */
static Datum
ldp_report_columns_impl(FunctionCallInfo fcinfo, LdpArgKind kind)
{
	LdpProto   *lp = dpb_pg_ldp_fn_protocol(fcinfo, 0, kind);
	Datum	   *el = palloc(sizeof(Datum) * lp->n);
	char		buf[4 * DPB_NAME_LEN];
	int			k;

	for (k = 0; k < lp->n; k++)
	{
		dpb_ldp_report_label(&lp->p, &lp->c, k, buf, sizeof(buf));
		el[k] = PointerGetDatum(cstring_to_text(buf));
	}
	PG_RETURN_ARRAYTYPE_P(construct_array(el, lp->n, TEXTOID, -1, false, TYPALIGN_INT));
}

/*
 * dpbayes.ldp_check(report float8[], protocol jsonb) -> boolean, IMMUTABLE:
 * true when the report has the protocol's width, no NULL, every value
 * finite, on its public grid and within its plausible range.  A NULL report
 * is false (so that a CHECK constraint refuses it).  It cannot prove that a
 * client randomized honestly (docs/ldp.md, threat model).
 */
static Datum
ldp_check_impl(FunctionCallInfo fcinfo, LdpArgKind kind)
{
	LdpProto   *lp = dpb_pg_ldp_fn_protocol(fcinfo, 1, kind);
	const char *why;
	double	   *z;

	if (PG_ARGISNULL(0))
		PG_RETURN_BOOL(false);
	z = dpb_pg_ldp_report_values(PG_GETARG_ARRAYTYPE_P(0), lp, &why);
	PG_RETURN_BOOL(z != NULL && dpb_pg_ldp_report_ok(lp, z));
}

/*
 * The entry points.  0.1.0's SQL functions take (and ldp_protocol returns)
 * the protocol as jsonb: PostgreSQL has merged duplicated keys (the last
 * wins) and respelled the numbers before the client's parser sees it, so
 * the server accepted protocols the client refuses and refused some it
 * accepts (a delta of 1e-70 prints as 74 digits).  0.2.0's take the text
 * (the _t entry points): the client's parser sees exactly what the client
 * sees (issue 24, item 5).
 */
#define LDP_ENTRY_PAIR(name) \
PG_FUNCTION_INFO_V1(dpbayes_##name); \
Datum dpbayes_##name(PG_FUNCTION_ARGS) { return name##_impl(fcinfo, LDP_ARG_JSONB); } \
PG_FUNCTION_INFO_V1(dpbayes_##name##_t); \
Datum dpbayes_##name##_t(PG_FUNCTION_ARGS) { return name##_impl(fcinfo, LDP_ARG_TEXT); }

LDP_ENTRY_PAIR(ldp_protocol)
LDP_ENTRY_PAIR(ldp_protocol_text)
LDP_ENTRY_PAIR(ldp_protocol_id)
LDP_ENTRY_PAIR(ldp_calibration_text)
LDP_ENTRY_PAIR(ldp_calibration)
LDP_ENTRY_PAIR(ldp_report_columns)
LDP_ENTRY_PAIR(ldp_check)
