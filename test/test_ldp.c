/*
 * test_ldp.c — the local-DP client (src/core/ldp, issue 11; docs/ldp.md).
 *
 *  - protocol: canonical form and its SHA-256 id pinned to literal values
 *    (SHA-256 itself against the FIPS 180-2 vector), round trips
 *    (serialise -> parse -> the same canonical bytes) for every mechanism,
 *    key order and whitespace not changing the id, and every invalid input
 *    refused;
 *  - sensitivity: the core's tight L2 sensitivity of the linear t(x, y) at
 *    R = 1, R_y = 2 (equal noise) is sqrt(22), not Lemma 3.1's sqrt(34),
 *    confirmed by brute force, and the protocol's calibration uses it;
 *  - randomized response and OUE: the selftest's chi-square checks on two
 *    insecure seeds; OUE's closed-form pattern probabilities (eq. 33 as the
 *    bitwise product of eq. 31) sum to 1 and have worst-case likelihood
 *    ratio exactly e^eps; control: the inverted OUE reading of DESIGN's
 *    first draft is rejected at p < 1e-6 by the same chi-square;
 *  - scalar Laplace: KS of the noise against the Laplace CDF of the
 *    calibrated scale, clipping (never dropping), every value on its grid,
 *    pure epsilon used <= epsilon; control: the CDF of a 1.2x scale fails;
 *  - scalar Gaussian: rho used <= rho*, delta(rho used) <= delta, KS of
 *    the noise against the normal CDF; control: a 1.2x sd fails;
 *  - summed statistics (linear, logistic, Poisson): standardised noise
 *    around the exact one-record statistics is N(0, 1) by KS; every report
 *    on its grid and a value moved off it is detected; control: a 1.2x sd
 *    fails;
 *  - invalid records are refused with DPB_EDATA;
 *  - the CLI (test/ldp_cli.sh, run from here).
 * Statistical checks accept at p > 1e-6 with fixed insecure seeds.
 */
#include "unit.h"
#include "ldp.h"
#include "ldp_selftest.h"
#include "ks.h"
#include "sensitivity.h"

#include <gsl/gsl_cdf.h>
#include <stdlib.h>
#include <string.h>

#define P_MIN 1e-6

static int
parse_ok(const char *json, dpb_ldp_protocol *p)
{
	dpb_err		err;
	dpb_status	st = dpb_ldp_protocol_parse(json, p, &err);

	if (st != DPB_OK)
		printf("  parse: %s: %s\n", err.msg, err.detail);
	return st == DPB_OK;
}

static char *
canonical(const dpb_ldp_protocol *p, int with_id)
{
	dpb_buf		b;

	dpb_buf_init(&b);
	if (with_id)
		dpb_ldp_protocol_to_json(p, &b);
	else
		dpb_ldp_protocol_canonical(p, &b);
	return b.data;
}

/* significant digits of a %g string: mantissa digits without leading and
 * trailing zeros */
static int
sig_digits(const char *s)
{
	char		d[40];
	int			n = 0,
				a = 0;

	for (; *s && *s != 'e'; s++)
		if (*s >= '0' && *s <= '9')
			d[n++] = *s;
	while (a < n && d[a] == '0')
		a++;
	while (n > a && d[n - 1] == '0')
		n--;
	return n - a;
}

void		test_ldp_protocol(void);
void
test_ldp_protocol(void)
{
#define PINNED_SCALING_NONE_ID "ca73b835e9302648ba566cc572a3413a585abb2f10a241f2e56b3806e562c896"
	static const char *valid[] = {
		"{\"mechanism\":\"rr\",\"epsilon\":1.5}",
		"{\"mechanism\":\"oue\",\"epsilon\":0.5,\"categories\":3}",
		"{\"mechanism\":\"scalar_laplace\",\"epsilon\":2,\"lower\":-5,\"upper\":5}",
		"{\"mechanism\":\"scalar_gaussian\",\"epsilon\":0.5,\"delta\":1e-7,\"lower\":0,\"upper\":100}",
		"{\"mechanism\":\"ss_linear\",\"epsilon\":1,\"delta\":1e-5,\"d\":2,\"intercept\":false,\"clip\":1,\"y_bound\":2,\"scaling\":\"none\"}",
		"{\"mechanism\":\"ss_logistic\",\"epsilon\":0.5,\"delta\":1e-6,\"d\":3,\"lower\":[0,0,0],\"upper\":[1,2,3]}",
		"{\"mechanism\":\"ss_poisson\",\"epsilon\":2,\"delta\":1e-6,\"d\":1,\"y_bound\":10,\"noise_weights\":[1,2],\"scaling\":\"none\"}",
		"{\"mechanism\":\"linear_input\",\"epsilon\":1,\"delta\":1e-6,\"d\":2,\"clip\":4,\"y_bound\":3}",
		"{\"mechanism\":\"logistic_input\",\"epsilon\":2,\"delta\":1e-6,\"d\":3,\"clip\":2,\"label_share\":0.25}",
		/* a tiny delta in exponent form (issue 24, item 5) */
		"{\"mechanism\":\"scalar_gaussian\",\"epsilon\":1,\"delta\":1e-70,\"lower\":0,\"upper\":1}",
	};
	static const char *invalid[] = {
		"",
		"[]",
		"{\"mechanism\":\"rr\"}",							/* no epsilon */
		"{\"mechanism\":\"rr\",\"epsilon\":0}",
		"{\"mechanism\":\"rr\",\"epsilon\":100}",
		"{\"mechanism\":\"rr\",\"epsilon\":1,\"epsilon\":2}", /* duplicate */
		"{\"mechanism\":\"rr\",\"epsilon\":1,\"delta\":0.1}", /* not a parameter */
		"{\"mechanism\":\"rr\",\"epsilon\":1} x",			/* trailing */
		"{\"mechanism\":\"rr\",\"epsilon\":01}",			/* JSON number */
		"{\"mechanism\":\"rr\",\"epsilon\":\"1\"}",
		"{\"mechanism\":\"gauss\",\"epsilon\":1}",
		"{\"mechanism\":\"oue\",\"epsilon\":1,\"categories\":1}",
		"{\"mechanism\":\"oue\",\"epsilon\":1,\"categories\":2.5}",
		"{\"mechanism\":\"scalar_laplace\",\"epsilon\":1,\"lower\":1,\"upper\":1}",
		"{\"mechanism\":\"scalar_laplace\",\"epsilon\":1,\"lower\":1e10,\"upper\":10000000000.001}",
		"{\"mechanism\":\"ss_linear\",\"epsilon\":1,\"delta\":1e-5,\"d\":2}",	/* y_bound */
		"{\"mechanism\":\"ss_linear\",\"epsilon\":1,\"delta\":0,\"d\":2,\"y_bound\":1,\"scaling\":\"none\"}",
		"{\"mechanism\":\"ss_linear\",\"epsilon\":1,\"delta\":1e-5,\"d\":2,\"y_bound\":1,\"lower\":[0,0]}",
		"{\"mechanism\":\"ss_linear\",\"epsilon\":1,\"delta\":1e-5,\"d\":2,\"y_bound\":1,\"lower\":[0],\"upper\":[1]}",
		"{\"mechanism\":\"ss_linear\",\"epsilon\":1,\"delta\":1e-5,\"d\":2,\"y_bound\":1,\"noise_weights\":[1,1],\"scaling\":\"none\"}",
		"{\"mechanism\":\"ss_linear\",\"epsilon\":1,\"delta\":1e-5,\"d\":0,\"y_bound\":1,\"scaling\":\"none\"}",
		"{\"mechanism\":\"rr\",\"epsilon\":1,\"id\":\"00\"}",
		"{\"mechanism\":\"rr\",\"epsilon\":1,\"id\":\"0000000000000000000000000000000000000000000000000000000000000000\"}",
		"{\"mechanism\":\"rr\",\"epsilon\":1,\"version\":2}",
		"{\"mechanism\":\"scalar_gaussian\",\"epsilon\":1,\"lower\":0,\"upper\":1}",	/* delta */
		"{\"mechanism\":\"scalar_gaussian\",\"epsilon\":1,\"delta\":1,\"lower\":0,\"upper\":1}",
		"{\"mechanism\":\"linear_input\",\"epsilon\":1,\"delta\":1e-6,\"d\":2,\"clip\":1}",	/* y_bound */
		"{\"mechanism\":\"linear_input\",\"epsilon\":1,\"delta\":1e-6,\"d\":2,\"clip\":1,\"y_bound\":1,\"y_noise_ratio\":0}",
		"{\"mechanism\":\"linear_input\",\"epsilon\":1,\"delta\":1e-6,\"d\":2,\"clip\":1,\"y_bound\":1,\"label_share\":0.5}",
		"{\"mechanism\":\"logistic_input\",\"epsilon\":1,\"delta\":1e-6,\"d\":2,\"clip\":1,\"label_share\":1}",
		"{\"mechanism\":\"logistic_input\",\"epsilon\":1,\"delta\":1e-6,\"d\":2,\"clip\":1,\"y_bound\":1}",
		"{\"mechanism\":\"logistic_input\",\"epsilon\":1,\"d\":2,\"clip\":1}",	/* delta */
		/* no public scale (issue 25, item 1): bounds or scaling none; clip */
		"{\"mechanism\":\"ss_linear\",\"epsilon\":1,\"delta\":1e-5,\"d\":2,\"y_bound\":1}",
		"{\"mechanism\":\"ss_logistic\",\"epsilon\":1,\"delta\":1e-5,\"d\":2}",
		"{\"mechanism\":\"ss_linear\",\"epsilon\":1,\"delta\":1e-5,\"d\":2,\"y_bound\":1,\"scaling\":\"box\"}",
		"{\"mechanism\":\"ss_linear\",\"epsilon\":1,\"delta\":1e-5,\"d\":1,\"y_bound\":1,\"scaling\":\"none\",\"lower\":[0],\"upper\":[1]}",
		"{\"mechanism\":\"ss_linear\",\"epsilon\":1,\"delta\":1e-5,\"d\":1,\"y_bound\":1,\"scaling\":1}",
		"{\"mechanism\":\"linear_input\",\"epsilon\":1,\"delta\":1e-6,\"d\":2,\"y_bound\":3}",
		"{\"mechanism\":\"logistic_input\",\"epsilon\":1,\"delta\":1e-6,\"d\":2}",
		"{\"mechanism\":\"rr\",\"epsilon\":1,\"scaling\":\"none\"}",
		"{\"mechanism\":\"logistic_input\",\"epsilon\":1,\"delta\":1e-6,\"d\":2,\"clip\":0}",
		/* the same delta spelled out as jsonb prints it: more than 63
		 * characters (issue 24, item 5) */
		"{\"delta\": 0.0000000000000000000000000000000000000000000000000000000000000000000001, \"lower\": 0, \"upper\": 1, \"epsilon\": 1, \"mechanism\": \"scalar_gaussian\"}",
	};
	dpb_ldp_protocol p,
				q;
	dpb_err		err;
	char		hex[DPB_LDP_ID_LEN + 1],
				num[32];
	size_t		i;

	/* SHA-256 (FIPS 180-2 example) */
	dpb_ldp_sha256_hex("abc", 3, hex);
	CHECK(strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0,
		  "sha256(abc) = %s", hex);

	/* number formatting: shortest round trip */
	dpb_ldp_format_double(0.1, num);
	CHECK(strcmp(num, "0.1") == 0, "0.1 -> %s", num);
	dpb_ldp_format_double(1e-5, num);
	CHECK(strcmp(num, "1e-05") == 0, "1e-5 -> %s", num);
	dpb_ldp_format_double(1.0 / 3, num);
	CHECK(strtod(num, NULL) == 1.0 / 3 && strlen(num) == 18, "1/3 -> %s", num);
	dpb_ldp_format_double(-0.0, num);
	CHECK(strcmp(num, "0") == 0, "-0 -> %s", num);
	/* reads back, with as few significant digits as the brute-force
	 * shortest search (precision 1..17), on grid values, short decimals
	 * and random doubles */
	{
		dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(USEED(5));
		int			j,
					diff = 0;

		for (j = 0; j < 30000; j++)
		{
			uint64_t	u;
			double		v;
			char		ref[32];
			int			prec;

			dpb_uniform_u64(rb, 0, &u);
			v = j % 3 == 0 ? ldexp((double) (int64_t) (u >> 11) - 0x1p52, (int) (u % 60) - 50) :
				j % 3 == 1 ? (double) (int64_t) (u % 2000001 - 1000000) / 1000.0 :
				ldexp((double) (u >> 11), (int) (u % 40) - 73);
			for (prec = 1; prec <= 17; prec++)
			{
				snprintf(ref, sizeof(ref), "%.*g", prec, v);
				if (strtod(ref, NULL) == v)
					break;
			}
			dpb_ldp_format_double(v, num);
			if (strtod(num, NULL) != v || sig_digits(num) != sig_digits(ref))
				diff++;
		}
		CHECK(diff == 0, "%d of 30000 numbers not read back or longer than the shortest", diff);
		dpb_rbits_free(rb);
	}

	/* pinned canonical form and id: a change of either breaks every
	 * published protocol */
	CHECK(parse_ok(valid[4], &p), "linear protocol parses");
	{
		char	   *c = canonical(&p, 0);

		CHECK(strcmp(c, "{\"format\":\"dpbayes-ldp-protocol\",\"version\":1,\"mechanism\":\"ss_linear\","
					 "\"epsilon\":1,\"delta\":1e-05,\"d\":2,\"intercept\":false,\"clip\":1,\"y_bound\":2,"
					 "\"scaling\":\"none\"}") == 0,
			  "canonical form: %s", c);
		free(c);
	}
	CHECK(strcmp(p.id, PINNED_SCALING_NONE_ID) == 0, "pinned id: %s", p.id);
	/* key order and whitespace do not matter; a published id is checked.
	 * A protocol published before bounds became required (no bounds, no
	 * "scaling") keeps its canonical form and id when it carries the id;
	 * without it, it is refused and says why (issue 25, item 1). */
	CHECK(parse_ok(" {\n \"y_bound\" : 2.0 , \"clip\":1e0, \"intercept\":false,\"d\":2,"
				   "\"delta\":0.00001,\"epsilon\":1.0,\"mechanism\":\"ss_linear\","
				   "\"format\":\"dpbayes-ldp-protocol\",\"version\":1,"
				   "\"id\":\"7c6751482db5484f1147c9658aaf19602392f54b58a5df75e0983eb6e31104ea\"}\n",
				   &q), "published protocol without bounds (with its id) parses");
	{
		char	   *c = canonical(&q, 0);

		CHECK(strcmp(c, "{\"format\":\"dpbayes-ldp-protocol\",\"version\":1,\"mechanism\":\"ss_linear\","
					 "\"epsilon\":1,\"delta\":1e-05,\"d\":2,\"intercept\":false,\"clip\":1,\"y_bound\":2}") == 0,
			  "published canonical form kept: %s", c);
		free(c);
	}
	CHECK(strcmp(q.id, "7c6751482db5484f1147c9658aaf19602392f54b58a5df75e0983eb6e31104ea") == 0,
		  "published id kept: %s", q.id);
	CHECK(strcmp(p.id, q.id) != 0, "scaling none is part of the id");
	CHECK(parse_ok(" {\n \"scaling\":\"none\", \"y_bound\" : 2.0 , \"clip\":1e0, \"intercept\":false,\"d\":2,"
				   "\"delta\":0.00001,\"epsilon\":1.0,\"mechanism\":\"ss_linear\","
				   "\"format\":\"dpbayes-ldp-protocol\",\"version\":1,"
				   "\"id\":\"" PINNED_SCALING_NONE_ID "\"}\n",
				   &q), "reordered protocol with its id parses");
	CHECK(strcmp(p.id, q.id) == 0, "id independent of key order and spelling");
	memset(&err, 0, sizeof(err));
	CHECK(dpb_ldp_protocol_parse("{\"mechanism\":\"ss_linear\",\"epsilon\":1,\"delta\":1e-5,\"d\":2,\"y_bound\":2}",
								 &q, &err) == DPB_EINVAL &&
		  strstr(err.msg, "public bounds") != NULL && strstr(err.detail, "\"scaling\":\"none\"") != NULL,
		  "a new protocol without bounds is refused and says what to pass: %s / %s", err.msg, err.detail);
	memset(&err, 0, sizeof(err));
	CHECK(dpb_ldp_protocol_parse("{\"mechanism\":\"linear_input\",\"epsilon\":1,\"delta\":1e-6,\"d\":2,\"y_bound\":3}",
								 &q, &err) == DPB_EINVAL &&
		  strstr(err.msg, "public scale") != NULL && strstr(err.detail, "clip") != NULL,
		  "an input protocol without clip is refused and says why: %s / %s", err.msg, err.detail);

	/* round trip of every mechanism */
	for (i = 0; i < sizeof(valid) / sizeof(valid[0]); i++)
	{
		char	   *c1,
				   *c2,
				   *j;

		if (!parse_ok(valid[i], &p))
		{
			CHECK(0, "valid protocol %zu refused", i);
			continue;
		}
		c1 = canonical(&p, 0);
		j = canonical(&p, 1);
		CHECK(parse_ok(j, &q), "serialised protocol %zu parses", i);
		c2 = canonical(&q, 0);
		CHECK(strcmp(c1, c2) == 0 && strcmp(p.id, q.id) == 0,
			  "round trip %zu: %s vs %s", i, c1, c2);
		CHECK(parse_ok(c1, &q) && strcmp(p.id, q.id) == 0, "canonical form %zu parses to the same id", i);
		free(c1);
		free(c2);
		free(j);
	}
	/* distinct protocols have distinct ids */
	{
		dpb_ldp_protocol a,
					b;

		parse_ok("{\"mechanism\":\"rr\",\"epsilon\":1}", &a);
		parse_ok("{\"mechanism\":\"rr\",\"epsilon\":1.0000000000000002}", &b);
		CHECK(strcmp(a.id, b.id) != 0, "epsilon 1 and its successor have different ids");
	}
	for (i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++)
	{
		memset(&err, 0, sizeof(err));
		CHECK(dpb_ldp_protocol_parse(invalid[i], &p, &err) == DPB_EINVAL && err.msg[0] != '\0',
			  "invalid protocol %zu refused: %s", i, invalid[i]);
	}
	/* the two refusals the server now shares (issue 24, item 5) say why */
	memset(&err, 0, sizeof(err));
	dpb_ldp_protocol_parse("{\"mechanism\":\"rr\",\"epsilon\":1,\"epsilon\":2}", &p, &err);
	CHECK(strstr(err.detail, "appears twice") != NULL, "duplicate key message: %s", err.detail);
	memset(&err, 0, sizeof(err));
	dpb_ldp_protocol_parse(invalid[sizeof(invalid) / sizeof(invalid[0]) - 1], &p, &err);
	CHECK(strstr(err.detail, "more than 63 characters") != NULL, "long number message: %s",
		  err.detail);
}

void		test_ldp_sensitivity(void);
void
test_ldp_sensitivity(void)
{
	dpb_layout	L;
	dpb_err		err;
	double		delta = 0,
				best = 0;
	int			d,
				ia,
				ib,
				it,
				iy,
				iy2;
	dpb_ldp_protocol p;
	dpb_ldp_calib *c = malloc(sizeof(*c));

	for (d = 2; d <= 5; d += 3)
	{
		dpb_layout_init(&L, DPB_MODEL_LINEAR, d, 0);
		CHECK(dpb_sens_l2(&L, 1.0, 2.0, NULL, &delta, &err) == DPB_OK, "sens_l2");
		CHECK(delta >= sqrt(22.0) && delta <= sqrt(22.0) * (1 + 1e-9),
			  "d = %d: tight linear sensitivity %.12g, want sqrt(22) = %.12g (Lemma 3.1: sqrt(34) = %.6g)",
			  d, delta, sqrt(22.0), sqrt(34.0));
	}
	/* brute force over a = |z|^2, a2 = |z'|^2, t = <z,z'>, y, y2 */
	for (ia = 0; ia <= 20; ia++)
		for (ib = 0; ib <= 20; ib++)
			for (it = 0; it <= 20; it++)
				for (iy = 0; iy <= 16; iy++)
					for (iy2 = 0; iy2 <= 16; iy2++)
					{
						double		a = ia / 20.0,
									a2 = ib / 20.0,
									t = (2.0 * it / 20.0 - 1) * sqrt(a * a2),
									v = dpb_sens_pair_sq(&L, NULL, a, a2, t,
														 -2 + iy / 4.0, -2 + iy2 / 4.0);

						if (v > best)
							best = v;
					}
	CHECK(fabs(best - 22.0) < 1e-9, "brute-force supremum %.12g, want 22", best);

	/* the protocol's calibration uses it (equal noise weights) */
	CHECK(parse_ok("{\"mechanism\":\"ss_linear\",\"epsilon\":1,\"delta\":1e-5,\"d\":2,\"intercept\":false,"
				   "\"clip\":1,\"y_bound\":2,\"noise_weights\":[1,1,1],\"scaling\":\"none\"}", &p), "protocol");
	CHECK(c != NULL && dpb_ldp_calibrate(&p, c, &err) == DPB_OK, "calibrate");
	CHECK_REL(c->rel.sensitivity, sqrt(22.0), 1e-9, "protocol sensitivity");
	free(c);
}

void		test_ldp_rr_oue(void);
void
test_ldp_rr_oue(void)
{
	dpb_ldp_check chk[16];
	dpb_status	st;
	uint64_t	seed;
	int			n,
				k,
				K = 4,
				cat,
				cat2;
	unsigned	pat;
	double		eps = 1.3,
				tot = 0,
				worst = 0;

	for (seed = 11; seed <= 12; seed++)
	{
		dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(USEED(seed));

		n = dpb_ldp_selftest(rb, 200000, chk, 16, &st);
		CHECK(st == DPB_OK && n == 5, "selftest ran (%d checks)", n);
		for (k = 0; k < n; k++)
			CHECK(chk[k].pvalue > P_MIN, "seed %llu %s: chi2 %.2f df %d p %.3g",
				  (unsigned long long) seed, chk[k].name, chk[k].stat, chk[k].df, chk[k].pvalue);
		dpb_rbits_free(rb);
	}

	/* eq. 33 = the bitwise product of eq. 31: sums to 1; worst ratio e^eps */
	for (cat = 0; cat < K; cat++)
	{
		tot = 0;
		for (pat = 0; pat < (1u << K); pat++)
		{
			tot += dpb_ldp_oue_pattern_prob(K, cat, eps, pat);
			for (cat2 = 0; cat2 < K; cat2++)
			{
				double		r = dpb_ldp_oue_pattern_prob(K, cat, eps, pat) /
					dpb_ldp_oue_pattern_prob(K, cat2, eps, pat);

				if (r > worst)
					worst = r;
			}
		}
		CHECK(fabs(tot - 1) < 1e-15, "OUE pattern probabilities sum to %.17g", tot);
	}
	CHECK_REL(worst, exp(eps), 1e-12, "OUE worst-case likelihood ratio");

	/* control: the inverted reading (0 stays 0 w.p. 1/(1+e^eps), 1 stays 1
	 * w.p. 1/2) must be rejected by the same chi-square */
	{
		dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(USEED(13));
		dpb_ldp_protocol p;
		dpb_ldp_calib *c = malloc(sizeof(*c));
		dpb_err		err;
		int64_t		count[16] = {0};
		double		prob[16],
					x = 1,
					z[4],
					stat;
		int			i,
					df,
					bad = 0;

		memset(&p, 0, sizeof(p));
		p.mech = DPB_LDP_OUE;
		p.epsilon = eps;
		p.categories = K;
		dpb_ldp_calibrate(&p, c, &err);
		for (i = 0; i < 50000; i++)
		{
			if (dpb_ldp_randomize(&p, c, &x, rb, z, &err) != DPB_OK ||
				!dpb_ldp_report_on_grid(&p, c, z))
				bad++;
			pat = 0;
			for (k = 0; k < K; k++)
				pat |= (unsigned) z[k] << k;
			count[pat]++;
		}
		CHECK(bad == 0, "%d OUE reports failed or were not bits", bad);
		for (pat = 0; pat < 16; pat++)
			prob[pat] = dpb_ldp_oue_pattern_prob(K, 0, -eps, pat);
		stat = dpb_ldp_chisq(count, prob, 16, 50000, &df);
		CHECK(gsl_cdf_chisq_Q(stat, df) < P_MIN, "inverted OUE rejected: chi2 %.1f", stat);
		for (pat = 0; pat < 16; pat++)
			prob[pat] = dpb_ldp_oue_pattern_prob(K, 0, eps, pat);
		stat = dpb_ldp_chisq(count, prob, 16, 50000, &df);
		CHECK(gsl_cdf_chisq_Q(stat, df) > P_MIN, "corrected OUE accepted: chi2 %.1f", stat);
		free(c);
		dpb_rbits_free(rb);
	}
}

/*
 * The self-test's chi-square p-value (closed form, libm only, so the slim
 * client needs no GSL) against GSL's incomplete gamma: every df the
 * self-test can use (1..63) at statistics from far below to far above the
 * mean, to 1e-12 relative while the value is above 1e-250; the edges.
 */
void		test_ldp_chisq_q(void);
void
test_ldp_chisq_q(void)
{
	static const double xs[] = {1e-9, 0.01, 0.5, 1, 2.5, 7, 15.3, 30, 42.7, 63,
	100, 150.5, 300, 700, 1100};
	double		worst = 0;
	int			df,
				i,
				bad = 0;

	for (df = 1; df <= 63; df++)
		for (i = 0; i < (int) (sizeof(xs) / sizeof(xs[0])); i++)
		{
			double		got = dpb_ldp_chisq_q(xs[i], df),
						want = gsl_cdf_chisq_Q(xs[i], df),
						rel;

			if (want < 1e-250)
			{
				bad += !(got >= 0 && got < 1e-240);
				continue;
			}
			rel = fabs(got - want) / want;
			if (rel > worst)
				worst = rel;
			if (rel > 1e-12)
			{
				bad++;
				printf("  chisq_q(%g, %d) = %.17g, GSL %.17g\n", xs[i], df, got, want);
			}
		}
	CHECK(bad == 0, "%d chi-square p-values differ from GSL's (worst relative %.3g)", bad, worst);
	CHECK(dpb_ldp_chisq_q(0, 5) == 1 && dpb_ldp_chisq_q(-1, 1) == 1, "Q(x <= 0) = 1");
	CHECK(isnan(dpb_ldp_chisq_q(3, 0)) && isnan(dpb_ldp_chisq_q(NAN, 3)), "Q of df 0 or NaN x is NaN");
	CHECK(dpb_ldp_chisq_q(1e6, 30) == 0, "Q(1e6; 30) = 0");
}

static double
laplace_cdf(double x, double b)
{
	return x < 0 ? 0.5 * exp(x / b) : 1 - 0.5 * exp(-x / b);
}

static double
gauss_cdf(double x, double s)
{
	return gsl_cdf_ugaussian_P(x / s);
}

/* n reports of x; KS of the noise around the grid value of centre against
 * cdf(., scale) (accepted) and cdf(., 1.2 scale) (the control, rejected);
 * returns the number of failed or off-grid reports */
static int
scalar_ks(const dpb_ldp_protocol *p, const dpb_ldp_calib *c, dpb_rbits *rb,
		  double x, double centre, double (*cdf) (double, double), double scale)
{
	const int	n = 20000;
	double	   *u = malloc(sizeof(double) * n),
			   *w = malloc(sizeof(double) * n),
				g = ldexp(1.0, c->grid_exp),
				D;
	int			i,
				bad = 0;
	dpb_err		err;

	for (i = 0; i < n; i++)
	{
		double		z = 0;

		if (dpb_ldp_randomize(p, c, &x, rb, &z, &err) != DPB_OK ||
			!dpb_ldp_report_on_grid(p, c, &z))
			bad++;
		u[i] = cdf(z - nearbyint(centre / g) * g, scale);
		w[i] = cdf(z - nearbyint(centre / g) * g, 1.2 * scale);
	}
	D = dpb_ks_uniform_stat(u, n);
	CHECK(dpb_ks_pvalue(D, n) > P_MIN, "%s x = %g: KS D %.4f p %.3g",
		  dpb_ldp_mech_name(p->mech), x, D, dpb_ks_pvalue(D, n));
	D = dpb_ks_uniform_stat(w, n);
	CHECK(dpb_ks_pvalue(D, n) < P_MIN, "%s: control 1.2x scale rejected (D %.4f)",
		  dpb_ldp_mech_name(p->mech), D);
	free(u);
	free(w);
	return bad;
}

void		test_ldp_laplace(void);
void
test_ldp_laplace(void)
{
	dpb_ldp_protocol p;
	dpb_ldp_calib *c = malloc(sizeof(*c));
	dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(USEED(21));
	dpb_err		err;
	double		xs[2] = {1.2, 10.0},
				centre[2] = {1.2, 3.0},
				g,
				b;
	int			j,
				offgrid = 0;

	CHECK(parse_ok("{\"mechanism\":\"scalar_laplace\",\"epsilon\":0.7,\"lower\":-1,\"upper\":3}", &p),
		  "protocol");
	CHECK(dpb_ldp_calibrate(&p, c, &err) == DPB_OK, "calibrate");
	g = ldexp(1.0, c->grid_exp);
	b = g * (double) c->lap_t;
	CHECK(c->epsilon_used <= 0.7 && c->epsilon_used > 0.7 * (1 - 1e-5),
		  "pure epsilon used %.12g (<= 0.7)", c->epsilon_used);
	CHECK(b >= 4 / 0.7 && b < 4 / 0.7 * (1 + 1e-5), "Laplace scale %.12g ~ (b - a)/eps", b);
	CHECK(g <= 4 / 0.7 * 0x1p-20 && g > 4 / 0.7 * 0x1p-21, "grid step %.3g", g);
	for (j = 0; j < 2; j++)
		offgrid += scalar_ks(&p, c, rb, xs[j], centre[j], laplace_cdf, b);
	CHECK(offgrid == 0, "%d scalar reports failed or were off the grid", offgrid);
	{
		double		z = 0.5 * g + 1.0;

		CHECK(!dpb_ldp_report_on_grid(&p, c, &z), "an off-grid value is detected");
	}
	{
		double		bad = NAN,
					z;

		CHECK(dpb_ldp_randomize(&p, c, &bad, rb, &z, &err) == DPB_EDATA, "NaN refused");
	}
	free(c);
	dpb_rbits_free(rb);
}

void		test_ldp_scalar_gauss(void);
void
test_ldp_scalar_gauss(void)
{
	dpb_ldp_protocol p;
	dpb_ldp_calib *c = malloc(sizeof(*c));
	dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(USEED(22));
	dpb_err		err;
	double		xs[2] = {-0.3, -50.0},
				centre[2] = {-0.3, -1.0},
				g,
				sd,
				rho = 0;
	int			j,
				offgrid = 0;

	CHECK(parse_ok("{\"mechanism\":\"scalar_gaussian\",\"epsilon\":1,\"delta\":1e-6,\"lower\":-1,\"upper\":3}", &p),
		  "protocol");
	CHECK(dpb_ldp_calibrate(&p, c, &err) == DPB_OK, "calibrate");
	CHECK(dpb_zcdp_rho(1.0, 1e-6, &rho, &err) == DPB_OK, "rho*");
	g = ldexp(1.0, c->grid_exp);
	sd = g * sqrt((double) c->gauss_sigma2);
	/* (v_hi - v_lo)^2 / (2 sigma2) <= rho*, tight, and so (1, 1e-6)-DP */
	CHECK(c->rho_used <= rho && c->rho_used > rho * (1 - 1e-5),
		  "rho used %.12g, rho* %.12g", c->rho_used, rho);
	CHECK((double) (c->vhi - c->vlo) * (c->vhi - c->vlo) / (2.0 * c->gauss_sigma2) <= rho,
		  "zCDP of the integer mechanism");
	CHECK(dpb_zcdp_delta(c->rho_used, 1.0) <= 1e-6, "delta %.3g", dpb_zcdp_delta(c->rho_used, 1.0));
	CHECK(sd >= 4 / sqrt(2 * rho) && sd < 4 / sqrt(2 * rho) * (1 + 1e-5),
		  "noise sd %.12g ~ (b - a) / sqrt(2 rho*)", sd);
	for (j = 0; j < 2; j++)
		offgrid += scalar_ks(&p, c, rb, xs[j], centre[j], gauss_cdf, sd);
	CHECK(offgrid == 0, "%d scalar Gaussian reports failed or were off the grid", offgrid);
	free(c);
	dpb_rbits_free(rb);
}

static void
ss_case(const char *json, const double *rec, int reps, uint64_t seed)
{
	dpb_ldp_protocol p;
	dpb_ldp_calib *c = malloc(sizeof(*c));
	dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(USEED(seed));
	dpb_release ex;
	dpb_err		err;
	double	   *sd,
			   *z,
			   *u,
			   *w,
				D;
	int			i,
				k,
				m,
				offgrid = 0,
				fails = 0;

	if (!parse_ok(json, &p) || dpb_ldp_calibrate(&p, c, &err) != DPB_OK)
	{
		CHECK(0, "protocol %s", json);
		free(c);
		dpb_rbits_free(rb);
		return;
	}
	m = c->report_len;
	sd = malloc(sizeof(double) * m);
	z = malloc(sizeof(double) * m);
	u = malloc(sizeof(double) * m * reps);
	w = malloc(sizeof(double) * m * reps);
	dpb_release_noise_sd(&c->rel, sd);
	/* the exact statistics of the one record, by the core's release path */
	CHECK(dpb_release_from_rows(&ex, c->rel.model, &p.p, p.d, rec, rec + p.d, 1,
								NULL, NULL, &err) == DPB_OK, "exact statistics");
	for (i = 0; i < reps; i++)
	{
		if (dpb_ldp_randomize(&p, c, rec, rb, z, &err) != DPB_OK)
			fails++;
		offgrid += !dpb_ldp_report_on_grid(&p, c, z);
		for (k = 0; k < m; k++)
		{
			u[i * m + k] = gsl_cdf_ugaussian_P((z[k] - ex.stats[k]) / sd[k]);
			w[i * m + k] = gsl_cdf_ugaussian_P((z[k] - ex.stats[k]) / (1.2 * sd[k]));
		}
	}
	CHECK(fails == 0 && offgrid == 0, "%s: %d failures, %d reports off the grid",
		  dpb_ldp_mech_name(p.mech), fails, offgrid);
	z[0] += ldexp(1.0, c->rel.grid_exp[0] - 1);
	CHECK(!dpb_ldp_report_on_grid(&p, c, z), "a value moved off the grid is detected");
	D = dpb_ks_uniform_stat(u, m * reps);
	CHECK(dpb_ks_pvalue(D, m * reps) > P_MIN, "%s: KS D %.4f p %.3g",
		  dpb_ldp_mech_name(p.mech), D, dpb_ks_pvalue(D, m * reps));
	D = dpb_ks_uniform_stat(w, m * reps);
	CHECK(dpb_ks_pvalue(D, m * reps) < P_MIN, "%s: control 1.2x sd rejected (D %.4f)",
		  dpb_ldp_mech_name(p.mech), D);
	dpb_release_free_stats(&ex);
	free(sd);
	free(z);
	free(c);
	dpb_rbits_free(rb);
}

void		test_ldp_ss(void);
void
test_ldp_ss(void)
{
	double		lin[3] = {0.3, -0.4, 1.5},
				logi[4] = {0.2, 0.9, 0.5, -1},
				poi[3] = {0.1, 0.7, 3};
	const char *lj = "{\"mechanism\":\"ss_linear\",\"epsilon\":1,\"delta\":1e-5,\"d\":2,\"y_bound\":2,\"scaling\":\"none\"}";
	dpb_ldp_protocol p;
	dpb_ldp_calib *c = malloc(sizeof(*c));
	dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(USEED(41));
	dpb_err		err;
	double		z[64],
				bad[4];

	ss_case(lj, lin, 3000, 31);
	ss_case("{\"mechanism\":\"ss_logistic\",\"epsilon\":0.5,\"delta\":1e-6,\"d\":3,"
			"\"lower\":[0,0,0],\"upper\":[1,1,1]}", logi, 1500, 32);
	ss_case("{\"mechanism\":\"ss_poisson\",\"epsilon\":2,\"delta\":1e-6,\"d\":2,\"y_bound\":10,\"scaling\":\"none\"}",
			poi, 2000, 33);

	/* invalid records */
	parse_ok(lj, &p);
	dpb_ldp_calibrate(&p, c, &err);
	memcpy(bad, lin, sizeof(lin));
	bad[1] = INFINITY;
	CHECK(dpb_ldp_randomize(&p, c, bad, rb, z, &err) == DPB_EDATA, "infinite feature refused");
	bad[1] = 0;
	bad[2] = NAN;
	CHECK(dpb_ldp_randomize(&p, c, bad, rb, z, &err) == DPB_EDATA, "NaN response refused");
	parse_ok("{\"mechanism\":\"ss_logistic\",\"epsilon\":1,\"delta\":1e-6,\"d\":1,\"scaling\":\"none\"}", &p);
	dpb_ldp_calibrate(&p, c, &err);
	bad[0] = 0.5;
	bad[1] = 0.5;
	CHECK(dpb_ldp_randomize(&p, c, bad, rb, z, &err) == DPB_EDATA, "logistic y = 0.5 refused");
	bad[1] = 0;
	CHECK(dpb_ldp_randomize(&p, c, bad, rb, z, &err) == DPB_OK, "logistic y = 0 read as -1");
	parse_ok("{\"mechanism\":\"ss_poisson\",\"epsilon\":1,\"delta\":1e-6,\"d\":1,\"y_bound\":5,\"scaling\":\"none\"}", &p);
	dpb_ldp_calibrate(&p, c, &err);
	bad[1] = -1;
	CHECK(dpb_ldp_randomize(&p, c, bad, rb, z, &err) == DPB_EDATA, "negative Poisson y refused");
	parse_ok("{\"mechanism\":\"rr\",\"epsilon\":1}", &p);
	dpb_ldp_calibrate(&p, c, &err);
	bad[0] = 2;
	CHECK(dpb_ldp_randomize(&p, c, bad, rb, z, &err) == DPB_EDATA, "rr input 2 refused");
	parse_ok("{\"mechanism\":\"oue\",\"epsilon\":1,\"categories\":3}", &p);
	dpb_ldp_calibrate(&p, c, &err);
	bad[0] = 4;
	CHECK(dpb_ldp_randomize(&p, c, bad, rb, z, &err) == DPB_EDATA, "oue category 4 of 3 refused");
	bad[0] = 1.5;
	CHECK(dpb_ldp_randomize(&p, c, bad, rb, z, &err) == DPB_EDATA, "oue category 1.5 refused");
	free(c);
	dpb_rbits_free(rb);
}

void		test_ldp_cli(void);
void
test_ldp_cli(void)
{
	int			rc = system("bash test/ldp_cli.sh");

	CHECK(rc == 0, "test/ldp_cli.sh failed (status %d)", rc);
}

/*
 * Input perturbation (linear_input, logistic_input): the canonical form
 * with its defaults written out; the calibration (rho used <= rho* and
 * close to it, the composition eps_label + eps_features <= eps, the
 * sensitivity against brute force over record pairs); KS of the
 * standardised noise of every entry around the grid value of the clipped
 * record (accepted) and with a 1.2x sd (rejected); the RR label frequency;
 * every report on its grids; invalid records refused.
 */
static void
input_case(const char *json, const double *rec, const double *clipped, int reps,
		   uint64_t seed, const char *canon)
{
	dpb_ldp_protocol p;
	dpb_ldp_calib *c = malloc(sizeof(*c));
	dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(USEED(seed));
	dpb_err		err;
	double		z[DPB_MAX_D + 1],
			   *u,
			   *w,
				D,
				rho_star,
				bmax = 0;
	int			i,
				j,
				d,
				lin,
				n = 0,
				offgrid = 0,
				fails = 0,
				kept = 0;

	if (!parse_ok(json, &p) || dpb_ldp_calibrate(&p, c, &err) != DPB_OK)
	{
		CHECK(0, "protocol %s", json);
		free(c);
		dpb_rbits_free(rb);
		return;
	}
	{
		char	   *cf = canonical(&p, 0);

		CHECK(strcmp(cf, canon) == 0, "canonical form: %s", cf);
		free(cf);
	}
	d = p.d;
	lin = p.mech == DPB_LDP_LINEAR_INPUT;
	CHECK(c->report_len == d + 1 && dpb_ldp_input_len(&p) == d + 1, "report width");
	dpb_zcdp_rho(c->eps_features, p.delta, &rho_star, &err);
	CHECK(c->rho_used <= rho_star && c->rho_used > rho_star * (1 - 1e-4),
		  "%s: rho used %.10g <= rho* %.10g", dpb_ldp_mech_name(p.mech), c->rho_used, rho_star);
	CHECK(fabs(c->in_sd[0] / (c->in_sens / sqrt(2 * rho_star)) - 1) < 1e-4,
		  "noise sd of x %.8g = sensitivity / sqrt(2 rho*)", c->in_sd[0]);
	if (lin)
		CHECK(fabs(c->in_sd[1] / c->in_sd[0] / p.y_noise_ratio - 1) < 1e-5,
			  "sd_y / sd_x = y_noise_ratio");
	else
		CHECK(c->eps_label + c->eps_features <= p.epsilon &&
			  fabs(c->eps_label - p.label_share * p.epsilon) < 1e-15,
			  "budget split: %.17g + %.17g <= %g", c->eps_label, c->eps_features, p.epsilon);
	/* sensitivity: brute force over pairs of records on the boundary of
	 * the clipping region, v = (x, y / ratio) */
	for (i = 0; i < 20000; i++)
	{
		double		a[DPB_MAX_D + 1],
					b[DPB_MAX_D + 1],
					na = 0,
					nb = 0,
					dist = 0;
		uint64_t	r;

		for (j = 0; j < d; j++)
		{
			dpb_uniform_u64(rb, 2000001, &r);
			a[j] = ((double) r - 1e6) / 1e6;
			dpb_uniform_u64(rb, 2000001, &r);
			b[j] = ((double) r - 1e6) / 1e6;
			na += a[j] * a[j];
			nb += b[j] * b[j];
		}
		if (i % 2 == 0)			/* half the pairs antipodal */
			for (j = 0; j < d; j++)
				b[j] = -a[j], nb = na;
		for (j = 0; j < d; j++)
		{
			a[j] *= p.clip / sqrt(na);
			b[j] *= p.clip / sqrt(nb);
			dist += (a[j] - b[j]) * (a[j] - b[j]);
		}
		if (lin)
			dist += pow(2 * p.y_bound / p.y_noise_ratio, 2);
		bmax = fmax(bmax, sqrt(dist));
	}
	CHECK(bmax <= c->in_sens * (1 + 1e-12) && bmax > c->in_sens * (1 - 1e-9),
		  "sensitivity %.10g vs brute force %.10g", c->in_sens, bmax);

	u = malloc(sizeof(double) * (d + 1) * reps);
	w = malloc(sizeof(double) * (d + 1) * reps);
	for (i = 0; i < reps; i++)
	{
		if (dpb_ldp_randomize(&p, c, rec, rb, z, &err) != DPB_OK)
			fails++;
		offgrid += !dpb_ldp_report_on_grid(&p, c, z);
		for (j = 0; j < d + lin; j++)
		{
			int			k = j < d ? 0 : 1;
			double		g = ldexp(1.0, c->in_gexp[k]),
						centre = nearbyint(clipped[j] / g) * g;

			u[n] = gsl_cdf_ugaussian_P((z[j] - centre) / c->in_sd[k]);
			w[n++] = gsl_cdf_ugaussian_P((z[j] - centre) / (1.2 * c->in_sd[k]));
		}
		if (!lin)
			kept += z[d] == clipped[d];
	}
	CHECK(fails == 0 && offgrid == 0, "%s: %d failures, %d reports off the grid",
		  dpb_ldp_mech_name(p.mech), fails, offgrid);
	D = dpb_ks_uniform_stat(u, n);
	CHECK(dpb_ks_pvalue(D, n) > P_MIN, "%s: KS D %.4f p %.3g", dpb_ldp_mech_name(p.mech),
		  D, dpb_ks_pvalue(D, n));
	D = dpb_ks_uniform_stat(w, n);
	CHECK(dpb_ks_pvalue(D, n) < P_MIN, "%s: control 1.2x sd rejected (D %.4f)",
		  dpb_ldp_mech_name(p.mech), D);
	if (!lin)
	{
		/* label kept w.p. e^(c eps) / (1 + e^(c eps)): binomial z-score, and
		 * the control (the full epsilon) is rejected */
		double		pk = 1 / (1 + exp(-p.label_share * p.epsilon)),
					pf = 1 / (1 + exp(-p.epsilon)),
					zs = (kept - reps * pk) / sqrt(reps * pk * (1 - pk)),
					zf = (kept - reps * pf) / sqrt(reps * pf * (1 - pf));

		CHECK(fabs(zs) < 5, "label kept %d of %d (p %.4f): z %.2f", kept, reps, pk, zs);
		CHECK(fabs(zf) > 5, "control: the full-epsilon keep rate is rejected (z %.2f)", zf);
	}
	z[0] += ldexp(1.0, c->in_gexp[0] - 1);
	CHECK(!dpb_ldp_report_on_grid(&p, c, z), "a value moved off the grid is detected");
	free(u);
	free(w);
	free(c);
	dpb_rbits_free(rb);
}

void		test_ldp_input(void);
void
test_ldp_input(void)
{
	/* in range, and a record outside the ball (clipped along its ray, y
	 * clipped to y_bound) */
	double		lin_in[3] = {0.3, -0.4, 1.5},
				lin_far[3] = {3, 4, -7},
				lin_far_c[3] = {0.6, 0.8, -3},
				logi[4] = {0.2, -0.5, 1.0, 1},
				logi_far[4] = {0, 0, 8, -1},
				logi_far_c[4] = {0, 0, 2, 0},
				z[8],
				bad[4];
	const char *lj = "{\"mechanism\":\"linear_input\",\"epsilon\":1,\"delta\":1e-6,\"d\":2,\"clip\":1,\"y_bound\":3}";
	const char *lc = "{\"format\":\"dpbayes-ldp-protocol\",\"version\":1,\"mechanism\":\"linear_input\","
		"\"epsilon\":1,\"delta\":1e-06,\"d\":2,\"clip\":1,\"y_bound\":3,\"y_noise_ratio\":3}";
	const char *gj = "{\"mechanism\":\"logistic_input\",\"epsilon\":2,\"delta\":1e-6,\"d\":3,\"clip\":2}";
	const char *gc = "{\"format\":\"dpbayes-ldp-protocol\",\"version\":1,\"mechanism\":\"logistic_input\","
		"\"epsilon\":2,\"delta\":1e-06,\"d\":3,\"clip\":2,\"label_share\":0.5}";
	dpb_ldp_protocol p;
	dpb_ldp_calib *c = malloc(sizeof(*c));
	dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(USEED(61));
	dpb_err		err;

	input_case(lj, lin_in, lin_in, 4000, 51, lc);
	input_case(lj, lin_far, lin_far_c, 4000, 52, lc);
	input_case(gj, logi, logi, 6000, 53, gc);
	input_case(gj, logi_far, logi_far_c, 6000, 54, gc);

	parse_ok(gj, &p);
	dpb_ldp_calibrate(&p, c, &err);
	memcpy(bad, logi, sizeof(logi));
	bad[3] = 0.5;
	CHECK(dpb_ldp_randomize(&p, c, bad, rb, z, &err) == DPB_EDATA, "logistic_input y = 0.5 refused");
	bad[3] = -1;
	CHECK(dpb_ldp_randomize(&p, c, bad, rb, z, &err) == DPB_OK, "logistic_input y = -1 read as 0");
	bad[1] = NAN;
	CHECK(dpb_ldp_randomize(&p, c, bad, rb, z, &err) == DPB_EDATA, "NaN feature refused");
	z[3] = 0.5;
	CHECK(!dpb_ldp_report_on_grid(&p, c, z), "a label other than 0/1 is detected");
	parse_ok(lj, &p);
	dpb_ldp_calibrate(&p, c, &err);
	bad[0] = 0;
	bad[1] = 0;
	bad[2] = INFINITY;
	CHECK(dpb_ldp_randomize(&p, c, bad, rb, z, &err) == DPB_EDATA, "infinite response refused");
	free(c);
	dpb_rbits_free(rb);
}
