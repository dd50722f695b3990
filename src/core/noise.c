/*
 * noise.c — secure GSL generator and the noise distributions.
 */
#include "noise.h"

#include <gsl/gsl_randist.h>
#include <string.h>

#define POOL 512

typedef struct strong_state
{
	dpb_bytes_fn fill;
	int			failed;
	size_t		pos;
	unsigned char pool[POOL];
} strong_state;

static uint64_t
strong_u64(strong_state *s)
{
	uint64_t	v;

	if (s->pos + sizeof(v) > POOL)
	{
		if (!s->fill(s->pool, POOL))
		{
			s->failed = 1;
			memset(s->pool, 0, POOL);
		}
		s->pos = 0;
	}
	memcpy(&v, s->pool + s->pos, sizeof(v));
	s->pos += sizeof(v);
	return v;
}

static void
strong_set(void *vstate, unsigned long seed)
{
	strong_state *s = vstate;

	(void) seed;				/* a secure source cannot be seeded */
	s->pos = POOL;				/* refill on first use */
}

static unsigned long
strong_get(void *vstate)
{
	return (unsigned long) (strong_u64(vstate) >> 32);
}

/*
 * A uniform on (0, 1) with 53 random bits: k / 2^53 for k uniform on
 * [1, 2^53), exactly representable.  (The former (k + 0.5) / 2^53 is not
 * representable for k >= 2^52: it rounded to even, so the upper half had
 * only 52 random bits, and k = 2^53 - 1 gave exactly 1.0.)  k = 0 is drawn
 * again; a source that returns 0 twice in a row (probability 2^-106) is
 * stuck, and is reported as failed.  The value returned then is unusable
 * but must let GSL's rejection loops end: not 0, 1/2 (Laplace rejects
 * 2u - 1 = 0) or 1.
 */
static double
strong_get_double(void *vstate)
{
	strong_state *s = vstate;
	int			tries;

	for (tries = 0; tries < 2; tries++)
	{
		uint64_t	k = strong_u64(s) >> 11;

		if (k != 0)
			return (double) k * (1.0 / 9007199254740992.0);
	}
	s->failed = 1;
	return 0.3;
}

static const gsl_rng_type strong_type = {
	"dpbayes_strong",
	0xffffffffUL,
	0,
	sizeof(strong_state),
	&strong_set,
	&strong_get,
	&strong_get_double
};

gsl_rng *
dpb_strong_rng_alloc(dpb_bytes_fn fill)
{
	gsl_rng    *r = gsl_rng_alloc(&strong_type);

	if (r == NULL)
		return NULL;
	((strong_state *) r->state)->fill = fill;
	((strong_state *) r->state)->failed = 0;
	return r;
}

int
dpb_strong_rng_failed(const gsl_rng *r)
{
	if (r->type != &strong_type)
		return 0;
	return ((const strong_state *) r->state)->failed;
}

double
dpb_noise_gaussian(gsl_rng *r, double sd)
{
	return gsl_ran_gaussian_ziggurat(r, sd);
}

double
dpb_noise_laplace(gsl_rng *r, double b)
{
	return gsl_ran_laplace(r, b);
}
