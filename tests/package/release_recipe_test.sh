#!/usr/bin/env bash
# The release recipe has not rotted, in seconds (the cross build itself is the release tier's,
# scripts/test-release): the aarch64 toolchain file configures the project against the arm64
# sysroot, scripts/wheel computes the tags of tiny static and dynamic binaries of both machines
# from their ELF headers alone, and a wheel made of the aarch64 one carries the metadata and the
# licences; the third-party notices generate for both architectures.
set -euo pipefail
source_dir=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in aarch64-linux-gnu-gcc qemu-aarch64-static; do
  command -v $tool >/dev/null || { echo "$tool is missing (scripts/setup installs it)" >&2; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(cat "$source_dir/VERSION")

# 1. The toolchain file configures, and the build it writes uses the cross compiler and the
#    arm64 archives (nothing is compiled).
cmake -S "$source_dir" -B "$work/build-aarch64" -G Ninja --toolchain "$source_dir/cmake/aarch64-linux-gnu.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DOPMFU_STATIC=ON -DOPMFU_BUILD_TESTS=OFF -DOPMFU_BUILD_BENCH=OFF -DOPMFU_CCACHE=OFF \
  >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "the aarch64 toolchain file does not configure"; }
grep -q 'aarch64-linux-gnu-g++' "$work/build-aarch64/CMakeFiles/"*/CMakeCXXCompiler.cmake || fail "the build does not use the cross compiler"
grep -q 'sysroot-arm64/usr/lib/aarch64-linux-gnu/libsqlite3.a' "$work/build-aarch64/build.ninja" ||
  fail "the aarch64 build does not link the arm64 libsqlite3.a"
grep -q 'qemu-aarch64-static' "$work/build-aarch64/packaging/opmfu-emulated" || fail "no emulator wrapper for the man page"
grep -q "CPACK_DEBIAN_PACKAGE_ARCHITECTURE \"arm64\"" "$work/build-aarch64/CPackConfig.cmake" || fail "the .deb would not be arm64"
grep -q "CPACK_RPM_PACKAGE_ARCHITECTURE \"aarch64\"" "$work/build-aarch64/CPackConfig.cmake" || fail "the .rpm would not be aarch64"
grep -q "CPACK_PACKAGE_VERSION \"$version\"" "$work/build-aarch64/CPackConfig.cmake" || fail "the packages would not be $version"
echo "toolchain file: configures, cross compiler and arm64 archives"

# 2. Tags from the ELF header, for binaries scripts/wheel cannot run.
printf 'int main(void) { return 0; }\n' >"$work/main.c"
gcc -static -o "$work/static-x86_64" "$work/main.c"
aarch64-linux-gnu-gcc -static -o "$work/static-aarch64" "$work/main.c"
gcc -o "$work/dynamic-x86_64" "$work/main.c"
printf 'not an ELF file\n' >"$work/text"
for arch in x86_64 aarch64; do
  tags=$("$source_dir/scripts/wheel" --tags-only "$work/static-$arch")
  [[ $tags == "manylinux_2_17_$arch.manylinux2014_$arch.musllinux_1_1_$arch" ]] || fail "static $arch: tags $tags"
done
[[ $("$source_dir/scripts/wheel" --tags-only "$work/dynamic-x86_64") =~ ^manylinux_2_[0-9]+_x86_64$ ]] || fail "a dynamic binary got static tags"
if "$source_dir/scripts/wheel" --tags-only "$work/text" 2>"$work/err"; then fail "a text file got tags"; fi
grep -q 'not an ELF file' "$work/err" || fail "no clear error for a non-ELF file: $(cat "$work/err")"
echo "wheel tags: from the ELF header of x86_64 and aarch64 binaries"

# 3. A wheel of the aarch64 binary (never run): name, WHEEL tags, METADATA, licences, the launcher.
wheel=$("$source_dir/scripts/wheel" --binary "$work/static-aarch64" --out "$work/dist")
[[ $(basename "$wheel") == "opmfu-$version-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64.whl" ]] ||
  fail "wheel name $(basename "$wheel")"
python3 -m zipfile -e "$wheel" "$work/unpacked"
info=$work/unpacked/opmfu-$version.dist-info
grep -qx 'Tag: py3-none-manylinux2014_aarch64' "$info/WHEEL" || fail "WHEEL lacks manylinux2014_aarch64"
grep -qx 'Tag: py3-none-musllinux_1_1_aarch64' "$info/WHEEL" || fail "WHEEL lacks musllinux_1_1_aarch64"
grep -qE '^License-Expression: Apache-2.0 AND .*LGPL-2.1-or-later' "$info/METADATA" || fail "METADATA License-Expression"
grep -qE '^Project-URL: Homepage, https://' "$info/METADATA" || fail "METADATA Project-URL"
grep -qx 'License-File: THIRD_PARTY_NOTICES.txt' "$info/METADATA" || fail "METADATA License-File"
cmp -s "$info/licenses/LICENSE" "$source_dir/LICENSE" || fail "the wheel's LICENSE"
grep -q 'libc6-dev-arm64-cross' "$info/licenses/THIRD_PARTY_NOTICES.txt" || fail "the aarch64 wheel's notices are not the arm64 runtime's"
cmp -s "$work/unpacked/opmfu-$version.data/scripts/opmfu" "$work/static-aarch64" || fail "the wheel's binary"
grep -q "__version__ = \"$version\"" "$work/unpacked/opmfu/__init__.py" || fail "opmfu.__version__"
python3 - "$work/unpacked" "$info/RECORD" <<'PY' || fail "RECORD does not match the files"
import base64, hashlib, pathlib, sys
root = pathlib.Path(sys.argv[1])
for line in pathlib.Path(sys.argv[2]).read_text().splitlines():
    name, digest, size = line.rsplit(",", 2)
    if not digest:
        continue
    data = (root / name).read_bytes()
    assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode(), name
    assert int(size) == len(data), name
PY
echo "wheel: tags, METADATA, licences, RECORD"

# 4. The notices of both architectures: every bundled component, from its own file.
python3 "$source_dir/packaging/notices.py" --compiler aarch64-linux-gnu-g++ --sysroot "$source_dir/third_party/sysroot-arm64" "$work/notices-aarch64"
python3 "$source_dir/packaging/notices.py" --compiler g++ "$work/notices-x86_64"
for arch in x86_64 aarch64; do
  for component in 'GNU C Library' libstdc++ SQLite yaml-cpp zlib nlohmann-json CLI11 libxlsxwriter tree-sitter-python tree-sitter-bash tree-sitter-json \
    '/usr/share/common-licenses/LGPL-2.1'; do
    grep -qF "$component" "$work/notices-$arch" || fail "the $arch notices lack $component"
  done
done
grep -qF "$(head -5 /usr/share/doc/libsqlite3-dev/copyright)" "$work/notices-x86_64" || fail "the SQLite notice is not Debian's copyright file"
echo "notices: $(stat -c %s "$work/notices-x86_64") and $(stat -c %s "$work/notices-aarch64") bytes"
