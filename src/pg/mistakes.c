/*
 * mistakes.c — common mistakes that PostgreSQL would report only as
 * "function ... does not exist" reach a function that explains them
 * (issue 25; docs/errors.md, "Common mistakes and misspellings"):
 *
 *   - a numeric y given to logistic_release or betad_logistic (both forms):
 *     overloads on double precision y whose transition and final functions
 *     are dpbayes_mistake_numeric_y;
 *   - the American spelling neighbors => ... in dpbayes.privacy(...) and
 *     dpbayes.betad(...): overloads in which the misspelled name is a
 *     required argument (after epsilon, and model for betad, so that mixed
 *     notation works), so that only a call that uses it resolves to them
 *     (dpbayes_mistake_argument).
 *
 * These functions only raise an error; they never return.
 */
#include "dpbayes_pg.h"

#include "access/htup_details.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

/* the name of the aggregate being run, or NULL outside one */
static const char *
aggregate_name(FunctionCallInfo fcinfo)
{
	Aggref	   *ag = AggCheckCallContext(fcinfo, NULL) ? AggGetAggref(fcinfo) : NULL;

	return ag != NULL ? get_func_name(ag->aggfnoid) : NULL;
}

PG_FUNCTION_INFO_V1(dpbayes_mistake_numeric_y);
Datum
dpbayes_mistake_numeric_y(PG_FUNCTION_ARGS)
{
	const char *agg = aggregate_name(fcinfo);
	bool		betad = agg != NULL && strncmp(agg, "betad", 5) == 0;

	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("y must be boolean"),
			 errdetail("dpbayes.%s takes the response of logistic regression as a boolean: a number is not a label.",
					   agg ? agg : "logistic_release"),
			 errhint("Use y = 1 for labels stored as 0 and 1, y > 0.5 for a probability or score, or a comparison "
					 "such as diabetes = 'pos'; for a continuous response use dpbayes.%s.",
					 betad ? "betad_linear" : "linear_release")));
	PG_RETURN_NULL();
}

/* misspelled argument names and the right ones */
static const struct
{
	const char *wrong;
	const char *right;
	const char *note;
}			misspellings[] = {
	{"neighbors", "neighbours", "neighbours => 'add_remove' (the default) or 'replace'"},
	{NULL, NULL, NULL}
};

PG_FUNCTION_INFO_V1(dpbayes_mistake_argument);
Datum
dpbayes_mistake_argument(PG_FUNCTION_ARGS)
{
	Oid			fn = fcinfo->flinfo->fn_oid;
	char	   *fname = get_func_name(fn);
	char	   *arg = NULL;
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));

	if (HeapTupleIsValid(tup))
	{
		bool		isnull;
		Datum		names = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_proargnames, &isnull);

		if (!isnull)
		{
			Datum	   *elems;
			int			n;

			deconstruct_array(DatumGetArrayTypeP(names), TEXTOID, -1, false, TYPALIGN_INT,
							  &elems, NULL, &n);
			/* the first argument name that is a known misspelling */
			for (int k = 0; k < n && arg == NULL; k++)
			{
				char	   *a = TextDatumGetCString(elems[k]);

				for (int i = 0; misspellings[i].wrong; i++)
					if (strcmp(a, misspellings[i].wrong) == 0)
						arg = a;
			}
		}
		ReleaseSysCache(tup);
	}
	for (int i = 0; arg != NULL && misspellings[i].wrong; i++)
		if (strcmp(arg, misspellings[i].wrong) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_FUNCTION),
					 errmsg("dpbayes.%s has no argument \"%s\"", fname ? fname : "?", arg),
					 errhint("The argument is spelled %s: %s.", misspellings[i].right, misspellings[i].note)));
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_FUNCTION),
			 errmsg("dpbayes.%s has no argument \"%s\"", fname ? fname : "?", arg ? arg : "?"),
			 errhint("docs/errors.md lists the arguments people misspell most.")));
	PG_RETURN_NULL();
}
