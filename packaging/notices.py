#!/usr/bin/env python3
"""Writes the third-party notices of the static opmfu binary, from the bundled code's own files.

Usage: notices.py --compiler CXX [--sysroot DIR] [--spdx | --debian-copyright] OUT

Every text in OUT is copied from a file that ships with what opmfu links, nothing is retyped:
- the C and C++ runtimes (glibc, libstdc++ and libgcc): the copyright file of the Debian package
  that owns the compiler's libc.a and libstdc++.a (`CXX -print-file-name`, `dpkg -S`);
- the libraries linked from Debian's -dev packages: /usr/share/doc/<package>/copyright, under
  --sysroot for a cross build (scripts/setup unpacks the arm64 packages there with their docs);
- libxlsxwriter and simdjson, compiled from Debian's source packages: their debian/copyright in
  third_party/;
- the tree-sitter grammars, compiled from their npm packages: each package's LICENSE;
- the licence texts those files refer to in /usr/share/common-licenses/.
With --spdx it prints the SPDX licence expression of the whole binary instead (opmfu's own
Apache-2.0 and every bundled component's), which the wheel's METADATA and the .rpm carry; with
--debian-copyright it writes the .deb's usr/share/doc/opmfu/copyright: opmfu's own notice, then the
same third-party notices.
Standard library only.
"""

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The Debian -dev packages whose static archives or headers end up in the binary
# (cmake/static_dependencies.cmake), with the SPDX identifiers of what of them is compiled in.
# The release tier checks that every archive the linker pulled a member from is covered here.
LIBRARY_PACKAGES = {
    "libsqlite3-dev": ("SQLite", "blessing"),
    "libtree-sitter-dev": ("tree-sitter (runtime library)", "MIT"),
    "libyaml-cpp-dev": ("yaml-cpp", "MIT"),
    "zlib1g-dev": ("zlib", "Zlib"),
    "nlohmann-json3-dev": ("JSON for Modern C++ (nlohmann-json, header-only)", "MIT"),
    "libcli11-dev": ("CLI11 (header-only)", "BSD-3-Clause"),
}
RUNTIME_SPDX = {
    "libc": ("GNU C Library (glibc), linked statically", "LGPL-2.1-or-later"),
    "libstdc++": ("GNU C++ library (libstdc++) and libgcc, linked statically",
                  "GPL-3.0-or-later WITH GCC-exception-3.1"),
}
# The Debian source packages compiled here (cmake/static_dependencies.cmake; Debian ships no
# archive of them), unpacked into third_party/ by scripts/setup.
SOURCE_PACKAGES = {
    # libxlsxwriter, its minizip and tmpfileplus
    "libxlsxwriter": ("libxlsxwriter, with its bundled minizip, tmpfileplus and md5", "BSD-2-Clause AND Zlib AND MPL-2.0"),
    # simdjson's single-file build: to_chars is MIT, isadetection.h BSD-3-Clause (debian/copyright)
    "simdjson": ("simdjson (singleheader/simdjson.cpp)", "Apache-2.0 AND MIT AND BSD-3-Clause"),
}
GRAMMARS = ["tree-sitter-python", "tree-sitter-bash", "tree-sitter-json"]
COMMON_LICENSES = Path("/usr/share/common-licenses")


def run(*command: str) -> str:
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()


def owning_package(path: str) -> str:
    # "libc6-dev:amd64: /usr/lib/x86_64-linux-gnu/libc.a"
    return run("dpkg-query", "-S", str(Path(path).resolve())).split(":")[0]


def installed_version(package: str) -> str:
    return run("dpkg-query", "-W", "-f=${Version}", package)


def sysroot_versions(sysroot: Path) -> dict[str, str]:
    stamp = (sysroot / ".opmfu-packages").read_text()
    pairs = stamp.split("|", 1)[1].split()
    return dict(pair.split("=", 1) for pair in pairs)


def components(compiler: str, sysroot: Path | None) -> list[dict]:
    found = []
    for archive, key in (("libc.a", "libc"), ("libstdc++.a", "libstdc++")):
        path = run(compiler, f"-print-file-name={archive}")
        if not Path(path).is_file():
            raise SystemExit(f"notices: error: {compiler} has no {archive} (the static C/C++ runtime)")
        package = owning_package(path)
        title, spdx = RUNTIME_SPDX[key]
        found.append({"title": title, "source": f"Debian package {package} {installed_version(package)}",
                      "spdx": spdx, "file": Path(f"/usr/share/doc/{package}/copyright")})
    versions = sysroot_versions(sysroot) if sysroot else {}
    doc_root = sysroot if sysroot else Path("/")
    for package, (title, spdx) in LIBRARY_PACKAGES.items():
        version = versions.get(package) if sysroot else installed_version(package)
        arch = " (arm64)" if sysroot else ""
        found.append({"title": title, "source": f"Debian package {package}{arch} {version}", "spdx": spdx,
                      "file": doc_root / "usr/share/doc" / package / "copyright"})
    for source, (title, spdx) in SOURCE_PACKAGES.items():
        copyright_files = sorted(ROOT.glob(f"third_party/{source}-*/debian/copyright"))
        if not copyright_files:
            raise SystemExit(f"notices: error: third_party/{source}-*/ is missing: run scripts/setup")
        changelog = (copyright_files[-1].parent / "changelog").read_text().split("\n", 1)[0]
        version = re.search(r"\(([^)]*)\)", changelog).group(1)
        found.append({"title": title, "source": f"Debian source package {source} {version}", "spdx": spdx,
                      "file": copyright_files[-1]})
    for grammar in GRAMMARS:
        package_dir = ROOT / "grammars/node_modules" / grammar
        manifest = json.loads((package_dir / "package.json").read_text())
        found.append({"title": f"{grammar} (parser.c and scanner.c compiled in)",
                      "source": f"npm package {grammar} {manifest['version']}", "spdx": manifest["license"],
                      "file": package_dir / "LICENSE"})
    for component in found:
        if not component["file"].is_file():
            raise SystemExit(f"notices: error: {component['file']}: missing (run scripts/setup)")
    return found


def spdx_expression(found: list[dict]) -> str:
    terms = ["Apache-2.0"]
    for component in found:
        for term in re.split(r" AND ", component["spdx"]):
            if term not in terms:
                terms.append(term)
    return " AND ".join(f"({term})" if " WITH " in term else term for term in terms)


DEBIAN_HEADER = """opmfu: operator-level MFU for PyTorch on Ascend

Copyright: the opmfu authors
License: Apache-2.0
 Licensed under the Apache License, Version 2.0. On Debian systems the complete text of the
 Apache License 2.0 is in /usr/share/common-licenses/Apache-2.0.

The statically linked third-party software follows.

"""


def shown_path(path: Path) -> str:
    """Where a file came from, without this machine's checkout or sysroot folder in it."""
    for base, shown in ((ROOT / "grammars/node_modules", "npm:"), (ROOT / "third_party", "third_party/")):
        if path.is_relative_to(base):
            return shown + str(path.relative_to(base))
    if "sysroot-" in str(path):
        return "/" + str(path).split("sysroot-", 1)[1].split("/", 1)[1] + " (arm64 package)"
    return str(path)


def notices(found: list[dict], with_common_licenses: bool = True) -> str:
    version = (ROOT / "VERSION").read_text().strip()
    parts = [
        f"Third-party notices for opmfu {version}\n\n"
        "opmfu itself is licensed under the Apache License 2.0 (LICENSE). Its static binary also\n"
        "contains the software below. Each section is copied, unchanged, from the copyright or\n"
        "LICENSE file that software ships with (written by packaging/notices.py, not by hand).\n"
        + ("The licence texts these files refer to follow at the end.\n\n" if with_common_licenses else
           "The licence texts these files refer to are in /usr/share/common-licenses/.\n\n") +
        "The GNU C Library is linked statically under the LGPL 2.1 or later: opmfu's complete source\n"
        "and its build recipe (scripts/release) are published with every release, so the binary can\n"
        "be rebuilt and relinked against a modified glibc (LGPL 2.1 section 6).\n\n"
        "Contents:\n"
    ]
    parts += [f"  - {c['title']}: {c['source']} ({c['spdx']})\n" for c in found]
    referenced: list[str] = []
    for component in found:
        text = component["file"].read_text(errors="replace")
        parts.append(f"\n{'=' * 78}\n{component['title']}\n{component['source']}; SPDX: {component['spdx']}\n"
                     f"From: {shown_path(component['file'])}\n"
                     f"{'=' * 78}\n\n{text.rstrip()}\n")
        for name in re.findall(r"/usr/share/common-licenses/([A-Za-z0-9.+-]*[A-Za-z0-9])", text):
            if not (COMMON_LICENSES / name).is_file():
                continue
            name = (COMMON_LICENSES / name).resolve().name  # GPL is a link to GPL-3
            if name not in referenced:
                referenced.append(name)
    for name in referenced if with_common_licenses else []:
        text = (COMMON_LICENSES / name).read_text(errors="replace")
        parts.append(f"\n{'=' * 78}\n/usr/share/common-licenses/{name}\n{'=' * 78}\n\n{text.rstrip()}\n")
    return "".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compiler", required=True)
    parser.add_argument("--sysroot", type=Path)
    parser.add_argument("--spdx", action="store_true")
    parser.add_argument("--debian-copyright", action="store_true")
    parser.add_argument("out", nargs="?")
    args = parser.parse_args()
    found = components(args.compiler, args.sysroot)
    if args.spdx:
        print(spdx_expression(found))
        return 0
    if not args.out:
        parser.error("OUT is required without --spdx")
    out = Path(args.out)
    temporary = out.with_name(out.name + ".tmp")
    # A Debian system has the common licence texts; its copyright file refers to them instead.
    text = notices(found, with_common_licenses=not args.debian_copyright)
    if args.debian_copyright:
        text = DEBIAN_HEADER + text
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary.write_text(text)
    temporary.replace(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
