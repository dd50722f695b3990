/*
 * ldp_poison.c — what ONE poisoning client can still do within the
 * plausible range (issue 24, item 3; docs/ldp.md "Ingest check").
 *
 *   ldp_poison N EPS DATASETS
 *
 * N - 1 honest records (x ~ N(0.2, 0.4^2), y = 0.5 + 1.0 x + N(0, 0.3^2))
 * are randomized by the core's linear_input randomizer (d = 1, clip 1,
 * y_bound 2, delta 1e-6; insecure seeded bits: reports exactly as clients
 * send them, on the public grid).  The N-th report is either one more
 * honest report (the clean posterior) or a poisoned one: a corner or an
 * axis point of the plausible box that dpbayes.ldp_check, ldp_collect and
 * ldp_release accept (|z_x| <= clip + 12 sd_x, |z_y| <= y_bound + 12 sd_y,
 * on the grid).  For each of DATASETS honest data sets, the linear model's
 * posterior (NUTS, 4 chains x 1000 + 1000, the same seed for every run) is
 * run on the clean and on each poisoned collection; printed per data set
 * and candidate: the shift of each posterior mean in units of the clean
 * posterior sd, and the Monte Carlo standard error of that shift.  One
 * line per (data set, candidate), '|'-separated, for ldp_poison.sh.
 */
#include "ldp.h"
#include "ldp_models.h"
#include "diag.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NV 5					/* theta0, theta1, sigma, mu_x, sd_x */

typedef struct
{
	double		mean[NV],
				sd[NV],
				se[NV];
} summ;

static void
add_report(double *sw, double *sww, const double *w)
{
	for (int a = 0; a < 2; a++)
	{
		sw[a] += w[a];
		for (int b = 0; b < 2; b++)
			sww[a * 2 + b] += w[a] * w[b];
	}
}

static int
posterior(const dpb_ldpm_data *dt, summ *s, char (*names)[DPB_VAR_NAME_LEN])
{
	dpb_ldpm_prior pr;
	dpb_ldpm_run_opts o = {4, 1000, 1000, 11, 0.8, 10, NULL, 0};
	dpb_draws	dr;
	dpb_err		err;
	double	   *x;

	dpb_ldpm_prior_default(dt, &pr);
	if (dpb_ldpm_run(dt, &pr, &o, &dr, &err) != DPB_OK)
	{
		fprintf(stderr, "posterior: %s\n", err.msg);
		return 1;
	}
	x = malloc(sizeof(double) * dr.chains * dr.iters);
	for (int k = 0; k < NV; k++)
	{
		int			n = dr.chains * dr.iters;
		double		m = 0,
					v = 0;

		for (int i = 0; i < n; i++)
			m += (x[i] = dr.v[(size_t) i * dr.nvars + k]) / n;
		for (int i = 0; i < n; i++)
			v += (x[i] - m) * (x[i] - m) / (n - 1);
		s->mean[k] = m;
		s->sd[k] = sqrt(v);
		s->se[k] = s->sd[k] / sqrt(dpb_ess_bulk(x, dr.chains, dr.iters));
		if (names)
			strcpy(names[k], dr.names[k]);
	}
	free(x);
	dpb_draws_free(&dr);
	return 0;
}

int
main(int argc, char **argv)
{
	long		N;
	double		eps;
	int			sets;
	char		json[256];
	dpb_ldp_protocol p;
	dpb_ldp_calib c;
	dpb_err		err;
	dpb_rbits  *rb;
	gsl_rng    *r;
	double		hx,
				hy;
	char		names[NV][DPB_VAR_NAME_LEN];
	/* the poisoned report, in units of the plausible box's half-widths */
	static const double cand[8][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1},
	{1, 0}, {-1, 0}, {0, 1}, {0, -1}};

	if (argc < 4)
	{
		fprintf(stderr, "usage: ldp_poison N EPS DATASETS\n");
		return 2;
	}
	gsl_set_error_handler_off();
	N = atol(argv[1]);
	eps = atof(argv[2]);
	sets = atoi(argv[3]);
	snprintf(json, sizeof(json),
			 "{\"mechanism\":\"linear_input\",\"epsilon\":%.17g,\"delta\":1e-6,\"d\":1,"
			 "\"clip\":1,\"y_bound\":2}", eps);
	if (dpb_ldp_protocol_parse(json, &p, &err) != DPB_OK
		|| dpb_ldp_calibrate(&p, &c, &err) != DPB_OK)
	{
		fprintf(stderr, "protocol: %s\n", err.msg);
		return 1;
	}
	/* the plausible box of ldp_check (src/pg/ldp_protocol_sql.c), on the
	 * grid: its largest grid values */
	hx = ldexp(floor(ldexp(p.clip + 12 * c.in_sd[0], -c.in_gexp[0])), c.in_gexp[0]);
	hy = ldexp(floor(ldexp(p.y_bound + 12 * c.in_sd[1], -c.in_gexp[1])), c.in_gexp[1]);
	printf("# protocol %s\n# noise sd x %.6g, y %.6g; plausible box |z_x| <= %.6g, |z_y| <= %.6g\n",
		   json, c.in_sd[0], c.in_sd[1], hx, hy);
	rb = dpb_rbits_new_insecure_seeded(20261126);
	r = gsl_rng_alloc(gsl_rng_mt19937);
	for (int set = 0; set < sets; set++)
	{
		double		sw[2] = {0, 0},
					sww[4] = {0, 0, 0, 0},
					last[2];
		dpb_ldpm_data dt;
		summ		clean;

		gsl_rng_set(r, 1000 + set);
		for (long i = 0; i < N; i++)
		{
			double		rec[2],
						w[2];

			rec[0] = 0.2 + gsl_ran_gaussian(r, 0.4);
			rec[1] = 0.5 + 1.0 * rec[0] + gsl_ran_gaussian(r, 0.3);
			if (dpb_ldp_randomize(&p, &c, rec, rb, w, &err) != DPB_OK)
			{
				fprintf(stderr, "randomize: %s\n", err.msg);
				return 1;
			}
			if (i < N - 1)
				add_report(sw, sww, w);
			else
				memcpy(last, w, sizeof(last));
		}
		memset(&dt, 0, sizeof(dt));
		dt.model = DPB_LDPM_LINEAR;
		dt.n = (double) N;
		dt.d = 1;
		dt.sd_x[0] = c.in_sd[0];
		dt.sd_y = c.in_sd[1];
		/* clean: the N-th report honest */
		{
			double		s1[2],
						s2[4];

			memcpy(s1, sw, sizeof(s1));
			memcpy(s2, sww, sizeof(s2));
			add_report(s1, s2, last);
			dt.sw = s1;
			dt.sww = s2;
			if (posterior(&dt, &clean, names))
				return 1;
			if (set == 0)
			{
				printf("# variables");
				for (int k = 0; k < NV; k++)
					printf(" %s", names[k]);
				printf("\n");
			}
			printf("|%ld|%g|%d|clean|0|0", N, eps, set);
			for (int k = 0; k < NV; k++)
				printf("|%.6g|%.6g", clean.mean[k], clean.sd[k]);
			printf("|\n");
		}
		for (int q = 0; q < 8; q++)
		{
			double		s1[2],
						s2[4],
						w[2] = {cand[q][0] * hx, cand[q][1] * hy};
			summ		pz;

			memcpy(s1, sw, sizeof(s1));
			memcpy(s2, sww, sizeof(s2));
			add_report(s1, s2, w);
			dt.sw = s1;
			dt.sww = s2;
			if (posterior(&dt, &pz, NULL))
				return 1;
			/* shift in clean posterior sd, and its MC standard error */
			printf("|%ld|%g|%d|poison|%g|%g", N, eps, set, w[0], w[1]);
			for (int k = 0; k < NV; k++)
				printf("|%.4f|%.4f", (pz.mean[k] - clean.mean[k]) / clean.sd[k],
					   sqrt(pz.se[k] * pz.se[k] + clean.se[k] * clean.se[k]) / clean.sd[k]);
			printf("|\n");
			fflush(stdout);
		}
	}
	gsl_rng_free(r);
	dpb_rbits_free(rb);
	return 0;
}
