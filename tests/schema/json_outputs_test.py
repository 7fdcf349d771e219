#!/usr/bin/env python3
"""Every opmfu command's JSON output against its published schema (docs/schema/<command>.schema.json),
and the one error object (error.schema.json) for a failure of each command in JSON mode.

Usage: json_outputs_test.py OPMFU_BINARY SOURCE_DIR
Runs the real binary on `opmfu demo` data (results, findings, refusals, failed gates) and on bad
input (missing paths, unknown flags), so a renamed or retyped field, a command without a schema,
or a failure that leaves stdout empty or holding text fails here. Exit 77 (skipped) only when
python3-jsonschema is not installed (scripts/setup installs it).
"""

import json
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed (scripts/setup installs it)", file=sys.stderr)
    sys.exit(77)

OPMFU = str(Path(sys.argv[1]).resolve())
SCHEMAS = Path(sys.argv[2]) / "docs" / "schema"
failures = []
covered = set()


def schema(name):
    document = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(document)
    return document


def run(args, cwd):
    return subprocess.run([OPMFU, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def check(name, args, cwd, exit_codes=(0,)):
    """The command's stdout is one JSON document valid against docs/schema/<name>.schema.json."""
    covered.add(name)
    result = run(args, cwd)
    where = f"opmfu {' '.join(args)}"
    if result.returncode not in exit_codes:
        failures.append(f"{where}: exit {result.returncode}, expected {exit_codes}\n{result.stderr}")
        return None
    try:
        document = json.loads(result.stdout)
    except json.JSONDecodeError as error:
        failures.append(f"{where}: stdout is not one JSON document ({error}): {result.stdout[:200]!r}")
        return None
    if isinstance(document, dict) and "error" in document and name != "error":
        failures.append(f"{where}: printed an error object: {document}")
        return None
    try:
        jsonschema.validate(document, schema(name))
    except jsonschema.ValidationError as error:
        failures.append(f"{where}: does not match {name}.schema.json: {error.message} at {list(error.absolute_path)}")
    return document


def check_error(args, cwd, kind):
    """A failure in JSON mode: exit 2, stdout holds exactly the error object, stderr the text line."""
    result = run(args, cwd)
    where = f"opmfu {' '.join(args)}"
    try:
        document = json.loads(result.stdout)
        jsonschema.validate(document, schema("error"))
    except (json.JSONDecodeError, jsonschema.ValidationError) as error:
        failures.append(f"{where}: stdout is not the error object ({error}): {result.stdout[:200]!r}")
        return
    if document["error"]["kind"] != kind or result.returncode != document["error"]["exit_code"]:
        failures.append(f"{where}: {document} with exit {result.returncode}, expected kind {kind}")
    if "opmfu: error: " + document["error"]["message"] not in result.stderr:
        failures.append(f"{where}: stderr lacks the same message: {result.stderr!r}")


# Commands whose stdout is not one result document: `opmfu mcp` speaks JSON-RPC (and
# tests/mcp/mcp_client_test.cjs validates each of its tool results against the schemas here);
# `opmfu completion` prints a shell script to source (docs/cli.md).
PROTOCOL_COMMANDS = {"mcp", "completion"}


def commands_in_help():
    """Every leaf command `opmfu --help` lists, as schema names (registry list -> registry-list)."""
    def subcommands(path):
        text = run([*path, "--help"], ".").stdout
        section = re.search(r"^Subcommands:\n((?:  .*\n?)+)", text, re.M)
        return [line.split()[0] for line in section.group(1).splitlines()] if section else []

    names = []
    for command in subcommands([]):
        children = subcommands([command])
        names += [f"{command}-{child}" for child in children] if children else [command]
    return names


def main():
    work = Path(tempfile.mkdtemp(prefix="opmfu-schema-"))
    try:
        check("demo", ["demo", "run", "--ranks", "2", "--steps", "1", "--format", "json"], work)
        check("demo", ["demo", "base", "--ranks", "2", "--steps", "1", "--seed", "7", "--format", "json"], work)
        example = work / "run" / "example"
        broken = work / "broken"
        shutil.copytree(example, broken)
        script = broken / "train.py"
        script.write_text(script.read_text().replace("with_flops=True", "with_flops=False"))
        formulas = broken / "_flops_formulas.py"
        formulas.write_text(
            formulas.read_text()
            + '\n\n@register_npu_flop(target="torch:mm", is_default=True)\ndef again(*args, **kwargs):\n    return 1.5\n'
        )

        check("lint", ["lint", str(example / "train.sh"), "--format", "json"], work)
        findings = check("lint", ["lint", str(broken / "train.sh"), "--output-format", "json"], work, (1,))
        if findings is not None and not any(f["code"] == "OPM101" for f in findings):
            failures.append("lint: the broken example has no OPM101 finding")
        # --run: the findings and, per traced call and setting, the comparison with the run's record.
        compared = check("lint", ["lint", str(broken / "train.sh"), "--run", "run", "--format", "json"], work, (1,))
        if compared is not None and not (compared["findings"] and compared["run"]["runs"][0]["calls"]):
            failures.append("lint --run: no findings or no traced call in the JSON")

        check("registry-list", ["registry", "list", "--formulas", str(formulas), "--format", "json"], work)
        check("registry-check", ["registry", "check", str(example / "_flops_formulas.py"), "--format", "json"], work)
        check("registry-check", ["registry", "check", str(formulas), "--output-format", "json"], work, (1,))
        (work / "good_formula.py").write_text("def my_op_flops(a, b, **kwargs):\n    return 2 * a.shape[0] * b.shape[1]\n")
        (work / "bad_formula.py").write_text("def my_bad(a, b):\n    return 2.5\n")
        target = work / "formulas_copy.py"
        shutil.copy(example / "_flops_formulas.py", target)
        add = ["registry", "add", "--target", "torch_npu:npu_my_op", "--formulas", str(target), "--format", "json"]
        preview = check("registry-add", [*add, "--from", "good_formula.py"], work)
        if preview is not None and (preview["written"] or not preview["diff"]):
            failures.append(f"registry add preview: {preview}")
        refused = check("registry-add", [*add, "--from", "bad_formula.py"], work, (1,))
        if refused is not None and (not refused["refused"] or not refused["findings"]):
            failures.append(f"registry add refusal: {refused}")
        written = check("registry-add", [*add, "--from", "good_formula.py", "--write"], work)
        if written is not None and not (written["written"] and Path(written["backup"]).exists()):
            failures.append(f"registry add --write: {written}")

        verify = ["registry", "verify", "-d", "run", "--format", "json"]
        ok = check("registry-verify", [*verify, "--target", "torch:mm"], work)
        if ok is not None and (ok["verdict"] != "ok" or ok["records"] == 0):
            failures.append(f"registry verify torch:mm: {ok}")
        check("registry-verify", [*verify, "--target", "torch:mm", "--expect", "5"], work, (1,))
        check("registry-verify", [*verify, "--target", "torch:no_such_op"], work, (1,))

        analysis = check("analyze", ["analyze", "-d", "run", "--format", "json"], work)
        if analysis is not None and (analysis["operator_mfu_rows"] == 0 or not analysis["written"]):
            failures.append(f"analyze: {analysis}")
        check("analyze", ["analyze", "-d", "base", "--export-type", "csv", "--format", "json"], work)
        # A failed rank (not a database) and a rank whose FLOPs records match no kernel: the per-rank
        # error and no_rows_reason are strings then, and the run exits 1.
        partly = work / "partly_failed"
        run(["demo", str(partly), "--ranks", "3", "--steps", "1"], work)
        rank_dbs = sorted(partly.glob("*_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_*.db"))
        rank_dbs[1].write_bytes(b"not a database " * 300)
        shifted = sqlite3.connect(rank_dbs[2])
        shifted.execute("UPDATE MSTX_EVENTS SET startNs = startNs + 1000000000000000, endNs = endNs + 1000000000000000")
        shifted.commit()
        shifted.close()
        partial_analysis = check("analyze", ["analyze", "-d", str(partly), "--format", "json"], work, (1,))
        if partial_analysis is not None:
            statuses = sorted((r["status"], r["error"] is None, r["no_rows_reason"] is None)
                              for r in partial_analysis["ranks"])
            if statuses != [("failed", False, True), ("ok", True, False), ("ok", True, True)]:
                failures.append(f"analyze with a failed and an unmatched rank: {partial_analysis['ranks']}")
        derived_analysis = check("analyze", ["analyze", "-d", "run", "--derived", "--format", "json"], work)
        if derived_analysis is not None and not derived_analysis.get("derived_mfu_rows"):
            failures.append(f"analyze --derived: no derived_mfu_rows: {derived_analysis}")
        for index in range(2):
            shard = run(["analyze", "-d", "run", "--shard", f"{index}/2", "-o", f"shards/{index}"], work)
            if shard.returncode != 0:
                failures.append(f"analyze --shard {index}/2: exit {shard.returncode}\n{shard.stderr}")
        merged = check("merge", ["merge", "shards/1", "shards/0", "-o", "merged", "--format", "json"], work)
        if merged is not None and (merged["operator_mfu_rows"] == 0 or len(merged["partials"]) != 2):
            failures.append(f"merge: {merged}")
        check("check-db", ["check-db", "-d", "run", "--format", "json"], work)
        check("report", ["report", "-d", "run", "--format", "json"], work)
        check("report", ["report", "--db", "run/cluster_analysis_output/cluster_analysis.db", "--format", "json"], work)
        check("flops", ["flops", "mm", "[4096,4096]", "[4096,4096]", "--format", "json"], work)
        check("flops", ["flops", "--list", "--format", "json"], work)
        check("audit", ["audit", "-d", "run", "--format", "json"], work, (0, 1))
        check("diff", ["diff", "base", "run", "--format", "json"], work, (0, 1))
        check("gate", ["gate", "-d", "run", "--min-mfu", "10%", "--format", "json"], work)
        derived_gate = check("gate", ["gate", "-d", "run", "--mfu-source", "derived", "--min-mfu", "1%",
                                      "--min-coverage", "1%", "--format", "json"], work, (0, 1))
        if derived_gate is not None and derived_gate["mfu_source"] != "derived":
            failures.append(f"gate --mfu-source derived: {derived_gate}")
        check("gate", ["gate", "-d", "run", "--mfu-source", "derived", "--min-mfu", "1%", "--baseline", "base",
                       "--max-drop", "0", "--output-format", "json"], work, (0, 1))
        check("gate", ["gate", "-d", "run", "--min-mfu", "99%", "--baseline", "base", "--max-drop", "1%",
                       "--output-format", "json"], work, (1,))
        check("rule", ["rule", "OPM101", "--format", "json"], work)
        check("rule", ["rule", "--all", "--format", "json"], work)

        missing = work / "missing"
        for args, kind in [
            (["lint", "--format", "json", "--no-such-flag"], "usage"),
            (["lint", str(missing / "train.py"), "--format", "json"], "input"),
            (["analyse", "--format", "json"], "usage"),
            (["analyze", "-d", str(missing), "--format", "json"], "input"),
            (["check-db", "-d", str(missing), "--format", "json"], "input"),
            (["merge", "shards/0", "-o", "merged", "--format", "json"], "usage"),
            (["report", "-d", str(missing), "--format", "json"], "input"),
            (["audit", "-d", str(missing), "--format", "json"], "input"),
            (["diff", str(missing), "run", "--format", "json"], "input"),
            (["gate", "-d", str(missing), "--min-mfu", "10%", "--output-format", "json"], "input"),
            (["registry", "list", "--formulas", str(missing), "--format", "json"], "input"),
            (["registry", "check", "--format", "json", "--no-such-flag"], "usage"),
            (["registry", "add", "--target", "torch:x", "--from", str(missing), "--formulas", str(target),
              "--format", "json"], "input"),
            (["registry", "verify", "-d", str(missing), "--target", "torch:mm", "--format", "json"], "input"),
            (["flops", "no_such_op", "--format", "json"], "usage"),
            (["rule", "OPM999", "--format", "json"], "usage"),
            (["demo", str(example / "train.sh"), "--format", "json"], "input"),
        ]:
            check_error(args, work, kind)

        for name in commands_in_help():
            if name in PROTOCOL_COMMANDS:
                continue
            if not (SCHEMAS / f"{name}.schema.json").exists():
                failures.append(f"`opmfu {name.replace('-', ' ', 1)}` has no docs/schema/{name}.schema.json")
            elif name not in covered:
                failures.append(f"`opmfu {name.replace('-', ' ', 1)}`: no case in this test")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for failure in failures:
        print("FAIL:", failure, file=sys.stderr)
    print(f"{len(covered)} command schemas checked, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
