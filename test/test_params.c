/*
 * test_params.c — dpb_params_check and dpb_params_check_model accept valid
 * parameters and reject each invalid case with the documented status
 * (params.h): DPB_EINVAL for invalid values, DPB_ERANGE for a feature
 * count outside [1, DPB_MAX_D], DPB_EDATA when the data's feature count
 * does not match the parameters'.  Every rejection fills the message.
 */
#include "unit.h"
#include "params.h"

#include <float.h>
#include <string.h>

/* valid parameters for model m with d features */
static void
valid(dpb_params *p, dpb_model m, int d)
{
	int			j;

	dpb_params_default(p);
	p->d = d;
	p->y_bound = m == DPB_MODEL_LOGISTIC ? 0.0 : 2.0;
	p->has_bounds = 1;
	for (j = 0; j < d; j++)
	{
		p->lower[j] = -1.0 - j;
		p->upper[j] = 1.0 + 0.5 * j;
	}
	p->has_names = 1;
	for (j = 0; j < d; j++)
		snprintf(p->names[j], DPB_NAME_LEN, "f%d", j + 1);
}

/* expects status `want` from dpb_params_check (model 0) or
 * dpb_params_check_model, with a message */
static void
expect(const dpb_params *p, dpb_model m, int d, dpb_status want, const char *what)
{
	dpb_err		err;
	dpb_status	st;

	memset(&err, 0, sizeof(err));
	st = m == 0 ? dpb_params_check(p, &err) : dpb_params_check_model(p, m, d, &err);
	CHECK(st == want, "%s: status %d, want %d (%s)", what, (int) st, (int) want, err.msg);
	if (want != DPB_OK)
		CHECK(err.msg[0] != '\0', "%s: no error message", what);
	/* a NULL err is allowed */
	st = m == 0 ? dpb_params_check(p, NULL) : dpb_params_check_model(p, m, d, NULL);
	CHECK(st == want, "%s (err NULL): status %d", what, (int) st);
}

static const double bad_pos[] = {0.0, -0.0, -1.0, -1e-300, NAN, INFINITY, -INFINITY};
#define NBAD_POS ((int) (sizeof(bad_pos) / sizeof(bad_pos[0])))

void
test_params(void)
{
	dpb_params	p;
	char		what[128];
	int			m,
				i,
				di,
				d,
				ic,
				nb;
	const int	ds[] = {1, 2, 3, 4, 5, DPB_MAX_D};
	/* blocks per model under replace: linear 3, logistic 2, poisson 2
	 * (intercept) / 4; add/remove appends the count block */
	const int	nblocks[2][4] = {{0, 3, 2, 4}, {0, 3, 2, 2}};

	/* defaults */
	dpb_params_default(&p);
	CHECK(p.epsilon == 1.0 && p.delta == 1e-6 && p.clip == 1.0 && p.intercept == 1 &&
		  p.mechanism == DPB_MECH_GAUSSIAN && p.scaling == DPB_SCALE_BOX &&
		  p.d == 0 && p.has_bounds == 0 && p.nweights == 0 && p.y_bound == 0 &&
		  p.neighbours == DPB_NB_ADD_REMOVE,
		  "dpb_params_default");
	p.neighbours = 0;
	expect(&p, 0, 0, DPB_EINVAL, "neighbours 0");
	p.neighbours = (dpb_neighbours) 3;
	expect(&p, 0, 0, DPB_EINVAL, "neighbours 3");
	dpb_params_default(&p);
	expect(&p, 0, 0, DPB_OK, "defaults");
	expect(&p, DPB_MODEL_LOGISTIC, 3, DPB_OK, "defaults, logistic");

	/* valid parameters for every model, d, intercept, mechanism */
	for (m = DPB_MODEL_LINEAR; m <= DPB_MODEL_POISSON; m++)
		for (ic = 0; ic <= 1; ic++)
			for (di = 0; di < 2 * (int) (sizeof(ds) / sizeof(ds[0])); di++)
			{
				int			nbr = di % 2 ? DPB_NB_REPLACE : DPB_NB_ADD_REMOVE;

				d = ds[di / 2];
				valid(&p, (dpb_model) m, d);
				p.intercept = ic;
				p.neighbours = nbr;
				nb = nblocks[ic][m] + (nbr == DPB_NB_ADD_REMOVE);
				snprintf(what, sizeof(what), "valid %s d=%d ic=%d %s",
						 dpb_model_name((dpb_model) m), d, ic,
						 dpb_neighbours_name(nbr));
				expect(&p, 0, 0, DPB_OK, what);
				expect(&p, (dpb_model) m, d, DPB_OK, what);
				/* d taken from the data */
				p.d = 0;
				p.has_bounds = 0;
				p.has_names = 0;
				expect(&p, (dpb_model) m, d, DPB_OK, what);
				/* the right number of weights */
				p.nweights = nb;
				for (i = 0; i < p.nweights; i++)
					p.noise_weights[i] = 0.5 + i;
				expect(&p, (dpb_model) m, d, DPB_OK, what);
				/* one too many, one too few */
				p.nweights = nb + 1;
				if (p.nweights <= DPB_MAX_MODEL_BLOCKS)
					p.noise_weights[p.nweights - 1] = 1.0;
				expect(&p, (dpb_model) m, d, DPB_EINVAL, what);
				p.nweights = nb - 1;
				expect(&p, (dpb_model) m, d, DPB_EINVAL, what);
				p.nweights = 1;
				expect(&p, (dpb_model) m, d, DPB_EINVAL, what);
			}
	valid(&p, DPB_MODEL_LINEAR, 2);
	p.mechanism = DPB_MECH_LAPLACE;
	p.delta = 0;
	expect(&p, DPB_MODEL_LINEAR, 2, DPB_OK, "laplace linear");
	p.scaling = DPB_SCALE_BALL;
	expect(&p, DPB_MODEL_LINEAR, 2, DPB_OK, "laplace linear ball");
	valid(&p, DPB_MODEL_LINEAR, 2);
	p.epsilon = 1e-12;
	p.delta = 1e-300;
	expect(&p, 0, 0, DPB_OK, "tiny epsilon and delta");
	p.epsilon = 1e300;
	p.delta = 0.999;
	expect(&p, 0, 0, DPB_OK, "huge epsilon, delta near 1");

	/* epsilon <= 0, NaN, infinite */
	for (i = 0; i < NBAD_POS; i++)
	{
		valid(&p, DPB_MODEL_LINEAR, 2);
		p.epsilon = bad_pos[i];
		snprintf(what, sizeof(what), "epsilon %g", bad_pos[i]);
		expect(&p, 0, 0, DPB_EINVAL, what);
		expect(&p, DPB_MODEL_LINEAR, 2, DPB_EINVAL, what);
		p.mechanism = DPB_MECH_LAPLACE;
		p.delta = 0;
		expect(&p, 0, 0, DPB_EINVAL, what);
	}

	/* gaussian: delta in (0, 1) */
	{
		const double bad_delta[] = {0.0, -0.0, 1.0, -1e-9, 1.5, NAN, INFINITY, -INFINITY};

		for (i = 0; i < (int) (sizeof(bad_delta) / sizeof(bad_delta[0])); i++)
		{
			valid(&p, DPB_MODEL_LOGISTIC, 2);
			p.delta = bad_delta[i];
			snprintf(what, sizeof(what), "gaussian delta %g", bad_delta[i]);
			expect(&p, 0, 0, DPB_EINVAL, what);
			expect(&p, DPB_MODEL_LOGISTIC, 2, DPB_EINVAL, what);
		}
	}
	/* laplace: delta must be 0 */
	{
		const double bad_delta[] = {1e-6, 1e-300, -1e-300, 0.5, NAN, INFINITY};

		for (i = 0; i < (int) (sizeof(bad_delta) / sizeof(bad_delta[0])); i++)
		{
			valid(&p, DPB_MODEL_LINEAR, 2);
			p.mechanism = DPB_MECH_LAPLACE;
			p.delta = bad_delta[i];
			snprintf(what, sizeof(what), "laplace delta %g", bad_delta[i]);
			expect(&p, 0, 0, DPB_EINVAL, what);
			expect(&p, DPB_MODEL_LINEAR, 2, DPB_EINVAL, what);
		}
	}
	/* unknown mechanism / scaling */
	valid(&p, DPB_MODEL_LINEAR, 2);
	p.mechanism = (dpb_mechanism) 0;
	expect(&p, 0, 0, DPB_EINVAL, "mechanism 0");
	p.mechanism = (dpb_mechanism) 99;
	expect(&p, 0, 0, DPB_EINVAL, "mechanism 99");
	valid(&p, DPB_MODEL_LINEAR, 2);
	p.scaling = (dpb_scaling) 0;
	expect(&p, 0, 0, DPB_EINVAL, "scaling 0");
	p.scaling = (dpb_scaling) 7;
	expect(&p, 0, 0, DPB_EINVAL, "scaling 7");

	/* clip <= 0, NaN, infinite, subnormal */
	for (i = 0; i < NBAD_POS; i++)
	{
		valid(&p, DPB_MODEL_LINEAR, 2);
		p.clip = bad_pos[i];
		snprintf(what, sizeof(what), "clip %g", bad_pos[i]);
		expect(&p, 0, 0, DPB_EINVAL, what);
		expect(&p, DPB_MODEL_LINEAR, 2, DPB_EINVAL, what);
	}
	valid(&p, DPB_MODEL_LINEAR, 2);
	p.clip = DBL_MIN / 4;
	expect(&p, 0, 0, DPB_EINVAL, "subnormal clip");
	p.clip = DBL_MIN;
	expect(&p, 0, 0, DPB_OK, "clip DBL_MIN");
	p.clip = DBL_MAX;
	expect(&p, 0, 0, DPB_OK, "clip DBL_MAX");

	/* y_bound: negative / NaN / infinite always invalid; required (non-0)
	 * for linear and poisson; 0 or 1 for logistic */
	{
		const double bad_y[] = {-1.0, -1e-300, NAN, INFINITY, -INFINITY};

		for (i = 0; i < (int) (sizeof(bad_y) / sizeof(bad_y[0])); i++)
		{
			valid(&p, DPB_MODEL_LINEAR, 2);
			p.y_bound = bad_y[i];
			snprintf(what, sizeof(what), "y_bound %g", bad_y[i]);
			expect(&p, 0, 0, DPB_EINVAL, what);
			for (m = DPB_MODEL_LINEAR; m <= DPB_MODEL_POISSON; m++)
				expect(&p, (dpb_model) m, 2, DPB_EINVAL, what);
		}
	}
	valid(&p, DPB_MODEL_LINEAR, 2);
	p.y_bound = 0;
	expect(&p, 0, 0, DPB_OK, "no y_bound, model-free check");
	expect(&p, DPB_MODEL_LINEAR, 2, DPB_EINVAL, "linear without y_bound");
	expect(&p, DPB_MODEL_POISSON, 2, DPB_EINVAL, "poisson without y_bound");
	p.intercept = 0;
	expect(&p, DPB_MODEL_POISSON, 2, DPB_EINVAL, "poisson (no intercept) without y_bound");
	expect(&p, DPB_MODEL_LOGISTIC, 2, DPB_OK, "logistic without y_bound");
	p.y_bound = 1;
	expect(&p, DPB_MODEL_LOGISTIC, 2, DPB_OK, "logistic y_bound 1");
	p.y_bound = 2;
	expect(&p, DPB_MODEL_LOGISTIC, 2, DPB_EINVAL, "logistic y_bound 2");
	p.y_bound = 1e-300;
	expect(&p, DPB_MODEL_LINEAR, 2, DPB_OK, "linear tiny y_bound");

	/* laplace only for linear regression */
	for (ic = 0; ic <= 1; ic++)
	{
		valid(&p, DPB_MODEL_POISSON, 2);
		p.intercept = ic;
		p.mechanism = DPB_MECH_LAPLACE;
		p.delta = 0;
		expect(&p, 0, 0, DPB_OK, "laplace, model-free check");
		expect(&p, DPB_MODEL_POISSON, 2, DPB_EINVAL, "laplace poisson");
		p.y_bound = 0;
		expect(&p, DPB_MODEL_LOGISTIC, 2, DPB_EINVAL, "laplace logistic");
	}

	/* bounds: lower >= upper, non-finite */
	{
		const double badlo[] = {1.0, 2.0, NAN, -INFINITY, 0.0, NAN, 0.0};
		const double badhi[] = {1.0, 1.0, 1.0, 1.0, INFINITY, NAN, NAN};

		for (i = 0; i < (int) (sizeof(badlo) / sizeof(badlo[0])); i++)
			for (d = 0; d < 3; d++)
			{
				valid(&p, DPB_MODEL_LINEAR, 3);
				p.lower[d] = badlo[i];
				p.upper[d] = badhi[i];
				snprintf(what, sizeof(what), "feature %d bounds [%g, %g]", d + 1,
						 badlo[i], badhi[i]);
				expect(&p, 0, 0, DPB_EINVAL, what);
				expect(&p, DPB_MODEL_LINEAR, 3, DPB_EINVAL, what);
			}
	}
	valid(&p, DPB_MODEL_LINEAR, 3);
	p.lower[0] = -DBL_MAX;
	p.upper[0] = DBL_MAX;
	p.lower[1] = 0;
	p.upper[1] = 4.9406564584124654e-324;
	expect(&p, 0, 0, DPB_OK, "extreme but valid bounds");
	/* entries past d are not looked at */
	valid(&p, DPB_MODEL_LINEAR, 3);
	p.lower[3] = NAN;
	p.upper[4] = -1;
	expect(&p, DPB_MODEL_LINEAR, 3, DPB_OK, "bounds past d ignored");
	/* bounds or names without a feature count describe nothing */
	valid(&p, DPB_MODEL_LINEAR, 3);
	p.d = 0;
	expect(&p, 0, 0, DPB_EINVAL, "bounds with d = 0");
	expect(&p, DPB_MODEL_LINEAR, 3, DPB_EINVAL, "bounds with d = 0");
	p.has_bounds = 0;
	expect(&p, 0, 0, DPB_EINVAL, "names with d = 0");
	p.has_names = 0;
	expect(&p, DPB_MODEL_LINEAR, 3, DPB_OK, "nothing with d = 0");

	/* names: non-empty, NUL-terminated, no control characters */
	valid(&p, DPB_MODEL_LINEAR, 3);
	strcpy(p.names[1], "a \"quoted\" \\ name \xc3\xa9");
	expect(&p, DPB_MODEL_LINEAR, 3, DPB_OK, "name with quotes and UTF-8");
	memset(p.names[1], 'x', DPB_NAME_LEN - 1);
	p.names[1][DPB_NAME_LEN - 1] = '\0';
	expect(&p, DPB_MODEL_LINEAR, 3, DPB_OK, "name of 63 bytes");
	p.names[1][DPB_NAME_LEN - 1] = 'x';
	expect(&p, 0, 0, DPB_EINVAL, "name without NUL");
	valid(&p, DPB_MODEL_LINEAR, 3);
	p.names[2][0] = '\0';
	expect(&p, 0, 0, DPB_EINVAL, "empty name");
	valid(&p, DPB_MODEL_LINEAR, 3);
	strcpy(p.names[0], "tab\there");
	expect(&p, 0, 0, DPB_EINVAL, "name with a control character");

	/* noise weights: <= 0, NaN, infinite; count out of range */
	for (i = 0; i < NBAD_POS; i++)
		for (d = 0; d < 3; d++)
		{
			valid(&p, DPB_MODEL_LINEAR, 2);
			p.nweights = 3;
			p.noise_weights[0] = p.noise_weights[1] = p.noise_weights[2] = 1.0;
			p.noise_weights[d] = bad_pos[i];
			snprintf(what, sizeof(what), "noise weight %d = %g", d + 1, bad_pos[i]);
			expect(&p, 0, 0, DPB_EINVAL, what);
			expect(&p, DPB_MODEL_LINEAR, 2, DPB_EINVAL, what);
		}
	valid(&p, DPB_MODEL_LINEAR, 2);
	p.nweights = -1;
	expect(&p, 0, 0, DPB_EINVAL, "nweights -1");
	p.nweights = DPB_MAX_MODEL_BLOCKS + 1;
	for (i = 0; i <= DPB_MAX_MODEL_BLOCKS; i++)
		p.noise_weights[i < DPB_MAX_MODEL_BLOCKS ? i : 0] = 1.0;
	expect(&p, 0, 0, DPB_EINVAL, "nweights above DPB_MAX_MODEL_BLOCKS");
	p.nweights = DPB_MAX_MODEL_BLOCKS;
	expect(&p, 0, 0, DPB_OK, "nweights DPB_MAX_MODEL_BLOCKS, model-free");
	expect(&p, DPB_MODEL_LINEAR, 2, DPB_EINVAL, "5 weights for linear");

	/* the feature count: p->d outside [0, DPB_MAX_D] is DPB_ERANGE; the
	 * data's d outside [1, DPB_MAX_D] is DPB_ERANGE; a mismatch between the
	 * two is DPB_EDATA */
	valid(&p, DPB_MODEL_LINEAR, 2);
	p.has_bounds = p.has_names = 0;
	p.d = DPB_MAX_D + 1;
	expect(&p, 0, 0, DPB_ERANGE, "p.d = DPB_MAX_D + 1");
	p.d = -1;
	expect(&p, 0, 0, DPB_ERANGE, "p.d = -1");
	p.d = 0;
	for (m = DPB_MODEL_LINEAR; m <= DPB_MODEL_POISSON; m++)
	{
		dpb_params	q = p;

		if (m == DPB_MODEL_LOGISTIC)
			q.y_bound = 0;
		snprintf(what, sizeof(what), "%s d = 0", dpb_model_name((dpb_model) m));
		expect(&q, (dpb_model) m, 0, DPB_ERANGE, what);
		expect(&q, (dpb_model) m, -3, DPB_ERANGE, what);
		expect(&q, (dpb_model) m, DPB_MAX_D + 1, DPB_ERANGE, what);
		expect(&q, (dpb_model) m, DPB_MAX_D, DPB_OK, what);
		q.d = 2;
		expect(&q, (dpb_model) m, 3, DPB_EDATA, "d mismatch 2 vs 3");
		expect(&q, (dpb_model) m, 1, DPB_EDATA, "d mismatch 2 vs 1");
		expect(&q, (dpb_model) m, 2, DPB_OK, "d match");
	}
	valid(&p, DPB_MODEL_LINEAR, 3);
	expect(&p, DPB_MODEL_LINEAR, 4, DPB_EDATA, "bounds for 3 features, 4 in the data");

	/* unknown model */
	valid(&p, DPB_MODEL_LINEAR, 2);
	expect(&p, (dpb_model) 4, 2, DPB_EINVAL, "model 4");
	expect(&p, (dpb_model) 99, 2, DPB_EINVAL, "model 99");
}
