#!/usr/bin/env bash
# scripts/wheel makes a correctly tagged wheel from the static release binary (never running it); pip installs it offline in
# a fresh venv; `opmfu` and `python -m opmfu` then lint and analyze `opmfu demo` data.
set -euo pipefail
source_dir=$1 binary=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python=/usr/bin/python3
[[ -x $python ]] || python=python3

wheel=$("$source_dir/scripts/wheel" --binary "$binary" --out "$work/dist")
name=$(basename "$wheel")
echo "wheel: $name ($(stat -c %s "$wheel") bytes)"
version=$(cat "$source_dir/VERSION")
arch=$(uname -m)
tags=manylinux_2_17_$arch.manylinux2014_$arch.musllinux_1_1_$arch
[[ $name == "opmfu-$version-py3-none-$tags.whl" ]] || fail "$name: expected opmfu-$version-py3-none-$tags.whl"
"$python" -m zipfile -l "$wheel" >"$work/listing"
grep -q "opmfu-$version.data/scripts/opmfu " "$work/listing" || fail "the binary is not in .data/scripts"
"$python" -m zipfile -e "$wheel" "$work/unpacked"
for tag in ${tags//./ }; do
  grep -qx "Tag: py3-none-$tag" "$work/unpacked/opmfu-$version.dist-info/WHEEL" || fail "WHEEL lacks Tag: py3-none-$tag"
done
[[ -f "$work/unpacked/opmfu-$version.dist-info/licenses/THIRD_PARTY_NOTICES.txt" ]] || fail "no notices in .dist-info/licenses"
grep -qx "Root-Is-Purelib: false" "$work/unpacked/opmfu-$version.dist-info/WHEEL" || fail "Root-Is-Purelib"

# A fresh venv without its own pip (ensurepip would take most of this test's time): Debian's
# pip installs into it (--python), offline.
"$python" -m venv --without-pip "$work/venv"
venv_pip() { "$python" -m pip --python "$work/venv/bin/python" --disable-pip-version-check "$@"; }
venv_pip install --no-index --no-cache-dir -q "$wheel"
venv_opmfu=$work/venv/bin/opmfu
[[ -x $venv_opmfu ]] || fail "pip did not install an opmfu command"
cmp -s "$venv_opmfu" "$binary" || fail "the installed command is not the release binary"
[[ $("$venv_opmfu" --version) == $("$binary" --version) ]] || fail "opmfu --version"
[[ $("$work/venv/bin/python" -m opmfu --version) == $("$binary" --version) ]] || fail "python -m opmfu --version"

# torch_npu in the venv the wheel went into (Debian's python3 -m venv: its patched site names only the
# system's dist-packages): found by the venv's `opmfu` without activation or --python, by `python -m
# opmfu`, and by --python VENV/bin/python from another opmfu.
site=$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
mkdir -p "$site/torch_npu/profiler"
cp "$source_dir/examples/_flops_formulas.py" "$site/torch_npu/profiler/_flops_formulas.py"
for way in "$venv_opmfu registry list --format json" "$work/venv/bin/python -m opmfu registry list --format json" \
  "$binary registry list --python $work/venv/bin/python --format json"; do
  (cd / && env -u OPMFU_PYTHON -u VIRTUAL_ENV PATH=/usr/bin:/bin $way) >"$work/listing.json" 2>"$work/listing.err" ||
    fail "$way: $(cat "$work/listing.err")"
  grep -q "\"file\": \"$site/torch_npu/profiler/_flops_formulas.py\"" "$work/listing.json" ||
    fail "$way: not the venv's formulas: $(head -c 200 "$work/listing.json")"
done
echo "registry list finds the venv's torch_npu three ways"
# `python -m opmfu` after `pip install --user` on Python 3.7-3.9 (no sysconfig.get_preferred_scheme):
# the binary is found in the user scheme's bin.
userbase=$work/userbase
mkdir -p "$userbase/bin" && cp "$binary" "$userbase/bin/opmfu"
found=$(cd / && PYTHONUSERBASE=$userbase PYTHONPATH=$work/unpacked "$python" -c '
import sysconfig
if hasattr(sysconfig, "get_preferred_scheme"):
    del sysconfig.get_preferred_scheme
import opmfu
print(opmfu.find_opmfu_bin())')
[[ $found == "$userbase/bin/opmfu" ]] || fail "python -m opmfu without get_preferred_scheme found '$found'"

# The agent skill ships beside the package, byte-identical to the repository's skills/.
skill=$("$work/venv/bin/python" -c 'import opmfu, pathlib; print(pathlib.Path(opmfu.__file__).parent / "skills/opmfu-mfu/SKILL.md")')
cmp -s "$skill" "$source_dir/skills/opmfu-mfu/SKILL.md" || fail "the installed package lacks skills/opmfu-mfu/SKILL.md"

cd "$work"
PATH=$work/venv/bin:$PATH opmfu demo demo --ranks 2 --steps 1 >/dev/null
PATH=$work/venv/bin:$PATH opmfu lint demo/example/train.sh --output-format json >lint.json || fail "lint of the demo launcher"
"$python" -c 'import json, sys; d = json.load(open("lint.json")); sys.exit(0 if isinstance(d, (list, dict)) else 1)' ||
  fail "lint --output-format json is not JSON"
"$work/venv/bin/python" -m opmfu analyze -d demo >analyze.log 2>&1 || { cat analyze.log; fail "analyze"; }
db=demo/cluster_analysis_output/cluster_analysis.db
[[ -s $db ]] || fail "analyze wrote no $db"
rows=$(sqlite3 "$db" 'SELECT COUNT(*) FROM OperatorMFU')
((rows > 0)) || fail "OperatorMFU is empty"
echo "analyze from the venv: $rows OperatorMFU rows"

venv_pip uninstall -y -q opmfu
[[ ! -e $venv_opmfu ]] || fail "pip uninstall left the binary behind"
