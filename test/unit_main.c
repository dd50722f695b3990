/*
 * unit_main.c — runs every unit test of src/core.
 */
#include "unit.h"

#include <gsl/gsl_errno.h>
#include <stdlib.h>
#include <string.h>

int			unit_passed = 0;
int			unit_failed = 0;
const char *unit_current = "";
unsigned long unit_seed_shift = 0;

#define UNIT_TESTS(X) \
	X(diag) \
	X(linalg) \
	X(layout) \
	X(batch) \
	X(glm) \
	X(glm_unknown_n) \
	X(linear) \
	X(linear_unknown_n) \
	X(linear_nuts_grad) \
	X(linear_clamp_moments) \
	X(laplace_logconv) \
	X(linear_nuts) \
	X(linear_nuts_sbc) \
	X(sensitivity) \
	X(sens_radii) \
	X(yclamp) \
	X(agm) \
	X(accum) \
	X(rstate) \
	X(clip) \
	X(params) \
	X(dnoise) \
	X(attack) \
	X(grid_range) \
	X(grid_cost) \
	X(names) \
	X(betad) \
	X(betad_model) \
	X(betad_mlp) \
	X(betad_mlp_release) \
	X(betad_mlp_audit) \
	X(betad_sample) \
	X(betad_audit) \
	X(betad_release) \
	X(release) \
	X(glm_moments) \
	X(nuts) \
	X(xmoments) \
	X(unknown_n) \
	X(ledger) \
	X(release_sig) \
	X(ldp_protocol) \
	X(ldp_sensitivity) \
	X(ldp_rr_oue) \
	X(ldp_chisq_q) \
	X(ldp_laplace) \
	X(ldp_scalar_gauss) \
	X(ldp_ss) \
	X(ldp_input) \
	X(ldp_cli) \
	X(ldp_fork) \
	X(ldp_threads) \
	X(ldp_models) \
	X(ldp_models_rr) \
	X(ldp_models_gn)

char	   *openblas_get_corename(void);

#define DECLARE(name) void test_##name(void);
UNIT_TESTS(DECLARE)

/* whether name is a word of the space-separated list */
static int
name_in_list(const char *list, const char *name)
{
	size_t		n = strlen(name);
	const char *p = list;

	while ((p = strstr(p, name)) != NULL)
	{
		if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
			return 1;
		p += n;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const char *shift = getenv("DPB_TEST_SEED_SHIFT");
	const char *skip = getenv("DPB_UNIT_SKIP");

	gsl_set_error_handler_off();
	printf("openblas kernel %s (OPENBLAS_CORETYPE=%s)\n", openblas_get_corename(),
		   getenv("OPENBLAS_CORETYPE") ? getenv("OPENBLAS_CORETYPE") : "");
	if (shift && *shift)
	{
		char	   *end;
		long		k = strtol(shift, &end, 10);

		if (*end != '\0' || k < 0)
		{
			fprintf(stderr, "DPB_TEST_SEED_SHIFT must be a non-negative integer\n");
			return 2;
		}
		unit_seed_shift = (unsigned long) k;
		printf("seed shift %lu (DPB_TEST_SEED_SHIFT)\n", unit_seed_shift);
	}
	/*
	 * DPB_UNIT_SKIP: names of tests not to run (space separated), for the
	 * reruns under other OpenBLAS kernels (test/run_checks.sh): each skipped
	 * test is listed as such, never counted as passed.
	 */
#define SKIPPED(name) (skip != NULL && name_in_list(skip, name))
#define RUN(name) \
	if ((argc < 2 || strcmp(argv[1], #name) == 0) && SKIPPED(#name)) \
		printf("skip %s (DPB_UNIT_SKIP)\n", #name); \
	else if (argc < 2 || strcmp(argv[1], #name) == 0) \
	{ \
		int _f = unit_failed; \
		unit_current = #name; \
		test_##name(); \
		printf("%s %s\n", unit_failed == _f ? "ok" : "not ok", #name); \
		fflush(stdout); \
	}
	UNIT_TESTS(RUN)
	printf("%d passed, %d failed\n", unit_passed, unit_failed);
	return unit_failed == 0 ? 0 : 1;
}
