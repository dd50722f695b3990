/*
 * test_ldp_fork.c — the bit source across fork() and threads (docs/ldp.md,
 * "Fork and threads").
 *
 * test_ldp_fork: a parent makes an OS source, draws one report (which fills
 * the 512-byte pool), forks, and parent and child then randomize the same
 * record with the same protocol through the client API the CLI uses
 * (dpb_ldp_randomize); the child sends its reports through a pipe.  Before
 * the fix both drew from the same copy of the pool and the reports were
 * identical (a report's draw stays well inside the 4096 pooled bits, so
 * every repetition showed it); now none may be.  Both fork() and _Fork()
 * (no atfork handlers: only the kernel's MADV_WIPEONFORK page or the pid
 * comparison can notice it), both detection modes, and a grandchild whose
 * parent never drew.  Chance equality: rr compares 64 reports (each equal
 * with probability 0.6 or so: 0.6^64 ~ 1e-14), scalar_laplace 4 and
 * ss_linear one report of 6 values on grids 2^-20 of the noise sd.
 *
 * test_ldp_threads: threads each with their own source randomize at once;
 * all succeed, on their grids, and no two threads' reports coincide.
 */
#define _GNU_SOURCE				/* _Fork */
#include "unit.h"
#include "ldp.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NMECH 3
#define MAXVALS 64				/* report values compared per process */

static const char *const fork_protos[NMECH] = {
	"{\"mechanism\":\"rr\",\"epsilon\":1}",
	"{\"mechanism\":\"scalar_laplace\",\"epsilon\":0.7,\"lower\":-1,\"upper\":3}",
	"{\"mechanism\":\"ss_linear\",\"epsilon\":1,\"delta\":1e-5,\"d\":2,"
	"\"intercept\":false,\"clip\":1,\"y_bound\":2,\"scaling\":\"none\"}",
};
static const char *const fork_names[NMECH] = {"rr", "scalar_laplace", "ss_linear"};
static const double fork_records[NMECH][3] = {{1}, {0.5}, {0.3, -0.4, 1.5}};
static const int fork_nrep[NMECH] = {64, 4, 1};

typedef struct
{
	dpb_ldp_protocol p;
	dpb_ldp_calib c;
	const double *rec;
	int			nrep;
	int			nvals;
} fork_case;

static int
fork_case_init(int m, fork_case *fc)
{
	dpb_err		err;

	memset(&err, 0, sizeof(err));
	if (dpb_ldp_protocol_parse(fork_protos[m], &fc->p, &err) != DPB_OK ||
		dpb_ldp_calibrate(&fc->p, &fc->c, &err) != DPB_OK)
		return 0;
	fc->rec = fork_records[m];
	fc->nrep = fork_nrep[m];
	fc->nvals = fc->nrep * fc->c.report_len;
	return fc->nvals <= MAXVALS;
}

/* nrep reports into out; 1 on success */
static int
fork_draw(const fork_case *fc, dpb_rbits *rb, double *out)
{
	dpb_err		err;
	int			i;

	for (i = 0; i < fc->nrep; i++)
		if (dpb_ldp_randomize(&fc->p, &fc->c, fc->rec, rb, out + i * fc->c.report_len,
							  &err) != DPB_OK)
			return 0;
	return 1;
}

static int
write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0)
	{
		ssize_t		n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		p += n;
		len -= (size_t) n;
	}
	return 1;
}

static int
read_all(int fd, void *buf, size_t len)
{
	char	   *p = buf;

	while (len > 0)
	{
		ssize_t		n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		p += n;
		len -= (size_t) n;
	}
	return 1;
}

/* In a child: draws, sends the reports to fd, and _exits (0 on success). */
static void
child_report(const fork_case *fc, dpb_rbits *rb, int fd)
{
	double		z[MAXVALS];

	if (!fork_draw(fc, rb, z) || !write_all(fd, z, sizeof(double) * fc->nvals))
		_exit(3);
	_exit(0);
}

/*
 * raw = 1: _Fork(), which runs no pthread_atfork handler, so only the
 * MADV_WIPEONFORK page or the getpid() comparison can notice the child.
 * After _Fork() a child of a threaded process may only call
 * async-signal-safe functions; the ss_linear randomizer mallocs, which is
 * safe here as no other thread is inside malloc (the threads of
 * test_ldp_threads are joined; OpenBLAS workers, if started, are idle).
 */
static pid_t
do_fork(int raw)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
	if (raw)
		return _Fork();			/* runs no pthread_atfork handler */
#endif
	(void) raw;
	return fork();
}

static int
wait_ok(pid_t pid)
{
	int			status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * One fork: returns 1 when the child's reports equal the parent's, 0 when
 * they differ, -1 on a system error.  With grand = 1 the child does not
 * draw but forks a grandchild, and the grandchild's reports are compared
 * with the parent's and the child's (1 when either pair is equal).
 */
static int
fork_once(const fork_case *fc, int raw, int grand)
{
	double		mine[MAXVALS],
				theirs[MAXVALS],
				third[MAXVALS];
	dpb_rbits  *rb = dpb_ldp_rbits_os();
	int			fd[2],
				fd2[2],
				same = -1;
	pid_t		pid;
	size_t		len = sizeof(double) * fc->nvals;

	if (rb == NULL)
		return -1;
	/* the parent has drawn: its pool holds about 4000 unused bits */
	if (!fork_draw(fc, rb, mine) || pipe(fd) != 0)
	{
		dpb_rbits_free(rb);
		return -1;
	}
	if (grand && pipe(fd2) != 0)
	{
		close(fd[0]);
		close(fd[1]);
		dpb_rbits_free(rb);
		return -1;
	}
	fflush(stdout);
	pid = do_fork(raw);
	if (pid == 0)
	{
		close(fd[0]);
		if (grand)
		{
			/* the child: forks before drawing, then draws itself */
			pid_t		g = do_fork(raw);

			close(fd2[0]);
			if (g == 0)
				child_report(fc, rb, fd2[1]);
			if (g < 0 || !wait_ok(g))
				_exit(3);
		}
		child_report(fc, rb, fd[1]);
	}
	close(fd[1]);
	if (grand)
		close(fd2[1]);
	if (pid > 0 && fork_draw(fc, rb, mine) && read_all(fd[0], theirs, len) &&
		(!grand || read_all(fd2[0], third, len)))
	{
		same = memcmp(mine, theirs, len) == 0;
		if (grand)
			same |= memcmp(mine, third, len) == 0 || memcmp(theirs, third, len) == 0;
	}
	close(fd[0]);
	if (grand)
		close(fd2[0]);
	if (pid > 0 && !wait_ok(pid))
		same = -1;
	dpb_rbits_free(rb);
	return same;
}

void		test_ldp_fork(void);
void
test_ldp_fork(void)
{
	const int	reps = 5;
	int			mode,
				raw,
				m,
				k;

	for (mode = 0; mode < 2; mode++)
	{
		dpb_rbits_fork_fallback_for_tests(mode);
		printf("  fork detection: %s\n", dpb_rbits_fork_detection());
		for (raw = 0; raw < 2; raw++)
		{
			for (m = 0; m < NMECH; m++)
			{
				fork_case	fc;
				int			same = 0,
							errs = 0;

				CHECK(fork_case_init(m, &fc), "%s: protocol", fork_names[m]);
				for (k = 0; k < reps; k++)
				{
					int			r = fork_once(&fc, raw, 0);

					if (r < 0)
						errs++;
					else
						same += r;
				}
				CHECK(errs == 0, "%s: %d of %d forks failed", fork_names[m], errs, reps);
				CHECK(same == 0, "%s, %s, %s: the child's reports equal the parent's "
					  "in %d of %d forks", fork_names[m], raw ? "_Fork" : "fork",
					  dpb_rbits_fork_detection(), same, reps);
			}
		}
		/* a grandchild whose parent forked before drawing (one fork
		 * generation skipped in the middle) */
		for (m = 0; m < NMECH; m++)
		{
			fork_case	fc;
			int			same = 0,
						errs = 0;

			fork_case_init(m, &fc);
			for (k = 0; k < reps; k++)
			{
				int			r = fork_once(&fc, 0, 1);

				if (r < 0)
					errs++;
				else
					same += r;
			}
			CHECK(errs == 0 && same == 0, "%s: grandchild: %d equal, %d failed of %d",
				  fork_names[m], same, errs, reps);
		}
	}
	dpb_rbits_fork_fallback_for_tests(0);

	/* the insecure seeded source keeps its documented stream: a child
	 * continues it exactly as the parent does */
	{
		fork_case	fc;
		dpb_rbits  *rb = dpb_rbits_new_insecure_seeded(7);
		double		a[MAXVALS],
					b[MAXVALS];
		int			fd[2],
					ok = 0;
		pid_t		pid;

		fork_case_init(1, &fc);
		if (rb != NULL && fork_draw(&fc, rb, a) && pipe(fd) == 0)
		{
			fflush(stdout);
			pid = fork();
			if (pid == 0)
			{
				close(fd[0]);
				child_report(&fc, rb, fd[1]);
			}
			close(fd[1]);
			ok = pid > 0 && fork_draw(&fc, rb, a) &&
				read_all(fd[0], b, sizeof(double) * fc.nvals) &&
				memcmp(a, b, sizeof(double) * fc.nvals) == 0;
			close(fd[0]);
			if (pid > 0 && !wait_ok(pid))
				ok = 0;
		}
		CHECK(ok, "insecure seeded source: the child continues the parent's stream");
		dpb_rbits_free(rb);
	}
}

/* ---- threads ---- */

#define NTHREADS 4
#define THREAD_REPORTS 40

typedef struct
{
	const fork_case *fc;
	double		z[THREAD_REPORTS][MAXVALS];	/* zero beyond report_len */
	int			ok;
} thread_arg;

static void *
thread_main(void *v)
{
	thread_arg *a = v;
	dpb_rbits  *rb = dpb_ldp_rbits_os();	/* one source per thread */
	dpb_err		err;
	int			i;

	a->ok = rb != NULL;
	for (i = 0; a->ok && i < THREAD_REPORTS; i++)
		a->ok = dpb_ldp_randomize(&a->fc->p, &a->fc->c, a->fc->rec, rb, a->z[i],
								  &err) == DPB_OK &&
			dpb_ldp_report_on_grid(&a->fc->p, &a->fc->c, a->z[i]);
	dpb_rbits_free(rb);
	return NULL;
}

void		test_ldp_threads(void);
void
test_ldp_threads(void)
{
	int			m;

	for (m = 1; m < NMECH; m++)
	{
		fork_case	fc;
		thread_arg *a = calloc(NTHREADS, sizeof(thread_arg));
		pthread_t	th[NTHREADS];
		int			i,
					j,
					started = 0,
					ok = 1,
					same = 0;

		CHECK(a != NULL && fork_case_init(m, &fc), "%s: setup", fork_names[m]);
		if (a == NULL)
			return;
		for (i = 0; i < NTHREADS; i++)
		{
			a[i].fc = &fc;
			if (pthread_create(&th[i], NULL, thread_main, &a[i]) != 0)
				break;
			started++;
		}
		for (i = 0; i < started; i++)
			pthread_join(th[i], NULL);
		CHECK(started == NTHREADS, "%s: %d of %d threads started", fork_names[m],
			  started, NTHREADS);
		for (i = 0; i < started; i++)
			ok &= a[i].ok;
		CHECK(ok, "%s: a thread's randomization failed or left its grid", fork_names[m]);
		/* scalar_laplace, ss_linear: two threads reporting the same
		 * sequence would mean shared bits (by chance: about 2^-20 per
		 * report, so never for the whole sequence) */
		for (i = 0; i < started; i++)
			for (j = i + 1; j < started; j++)
				same += memcmp(a[i].z, a[j].z, sizeof(a[i].z)) == 0;
		CHECK(same == 0, "%s: %d pairs of threads reported the same sequence",
			  fork_names[m], same);
		free(a);
	}
}
