/*
 * progress.h — where the running sampler is, for the host's progress
 * reports (src/pg/progress.c, docs/posterior.md "Progress").
 *
 * One process-global record, written by the samplers' loops (a few stores
 * per iteration) and read by the host from the interrupt callback the
 * samplers poll, on the same thread.  It holds only the public schedule and
 * the position in it (chain, iteration): never a value of the chain.  The
 * core never reports anything itself.
 */
#ifndef DPB_PROGRESS_H
#define DPB_PROGRESS_H

typedef struct dpb_progress
{
	int			chain;			/* 1-based; 0 before the first chain */
	int			chains;
	int			iter;			/* iterations done in this chain's run; -1
								 * while the chain starts (initial point,
								 * metric, step size) */
	int			warmup;			/* warmup iterations of the chain's run */
	int			total;			/* warmup + sampling iterations of the run */
} dpb_progress;

extern dpb_progress dpb_progress_now;

/* Forgets the last run (the host calls it before a run). */
void		dpb_progress_reset(void);

/* A chain starts: chain (1-based) of chains; iter = -1 until its run
 * starts iterating. */
static inline void
dpb_progress_chain(int chain, int chains)
{
	dpb_progress_now.chain = chain;
	dpb_progress_now.chains = chains;
	dpb_progress_now.iter = -1;
}

/* The chain's run: warmup + sampling = total iterations. */
static inline void
dpb_progress_run(int warmup, int total)
{
	dpb_progress_now.warmup = warmup;
	dpb_progress_now.total = total;
}

/* it iterations of the run are done (set at the start of iteration it). */
static inline void
dpb_progress_iter(int it)
{
	dpb_progress_now.iter = it;
}

#endif
