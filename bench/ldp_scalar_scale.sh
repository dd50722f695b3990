#!/usr/bin/env bash
# bench/ldp_scalar_scale.sh — the clipped Gaussian posterior at N = 1e4 ..
# 1e7 reports (eps 0.5), grouped and binned (dpb_ldpm_group, the default)
# against the ungrouped path (bin_tol -1) in the same binary: one NUTS
# chain of 500 + 500 iterations, medians of 3 runs.  An ungrouped run at
# N = 1e7 would take most of an hour, so beyond SCALE_FULL_MAX only its time
# per evaluation is measured (3 times) and the run is projected as that time
# x the grouped run's evaluations.  No server; writes
# bench/results/ldp_scalar_scale.md.  SCALE_NS overrides the N list,
# SCALE_FULL_MAX the largest N with full ungrouped runs (1e5).
# SCALE_MECH=scalar_gaussian: the Gaussian-perturbed clipped scalar instead
# (model gaussian_gn, every report a term; issue 24, item 8), written to
# bench/results/ldp_scalar_scale_gaussian.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. bench/tools/core.sh
cc -O2 -std=gnu99 $DPB_CORE_INC -Itest -o bench/ldp_scalar_scale \
	bench/ldp_scalar_scale.c bench/bench_util.c $DPB_CORE_SRCS $DPB_CORE_LIBS
NS=${SCALE_NS:-10000 100000 1000000 10000000}
FULL_MAX=${SCALE_FULL_MAX:-100000}
MECH=${SCALE_MECH:-scalar_laplace}
if [ "$MECH" = scalar_gaussian ]; then
	out=bench/results/ldp_scalar_scale_gaussian.md
else
	out=bench/results/ldp_scalar_scale.md
fi
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
load=$(cut -d' ' -f1 /proc/loadavg)
for n in $NS; do
	for rep in 1 2 3; do
		nice ./bench/ldp_scalar_scale "$n" 0.5 grouped 500 "$MECH" >>"$rows"
		if [ "$n" -le "$FULL_MAX" ]; then
			nice ./bench/ldp_scalar_scale "$n" 0.5 ungrouped 500 "$MECH" >>"$rows"
		else
			nice ./bench/ldp_scalar_scale "$n" 0.5 evalonly 500 "$MECH" >>"$rows"
		fi
	done
done
{
	echo "# The clipped Gaussian posterior at large N ($MECH reports): grouped and binned against ungrouped"
	echo
	echo "Command: \`bash bench/ldp_scalar_scale.sh\` ($(date -u +%Y-%m-%d)); one process at a time under"
	echo "\`nice\` on the shared test machine ($(nproc) cores, other workers; load average at start $load)."
	if [ "$MECH" = scalar_gaussian ]; then
		echo "Records x ~ N(1, 1.5^2) randomized by the core's \`scalar_gaussian\` randomizer (eps 0.5,"
		echo "delta 1e-6, [-5, 5]: noise sd 86.8; insecure seeded bits: reports on the public grid, as"
		echo "clients send them); model \`gaussian\` on them (\`gaussian_gn\` in the core: every report"
		echo "is a term, 'in range' counts them all) with the default prior; one NUTS chain,"
		echo "500 warmup + 500 draws, seed 1."
	else
		echo "Records x ~ N(1, 1.5^2) randomized by the core's \`scalar_laplace\` randomizer (eps 0.5,"
		echo "[-5, 5], insecure seeded bits: reports on the public grid, as clients send them); model"
		echo "\`gaussian\` with the default prior; one NUTS chain, 500 warmup + 500 draws, seed 1."
	fi
	echo "'run' is \`dpb_ldpm_run\` wall time, the grouping set-up included; medians of 3 runs."
	echo "Ungrouped: full runs up to N = $FULL_MAX; beyond, the median of 3 measured times per"
	echo "evaluation times the grouped run's evaluations (projected, marked ~)."
	echo
	echo "| N | in range | distinct | terms | bins | bound v (nats) | set-up | one evaluation, grouped | ungrouped | evals | run, grouped | run, ungrouped | speed-up | max RSS |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for n in $NS; do
		awk -F'|' -v n="$n" '
			function med(a, k,   t) { # median of a[1..3]
				if (a[1] > a[2]) { t = a[1]; a[1] = a[2]; a[2] = t }
				if (a[2] > a[3]) { t = a[2]; a[2] = a[3]; a[3] = t }
				if (a[1] > a[2]) { t = a[1]; a[1] = a[2]; a[2] = t }
				return a[2]
			}
			function num(s) { gsub(/[^0-9.e+-]/, "", s); return s + 0 }
			$2 + 0 == n && $3 ~ /grouped/ && $3 !~ /ungrouped/ {
				g++; rg[g] = num($12); ev = num($11); inr = $4; dis = $5; terms = $6
				bins = $7; v = $8; su[g] = num($9); eg[g] = num($10); rss = $15 }
			$2 + 0 == n && $3 ~ /ungrouped/ { u++; ru[u] = num($12); eu[u] = num($10) }
			$2 + 0 == n && $3 ~ /evalonly/ { u++; eu[u] = num($10); proj = 1 }
			END {
				G = med(rg); E = med(eu)
				U = proj ? E * ev / 1000 : med(ru)
				printf "| %s |%s|%s|%s|%s|%s| %.3f s | %.3g ms | %.3g ms | %d | %.2f s | %s%.1f s | %.0fx |%s|\n",
					n, inr, dis, terms, bins, v, med(su), med(eg), E, ev, G,
					proj ? "~" : "", U, U / G, rss
			}' "$rows"
	done
	echo
	echo "Raw rows (N, mode, in-range reports, distinct in-range values, terms, bins, v, set-up,"
	echo "one evaluation, evaluations, run, posterior means of mu and sigma, max RSS):"
	echo
	echo '```'
	cat "$rows"
	echo '```'
} | tee "$out"
