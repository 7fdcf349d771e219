#!/usr/bin/env bash
# The release binary is portable: it needs only glibc's libc and libm (libstdc++ and libgcc_s are
# tolerated, though the release preset links them statically), it is stripped, and under 10 MB.
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
! LC_ALL=C readelf -S "$binary" | grep -qE '\.symtab|\.debug_' || fail "$binary is not stripped"

# The minimum glibc it needs (what the wheel's manylinux tag says).
echo "glibc: $(LC_ALL=C readelf -V "$binary" | grep -o 'GLIBC_2\.[0-9]*' | sort -t. -k2 -n -u | tail -1)"

# And it runs: the version, then a lint of the embedded example that must be clean.
"$binary" --version | grep -q '^opmfu [0-9]' || fail "--version"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$binary" demo "$work/demo" --ranks 1 --steps 1 >/dev/null
"$binary" lint "$work/demo/example/train.sh" --output-format concise >/dev/null || fail "lint of the demo launcher is not clean"
