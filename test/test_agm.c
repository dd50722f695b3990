/*
 * test_agm.c — the analytic Gaussian mechanism against reference values
 * (DESIGN.md §2, and roots computed with 80-digit mpmath bisection of
 * Phi(a) - e^eps Phi(-b) = delta), its error handling and scaling.
 */
#include "unit.h"
#include "agm.h"

#include <string.h>

void
test_agm(void)
{
	/* eps, delta, sigma for sens = 1 (DESIGN.md, 4-5 digits) */
	static const double design[][3] = {
		{0.1, 1e-5, 30.7496},
		{0.5, 1e-5, 7.0318},
		{1, 1e-5, 3.7306},
		{1, 1e-6, 4.2247},
		{2, 1e-5, 1.9938},
		{8, 1e-5, 0.6002},
	};
	/* eps, delta, exact root (mpmath, 80 digits) */
	static const double exact[][3] = {
		{0.1, 1e-5, 30.74956613197745},
		{0.5, 1e-5, 7.0318266755824914},
		{1, 1e-5, 3.7306316348159418},
		{1, 1e-6, 4.2246788893268353},
		{2, 1e-5, 1.9938124456435367},
		{8, 1e-5, 0.60022907219895156},
		{1e-3, 1e-5, 1724.2590335838075},
		{1e-3, 0.5, 0.74086918519562636},
		{1e-3, 1e-12, 5412.3021938439272},
		{1e9, 1e-5, 2.2362812310894161e-5},
		{1e9, 0.5, 2.2360679763817557e-5},
		{50, 1e-10, 0.18029422294241373},
		{1e-3, 0.99, 0.19409921406897858},
		{20, 1e-6, 0.30908468121885963},
		{1e12, 1e-9, 7.0710978009606078e-7},
		{1000, 1e-8, 0.025328742014670152},
		{0.3, 1e-100, 69.786085252822828},
	};
	dpb_err		err;
	double		sigma,
				s2;
	size_t		i;

	for (i = 0; i < sizeof(design) / sizeof(design[0]); i++)
	{
		CHECK(dpb_agm_sigma(design[i][0], design[i][1], 1.0, &sigma, &err) == DPB_OK,
			  "status %zu", i);
		CHECK_REL(sigma, design[i][2], 1e-4, "DESIGN reference");
	}

	for (i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
	{
		double		eps = exact[i][0],
					delta = exact[i][1],
					root = exact[i][2];

		CHECK(dpb_agm_sigma(eps, delta, 1.0, &sigma, &err) == DPB_OK,
			  "status eps=%g delta=%g: %s", eps, delta, err.msg);
		/* never below the root, and within 1e-9 of it */
		CHECK(sigma >= root * (1.0 - 1e-15) && sigma <= root * (1.0 + 1e-9),
			  "eps=%g delta=%g: sigma %.17g, root %.17g", eps, delta, sigma, root);
		/* the returned sigma satisfies the inequality; a slightly smaller
		 * one does not */
		CHECK(dpb_agm_delta(eps, 1.0, sigma) <= delta,
			  "eps=%g delta=%g: delta(sigma) = %.17g", eps, delta,
			  dpb_agm_delta(eps, 1.0, sigma));
		CHECK(dpb_agm_delta(eps, 1.0, sigma * (1.0 - 1e-6)) > delta,
			  "eps=%g delta=%g: not minimal", eps, delta);
	}

	/* sigma scales linearly with the sensitivity */
	dpb_agm_sigma(0.7, 1e-6, 1.0, &sigma, &err);
	dpb_agm_sigma(0.7, 1e-6, 7.5, &s2, &err);
	CHECK_REL(s2, 7.5 * sigma, 1e-10, "scaling 7.5");
	dpb_agm_sigma(0.7, 1e-6, 1e-3, &s2, &err);
	CHECK_REL(s2, 1e-3 * sigma, 1e-10, "scaling 1e-3");
	dpb_agm_sigma(1e9, 1e-5, 4.0, &s2, &err);
	CHECK_REL(s2, 4.0 * 2.2362812310894161e-5, 1e-9, "scaling at eps=1e9");

	/* the classical calibration sqrt(2 ln(1.25/delta)) / eps is larger */
	for (i = 0; i < 4; i++)
	{
		static const double eps[] = {0.05, 0.1, 0.5, 0.99};
		double		classical = sqrt(2.0 * log(1.25 / 1e-5)) / eps[i];

		dpb_agm_sigma(eps[i], 1e-5, 1.0, &sigma, &err);
		CHECK(classical > sigma, "classical %g <= analytic %g at eps %g",
			  classical, sigma, eps[i]);
	}

	/* delta(sigma) is decreasing */
	{
		double		prev = 2.0;
		int			ok = 1,
					k;

		for (k = -40; k <= 40; k++)
		{
			double		d = dpb_agm_delta(1.0, 1.0, pow(10.0, k / 10.0));

			if (!(d <= prev && d >= 0.0))
				ok = 0;
			prev = d;
		}
		CHECK(ok, "delta(sigma) not monotone");
	}

	/* errors */
	CHECK(dpb_agm_sigma(0.0, 1e-5, 1.0, &sigma, &err) == DPB_EINVAL &&
		  strcmp(err.msg, "epsilon must be positive and finite") == 0, "eps 0");
	CHECK(dpb_agm_sigma(-1.0, 1e-5, 1.0, &sigma, &err) == DPB_EINVAL, "eps < 0");
	CHECK(dpb_agm_sigma(INFINITY, 1e-5, 1.0, &sigma, &err) == DPB_EINVAL, "eps inf");
	CHECK(dpb_agm_sigma(NAN, 1e-5, 1.0, &sigma, &err) == DPB_EINVAL, "eps nan");
	CHECK(dpb_agm_sigma(1.0, 0.0, 1.0, &sigma, &err) == DPB_EINVAL &&
		  strstr(err.msg, "delta") != NULL, "delta 0");
	CHECK(dpb_agm_sigma(1.0, 1.0, 1.0, &sigma, &err) == DPB_EINVAL, "delta 1");
	CHECK(dpb_agm_sigma(1.0, NAN, 1.0, &sigma, &err) == DPB_EINVAL, "delta nan");
	CHECK(dpb_agm_sigma(1.0, 1e-5, 0.0, &sigma, &err) == DPB_EINVAL &&
		  strstr(err.msg, "sensitivity") != NULL, "sens 0");
	CHECK(dpb_agm_sigma(1.0, 1e-5, INFINITY, &sigma, &err) == DPB_EINVAL, "sens inf");
	CHECK(dpb_agm_sigma(1.0, 1e-5, -2.0, &sigma, &err) == DPB_EINVAL, "sens < 0");
}
