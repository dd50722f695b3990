#!/usr/bin/env bash
# test/docs_examples.sh — every ```sql block of README.md and docs/*.md, run
# as written, per file in order, each file in a fresh database of its own
# with the demo tables (test/demo_data.sql: pima, boston), with ON_ERROR_STOP.
#
# A block that is deliberately not runnable (another machine, pg_cron in
# another database, superuser-only cluster settings, the LDP CLI, a
# placeholder, an error shown on purpose, minutes of sampling) is preceded
# (as its last non-blank line before the opening fence) by
#
#   <!-- not runnable: <reason> -->
#
# and skipped.
# docs/governance.md §16 is skipped here: it is run, with its
# own checks, by test/governance_example.sh.
#
# Other blocks run only when marked, after the file's SQL blocks (in the same
# database), in order:
#
#   <!-- runnable: sh -->        before a ```sh block: bash -e -o pipefail
#   <!-- runnable: python3 -->   before a ```python block: Debian's python3
#
# in a scratch directory that holds a symlink to each top-level entry of the
# repository (so data/..., src/cli/... and `make ldp-cli` work as written and
# the files a block writes land in the scratch directory), with PGHOST,
# PGPORT, PGUSER and PGDATABASE naming the file's database.  A python3 block
# needs python3-psycopg, python3-numpy and python3-matplotlib (test/run_checks.sh
# installs them as root, as in CI); without them it is listed as not run, which
# fails the test as root or with DPBAYES_DOCS_PYTHON=1 (0: never fails).
#
#   source test/docs_examples.sh; docs_examples_check
#                   on the running throwaway cluster (test/run_checks.sh,
#                   `make check`; one test)
#   bash test/docs_examples.sh
#                   alone: make, make install, a throwaway cluster,
#                   "1 passed, 0 failed" or "0 passed, 1 failed"

# The runnable ```sql blocks of one markdown file, in order.
_dex_sql() {
	awk -v file="$1" '
		file ~ /governance\.md$/ && /^## 16\./ {skip16 = 1}
		file ~ /governance\.md$/ && /^## / && !/^## 16\./ {skip16 = 0}
		!on && /^ *```sql *$/ {
			on = 1
			marked = (last ~ /<!-- *not runnable:/)
			next
		}
		on && /^ *```/ {on = 0; last = $0; if (!marked && !skip16) print ""; next}
		on {if (!marked && !skip16) print; next}
		/[^ \t]/ {last = $0}
	' "$1"
}

# The blocks of one markdown file marked "<!-- runnable: LANG -->", written to
# DIR/block_<k>.<LANG> (k = 1, 2, ... in order); prints the file names.
_dex_marked() {
	awk -v dir="$2" '
		!on && /^ *```[a-z0-9]+ *$/ {
			on = 1; out = ""
			if (match(last, /<!-- *runnable: *[a-z0-9]+ *-->/)) {
				lang = substr(last, RSTART, RLENGTH)
				sub(/<!-- *runnable: */, "", lang); sub(/ *-->/, "", lang)
				k++; out = dir "/block_" k "." lang
				printf "" > out
				print out
			}
			next
		}
		on && /^ *```/ {on = 0; if (out != "") close(out); last = $0; next}
		on {if (out != "") print > out; next}
		/[^ \t]/ {last = $0}
	' "$1"
}

# _dex_run_marked FILE DB: run the marked blocks of FILE against DB
_dex_run_marked() {
	local f=$1 db=$2 scratch b lang rc=0 e py=/usr/bin/python3
	scratch=$(mktemp -d) || return 1
	for e in * .[!.]*; do
		[ -e "$e" ] || continue
		case $e in .git | results | regression.* | tmp_check) continue ;; esac
		ln -s "$PWD/$e" "$scratch/$e"
	done
	# the scratch directory must be writable by the blocks: when the tests
	# run as root the clients stay root, so nothing to change
	mkdir -p "$scratch/.blocks"
	for b in $(_dex_marked "$f" "$scratch/.blocks"); do
		lang=${b##*.}
		case $lang in
			sh)
				if ! (cd "$scratch" && PGDATABASE=$db PATH="$PGC_BIN:$PATH" bash -e -o pipefail "$b") >"$scratch/.blocks/out" 2>&1; then
					sed 's/^/    /' "$scratch/.blocks/out" | tail -30
					echo "  $f: FAILED its runnable sh block $(basename "$b")"
					rc=1
				fi
				;;
			python3)
				if ! "$py" -c 'import psycopg, numpy, matplotlib' 2>/dev/null; then
					echo "  $f: python3 block $(basename "$b") not run: python3-psycopg, python3-numpy, python3-matplotlib are not installed (sudo apt-get install --no-install-recommends python3-psycopg python3-numpy python3-matplotlib)"
					# required as root (run_checks.sh installed them: CI) or when asked
					if [ "${DPBAYES_DOCS_PYTHON:-auto}" = 1 ] ||
						{ [ "${DPBAYES_DOCS_PYTHON:-auto}" = auto ] && [ "$(id -u)" -eq 0 ]; }; then
						rc=1
					fi
					continue
				fi
				if ! (cd "$scratch" && PGDATABASE=$db "$py" "$b") >"$scratch/.blocks/out" 2>&1; then
					sed 's/^/    /' "$scratch/.blocks/out" | tail -30
					echo "  $f: FAILED its runnable python3 block $(basename "$b")"
					rc=1
				fi
				;;
			*)
				echo "  $f: FAILED unknown runnable language \"$lang\" (sh or python3)"
				rc=1
				;;
		esac
		[ $rc -eq 0 ] && DEX_RAN="$DEX_RAN $f:$(basename "$b")"
	done
	[ -n "${DPBAYES_KEEP_TMP:-}" ] || { [ $rc -eq 0 ] && _dex_post_checks "$f" "$scratch" || rc=1; rm -rf "$scratch"; }
	return $rc
}

# checks of what the runnable blocks are documented to produce
_dex_post_checks() {
	local f=$1 scratch=$2
	case $f in
		docs/ldp.md)
			# the walk-through's summary: the intercept and three slopes
			[ "$(grep -c '^ *theta\[' "$scratch/.blocks/out")" -eq 4 ] ||
				{ echo "  $f: FAILED the walk-through printed no posterior summary of 4 coefficients:"; sed 's/^/    /' "$scratch/.blocks/out" | tail -20; return 1; }
			;;
		docs/clients.md)
			if [ -f "$scratch/.blocks/block_1.python3" ] && "/usr/bin/python3" -c 'import matplotlib' 2>/dev/null; then
				[ -s "$scratch/boston_posterior.png" ] || { echo "  $f: FAILED the python3 block wrote no boston_posterior.png"; return 1; }
			fi
			;;
	esac
	return 0
}

# ", k marked runnable" when a file has such blocks
_dex_marked_count() {
	local k
	k=$(grep -c '<!-- *runnable:' "$1")
	[ "$k" -gt 0 ] && echo ", $k marked runnable"
}

# "file: n runnable, m marked" for the report
_dex_counts() {
	local total marked
	total=$(grep -c '^ *```sql *$' "$1")
	marked=$(awk '!on && /^ *```sql *$/ {on = 1; if (last ~ /<!-- *not runnable:/) n++; next}
		on && /^ *```/ {on = 0; last = $0; next} on {next} /[^ \t]/ {last = $0} END {print n + 0}' "$1")
	echo "$total blocks, $marked marked not runnable"
}

docs_examples_check() {
	local f db sql out rc n=0 failed=0 t0=$SECONDS
	DEX_RAN=
	for f in README.md docs/*.md; do
		sql=$(_dex_sql "$f")
		if [ -z "${sql//[[:space:]]/}" ] && ! grep -q '<!-- *runnable:' "$f"; then
			grep -q '^ *```sql *$' "$f" && echo "  $f ($(_dex_counts "$f")): nothing to run here"
			continue
		fi
		n=$((n + 1))
		db=dpb_docs_$n
		PGOPTIONS="-c client_min_messages=warning" "$PGC_BIN/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null || return 1
		"$PGC_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" -f test/demo_data.sql >/dev/null || return 1
		local tf=$SECONDS
		out=$("$PGC_BIN/psql" -X -q -d "$db" -v ON_ERROR_STOP=1 -P pager=off <<<"$sql" 2>&1 >/dev/null)
		rc=$?
		if [ $rc -ne 0 ]; then
			printf '%s\n' "$out" | sed 's/^/  /'
			echo "  $f ($(_dex_counts "$f")): FAILED psql stopped (exit $rc)"
			failed=1
		elif ! _dex_run_marked "$f" "$db"; then
			failed=1
		else
			echo "  $f ($(_dex_counts "$f")$(_dex_marked_count "$f")): ok ($((SECONDS - tf)) s)"
		fi
		"$PGC_BIN/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
	done
	if [ $failed -ne 0 ]; then
		echo "docs examples: FAILED ($((SECONDS - t0)) s)"
		return 1
	fi
	echo "docs examples: ok ($n files, $((SECONDS - t0)) s; marked blocks run:${DEX_RAN:- none})"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -uo pipefail
	cd "$(dirname "${BASH_SOURCE[0]}")/.."
	# shellcheck source=test/pgcluster.sh
	source test/pgcluster.sh
	make -s PG_CONFIG="$PG_CONFIG" || exit 1
	dpb_make_install || exit 1
	pgc_start || exit 1
	if docs_examples_check; then
		echo "1 passed, 0 failed"
	else
		echo "0 passed, 1 failed"
		exit 1
	fi
fi
