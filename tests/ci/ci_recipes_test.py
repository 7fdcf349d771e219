#!/usr/bin/env python3
"""Runs every recipe of docs/ci.md as its runner would, on a broken and on a clean checkout.

Usage: ci_recipes_test.py OPMFU_BINARY SOURCE_DIR

GitHub Actions: a job's steps in order, each `run:` with the runner's `bash -eo pipefail`; a step
after a failure runs only when its `if:` says so (`always()`, `!cancelled()`, `failure()`), and
`continue-on-error: true` keeps a failing step from failing the job. `uses:` steps: checkout and
setup-python are the prepared checkout; upload-sarif fails, as the action does, when its
`sarif_file` is missing, and otherwise the file is validated. GitLab CI: a job's `script:` lines
in one shell that stops at the first failing line; artifacts with `when: always` are collected
whatever the status, and each must exist and validate. pre-commit: the snippet verbatim as a
project's .pre-commit-config.yaml, run by Debian's pre-commit. `pip install` is checked for its
arguments (a --find-links folder holding a wheel for this machine); the built binary stands in for
the installed one. Needs python3-yaml and python3-jsonschema (scripts/setup); exit 77 without them.
"""

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import jsonschema
    import yaml
except ImportError as missing:
    print(f"skipped: {missing} (scripts/setup installs python3-yaml and python3-jsonschema)", file=sys.stderr)
    sys.exit(77)

OPMFU = str(Path(sys.argv[1]).resolve())
SOURCE = Path(sys.argv[2]).resolve()
FAILURES = []

# What GitHub code scanning needs of a SARIF log (the parts upload-sarif checks), and GitLab's Code
# Quality issue as its documentation defines it.
SARIF_SCHEMA = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "runs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["tool", "results"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {"driver": {"type": "object", "required": ["name"]}},
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["ruleId", "message", "locations"],
                            "properties": {
                                "level": {"enum": ["none", "note", "warning", "error"]},
                                "message": {"type": "object", "required": ["text"]},
                                "locations": {
                                    "type": "array",
                                    "minItems": 1,
                                    "items": {
                                        "type": "object",
                                        "required": ["physicalLocation"],
                                        "properties": {
                                            "physicalLocation": {
                                                "type": "object",
                                                "required": ["artifactLocation", "region"],
                                                "properties": {
                                                    "artifactLocation": {"type": "object", "required": ["uri"]},
                                                    "region": {
                                                        "type": "object",
                                                        "required": ["startLine"],
                                                        "properties": {"startLine": {"type": "integer", "minimum": 1}},
                                                    },
                                                },
                                            }
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
}
CODE_QUALITY_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "description": {"type": "string", "minLength": 1},
            "check_name": {"type": "string", "minLength": 1},
            "fingerprint": {"type": "string", "minLength": 1},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "location": {
                "type": "object",
                "required": ["path", "lines"],
                "properties": {
                    "path": {"type": "string", "minLength": 1},
                    "lines": {
                        "type": "object",
                        "required": ["begin"],
                        "properties": {"begin": {"type": "integer", "minimum": 1}},
                    },
                },
            },
        },
    },
}

FAKE_PIP = """#!/bin/sh
# pip as the recipes call it: `pip install --no-index --find-links DIR opmfu`. Succeeds when DIR holds
# a wheel for this machine (the binary on PATH is the one it would install), fails as pip does.
[ "$1 $2 $3" = "install --no-index --find-links" ] && [ "$5" = opmfu ] && [ $# -eq 5 ] || {
  echo "fake pip: unexpected arguments: $*" >&2; exit 2; }
for wheel in "$4"/opmfu-*-py3-none-*_$(uname -m).whl; do
  [ -f "$wheel" ] && { echo "Processing $wheel"; exit 0; }
done
echo "ERROR: No matching distribution found for opmfu" >&2
exit 1
"""


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print(f"FAIL: {message}", file=sys.stderr)


def recipes():
    """The yaml blocks of docs/ci.md, by the file named on their first line."""
    text = (SOURCE / "docs" / "ci.md").read_text()
    found = {}
    for block in re.findall(r"```yaml\n(.*?)```", text, re.S):
        first = block.splitlines()[0]
        found[first.lstrip("# ").split()[0]] = block
    return found


def make_checkout(root: Path, broken: bool) -> Path:
    """A training project as the recipes expect it: launcher and script, a vendored formulas file,
    the release's wheels in tools/. Broken: the script turns FLOPs recording off."""
    demo = root / "demo-source"
    if not demo.exists():
        subprocess.run([OPMFU, "demo", str(demo), "--ranks", "1", "--steps", "1"], check=True, capture_output=True)
    checkout = root / ("broken" if broken else "clean")
    checkout.mkdir()
    for name in ("train.sh", "train.py"):
        shutil.copy(demo / "example" / name, checkout / name)
    formulas = checkout / "third_party" / "torch_npu" / "profiler"
    formulas.mkdir(parents=True)
    shutil.copy(demo / "example" / "_flops_formulas.py", formulas / "_flops_formulas.py")
    tools = checkout / "tools"
    tools.mkdir()
    for arch in ("x86_64", "aarch64"):
        (tools / f"opmfu-0.0.0-py3-none-manylinux_2_17_{arch}.whl").write_bytes(b"")
    if broken:
        script = checkout / "train.py"
        text = script.read_text()
        assert "with_flops=True" in text, "the demo's train.py no longer says with_flops=True"
        script.write_text(text.replace("with_flops=True", "with_flops=False"))
    return checkout


def environment(root: Path, extra=None):
    bin_dir = root / "bin"
    if not bin_dir.exists():
        bin_dir.mkdir()
        os.symlink(OPMFU, bin_dir / "opmfu")
        (bin_dir / "pip").write_text(FAKE_PIP)
        (bin_dir / "pip").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPMFU_")}
    env["PATH"] = f"{bin_dir}:{env.get('PATH', '/usr/bin:/bin')}"
    env.update(extra or {})
    return env


def shell(script: str, cwd: Path, env) -> int:
    """The exit code of `script` under `bash -eo pipefail`: GitHub's `run:` shell, and GitLab's
    script, which also stops at the first failing line."""
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as file:
        file.write(script)
    try:
        run = subprocess.run(["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", file.name], cwd=cwd, env=env,
                             capture_output=True, text=True, timeout=120)
    finally:
        os.unlink(file.name)
    return run.returncode


def github_condition(expression, status):
    """A step's `if:` as GitHub evaluates the status functions it uses."""
    text = str(expression).strip()
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2].strip()
    if not re.search(r"\b(always|success|failure|cancelled)\(\)", text):
        text = f"success() && ({text})"
    python = (text.replace("always()", "True").replace("success()", str(status == "success"))
              .replace("failure()", str(status == "failure")).replace("cancelled()", "False")
              .replace("&&", " and ").replace("||", " or ").replace("!", " not "))
    if not re.fullmatch(r"[\s()a-zTF]*", python) or re.search(r"\b(?!and|or|not|True|False)[a-z]+", python):
        raise ValueError(f"unsupported if: {expression}")
    return eval(python)  # only True/False/and/or/not/parentheses remain (checked above)


def run_github_job(job, checkout: Path, env):
    """The job's final status and, per step, what happened to it."""
    status, outcomes = "success", []
    for step in job["steps"]:
        if not github_condition(step.get("if", "success()"), status):
            outcomes.append("skipped")
            continue
        if "run" in step:
            ok = shell(step["run"], checkout, env) == 0
        else:
            action = step["uses"].split("@")[0]
            ok = True
            if action == "github/codeql-action/upload-sarif":
                sarif = checkout / step["with"]["sarif_file"]
                ok = sarif.is_file() and valid(sarif, SARIF_SCHEMA)
        outcomes.append("success" if ok else "failure")
        if not ok and not step.get("continue-on-error"):
            status = "failure"
    return status, outcomes


def run_gitlab_job(job, checkout: Path, env):
    """The job's status and its artifacts (paths and reports) as collected."""
    ok = shell("\n".join(job["script"]) + "\n", checkout, env) == 0
    status = "success" if ok else "failed"
    artifacts = job.get("artifacts", {})
    collected = []
    when = artifacts.get("when", "on_success")
    if when == "always" or (when == "on_success") == ok:
        collected += [checkout / path for path in artifacts.get("paths", [])]
        collected += [checkout / path for path in artifacts.get("reports", {}).values()]
    return status, collected


def valid(path: Path, schema) -> bool:
    try:
        jsonschema.validate(json.loads(path.read_text()), schema)
        return True
    except (ValueError, jsonschema.ValidationError) as error:
        print(f"{path}: {str(error).splitlines()[0]}", file=sys.stderr)
        return False


def results_in(sarif: Path) -> int:
    return sum(len(run["results"]) for run in json.loads(sarif.read_text())["runs"])


def github(root: Path, recipe: str, demo: Path, empty: Path):
    workflow = yaml.safe_load(recipe)
    lint, gate = workflow["jobs"]["lint"], workflow["jobs"]["mfu-gate"]
    (root / "github").mkdir()
    for broken in (True, False):
        checkout = make_checkout(root / "github", broken)
        status, steps = run_github_job(lint, checkout, environment(root))
        sarif = checkout / "opmfu.sarif"
        which = "broken" if broken else "clean"
        check(status == ("failure" if broken else "success"), f"github lint ({which}): status {status}, steps {steps}")
        check(steps[-1] == "success", f"github lint ({which}): upload-sarif {steps[-1]} (steps {steps})")
        check(sarif.is_file() and valid(sarif, SARIF_SCHEMA), f"github lint ({which}): no valid opmfu.sarif")
        if sarif.is_file():
            count = results_in(sarif)
            check(count > 0 if broken else count == 0, f"github lint ({which}): {count} SARIF results")
    checkout = root / "github" / "clean"
    env = environment(root, {"PROF_DIR": str(demo), "BASELINE_PROF_DIR": str(demo)})
    status, steps = run_github_job(gate, checkout, env)
    check(status == "success", f"github mfu-gate on the demo run: status {status}, steps {steps}")
    env = environment(root, {"PROF_DIR": str(empty), "BASELINE_PROF_DIR": str(demo)})
    status, steps = run_github_job(gate, checkout, env)
    check(status == "failure" and steps[2] == "failure", f"github mfu-gate on no data: {status}, steps {steps}")


def gitlab(root: Path, recipe: str, demo: Path, empty: Path):
    pipeline = yaml.safe_load(recipe)
    (root / "gitlab").mkdir()
    for broken in (True, False):
        checkout = make_checkout(root / "gitlab", broken)
        which = "broken" if broken else "clean"
        status, artifacts = run_gitlab_job(pipeline["opmfu-lint"], checkout, environment(root))
        check(status == ("failed" if broken else "success"), f"gitlab opmfu-lint ({which}): status {status}")
        report = checkout / pipeline["opmfu-lint"]["artifacts"]["reports"]["codequality"]
        check(report in artifacts and report.is_file() and valid(report, CODE_QUALITY_SCHEMA),
              f"gitlab opmfu-lint ({which}): no valid Code Quality report")
        if report.is_file():
            issues = json.loads(report.read_text())
            check(len(issues) > 0 if broken else issues == [], f"gitlab ({which}): {len(issues)} Code Quality issues")
            fingerprints = [issue["fingerprint"] for issue in issues]
            check(len(set(fingerprints)) == len(fingerprints), f"gitlab ({which}): repeated fingerprints")
        sarif = checkout / "gl-opmfu.sarif"
        check(sarif.is_file() and valid(sarif, SARIF_SCHEMA), f"gitlab opmfu-lint ({which}): no valid SARIF")
    gate_schema = json.loads((SOURCE / "docs" / "schema" / "gate.schema.json").read_text())
    for prof, expected in ((demo, "success"), (empty, "failed")):
        checkout = root / "gitlab" / "clean"
        (checkout / "gate.json").unlink(missing_ok=True)
        status, artifacts = run_gitlab_job(pipeline["opmfu-gate"], checkout, environment(root, {"PROF_DIR": str(prof)}))
        check(status == expected, f"gitlab opmfu-gate on {prof.name}: status {status}")
        if expected == "success":
            gate = checkout / "gate.json"
            check(gate in artifacts and gate.is_file() and valid(gate, gate_schema), "gitlab opmfu-gate: gate.json")


def pre_commit(root: Path, recipe: str):
    if shutil.which("pre-commit") is None:
        check(False, "pre-commit is not installed (scripts/setup installs it)")
        return
    (root / "pre-commit").mkdir()
    home = root / "home"
    home.mkdir()
    env = environment(root, {"HOME": str(home), "PRE_COMMIT_HOME": str(root / "pre-commit-cache"),
                             "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
                             "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"})
    for broken in (True, False):
        checkout = make_checkout(root / "pre-commit", broken)
        (checkout / ".pre-commit-config.yaml").write_text(recipe)
        for command in (["git", "init", "-q"], ["git", "add", "."]):
            subprocess.run(command, cwd=checkout, env=env, check=True, capture_output=True)
        run = subprocess.run(["pre-commit", "run", "--all-files"], cwd=checkout, env=env, capture_output=True,
                             text=True, timeout=120)
        which = "broken" if broken else "clean"
        check((run.returncode != 0) == broken, f"pre-commit ({which}): exit {run.returncode}\n{run.stdout}")
        check(re.search(r"opmfu lint.*(Failed)" if broken else r"opmfu lint.*Passed", run.stdout) is not None,
              f"pre-commit ({which}): opmfu-lint did not {'fail' if broken else 'pass'}\n{run.stdout}")


def main():
    found = recipes()
    expected = {".pre-commit-config.yaml", ".github/workflows/opmfu.yml", ".gitlab-ci.yml"}
    check(expected <= set(found), f"docs/ci.md lacks recipes: {sorted(expected - set(found))}")
    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        demo = root / "prof-demo"
        subprocess.run([OPMFU, "demo", str(demo), "--ranks", "2", "--steps", "1"], check=True, capture_output=True)
        empty = root / "prof-empty"
        empty.mkdir()
        github(root, found[".github/workflows/opmfu.yml"], demo, empty)
        gitlab(root, found[".gitlab-ci.yml"], demo, empty)
        pre_commit(root, found[".pre-commit-config.yaml"])
    print(f"{len(FAILURES)} failures; machine {platform.machine()}", file=sys.stderr)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
