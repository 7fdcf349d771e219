#!/usr/bin/env bash
# The release binary is portable: it needs only glibc's libc and libm and libgcc_s (libstdc++ is
# tolerated, though the release preset links it statically), it is stripped, and under 10 MB, and
# it needs no glibc newer than 2.34 when built on Debian 12 (what the wheel's tag says).
set -euo pipefail
binary=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

allowed='^(libc\.so\.6|libm\.so\.6|libstdc\+\+\.so\.6|libgcc_s\.so\.1|ld-linux[-a-z0-9_]*\.so\.[0-9]+)$'
needed=$(LC_ALL=C readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "NEEDED: $(echo $needed)"
[[ -n $needed ]] || fail "readelf found no NEEDED entries: not a dynamic binary?"
while read -r library; do
  [[ $library =~ $allowed ]] || fail "$binary needs $library"
done <<<"$needed"

# ldd resolves the whole closure: nothing may come in through another library either.
ldd_output=$(ldd "$binary")
echo "$ldd_output"
while read -r line; do
  name=$(awk '{print $1}' <<<"$line")
  name=${name##*/}
  [[ $name == linux-vdso.so.1 || $name == linux-gate.so.1 || $name =~ $allowed ]] || fail "ldd: $line"
done <<<"$ldd_output"
! grep -q 'not found' <<<"$ldd_output" || fail "ldd: a library is not found"

size=$(stat -c %s "$binary")
echo "size: $size bytes"
((size < 10000000)) || fail "$binary is $size bytes, not under 10 MB"
! LC_ALL=C readelf -S "$binary" | grep -E '\.symtab|\.debug_' >/dev/null || fail "$binary is not stripped"

# The minimum glibc it needs (what the wheel's manylinux tag says): at most 2.34, the glibc of
# openEuler 22.03 LTS. A newer symbol version (arc4random 2.36 from std::random_device,
# _dl_find_object 2.35 from a static libgcc, ...) would shut those machines out.
glibc_minor=$(LC_ALL=C readelf -V "$binary" | grep -o 'Name: GLIBC_2\.[0-9]*' | sed 's/.*\.//' | sort -n | tail -1)
echo "glibc: 2.$glibc_minor"
if ((glibc_minor > 34)); then
  LC_ALL=C objdump -T "$binary" | grep -E "GLIBC_2\.(3[5-9]|[4-9][0-9])" >&2 || true
  fail "the binary needs glibc 2.$glibc_minor (symbols above); at most 2.34 is the target"
fi

# And it runs: the version, then a lint of the embedded example that must be clean.
"$binary" --version | grep '^opmfu [0-9]' >/dev/null || fail "--version"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$binary" demo "$work/demo" --ranks 1 --steps 1 >/dev/null
"$binary" lint "$work/demo/example/train.sh" --output-format concise >/dev/null || fail "lint of the demo launcher is not clean"
