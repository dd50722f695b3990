#!/usr/bin/env bash
# bench/tools/dnoise_speed.sh [DRAWS] — random bytes and ns per sample of the
# exact discrete samplers, and the zCDP / AGM noise table (docs/noise.md);
# no server needed (bench/tools/dnoise_speed.c).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
. bench/tools/core.sh
cc -O2 -std=gnu99 $DPB_CORE_INC -o bench/tools/dnoise_speed \
	bench/tools/dnoise_speed.c src/core/release/dnoise.c src/core/release/agm.c src/core/common/dpb.c -lgsl -lm
./bench/tools/dnoise_speed "$@"
