#pragma once
// Bash launchers, read statically with tree-sitter-bash: variables (in order, with `${V:-d}`
// defaults, arrays and `+=`, `export`, `V=x cmd` prefixes), `if`/`case` branches as alternatives,
// `source`d files, functions called in the file; and the commands that start a Python training
// script (python, torchrun, python -m torch.distributed.run/launch, deepspeed, accelerate launch,
// msrun), with the script and the arguments it receives. Nothing is executed.

#include <string>
#include <string_view>

#include "common/file_reader.h"
#include "common/result.h"
#include "linter/shell/facts.h"

namespace opmfu::linter {

/// Reads a launcher, and through `files` the files it sources (relative to the working directory,
/// else to the launcher's).
Result<LauncherFacts> ReadLauncher(const std::string& path, std::string source, const FileReader& files);

/// True for a file to read as bash: a .sh/.bash extension, or a shell shebang.
bool IsShellScript(const std::string& path, std::string_view source);

}  // namespace opmfu::linter
