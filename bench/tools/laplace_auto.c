/*
 * laplace_auto.c — the Laplace linear releases' sampler forms (options
 * laplace_noise "auto", "omega", "latent") on releases the grid does not
 * have: one markdown row per (release, noise seed), with the form the auto
 * rule takes, the noise share it reads (dpb_lin_noise_share), the largest
 * R-hat, the smallest bulk and tail ESS (and which variables), the
 * divergences and the gradients per iteration of the default run (4 chains
 * x 1000 after 1000 warmup).
 *
 *   bench/tools/laplace_auto.sh
 *
 * Environment: D (2), N (300), EPS (0.1), NB (ar = add/remove, ro =
 * replace-one; ar), DATA (sql: x ~ U(-1, 1)^d with bounds +-1, y = 0.5 +
 * a - 0.7 b + ... + 0.5 (U - 0.5), y_bound 3, as regression test 26's
 * 300-row release; grid: bench_release_grid's data, x ~ N(0, 0.25^2),
 * y_bound 4), NSEEDS (comma-separated noise seeds; 1), SEED (the sampler's,
 * 7), FORM (auto, omega, latent, latent_mixed,
 * latent_chol; auto), CHAINS, WARMUP, DRAWS, TA
 * (target_accept), NUISANCE (1: the draws of mu and Sigma too, for DUMP), RULE_ONLY (set: print the
 * form that "auto" takes and the noise shares, all and all but sum y^2's;
 * no run), POLAR (options polar), CLAMP (options clamp, 0 or 1; unset: auto), YCLAMPED (the
 * release's y_clamped share; unset: none), NPRIOR_K (k > 0: the prior n_prior [max(0, n_hat - k b),
 * n_hat + k b] from the release's noisy count n_hat and its noise scale b,
 * b = sd / sqrt 2 for Laplace; NPRIOR_LO_ONLY=1: no upper bound; issue 26
 * item 3).  With N unknown, stderr also gets the share of the draws of n
 * outside n_hat -+ k b for k = 5 and 7: the posterior mass such a window
 * would remove (meaningful for the flat prior, NPRIOR_K unset).
 */
#include "bench_util.h"
#include "linear_model.h"
#include "dnoise.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double
envd(const char *k, double dflt)
{
	const char *s = getenv(k);

	return s && *s ? atof(s) : dflt;
}

static void
make(int d, long N, double eps, int ro, int sql, unsigned long nseed, dpb_release *r)
{
	dpb_params	p;
	dpb_err		err;
	dpb_rbits  *rb;
	gsl_rng    *g = gsl_rng_alloc(gsl_rng_mt19937);
	double	   *X = malloc(sizeof(double) * (size_t) N * d),
			   *Y = malloc(sizeof(double) * (size_t) N);
	long		i;
	int			j;

	gsl_rng_set(g, 1000 + nseed);
	dpb_params_default(&p);
	p.epsilon = eps;
	p.mechanism = DPB_MECH_LAPLACE;
	p.delta = 0;
	p.neighbours = ro ? DPB_NB_REPLACE : DPB_NB_ADD_REMOVE;
	p.d = d;
	p.y_bound = sql ? 3 : 4;
	/* YCLAMPED=s: linear releases with the block y_clamped of share s
	 * (the SQL aggregates' default is 0.02), which the posterior's clamp reads */
	if ( getenv("YCLAMPED") && *getenv("YCLAMPED"))
		p.y_clamped = atof(getenv("YCLAMPED"));
	if (sql)
	{
		p.has_bounds = 1;
		for (j = 0; j < d; j++)
		{
			p.lower[j] = -1;
			p.upper[j] = 1;
		}
	}
	for (i = 0; i < N; i++)
	{
		double		u = 0.5,
				   *x = X + (size_t) i * d;

		for (j = 0; j < d; j++)
		{
			x[j] = sql ? 2 * gsl_rng_uniform(g) - 1 : 0.25 * gsl_ran_ugaussian(g);
			u += (j % 2 ? (sql ? -0.7 : -1.0) : 1.0) * x[j];
		}
		Y[i] = u + (sql ? 0.5 * (gsl_rng_uniform(g) - 0.5) : 0.5 * gsl_ran_ugaussian(g));
	}
	rb = dpb_rbits_new_insecure_seeded((uint64_t) nseed * 7919 + (uint64_t) N * 64 + (uint64_t) d);
	if (dpb_release_from_rows(r, DPB_MODEL_LINEAR, &p, d, X, Y, N, rb, NULL, &err) != DPB_OK)
	{
		fprintf(stderr, "release: %s\n", err.msg);
		exit(1);
	}
	dpb_rbits_free(rb);
	free(X);
	free(Y);
	gsl_rng_free(g);
}

int
main(void)
{
	int			d = (int) envd("D", 2),
				ro = getenv("NB") && strcmp(getenv("NB"), "ro") == 0,
				sql = !(getenv("DATA") && strcmp(getenv("DATA"), "grid") == 0);
	long		N = (long) envd("N", 300);
	double		eps = envd("EPS", 0.1);
	const char *form = getenv("FORM") && *getenv("FORM") ? getenv("FORM") : "auto",
			   *ns = getenv("NSEEDS") && *getenv("NSEEDS") ? getenv("NSEEDS") : "1";

	gsl_set_error_handler_off();
	while (*ns)
	{
		char	   *end;
		unsigned long nseed = strtoul(ns, &end, 10);
		dpb_release r;
		dpb_infer_opts o;
		dpb_draws	dr;
		dpb_err		err;
		dpb_status	st;
		double		t0,
					t,
					rhat = 0,
					bulk = INFINITY,
					tail = INFINITY,
					share = NAN,
					rest = NAN,
				   *x;
		int			v,
					vr = 0,
					vb = 0,
					vt = 0,
					latent;

		if (end == ns)
			break;
		ns = *end == ',' ? end + 1 : end;
		make(d, N, eps, ro, sql, nseed, &r);
		dpb_infer_opts_default(&o, &r);
		o.seed = (uint64_t) envd("SEED", 7);
		o.chains = (int) envd("CHAINS", o.chains);
		o.warmup = (int) envd("WARMUP", o.warmup);
		o.draws = (int) envd("DRAWS", o.draws);
		o.nuts.target_accept = envd("TA", o.nuts.target_accept);
		o.nuisance = (int) envd("NUISANCE", 0);
		if (getenv("POLAR") && *getenv("POLAR"))
			o.lin.polar = (int) envd("POLAR", 0);
		/* CLAMP=0|1: options clamp (unset: auto) */
		if (getenv("CLAMP") && *getenv("CLAMP"))
			o.lin.clamp = (int) envd("CLAMP", 0);
		o.lin.laplace_latent = strcmp(form, "latent") == 0 ? 2 : strcmp(form, "latent_chol") == 0 ? 1 :
			strcmp(form, "latent_mixed") == 0 ? DPB_LIN_LATENT_MIXED :
			strcmp(form, "omega") == 0 ? 0 : -1;
		if (envd("NPRIOR_K", 0) > 0 && !o.count.n_known)
		{
			double		k = envd("NPRIOR_K", 0),
						b = o.count.n_laplace ? o.count.n_sd / M_SQRT2 : o.count.n_sd;

			o.count.n_lo = fmax(0, o.count.n_hat - k * b);
			o.count.n_hi = envd("NPRIOR_LO_ONLY", 0) > 0 ? INFINITY : o.count.n_hat + k * b;
			fprintf(stderr, "noise seed %lu: n_hat %.1f, b %.1f, n_prior [%.1f, %g]\n", nseed,
					o.count.n_hat, b, o.count.n_lo, o.count.n_hi);
		}
		{
			dpb_infer_opts oc = o;
			dpb_lin_ctx *c;

			oc.lin.laplace_latent = 0;
			c = dpb_lin_ctx_new(&r, &oc);
			share = dpb_lin_noise_shares(c, &rest);
			dpb_lin_ctx_free(c);
		}
		latent = dpb_lin_use_latent(&r, &o);
		if (getenv("RULE_ONLY"))
		{
			/* the form "auto" takes, the smallest share and the smallest
			 * but sum y^2's, without running */
			printf("| %s | %s | %d | %ld | %g | %lu | %s | %.3f | %.3f |\n", sql ? "sql" : "grid",
				   ro ? "replace" : "add/remove", d, N, eps, nseed,
				   latent == DPB_LIN_LATENT_MIXED ? "latent_mixed" : latent == 2 ? "latent" :
				   latent ? "latent_chol" : "omega", share, rest);
			dpb_release_free_stats(&r);
			continue;
		}
		t0 = bench_now();
		st = dpb_posterior_run(&r, &o, &dr, &err);
		t = bench_now() - t0;
		printf("| %s | %s | %d | %ld | %g | %lu | %llu | %s | %.3f | ", sql ? "sql" : "grid",
			   ro ? "replace" : "add/remove", d, N, eps, nseed, (unsigned long long) o.seed,
			   latent == DPB_LIN_LATENT_MIXED ? "latent_mixed" : latent == 2 ? "latent" :
			   latent ? "latent_chol" : "omega", share);
		if (st != DPB_OK)
		{
			printf("FAIL (%s) |\n", err.msg);
			fflush(stdout);
			dpb_release_free_stats(&r);
			continue;
		}
		if (getenv("DUMP"))
		{
			FILE	   *f = fopen(getenv("DUMP"), "w");

			for (v = 0; v < dr.nvars; v++)
				fprintf(f, "%s%s", v ? "\t" : "chain\t", dr.names[v]);
			fprintf(f, "\n");
			for (int ch = 0; ch < dr.chains; ch++)
				for (int it = 0; it < dr.iters; it++)
				{
					fprintf(f, "%d", ch);
					for (v = 0; v < dr.nvars; v++)
						fprintf(f, "\t%.6g", dr.v[((size_t) ch * dr.iters + it) * dr.nvars + v]);
					fprintf(f, "\n");
				}
			fclose(f);
		}
		x = malloc(sizeof(double) * dr.chains * dr.iters);
		for (v = 0; v < dr.nvars; v++)
			if (strcmp(dr.names[v], "n") == 0)
			{
				double		b = o.count.n_laplace ? o.count.n_sd / M_SQRT2 : o.count.n_sd;
				long		tot = (long) dr.chains * dr.iters,
							lo5 = 0,
							lo7 = 0,
							hi5 = 0,
							hi7 = 0;

				for (long i = 0; i < tot; i++)
				{
					double		nv = dr.v[i * dr.nvars + v];

					lo5 += nv < o.count.n_hat - 5 * b;
					lo7 += nv < o.count.n_hat - 7 * b;
					hi5 += nv > o.count.n_hat + 5 * b;
					hi7 += nv > o.count.n_hat + 7 * b;
				}
				fprintf(stderr, "noise seed %lu, seed %llu: n_hat %.1f, b %.1f; posterior mass of n below / above "
						"n_hat -+ 5 b: %.4f / %.4f, 7 b: %.4f / %.4f\n", nseed,
						(unsigned long long) o.seed, o.count.n_hat, b, (double) lo5 / tot,
						(double) hi5 / tot, (double) lo7 / tot, (double) hi7 / tot);
			}
		for (v = 0; v < dr.nvars; v++)
		{
			dpb_summary s;

			bench_summarize_var(&dr, v, x, &s);
			if (s.rhat > rhat || s.rhat != s.rhat)
				rhat = s.rhat, vr = v;
			if (s.ess_bulk < bulk || s.ess_bulk != s.ess_bulk)
				bulk = s.ess_bulk, vb = v;
			if (s.ess_tail < tail || s.ess_tail != s.ess_tail)
				tail = s.ess_tail, vt = v;
		}
		printf("%.4f (%s) | %.0f (%s) | %.0f (%s) | %ld | %.1f | %.1f | %s |\n",
			   rhat, dr.names[vr], bulk, dr.names[vb], tail, dr.names[vt], dr.divergences,
			   (double) dr.proposals / ((double) dr.chains * (o.warmup + (double) o.draws * o.thin)),
			   t, rhat <= 1.01 && bulk >= 400 && tail >= 400 ? "PASS" : "FAIL");
		fflush(stdout);
		free(x);
		dpb_draws_free(&dr);
		dpb_release_free_stats(&r);
	}
	return 0;
}
