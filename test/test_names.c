/*
 * test_names.c — the feature name rule and the quoting of echoed input
 * (names.h).
 */
#include "unit.h"
#include "names.h"
#include "release.h"

#include <string.h>

static int
name_ok(const char *s, size_t len)
{
	dpb_err		err;

	return dpb_name_check(s, len, 0, &err) == DPB_OK;
}

static void
check_names(void)
{
	static const char *const good[] = {
		"age", "x1", "a b", "caf\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac",	/* 日本 */
		"\xf0\x9f\x98\x80", "Y", "Intercept", "sigma2", "y2", "a \"quoted\" \\ name",
		"\xef\xbf\xbd", "\xf4\x8f\xbf\xbf",	/* U+FFFD, U+10FFFF */
	};
	static const struct
	{
		const char *s;
		size_t		len;
		const char *why;
	}			bad[] = {
		{"", 0, "empty"},
		{"\xc0\x80", 2, "overlong NUL"},
		{"\xc1\xbf", 2, "overlong"},
		{"\xe0\x80\xaf", 3, "overlong 3 bytes"},
		{"\xf0\x80\x80\xaf", 4, "overlong 4 bytes"},
		{"\xed\xa0\x80", 3, "surrogate"},
		{"\xf4\x90\x80\x80", 4, "above U+10FFFF"},
		{"\xf5\x80\x80\x80", 4, "F5"},
		{"\xff", 1, "FF"},
		{"\x80", 1, "lone continuation"},
		{"caf\xc3", 4, "truncated sequence"},
		{"a\xe6\x97", 3, "truncated 3-byte sequence"},
		{"a\0b", 3, "NUL inside"},
		{"tab\there", 8, "tab"},
		{"new\nline", 8, "newline"},
		{"del\x7f", 4, "DEL"},
		{"c1\xc2\x85", 4, "C1 control (NEL)"},
		{"c1\xc2\x9f", 4, "C1 control"},
		{"a*b", 3, "label product"},
		{"a^2", 3, "label power"},
		{"theta[a]", 8, "brackets"},
		{"a,b", 3, "comma"},
		{"y", 1, "reserved y"},
		{"1", 1, "reserved 1"},
		{"intercept", 9, "reserved intercept"},
		{"sigma", 5, "reserved sigma"},
		{"n", 1, "reserved n (the count under add/remove neighbours)"},
	};
	char		buf[DPB_NAME_LEN + 1];
	int			i;

	for (i = 0; i < (int) (sizeof(good) / sizeof(good[0])); i++)
		CHECK(name_ok(good[i], strlen(good[i])), "good name %d refused", i);
	for (i = 0; i < (int) (sizeof(bad) / sizeof(bad[0])); i++)
		CHECK(!name_ok(bad[i].s, bad[i].len), "bad name accepted: %s", bad[i].why);
	memset(buf, 'x', sizeof(buf));
	CHECK(name_ok(buf, DPB_NAME_LEN - 1), "63 bytes refused");
	CHECK(!name_ok(buf, DPB_NAME_LEN), "64 bytes accepted");
	/* 63 bytes ending in a 2-byte character: fine; the message never
	 * echoes the name */
	memcpy(buf + DPB_NAME_LEN - 3, "\xc3\xa9", 2);
	CHECK(name_ok(buf, DPB_NAME_LEN - 1), "63 bytes with UTF-8 refused");
	{
		dpb_err		err;

		CHECK(dpb_name_check("a*secret", 8, 4, &err) == DPB_EINVAL &&
			  strstr(err.detail, "secret") == NULL && strstr(err.detail, "Feature 5") != NULL,
			  "message echoes the name or misses the position: %s", err.detail);
	}
}

static void
check_names_params(void)
{
	dpb_params	p;
	dpb_err		err;

	dpb_params_default(&p);
	p.d = 3;
	p.has_names = 1;
	strcpy(p.names[0], "a");
	strcpy(p.names[1], "b");
	strcpy(p.names[2], "c");
	CHECK(dpb_names_check(&p, &err) == DPB_OK, "a, b, c refused");
	CHECK(dpb_params_check(&p, &err) == DPB_OK, "params a, b, c refused");
	strcpy(p.names[2], "a");
	CHECK(dpb_names_check(&p, &err) == DPB_EINVAL &&
		  strstr(err.detail, "Features 1 and 3") != NULL, "duplicate: %s", err.detail);
	CHECK(dpb_params_check(&p, &err) == DPB_EINVAL, "params with a duplicate accepted");
	strcpy(p.names[2], "intercept");
	CHECK(dpb_params_check(&p, &err) == DPB_EINVAL, "params with intercept accepted");
	memset(p.names[2], 'z', DPB_NAME_LEN);	/* no NUL */
	CHECK(dpb_names_check(&p, &err) == DPB_EINVAL, "name without NUL accepted");
	p.has_names = 0;
	CHECK(dpb_names_check(&p, &err) == DPB_OK, "no names refused");
}

static void
check_quote(void)
{
	char		out[DPB_QUOTE_SIZE],
				in[1 << 20];
	size_t		i;

	CHECK(strcmp(dpb_quote("abc", 3, out), "abc") == 0, "abc: %s", out);
	CHECK(strcmp(dpb_quote("a\nb\\c\x7f", 6, out), "a\\x0Ab\\x5Cc\\x7F") == 0, "controls: %s", out);
	CHECK(strcmp(dpb_quote("\xff\xc3", 2, out), "\\xFF\\xC3") == 0, "invalid bytes: %s", out);
	CHECK(strcmp(dpb_quote("caf\xc3\xa9", 5, out), "caf\xc3\xa9") == 0, "UTF-8 kept: %s", out);
	/* 1 MB: 64 bytes and an ellipsis */
	memset(in, 'k', sizeof(in));
	dpb_quote(in, sizeof(in), out);
	CHECK(strlen(out) == DPB_ECHO_MAX + 3 && strcmp(out + DPB_ECHO_MAX, "...") == 0,
		  "1 MB quoted to %zu bytes", strlen(out));
	/* a 3-byte character across the 64-byte limit is left out whole */
	memset(in, 'k', 62);
	memcpy(in + 62, "\xe6\x97\xa5", 3);
	dpb_quote(in, 65, out);
	CHECK(strlen(out) == 65 && strcmp(out + 62, "...") == 0, "multibyte cut: %s", out);
	/* all escapes: never past the buffer */
	for (i = 0; i < 200; i++)
		in[i] = (char) 1;
	dpb_quote(in, 200, out);
	CHECK(strlen(out) == 4 * DPB_ECHO_MAX + 3, "escaped length %zu", strlen(out));
	CHECK(strcmp(dpb_quote("", 0, out), "") == 0, "empty");
}

/* a packed linear release with names a, b; returns its unpack status */
static dpb_status
roundtrip(const char *n1, const char *n2, double eps, dpb_mechanism mech)
{
	dpb_release r,
				back;
	dpb_err		err;
	unsigned char buf[4096];
	double		stats[64] = {0};
	dpb_status	st;

	memset(&r, 0, sizeof(r));
	dpb_params_default(&r.p);
	r.version = DPB_RELEASE_VERSION;
	r.model = DPB_MODEL_LINEAR;
	r.d = r.p.d = 2;
	r.n = 0;					/* add/remove neighbours: N is not recorded */
	r.p.y_bound = 1e5;
	r.p.epsilon = eps;
	r.p.mechanism = mech;
	r.p.delta = mech == DPB_MECH_LAPLACE ? 0 : 1e-6;
	r.p.has_names = 1;
	strcpy(r.p.names[0], "a");
	strcpy(r.p.names[1], "b");
	if (dpb_release_calibrate(&r, &err) != DPB_OK || r.nstats > 64)
		return DPB_ENUMERIC;
	/* names are changed after the calibration, as a forged value would */
	strcpy(r.p.names[0], n1);
	strcpy(r.p.names[1], n2);
	r.stats = stats;
	if (dpb_release_packed_size(&r) > sizeof(buf))
		return DPB_ENOMEM;
	dpb_release_pack(&r, buf);
	st = dpb_release_unpack(buf, dpb_release_packed_size(&r), &back, &err);
	if (st == DPB_OK)
		dpb_release_free_stats(&back);
	return st;
}

static void
check_release_rules(void)
{
	dpb_params	p;
	dpb_err		err;

	CHECK(roundtrip("a", "b", 1, DPB_MECH_GAUSSIAN) == DPB_OK, "a, b refused");
	CHECK(roundtrip("caf\xc3\xa9", "\xe6\x97\xa5", 1, DPB_MECH_GAUSSIAN) == DPB_OK,
		  "UTF-8 names refused");
	CHECK(roundtrip("a", "a", 1, DPB_MECH_GAUSSIAN) == DPB_ECORRUPT, "duplicate unpacked");
	CHECK(roundtrip("y", "b", 1, DPB_MECH_GAUSSIAN) == DPB_ECORRUPT, "y unpacked");
	CHECK(roundtrip("a*b", "b", 1, DPB_MECH_GAUSSIAN) == DPB_ECORRUPT, "a*b unpacked");
	CHECK(roundtrip("\xff", "b", 1, DPB_MECH_GAUSSIAN) == DPB_ECORRUPT, "invalid UTF-8 unpacked");
	CHECK(roundtrip("a", "\xc2\x85", 1, DPB_MECH_GAUSSIAN) == DPB_ECORRUPT, "C1 control unpacked");
	/* epsilon 1e-300, laplace, y_bound 1e5: the calibration overflows */
	/* (refused already by the calibration: rounding to the noise grid
	 * would cost more than epsilon) */
	CHECK(roundtrip("a", "b", 1e-300, DPB_MECH_LAPLACE) != DPB_OK,
		  "infinite laplace scale unpacked");
	CHECK(roundtrip("a", "b", 1e-3, DPB_MECH_LAPLACE) == DPB_OK, "eps 1e-3 laplace refused");

	dpb_params_default(&p);
	p.y_bound = 1e5;
	p.mechanism = DPB_MECH_LAPLACE;
	p.delta = 0;
	p.epsilon = 1e-300;
	CHECK(dpb_release_check_params(DPB_MODEL_LINEAR, &p, 2, &err) == DPB_EINVAL,
		  "eps 1e-300 laplace accepted by check_params");
	p.epsilon = 1e-285;			/* finite scale, but above 1e290 for y^2 */
	CHECK(dpb_release_check_params(DPB_MODEL_LINEAR, &p, 2, &err) == DPB_EINVAL,
		  "eps 1e-285 laplace accepted by check_params");
	/* rounding to the noise grid costs up to K 2^-20 of epsilon (K = 10
	 * statistics here): an epsilon below twice that is refused, a larger
	 * one is fine */
	p.epsilon = 1e-200;
	CHECK(dpb_release_check_params(DPB_MODEL_LINEAR, &p, 2, &err) == DPB_EINVAL,
		  "eps 1e-200 laplace accepted by check_params");
	p.epsilon = 10 * ldexp(1.0, -18);
	CHECK(dpb_release_check_params(DPB_MODEL_LINEAR, &p, 2, &err) == DPB_OK,
		  "eps 4e-5 laplace refused: %s %s", err.msg, err.detail);
	p.mechanism = DPB_MECH_GAUSSIAN;
	p.delta = 1e-6;
	p.epsilon = 1;
	p.clip = 1e100;
	CHECK(dpb_release_check_params(DPB_MODEL_LINEAR, &p, 2, &err) != DPB_OK,
		  "clip 1e100 accepted (R^4 overflows)");
	p.clip = 1;
	CHECK(dpb_release_check_params(DPB_MODEL_LOGISTIC, &p, 2, &err) != DPB_OK,
		  "logistic with y_bound 1e5 accepted");
	p.y_bound = 0;
	CHECK(dpb_release_check_params(DPB_MODEL_LOGISTIC, &p, 2, &err) == DPB_OK,
		  "logistic refused: %s", err.msg);
}

void
test_names(void)
{
	check_release_rules();
	check_names();
	check_names_params();
	check_quote();
}
