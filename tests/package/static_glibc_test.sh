#!/usr/bin/env bash
# What of glibc's run-time loading the fully static binary links, from the linker's map
# (opmfu.map, written next to the binary by the OPMFU_STATIC link; docs/packaging.md, "Why fully
# static is safe"):
# - no NSS at all: no nsswitch.conf reader, no getpwnam/getpwuid/getgrnam, no getaddrinfo,
#   gethostbyname or getnameinfo (each would load the host's libnss_*.so of another glibc);
# - the public dlopen, dlsym, dlclose and dlerror (SQLite's extension loader calls them) are the
#   refusing definitions of packaging/static/no_dynamic_loading.c, not glibc's.
# glibc's internal loader (thread-local destructors pull it in), its gconv module loader and its
# locale-archive reader are linked: they are reached only by iconv_open and named locales, which
# opmfu never asks for; the release tier's empty chroot shows they are not used (LANG set).
set -euo pipefail
map=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ -s $map ]] || fail "$map: no link map"
# "/usr/lib/x86_64-linux-gnu/libc.a(getpwnam.o)": the glibc members the link took in.
members=$(grep -oE '/libc\.a\([^)]*\)' "$map" | sed 's/.*(\(.*\))/\1/' | sort -u)
count=$(wc -l <<<"$members")
echo "libc.a members linked: $count"
((count > 50)) || fail "only $count libc.a members in $map: is this a static link map?"
nss='^(nsswitch|nss_[a-z_]*|getaddrinfo|getnameinfo|gethstby[a-z0-9_]*|getpwnam[a-z_]*|getpwuid[a-z_]*|getpwent[a-z_]*|getgrnam[a-z_]*|getgrgid[a-z_]*|getgrent[a-z_]*|getspnam[a-z_]*|getservby[a-z0-9_]*|initgroups)\.o$'
bad=$(grep -E "$nss" <<<"$members" || true)
[[ -z $bad ]] || fail "glibc's NSS or resolver look-ups are linked: ${bad//$'\n'/ }"
echo "NSS and name resolution: not linked"
for symbol in dlopen dlsym dlclose dlerror; do
  # The map's "section address size object" line for the symbol's own section (-ffunction-sections).
  owner=$(grep -A1 -E "^ \.text\.$symbol\b" "$map" | grep -oE '[^ ]+\.o$' | head -1 || true)
  [[ -n $owner && $owner != *libc.a* ]] || fail "$symbol is glibc's (${owner:-no .text.$symbol section}), not packaging/static/no_dynamic_loading.c's"
done
echo "dlopen, dlsym, dlclose, dlerror: opmfu's refusals (packaging/static/no_dynamic_loading.c)"
echo "linked but unused (iconv and named locales only): $(grep -cE '^(gconv|iconv|findlocale|loadarchive|loadlocale)' <<<"$members") gconv/locale members"
