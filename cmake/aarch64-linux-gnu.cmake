# Cross-compiles the release binary for aarch64 (Kunpeng 920, the Atlas training servers) on an
# x86-64 Debian machine: `cmake --preset release-aarch64` (scripts/release does it). Debian's
# g++-aarch64-linux-gnu brings the compiler and the arm64 glibc and libstdc++ under
# /usr/aarch64-linux-gnu; the arm64 builds of the other -dev packages are unpacked into
# third_party/sysroot-arm64 by scripts/setup (no foreign dpkg architecture is added).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

get_filename_component(opmfu_source_dir "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(OPMFU_ARM64_SYSROOT "${opmfu_source_dir}/third_party/sysroot-arm64" CACHE PATH
    "The arm64 -dev packages, unpacked (scripts/setup)")
if(NOT EXISTS "${OPMFU_ARM64_SYSROOT}/usr/include/sqlite3.h")
  message(FATAL_ERROR "${OPMFU_ARM64_SYSROOT} has no arm64 libraries: run scripts/setup")
endif()
# Libraries, headers and CMake packages only from the arm64 trees; programs (python3, the
# generators) from the machine itself.
set(CMAKE_FIND_ROOT_PATH "${OPMFU_ARM64_SYSROOT}" /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# What runs an aarch64 program here: the build runs the binary once for its man page and
# completions (packaging/CMakeLists.txt), the release tier for its tests.
find_program(OPMFU_QEMU_AARCH64 qemu-aarch64-static)
if(OPMFU_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${OPMFU_QEMU_AARCH64}")
endif()
