#pragma once
// What opmfu reads of each builtin and program a launcher runs (its row in the command table,
// commands.cpp, names the function): `source`, `bash x.sh`, `cd`, `rm`, the analysis commands,
// and the launch of a Python script by python, torchrun (torch_npu_run), deepspeed, accelerate or msrun.

#include "linter/shell/invocation.h"

namespace opmfu::linter::shell {

/// `source FILE`, `. FILE`: the file runs in the launcher's shell.
void RunSource(Invocation& call);
/// `bash x.sh`, `sh x.sh`: the script runs in a child shell, which inherits what is exported.
void RunScript(Invocation& call);
/// `cd DIR`: scripts named after it are relative to DIR.
void ChangeDirectory(Invocation& call);
/// `rm PATH...`: the launcher empties PATH (a fact for OPM206).
void NoteRemoved(Invocation& call);
/// `msprof-analyze -d DIR`, `opmfu analyze -d DIR`: the directory analysed (a fact for OPM203).
void NoteAnalysis(Invocation& call);
/// A command that starts Python: one Launch per path whose words name a script or module.
void RunLaunch(Invocation& call);
/// torchrun and torch_npu's `torch_npu_run`: their options, then the script, `-m` module or, with
/// `--no-python`, the program they start.
void RunTorchrun(Invocation& call);
/// `vllm serve MODEL ...`: the server's launch, whose options a known-launcher description reads.
void RunVllm(Invocation& call);
/// `dyno ... nputrace OPTIONS`: msMonitor's request, whose options a known-launcher description reads.
void RunDyno(Invocation& call);

}  // namespace opmfu::linter::shell
