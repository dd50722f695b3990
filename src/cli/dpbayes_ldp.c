/*
 * dpbayes_ldp.c — the local-DP client: `dpbayes-ldp` (docs/ldp.md).
 *
 *   dpbayes-ldp protocol    --protocol FILE   canonical JSON with its id
 *   dpbayes-ldp calibration --protocol FILE   the public calibration
 *   dpbayes-ldp randomize   --protocol FILE [--input CSV] [--output CSV]
 *   dpbayes-ldp selftest    [--draws N]       distribution checks (OS source)
 *
 * Exit status: 0 success, 1 invalid protocol or record, 2 usage error,
 * 3 the random source or the system failed (or a self-test check failed).
 * Randomness comes only from getrandom(2).  The test build
 * (-DDPB_LDP_INSECURE_TEST) adds --insecure-seed N; its reports carry the
 * protocol id prefixed with "insecure_test:", which no server accepts.
 */
#include "ldp.h"
#include "ldp_selftest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_DATA 1
#define EXIT_USAGE 2
#define EXIT_SYS 3

static const char *prog = "dpbayes-ldp";

static void
usage(FILE *f)
{
	fprintf(f,
			"usage: %s protocol    --protocol FILE\n"
			"       %s calibration --protocol FILE\n"
			"       %s randomize   --protocol FILE [--input CSV] [--output CSV]"
#ifdef DPB_LDP_INSECURE_TEST
			" [--insecure-seed N]"
#endif
			"\n"
			"       %s selftest    [--draws N]\n"
			"Records: one per line, comma-separated numbers (an optional header line);\n"
			"rr: x in {0,1}; oue: category 1..K; scalar_laplace, scalar_gaussian: x;\n"
			"ss_*, linear_input: x1..xd,y; logistic_input: x1..xd,y with y in {0,1}.\n",
			prog, prog, prog, prog);
}

static char *
read_all(FILE *f, size_t limit)
{
	size_t		cap = 4096,
				len = 0;
	char	   *buf = malloc(cap);

	if (buf == NULL)
		return NULL;
	for (;;)
	{
		size_t		got;

		if (len + 1 >= cap)
		{
			char	   *nb;

			if (cap >= limit)
			{
				free(buf);
				return NULL;
			}
			nb = realloc(buf, cap * 2);
			if (nb == NULL)
			{
				free(buf);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
		got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
		if (got == 0)
			break;
	}
	buf[len] = '\0';
	return buf;
}

static int
load_protocol(const char *path, dpb_ldp_protocol *p)
{
	FILE	   *f;
	char	   *json;
	dpb_err		err;

	if (path == NULL)
	{
		fprintf(stderr, "%s: --protocol FILE is required\n", prog);
		return EXIT_USAGE;
	}
	f = fopen(path, "r");
	if (f == NULL)
	{
		fprintf(stderr, "%s: cannot open protocol file \"%s\": %s\n", prog, path,
				strerror(errno));
		return EXIT_DATA;
	}
	json = read_all(f, 1 << 20);
	fclose(f);
	if (json == NULL)
	{
		fprintf(stderr, "%s: protocol file \"%s\" is larger than 1 MB or memory ran out\n",
				prog, path);
		return EXIT_DATA;
	}
	memset(&err, 0, sizeof(err));
	if (dpb_ldp_protocol_parse(json, p, &err) != DPB_OK)
	{
		fprintf(stderr, "%s: %s: %s%s%s\n", prog, path, err.msg,
				err.detail[0] ? ": " : "", err.detail);
		free(json);
		return EXIT_DATA;
	}
	free(json);
	return 0;
}

/* Splits a CSV line of numbers; returns the number of fields, -1 when a
 * field is not a number (*badcol = its 1-based column). */
static int
parse_fields(char *line, double *v, int max, int *badcol)
{
	int			n = 0;
	char	   *s = line;

	for (;;)
	{
		char	   *end;
		char	   *comma = strchr(s, ',');

		if (comma)
			*comma = '\0';
		if (n >= max)
			return max + 1;
		while (*s == ' ' || *s == '\t')
			s++;
		v[n] = strtod(s, &end);
		while (*end == ' ' || *end == '\t' || *end == '\r')
			end++;
		if (end == s || *end != '\0')
		{
			*badcol = n + 1;
			return -1;
		}
		n++;
		if (!comma)
			return n;
		s = comma + 1;
	}
}

static int
cmd_randomize(const dpb_ldp_protocol *p, const char *in_path,
			  const char *out_path, dpb_rbits *rb)
{
	dpb_ldp_calib *c = malloc(sizeof(*c));
	FILE	   *in = stdin,
			   *out = stdout;
	int			nin = dpb_ldp_input_len(p);
	double		x[DPB_MAX_D + 1];
	double	   *z = NULL;
	char	   *line = NULL;
	size_t		cap = 0;
	long		lineno = 0,
				nrep = 0;
	int			rc = 0,
				k;
	char		buf[128];
	const char *stamp = dpb_rbits_insecure(rb) ? "insecure_test:" : "";
	dpb_err		err;

	memset(&err, 0, sizeof(err));
	if (c == NULL || dpb_ldp_calibrate(p, c, &err) != DPB_OK)
	{
		fprintf(stderr, "%s: calibration failed: %s %s\n", prog, err.msg, err.detail);
		free(c);
		return EXIT_SYS;
	}
	z = malloc(sizeof(double) * c->report_len);
	if (z == NULL)
	{
		free(c);
		return EXIT_SYS;
	}
	if (in_path && (in = fopen(in_path, "r")) == NULL)
	{
		fprintf(stderr, "%s: cannot open input \"%s\": %s\n", prog, in_path, strerror(errno));
		rc = EXIT_DATA;
		goto done;
	}
	if (out_path && (out = fopen(out_path, "w")) == NULL)
	{
		fprintf(stderr, "%s: cannot create output \"%s\": %s\n", prog, out_path, strerror(errno));
		rc = EXIT_DATA;
		goto done;
	}
	fputs("protocol_id", out);
	for (k = 0; k < c->report_len; k++)
	{
		dpb_ldp_report_label(p, c, k, buf, sizeof(buf));
		fprintf(out, ",%s", buf);
	}
	fputc('\n', out);
	while (getline(&line, &cap, in) >= 0)
	{
		int			n,
					bad = 0;
		char	   *s = line;
		dpb_status	st;

		lineno++;
		s[strcspn(s, "\r\n")] = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0')
			continue;
		n = parse_fields(s, x, nin, &bad);
		if (n < 0 && lineno == 1)
			continue;			/* a header line */
		if (n < 0)
		{
			fprintf(stderr, "%s: input line %ld, column %d: not a number\n", prog, lineno, bad);
			rc = EXIT_DATA;
			goto done;
		}
		if (n != nin)
		{
			fprintf(stderr, "%s: input line %ld: expected %d values for %s, found %s%d\n",
					prog, lineno, nin, dpb_ldp_mech_name(p->mech),
					n > nin ? "more than " : "", n > nin ? nin : n);
			rc = EXIT_DATA;
			goto done;
		}
		st = dpb_ldp_randomize(p, c, x, rb, z, &err);
		memset(x, 0, sizeof(x));
		if (st == DPB_EDATA)
		{
			fprintf(stderr, "%s: input line %ld: %s\n", prog, lineno, err.msg);
			rc = EXIT_DATA;
			goto done;
		}
		if (st != DPB_OK)
		{
			fprintf(stderr, "%s: input line %ld: %s\n", prog, lineno,
					st == DPB_ERNG ? "the random source failed; no report written" : err.msg);
			rc = EXIT_SYS;
			goto done;
		}
		fprintf(out, "%s%s", stamp, p->id);
		for (k = 0; k < c->report_len; k++)
		{
			dpb_ldp_format_double(z[k], buf);
			fprintf(out, ",%s", buf);
		}
		fputc('\n', out);
		nrep++;
	}
	if (ferror(in))
	{
		fprintf(stderr, "%s: error reading the input\n", prog);
		rc = EXIT_DATA;
	}
done:
	if (out == stdout)
	{
		if (fflush(stdout) != 0 && rc == 0)
			rc = EXIT_SYS;
	}
	else if (out != NULL && fclose(out) != 0 && rc == 0)
		rc = EXIT_SYS;
	if (in != stdin && in != NULL)
		fclose(in);
	if (rc == 0)
		fprintf(stderr, "%s: %ld reports written%s\n", prog, nrep,
				*stamp ? " (INSECURE TEST MODE: seeded, not private)" : "");
	free(line);
	free(z);
	free(c);
	return rc;
}

static int
cmd_selftest(int64_t draws)
{
	dpb_rbits  *rb = dpb_ldp_rbits_os();
	dpb_ldp_check chk[16];
	dpb_status	st;
	int			n,
				k,
				fails = 0;

	if (rb == NULL)
		return EXIT_SYS;
	n = dpb_ldp_selftest(rb, draws, chk, 16, &st);
	dpb_rbits_free(rb);
	if (st != DPB_OK)
	{
		fprintf(stderr, "%s: selftest: the random source failed\n", prog);
		return EXIT_SYS;
	}
	for (k = 0; k < n; k++)
	{
		int			ok = chk[k].pvalue > DPB_LDP_SELFTEST_PMIN;

		printf("%-4s %-28s chi2 %10.3f  df %2d  p %.3g\n", ok ? "ok" : "FAIL",
			   chk[k].name, chk[k].stat, chk[k].df, chk[k].pvalue);
		fails += !ok;
	}
	printf("%d checks, %d failed (%lld draws each, pass at p > %g)\n", n, fails,
		   (long long) draws, DPB_LDP_SELFTEST_PMIN);
	return fails ? EXIT_SYS : 0;
}

int
main(int argc, char **argv)
{
	const char *cmd,
			   *proto = NULL,
			   *in = NULL,
			   *outp = NULL;
	long long	draws = 100000;
	int			i,
				rc;
	dpb_ldp_protocol p;
	dpb_buf		b;
	dpb_rbits  *rb;
#ifdef DPB_LDP_INSECURE_TEST
	const char *seed = NULL;
#endif

	if (argc < 2)
	{
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0)
	{
		usage(stdout);
		return 0;
	}
	for (i = 2; i < argc; i++)
	{
		const char *a = argv[i];
		const char **dst = NULL;

		if (strcmp(a, "--protocol") == 0)
			dst = &proto;
		else if (strcmp(a, "--input") == 0)
			dst = &in;
		else if (strcmp(a, "--output") == 0)
			dst = &outp;
#ifdef DPB_LDP_INSECURE_TEST
		else if (strcmp(a, "--insecure-seed") == 0)
			dst = &seed;
#endif
		else if (strcmp(a, "--draws") == 0 && i + 1 < argc)
		{
			char	   *end;

			draws = strtoll(argv[++i], &end, 10);
			if (*end != '\0' || draws < 1000 || draws > 100000000)
			{
				fprintf(stderr, "%s: --draws must be an integer from 1000 to 100000000\n", prog);
				return EXIT_USAGE;
			}
			continue;
		}
		if (dst == NULL || i + 1 >= argc)
		{
			fprintf(stderr, "%s: unknown or incomplete option \"%s\"\n", prog, a);
			usage(stderr);
			return EXIT_USAGE;
		}
		*dst = argv[++i];
	}

	if (strcmp(cmd, "selftest") == 0)
		return cmd_selftest(draws);
	if (strcmp(cmd, "protocol") != 0 && strcmp(cmd, "calibration") != 0 &&
		strcmp(cmd, "randomize") != 0)
	{
		fprintf(stderr, "%s: unknown command \"%s\"\n", prog, cmd);
		usage(stderr);
		return EXIT_USAGE;
	}
	if ((rc = load_protocol(proto, &p)) != 0)
		return rc;
	if (strcmp(cmd, "protocol") == 0 || strcmp(cmd, "calibration") == 0)
	{
		dpb_ldp_calib *c = malloc(sizeof(*c));
		dpb_err		err;
		dpb_status	st;

		if (c == NULL)
			return EXIT_SYS;
		dpb_buf_init(&b);
		if (strcmp(cmd, "protocol") == 0)
			st = dpb_ldp_protocol_to_json(&p, &b);
		else if ((st = dpb_ldp_calibrate(&p, c, &err)) == DPB_OK)
			st = dpb_ldp_calib_to_json(&p, c, &b);
		free(c);
		if (st != DPB_OK)
		{
			dpb_buf_free(&b);
			fprintf(stderr, "%s: out of memory\n", prog);
			return EXIT_SYS;
		}
		printf("%s\n", b.data);
		dpb_buf_free(&b);
		return 0;
	}
#ifdef DPB_LDP_INSECURE_TEST
	if (seed != NULL)
	{
		fprintf(stderr, "%s: WARNING: --insecure-seed: deterministic test reports, NOT private\n", prog);
		rb = dpb_rbits_new_insecure_seeded(strtoull(seed, NULL, 10));
	}
	else
#endif
		rb = dpb_ldp_rbits_os();
	if (rb == NULL)
	{
		fprintf(stderr, "%s: out of memory\n", prog);
		return EXIT_SYS;
	}
	rc = cmd_randomize(&p, in, outp, rb);
	dpb_rbits_free(rb);
	return rc;
}
