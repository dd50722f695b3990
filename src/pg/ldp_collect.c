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
 * Format (version 2, native byte order, checked by an endianness word):
 *   "DPBLDPC" \0, uint32 version, uint32 0x01020304, uint32 mechanism,
 *   uint32 flags (1: a report was stamped insecure_test:, from the test
 *   build of the client or a seeded simulation; version 1 has no flags),
 *   uint32 protocol length, the protocol JSON (with its id), int64 n, then
 *   scalar_laplace: int64 n_low, n_high, n_in, n_in float8
 *   scalar_gaussian: int64 n_in (= n), n_in float8 (every report)
 *   rr:             int64 ones (the number of reports 1)
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

#include <stdlib.h>

#define LDPC_MAGIC "DPBLDPC"
#define LDPC_VERSION 2			/* 1: 0.1.0, without the flags word */
#define LDPC_FLAG_INSECURE 1u
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

/*
 * A zeroed state in the current context, 16-byte aligned: it holds the
 * calibration's 128-bit integers, and the compiler may use aligned vector
 * stores on it (palloc gives 8-byte alignment: a collection of OUE reports
 * crashed on such a store when a field was added).
 */
static ldpc_state *
ldpc_alloc(void)
{
	return (ldpc_state *) TYPEALIGN(16, palloc0(sizeof(ldpc_state) + 16));
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
	if (st->p.mech != DPB_LDP_SCALAR_LAPLACE && st->p.mech != DPB_LDP_SCALAR_GAUSSIAN &&
		st->p.mech != DPB_LDP_OUE && st->p.mech != DPB_LDP_RR && !dpb_ldp_is_input(st->p.mech))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ldp_collect does not support the %s mechanism",
						dpb_ldp_mech_name(st->p.mech)),
				 errhint("Reports of the summed statistics (ss_*) are summed into a release by dpbayes.ldp_release.")));
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
	if (st->p.mech == DPB_LDP_SCALAR_LAPLACE || st->p.mech == DPB_LDP_SCALAR_GAUSSIAN)
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

/* the transition: (state, [protocol_id,] report, protocol) */
static Datum
collect_trans(FunctionCallInfo fcinfo, int idarg, LdpArgKind kind)
{
	MemoryContext aggctx,
				old;
	ldpc_state *st;
	ArrayType  *arr;
	struct varlena *raw;
	double	   *v;
	int			n,
				rarg = idarg + 1;
	bool		insecure = false;

	if (!AggCheckCallContext(fcinfo, &aggctx))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ldp_collect called in a non-aggregate context")));
	st = PG_ARGISNULL(0) ? NULL : (ldpc_state *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(rarg + 1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the protocol must not be null")));
	/* the arguments are detoasted in the per-row context; only the state
	 * lives in the aggregate's */
	raw = PG_DETOAST_DATUM(PG_GETARG_DATUM(rarg + 1));
	old = MemoryContextSwitchTo(aggctx);
	if (st == NULL || st->raw_len != VARSIZE(raw) || memcmp(st->raw, raw, st->raw_len) != 0)
	{
		ldpc_state *ns = ldpc_alloc();
		char	   *txt = dpb_pg_ldp_raw_text(raw, kind);

		state_protocol(ns, txt);
		/* the plausible ranges, as ldp_check and ldp_release have them */
		ns->lp = dpb_pg_ldp_alloc(aggctx);
		dpb_pg_ldp_parse(raw, kind, ns->lp, aggctx);
		if (st != NULL)
		{
			if (strcmp(ns->p.id, st->p.id) != 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("reports of different protocols cannot be collected together"),
						 errhint("Collect each protocol's reports separately (group by the protocol).")));
			st->lp = ns->lp;
		}
		else
			st = ns;
		st->raw = palloc(VARSIZE(raw));
		memcpy(st->raw, raw, VARSIZE(raw));
		st->raw_len = VARSIZE(raw);
	}
	if (idarg > 0)
		dpb_pg_ldp_check_id(fcinfo, 1, st->lp, st->n + 1, &insecure);
	if (PG_ARGISNULL(rarg))
		bad_report("A report is null.");
	arr = PG_GETARG_ARRAYTYPE_P(rarg);
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
	if (!dpb_pg_ldp_report_ok(st->lp, v))
		bad_report("A report value is outside the protocol's plausible range (its bounds widened by the noise's plausible spread, as ldp_check has it).");
	if (st->p.mech == DPB_LDP_SCALAR_LAPLACE)
		add_scalar(st, v[0]);
	else if (st->p.mech == DPB_LDP_SCALAR_GAUSSIAN)
	{
		/* Gaussian noise: every report enters the likelihood */
		grow((void **) &st->z, &st->zcap, st->nz + 1, sizeof(double));
		st->z[st->nz++] = v[0];
	}
	else if (st->p.mech == DPB_LDP_RR)
		st->ones += v[0] == 1;
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
	st->insecure |= insecure;
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

/* 0.1.0: (report, protocol jsonb), without an id: no longer in 0.2.0's SQL */
PG_FUNCTION_INFO_V1(dpbayes_ldp_collect_trans);
Datum
dpbayes_ldp_collect_trans(PG_FUNCTION_ARGS)
{
	return collect_trans(fcinfo, 0, LDP_ARG_JSONB);
}

/* 0.2.0: (protocol_id, report, protocol text) */
PG_FUNCTION_INFO_V1(dpbayes_ldp_collect_trans_id_t);
Datum
dpbayes_ldp_collect_trans_id_t(PG_FUNCTION_ARGS)
{
	return collect_trans(fcinfo, 1, LDP_ARG_TEXT);
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
	u = st->insecure ? LDPC_FLAG_INSECURE : 0;
	appendBinaryStringInfo(&b, (char *) &u, 4);
	u = (uint32) st->proto_len;
	appendBinaryStringInfo(&b, (char *) &u, 4);
	appendBinaryStringInfo(&b, st->proto_json, st->proto_len);
	appendBinaryStringInfo(&b, (char *) &st->n, 8);
	if (st->p.mech == DPB_LDP_RR)
		appendBinaryStringInfo(&b, (char *) &st->ones, 8);
	else if (st->p.mech == DPB_LDP_SCALAR_LAPLACE || st->p.mech == DPB_LDP_SCALAR_GAUSSIAN)
	{
		if (st->p.mech == DPB_LDP_SCALAR_LAPLACE)
		{
			appendBinaryStringInfo(&b, (char *) &st->n_low, 8);
			appendBinaryStringInfo(&b, (char *) &st->n_high, 8);
		}
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
 * Checks on read (issue 24, item 3): a collection is a bytea that anyone
 * who stores it can edit.  Every report it holds passes the check of a
 * report at collection time (on the grid, within the plausible range), and
 * its counts agree with its sums, so an edited value is refused here
 * rather than giving a posterior of garbage.
 */
#define LDPC_SUM_TOL 1e-9		/* relative rounding of sums of doubles */
#define LDPC_LOG_PMIN (-69.0)	/* log(1e-30): a check's false alarm rate */

/* the moment matrix [[n, s'], [s, S]] of the reports w = (1, z) is
 * positive semidefinite: its Cholesky factor, on the matrix scaled to unit
 * diagonal, has no pivot below -tol */
static bool
moments_psd(int64 n, int k, const double *s, const double *S)
{
	int			m = k + 1;
	double	   *A = palloc(sizeof(double) * m * m),
			   *sc = palloc(sizeof(double) * m);
	bool		ok = true;

	for (int i = 0; i < m; i++)
		for (int j = 0; j < m; j++)
			A[i * m + j] = i == 0 ? (j == 0 ? (double) n : s[j - 1]) :
				j == 0 ? s[i - 1] : S[(i - 1) * k + (j - 1)];
	for (int i = 0; i < m; i++)
		sc[i] = A[i * m + i] > 0 ? 1 / sqrt(A[i * m + i]) : 0;
	for (int i = 0; i < m; i++)
		for (int j = 0; j < m; j++)
			A[i * m + j] *= sc[i] * sc[j];
	/* in place, lower triangle; a pivot near zero (n <= k, or a constant
	 * entry) ends that column */
	for (int j = 0; j < m && ok; j++)
	{
		double		dj = A[j * m + j];

		for (int l = 0; l < j; l++)
			dj -= A[j * m + l] * A[j * m + l];
		if (dj < -1e-7)
			ok = false;
		else if (dj <= 1e-12)
		{
			/* singular direction: the rest of the column must vanish */
			for (int i = j + 1; i < m; i++)
			{
				double		v = A[i * m + j];

				for (int l = 0; l < j; l++)
					v -= A[i * m + l] * A[j * m + l];
				if (fabs(v) > 1e-6)
					ok = false;
				A[i * m + j] = 0;
			}
			A[j * m + j] = 0;
		}
		else
		{
			A[j * m + j] = sqrt(dj);
			for (int i = j + 1; i < m; i++)
			{
				double		v = A[i * m + j];

				for (int l = 0; l < j; l++)
					v -= A[i * m + l] * A[j * m + l];
				A[i * m + j] = v / A[j * m + j];
			}
		}
	}
	pfree(A);
	pfree(sc);
	return ok;
}

/*
 * The sums of the n perturbed-input reports w (k entries) against their
 * count: every honest report lies within its plausible range [lo, hi], so
 * |sum w_j| <= n max|.| and sum w_j^2 <= n max(.)^2; the moments are those
 * of n vectors (positive semidefinite); and as the noise of entry j
 * (Gaussian of sd s_j, independent of the record) makes sum w_j^2 no
 * smaller than a chi-square with n degrees of freedom times s_j^2, a
 * ratio q = sum w_j^2 / (n s_j^2) < 1 has probability at most
 * (q e^{1-q})^{n/2} (Chernoff): below 1e-30 the count is too large for the
 * sums.
 */
static void
check_input_sums(const ldpc_state *st)
{
	const LdpProto *lp = st->lp;
	int			k = st->k;

	if (st->n == 0)
	{
		for (int i = 0; i < k * k; i++)
			if (st->sww[i] != 0 || (i < k && st->sw[i] != 0))
				bad_collection("It holds no reports but its sums are not zero.");
		return;
	}
	for (int j = 0; j < k; j++)
	{
		double		m = Max(fabs(lp->lo[j]), fabs(lp->hi[j])),
					nn = (double) st->n,
					sjj = st->sww[j * k + j],
					sd = j < st->d ? st->c.in_sd[0] : st->c.in_sd[1],
					q;

		if (fabs(st->sw[j]) > nn * m * (1 + LDPC_SUM_TOL) ||
			!(sjj >= 0) || sjj > nn * m * m * (1 + LDPC_SUM_TOL))
			bad_collection("Its sums are too large for its number of reports: a report would lie outside the protocol's plausible range.");
		for (int i = 0; i < k; i++)
			if (fabs(st->sww[i * k + j] - st->sww[j * k + i]) >
				LDPC_SUM_TOL * (fabs(st->sww[i * k + j]) + fabs(st->sww[j * k + i])))
				bad_collection("Its sums of products are not symmetric.");
		if (st->p.mech == DPB_LDP_LOGISTIC_INPUT && j == st->d)
			continue;			/* the label: randomized response, no noise sd */
		q = sjj / (nn * sd * sd);
		if (q < 1 && 0.5 * nn * (log(q) + 1 - q) < LDPC_LOG_PMIN)
			bad_collection("Its sums are too small for its number of reports: the reports' noise alone would make them larger.");
	}
	if (!moments_psd(st->n, k, st->sw, st->sww))
		bad_collection("Its sums are not the sums of any set of reports (their moment matrix is not positive semidefinite).");
}

ldpc_state *
dpb_pg_ldpc_parse(bytea *by)
{
	const char *d = VARDATA_ANY(by);
	Size		len = VARSIZE_ANY_EXHDR(by),
				pos = 0;
	uint32		u[4];
	ldpc_state *st = ldpc_alloc();
	char	   *json;
	int64		i;

	if (memcmp(take(d, len, &pos, 8), LDPC_MAGIC, 8) != 0)
		bad_collection("It was not made by dpbayes.ldp_collect.");
	memcpy(u, take(d, len, &pos, 12), 12);
	if (u[0] != 1 && u[0] != LDPC_VERSION)
		bad_collection("Its format version is not supported.");
	if (u[1] != LDPC_ENDIAN)
		bad_collection("It was made on a machine of another byte order.");
	if (u[0] >= 2)
	{
		uint32		flags;

		memcpy(&flags, take(d, len, &pos, 4), 4);
		if ((flags & ~LDPC_FLAG_INSECURE) != 0)
			bad_collection("It has unknown flags.");
		st->insecure = (flags & LDPC_FLAG_INSECURE) != 0;
	}
	memcpy(&u[3], take(d, len, &pos, 4), 4);
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
	/* the plausible ranges and grids of the reports, as at collection */
	st->lp = dpb_pg_ldp_alloc(CurrentMemoryContext);
	dpb_pg_ldp_parse((struct varlena *) cstring_to_text(json), LDP_ARG_TEXT, st->lp,
					 CurrentMemoryContext);
	memcpy(&st->n, take(d, len, &pos, 8), 8);
	if (st->n < 0)
		bad_collection("The number of reports is negative.");
	if (st->p.mech == DPB_LDP_RR)
	{
		memcpy(&st->ones, take(d, len, &pos, 8), 8);
		if (st->ones < 0 || st->ones > st->n)
			bad_collection("The number of reports 1 is out of range.");
	}
	else if (st->p.mech == DPB_LDP_SCALAR_GAUSSIAN)
	{
		memcpy(&st->nz, take(d, len, &pos, 8), 8);
		if (st->nz != st->n || st->nz > (int64) ((len - pos) / sizeof(double)))
			bad_collection("The report counts are inconsistent.");
		st->zcap = st->nz;
		st->z = MemoryContextAllocHuge(CurrentMemoryContext,
									   sizeof(double) * (st->nz > 0 ? st->nz : 1));
		memcpy(st->z, take(d, len, &pos, sizeof(double) * st->nz), sizeof(double) * st->nz);
		for (i = 0; i < st->nz; i++)
		{
			if ((i & 65535) == 0)
				CHECK_FOR_INTERRUPTS();
			if (!dpb_pg_ldp_report_ok(st->lp, st->z + i))
				bad_collection("A report is off the protocol's grid or outside its plausible range.");
		}
	}
	else if (st->p.mech == DPB_LDP_SCALAR_LAPLACE)
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
		{
			if (!(st->z[i] >= st->a && st->z[i] <= st->b))
				bad_collection("An in-range report lies outside the clipping interval.");
			if (!dpb_pg_ldp_report_ok(st->lp, st->z + i))
				bad_collection("A report is not on the protocol's grid.");
		}
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
				if ((i & 65535) == 0)
					CHECK_FOR_INTERRUPTS();
				for (int j = 0; j < k - 1; j++)
					if (!isfinite(st->rep[i * k + j]))
						bad_collection("A report is not finite.");
				if (st->rep[i * k + k - 1] != 0 && st->rep[i * k + k - 1] != 1)
					bad_collection("A label is neither 0 nor 1.");
				if (!dpb_pg_ldp_report_ok(st->lp, st->rep + i * k))
					bad_collection("A report is off the protocol's grid or outside its plausible range.");
			}
			/* the stored sums are the reports' sums (up to the rounding of
			 * another summation order, in a parallel collection) */
			{
				double	   *rs = palloc0(sizeof(double) * k * k),
						   *ra = palloc0(sizeof(double) * k * k);

				for (i = 0; i < st->n; i++)
				{
					const double *v = st->rep + i * k;

					for (int a = 0; a < k; a++)
						for (int b = 0; b < k; b++)
						{
							rs[a * k + b] += v[a] * v[b];
							ra[a * k + b] += fabs(v[a] * v[b]);
						}
				}
				for (int a = 0; a < k; a++)
				{
					double		s1 = 0,
								a1 = 0;

					for (i = 0; i < st->n; i++)
					{
						s1 += st->rep[i * k + a];
						a1 += fabs(st->rep[i * k + a]);
					}
					if (fabs(s1 - st->sw[a]) > LDPC_SUM_TOL * a1 + 1e-300)
						bad_collection("Its sums are not the sums of its reports.");
					for (int b = 0; b < k; b++)
						if (fabs(rs[a * k + b] - st->sww[a * k + b]) >
							LDPC_SUM_TOL * ra[a * k + b] + 1e-300)
							bad_collection("Its sums are not the sums of its reports.");
				}
				pfree(rs);
				pfree(ra);
			}
		}
		check_input_sums(st);
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
	return st;
}

void
dpb_pg_ldpc_warn_insecure(const ldpc_state *st)
{
	if (st->insecure)
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("the collection holds reports made with insecure test randomness"),
				 errdetail("Reports stamped insecure_test: come from the test build of the client or from a simulation under dpbayes.insecure_noise_seed: they are not locally private, and neither is anything inferred from them."),
				 errhint("Collect reports randomized by the production client (dpbayes-ldp) before publishing any result.")));
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
	a->insecure |= b->insecure;
	if (a->p.mech == DPB_LDP_RR)
		a->ones += b->ones;
	else if (a->p.mech == DPB_LDP_SCALAR_LAPLACE || a->p.mech == DPB_LDP_SCALAR_GAUSSIAN)
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
