#!/usr/bin/env bash
# test/cron_job.sh — the scheduled governed release test (pg_cron,
# docs/governance.md §7), sourced by test/run_checks.sh on the throwaway
# cluster of test/pgcluster.sh (which preloads pg_cron, launcher database
# postgres, jobs over libpq through the socket).
#
#   cron_schedule   before the regression tests: database dpb_cron with
#                   dpbayes, the governance roles, a dataset whose budget
#                   (epsilon 1.5) allows exactly one Laplace release at
#                   epsilon 1, and a job '* * * * *' (run as a login member
#                   of dpbayes_analyst) that CALLs dpbayes.release with a
#                   fresh request id every minute.
#   cron_check      after them: waits (at most 170 s after scheduling: the
#                   first run comes at the next minute boundary, the second a
#                   minute later) until cron.job_run_details holds two
#                   finished runs, then checks: the first succeeded, the
#                   second failed with the budget refusal (SQLSTATE DP001 in
#                   its message), the ledger holds exactly one charge and one
#                   signed, valid release, the audit log the refusal.  Prints
#                   "cron: ok" or "cron: FAILED <why>"; returns 0 / 1.
#
# The waiting overlaps with the regression tests, so the suite pays only
# what is left of the ~2 minutes when they finish.

_cron_psql() { "$PGC_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 "$@"; }

CRON_T0=0

cron_schedule() {
	CRON_T0=$(date +%s)
	_cron_psql -d postgres -c "CREATE EXTENSION IF NOT EXISTS pg_cron" || return 1
	_cron_psql -d postgres -c "CREATE DATABASE dpb_cron" || return 1
	_cron_psql -d dpb_cron <<'SQL' || return 1
CREATE EXTENSION dpbayes;
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpbayes_owner') THEN
    CREATE ROLE dpbayes_owner NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpbayes_analyst') THEN
    CREATE ROLE dpbayes_analyst NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpb_cron_analyst') THEN
    CREATE ROLE dpb_cron_analyst LOGIN IN ROLE dpbayes_analyst;
  END IF;
END $$;
SELECT dpbayes.governance_setup('dpbayes_owner', 'dpbayes_analyst');
CREATE TABLE public.cron_pat AS
SELECT i, (i % 10) / 10.0 AS x1, ((i % 7) / 7.0)::float8 AS x2,
       ((i % 13) / 13.0 - 0.5)::float8 AS y
FROM generate_series(1, 500) i;
ALTER TABLE public.cron_pat OWNER TO dpbayes_owner;
GRANT SELECT ON public.cron_pat TO dpbayes_ledger;
SELECT dpbayes.register_dataset('public.cron_pat', 1.5, 0);
SELECT dpbayes.grant_dataset('public.cron_pat', 'dpbayes_analyst');
SQL
	_cron_psql -d postgres <<'SQL' >/dev/null || return 1
SELECT cron.schedule_in_database('dpb-governed-release', '* * * * *',
  $$CALL dpbayes.release('public.cron_pat', 'linear', 'y', '{x1,x2}',
      dpbayes.privacy(epsilon => 1, mechanism => 'laplace', y_bound => 1,
                      lower => '{0,0}', upper => '{1,1}'),
      'cron-' || to_char(now(), 'YYYYMMDD-HH24MI'))$$,
  'dpb_cron', 'dpb_cron_analyst');
SQL
	echo "cron: job scheduled at $(date -u +%T) (two runs expected within 170 s)"
}

cron_check() {
	local n runs deadline=$((CRON_T0 + 170)) why=""
	while :; do
		n=$(_cron_psql -d postgres -c "SELECT count(*) FROM cron.job_run_details d JOIN cron.job j USING (jobid)
			WHERE j.jobname = 'dpb-governed-release' AND d.status IN ('succeeded', 'failed')") || n=0
		[ "$n" -ge 2 ] && break
		if [ "$(date +%s)" -ge "$deadline" ]; then
			why="only $n finished runs after 170 s"
			break
		fi
		sleep 2
	done
	# unscheduled by job id (docs/governance.md §8: unschedule by name fails
	# for another role's job, which would keep spending); its runs stay in
	# cron.job_run_details under that id
	local jobid
	jobid=$(_cron_psql -d postgres -c "SELECT jobid FROM cron.job WHERE jobname = 'dpb-governed-release'") || jobid=""
	if [ -n "$jobid" ]; then
		_cron_psql -d postgres -c "SELECT cron.unschedule($jobid)" >/dev/null || why="cron.unschedule($jobid) failed"
		[ "$(_cron_psql -d postgres -c "SELECT count(*) FROM cron.job WHERE jobid = $jobid")" = 0 ] ||
			why="the job is still scheduled after cron.unschedule($jobid)"
	else
		why="the job is not in cron.job"
	fi
	if [ -z "$why" ]; then
		runs=$(_cron_psql -d postgres -F '|' -c "SELECT d.status, d.return_message
			FROM cron.job_run_details d
			WHERE d.jobid = $jobid AND d.status IN ('succeeded', 'failed')
			ORDER BY d.start_time LIMIT 2")
		echo "cron: runs:"
		# the expected refusal is shown as such, not as an ERROR line
		sed -e 's/^/  /' -e 's/|ERROR:  /| expected refusal: /' <<<"$runs"
		if ! grep -q '^succeeded|CALL' <<<"$(sed -n 1p <<<"$runs")"; then
			why="the first run did not succeed"
		elif ! grep -qxF 'failed|ERROR:  the privacy budget of the dataset would be exceeded (SQLSTATE DP001)' \
			<<<"$(sed -n 2p <<<"$runs")"; then
			why="the second run did not fail with DP001"
		fi
	fi
	if [ -z "$why" ]; then
		local state
		state=$(_cron_psql -d dpb_cron -c "SELECT
			(SELECT count(*) FROM dpbayes.charge) || ' ' ||
			(SELECT count(*) FROM dpbayes.released r WHERE dpbayes.verify(r.release)) || ' ' ||
			(SELECT count(*) FROM dpbayes.charge WHERE requested_by = 'dpb_cron_analyst' AND status = 'released') || ' ' ||
			(SELECT count(*) FROM dpbayes.audit WHERE outcome = 'refused: over budget' AND who = 'dpb_cron_analyst')")
		echo "cron: charges, valid signed releases, released by the job, refusals: $state"
		[ "$(awk '{print $1, $2, $3}' <<<"$state")" = "1 1 1" ] && [ "$(awk '{print $4}' <<<"$state")" -ge 1 ] ||
			why="the ledger does not hold exactly one charged, released and signed request and a refusal"
	fi
	if [ -n "$why" ]; then
		echo "cron: FAILED $why"
		_cron_psql -d postgres -c "SELECT jobid, status, return_message FROM cron.job_run_details" || true
		return 1
	fi
	echo "cron: ok ($(($(date +%s) - CRON_T0)) s after scheduling)"
}

# The ledger survives pg_dump and a restore into a second database: the
# charges, releases, grants, audit rows and public keys come back, every
# release still verifies (its key is a restored public key), and the budget
# is the same.  Run after cron_check on its database.  Prints "dump: ok" or
# "dump: FAILED <why>".
#   ledger_dump_restore [SOURCE_DB RESTORED_DB DATASET GRANTEE]
# (defaults: dpb_cron, dpb_restore, public.cron_pat, dpbayes_owner; the
# dataset whose budget is compared; GRANTEE, unless empty, is granted the
# dataset first, so the dump holds a grant; test/upgrade.sh uses it too)
ledger_dump_restore() {
	local src=${1:-dpb_cron} dst=${2:-dpb_restore} dataset=${3:-public.cron_pat} grantee=${4-dpbayes_owner}
	local a b dump=$PGC_DIR/$src.sql
	if [ -n "$grantee" ]; then
		_cron_psql -d "$src" -c "SELECT dpbayes.grant_dataset('$dataset', '$grantee')" >/dev/null || return 1
	fi
	if ! "$PGC_BIN/pg_dump" -d "$src" -f "$dump" ||
		! _cron_psql -d postgres -c "CREATE DATABASE $dst" ||
		! _cron_psql -d "$dst" -f "$dump" >/dev/null; then
		echo "dump: FAILED pg_dump or the restore failed"
		return 1
	fi
	local q="SELECT (SELECT count(*) FROM dpbayes.charge) || ' ' || (SELECT count(*) FROM dpbayes.released)
		|| ' ' || (SELECT count(*) FROM dpbayes.dataset_grant) || ' ' || (SELECT count(*) FROM dpbayes.audit)
		|| ' ' || (SELECT count(*) FROM dpbayes.signing_key)
		|| ' ' || (SELECT bool_and(dpbayes.verify(release)) FROM dpbayes.released)
		|| ' ' || (SELECT epsilon_spent || '/' || method FROM dpbayes.budget('$dataset'))
		|| ' ' || (SELECT 'audit_verify:' || bool_and(ok) FROM dpbayes.audit_verify())"
	a=$(_cron_psql -d "$src" -c "$q")
	b=$(_cron_psql -d "$dst" -c "$q")
	echo "dump: charges, releases, grants, audit rows, public keys, all verify, spent, the ledger verifies: $a (restored: $b)"
	if [ "$a" != "$b" ] || [ -z "$a" ] || ! grep -q ' true ' <<<"$b" || ! grep -q 'audit_verify:true' <<<"$b"; then
		echo "dump: FAILED the restored ledger differs"
		return 1
	fi
	echo "dump: ok"
}
