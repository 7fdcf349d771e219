# cmake -DVERSION=V -DOUTPUT=FILE -P changelog.cmake: the Debian changelog of the .deb (Debian
# policy 12.7). One entry per release, dated SOURCE_DATE_EPOCH when set (scripts/release sets it
# to the release commit's time), so the package is the same however often it is rebuilt.
if(DEFINED ENV{SOURCE_DATE_EPOCH})
  string(TIMESTAMP date "%a, %d %b %Y %H:%M:%S +0000" UTC)
else()
  set(date "Thu, 01 Jan 2026 00:00:00 +0000")
endif()
file(WRITE "${OUTPUT}" "opmfu (${VERSION}) unstable; urgency=medium

  * Release ${VERSION}: the static binary for x86_64 and aarch64 (docs/packaging.md).

 -- opmfu maintainers <opmfu@users.noreply.github.com>  ${date}
")
