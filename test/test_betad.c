/*
 * test_betad.c — the betaD-Bayes calibration (src/core/betad/betad_calib.h)
 * against the check values of the digest (shared/papers/DIGEST-ldp-betad.md
 * §B2 and §B7.3), round trips, and the refusal of an epsilon below
 * epsilon_min.
 */
#include "unit.h"

#include "betad/betad_calib.h"

#include <math.h>

/* relative closeness with a formatted message */
#define REL(a, b, tol, ...) CHECK(fabs((a) - (b)) <= (tol) * fabs(b), __VA_ARGS__)

static void
check_logistic(void)
{
	double		eps[] = {0.2, 0.5, 1, 2, 5, 6},
				want[] = {11, 5, 3, 2, 1.4, 1.0 + 1.0 / 3.0},
				beta;
	dpb_err		err;
	int			i;

	for (i = 0; i < 6; i++)
	{
		CHECK(dpb_betad_beta(0, eps[i], 0, 1, DPB_BETAD_ROOT_SMALLER, &beta, &err) == DPB_OK,
			  "logistic beta(%g)", eps[i]);
		REL(beta, want[i], 1e-12, "logistic beta(%g)", eps[i]);
		REL(dpb_betad_epsilon(0, beta, 0, 1), eps[i], 1e-12, "logistic epsilon(beta(%g))", eps[i]);
	}
	/* the loss range at beta = 1.33 is 1 / b = 3.0303 (digest B7.3) */
	REL(1.0 / (1.33 - 1.0), 3.0303, 1e-4, "loss range");
}

static void
check_gaussian(void)
{
	/* epsilon_min against the floor (y_scale 1), digest B2 */
	double		s2[] = {1e-4, 1e-3, 1e-2, 0.05, 0.1, 1.0 / (2 * M_PI), 1.0},
				emin[] = {20.04, 13.78, 7.522, 3.147, 1.263, 0, 0};
	/* s^2 = 1: one root */
	double		e1[] = {0.5, 1, 2, 5},
				b1[] = {1.2584, 0.8860, 0.5845, 0.3028};
	/* s^2 = 0.01: two roots */
	double		e2[] = {8, 10, 20},
				lo[] = {0.4979, 0.3050, 0.1177},
				hi[] = {1.0068, 1.4131, 2.2503};
	double		beta;
	dpb_err		err;
	int			i;

	for (i = 0; i < 7; i++)
		CHECK(fabs(dpb_betad_epsilon_min(s2[i], 1) - emin[i]) <= 5e-4 * fmax(1, emin[i]),
			  "epsilon_min(s2 = %g) = %.6g, want %.6g", s2[i], dpb_betad_epsilon_min(s2[i], 1), emin[i]);
	for (i = 0; i < 4; i++)
	{
		CHECK(dpb_betad_beta(1, e1[i], 1.0, 1.0, DPB_BETAD_ROOT_SMALLER, &beta, &err) == DPB_OK,
			  "beta(%g, s2 = 1)", e1[i]);
		CHECK(fabs(beta - 1 - b1[i]) < 1e-4, "b(%g, s2 = 1) = %.6g, want %.4f", e1[i], beta - 1, b1[i]);
		REL(dpb_betad_epsilon(1, beta, 1.0, 1.0), e1[i], 1e-10, "round trip s2 = 1, eps %g", e1[i]);
	}
	for (i = 0; i < 3; i++)
	{
		double		bl,
					bh;

		CHECK(dpb_betad_beta(1, e2[i], 0.01, 1.0, DPB_BETAD_ROOT_SMALLER, &bl, &err) == DPB_OK &&
			  dpb_betad_beta(1, e2[i], 0.01, 1.0, DPB_BETAD_ROOT_LARGER, &bh, &err) == DPB_OK,
			  "roots at eps %g", e2[i]);
		CHECK(fabs(bl - 1 - lo[i]) < 1e-4 && fabs(bh - 1 - hi[i]) < 1e-4,
			  "roots at eps %g: %.6g %.6g, want %.4f %.4f", e2[i], bl - 1, bh - 1, lo[i], hi[i]);
		REL(dpb_betad_epsilon(1, bl, 0.01, 1.0), e2[i], 1e-10, "round trip, smaller root");
		REL(dpb_betad_epsilon(1, bh, 0.01, 1.0), e2[i], 1e-10, "round trip, larger root");
	}
	/* y on a public scale: the floor that matters is sigma2_floor / y_scale^2 */
	REL(dpb_betad_epsilon_min(0.01 * 9, 3), dpb_betad_epsilon_min(0.01, 1), 1e-12, "y_scale");
	/* below epsilon_min: refused, and the detail says which floor would do */
	CHECK(dpb_betad_beta(1, 5, 0.01, 1, DPB_BETAD_ROOT_SMALLER, &beta, &err) == DPB_ERANGE &&
		  err.detail[0] != '\0', "eps 5 with s2 0.01 (eps_min 7.52) accepted");
	{
		/* the floor the detail recommends reaches epsilon exactly at
		 * epsilon_min */
		double		need = exp(-5 / M_E) / (2 * M_PI);

		REL(dpb_betad_epsilon_min(need, 1), 5.0, 1e-9, "recommended floor");
		CHECK(dpb_betad_beta(1, 5, need * 1.0001, 1, DPB_BETAD_ROOT_SMALLER, &beta, &err) == DPB_OK,
			  "eps 5 with the recommended floor refused");
	}
	CHECK(dpb_betad_beta(1, -1, 1, 1, DPB_BETAD_ROOT_SMALLER, &beta, &err) == DPB_EINVAL, "eps -1");
	CHECK(dpb_betad_beta(1, 1, 0, 1, DPB_BETAD_ROOT_SMALLER, &beta, &err) == DPB_EINVAL, "floor 0");
	CHECK(dpb_betad_beta(1, 1, 1, NAN, DPB_BETAD_ROOT_SMALLER, &beta, &err) == DPB_EINVAL, "y_scale NaN");
	CHECK(isnan(dpb_betad_epsilon(1, 1.0, 1, 1)), "beta 1 has no epsilon");
}

/*
 * The public code calibrates the Gaussian beta with the prior variance
 * (9 for linear regression, 1 for the network) instead of the floor 0.01
 * (digest J7): reproduce the digest's table of the true epsilon.
 */
static void
check_public_code_table(void)
{
	double		claimed[] = {0.2, 0.3, 0.5, 1, 2, 5},
				b9[] = {1.0959, 0.9604, 0.7986, 0.5982, 0.4246, 0.2443},
				true9[] = {8.31, 7.87, 7.56, 7.65, 8.48, 11.48},
				true1[] = {13.88, 11.20, 9.07, 7.69, 7.68, 10.04};
	dpb_err		err;
	int			i;

	for (i = 0; i < 6; i++)
	{
		double		beta9,
					beta1;

		CHECK(dpb_betad_beta(1, claimed[i], 9, 1, DPB_BETAD_ROOT_SMALLER, &beta9, &err) == DPB_OK &&
			  dpb_betad_beta(1, claimed[i], 1, 1, DPB_BETAD_ROOT_SMALLER, &beta1, &err) == DPB_OK,
			  "calibration with the prior variance");
		CHECK(fabs(beta9 - 1 - b9[i]) < 1e-4, "b with prior variance 9 at eps %g: %.5g", claimed[i], beta9 - 1);
		CHECK(fabs(dpb_betad_epsilon(1, beta9, 0.01, 1) - true9[i]) < 0.01,
			  "true eps (prior var 9, claimed %g): %.4g, want %.2f", claimed[i],
			  dpb_betad_epsilon(1, beta9, 0.01, 1), true9[i]);
		CHECK(fabs(dpb_betad_epsilon(1, beta1, 0.01, 1) - true1[i]) < 0.01,
			  "true eps (prior var 1, claimed %g): %.4g, want %.2f", claimed[i],
			  dpb_betad_epsilon(1, beta1, 0.01, 1), true1[i]);
	}
}

void
test_betad(void)
{
	check_logistic();
	check_gaussian();
	check_public_code_table();
}
