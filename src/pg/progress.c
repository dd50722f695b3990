/*
 * progress.c — progress NOTICEs of long runs (issue 25, item 2;
 * docs/posterior.md, "Progress").
 *
 * Settings: dpbayes.progress (auto, the default: on when the client is
 * psql, i.e. application_name = 'psql'; on; off) and
 * dpbayes.progress_interval (milliseconds, default 10 s; 0: at every
 * iteration, for tests and debugging).
 *
 * A run calls dpb_pg_progress_begin() before the core sampler and
 * dpb_pg_progress_end() after it.  The samplers poll the host's interrupt
 * callback at least once per iteration; the callbacks (posterior.c,
 * betad_agg.c) call dpb_pg_progress_poll(), which emits a NOTICE when one is
 * due: a timeout (RegisterTimeout, a flag set in the signal handler, so that
 * the polls cost nothing) every interval, or with interval 0 at every new
 * iteration.  The position comes from the core's dpb_progress_now
 * (progress.h).
 *
 * Two kinds of run:
 *   - a sampler's (posterior, posterior_summary, nonprivate_posterior,
 *     ldp_posterior): chain, iteration, warmup or sampling, elapsed time and
 *     the estimated time left;
 *   - a betaD release (elapsed only): the whole MCMC run is the privacy
 *     mechanism, and how fast it moves depends on the data, so nothing but
 *     the time since the start is shown, at fixed clock times (at least
 *     1 s apart, never per iteration; docs/betad.md).
 *
 * The NOTICE is sent from inside the core's call stack.  An error there
 * (out of memory, a lost client) must not longjmp across the core's
 * malloc'ed state: it is caught, the sampler is told to stop (the poll
 * returns nonzero, like a cancel), and dpb_pg_progress_rethrow() raises it
 * once the core has returned.  Interrupts are held while the NOTICE is
 * sent (errfinish would otherwise process a pending cancel there); the
 * callback's own check sees the cancel and stops the sampler within the
 * usual second.
 */
#include "dpbayes_pg.h"

#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timeout.h"
#include "utils/timestamp.h"

#include "progress.h"

#include <signal.h>

enum
{
	PROGRESS_OFF, PROGRESS_ON, PROGRESS_AUTO
};

static const struct config_enum_entry progress_options[] = {
	{"auto", PROGRESS_AUTO, false},
	{"on", PROGRESS_ON, false},
	{"off", PROGRESS_OFF, false},
	{"true", PROGRESS_ON, true},
	{"false", PROGRESS_OFF, true},
	{"yes", PROGRESS_ON, true},
	{"no", PROGRESS_OFF, true},
	{"1", PROGRESS_ON, true},
	{"0", PROGRESS_OFF, true},
	{NULL, 0, false}
};

static int	progress_mode = PROGRESS_AUTO;
static int	progress_interval_ms = 10000;

/* the elapsed-only kind never reports more often than this */
#define ELAPSED_MIN_MS 1000

static struct
{
	bool		active;
	bool		elapsed_only;
	const char *what;
	TimestampTz start;
	int			interval_ms;	/* 0: at every new iteration */
	int			last_chain,
				last_iter;
	long		ticks;			/* elapsed-only reports so far */
	ErrorData  *failed;			/* an error raised while reporting */
	MemoryContext cxt;
}			P;

static volatile sig_atomic_t progress_due = 0;
static bool timeout_registered = false;
static TimeoutId progress_timeout;

static void
progress_timeout_handler(void)
{
	progress_due = 1;
}

void
dpb_pg_progress_define_gucs(void)
{
	DefineCustomEnumVariable("dpbayes.progress",
							 "Progress NOTICEs of long posterior runs and betaD releases.",
							 "auto (the default): on when the client is psql (application_name 'psql'), "
							 "off for applications and drivers; on; off.",
							 &progress_mode, PROGRESS_AUTO, progress_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dpbayes.progress_interval",
							"Time between progress NOTICEs.",
							"0 reports every iteration of a sampler (for tests); a betaD release "
							"reports its elapsed time at most once a second.",
							&progress_interval_ms, 10000, 0, 3600 * 1000,
							PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);
}

bool
dpb_pg_progress_enabled(void)
{
	if (progress_mode == PROGRESS_AUTO)
		return application_name != NULL && strcmp(application_name, "psql") == 0;
	return progress_mode == PROGRESS_ON;
}

int
dpb_pg_progress_interval_ms(void)
{
	return progress_interval_ms;
}

/* a duration for a message: "0.4 s", "12 s", "3 min 5 s", "1 h 02 min" */
char *
dpb_pg_format_duration(double s)
{
	if (!(s >= 0) || !isfinite(s))
		return pstrdup("?");
	if (s < 10)
		return psprintf("%.1f s", s);
	if (s < 60)
		return psprintf("%.0f s", s);
	if (s < 3600)
	{
		long		t = lround(s);

		return psprintf("%ld min %ld s", t / 60, t % 60);
	}
	{
		long		m = lround(s / 60);

		return psprintf("%ld h %02ld min", m / 60, m % 60);
	}
}

static void
arm(void)
{
	int			ms = P.elapsed_only ? Max(P.interval_ms, ELAPSED_MIN_MS) : P.interval_ms;

	progress_due = 0;
	if (ms > 0)
		enable_timeout_after(progress_timeout, ms);
}

void
dpb_pg_progress_begin(const char *what, bool elapsed_only)
{
	dpb_progress_reset();
	progress_due = 0;
	P.active = dpb_pg_progress_enabled();
	P.failed = NULL;
	if (!P.active)
		return;
	if (!timeout_registered)
	{
		progress_timeout = RegisterTimeout(USER_TIMEOUT, progress_timeout_handler);
		timeout_registered = true;
	}
	P.elapsed_only = elapsed_only;
	P.what = what;
	P.start = GetCurrentTimestamp();
	P.interval_ms = progress_interval_ms;
	P.last_chain = -1;
	P.last_iter = -2;
	P.ticks = 0;
	P.cxt = CurrentMemoryContext;
	arm();
}

void
dpb_pg_progress_end(void)
{
	if (P.active && timeout_registered)
		disable_timeout(progress_timeout, false);
	P.active = false;
	progress_due = 0;
}

bool
dpb_pg_progress_failed(void)
{
	return P.failed != NULL;
}

void
dpb_pg_progress_rethrow(void)
{
	ErrorData  *e = P.failed;

	if (e != NULL)
	{
		P.failed = NULL;
		ReThrowError(e);
	}
}

static double
elapsed_s(void)
{
	long		secs;
	int			usecs;

	TimestampDifference(P.start, GetCurrentTimestamp(), &secs, &usecs);
	return (double) secs + usecs / 1e6;
}

/* the NOTICE of a sampler's run at the core's current position */
static void
report_sampler(void)
{
	const dpb_progress *p = &dpb_progress_now;
	double		el = elapsed_s(),
				frac = 0;
	char	   *where;

	if (p->chains > 0 && p->total > 0)
		frac = ((double) (p->chain - 1) * p->total + Max(p->iter, 0)) /
			((double) p->chains * p->total);
	if (p->chain <= 0)
		where = psprintf("starting");
	else if (p->iter < 0 || p->total <= 0)
		where = psprintf("chain %d of %d, starting (initial point and step size)", p->chain, p->chains);
	else if (p->iter < p->warmup)
		where = psprintf("chain %d of %d, warmup iteration %d of %d",
						 p->chain, p->chains, p->iter + 1, p->warmup);
	else
		where = psprintf("chain %d of %d, sampling iteration %d of %d",
						 p->chain, p->chains, p->iter + 1 - p->warmup, p->total - p->warmup);
	ereport(NOTICE,
			(errmsg("%s: %s", P.what, where),
			 frac > 0 ?
			 errdetail("Elapsed %s; about %s left.", dpb_pg_format_duration(el),
					   dpb_pg_format_duration(el * (1 - frac) / frac)) :
			 errdetail("Elapsed %s.", dpb_pg_format_duration(el))));
}

/*
 * The NOTICE of a betaD release: the elapsed time only, and as the
 * scheduled time of the tick (ticks x interval), not as measured when the
 * sampler next polled: the measured time would carry the delay of the poll,
 * up to one density evaluation, whose cost depends on the data.
 */
static void
report_elapsed(void)
{
	P.ticks++;
	ereport(NOTICE,
			(errmsg("%s: running for %s", P.what,
					dpb_pg_format_duration(P.ticks * (Max(P.interval_ms, ELAPSED_MIN_MS) / 1000.0)))));
}

int
dpb_pg_progress_poll(void)
{
	bool		due;
	uint32		holdoff;

	if (!P.active)
		return 0;
	if (P.failed != NULL)
		return 1;
	if (P.interval_ms == 0 && !P.elapsed_only)
		due = dpb_progress_now.chain != P.last_chain || dpb_progress_now.iter != P.last_iter;
	else
		due = progress_due != 0;
	if (!due)
		return 0;
	P.last_chain = dpb_progress_now.chain;
	P.last_iter = dpb_progress_now.iter;
	holdoff = InterruptHoldoffCount;
	HOLD_INTERRUPTS();
	PG_TRY();
	{
		if (P.elapsed_only)
			report_elapsed();
		else
			report_sampler();
	}
	PG_CATCH();
	{
		/* errfinish reset the holdoff count for the handler */
		InterruptHoldoffCount = holdoff + 1;
		MemoryContextSwitchTo(P.cxt);
		P.failed = CopyErrorData();
		FlushErrorState();
	}
	PG_END_TRY();
	RESUME_INTERRUPTS();
	if (P.failed != NULL)
	{
		if (timeout_registered)
			disable_timeout(progress_timeout, false);
		return 1;				/* stop the sampler; raised after it returns */
	}
	if (P.interval_ms > 0 || P.elapsed_only)
		arm();
	return 0;
}
