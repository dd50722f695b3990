/*
 * audit_stats.c — Clopper–Pearson bounds and demonstrated epsilon for the
 * privacy audits of the unit tests (audit_stats.h).
 */
#include "audit_stats.h"

#include <gsl/gsl_cdf.h>
#include <math.h>

double
audit_beta_quantile(double q, double a, double b)
{
	double		lo = 0,
				hi = 1;
	int			it;

	for (it = 0; it < 200; it++)
	{
		double		mid = 0.5 * (lo + hi);

		if (gsl_cdf_beta_P(mid, a, b) < q)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

double
audit_cp_lower(int k, int n, double alpha)
{
	return k == 0 ? 0.0 : audit_beta_quantile(alpha, k, n - k + 1);
}

double
audit_cp_upper(int k, int n, double alpha)
{
	return k == n ? 1.0 : audit_beta_quantile(1 - alpha, k + 1, n - k);
}

double
audit_eps_lower_bound(int tp, int fp, int n, double delta, double alpha)
{
	double		tpr_lo = audit_cp_lower(tp, n, alpha),
				fpr_hi = audit_cp_upper(fp, n, alpha),
				tnr_lo = audit_cp_lower(n - fp, n, alpha),
				fnr_hi = audit_cp_upper(n - tp, n, alpha),
				e1 = 0,
				e2 = 0;

	if (tpr_lo - delta > 0)
		e1 = log((tpr_lo - delta) / fmax(fpr_hi, 1e-300));
	if (tnr_lo - delta > 0)
		e2 = log((tnr_lo - delta) / fmax(fnr_hi, 1e-300));
	return fmax(0, fmax(e1, e2));
}
