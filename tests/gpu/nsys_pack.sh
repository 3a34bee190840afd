#!/bin/sh
# nsys_pack.sh [OUT]: Nsight Systems' CLI from Debian's non-free archive
# (bookworm's nsight-systems-target, 2022.4.2, about 34 MB), packed small
# enough to travel with the working tree to a GPU machine that has no
# network: the CLI, the CUDA injection libraries and the newest CUPTI it
# bundles, as OUT (default build/nsys/nsys-target.tar.xz, about 17 MB;
# build/ is not committed). Run it where Debian's archive is reached (a CPU
# machine); apt-get works in a directory of its own here, the system's
# sources are not changed. tests/gpu/overhead.sh unpacks and uses it.
set -eu
OUT=${1:-build/nsys/nsys-target.tar.xz}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
mkdir -p "$D/lists/partial" "$D/cache/archives/partial" "$D/parts" "$D/x" "$(dirname "$OUT")"
cat >"$D/parts/non-free.sources" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
A="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$D/parts -o Dir::State::Lists=$D/lists -o Dir::Cache=$D/cache"
# shellcheck disable=SC2086
apt-get $A update >"$D/update.log" 2>&1 || { tail -5 "$D/update.log"; exit 1; }
# shellcheck disable=SC2086
(cd "$D" && apt-get $A download nsight-systems-target) >"$D/download.log" 2>&1 ||
    { tail -5 "$D/download.log"; exit 1; }
dpkg-deb -x "$D"/nsight-systems-target_*.deb "$D/x"
T=$(find "$D/x" -type d -name target-linux-x64 | head -1)
[ -x "$T/nsys" ] || { echo "nsys_pack.sh: no target-linux-x64/nsys in the package"; exit 1; }
tar -C "$T" -cf - --exclude='libcupti.so.10*' --exclude='libcupti.so.11.[0-7]' \
    --exclude=libnvperf_host.so --exclude='libToolsInjectionCu*' --exclude='*MPI*' \
    --exclude='*SHMEM*' --exclude='*UCP*' --exclude=sqlite3 --exclude=python --exclude=reports . |
    xz -T0 -6 >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "nsys_pack.sh: $("$T/nsys" --version) -> $OUT ($(du -k "$OUT" | cut -f1) KiB)"
