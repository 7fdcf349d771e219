#!/usr/bin/env python3
"""Writes opmfu's man page from the built binary's own --help, and its bash and zsh completions
from `opmfu completion bash|zsh`.

Usage: cli_docs.py OPMFU_BINARY OUT_DIR
Writes OUT_DIR/opmfu.1, OUT_DIR/opmfu.bash and OUT_DIR/_opmfu. Nothing is written by hand, so the
page and the completions cannot drift from the options the binary parses. Standard library only.
"""

import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

# "  -o,--output TEXT   write findings..." / "  --format TEXT:{text,json}   text or json" /
# "  -d,--profiling-path TEXT REQUIRED" with the description on the next, deeper-indented line.
OPTION_LINE = re.compile(r"^  (-\S+)((?: \S+)*)(?:\s{2,}(.*))?$")
CONTINUATION_LINE = re.compile(r"^\s{6,}(\S.*)$")
# "  lint                        check training scripts ..."
SUBCOMMAND_LINE = re.compile(r"^  ([a-z][a-z0-9-]*)\s{2,}(.*)$")
CHOICES = re.compile(r":\{([^}]*)\}")


@dataclass
class Option:
    names: list[str]
    value: str  # "" for a flag
    description: str

    def choices(self) -> list[str]:
        match = CHOICES.search(self.value)
        return match.group(1).split(",") if match else []


@dataclass
class Command:
    path: list[str]  # [] for opmfu itself, ["registry", "list"] for `opmfu registry list`
    help_text: str
    summary: str = ""
    options: list[Option] = field(default_factory=list)
    children: list["Command"] = field(default_factory=list)


def sections(help_text: str) -> dict[str, list[str]]:
    """The indented lines under each "Name:" heading of CLI11's help."""
    result: dict[str, list[str]] = {}
    current = None
    for line in help_text.splitlines():
        if re.match(r"^[A-Z][A-Za-z ]*:$", line):
            current = line[:-1]
            result[current] = []
        elif current and line.startswith("  "):
            result[current].append(line)
        else:
            current = None
    return result


def read_command(binary: str, path: list[str], summary: str = "") -> Command:
    run = subprocess.run([binary, *path, "--help"], capture_output=True, text=True, check=True)
    command = Command(path=path, help_text=run.stdout.rstrip() + "\n", summary=summary)
    parts = sections(run.stdout)
    for line in parts.get("Options", []):
        match = OPTION_LINE.match(line)
        continuation = CONTINUATION_LINE.match(line)
        if match:
            value = match.group(2).strip().removesuffix("REQUIRED").strip()
            command.options.append(Option(match.group(1).split(","), value, (match.group(3) or "").strip()))
        elif continuation and command.options and not command.options[-1].description:
            command.options[-1].description = continuation.group(1).strip()
    for line in parts.get("Subcommands", []):
        match = SUBCOMMAND_LINE.match(line)
        if match:
            command.children.append(read_command(binary, [*path, match.group(1)], match.group(2).strip()))
    return command


def walk(command: Command):
    yield command
    for child in command.children:
        yield from walk(child)


def roff_text(text: str) -> str:
    lines = []
    for line in text.replace("\\", "\\e").splitlines():
        line = line.replace("-", "\\-")
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def man_page(root: Command, version: str) -> str:
    title = root.help_text.splitlines()[0]
    name, _, purpose = title.partition(": ")
    out = [
        f'.TH OPMFU 1 "" "{version}" "User Commands"',
        ".SH NAME",
        f"{name} \\- {roff_text(purpose)}",
        ".SH SYNOPSIS",
        ".B opmfu",
        "[\\fB\\-\\-help\\fR] [\\fB\\-\\-version\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR] ...",
        ".SH DESCRIPTION",
        "Every command below is printed as its own \\fB\\-\\-help\\fR prints it.",
        "Results go to stdout (or \\fB\\-o\\fR \\fIFILE\\fR, written atomically);",
        "errors, warnings and summaries go to stderr.",
        ".SH COMMANDS",
    ]
    for command in walk(root):
        if not command.path:
            continue
        out += [f'.SS "opmfu {" ".join(command.path)}"', ".nf", roff_text(command.help_text), ".fi"]
    footer = root.help_text.split("Exit codes:", 1)
    if len(footer) == 2:
        out += [".SH EXIT STATUS", ".nf", roff_text(footer[1].strip("\n")), ".fi"]
    out += [".SH SEE ALSO", "The documentation in the opmfu source tree: docs/cli.md, docs/agent.md, docs/rules/."]
    return "\n".join(out) + "\n"


def completion(binary: str, shell: str) -> str:
    """The binary writes its own completions (`opmfu completion bash|zsh`): one generator, also for wheels."""
    return subprocess.run([binary, "completion", shell], capture_output=True, text=True, check=True).stdout


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary, out_dir = sys.argv[1], Path(sys.argv[2])
    root = read_command(binary, [])
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout.split(" (")[0]
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, text in (
        ("opmfu.1", man_page(root, version)),
        ("opmfu.bash", completion(binary, "bash")),
        ("_opmfu", completion(binary, "zsh")),
    ):
        temporary = out_dir / (name + ".tmp")
        temporary.write_text(text)
        temporary.replace(out_dir / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
