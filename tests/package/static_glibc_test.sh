#!/usr/bin/env bash
# What of glibc's dynamic machinery the fully static binary links, from the linker's map
# (opmfu.map, written next to the binary by the OPMFU_STATIC link): none of dlopen (replaced by
# packaging/static/no_dynamic_loading.c), NSS (getpwnam, gethostbyname, ... and the nsswitch.conf
# reader), getaddrinfo, iconv's gconv module loader, or the locale-archive loader. Each of them
# would read files or load shared objects of the machine it runs on, which the static binary
# cannot vouch for (docs/packaging.md, "Why fully static is safe").
set -euo pipefail
map=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ -s $map ]] || fail "$map: no link map"
# "/usr/lib/x86_64-linux-gnu/libc.a(dl-open.o)": the glibc members the link took in.
members=$(grep -oE '/libc\.a\([^)]*\)' "$map" | sed 's/.*(\(.*\))/\1/' | sort -u)
count=$(wc -l <<<"$members")
echo "libc.a members linked: $count"
((count > 50)) || fail "only $count libc.a members in $map: is this a static link map?"
forbidden='^(dlopen|dlsym|dlclose|dlerror|dl-libc|sdlopen|nsswitch|nss_[a-z_]*|getaddrinfo|getnameinfo|gethstbynm[a-z0-9_]*|getpw[a-z_]*|getgr[a-z_]*|getsp[a-z_]*|gconv_dl|gconv_conf|gconv_cache|iconv_open|loadarchive|findlocale)\.o$'
bad=$(grep -E "$forbidden" <<<"$members" || true)
[[ -z $bad ]] || fail "glibc's dynamic parts are linked: ${bad//$'\n'/ }"
# The linker warns on every static use of them ("Using 'dlopen' in statically linked ..."):
# the map names the objects; the warnings themselves would sit in .gnu.warning sections.
! grep -q '\.gnu\.warning\.' "$map" || fail "the map holds .gnu.warning sections: $(grep -o '\.gnu\.warning\.[a-z_]*' "$map" | sort -u | xargs)"
echo "none of dlopen, NSS, getaddrinfo, gconv or the locale archive loader is linked"
