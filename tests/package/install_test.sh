#!/usr/bin/env bash
# `cmake --install` of the release build: the binary, a man page that renders and names every
# command `opmfu --help` lists, and bash and zsh completions that complete commands, options and
# option values.
set -euo pipefail
build=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null

opmfu=$prefix/bin/opmfu
"$opmfu" --version | grep '^opmfu ' >/dev/null || fail "the installed binary does not run"
commands=$("$opmfu" --help | awk '/^Subcommands:/ {on = 1; next} /^[^ ]/ {on = 0} on && NF {print $1}')
[[ $(wc -w <<<"$commands") -ge 10 ]] || fail "could not read the command list from --help"

[[ -f $prefix/share/man/man1/opmfu.1.gz ]] || fail "no man page at share/man/man1/opmfu.1.gz"
page=$prefix/opmfu.1
zcat "$prefix/share/man/man1/opmfu.1.gz" >"$page"
[[ -f $prefix/share/licenses/opmfu/LICENSE && -f $prefix/share/licenses/opmfu/THIRD_PARTY_NOTICES.txt ]] ||
  fail "no licence and notices in share/licenses/opmfu"
for command in $commands; do
  grep -q "^\.SS \"opmfu $command\"" "$page" || fail "the man page has no section for '$command'"
done
grep -q '^\.SS "opmfu registry check"' "$page" || fail "the man page has no section for 'registry check'"
if command -v man >/dev/null; then
  rendered=$(MANWIDTH=100 man --warnings -l "$page" 2>&1 >/dev/null) || fail "man cannot render the page"
  [[ -z $rendered ]] || fail "man warns: $rendered"
  MANWIDTH=100 man -l "$page" 2>/dev/null | grep -- '--output-format' >/dev/null || fail "the rendered page lacks --output-format"
fi

bash_completion=$prefix/share/bash-completion/completions/opmfu
[[ -f $bash_completion ]] || fail "no bash completion"
complete_bash() {  # the words bash would offer for the command line "$@" (last word: being typed)
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _opmfu; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$bash_completion" "$@"
}
[[ $(complete_bash opmfu li) == lint ]] || fail "bash: 'opmfu li' does not complete to lint"
complete_bash opmfu registry '' | grep -x verify >/dev/null || fail "bash: 'opmfu registry ' does not offer verify"
complete_bash opmfu lint --output-f | grep -x -- --output-format >/dev/null || fail "bash: lint --output-f"
complete_bash opmfu registry check --formu | grep -x -- --formulas >/dev/null || fail "bash: registry check --formu"
[[ $(complete_bash opmfu flops --format j) == json ]] || fail "bash: flops --format j does not complete to json"

zsh_completion=$(ls "$prefix"/share/zsh/*/_opmfu)
if command -v zsh >/dev/null; then
  zsh -n "$zsh_completion" || fail "zsh: syntax error in $zsh_completion"
  # zsh's completion system needs a terminal; stub its two entry points and check what the
  # generated functions hand them for `opmfu <TAB>` and `opmfu lint <TAB>`.
  offered=$(zsh -fc '
    _arguments() { print -rl -- "$@"; state=command }
    _describe() { print -rl -- "${(@P)2}" }
    source "$1"
    _opmfu
    words=(lint ""); CURRENT=2; state=""
    _arguments() { print -rl -- "$@" }
    _opmfu_lint' _ "$zsh_completion")
  grep -q '^analyze:' <<<"$offered" || fail "zsh: the command list lacks analyze"
  grep -q -- '--output-format\[' <<<"$offered" || fail "zsh: lint lacks --output-format"
else
  echo "zsh is not installed: the zsh completion is only checked for presence" >&2
fi
