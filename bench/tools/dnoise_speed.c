/*
 * dnoise_speed.c — random bits and time per sample of the exact discrete
 * samplers (src/core/release/dnoise.c), and the zCDP / analytic-Gaussian noise
 * ratio table of docs/noise.md.  No server needed.
 *
 *   bench/tools/dnoise_speed.sh [DRAWS]      (default 200000 per setting)
 *
 * The bits come from the insecure seeded source (the counting is the same
 * for any source; pg_strong_random itself costs extra in the server).
 */
#include "agm.h"
#include "dnoise.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void
measure(const char *name, dpb_status (*f) (dpb_rbits *, uint64_t, int64_t *),
		uint64_t param, const char *pname, long n)
{
	dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(1);
	double		t0 = now(),
				dt;
	int64_t		y,
				acc = 0;
	long		i;

	for (i = 0; i < n; i++)
	{
		if (f(rb, param, &y) != DPB_OK)
		{
			fprintf(stderr, "%s failed\n", name);
			exit(1);
		}
		acc ^= y;
	}
	dt = now() - t0;
	printf("| %s | %s | %.2f | %.0f | %lld |\n", name, pname,
		   dpb_rbits_consumed(rb) / 8.0 / n, 1e9 * dt / n, (long long) (acc & 1));
	dpb_rbits_free(rb);
}

int
main(int argc, char **argv)
{
	long		n = argc > 1 ? atol(argv[1]) : 200000;
	static const double eps[] = {0.1, 0.5, 1, 2, 8};
	static const double dl[] = {1e-5, 1e-6, 1e-9};
	int			i,
				j;

	printf("| sampler | parameter | random bytes / sample | ns / sample | (parity) |\n");
	printf("|---|---|---|---|---|\n");
	measure("dgauss", dpb_dgauss, 1, "sigma2 = 1", n);
	measure("dgauss", dpb_dgauss, UINT64_C(1) << 20, "sigma2 = 2^20", n);
	measure("dgauss", dpb_dgauss, UINT64_C(1) << 38, "sigma2 = 2^38", n);
	measure("dgauss", dpb_dgauss, UINT64_C(1) << 41, "sigma2 = 2^41", n);
	measure("dgauss", dpb_dgauss, UINT64_C(1) << 44, "sigma2 = 2^44", n);
	measure("dgauss", dpb_dgauss, UINT64_C(1) << 50, "sigma2 = 2^50", n);
	measure("dlaplace", dpb_dlaplace, 1, "t = 1", n);
	measure("dlaplace", dpb_dlaplace, UINT64_C(1) << 19, "t = 2^19", n);
	measure("dlaplace", dpb_dlaplace, UINT64_C(1) << 20, "t = 2^20", n);
	measure("dlaplace", dpb_dlaplace, UINT64_C(1) << 22, "t = 2^22", n);
	measure("dlaplace", dpb_dlaplace, UINT64_C(1) << 40, "t = 2^40", n);

	printf("\n| eps | delta | rho | zCDP sigma/Delta | AGM sigma/Delta | ratio |\n");
	printf("|---|---|---|---|---|---|\n");
	for (i = 0; i < 5; i++)
		for (j = 0; j < 3; j++)
		{
			double		rho,
						sz,
						sa;
			dpb_err		err;

			if (dpb_zcdp_rho(eps[i], dl[j], &rho, &err) != DPB_OK
				|| dpb_zcdp_sigma(eps[i], dl[j], 1, &sz, &err) != DPB_OK
				|| dpb_agm_sigma(eps[i], dl[j], 1, &sa, &err) != DPB_OK)
			{
				fprintf(stderr, "calibration failed: %s\n", err.msg);
				return 1;
			}
			printf("| %g | %g | %.6g | %.4f | %.4f | %.4f |\n",
				   eps[i], dl[j], rho, sz, sa, sz / sa);
		}
	return 0;
}
