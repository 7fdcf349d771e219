#include "lint/import_following.h"

#include <filesystem>
#include <memory>
#include <vector>

#include "common/parallel.h"
#include "lint/stage.h"
#include "linter/profiler_config.h"
#include "python/project.h"

namespace opmfu::lint {

namespace fs = std::filesystem;

void FollowImports(std::vector<Input>& inputs, std::map<std::string, std::size_t>& by_identity,
                   const LintOptions& options) {
  const std::size_t count = inputs.size();
  std::vector<std::vector<fs::path>> closures(count);
  ForEachInParallel(count, options.jobs, [&](std::size_t i) {
    Input& input = inputs[i];
    if (input.launches.empty() && !input.from_stdin) {
      auto text = FilesOf(options).ReadFile(input.path);
      if (!text.ok()) return;
      if (input.from_directory && !CanMatter(*text)) {
        input.cannot_matter = true;  // skipped without reading it again, and not kept in memory
        return;
      }
      // A file no launch runs leads only if it is a program that uses torch_npu: a library module
      // (named or found in a directory) is linted alone, its imports used only to trace values.
      const bool entry = text->find("__main__") != std::string::npos && text->find("torch_npu") != std::string::npos;
      input.source = std::move(*text);
      if (!entry) return;
    }
    // A path that cannot be resolved is not followed; the Python stage reports it for this input.
    auto paths = ResolveProgramPaths(input, options);
    if (!paths.ok()) return;
    closures[i] = python::ImportClosure(python::ModuleLocator({paths->self.parent_path(), paths->root}, paths->root,
                                                              FilesOf(options), options.module_cache),
                                        paths->self);
  });
  for (std::size_t i = 0; i < count; ++i) {
    // What input i's launches pass, converted once for every module its imports reach.
    std::shared_ptr<const std::vector<python::ScriptInvocation>> passed;
    for (const fs::path& module : closures[i]) {
      auto [known, added] = by_identity.emplace(Identity(FilesOf(options), module.string()), inputs.size());
      if (added) inputs.push_back(MakeInput(DisplayPath(module.string()), true));
      Input& reached = inputs[known->second];
      if (reached.entry || !reached.launches.empty()) continue;  // its own program, or already reached
      reached.entry = inputs[i].path;
      if (passed == nullptr) {
        if (inputs[i].launches.empty()) {
          passed = inputs[i].inherited;
        } else {
          std::vector<python::ScriptInvocation> invocations = linter::InvocationsOf(inputs[i].launches);
          if (inputs[i].inherited != nullptr) {
            invocations.insert(invocations.end(), inputs[i].inherited->begin(), inputs[i].inherited->end());
          }
          passed = std::make_shared<const std::vector<python::ScriptInvocation>>(std::move(invocations));
        }
      }
      reached.inherited = passed;
    }
  }
}

}  // namespace opmfu::lint
