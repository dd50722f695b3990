#!/usr/bin/env bash
# test/setup.sh — the one privileged step: Debian packages, build, install.
#
#   sudo bash test/setup.sh      as an ordinary user with sudo
#   bash test/setup.sh           as root
#
#   1. test/deps.sh   apt-get install the missing Debian packages (PostgreSQL 15
#                     server and headers, GSL, OpenBLAS, gcc, make, gnuplot)
#   2. make           the extension, built as the user who ran sudo ($SUDO_USER),
#                     so the build tree stays theirs
#   3. make install   into the PostgreSQL 15 found by pg_config
#
# Afterwards `make demo`, `make playground` and `make check` need no root: the
# installed extension is current (builds are independent of the clone's path,
# so another clone of the same commit finds it installed too).  Run it again
# after pulling changes to src/ or dpbayes--*.sql.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ "$(id -u)" -ne 0 ]; then
	echo "setup.sh: needs root: run  sudo bash test/setup.sh" >&2
	exit 1
fi

bash test/deps.sh

if [ -x /usr/lib/postgresql/15/bin/pg_config ]; then
	PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
else
	PG_CONFIG=${PG_CONFIG:-pg_config}
fi

# Build as the invoking user when run through sudo (root-owned objects in a
# user's tree would make their next `make` fail).
user=${SUDO_USER:-root}
if [ "$user" != root ] && [ "$(stat -c %U .)" = "$user" ]; then
	echo "setup.sh: make (as $user)"
	runuser -u "$user" -- make -s PG_CONFIG="$PG_CONFIG"
else
	echo "setup.sh: make"
	make -s PG_CONFIG="$PG_CONFIG"
fi

echo "setup.sh: make install"
make -s install PG_CONFIG="$PG_CONFIG"
echo "setup.sh: done: dpbayes is installed into $("$PG_CONFIG" --pkglibdir)"
echo "setup.sh: next (no root needed): make demo, make playground, make check"
