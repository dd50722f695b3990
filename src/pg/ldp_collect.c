/*
 * ldp_collect.c — dpbayes.ldp_collect(report float8[], protocol jsonb): an
 * aggregate that collects local-DP reports into a compact bytea for the
 * noise-aware posteriors (docs/ldp.md, "Collected reports").
 *
 * The reports are already private, so the collection is too: it holds the
 * protocol and only what the models need (for scalar_laplace the counts
 * below and above the clipping interval and the in-range reports, whose
 * likelihood is the only per-report one; for OUE the counts of the
 * distinct report patterns, which are sufficient).  Every report is checked
 * against the protocol (width, finiteness, on the protocol's grid; 0/1 bits
 * for OUE); errors never show a value.
 *
 * Format (version 1, native byte order, checked by an endianness word):
 *   "DPBLDPC" \0, uint32 version, uint32 0x01020304, uint32 mechanism,
 *   uint32 protocol length, the protocol JSON (with its id), int64 n, then
 *   scalar_laplace: int64 n_low, n_high, n_in, n_in float8
 *   oue:            int32 K, int64 npat, npat x (ceil(K/64) uint64 words,
 *                   int64 count), patterns strictly increasing
 *   *_input:        int32 d, k = d + 1 sums of w, k x k sums of w w'; for
 *                   logistic_input then the N reports (k float8 each)
 */
#include "ldp_collect.h"
#include "ldp_pg.h"

#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "catalog/pg_type.h"

#include <float.h>
#include <stdlib.h>

#define LDPC_MAGIC "DPBLDPC"
#define LDPC_VERSION 1
#define LDPC_ENDIAN 0x01020304u
/* the largest collection the bytea can hold comfortably */
#define LDPC_MAX_BYTES ((Size) 512 * 1024 * 1024)

pg_attribute_noreturn()
static void
bad_report(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid local-DP report"),
			 errdetail("%s", detail)));
	pg_unreachable();
}

pg_attribute_noreturn()
static void
bad_collection(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid collection of local-DP reports"),
			 errdetail("%s", detail)));
	pg_unreachable();
}

/* Sets up st (zeroed) for the protocol in JSON text. */
static void
state_protocol(ldpc_state *st, const char *json)
{
	dpb_err		err;
	dpb_status	s;
	dpb_buf		out;

	memset(&err, 0, sizeof(err));
	s = dpb_ldp_protocol_parse(json, &st->p, &err);
	if (s == DPB_OK)
		s = dpb_ldp_calibrate(&st->p, &st->c, &err);
	if (s != DPB_OK)
		dpb_pg_raise(s, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	if (st->p.mech != DPB_LDP_SCALAR_LAPLACE && st->p.mech != DPB_LDP_OUE &&
		!dpb_ldp_is_input(st->p.mech))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ldp_collect does not support the %s mechanism",
						dpb_ldp_mech_name(st->p.mech)),
				 errhint("Collect scalar_laplace, oue, linear_input or logistic_input reports; reports "
						 "of the summed statistics (ss_*) are summed into a release instead.")));
	if (dpb_ldp_is_input(st->p.mech) && st->p.d > DPB_LDPM_MAX_D)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the perturbed-input models support at most %d features", DPB_LDPM_MAX_D)));
	dpb_buf_init(&out);
	if (dpb_ldp_protocol_to_json(&st->p, &out) != DPB_OK || out.oom)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	st->proto_len = (int) out.len;
	st->proto_json = palloc(out.len + 1);
	memcpy(st->proto_json, out.data, out.len);
	st->proto_json[out.len] = '\0';
	dpb_buf_free(&out);
	if (st->p.mech == DPB_LDP_SCALAR_LAPLACE)
	{
		st->a = ldexp((double) st->c.vlo, st->c.grid_exp);
		st->b = ldexp((double) st->c.vhi, st->c.grid_exp);
	}
	else if (st->p.mech == DPB_LDP_OUE)
	{
		st->K = st->p.categories;
		st->W = (st->K + 63) / 64;
	}
	else
	{
		st->d = st->p.d;
		st->k = st->d + 1;
		st->sw = palloc0(sizeof(double) * st->k);
		st->sww = palloc0(sizeof(double) * st->k * st->k);
	}
}

static void
grow(void **p, int64 *cap, int64 need, Size elem)
{
	int64		nc;

	if (need <= *cap)
		return;
	nc = *cap > 0 ? *cap : 256;
	while (nc < need)
		nc *= 2;
	if ((Size) nc * elem > LDPC_MAX_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many local-DP reports in one collection"),
				 errdetail("A collection holds at most %zu MB.", LDPC_MAX_BYTES >> 20)));
	*p = *p ? repalloc_huge(*p, (Size) nc * elem) : MemoryContextAllocHuge(CurrentMemoryContext, (Size) nc * elem);
	*cap = nc;
}

/* OUE pattern entries: W words then the count; compared word by word */
static int	cmp_w;

static int
cmp_pat(const void *x, const void *y)
{
	const uint64 *a = x,
			   *b = y;

	for (int i = 0; i < cmp_w; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* Sorts the entries and merges equal patterns (counts added). */
static void
compact(ldpc_state *st)
{
	int			W = st->W;
	Size		ent = (Size) (W + 1) * sizeof(uint64);
	uint64	   *e;
	int64		i,
				o = 0;

	if (st->np == st->ncomp)
		return;
	/* interleave words and counts for qsort, then split again */
	e = MemoryContextAllocHuge(CurrentMemoryContext, ent * (st->np > 0 ? st->np : 1));
	for (i = 0; i < st->np; i++)
	{
		memcpy(e + i * (W + 1), st->pw + i * W, W * sizeof(uint64));
		e[i * (W + 1) + W] = (uint64) st->pc[i];
	}
	cmp_w = W;
	qsort(e, st->np, ent, cmp_pat);
	for (i = 0; i < st->np; i++)
	{
		if (o > 0 && cmp_pat(e + i * (W + 1), st->pw + (o - 1) * W) == 0)
		{
			st->pc[o - 1] += (int64) e[i * (W + 1) + W];
			continue;
		}
		memcpy(st->pw + o * W, e + i * (W + 1), W * sizeof(uint64));
		st->pc[o++] = (int64) e[i * (W + 1) + W];
	}
	pfree(e);
	st->np = st->ncomp = o;
}

static void
add_pattern(ldpc_state *st, const uint64 *w, int64 count)
{
	if (st->np >= st->pcap)
	{
		int64		nc = st->pcap > 0 ? 2 * st->pcap : 256;

		/* compact before growing when many entries may be repeats */
		if (st->np > 2 * st->ncomp + 1024)
			compact(st);
		if (st->np >= st->pcap)
		{
			if ((Size) nc * (st->W + 1) * sizeof(uint64) > LDPC_MAX_BYTES)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("too many distinct local-DP reports in one collection"),
						 errdetail("A collection holds at most %zu MB.", LDPC_MAX_BYTES >> 20)));
			st->pw = st->pw ? repalloc_huge(st->pw, (Size) nc * st->W * sizeof(uint64)) :
				MemoryContextAllocHuge(CurrentMemoryContext, (Size) nc * st->W * sizeof(uint64));
			st->pc = st->pc ? repalloc_huge(st->pc, (Size) nc * sizeof(int64)) :
				MemoryContextAllocHuge(CurrentMemoryContext, (Size) nc * sizeof(int64));
			st->pcap = nc;
		}
	}
	memcpy(st->pw + st->np * st->W, w, st->W * sizeof(uint64));
	st->pc[st->np++] = count;
}

static void
add_scalar(ldpc_state *st, double z)
{
	if (z < st->a)
		st->n_low++;
	else if (z > st->b)
		st->n_high++;
	else
	{
		grow((void **) &st->z, &st->zcap, st->nz + 1, sizeof(double));
		st->z[st->nz++] = z;
	}
}

/* the sums of w and w w' */
static void
add_sums(ldpc_state *st, const double *v)
{
	for (int a = 0; a < st->k; a++)
	{
		st->sw[a] += v[a];
		for (int b = 0; b < st->k; b++)
			st->sww[a * st->k + b] += v[a] * v[b];
	}
}

static void
add_rows(ldpc_state *st, const double *v, int64 rows)
{
	if (rows <= 0)
		return;
	grow((void **) &st->rep, &st->rcap, st->nr + rows, sizeof(double) * st->k);
	memcpy(st->rep + st->nr * st->k, v, sizeof(double) * st->k * rows);
	st->nr += rows;
}

PG_FUNCTION_INFO_V1(dpbayes_ldp_collect_trans);
Datum
dpbayes_ldp_collect_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx,
				old;
	ldpc_state *st;
	ArrayType  *arr;
	Jsonb	   *jb;
	double	   *v;
	int			n;

	if (!AggCheckCallContext(fcinfo, &aggctx))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ldp_collect called in a non-aggregate context")));
	st = PG_ARGISNULL(0) ? NULL : (ldpc_state *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the protocol must not be null")));
	if (PG_ARGISNULL(1))
		bad_report("A report is null.");
	/* the arguments are detoasted in the per-row context; only the state
	 * lives in the aggregate's */
	jb = PG_GETARG_JSONB_P(2);
	arr = PG_GETARG_ARRAYTYPE_P(1);
	old = MemoryContextSwitchTo(aggctx);
	if (st == NULL || st->raw_len != VARSIZE(jb) || memcmp(st->raw, jb, st->raw_len) != 0)
	{
		ldpc_state *ns = palloc0(sizeof(ldpc_state));
		char	   *txt = JsonbToCString(NULL, &jb->root, VARSIZE(jb));

		state_protocol(ns, txt);
		/* the plausible ranges, as ldp_check and ldp_release have them */
		ns->lp = dpb_pg_ldp_alloc(aggctx);
		dpb_pg_ldp_parse(jb, ns->lp, aggctx);
		if (st != NULL)
		{
			if (strcmp(ns->p.id, st->p.id) != 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("reports of different protocols cannot be collected together"),
						 errhint("Collect each protocol's reports separately (group by the protocol).")));
		}
		else
			st = ns;
		st->raw = palloc(VARSIZE(jb));
		memcpy(st->raw, jb, VARSIZE(jb));
		st->raw_len = VARSIZE(jb);
	}
	if (ARR_ELEMTYPE(arr) != FLOAT8OID || ARR_NDIM(arr) > 1 || array_contains_nulls(arr))
		bad_report("A report must be a one-dimensional float8 array without nulls.");
	n = ARR_NDIM(arr) == 0 ? 0 : ARR_DIMS(arr)[0];
	if (n != st->c.report_len)
		bad_report(psprintf("A report of this protocol has %d values.", st->c.report_len));
	v = (double *) ARR_DATA_PTR(arr);
	for (int k = 0; k < n; k++)
		if (isnan(v[k]) || isinf(v[k]))
			bad_report("A report value is not finite.");
	if (!dpb_ldp_report_on_grid(&st->p, &st->c, v))
		bad_report(st->p.mech == DPB_LDP_OUE ? "An OUE report has bits other than 0 and 1." :
				   "A report value is not on the protocol's grid.");
	/*
	 * the same plausibility check as ldp_check and ldp_release (issue 24):
	 * an on-grid value far outside [lower, upper] widened by the noise's
	 * plausible spread is no honest client's report
	 */
	if (st->lp != NULL && !dpb_pg_ldp_report_ok(st->lp, v))
		bad_report("A report value is outside the protocol's plausible range (its bounds widened by the noise's plausible spread, as ldp_check has it).");
	if (st->p.mech == DPB_LDP_SCALAR_LAPLACE)
		add_scalar(st, v[0]);
	else if (dpb_ldp_is_input(st->p.mech))
	{
		add_sums(st, v);
		if (st->p.mech == DPB_LDP_LOGISTIC_INPUT)
			add_rows(st, v, 1);
	}
	else
	{
		uint64		w[(DPB_LDP_MAX_CATEGORIES + 63) / 64];

		memset(w, 0, sizeof(w));
		for (int k = 0; k < n; k++)
			if (v[k] == 1)
				w[k / 64] |= UINT64CONST(1) << (k % 64);
		add_pattern(st, w, 1);
	}
	st->n++;
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

/* Writes st (compacted) into a bytea. */
static bytea *
serialize(ldpc_state *st)
{
	StringInfoData b;
	uint32		u;
	int64		i;

	if (st->p.mech == DPB_LDP_OUE)
		compact(st);
	initStringInfo(&b);
	appendBinaryStringInfo(&b, "XXXX", 4);	/* varlena header */
	appendBinaryStringInfo(&b, LDPC_MAGIC, 8);
	u = LDPC_VERSION;
	appendBinaryStringInfo(&b, (char *) &u, 4);
	u = LDPC_ENDIAN;
	appendBinaryStringInfo(&b, (char *) &u, 4);
	u = (uint32) st->p.mech;
	appendBinaryStringInfo(&b, (char *) &u, 4);
	u = (uint32) st->proto_len;
	appendBinaryStringInfo(&b, (char *) &u, 4);
	appendBinaryStringInfo(&b, st->proto_json, st->proto_len);
	appendBinaryStringInfo(&b, (char *) &st->n, 8);
	if (st->p.mech == DPB_LDP_SCALAR_LAPLACE)
	{
		appendBinaryStringInfo(&b, (char *) &st->n_low, 8);
		appendBinaryStringInfo(&b, (char *) &st->n_high, 8);
		appendBinaryStringInfo(&b, (char *) &st->nz, 8);
		for (i = 0; i < st->nz; i += 65536)
		{
			CHECK_FOR_INTERRUPTS();
			appendBinaryStringInfo(&b, (char *) (st->z + i),
								   sizeof(double) * Min(65536, st->nz - i));
		}
	}
	else if (dpb_ldp_is_input(st->p.mech))
	{
		int32		d = st->d;

		appendBinaryStringInfo(&b, (char *) &d, 4);
		appendBinaryStringInfo(&b, (char *) st->sw, sizeof(double) * st->k);
		appendBinaryStringInfo(&b, (char *) st->sww, sizeof(double) * st->k * st->k);
		for (i = 0; i < st->nr; i += 8192)
		{
			CHECK_FOR_INTERRUPTS();
			appendBinaryStringInfo(&b, (char *) (st->rep + i * st->k),
								   sizeof(double) * st->k * Min(8192, st->nr - i));
		}
	}
	else
	{
		int32		K = st->K;

		appendBinaryStringInfo(&b, (char *) &K, 4);
		appendBinaryStringInfo(&b, (char *) &st->np, 8);
		for (i = 0; i < st->np; i++)
		{
			appendBinaryStringInfo(&b, (char *) (st->pw + i * st->W), st->W * 8);
			appendBinaryStringInfo(&b, (char *) (st->pc + i), 8);
		}
	}
	SET_VARSIZE(b.data, b.len);
	return (bytea *) b.data;
}

/* reading helper: n bytes at *pos of the payload, or an error */
static const char *
take(const char *base, Size len, Size *pos, Size n)
{
	const char *p;

	if (n > len || *pos > len - n)
		bad_collection("The data are truncated.");
	p = base + *pos;
	*pos += n;
	return p;
}

/*
 * The *_input collections hold the number of reports n and the sums of the
 * reports w and of w w' (the posterior uses only these for linear_input):
 * an n that contradicts the sums (an edited or mismatched collection) would
 * give a confident posterior of nothing (issue 25).  Checked: every sum
 * against n and the reports' plausible range (|w_k| <= b_k + 12 sd_k, as
 * ldp_collect checks each report), Cauchy-Schwarz (sw_k^2 <= n sww_kk),
 * and sww_kk against its distribution: w_k = x_k + e_k (rounded to the
 * grid), |x_k| <= b_k, e_k ~ N(0, sd_k^2), so sww_kk / sd_k^2 is a
 * non-central chi-square with n degrees of freedom and non-centrality at
 * most n b_k^2 / sd_k^2; its Laurent-Massart / Birge tail bounds at
 * t = 70 (probability e^-70 of refusing an honest collection) bound n from
 * both sides.  logistic_input also stores every report: its sums must be
 * theirs.  Errors name no value.
 */
#define LDPC_TAIL_T 70.0

static void
check_input_sums(const ldpc_state *st)
{
	int			k = st->k,
				d = st->d;
	double		n = (double) st->n;
	const char *contra = "Its number of reports contradicts the sums of the reports: the collection was altered "
		"or assembled from parts of different collections.";

	if (st->n == 0)
	{
		for (int i = 0; i < k; i++)
			if (st->sw[i] != 0)
				bad_collection(contra);
		for (int i = 0; i < k * k; i++)
			if (st->sww[i] != 0)
				bad_collection(contra);
		return;
	}
	for (int j = 0; j < k; j++)
	{
		bool		label = j == d && st->p.mech == DPB_LDP_LOGISTIC_INPUT;
		double		b = j < d ? st->p.clip : (label ? 1 : st->p.y_bound),
					sd = label ? 0 : st->c.in_sd[j < d ? 0 : 1],
					g = label ? 0 : ldexp(1.0, st->c.in_gexp[j < d ? 0 : 1]),
					M = b + 12 * sd + g,
					sw = st->sw[j],
					sww = st->sww[j * k + j],
					slack = 1e-9;

		if (!(fabs(sw) <= n * M * (1 + slack)) || !(sww >= 0) ||
			!(sww <= n * M * M * (1 + slack)) ||
			!(sw * sw <= n * sww * (1 + 1e-7) + DBL_MIN))
			bad_collection(contra);
		if (label)
			continue;
		{
			double		s2 = sd * sd,
						lam = n * b * b / s2,
						t = LDPC_TAIL_T,
						x = sww / s2,
						/* rounding to the grid moves each w_k^2 by at most
						 * g |w_k| + g^2 / 4: a relative slack */
						rs = 1e-4 * (n + lam);

			if (x > n + lam + 2 * sqrt((n + 2 * lam) * t) + 2 * t + rs)
				bad_collection(contra);
			if (n >= 4 * t && x < n - 2 * sqrt(n * t) - rs)
				bad_collection(contra);
			/* the sum: |sum x| <= n b, the noise's sum ~ N(0, n sd^2) */
			if (fabs(sw) > n * (b + g) + sqrt(2 * t * n) * sd)
				bad_collection(contra);
		}
	}
	if (st->p.mech == DPB_LDP_LOGISTIC_INPUT)
	{
		double	   *sw = palloc0(sizeof(double) * k),
				   *sww = palloc0(sizeof(double) * k * k),
				   *aw = palloc0(sizeof(double) * k),
				   *aww = palloc0(sizeof(double) * k * k);

		if (st->nr != st->n)
			bad_collection(contra);
		for (int64 i = 0; i < st->nr; i++)
		{
			const double *w = st->rep + i * k;

			if ((i & 4095) == 0)
				CHECK_FOR_INTERRUPTS();
			for (int a = 0; a < k; a++)
			{
				sw[a] += w[a];
				aw[a] += fabs(w[a]);
				for (int c = 0; c < k; c++)
				{
					sww[a * k + c] += w[a] * w[c];
					aww[a * k + c] += fabs(w[a] * w[c]);
				}
			}
		}
		/* the same sums in another order: within n ulps of their size */
		for (int a = 0; a < k; a++)
		{
			if (fabs(sw[a] - st->sw[a]) > 4 * (n + 1) * DBL_EPSILON * aw[a])
				bad_collection(contra);
			for (int c = 0; c < k; c++)
				if (fabs(sww[a * k + c] - st->sww[a * k + c]) >
					4 * (n + 1) * DBL_EPSILON * aww[a * k + c])
					bad_collection(contra);
		}
	}
}

ldpc_state *
dpb_pg_ldpc_parse(bytea *by)
{
	const char *d = VARDATA_ANY(by);
	Size		len = VARSIZE_ANY_EXHDR(by),
				pos = 0;
	uint32		u[4];
	ldpc_state *st = palloc0(sizeof(ldpc_state));
	char	   *json;
	int64		i;

	if (memcmp(take(d, len, &pos, 8), LDPC_MAGIC, 8) != 0)
		bad_collection("It was not made by dpbayes.ldp_collect.");
	memcpy(u, take(d, len, &pos, 16), 16);
	if (u[0] != LDPC_VERSION)
		bad_collection("Its format version is not supported.");
	if (u[1] != LDPC_ENDIAN)
		bad_collection("It was made on a machine of another byte order.");
	if (u[3] > 65536)
		bad_collection("The protocol is too long.");
	json = palloc(u[3] + 1);
	memcpy(json, take(d, len, &pos, u[3]), u[3]);
	json[u[3]] = '\0';
	if (memchr(json, '\0', u[3]) != NULL)
		bad_collection("The protocol is not text.");
	state_protocol(st, json);	/* verifies the id and calibrates */
	if ((uint32) st->p.mech != u[2])
		bad_collection("The mechanism does not match the protocol.");
	memcpy(&st->n, take(d, len, &pos, 8), 8);
	if (st->n < 0)
		bad_collection("The number of reports is negative.");
	if (st->p.mech == DPB_LDP_SCALAR_LAPLACE)
	{
		memcpy(&st->n_low, take(d, len, &pos, 8), 8);
		memcpy(&st->n_high, take(d, len, &pos, 8), 8);
		memcpy(&st->nz, take(d, len, &pos, 8), 8);
		if (st->n_low < 0 || st->n_high < 0 || st->nz < 0 ||
			st->nz > (int64) ((len - pos) / sizeof(double)) ||
			st->n_low + st->n_high + st->nz != st->n)
			bad_collection("The report counts are inconsistent.");
		st->zcap = st->nz;
		st->z = MemoryContextAllocHuge(CurrentMemoryContext,
									   sizeof(double) * (st->nz > 0 ? st->nz : 1));
		memcpy(st->z, take(d, len, &pos, sizeof(double) * st->nz), sizeof(double) * st->nz);
		for (i = 0; i < st->nz; i++)
			if (!(st->z[i] >= st->a && st->z[i] <= st->b))
				bad_collection("An in-range report lies outside the clipping interval.");
	}
	else if (dpb_ldp_is_input(st->p.mech))
	{
		int32		dd;
		int			k = st->k;

		memcpy(&dd, take(d, len, &pos, 4), 4);
		if (dd != st->d)
			bad_collection("The number of features does not match the protocol.");
		memcpy(st->sw, take(d, len, &pos, sizeof(double) * k), sizeof(double) * k);
		memcpy(st->sww, take(d, len, &pos, sizeof(double) * k * k), sizeof(double) * k * k);
		for (i = 0; i < k * k; i++)
			if (!isfinite(st->sww[i]) || (i < k && !isfinite(st->sw[i])))
				bad_collection("A sum is not finite.");
		if (st->p.mech == DPB_LDP_LOGISTIC_INPUT)
		{
			if (st->n > (int64) ((len - pos) / (sizeof(double) * k)))
				bad_collection("The reports are truncated.");
			st->nr = st->rcap = st->n;
			st->rep = MemoryContextAllocHuge(CurrentMemoryContext,
											 sizeof(double) * k * (st->n > 0 ? st->n : 1));
			memcpy(st->rep, take(d, len, &pos, sizeof(double) * k * st->n),
				   sizeof(double) * k * st->n);
			for (i = 0; i < st->n; i++)
			{
				for (int j = 0; j < k - 1; j++)
					if (!isfinite(st->rep[i * k + j]))
						bad_collection("A report is not finite.");
				if (st->rep[i * k + k - 1] != 0 && st->rep[i * k + k - 1] != 1)
					bad_collection("A label is neither 0 nor 1.");
			}
		}
	}
	else
	{
		int32		K;
		int64		tot = 0;
		Size		ent;

		memcpy(&K, take(d, len, &pos, 4), 4);
		memcpy(&st->np, take(d, len, &pos, 8), 8);
		ent = (Size) (st->W + 1) * 8;
		if (K != st->K || st->np < 0 || st->np > (int64) ((len - pos) / ent))
			bad_collection("The pattern table is inconsistent.");
		st->pcap = st->np > 0 ? st->np : 1;
		st->pw = MemoryContextAllocHuge(CurrentMemoryContext, st->pcap * st->W * 8);
		st->pc = MemoryContextAllocHuge(CurrentMemoryContext, st->pcap * 8);
		for (i = 0; i < st->np; i++)
		{
			const char *e = take(d, len, &pos, ent);

			memcpy(st->pw + i * st->W, e, st->W * 8);
			memcpy(st->pc + i, e + st->W * 8, 8);
			if (st->pc[i] <= 0 || st->pc[i] > st->n - tot)
				bad_collection("A pattern count is out of range.");
			tot += st->pc[i];
			if (st->K % 64 != 0 && (st->pw[i * st->W + st->W - 1] >> (st->K % 64)) != 0)
				bad_collection("A pattern has bits beyond the number of categories.");
			cmp_w = st->W;
			if (i > 0 && cmp_pat(st->pw + (i - 1) * st->W, st->pw + i * st->W) >= 0)
				bad_collection("The patterns are not strictly increasing.");
		}
		if (tot != st->n)
			bad_collection("The pattern counts do not add up to the number of reports.");
		st->ncomp = st->np;
	}
	if (pos != len)
		bad_collection("It has trailing bytes.");
	if (dpb_ldp_is_input(st->p.mech))
		check_input_sums(st);
	return st;
}

PG_FUNCTION_INFO_V1(dpbayes_ldp_collect_final);
Datum
dpbayes_ldp_collect_final(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_BYTEA_P(serialize((ldpc_state *) PG_GETARG_POINTER(0)));
}

PG_FUNCTION_INFO_V1(dpbayes_ldp_collect_serialize);
Datum
dpbayes_ldp_collect_serialize(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(serialize((ldpc_state *) PG_GETARG_POINTER(0)));
}

PG_FUNCTION_INFO_V1(dpbayes_ldp_collect_deserialize);
Datum
dpbayes_ldp_collect_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx,
				old;
	ldpc_state *st;

	if (!AggCheckCallContext(fcinfo, &aggctx))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ldp_collect called in a non-aggregate context")));
	old = MemoryContextSwitchTo(aggctx);
	st = dpb_pg_ldpc_parse(PG_GETARG_BYTEA_PP(0));
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(dpbayes_ldp_collect_combine);
Datum
dpbayes_ldp_collect_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx,
				old;
	ldpc_state *a,
			   *b;
	int64		i;

	if (!AggCheckCallContext(fcinfo, &aggctx))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ldp_collect called in a non-aggregate context")));
	a = PG_ARGISNULL(0) ? NULL : (ldpc_state *) PG_GETARG_POINTER(0);
	b = PG_ARGISNULL(1) ? NULL : (ldpc_state *) PG_GETARG_POINTER(1);
	if (b == NULL)
		PG_RETURN_POINTER(a);
	if (a == NULL)
		PG_RETURN_POINTER(b);
	if (strcmp(a->p.id, b->p.id) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("reports of different protocols cannot be collected together"),
				 errhint("Collect each protocol's reports separately (group by the protocol).")));
	old = MemoryContextSwitchTo(aggctx);
	if (a->p.mech == DPB_LDP_SCALAR_LAPLACE)
	{
		a->n_low += b->n_low;
		a->n_high += b->n_high;
		grow((void **) &a->z, &a->zcap, a->nz + b->nz, sizeof(double));
		if (b->nz > 0)
			memcpy(a->z + a->nz, b->z, sizeof(double) * b->nz);
		a->nz += b->nz;
	}
	else if (dpb_ldp_is_input(a->p.mech))
	{
		for (i = 0; i < a->k; i++)
			a->sw[i] += b->sw[i];
		for (i = 0; i < a->k * a->k; i++)
			a->sww[i] += b->sww[i];
		add_rows(a, b->rep, b->nr);
	}
	else
		for (i = 0; i < b->np; i++)
		{
			if ((i & 4095) == 0)
				CHECK_FOR_INTERRUPTS();
			add_pattern(a, b->pw + i * b->W, b->pc[i]);
		}
	a->n += b->n;
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(a);
}
