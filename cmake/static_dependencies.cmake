# OPMFU_STATIC (the `release` preset): the third-party libraries come from their static archives,
# under the same target names the shared build uses, so no library's CMakeLists changes.
# Debian ships libtree-sitter.a, libsqlite3.a, libyaml-cpp.a and libz.a; libxlsxwriter has no
# archive in Debian, so it is compiled here from Debian's source package of the installed
# version, which scripts/setup unpacks into third_party/ (see third_party/README.md).
# The binary itself is linked fully static (CMakeLists.txt): glibc and libstdc++ included.

function(opmfu_static_archive out_var archive)
  find_library(${out_var} NAMES "${archive}" NO_CACHE)
  if(NOT ${out_var})
    message(FATAL_ERROR "OPMFU_STATIC: ${archive} not found; scripts/setup installs the Debian -dev packages that ship it")
  endif()
  set(${out_var} "${${out_var}}" PARENT_SCOPE)
endfunction()

find_package(Threads REQUIRED)

opmfu_static_archive(opmfu_zlib_archive libz.a)
add_library(opmfu_static_zlib STATIC IMPORTED)
find_path(opmfu_zlib_include zlib.h REQUIRED NO_CACHE)
set_target_properties(opmfu_static_zlib PROPERTIES
  IMPORTED_LOCATION "${opmfu_zlib_archive}"
  INTERFACE_INCLUDE_DIRECTORIES "${opmfu_zlib_include}")
# The shared build's name for it (find_package(ZLIB)): the trace reader links it.
add_library(ZLIB::ZLIB INTERFACE IMPORTED)
set_target_properties(ZLIB::ZLIB PROPERTIES INTERFACE_LINK_LIBRARIES opmfu_static_zlib)

opmfu_static_archive(opmfu_tree_sitter_archive libtree-sitter.a)
find_path(opmfu_tree_sitter_include tree_sitter/api.h REQUIRED NO_CACHE)
add_library(PkgConfig::TREE_SITTER STATIC IMPORTED)
set_target_properties(PkgConfig::TREE_SITTER PROPERTIES
  IMPORTED_LOCATION "${opmfu_tree_sitter_archive}"
  INTERFACE_INCLUDE_DIRECTORIES "${opmfu_tree_sitter_include}")

opmfu_static_archive(opmfu_sqlite_archive libsqlite3.a)
find_path(opmfu_sqlite_include sqlite3.h REQUIRED NO_CACHE)
add_library(SQLite::SQLite3 STATIC IMPORTED)
set_target_properties(SQLite::SQLite3 PROPERTIES
  IMPORTED_LOCATION "${opmfu_sqlite_archive}"
  INTERFACE_INCLUDE_DIRECTORIES "${opmfu_sqlite_include}"
  INTERFACE_LINK_LIBRARIES "opmfu_static_zlib;Threads::Threads;m;${CMAKE_DL_LIBS}")

opmfu_static_archive(opmfu_yaml_cpp_archive libyaml-cpp.a)
find_path(opmfu_yaml_cpp_include yaml-cpp/yaml.h REQUIRED NO_CACHE)
add_library(yaml-cpp STATIC IMPORTED)
set_target_properties(yaml-cpp PROPERTIES
  IMPORTED_LOCATION "${opmfu_yaml_cpp_archive}"
  INTERFACE_INCLUDE_DIRECTORIES "${opmfu_yaml_cpp_include}")

# libxlsxwriter, configured as Debian's package is (debian/rules) except where Debian links a
# shared library: the bundled minizip (the same minizip 1.1 as Debian's libminizip1) instead of
# -lminizip, and the bundled MD5 instead of OpenSSL's libcrypto.
file(GLOB opmfu_xlsxwriter_dirs LIST_DIRECTORIES true "${PROJECT_SOURCE_DIR}/third_party/libxlsxwriter-*")
list(SORT opmfu_xlsxwriter_dirs)
list(POP_BACK opmfu_xlsxwriter_dirs opmfu_xlsxwriter_dir)
if(NOT opmfu_xlsxwriter_dir OR NOT EXISTS "${opmfu_xlsxwriter_dir}/src/workbook.c")
  message(FATAL_ERROR "OPMFU_STATIC: third_party/libxlsxwriter-<version>/ is missing: run scripts/setup (it unpacks Debian's libxlsxwriter source package there)")
endif()
file(GLOB opmfu_xlsxwriter_sources "${opmfu_xlsxwriter_dir}/src/*.c")
list(APPEND opmfu_xlsxwriter_sources
  "${opmfu_xlsxwriter_dir}/third_party/minizip/ioapi.c"
  "${opmfu_xlsxwriter_dir}/third_party/minizip/zip.c"
  "${opmfu_xlsxwriter_dir}/third_party/tmpfileplus/tmpfileplus.c"
  "${opmfu_xlsxwriter_dir}/third_party/md5/md5.c")
add_library(opmfu_xlsxwriter STATIC ${opmfu_xlsxwriter_sources})
# Third-party C with file-static names that clash when batched: one translation unit per file.
set_target_properties(opmfu_xlsxwriter PROPERTIES UNITY_BUILD OFF)
target_include_directories(opmfu_xlsxwriter PUBLIC "${opmfu_xlsxwriter_dir}/include")
target_compile_definitions(opmfu_xlsxwriter PRIVATE NOCRYPT NOUNCRYPT)
# Not ours to warn about (like the generated grammar code).
target_compile_options(opmfu_xlsxwriter PRIVATE -w)
set_target_properties(opmfu_xlsxwriter PROPERTIES C_STANDARD 99 POSITION_INDEPENDENT_CODE ON)
target_link_libraries(opmfu_xlsxwriter PUBLIC opmfu_static_zlib)
add_library(PkgConfig::XLSXWRITER INTERFACE IMPORTED)
set_target_properties(PkgConfig::XLSXWRITER PROPERTIES INTERFACE_LINK_LIBRARIES opmfu_xlsxwriter)

# simdjson (the trace_view.json reader), compiled from the single-file build in Debian's source
# package of the installed libsimdjson-dev, which ships only a shared library. Its runtime CPU
# dispatch picks the kernel (AVX-512, AVX2, SSE4.2, NEON or the portable one) when it runs.
file(GLOB opmfu_simdjson_dirs LIST_DIRECTORIES true "${PROJECT_SOURCE_DIR}/third_party/simdjson-*")
list(SORT opmfu_simdjson_dirs)
list(POP_BACK opmfu_simdjson_dirs opmfu_simdjson_dir)
if(NOT opmfu_simdjson_dir OR NOT EXISTS "${opmfu_simdjson_dir}/singleheader/simdjson.cpp")
  message(FATAL_ERROR "OPMFU_STATIC: third_party/simdjson-<version>/ is missing: run scripts/setup (it unpacks Debian's simdjson source package there)")
endif()
add_library(opmfu_simdjson STATIC "${opmfu_simdjson_dir}/singleheader/simdjson.cpp")
set_target_properties(opmfu_simdjson PROPERTIES UNITY_BUILD OFF POSITION_INDEPENDENT_CODE ON)
# SYSTEM: its header is not ours to warn about.
target_include_directories(opmfu_simdjson SYSTEM PUBLIC "${opmfu_simdjson_dir}/singleheader")
target_compile_options(opmfu_simdjson PRIVATE -w)
add_library(simdjson::simdjson INTERFACE IMPORTED)
set_target_properties(simdjson::simdjson PROPERTIES INTERFACE_LINK_LIBRARIES opmfu_simdjson)
