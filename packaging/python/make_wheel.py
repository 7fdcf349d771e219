#!/usr/bin/env python3
"""Writes the opmfu wheel for one static binary (scripts/wheel calls it). Standard library only.

Usage: make_wheel.py --binary FILE --version V --platform TAGS --license-expression EXPR
                     --license-file FILE [--license-file FILE...] --readme FILE --out DIR
                     [--skills DIR]

The wheel holds:
- opmfu-<V>.data/scripts/opmfu: the binary, which pip installs straight into the environment's
  bin/ (as ruff's wheels do: no Python start-up in the way);
- opmfu/: every file under packaging/python/opmfu/ (the `python -m opmfu` launcher). A data file
  added there (say opmfu/skills/SKILL.md) ships in the wheel with no change here; the package
  finds it with importlib.resources;
- opmfu/skills/: every file under --skills (the repository's skills/: the agent skill that Ascend
  agents load from a `skills/` directory, docs/agent.md);
- opmfu-<V>.dist-info/: METADATA (core metadata 2.4: License-Expression, License-File,
  Project-URL), WHEEL (py3-none-<TAGS>, TAGS being a dot-separated compressed tag set), RECORD,
  and licenses/ with the given licence files.
Entries are sorted and dated SOURCE_DATE_EPOCH (default 2020-01-01), so the same inputs give
byte-identical wheels. The wheel is written under a temporary name and renamed when complete.
"""

import argparse
import base64
import hashlib
import os
import sys
import time
import zipfile
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent / "opmfu"
HOMEPAGE = os.environ.get("OPMFU_HOMEPAGE", "")
SUMMARY = "Operator-level MFU for PyTorch on Ascend, from collection config to analysis"


def record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def metadata(version: str, expression: str, license_names: list[str], readme: str) -> str:
    lines = [
        "Metadata-Version: 2.4",
        "Name: opmfu",
        f"Version: {version}",
        f"Summary: {SUMMARY}",
        f"Home-page: {HOMEPAGE}",
        f"Project-URL: Homepage, {HOMEPAGE}",
        f"Project-URL: Documentation, {HOMEPAGE}/blob/v{version}/docs/packaging.md",
        f"License-Expression: {expression}",
        *[f"License-File: {name}" for name in license_names],
        "Classifier: Environment :: Console",
        "Classifier: Operating System :: POSIX :: Linux",
        "Classifier: Programming Language :: C++",
        "Classifier: Topic :: Software Development :: Quality Assurance",
        "Requires-Python: >=3.7",
        "Description-Content-Type: text/markdown",
    ]
    return "\n".join(lines) + "\n\n" + readme


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", type=Path, required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--platform", required=True)
    parser.add_argument("--license-expression", required=True)
    parser.add_argument("--license-file", type=Path, action="append", required=True)
    parser.add_argument("--readme", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--skills", type=Path, help="a skills/ directory shipped as opmfu/skills/")
    args = parser.parse_args()
    if not HOMEPAGE:
        parser.error("OPMFU_HOMEPAGE is not set (scripts/wheel takes it from CMakeLists.txt's HOMEPAGE_URL)")

    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "1577836800"))
    date_time = time.gmtime(max(epoch, 315532800))[:6]  # zip cannot date before 1980
    dist_info = f"opmfu-{args.version}.dist-info"
    entries: list[tuple[str, bytes, int]] = []  # (name in the wheel, content, unix mode)
    for path in sorted(PACKAGE_DIR.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            data = path.read_bytes().replace(b"@OPMFU_VERSION@", args.version.encode())
            entries.append((f"opmfu/{path.relative_to(PACKAGE_DIR).as_posix()}", data, 0o644))
    if args.skills:
        for path in sorted(args.skills.rglob("*")):
            if path.is_file():
                entries.append((f"opmfu/skills/{path.relative_to(args.skills).as_posix()}", path.read_bytes(), 0o644))
    entries.append((f"opmfu-{args.version}.data/scripts/opmfu", args.binary.read_bytes(), 0o755))
    license_names = []
    for license_file in args.license_file:
        # License-File names a path under .dist-info/licenses/ (core metadata 2.4).
        license_names.append(license_file.name)
        entries.append((f"{dist_info}/licenses/{license_file.name}", license_file.read_bytes(), 0o644))
    entries.append((f"{dist_info}/METADATA", metadata(args.version, args.license_expression, license_names,
                                                     args.readme.read_text()).encode(), 0o644))
    tags = "".join(f"Tag: py3-none-{tag}\n" for tag in args.platform.split("."))
    wheel_file = f"Wheel-Version: 1.0\nGenerator: opmfu packaging/python/make_wheel.py\nRoot-Is-Purelib: false\n{tags}"
    entries.append((f"{dist_info}/WHEEL", wheel_file.encode(), 0o644))
    record = "".join(f"{name},{record_hash(data)},{len(data)}\n" for name, data, _ in entries)
    entries.append((f"{dist_info}/RECORD", (record + f"{dist_info}/RECORD,,\n").encode(), 0o644))

    args.out.mkdir(parents=True, exist_ok=True)
    wheel = args.out / f"opmfu-{args.version}-py3-none-{args.platform}.whl"
    partial = wheel.with_name(wheel.name + ".partial")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name, date_time=date_time)
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    partial.replace(wheel)
    print(wheel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
