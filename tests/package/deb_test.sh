#!/usr/bin/env bash
# CPack's .deb of the release build: its control data (Depends only on libc6 and libgcc-s1), its files, and the
# binary it installs runs (unpacked with dpkg -x into a scratch root: nothing is installed on the
# machine).
set -euo pipefail
build=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$build" && cpack -G DEB -B "$work/packages" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/packages/opmfu_*.deb)
echo "deb: $(basename "$deb") ($(stat -c %s "$deb") bytes)"
info=$(dpkg-deb -f "$deb")
echo "$info"
[[ $(dpkg-deb -f "$deb" Package) == opmfu ]] || fail "Package"
[[ $(dpkg-deb -f "$deb" Architecture) == $(dpkg --print-architecture) ]] || fail "Architecture"
depends=$(dpkg-deb -f "$deb" Depends)
[[ $depends =~ ^libc6\ \(\>=\ 2\.[0-9]+\)(,\ libgcc-s1\ \(\>=\ [0-9.]+\))?$ ]] ||
  fail "Depends is '$depends', expected only libc6 (and libgcc-s1)"

contents=$(dpkg-deb -c "$deb")
for path in ./usr/bin/opmfu ./usr/share/man/man1/opmfu.1 ./usr/share/bash-completion/completions/opmfu \
  ./usr/share/zsh/vendor-completions/_opmfu; do
  grep -q " $path\$" <<<"$contents" || fail "the .deb lacks $path"
done

dpkg -x "$deb" "$work/root"
opmfu=$work/root/usr/bin/opmfu
"$opmfu" --version | grep '^opmfu ' >/dev/null || fail "the packaged binary does not run"
cd "$work"
"$opmfu" demo demo --ranks 1 --steps 1 >/dev/null
"$opmfu" analyze -d demo --export-type csv >/dev/null 2>&1 || fail "analyze with the packaged binary"
ls demo/cluster_analysis_output/*.csv >/dev/null 2>&1 || ls -R demo/cluster_analysis_output | grep '\.csv$' >/dev/null ||
  fail "analyze --export-type csv wrote no CSV"
