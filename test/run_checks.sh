#!/usr/bin/env bash
# test/run_checks.sh — everything `make check` runs:
#
#   1. test/deps.sh         missing Debian packages (apt-get as root)
#   2. make unit            C unit tests of src/core
#   3. make, make install   the extension (install needs root or sudo -n)
#   4. pg_regress           sql/*.sql against expected/*.out, on a throwaway
#                           cluster (test/pgcluster.sh), database
#                           contrib_regression, after CREATE EXTENSION dpbayes
#   5. pg_isolation_regress the concurrency specs isolation/specs/*.spec
#                           (isolation/isolation_schedule) against
#                           isolation/expected/*.out on the same cluster,
#                           database dpb_isolation; counted in the summary
#                           line with the regression tests (results in
#                           isolation/output_iso/)
#   6. test/upgrade.sh      the upgrade test on the same cluster: a database
#                           made and populated at each released version,
#                           ALTER EXTENSION dpbayes UPDATE, its data kept,
#                           its schema equal to a fresh CREATE EXTENSION's,
#                           its pg_dump restored (docs/upgrades.md; counted
#                           as one test)
#   7. test/cron_job.sh     a pg_cron job making governed releases until the
#                           budget refuses (scheduled before step 4, checked
#                           last; counted as one test), then pg_dump of its
#                           database restored into another (one more test)
#   8. test/citus.sh        dpbayes on a real Citus cluster (a coordinator
#                           and two workers of their own, docs/scale-out.md):
#                           each of its checks counts as a test.  Citus is
#                           built from its source tarball and installed when
#                           missing (root or sudo -n); when it cannot be
#                           (no tarball, no root), the step is skipped with
#                           a note and nothing is counted
#   9. other BLAS kernels   the unit tests, then the regression tests on a
#                           restarted cluster, under each OpenBLAS kernel of
#                           DPBAYES_KERNELS that the CPU can run
#                           (OPENBLAS_CORETYPE; test/blas_kernels.sh); each
#                           kernel's regression tests count in the summary
#                           (results in kernels/<kernel>/)
#
# The regression tests are the basenames of sql/*.sql in byte order, the
# REGRESS list of dpbayes.mk.  results/ and regression.diffs go to the repo
# root.  When the regression tests ran, the last line printed is
# "N passed, N failed"; when they could not run (missing packages, build or
# install failure, no server), it is "could not run: <reason>" instead.  The
# exit status is non-zero if anything (unit, build, regression) failed or
# could not run.  A failing test's diff (regression.diffs) is printed.
#
# Environment:
#   DPBAYES_SKIP_UNIT=1     skip the C unit tests
#   DPBAYES_KERNELS="..."   the other OpenBLAS kernels to run the suite
#                           under (default "Prescott Haswell SkylakeX"; ""
#                           for none).  The main run uses the environment's
#                           OPENBLAS_CORETYPE (unset: the CPU's own kernel),
#                           so  OPENBLAS_CORETYPE=Zen DPBAYES_KERNELS= make
#                           check  runs everything under one kernel.
#   DPBAYES_REGRESS="a b"   run only these regression tests (and no
#                           isolation specs unless DPBAYES_ISOLATION=1, no
#                           upgrade test unless DPBAYES_UPGRADE=1, no
#                           pg_cron test unless DPBAYES_CRON=1, no docs
#                           examples unless DPBAYES_DOCS_EXAMPLES=1)
#   DPBAYES_CITUS=auto|0|1  the Citus step: auto (default) runs it when
#                           Citus is installed or can be built, 0 skips it,
#                           1 requires it (could not build: a failure); with
#                           DPBAYES_REGRESS it runs only when 1.  Its other
#                           settings: test/citus.sh
#   DPBAYES_PGPORT, DPBAYES_PGUSER, DPBAYES_KEEP_TMP, PG_CONFIG: see
#                           test/pgcluster.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=test/pgcluster.sh
source test/pgcluster.sh
# shellcheck source=test/cron_job.sh
source test/cron_job.sh
# shellcheck source=test/upgrade.sh
source test/upgrade.sh
# shellcheck source=test/governance_example.sh
source test/governance_example.sh
# shellcheck source=test/docs_examples.sh
source test/docs_examples.sh
# shellcheck source=test/citus.sh
source test/citus.sh

banner() { printf '\n======== %s ========\n' "$*"; }

# "passed failed" counts of a pg_regress or pg_isolation_regress output
# (<= 15: "... ok" / "... FAILED"; 16+: TAP "ok N" / "not ok N")
count_results() {
	awk '
		/\.\.\. +ok( |$)/     { p++; next }
		/\.\.\. +FAILED/      { f++; next }
		/^ok +[0-9]+ /         { p++; next }
		/^not ok +[0-9]+ /     { f++; next }
		END { printf "%d %d\n", p + 0, f + 0 }' "$1"
}

unit_status="not run"
citus_note=""     # the Citus step's line of the summary
status=0          # overall exit status
reg_pass=0
reg_fail=0

# The last line: "N passed, N failed" for the regression tests.
finish() {
	banner "summary"
	echo "unit tests:       $unit_status"
	echo "regression tests: ${#tests[@]} scheduled (plus the isolation specs)"
	[ -z "$citus_note" ] || echo "citus:            $citus_note"
	echo "$reg_pass passed, $reg_fail failed"
	exit "$status"
}

# The regression tests could not run at all: say why on the last line (not
# "0 passed, N failed", which reads as if N tests had run and failed).
cannot_run() {
	banner "summary"
	echo "unit tests:       $unit_status"
	echo "regression tests: ${#tests[@]} scheduled, none run"
	echo "could not run: $*"
	exit 1
}

# ---- the regression test list, as dpbayes.mk derives REGRESS ----
tests=()
if [ -n "${DPBAYES_REGRESS:-}" ]; then
	read -r -a tests <<<"$DPBAYES_REGRESS"
else
	while IFS= read -r t; do
		tests+=("$t")
	done < <(find sql -mindepth 1 -maxdepth 1 -name '*.sql' -printf '%f\n' 2>/dev/null |
		sed 's/\.sql$//' | LC_ALL=C sort)
fi

banner "dependencies (test/deps.sh)"
if bash test/deps.sh; then
	echo "ok"
else
	cannot_run "Debian packages are missing (see the deps.sh lines above: run  sudo bash test/setup.sh  once)"
fi
# as root (CI) also the Python client of docs/clients.md, which the docs
# examples run; elsewhere they are optional (test/docs_examples.sh says so)
if [ "$(id -u)" -eq 0 ] && [ "${DPBAYES_DOCS_EXAMPLES:-1}" != 0 ]; then
	DPB_DEPS_EXTRA="python3-psycopg python3-numpy python3-matplotlib" bash test/deps.sh ||
		echo "deps.sh: the Python client packages could not be installed; the docs examples will say so"
fi

banner "unit tests (make unit)"
if [ "${DPBAYES_SKIP_UNIT:-0}" = 1 ]; then
	unit_status="skipped (DPBAYES_SKIP_UNIT=1)"
	echo "$unit_status"
elif make -s unit; then
	unit_status="ok"
else
	unit_status="FAILED (see above)"
	status=1
fi

banner "build (make)"
if ! make -s PG_CONFIG="$PG_CONFIG"; then
	cannot_run "the build (make) failed, see above"
fi

banner "install (make install)"
if ! dpb_make_install; then
	cannot_run "the extension could not be installed (make install), see above"
fi

banner "regression tests (pg_regress: ${#tests[@]} tests)"
if [ "${#tests[@]}" -eq 0 ]; then
	echo "no tests in sql/: nothing to run"
	finish
fi

pg_regress=$(dirname "$("$PG_CONFIG" --pgxs)")/../../src/test/regress/pg_regress
if [ ! -x "$pg_regress" ]; then
	cannot_run "pg_regress not found at $pg_regress (is postgresql-server-dev-15 installed?)"
fi

# pg_regress (15) aborts the whole run at the first test without an expected
# file; run the others and count those as failed.
run=() missing=()
for t in "${tests[@]}"; do
	if [ -f "expected/$t.out" ]; then
		run+=("$t")
	else
		missing+=("$t")
	fi
done
if [ "${#missing[@]}" -ne 0 ]; then
	for t in "${missing[@]}"; do
		echo "MISSING expected/$t.out: test $t not run, counted as failed" >&2
	done
	echo "(to see a test's output: touch expected/<test>.out, rerun, review results/<test>.out)" >&2
fi
if [ "${#run[@]}" -eq 0 ]; then
	status=1
	reg_fail=${#missing[@]}
	finish
fi

if ! pgc_start; then
	cannot_run "the throwaway PostgreSQL cluster did not start, see the pgcluster lines above"
fi

# the scheduled release test (pg_cron) runs while the regression tests do;
# checked at the end (whole suite only)
cron_on=0
if [ -z "${DPBAYES_REGRESS:-}" ] || [ "${DPBAYES_CRON:-0}" = 1 ]; then
	cron_on=1
	banner "scheduled governed releases (pg_cron, test/cron_job.sh)"
	cron_scheduled=1
	cron_schedule || cron_scheduled=0
fi

out=$PGC_DIR/pg_regress.out
# pg_regress of the tests in run[] into OUTDIR (results/, regression.diffs),
# its output copied to LOG; returns pg_regress's exit status
run_regress() {
	"$pg_regress" \
		--inputdir=. --outputdir="$1" \
		--bindir="$PGC_BIN" \
		--load-extension=dpbayes \
		--host="$PGHOST" --port="$PGPORT" --user="$PGUSER" \
		--dbname=contrib_regression \
		"${run[@]}" 2>&1 | tee "$2"
	return "${PIPESTATUS[0]}"
}
rm -f regression.diffs regression.out
set +e
run_regress . "$out"
rc=$?
set -e

# Count results.  PostgreSQL <= 15 prints "test foo ... ok 12 ms" (or
# "     foo ... FAILED" inside a parallel group, "failed (ignored)");
# 16+ prints TAP: "ok 1 - foo 12 ms" / "not ok 2 - foo".
read -r reg_pass reg_fail < <(awk '
	/^(test +)?[^ ]+ +\.\.\. +ok( |$)/                 { p++; next }
	/^ +[^ ]+ +\.\.\. +ok( |$)/                         { p++; next }
	/\.\.\. +failed \(ignored\)/                        { p++; next }
	/\.\.\. +FAILED/                                    { f++; next }
	/^ok +[0-9]+ /                                      { p++; next }
	/^not ok +[0-9]+ .*# *\(?ignored/                   { p++; next }
	/^not ok +[0-9]+ /                                  { f++; next }
	END { printf "%d %d\n", p, f }' "$out")

if [ "$rc" -ne 0 ]; then
	status=1
	# pg_regress could not run (rc 2) or some results were not parsed:
	# every test not counted as passed counts as failed.
	if [ $((reg_pass + reg_fail)) -lt "${#run[@]}" ] || [ "$reg_fail" -eq 0 ]; then
		reg_fail=$((${#run[@]} - reg_pass))
		[ "$reg_fail" -gt 0 ] || reg_fail=1
	fi
	if [ -s regression.diffs ]; then
		# The diff of each failing test: what was expected, what came out.
		n=$(wc -l <regression.diffs)
		if [ "$n" -le 300 ]; then
			banner "regression.diffs ($n lines: $PWD/regression.diffs)"
		else
			banner "regression.diffs (first 300 of $n lines; whole file: $PWD/regression.diffs)"
		fi
		head -n 300 regression.diffs
	else
		# No diff: pg_regress itself failed (server crash, connection
		# lost); the server log says why.
		pgc_log 50
	fi
	if [ "$reg_pass" -eq 0 ] && ! grep -qE '\.\.\. +(ok|FAILED|failed)|^(not )?ok +[0-9]' "$out"; then
		cannot_run "pg_regress did not run any test (exit status $rc), see above"
	fi
fi

if [ "${#missing[@]}" -ne 0 ]; then
	status=1
	reg_fail=$((reg_fail + ${#missing[@]}))
fi

# ---- isolation specs (pg_isolation_regress) on the same cluster ----
iso_regress=$(dirname "$("$PG_CONFIG" --pgxs)")/../../src/test/isolation/pg_isolation_regress
if [ -f isolation/isolation_schedule ] &&
	{ [ -z "${DPBAYES_REGRESS:-}" ] || [ "${DPBAYES_ISOLATION:-0}" = 1 ]; }; then
	n_iso=$(grep -c '^test:' isolation/isolation_schedule)
	banner "isolation specs (pg_isolation_regress: $n_iso specs)"
	if [ ! -x "$iso_regress" ]; then
		echo "pg_isolation_regress not found at $iso_regress: $n_iso specs counted as failed" >&2
		status=1
		reg_fail=$((reg_fail + n_iso))
	else
		iout=$PGC_DIR/pg_isolation_regress.out
		rm -rf isolation/output_iso
		set +e
		"$iso_regress" \
			--inputdir=isolation --outputdir=isolation/output_iso \
			--bindir="$PGC_BIN" \
			--load-extension=dpbayes \
			--host="$PGHOST" --port="$PGPORT" --user="$PGUSER" \
			--dbname=dpb_isolation \
			--schedule=isolation/isolation_schedule 2>&1 | tee "$iout"
		irc=${PIPESTATUS[0]}
		set -e
		read -r ip if_ < <(count_results "$iout")
		if [ "$irc" -ne 0 ]; then
			status=1
			[ $((ip + if_)) -ge "$n_iso" ] || if_=$((n_iso - ip))
			[ "$if_" -gt 0 ] || if_=1
			if [ -s isolation/output_iso/regression.diffs ]; then
				banner "isolation regression.diffs ($PWD/isolation/output_iso/regression.diffs)"
				head -n 300 isolation/output_iso/regression.diffs
			fi
		fi
		reg_pass=$((reg_pass + ip))
		reg_fail=$((reg_fail + if_))
	fi
fi

# ---- the end-to-end example of docs/governance.md ----
if [ -z "${DPBAYES_REGRESS:-}" ] || [ "${DPBAYES_GOV_EXAMPLE:-0}" = 1 ]; then
	banner "the governance example (docs/governance.md §16, test/governance_example.sh)"
	if governance_example_check; then
		reg_pass=$((reg_pass + 1))
	else
		status=1
		reg_fail=$((reg_fail + 1))
	fi
fi

# ---- the ```sql examples of README.md and docs/*.md ----
if [ -z "${DPBAYES_REGRESS:-}" ] || [ "${DPBAYES_DOCS_EXAMPLES:-0}" = 1 ]; then
	banner "the docs examples (README.md, docs/*.md, test/docs_examples.sh)"
	if docs_examples_check; then
		reg_pass=$((reg_pass + 1))
	else
		status=1
		reg_fail=$((reg_fail + 1))
	fi
fi

# ---- the upgrade test (test/upgrade.sh) on the same cluster ----
if [ -z "${DPBAYES_REGRESS:-}" ] || [ "${DPBAYES_UPGRADE:-0}" = 1 ]; then
	banner "upgrade from the released versions (test/upgrade.sh)"
	if upgrade_check; then
		reg_pass=$((reg_pass + 1))
	else
		status=1
		reg_fail=$((reg_fail + 1))
	fi
fi

if [ "$cron_on" = 1 ]; then
	banner "scheduled governed releases (pg_cron): check"
	if [ "$cron_scheduled" = 1 ] && cron_check; then
		reg_pass=$((reg_pass + 1))
	else
		[ "$cron_scheduled" = 1 ] || echo "cron: FAILED the job could not be scheduled (is postgresql-15-cron installed? test/deps.sh)"
		status=1
		reg_fail=$((reg_fail + 1))
	fi
	banner "ledger dump and restore (pg_dump, test/cron_job.sh)"
	if [ "$cron_scheduled" = 1 ] && ledger_dump_restore; then
		reg_pass=$((reg_pass + 1))
	else
		status=1
		reg_fail=$((reg_fail + 1))
	fi
fi

# ---- dpbayes on a real Citus cluster (test/citus.sh) ----
citus_mode=${DPBAYES_CITUS:-auto}
if [ "$citus_mode" != 0 ] && { [ -z "${DPBAYES_REGRESS:-}" ] || [ "$citus_mode" = 1 ]; }; then
	banner "Citus: a coordinator and two workers (test/citus.sh)"
	# its three clusters are stopped on any exit, as the main one
	trap 'citus_stop; pgc_stop' EXIT
	trap 'citus_stop; _pgc_on_signal INT' INT
	trap 'citus_stop; _pgc_on_signal TERM' TERM
	trap 'citus_stop; _pgc_on_signal HUP' HUP
	citus_t0=$(date +%s)
	citus_check || true
	trap pgc_stop EXIT
	trap '_pgc_on_signal INT' INT
	trap '_pgc_on_signal TERM' TERM
	trap '_pgc_on_signal HUP' HUP
	if [ -n "$CITUS_SKIPPED" ]; then
		if [ "$citus_mode" = 1 ]; then
			citus_note="FAILED: could not run ($CITUS_SKIPPED)"
			status=1
			reg_fail=$((reg_fail + 1))
		else
			citus_note="skipped: $CITUS_SKIPPED (DPBAYES_CITUS=1 requires it)"
		fi
	else
		citus_note="$CITUS_PASS passed, $CITUS_FAIL failed ($(($(date +%s) - citus_t0)) s)"
		reg_pass=$((reg_pass + CITUS_PASS))
		reg_fail=$((reg_fail + CITUS_FAIL))
		[ "$CITUS_FAIL" -eq 0 ] || status=1
	fi
fi

# ---- the same verdicts under other OpenBLAS kernels ----
# OpenBLAS picks its kernels by CPU, and they round differently, so every
# chain runs on other bits on another machine.  No verdict may depend on
# that: the unit tests and the regression tests run again under each kernel
# of DPBAYES_KERNELS that this CPU can run (test/blas_kernels.sh).
extra_kernels=$(bash test/blas_kernels.sh "${DPBAYES_KERNELS-Prescott Haswell SkylakeX}")
main_kernel=${OPENBLAS_CORETYPE:-native}
kernel_notes=()
for k in $extra_kernels; do
	[ "$k" != "$main_kernel" ] || continue
	banner "kernel $k: unit tests (OPENBLAS_CORETYPE=$k)"
	if [ "${DPBAYES_SKIP_UNIT:-0}" = 1 ]; then
		echo "skipped (DPBAYES_SKIP_UNIT=1)"
	else
		ulog=$PGC_DIR/unit_$k.log
		urc=0
		# the membership audit of the betaD network (a minute of CPU) runs
		# under the CPU's own kernel only: its verdict is a demonstrated
		# epsilon far below the stated one (docs/betad.md: 0.56 against 5),
		# not a fixed-seed chain near a threshold, and the reruns would add
		# three minutes to the suite
		OPENBLAS_CORETYPE=$k DPB_UNIT_SKIP="betad_mlp_audit" ./test/unit_run >"$ulog" 2>&1 || urc=$?
		grep -E '^(FAIL|not ok|skip|openblas)' "$ulog" || true
		usum=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$ulog" | tail -1)
		echo "unit tests under $k: ${usum:-no summary (exit status $urc)}"
		if [ "$urc" -ne 0 ]; then
			status=1
			unit_status="FAILED under $k (see above)"
		fi
		kernel_notes+=("unit $k: ${usum:-exit $urc}")
	fi
	banner "kernel $k: regression tests (server with OPENBLAS_CORETYPE=$k)"
	pgc_stop
	if ! OPENBLAS_CORETYPE=$k pgc_start; then
		echo "the cluster did not start under $k: counted as one failed test" >&2
		status=1
		reg_fail=$((reg_fail + 1))
		continue
	fi
	kout=kernels/$k
	rm -rf "$kout" && mkdir -p "$kout"
	set +e
	run_regress "$kout" "$PGC_DIR/pg_regress_$k.out"
	krc=$?
	set -e
	read -r kp kf < <(count_results "$PGC_DIR/pg_regress_$k.out")
	if [ "$krc" -ne 0 ]; then
		status=1
		[ $((kp + kf)) -ge "${#run[@]}" ] || kf=$((${#run[@]} - kp))
		[ "$kf" -gt 0 ] || kf=1
		if [ -s "$kout/regression.diffs" ]; then
			banner "regression.diffs under $k ($PWD/$kout/regression.diffs)"
			head -n 200 "$kout/regression.diffs"
		fi
	fi
	kernel_notes+=("regression $k: $kp passed, $kf failed")
	reg_pass=$((reg_pass + kp))
	reg_fail=$((reg_fail + kf))
done

banner "stop cluster"
pgc_stop
if [ "${#kernel_notes[@]}" -ne 0 ]; then
	echo "main run under OPENBLAS_CORETYPE=$main_kernel; other kernels:"
	printf '  %s\n' "${kernel_notes[@]}"
fi
finish
