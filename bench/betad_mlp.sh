#!/usr/bin/env bash
# bench/betad_mlp.sh — NOT PRIVATE measurements of the betaD network (issue
# 28; docs/betad.md, "Neural networks"), C drivers against src/core, no
# server; writes bench/results/betad_mlp.md.
#   bash bench/betad_mlp.sh            the approximation on 2-3 unit networks, then the speed
#   PARTS="speed" bash bench/betad_mlp.sh        only one part (approx, speed, pt)
#   PARTS=pt OUT=bench/results/betad_mlp_pt.md bash bench/betad_mlp.sh
#       the approximation on 2, 5 and 10 unit networks against a
#       parallel-tempering reference (PT_NETS: "H act" pairs)
# Overrides: N (speed rows, 10000), W (speed warmup, 500), REPS (speed draws, 5),
# APPROX_R (replicates per schedule, 600), APPROX_WARMUPS ("200 500").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. bench/tools/core.sh
PARTS=${PARTS:-"approx speed"}
N=${N:-10000}
W=${W:-500}
REPS=${REPS:-5}
APPROX_R=${APPROX_R:-600}
APPROX_WARMUPS=${APPROX_WARMUPS:-"200 500"}
cc -O2 -std=gnu99 $DPB_CORE_INC -Ibench -o bench/betad_mlp \
	bench/betad_mlp.c bench/bench_util.c $DPB_CORE_SRCS $DPB_CORE_LIBS
out=${OUT:-bench/results/betad_mlp.md}
PT_NETS=${PT_NETS:-"2 1;5 1;5 0;10 0"}
run() { OPENBLAS_NUM_THREADS=1 nice -n 10 ./bench/betad_mlp "$@"; }
{
	echo "# betaD network: approximation and speed (NOT PRIVATE: seeded, synthetic data)"
	echo
	echo "Machine: $(nproc) cores SHARED with other workers (nice); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average at start: $(cut -d' ' -f1 /proc/loadavg); $(date -u +%Y-%m-%d)."
	echo "Command: \`${OUT:+OUT=$OUT }PARTS=\"$PARTS\" N=$N W=$W REPS=$REPS APPROX_R=$APPROX_R APPROX_WARMUPS=\"$APPROX_WARMUPS\" PT_NETS=\"$PT_NETS\" bash bench/betad_mlp.sh\`"
	if [[ " $PARTS " == *" approx "* ]]; then
		echo
		echo "## Approximation: released outputs against a long reference run"
		echo
		echo "Synthetic classification data, d = 2, N = 100, beta 2; reference: 16 chains x (4000 + 4000) from prior draws (no tempering); $APPROX_R replicates of each schedule, each releasing one uniformly chosen kept draw. Compared: the network's output f(x) at 5 fixed inputs (invariant to the weights' symmetries)."
		echo
		echo "| network | N | schedule | replicates | gradients per release | output at | KS p vs reference | mean z^2 |"
		echo "|---|---|---|---|---|---|---|---|"
		# one chain per release: the law of a uniformly chosen kept draw of k
		# independent chains is that of one chain's (docs/betad.md)
		for w in $APPROX_WARMUPS; do run approx 100 2 1 "$w" 50 1 "$APPROX_R" 16; done
		for w in $APPROX_WARMUPS; do run approx 100 3 0 "$w" 50 1 "$APPROX_R" 16; done
		# the regression network (floor 0.05, beta 1.5), the default schedule
		GAUSS=1 run approx 100 2 1 500 50 1 "$APPROX_R" 16
	fi
	if [[ " $PARTS " == *" pt "* ]]; then
		echo
		echo "## Approximation against a parallel-tempering reference"
		echo
		echo "Synthetic classification data, d = 2, N = 100, beta 2 (as above). Reference: 2 independent parallel-tempering runs of 16 replicas (prior x exp(t data), t from 1e-3 to 1, geometric), HMC moves with adapted step sizes and 1-32 leapfrog steps, adjacent swaps every iteration, 5000 burn-in + 50 000 iterations each, every 25th t = 1 state kept (bench/betad_mlp.c, pt_reference): states travel from the prior, where the modes are connected, to t = 1, so the reference does not rest on where chains started. $APPROX_R releases of the default schedule, one chain x (500 + 50), each one uniformly chosen kept draw. Compared: the network's output at the 5 inputs, as above."
		echo
		echo "| network | N | reference | schedule | replicates | gradients per release | output at | KS p vs reference | mean z^2 |"
		echo "|---|---|---|---|---|---|---|---|---|"
		IFS=';' read -r -a nets <<<"$PT_NETS"
		for net in "${nets[@]}"; do
			# shellcheck disable=SC2086
			REF=pt run approx 100 $net 500 50 1 "$APPROX_R" 2
		done
	fi
	if [[ " $PARTS " == *" speed "* ]]; then
		echo
		echo "## Speed: one draw of a 10-unit ReLU network at N = $N, d = 8"
		echo
		run speed "$N" 8 10 "$W" 50 1 "$REPS"
	fi
} | tee "$out"
