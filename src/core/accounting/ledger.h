/*
 * ledger.h — the privacy accountant of governed releases (docs/governance.md).
 *
 * A dataset's ledger is a list of charges, each one mechanism recorded
 * exactly: its zCDP parameter rho (a Gaussian release: the rho it satisfies;
 * a Laplace release: eps^2 / 2, since pure eps-DP implies eps^2/2-zCDP) and
 * the (eps, delta) it was calibrated to (a Gaussian release with rho <=
 * rho*(eps, delta) is (eps, delta)-DP; a Laplace release is (eps, 0)-DP).
 * Two valid bounds compose them:
 *   zcdp:  rho-zCDP with rho = sum rho_i (zCDP composition, Bun-Steinke 2016),
 *          converted to (eps, delta_B) by dpb_zcdp_delta (CKS Corollary 13);
 *   basic: (sum eps_i, sum delta_i)-DP (basic composition).
 * The accountant reports the tighter at the dataset's delta_B.  Floating
 * point: public parameters only.
 */
#ifndef DPB_LEDGER_H
#define DPB_LEDGER_H

#include "dpb.h"

typedef enum dpb_comp_method
{
	DPB_COMP_NONE = 0,			/* empty ledger */
	DPB_COMP_ZCDP = 1,
	DPB_COMP_BASIC = 2
} dpb_comp_method;

/* Sums of a ledger's charges. */
typedef struct dpb_ledger_sum
{
	double		rho;			/* sum of rho_i */
	double		eps;			/* sum of eps_i */
	double		delta;			/* sum of delta_i */
	int			count;
} dpb_ledger_sum;

/* Adds one charge (rho >= 0, eps > 0, 0 <= delta < 1; DPB_EINVAL else). */
dpb_status	dpb_ledger_add(dpb_ledger_sum *s, double rho, double eps, double delta,
						   dpb_err *err);

/*
 * The smallest eps (to a relative 1e-12, rounded up) such that rho-zCDP
 * implies (eps, delta)-DP by dpb_zcdp_delta: dpb_zcdp_delta(rho, eps) <=
 * delta holds for the value returned.  0 for rho = 0; NaN for rho < 0,
 * delta outside (0, 1) or non-finite input.
 */
double		dpb_zcdp_eps(double rho, double delta);

/*
 * The (eps, delta) the ledger has spent, as the tighter valid bound at the
 * dataset's delta_budget: zcdp (needs delta_budget > 0) gives
 * (dpb_zcdp_eps(rho, delta_budget), delta_budget); basic gives (eps, delta)
 * and counts only when delta <= delta_budget.  Ties go to basic (exact, no
 * conversion).  Empty ledger: (0, 0), DPB_COMP_NONE.  *fits is 1 when the
 * spent (eps, delta) lies within (eps_budget, delta_budget): for zcdp
 * checked directly as dpb_zcdp_delta(rho, eps_budget) <= delta_budget.
 */
void		dpb_ledger_spent(const dpb_ledger_sum *s, double eps_budget,
							 double delta_budget, double *eps, double *delta,
							 dpb_comp_method *method, int *fits);

const char *dpb_comp_method_name(dpb_comp_method m);

#endif
