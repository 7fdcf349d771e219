#include "linter/bash_launcher.h"

#include <filesystem>
#include <memory>
#include <utility>

#include "linter/shell/interpreter.h"
#include "linter/shell/syntax.h"

namespace opmfu::linter {

// The launcher is read by linter/shell/, one stage per file, each including only the ones before
// it: syntax (the tree) -> words -> environment -> frame (the text being read, as a value) ->
// expansion -> assignment -> commands (the table of builtins and programs) -> dispatch (wrappers
// seen through) -> interpreter (statements, sources, evals). This file only starts it.

bool IsShellScript(const std::string& path, std::string_view source) {
  const std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".sh" || extension == ".bash") return true;
  if (extension == ".py" || !source.starts_with("#!")) return false;
  const std::string_view shebang = source.substr(0, source.find('\n'));
  return shebang.find("python") == std::string_view::npos && shebang.find("sh") != std::string_view::npos;
}

Result<LauncherFacts> ReadLauncher(const std::string& path, std::string source, const FileReader& files) {
  const std::size_t source_size = source.size();
  OPMFU_ASSIGN_OR_RETURN(SyntaxTree tree, shell::ParseLauncher(std::move(source), path));
  LauncherFacts facts;
  facts.path = path;
  facts.source_size = source_size;
  facts.tree = std::make_shared<const SyntaxTree>(std::move(tree));
  shell::Interpreter interpreter(facts, files);
  interpreter.RunLauncher();
  return facts;
}

}  // namespace opmfu::linter
