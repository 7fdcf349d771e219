#!/usr/bin/env bash
# The repository's .pre-commit-hooks.yaml, used by Debian's pre-commit from a scratch project
# that points at a local copy of this repository (no network): a clean commit passes, a broken
# launcher pair and a broken formulas file are stopped, files the hooks do not cover are ignored.
# With a third argument `tag` the project names the release tag, `rev: v<VERSION>`, as
# docs/packaging.md shows (the release tier runs it so).
set -euo pipefail
source_dir=$1 binary=$2 rev_kind=${3:-commit}
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v pre-commit >/dev/null || { echo "pre-commit is not installed (scripts/setup installs it)" >&2; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home PRE_COMMIT_HOME=$work/pre-commit-cache GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME" "$work/bin"
git config --global user.email test@example.invalid
git config --global user.name test
git config --global init.defaultBranch main
ln -s "$binary" "$work/bin/opmfu"
export PATH=$work/bin:$PATH

# The hooks repository: this repository's hook manifest at a commit (pre-commit clones it locally).
hooks=$work/hooks
mkdir -p "$hooks"
cp "$source_dir/.pre-commit-hooks.yaml" "$hooks/"
git -C "$hooks" init -q && git -C "$hooks" add . && git -C "$hooks" commit -qm hooks
rev=$(git -C "$hooks" rev-parse HEAD)
if [[ $rev_kind == tag ]]; then
  rev=v$(cat "$source_dir/VERSION")
  git -C "$hooks" tag -a "$rev" -m "opmfu $rev"
fi

project=$work/project
"$binary" demo "$work/demo" --ranks 1 --steps 1 >/dev/null
mkdir -p "$project/torch_npu/profiler"
cp "$work/demo/example/train.sh" "$work/demo/example/train.py" "$project/"
cp "$work/demo/example/_flops_formulas.py" "$project/torch_npu/profiler/"
printf 'notes\n' >"$project/README.txt"
cat >"$project/.pre-commit-config.yaml" <<CONFIG
repos:
  - repo: $hooks
    rev: $rev
    hooks:
      - id: opmfu-lint
      - id: opmfu-registry-check
CONFIG
cd "$project"
git init -q && git add .
pre-commit run --all-files >"$work/clean.log" 2>&1 || { cat "$work/clean.log"; fail "the clean example does not pass"; }
grep -q 'opmfu lint.*Passed' "$work/clean.log" || { cat "$work/clean.log"; fail "opmfu-lint did not run"; }
grep -q 'opmfu registry check.*Passed' "$work/clean.log" || { cat "$work/clean.log"; fail "opmfu-registry-check did not run"; }
git commit -qm clean

# A script that turns FLOPs recording off: opmfu-lint stops the commit and says why.
sed -i 's/with_flops=True/with_flops=False/' train.py
grep -q 'with_flops=False' train.py || fail "the example script no longer says with_flops=True"
git add -A
if pre-commit run >"$work/broken.log" 2>&1; then cat "$work/broken.log"; fail "a broken launcher pair passed"; fi
grep -q 'opmfu lint.*Failed' "$work/broken.log" || { cat "$work/broken.log"; fail "opmfu-lint did not fail"; }
grep -q 'OPM[0-9]' "$work/broken.log" || { cat "$work/broken.log"; fail "no finding in the hook's output"; }
git checkout -q -- . && git reset -q --hard

# A formulas file that registers the same target twice: opmfu-registry-check stops it.
formulas=torch_npu/profiler/_flops_formulas.py
first_decorator=$(grep -m1 '@register_npu_flop' "$formulas")
printf '\n\n%s\ndef duplicate_formula(*args, **kwargs):\n    return 0\n' "$first_decorator" >>"$formulas"
git add -A
if pre-commit run >"$work/registry.log" 2>&1; then cat "$work/registry.log"; fail "a duplicate registration passed"; fi
grep -q 'opmfu registry check.*Failed' "$work/registry.log" || { cat "$work/registry.log"; fail "opmfu-registry-check did not fail"; }
git reset -q --hard

# Files neither hook covers are skipped.
echo more >>README.txt
git add -A
pre-commit run >"$work/skip.log" 2>&1 || { cat "$work/skip.log"; fail "a README change failed the hooks"; }
grep -q 'opmfu lint.*Skipped' "$work/skip.log" || { cat "$work/skip.log"; fail "opmfu-lint ran on README.txt"; }
