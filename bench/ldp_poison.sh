#!/usr/bin/env bash
# bench/ldp_poison.sh — what one poisoning client can still do within the
# plausible range (issue 24, item 3; docs/ldp.md "Ingest check"): one report
# at a corner or an axis point of the plausible box of a linear_input
# protocol (accepted by ldp_check, ldp_collect and ldp_release) among N - 1
# honest reports, against the posterior with an N-th honest report.  No
# server (bench/ldp_poison.c drives src/core); a few seconds.  Writes
# bench/results/ldp_poison.md.  POISON_CASES overrides the "N:EPS" list,
# POISON_SETS the number of honest data sets per case (5).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. bench/tools/core.sh
cc -O2 -std=gnu99 $DPB_CORE_INC -Itest -o bench/ldp_poison \
	bench/ldp_poison.c $DPB_CORE_SRCS $DPB_CORE_LIBS
CASES=${POISON_CASES:-2000:4 20000:4 200000:4 2000:16}
SETS=${POISON_SETS:-5}
out=bench/results/ldp_poison.md
rows=bench/results/ldp_poison_rows.txt
if [ -z "${POISON_REUSE:-}" ]; then	# POISON_REUSE=1: only the table, from the rows
	: >"$rows"
	for c in $CASES; do
		nice ./bench/ldp_poison "${c%%:*}" "${c##*:}" "$SETS" >>"$rows"
	done
fi
{
	echo "# One poisoning client within the plausible range (linear_input)"
	echo
	echo "Command: \`bash bench/ldp_poison.sh\` ($(date -u +%Y-%m-%d)); \`bench/ldp_poison.c\`, no server."
	echo "Protocol linear_input, d = 1, clip 1, y_bound 2, delta 1e-6 (noise sd per report below)."
	echo "Honest records x ~ N(0.2, 0.4^2), y = 0.5 + 1.0 x + N(0, 0.3^2), randomized by the core's"
	echo "randomizer (seeded test bits: reports on the public grid, as clients send them). One report"
	echo "is replaced by a poisoned one at a corner (±X, ±Y) or an axis point (±X, 0), (0, ±Y) of the"
	echo "plausible box X = clip + 12 sd_x, Y = y_bound + 12 sd_y (on the grid): the most a report"
	echo "that \`ldp_check\`, \`ldp_collect\` and \`ldp_release\` accept can be. Model \`linear\`,"
	echo "default prior, NUTS 4 chains x (1000 + 1000), the same seed for the clean and the poisoned"
	echo "runs. Shift = (poisoned mean - clean mean) / clean posterior sd; the worst of the 8"
	echo "candidates per data set, then the median and the largest over $SETS honest data sets."
	echo "Monte Carlo standard error of a shift: about 0.03-0.05."
	echo
	grep '^# protocol\|^# noise' "$rows" | sort -u | sed 's/^# /    /'
	echo
	echo "| N | eps | theta[x1]: median, max | theta[intercept] | sigma | mu_x | sd_x | clean sd of theta[x1] | worst report for theta[x1] |"
	echo "|---|---|---|---|---|---|---|---|---|"
	awk -F'|' '
		$5 == "clean" { key = $2 "|" $3; sd[key, $4] = $11; keys[key] = 1; n[key] = $2; e[key] = $3 }
		$5 == "poison" {
			key = $2 "|" $3
			for (k = 0; k < 5; k++) {
				s = $(8 + 2 * k); if (s < 0) s = -s
				if (s > w[key, $4, k]) { w[key, $4, k] = s; if (k == 1) arg[key, $4] = "(" $6 ", " $7 ")" }
			}
			sets[key, $4] = 1
		}
		function med(arr, m,   i, j, t) {
			for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
				if (arr[j] < arr[i]) { t = arr[i]; arr[i] = arr[j]; arr[j] = t }
			return m % 2 ? arr[(m + 1) / 2] : (arr[m / 2] + arr[m / 2 + 1]) / 2
		}
		END {
			for (key in keys) order[++nk] = key
			for (i = 1; i <= nk; i++) for (j = i + 1; j <= nk; j++)
				if (e[order[j]] + 0 < e[order[i]] + 0 || (e[order[j]] == e[order[i]] && n[order[j]] + 0 < n[order[i]] + 0)) {
					t = order[i]; order[i] = order[j]; order[j] = t }
			for (i = 1; i <= nk; i++) {
				key = order[i]; m = 0
				for (s = 0; (key SUBSEP s) in sets; s++) m++
				line = "| " n[key] " | " e[key]
				split("1 0 2 3 4", ks, " ")
				for (q = 1; q <= 5; q++) {
					k = ks[q]
					for (s = 0; s < m; s++) a[s + 1] = w[key, s, k]
					mx = 0; for (s = 1; s <= m; s++) if (a[s] > mx) mx = a[s]
					line = line sprintf(" | %.2f, %.2f", med(a, m), mx)
				}
				for (s = 0; s < m; s++) a[s + 1] = sd[key, s]
				line = line sprintf(" | %.3g", med(a, m)) " | " arg[key, 0] " |"
				print line
			}
		}' "$rows"
	echo
	echo "Every row: one data set's worst candidate per variable (columns: median and largest over"
	echo "the data sets, in clean posterior sd). The raw rows (per data set and candidate: the shift"
	echo "and its Monte Carlo standard error for each variable) are in \`bench/results/ldp_poison_rows.txt\`."
} | tee "$out"
