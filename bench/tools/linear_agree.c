/*
 * bench/tools/linear_agree.c — do the default linear sampler (NUTS on the
 * marginal likelihood) and Gibbs-SS agree on one release, beyond Monte Carlo
 * error?  The measurement behind the sd tolerance of test/test_linear_nuts.c,
 * check_agreement().
 *
 *   linear_agree [-m laplace|gaussian] [-b add|replace] [-N rows] [-e eps]
 *                [-R release_seed] [-K seeds] [-S first_seed] [-o runs.tsv | -i runs.tsv]
 *                LABEL=SAMPLER:CHAINS:DRAWS:THIN:WARMUP[:TARGET_ACCEPT[:LATENT]] ...
 *
 * The release is the unit test's make_release(N, eps, mech, nb, intercept 1,
 * release_seed) (copied below; rows and noise from mt19937 seeded
 * release_seed and release_seed + 1, released by test/sim.c's sim_release).
 * Every configuration (SAMPLER nuts or gibbs; LATENT -1 auto, 0 omega, 1
 * latent for a Laplace release under NUTS) runs K times, with run seeds
 * first_seed, first_seed + 1, ... (first_seed 7 = the unit test's seed).
 *
 * Per configuration and variable (theta 0..2, sigma): the pooled posterior
 * mean and sd over all K runs' draws, the mean bulk ESS of one run and the
 * relative spread of one run's sd estimate across seeds (cv).  Per pair of
 * configurations: the ratio of the pooled sds with its standard error from
 * the spread across seeds (leave-one-seed-out jackknife; the delta-method
 * value from the per-run sds beside it), and the difference of the pooled
 * means in units of its standard error (sd of the per-run means / sqrt(K),
 * combined), and the spread of the ratio of ONE run of A to ONE run of B (same
 * seed index), which is what a unit test comparing one run of each sees.
 * Markdown on stdout; one line per run in runs.tsv (-o).  With -i the runs
 * are not made but read back from such a file (the rows of release_seed
 * and the configurations' labels, seeds first_seed ... first_seed + K - 1),
 * to redo the report.
 */
#include "diag.h"
#include "posterior.h"
#include "release.h"
#include "sim.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void		openblas_set_num_threads(int n);

#define NV 4					/* theta 0..2, sigma */
#define MAXC 8

typedef struct cfg
{
	char		label[32];
	dpb_sampler sampler;
	int			chains,
				draws,
				thin,
				warmup,
				latent;
	double		target_accept;
	/* per run (K) and variable: mean, sd, bulk ESS, tail ESS, rhat */
	double	   *m,
			   *s,
			   *eb,
			   *et,
			   *rh,
			   *secs;
	long		div;
} cfg;

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* test/test_linear_nuts.c's release (test/sim.h; USEED at shift 0 is the
 * identity) */
static int
make_release(int N, double eps, dpb_mechanism mech, dpb_neighbours nb, int intercept,
			 unsigned long seed, dpb_release *r)
{
	return sim_linear_d2(N, eps, mech, nb, intercept, seed, r, NULL);
}

static int
parse_cfg(const char *arg, cfg *c)
{
	const char *eq = strchr(arg, '=');
	char		sam[16];
	int			n;

	memset(c, 0, sizeof(*c));
	c->target_accept = 0.8;
	c->latent = -1;
	if (eq == NULL || eq - arg >= (int) sizeof(c->label))
		return -1;
	memcpy(c->label, arg, eq - arg);
	n = sscanf(eq + 1, "%15[a-z]:%d:%d:%d:%d:%lf:%d", sam, &c->chains, &c->draws, &c->thin,
			   &c->warmup, &c->target_accept, &c->latent);
	if (n < 5)
		return -1;
	if (strcmp(sam, "nuts") == 0)
		c->sampler = DPB_SAMPLER_NUTS;
	else if (strcmp(sam, "gibbs") == 0)
		c->sampler = DPB_SAMPLER_GIBBS;
	else
		return -1;
	return 0;
}

static double
mean_of(const double *x, int n, int stride)
{
	double		a = 0;

	for (int i = 0; i < n; i++)
		a += x[i * stride];
	return a / n;
}

static double
sd_of(const double *x, int n, int stride)
{
	double		m = mean_of(x, n, stride),
				a = 0;

	for (int i = 0; i < n; i++)
		a += (x[i * stride] - m) * (x[i * stride] - m);
	return sqrt(a / (n - 1));
}

/*
 * The pooled sd of variable k over the runs of c (all runs have the same
 * number of draws n each), leaving out run `skip` (-1: none): the sd of all
 * draws together, from the per-run means and sds.
 */
static double
pooled_sd(const cfg *c, int K, int k, int skip, double *pmean)
{
	double		n = (double) c->chains * c->draws,
				M = 0,
				ss = 0;
	int			used = 0;

	for (int i = 0; i < K; i++)
		if (i != skip)
		{
			M += c->m[i * NV + k];
			used++;
		}
	M /= used;
	for (int i = 0; i < K; i++)
		if (i != skip)
		{
			double		dm = c->m[i * NV + k] - M,
						s = c->s[i * NV + k];

			ss += (n - 1) * s * s + n * dm * dm;
		}
	if (pmean)
		*pmean = M;
	return sqrt(ss / (used * n - 1));
}

/* -i: the runs of release rseed from a file written by -o */
static int
read_runs(const char *path, unsigned long rseed, unsigned long seed0, int K, cfg *cf, int nc)
{
	FILE	   *f = fopen(path, "r");
	char		line[512],
				label[64];
	int			got = 0;

	if (f == NULL)
	{
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f))
	{
		unsigned long rs,
					seed;
		int			k,
					j;
		double		m,
					s,
					eb,
					et,
					rh,
					secs;
		long		dv;

		if (sscanf(line, "%lu\t%63[^\t]\t%lu\t%d\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf\t%ld", &rs, label,
				   &seed, &k, &m, &s, &eb, &et, &rh, &secs, &dv) != 11 ||
			rs != rseed || seed < seed0 || seed >= seed0 + K || k < 0 || k >= NV)
			continue;
		for (j = 0; j < nc && strcmp(cf[j].label, label) != 0; j++)
			;
		if (j == nc)
			continue;
		{
			int			i = seed - seed0;

			cf[j].m[i * NV + k] = m;
			cf[j].s[i * NV + k] = s;
			cf[j].eb[i * NV + k] = eb;
			cf[j].et[i * NV + k] = et;
			cf[j].rh[i * NV + k] = rh;
			cf[j].secs[i] = secs;
			if (k == 0)
				cf[j].div += dv;
			got++;
		}
	}
	fclose(f);
	if (got != K * NV * nc)
	{
		fprintf(stderr, "%s: %d of %d rows found\n", path, got, K * NV * nc);
		return -1;
	}
	return 0;
}

static void
usage(void)
{
	fprintf(stderr, "usage: linear_agree [-m laplace|gaussian] [-b add|replace] [-N rows] [-e eps] "
			"[-R release_seed] [-K seeds] [-S first_seed] [-o runs.tsv | -i runs.tsv] "
			"LABEL=SAMPLER:CHAINS:DRAWS:THIN:WARMUP[:TARGET_ACCEPT[:LATENT]] ...\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	dpb_mechanism mech = DPB_MECH_LAPLACE;
	dpb_neighbours nb = DPB_NB_ADD_REMOVE;
	int			N = 50000,
				K = 20,
				nc = 0,
				opt;
	double		eps = 1.0;
	unsigned long rseed = 99,
				seed0 = 7;
	const char *tsv = NULL,
			   *tsv_in = NULL;
	FILE	   *ft = NULL;
	cfg			cf[MAXC];
	dpb_release r;
	const char *vname[NV] = {"theta0 (intercept)", "theta1 (x1)", "theta2 (x2)", "sigma"};

	while ((opt = getopt(argc, argv, "m:b:N:e:R:K:S:o:i:")) != -1)
		switch (opt)
		{
			case 'm':
				mech = strcmp(optarg, "gaussian") == 0 ? DPB_MECH_GAUSSIAN : DPB_MECH_LAPLACE;
				break;
			case 'b':
				nb = strcmp(optarg, "replace") == 0 ? DPB_NB_REPLACE : DPB_NB_ADD_REMOVE;
				break;
			case 'N':
				N = atoi(optarg);
				break;
			case 'e':
				eps = atof(optarg);
				break;
			case 'R':
				rseed = strtoul(optarg, NULL, 10);
				break;
			case 'K':
				K = atoi(optarg);
				break;
			case 'S':
				seed0 = strtoul(optarg, NULL, 10);
				break;
			case 'o':
				tsv = optarg;
				break;
			case 'i':
				tsv_in = optarg;
				break;
			default:
				usage();
		}
	for (; optind < argc && nc < MAXC; optind++, nc++)
		if (parse_cfg(argv[optind], &cf[nc]) != 0)
			usage();
	if (nc < 2 || K < 3)
		usage();
	openblas_set_num_threads(1);
	if (make_release(N, eps, mech, nb, 1, rseed, &r) != 0)
	{
		fprintf(stderr, "sim_release failed\n");
		return 1;
	}
	if (tsv && !tsv_in && (ft = fopen(tsv, "w")) == NULL)
	{
		perror(tsv);
		return 1;
	}
	if (ft)
		fprintf(ft, "release\tconfig\tseed\tvar\tmean\tsd\tess_bulk\tess_tail\trhat\tsecs\tdivergences\n");

	for (int j = 0; j < nc; j++)
	{
		cfg		   *c = &cf[j];

		c->m = calloc(K * NV, sizeof(double));
		c->s = calloc(K * NV, sizeof(double));
		c->eb = calloc(K * NV, sizeof(double));
		c->et = calloc(K * NV, sizeof(double));
		c->rh = calloc(K * NV, sizeof(double));
		c->secs = calloc(K, sizeof(double));
	}
	if (tsv_in && read_runs(tsv_in, rseed, seed0, K, cf, nc) != 0)
		return 1;
	/* the seeds outermost, so that a partial run covers every config */
	for (int i = 0; i < K && !tsv_in; i++)
		for (int j = 0; j < nc; j++)
		{
			cfg		   *c = &cf[j];
			dpb_infer_opts o;
			dpb_draws	dr;
			dpb_err		err;
			dpb_status	st;
			double		t0;
			int			n;
			double	   *x;

			dpb_infer_opts_default(&o, &r);
			o.sampler = c->sampler;
			o.chains = c->chains;
			o.draws = c->draws;
			o.thin = c->thin;
			o.warmup = c->warmup;
			o.nuts.target_accept = c->target_accept;
			o.lin.laplace_latent = c->latent;
			o.seed = seed0 + i;
			t0 = now();
			st = dpb_posterior_run(&r, &o, &dr, &err);
			c->secs[i] = now() - t0;
			if (st != DPB_OK)
			{
				fprintf(stderr, "%s seed %lu: %s %s\n", c->label, seed0 + i, err.msg, err.detail);
				return 1;
			}
			c->div += dr.divergences;
			n = dr.chains * dr.iters;
			x = malloc(sizeof(double) * n);
			for (int k = 0; k < NV; k++)
			{
				dpb_summary su;

				for (int t = 0; t < n; t++)
					x[t] = dr.v[(size_t) t * dr.nvars + k];
				dpb_summarize(x, dr.chains, dr.iters, &su);
				c->m[i * NV + k] = su.mean;
				c->s[i * NV + k] = su.sd;
				c->eb[i * NV + k] = su.ess_bulk;
				c->et[i * NV + k] = su.ess_tail;
				c->rh[i * NV + k] = su.rhat;
				if (ft)
					fprintf(ft, "%lu\t%s\t%lu\t%d\t%.10g\t%.10g\t%.1f\t%.1f\t%.5f\t%.3f\t%ld\n",
							rseed, c->label, seed0 + i, k, su.mean, su.sd, su.ess_bulk,
							su.ess_tail, su.rhat, c->secs[i], dr.divergences);
			}
			free(x);
			dpb_draws_free(&dr);
			fprintf(stderr, "release %lu seed %lu %s: %.2f s, sd(var1) %.5g sd(var3) %.5g\n",
					rseed, seed0 + i, c->label, c->secs[i], c->s[i * NV + 1], c->s[i * NV + 3]);
			if (ft)
				fflush(ft);
		}
	if (ft)
		fclose(ft);

	/* the report */
	printf("Release: %s, %s, N = %d, epsilon = %g, release seed %lu; K = %d runs per "
		   "configuration, run seeds %lu..%lu.\n\n",
		   mech == DPB_MECH_LAPLACE ? "laplace" : "gaussian",
		   nb == DPB_NB_ADD_REMOVE ? "add/remove (N unknown)" : "replace (N known)",
		   N, eps, rseed, K, seed0, seed0 + K - 1);
	printf("| config | sampler | chains x draws | thin | warmup | target_accept | laplace form | "
		   "s / run (median) | divergences |\n|---|---|---|---|---|---|---|---|---|\n");
	for (int j = 0; j < nc; j++)
	{
		cfg		   *c = &cf[j];
		double	   *t = malloc(sizeof(double) * K);

		memcpy(t, c->secs, sizeof(double) * K);
		for (int a = 1; a < K; a++)
			for (int b = a; b > 0 && t[b - 1] > t[b]; b--)
			{
				double		u = t[b];

				t[b] = t[b - 1];
				t[b - 1] = u;
			}
		char		ta[16] = "-";

		if (c->sampler == DPB_SAMPLER_NUTS)
			snprintf(ta, sizeof(ta), "%.2f", c->target_accept);
		printf("| %s | %s | %d x %d | %d | %d | %s | %s | %.2f | %ld |\n", c->label,
			   dpb_sampler_name(c->sampler), c->chains, c->draws, c->thin, c->warmup, ta,
			   c->sampler != DPB_SAMPLER_NUTS ? "-" :
			   c->latent < 0 ? "auto" : c->latent ? "latent" : "omega", t[K / 2], c->div);
		free(t);
	}
	printf("\n");
	for (int k = 0; k < NV; k++)
	{
		printf("**var %d, %s**\n\n", k, vname[k]);
		printf("| config | pooled mean | pooled sd | one run: ESS bulk / tail (mean) | max R-hat | "
			   "one run: sd of its mean / pooled sd | one run: cv of its sd (%%) | "
			   "cv x sqrt(ESS bulk) |\n|---|---|---|---|---|---|---|---|\n");
		for (int j = 0; j < nc; j++)
		{
			cfg		   *c = &cf[j];
			double		M,
						S = pooled_sd(c, K, k, -1, &M),
						ms = sd_of(c->m + k, K, NV),
						cv = sd_of(c->s + k, K, NV) / mean_of(c->s + k, K, NV),
						eb = mean_of(c->eb + k, K, NV),
						et = mean_of(c->et + k, K, NV),
						rmax = 0;

			for (int i = 0; i < K; i++)
				if (c->rh[i * NV + k] > rmax)
					rmax = c->rh[i * NV + k];
			printf("| %s | %.6g | %.5g | %.0f / %.0f | %.4f | %.4f | %.2f | %.3f |\n", c->label,
				   M, S, eb, et, rmax, ms / S, 100 * cv, cv * sqrt(eb));
		}
		printf("\n| A / B | sd ratio | se (jackknife) | se (delta) | (ratio - 1) / se | "
			   "mean diff A - B | its se | mean diff / se | one run each: sd of the ratio (%%) | "
			   "one run each: ratios outside 1 +- 5%% |\n|---|---|---|---|---|---|---|---|---|---|\n");
		for (int a = 0; a < nc; a++)
			for (int b = a + 1; b < nc; b++)
			{
				cfg		   *A = &cf[a],
						   *B = &cf[b];
				double		MA,
							MB,
							R = pooled_sd(A, K, k, -1, &MA) / pooled_sd(B, K, k, -1, &MB),
							jm = 0,
							jv = 0,
							*jr = malloc(sizeof(double) * K),
							cva = sd_of(A->s + k, K, NV) / mean_of(A->s + k, K, NV),
							cvb = sd_of(B->s + k, K, NV) / mean_of(B->s + k, K, NV),
							sed = R * sqrt((cva * cva + cvb * cvb) / K),
							sej,
							dm = MA - MB,
							sem = sqrt((pow(sd_of(A->m + k, K, NV), 2) +
										pow(sd_of(B->m + k, K, NV), 2)) / K);

				double		pr = 0,
							pv = 0;
				int			out5 = 0;

				for (int i = 0; i < K; i++)
				{
					double		ri = A->s[i * NV + k] / B->s[i * NV + k];

					jr[i] = pooled_sd(A, K, k, i, NULL) / pooled_sd(B, K, k, i, NULL);
					jm += jr[i] / K;
					pr += ri / K;
					out5 += fabs(ri - 1) >= 0.05;
				}
				for (int i = 0; i < K; i++)
					pv += pow(A->s[i * NV + k] / B->s[i * NV + k] - pr, 2) / (K - 1);
				for (int i = 0; i < K; i++)
					jv += (jr[i] - jm) * (jr[i] - jm);
				sej = sqrt((K - 1.0) / K * jv);
				printf("| %s / %s | %.4f | %.4f | %.4f | %+.2f | %+.3g | %.3g | %+.2f | %.2f | %d of %d |\n",
					   A->label, B->label, R, sej, sed, (R - 1) / sej, dm, sem, dm / sem,
					   100 * sqrt(pv) / pr, out5, K);
				free(jr);
			}
		printf("\n");
	}
	dpb_release_free_stats(&r);
	return 0;
}
