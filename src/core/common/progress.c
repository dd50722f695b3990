/*
 * progress.c — the sampler's position for the host's progress reports
 * (progress.h).
 */
#include "progress.h"

#include <string.h>

dpb_progress dpb_progress_now;

void
dpb_progress_reset(void)
{
	memset(&dpb_progress_now, 0, sizeof(dpb_progress_now));
}
