/*
 * governed_release.c — CALL dpbayes.release(...), the governed release
 * (docs/governance.md §3).
 *
 * The procedure is C so that the analyst never holds EXECUTE on the two
 * steps it runs: dpbayes._charge (validate, check the budget, record the
 * charge) and dpbayes._compute (compute, sign and store the release of a
 * committed charge).  Both are SECURITY DEFINER routines of the ledger role;
 * fmgr calls them here directly (an executor would check EXECUTE, fmgr does
 * not, and it still switches to their owner and applies their SET clauses).
 * So no analyst can run a step inside BEGIN ... ROLLBACK, a subtransaction
 * or a long statement of their own: a charge is always committed before its
 * release is computed, and the release is committed before CALL returns.
 *
 * Before (b), dpbayes._compute_begin counts the computation's start and is
 * committed: a computation that is interrupted (cancelled, timed out) is not
 * run again for the same charge, so its duration cannot be sampled for free.
 *
 * Each step runs in a transaction of its own at READ COMMITTED, whatever the
 * session's default_transaction_isolation: the CALL's own transaction (whose
 * snapshot was taken at the session's level) is committed first, empty.
 * dpbayes._charge refuses any other isolation level as well, and keeps the
 * dataset's running totals in the row it locks, so that even a stale
 * snapshot could not see a smaller ledger (it would fail with 40001).
 */
#include "dpbayes_pg.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "nodes/parsenodes.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#define GOV_MAX_ARGS 8

/* The function `name` of the procedure's schema with the given arguments. */
static Oid
gov_function(Oid nsp, const char *name, int nargs, const Oid *argtypes)
{
	List	   *qn = list_make2(makeString(get_namespace_name(nsp)), makeString(pstrdup(name)));
	Oid			f = LookupFuncName(qn, nargs, argtypes, true);

	if (!OidIsValid(f))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("the governed release's internal step %s is missing", name),
				 errhint("Reinstall or update the dpbayes extension.")));
	return f;
}

/* Calls f with these arguments (nulls allowed); its text result, or NULL. */
static char *
gov_call(Oid f, int nargs, const Datum *args, const bool *nulls)
{
	FmgrInfo	fl;
	Datum		r;

	LOCAL_FCINFO(fc, GOV_MAX_ARGS);

	fmgr_info(f, &fl);
	InitFunctionCallInfoData(*fc, &fl, nargs, DEFAULT_COLLATION_OID, NULL, NULL);
	for (int i = 0; i < nargs; i++)
	{
		fc->args[i].value = args[i];
		fc->args[i].isnull = nulls[i];
	}
	r = FunctionCallInvoke(fc);
	if (fc->isnull)
		return NULL;
	return text_to_cstring(DatumGetTextPP(r));
}

/* The next statement starts a transaction at READ COMMITTED. */
static void
gov_read_committed(void)
{
	if (SPI_execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED", false, 0) != SPI_OK_UTILITY)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("could not start the governed release's transaction at read committed")));
}

/*
 * dpbayes.release(dataset regclass, model text, response text, features
 * text[], privacy, request_id text, group_by name, group_keys text[]): the
 * privacy argument is dpbayes.privacy (models linear, logistic, poisson) or
 * dpbayes.betad_params (betad_*); dpbayes._charge has the same arguments.
 */
PG_FUNCTION_INFO_V1(dpbayes_governed_release);
Datum
dpbayes_governed_release(PG_FUNCTION_ARGS)
{
	CallContext *cc = (fcinfo->context && IsA(fcinfo->context, CallContext)) ?
		(CallContext *) fcinfo->context : NULL;
	int			nargs = PG_NARGS();
	Datum		args[GOV_MAX_ARGS];
	bool		nulls[GOV_MAX_ARGS];
	Oid			argtypes[GOV_MAX_ARGS];
	Oid			nsp,
				charge_fn,
				begin_fn,
				compute_fn,
				text_oid = TEXTOID;
	HeapTuple	tp;
	Form_pg_proc pp;
	MemoryContext keep,
				old;
	char	   *st;

	if (cc == NULL || cc->atomic)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_TERMINATION),
				 errmsg("dpbayes.release cannot run inside a transaction block"),
				 errdetail("The charge must be committed before the release is computed."),
				 errhint("Call it on its own, outside BEGIN ... COMMIT and outside functions.")));
	if (nargs != GOV_MAX_ARGS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpbayes.release takes %d arguments", GOV_MAX_ARGS)));

	tp = SearchSysCache1(PROCOID, ObjectIdGetDatum(fcinfo->flinfo->fn_oid));
	if (!HeapTupleIsValid(tp))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("dpbayes.release could not look itself up")));
	pp = (Form_pg_proc) GETSTRUCT(tp);
	nsp = pp->pronamespace;
	for (int i = 0; i < nargs; i++)
		argtypes[i] = pp->proargtypes.values[i];
	ReleaseSysCache(tp);
	charge_fn = gov_function(nsp, "_charge", nargs, argtypes);
	begin_fn = gov_function(nsp, "_compute_begin", 1, &text_oid);
	compute_fn = gov_function(nsp, "_compute", 1, &text_oid);

	/* the arguments outlive the commits below */
	keep = AllocSetContextCreate(TopMemoryContext, "dpbayes.release", ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(keep);
	for (int i = 0; i < nargs; i++)
	{
		int16		len;
		bool		byval;

		nulls[i] = PG_ARGISNULL(i);
		get_typlenbyval(argtypes[i], &len, &byval);
		args[i] = nulls[i] ? (Datum) 0 : datumCopy(PG_GETARG_DATUM(i), byval, len);
	}
	MemoryContextSwitchTo(old);

	PG_TRY();
	{
		SPI_connect_ext(SPI_OPT_NONATOMIC);
		/* (a) the charge, in a fresh READ COMMITTED transaction */
		SPI_commit();
		gov_read_committed();
		st = gov_call(charge_fn, nargs, args, nulls);
		SPI_commit();
		/* (b) the release of the committed charge */
		if (st != NULL && strcmp(st, "charged") == 0)
		{
			Datum		rid[1] = {args[5]};
			bool		rnull[1] = {nulls[5]};

			/* the start is committed first: an interrupted computation
			 * is not run again (dpbayes._compute_begin) */
			gov_read_committed();
			st = gov_call(begin_fn, 1, rid, rnull);
			SPI_commit();
			if (st != NULL && strcmp(st, "charged") == 0)
			{
				gov_read_committed();
				st = gov_call(compute_fn, 1, rid, rnull);
				SPI_commit();
			}
		}
		SPI_finish();
	}
	PG_FINALLY();
	{
		MemoryContextDelete(keep);
	}
	PG_END_TRY();

	if (st == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the governed release returned no status")));
	if (strcmp(st, "in_progress") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("the release of this request is being computed by another session"),
				 errhint("Call again when it has finished.")));
	if (strcmp(st, "unavailable") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("the relation is not a dataset you may use"),
				 errdetail("It is not a registered dataset, or you are not granted it. Nothing was released and nothing was charged."),
				 errhint("A data owner registers it with dpbayes.register_dataset() and grants it with dpbayes.grant_dataset().")));
	if (strcmp(st, "over_budget") == 0)
		ereport(ERROR,
				(errcode(MAKE_SQLSTATE('D', 'P', '0', '0', '1')),
				 errmsg("the privacy budget of the dataset would be exceeded (SQLSTATE DP001)"),
				 errdetail("Nothing was released and nothing was charged."),
				 errhint("See dpbayes.budget() for what remains.")));
	if (strcmp(st, "failed") == 0)
		ereport(ERROR,
				(errcode(MAKE_SQLSTATE('D', 'P', '0', '0', '2')),
				 errmsg("the release failed after its charge was committed (SQLSTATE DP002)"),
				 errdetail("The charge is kept; the error is recorded with the request."),
				 errhint("See dpbayes.my_requests.")));
	PG_RETURN_VOID();
}
