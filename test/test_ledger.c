/*
 * test_ledger.c — the accountant of governed releases (ledger.h):
 *  - dpb_zcdp_eps inverts dpb_zcdp_delta (delta at the returned eps is
 *    within the target, and 1e-9 below it is not), and matches the
 *    closed-form upper bound rho + 2 sqrt(rho log(1/delta)) from below;
 *  - k identical Gaussian releases (sigma each) spend exactly what one
 *    release with sigma / sqrt(k) spends, through the calibration of
 *    dnoise.h (dpb_zcdp_sigma) and the ledger;
 *  - never looser than basic composition: for ledgers of Gaussian and
 *    Laplace charges, the reported eps is <= sum eps_i whenever
 *    sum delta_i <= delta_B, and the fit decision accepts every ledger basic
 *    composition accepts; all-Laplace ledgers with delta_B = 0 use basic;
 *  - many Gaussian releases: zcdp is much tighter than basic (sqrt(k)).
 */
#include "unit.h"
#include "dnoise.h"
#include "ledger.h"

#include <math.h>

void		test_ledger(void);

static void
eps_inverts_delta(void)
{
	const double rhos[] = {1e-4, 0.01, 0.1, 0.5, 2, 10};
	const double deltas[] = {1e-10, 1e-6, 1e-3};
	int			i,
				j;

	for (i = 0; i < 6; i++)
		for (j = 0; j < 3; j++)
		{
			double		e = dpb_zcdp_eps(rhos[i], deltas[j]);

			CHECK(dpb_zcdp_delta(rhos[i], e) <= deltas[j], "delta(eps) within target rho=%g", rhos[i]);
			CHECK(dpb_zcdp_delta(rhos[i], e * (1 - 1e-9)) > deltas[j], "eps is the smallest rho=%g", rhos[i]);
			CHECK(e <= rhos[i] + 2 * sqrt(rhos[i] * log(1 / deltas[j])), "below BS16 bound rho=%g", rhos[i]);
			CHECK(e > rhos[i], "above rho rho=%g", rhos[i]);
		}
	CHECK(dpb_zcdp_eps(0, 1e-6) == 0, "rho 0");
	CHECK(isnan(dpb_zcdp_eps(-1, 1e-6)), "rho < 0");
	CHECK(isnan(dpb_zcdp_eps(1, 0)), "delta 0");
}

static void
k_gaussians(void)
{
	const int	ks[] = {2, 4, 9, 25};
	int			i,
				j;
	dpb_err		err;

	for (i = 0; i < 4; i++)
	{
		int			k = ks[i];
		double		sigma,
					rho1,
					rhok,
					e1,
					ek,
					d1,
					dk,
					sens = 3.0;
		dpb_ledger_sum one = {0},
					many = {0};
		dpb_comp_method m1,
					mk;
		int			f1,
					fk;

		CHECK(dpb_zcdp_sigma(1.0, 1e-6, sens, &sigma, &err) == DPB_OK, "sigma");
		rhok = sens * sens / (2 * sigma * sigma);	/* each of the k */
		rho1 = sens * sens / (2 * (sigma / sqrt(k)) * (sigma / sqrt(k)));
		for (j = 0; j < k; j++)
			CHECK(dpb_ledger_add(&many, rhok, 1.0, 1e-6, &err) == DPB_OK, "add");
		/* the one release is calibrated to (eps1, 1e-6) */
		CHECK(dpb_ledger_add(&one, rho1, dpb_zcdp_eps(rho1, 1e-6), 1e-6, &err) == DPB_OK, "add");
		dpb_ledger_spent(&many, 100, 1e-5, &ek, &dk, &mk, &fk);
		dpb_ledger_spent(&one, 100, 1e-5, &e1, &d1, &m1, &f1);
		CHECK_REL(many.rho, one.rho, 1e-13, "k rho = one rho at sigma/sqrt(k)");
		CHECK_REL(ek, e1, 1e-11, "k gaussians = one at sigma/sqrt(k)");
		CHECK(mk == DPB_COMP_ZCDP && m1 == DPB_COMP_ZCDP, "method zcdp k=%d", k);
		CHECK(ek < k * 1.0, "tighter than basic k=%d", k);
	}
}

static void
never_looser_than_basic(void)
{
	/* deterministic mixes of charges */
	int			t;
	dpb_err		err;

	for (t = 0; t < 200; t++)
	{
		dpb_ledger_sum s = {0};
		int			n = 1 + t % 7,
					j;
		double		e,
					d,
					eb = 0.5 + (t % 11) * 0.4,
					db = (t % 3 == 0) ? 0 : 1e-5 * (1 + t % 5);
		dpb_comp_method m;
		int			fits,
					basic_fits;

		for (j = 0; j < n; j++)
		{
			double		eps = 0.05 + 0.37 * ((t * 7 + j * 13) % 10);
			int			laplace = (t % 3 == 0) || ((t + j) % 2 == 0);
			double		rho;

			if (laplace)
				rho = eps * eps / 2;
			else
				CHECK(dpb_zcdp_rho(eps, 1e-6, &rho, &err) == DPB_OK, "rho*");
			CHECK(dpb_ledger_add(&s, rho, eps, laplace ? 0 : 1e-6, &err) == DPB_OK, "add");
		}
		dpb_ledger_spent(&s, eb, db, &e, &d, &m, &fits);
		basic_fits = s.delta <= db && s.eps <= eb;
		if (s.delta <= db)
			CHECK(e <= s.eps, "never looser than basic t=%d", t);
		CHECK(d <= db || m == DPB_COMP_BASIC, "delta within budget t=%d", t);
		if (basic_fits)
			CHECK(fits, "fits whenever basic does t=%d", t);
		if (fits && m == DPB_COMP_ZCDP)
			CHECK(dpb_zcdp_delta(s.rho, eb) <= db, "zcdp fit is real t=%d", t);
		if (db == 0)
			CHECK(m == DPB_COMP_BASIC && fits == (s.eps <= eb), "pure budget: basic only t=%d", t);
	}
}

static void
edge_cases(void)
{
	dpb_ledger_sum s = {0};
	dpb_err		err;
	double		e,
				d;
	dpb_comp_method m;
	int			fits;

	dpb_ledger_spent(&s, 1, 1e-6, &e, &d, &m, &fits);
	CHECK(e == 0 && d == 0 && m == DPB_COMP_NONE && fits, "empty ledger");
	CHECK(dpb_ledger_add(&s, -1, 1, 0, &err) == DPB_EINVAL, "rho < 0");
	CHECK(dpb_ledger_add(&s, 1, 0, 0, &err) == DPB_EINVAL, "eps 0");
	CHECK(dpb_ledger_add(&s, 1, 1, 1, &err) == DPB_EINVAL, "delta 1");
	CHECK(dpb_ledger_add(&s, NAN, 1, 0, &err) == DPB_EINVAL, "nan");
	/* exactly k = 3 Laplace releases of eps 1 fit a budget of 3 */
	for (int j = 0; j < 3; j++)
		dpb_ledger_add(&s, 0.5, 1, 0, &err);
	dpb_ledger_spent(&s, 3, 0, &e, &d, &m, &fits);
	CHECK(fits && e == 3 && m == DPB_COMP_BASIC, "3 of 3");
	dpb_ledger_add(&s, 0.5, 1, 0, &err);
	dpb_ledger_spent(&s, 3, 0, &e, &d, &m, &fits);
	CHECK(!fits, "4th refused");
	/* 100 Gaussian releases: zcdp ~ sqrt(k), far below basic's k eps */
	{
		dpb_ledger_sum g = {0};
		double		rho;

		dpb_zcdp_rho(0.1, 1e-8, &rho, &err);
		for (int j = 0; j < 100; j++)
			dpb_ledger_add(&g, rho, 0.1, 1e-8, &err);
		dpb_ledger_spent(&g, 10, 1e-6, &e, &d, &m, &fits);
		CHECK(m == DPB_COMP_ZCDP && e < 5 && fits, "zcdp tight for many gaussians: %g", e);
	}
}

void
test_ledger(void)
{
	eps_inverts_delta();
	k_gaussians();
	never_looser_than_basic();
	edge_cases();
}
