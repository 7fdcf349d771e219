#!/usr/bin/env bash
# CPack's .deb of the release build: its control data (no Depends: the binary is static), its files, and the
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
[[ -z $depends ]] || fail "Depends is '$depends', expected none (a static binary)"

contents=$(dpkg-deb -c "$deb")
for path in ./usr/bin/opmfu ./usr/share/man/man1/opmfu.1.gz ./usr/share/bash-completion/completions/opmfu \
  ./usr/share/zsh/vendor-completions/_opmfu ./usr/share/doc/opmfu/copyright ./usr/share/doc/opmfu/changelog.gz \
  ./usr/share/opmfu/skills/opmfu-mfu/SKILL.md; do
  grep -q " $path\$" <<<"$contents" || fail "the .deb lacks $path"
done

! grep -q ' ./usr/share/licenses/' <<<"$contents" || fail "the .deb carries the .rpm's licence folder"
dpkg -x "$deb" "$work/root"
grep -q 'Apache License, Version 2.0' "$work/root/usr/share/doc/opmfu/copyright" || fail "copyright: no Apache-2.0 notice"
grep -q 'GNU C Library' "$work/root/usr/share/doc/opmfu/copyright" || fail "copyright: no third-party notices"
gzip -t "$work/root/usr/share/man/man1/opmfu.1.gz" || fail "the man page is not gzipped"
opmfu=$work/root/usr/bin/opmfu
"$opmfu" --version | grep '^opmfu ' >/dev/null || fail "the packaged binary does not run"
cd "$work"
"$opmfu" demo demo --ranks 1 --steps 1 >/dev/null
"$opmfu" analyze -d demo --export-type csv >/dev/null 2>&1 || fail "analyze with the packaged binary"
ls demo/cluster_analysis_output/*.csv >/dev/null 2>&1 || ls -R demo/cluster_analysis_output | grep '\.csv$' >/dev/null ||
  fail "analyze --export-type csv wrote no CSV"
