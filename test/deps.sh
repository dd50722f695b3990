#!/usr/bin/env bash
# test/deps.sh — make sure the Debian packages dpbayes needs are installed.
#
# Quiet (and fast: one dpkg-query call) when everything is present.
# When something is missing:
#   * as root: apt-get update, then apt-get install -y --no-install-recommends;
#   * otherwise: print the one command line to run (with sudo), exit 1.
#
# Used by `make deps`, test/setup.sh, test/run_checks.sh (`make check`),
# test/demo.sh and test/playground.sh.
set -euo pipefail

# Build:   make, gcc (+ libc6-dev for the C headers), pkg-config (openblas
#          include dir), postgresql-server-dev-15 (PGXS, pg_config, clang for
#          the JIT bitcode), libgsl-dev, libopenblas-dev, libssl-dev (libcrypto's
#          SHA-256 for the LDP protocol id).
# Tests:   postgresql-15 (server: initdb, pg_ctl, postgres),
#          postgresql-client-15 (psql, pg_regress), diffutils (pg_regress
#          diffs), util-linux (runuser), passwd (useradd), postgresql-15-cron
#          (pg_cron: the scheduled governed releases test, test/cron_job.sh).
# Demo:    gnuplot-nox (the PNG of `make demo`, the figures in docs/).
PACKAGES=(
	make
	gcc
	libc6-dev
	pkg-config
	postgresql-15
	postgresql-client-15
	postgresql-server-dev-15
	postgresql-15-cron
	libgsl-dev
	libopenblas-dev
	libssl-dev
	gnuplot-nox
	diffutils
	util-linux
	passwd
)

# DPB_DEPS_EXTRA: more packages for this call only (test/run_checks.sh, as
# root: the Python client of docs/clients.md, run by test/docs_examples.sh)
# shellcheck disable=SC2206
PACKAGES+=(${DPB_DEPS_EXTRA:-})

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "deps.sh: dpkg-query not found: not a Debian system, cannot check packages." >&2
	echo "deps.sh: needed (Debian names): ${PACKAGES[*]}" >&2
	exit 0
fi

# "<package> <status abbrev>" for each known package; "ii" = installed.
# Packages dpkg has never heard of are reported on stderr (ignored) and
# simply do not appear in the output.
installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${PACKAGES[@]}" 2>/dev/null || true)

missing=()
for p in "${PACKAGES[@]}"; do
	if ! grep -qxE "${p//./\\.} ii ?" <<<"$installed"; then
		missing+=("$p")
	fi
done

if [ "${#missing[@]}" -eq 0 ]; then
	exit 0
fi

echo "deps.sh: missing Debian packages: ${missing[*]}"

if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: install them (and build and install dpbayes) with the one privileged step:" >&2
	echo "  sudo bash test/setup.sh" >&2
	echo "deps.sh: or only the packages:" >&2
	echo "  sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# Wait for the dpkg lock (another apt run) instead of failing at once.
lock=(-o DPkg::Lock::Timeout=300)
apt_opts=(-y -q --no-install-recommends "${lock[@]}"
	-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)

echo "deps.sh: apt-get update"
if ! apt-get update -q "${lock[@]}" </dev/null; then
	echo "deps.sh: apt-get update failed; retrying once" >&2
	sleep 5
	apt-get update -q "${lock[@]}" </dev/null
fi

echo "deps.sh: apt-get install ${missing[*]}"
apt-get install "${apt_opts[@]}" "${missing[@]}" </dev/null

# Check again: a package that apt "installed" but dpkg does not list as
# installed (e.g. a failed postinst) is an error.
installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${missing[@]}" 2>/dev/null || true)
still=()
for p in "${missing[@]}"; do
	grep -qxE "${p//./\\.} ii ?" <<<"$installed" || still+=("$p")
done
if [ "${#still[@]}" -ne 0 ]; then
	echo "deps.sh: still not installed after apt-get: ${still[*]}" >&2
	exit 1
fi
echo "deps.sh: done"
