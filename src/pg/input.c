/*
 * input.c — conversions of untrusted input shared by the input paths:
 * numerics to double and to integers without echoing the value, and
 * untrusted text quoted for messages (names.h).
 */
#include "dpbayes_pg.h"

#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

#include "names.h"

char *
dpb_pg_quote(const char *s, size_t len)
{
	char		buf[DPB_QUOTE_SIZE];

	return pstrdup(dpb_quote(s, len, buf));
}

double
dpb_pg_numeric_float8(Numeric n, bool *overflow)
{
	double		v;

	/* numeric_float8 would print the value when it is out of range */
	v = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
										   NumericGetDatum(n)));
	*overflow = isinf(v) && !numeric_is_inf(n);
	return v;
}

int
dpb_pg_numeric_int64(Numeric n, int64 lo, int64 hi, int64 *out)
{
	Datum		nd = NumericGetDatum(n),
				t;

	if (numeric_is_nan(n) || numeric_is_inf(n))
		return -1;
	t = DirectFunctionCall2(numeric_trunc, nd, Int32GetDatum(0));
	if (!DatumGetBool(DirectFunctionCall2(numeric_eq, nd, t)))
		return -1;
	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, t,
										  NumericGetDatum(int64_to_numeric(lo)))) < 0 ||
		DatumGetInt32(DirectFunctionCall2(numeric_cmp, t,
										  NumericGetDatum(int64_to_numeric(hi)))) > 0)
		return 0;
	*out = DatumGetInt64(DirectFunctionCall1(numeric_int8, t));
	return 1;
}

char *
dpb_pg_to_utf8(const char *s, size_t len)
{
	/* s need not be NUL-terminated (text, jsonb strings); the conversion
	 * returns its argument when there is nothing to convert */
	return pg_server_to_any(pnstrdup(s, len), (int) len, PG_UTF8);
}

char *
dpb_pg_from_utf8(const char *s)
{
	return pg_any_to_server(s, (int) strlen(s), PG_UTF8);
}
