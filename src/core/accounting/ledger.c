/*
 * ledger.c — the privacy accountant (ledger.h, docs/governance.md).
 */
#include "ledger.h"
#include "dnoise.h"

#include <math.h>

dpb_status
dpb_ledger_add(dpb_ledger_sum *s, double rho, double eps, double delta, dpb_err *err)
{
	if (!(rho >= 0 && isfinite(rho) && eps > 0 && isfinite(eps) &&
		  delta >= 0 && delta < 1))
	{
		dpb_err_set(err, "invalid ledger charge",
					"A charge needs a finite rho >= 0, a finite epsilon > 0 and 0 <= delta < 1.");
		return DPB_EINVAL;
	}
	s->rho += rho;
	s->eps += eps;
	s->delta += delta;
	s->count++;
	return DPB_OK;
}

double
dpb_zcdp_eps(double rho, double delta)
{
	double		lo = 0,
				hi = 1;
	int			i;

	if (!(rho >= 0 && isfinite(rho) && delta > 0 && delta < 1))
		return NAN;
	if (rho == 0)
		return 0;
	/* dpb_zcdp_delta(rho, .) is non-increasing: find hi with delta(hi) <=
	 * delta (eps = rho + 2 sqrt(rho log(1/delta)) always does, BS16
	 * Proposition 1.3; doubling covers rounding) */
	hi = rho + 2 * sqrt(rho * log(1 / delta));
	while (!(dpb_zcdp_delta(rho, hi) <= delta))
	{
		hi *= 2;
		if (hi > 1e300)
			return NAN;
	}
	/* invariant: delta(lo) > delta (or lo = 0) and delta(hi) <= delta */
	for (i = 0; i < 200 && hi - lo > 1e-12 * hi; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (dpb_zcdp_delta(rho, mid) <= delta)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

void
dpb_ledger_spent(const dpb_ledger_sum *s, double eps_budget, double delta_budget,
				 double *eps, double *delta, dpb_comp_method *method, int *fits)
{
	double		ez = INFINITY;
	int			basic_ok = s->delta <= delta_budget,
				zcdp_ok = delta_budget > 0 && delta_budget < 1;

	if (s->count == 0)
	{
		*eps = 0;
		*delta = 0;
		*method = DPB_COMP_NONE;
		*fits = 1;
		return;
	}
	if (zcdp_ok)
	{
		ez = dpb_zcdp_eps(s->rho, delta_budget);
		if (isnan(ez))
			ez = INFINITY;
	}
	if (basic_ok && s->eps <= ez)
	{
		*eps = s->eps;
		*delta = s->delta;
		*method = DPB_COMP_BASIC;
	}
	else
	{
		*eps = ez;
		*delta = delta_budget;
		*method = DPB_COMP_ZCDP;
	}
	/* either valid bound within the budget will do; the zcdp one is
	 * checked directly, without the bisection's rounding */
	*fits = (basic_ok && s->eps <= eps_budget) ||
		(zcdp_ok && dpb_zcdp_delta(s->rho, eps_budget) <= delta_budget);
}

const char *
dpb_comp_method_name(dpb_comp_method m)
{
	switch (m)
	{
		case DPB_COMP_ZCDP:
			return "zcdp";
		case DPB_COMP_BASIC:
			return "basic";
		default:
			return "none";
	}
}
