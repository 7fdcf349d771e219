#!/usr/bin/env bash
# The version is defined once (VERSION): --version prints it, and every versioned artifact name
# and pre-commit `rev:` the docs show is that version.
set -euo pipefail
source_dir=$1 binary=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
version=$(cat "$source_dir/VERSION")
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "VERSION '$version' is not MAJOR.MINOR.PATCH"
[[ $("$binary" --version) == "opmfu $version "* ]] || fail "--version: $("$binary" --version)"
cd "$source_dir"
# opmfu-0.1.0-..., opmfu_0.1.0_..., rev: v0.1.0, /blob/v0.1.0/
stale=$(grep -rnoE 'opmfu[-_][0-9]+\.[0-9]+\.[0-9]+[-_.]|rev: v[0-9]+\.[0-9]+\.[0-9]+|/v[0-9]+\.[0-9]+\.[0-9]+/' README.md docs |
  grep -vE "opmfu[-_]$version[-_.]|rev: v$version|/v$version/" || true)
[[ -z $stale ]] || fail "the docs name another version than $version: $stale"
echo "version $version: --version and $(grep -rcE "opmfu[-_]$version|rev: v$version" README.md docs | awk -F: '{s += $2} END {print s}') mentions in the docs"
