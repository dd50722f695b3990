#!/usr/bin/env bash
# bench/glm_speed.sh — noise-aware logistic regression (NUTS, exact moments):
# wall time and ESS per second at d = 2, 4, 8 (4 chains x 1000 draws after
# 1000 warmup), N = 1e3 and 1e5.  No server needed; writes
# bench/results/glm_speed.md.  MAXD=4 skips d = 8.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
MAXD=${MAXD:-8}
cc -O2 -std=gnu99 -Isrc/core $(pkg-config --cflags openblas) -o bench/glm_speed \
	bench/glm_speed.c bench/bench_util.c $(ls src/core/*.c) -lgsl -lopenblas -lm
out=bench/results/glm_speed.md
{
	echo "# Noise-aware logistic regression speed (NUTS, exact moments)"
	echo
	echo "4 chains x 1000 draws after 1000 warmup, one process, wall clock; the parameters are theta,"
	echo "mu, Sigma (reported: theta). Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average at start: $(cut -d' ' -f1 /proc/loadavg); $(date -u +%Y-%m-%d)."
	echo "Command: \`MAXD=$MAXD bash bench/glm_speed.sh\`"
	echo
	OPENBLAS_NUM_THREADS=1 ./bench/glm_speed "$MAXD"
} | tee "$out"
