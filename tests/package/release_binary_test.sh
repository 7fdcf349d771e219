#!/usr/bin/env bash
# The release binary is fully static (no NEEDED entry, no program interpreter), for the ELF
# machine of the build, stripped, under 12 MB, with a kernel floor no newer than 3.7 (what the
# install matrix in docs/packaging.md promises), and it runs.
set -euo pipefail
binary=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

dynamic=$(LC_ALL=C readelf -d "$binary" 2>&1)
! grep -q '(NEEDED)' <<<"$dynamic" || fail "$binary needs shared libraries: $(grep '(NEEDED)' <<<"$dynamic")"
! LC_ALL=C readelf -l "$binary" | grep -q INTERP || fail "$binary asks for a program interpreter (not static)"
machine=$(od -An -tu2 -j18 -N2 --endian=little "$binary" | tr -d ' ')
case $(uname -m) in x86_64) expected=62 ;; aarch64) expected=183 ;; *) expected=$machine ;; esac
[[ $machine == "$expected" ]] || fail "ELF machine $machine on a $(uname -m) build"

size=$(stat -c %s "$binary")
echo "size: $size bytes"
((size < 12000000)) || fail "$binary is $size bytes, not under 12 MB"
! LC_ALL=C readelf -S "$binary" | grep -E '\.symtab|\.debug_' >/dev/null || fail "$binary is not stripped"

# The oldest kernel glibc's static start-up accepts (the ABI note): the floor of the install matrix.
abi=$(LC_ALL=C readelf -n "$binary" | sed -n 's/.*OS: Linux, ABI: \([0-9.]*\).*/\1/p')
echo "kernel floor: Linux $abi"
[[ -n $abi ]] || fail "no ABI note (NT_GNU_ABI_TAG)"
[[ $(printf '%s\n' "$abi" 3.7.0 | sort -V | tail -1) == 3.7.0 ]] || fail "the binary needs Linux $abi, newer than 3.7"

"$binary" --version | grep '^opmfu [0-9]' >/dev/null || fail "--version"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$binary" demo "$work/demo" --ranks 1 --steps 1 >/dev/null
"$binary" lint "$work/demo/example/train.sh" --output-format concise >/dev/null || fail "lint of the demo launcher is not clean"
