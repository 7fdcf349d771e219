#include "rules/known_launcher_set.h"

#include "common/embedded_file.h"

namespace opmfu::rules {

const std::vector<EmbeddedFile>& EmbeddedKnownLaunchers();  // generated from rules/launchers/*.yaml

Result<const std::vector<linter::KnownLauncher>*> BuiltInLaunchers() {
  static const Result<std::vector<linter::KnownLauncher>> parsed = []() -> Result<std::vector<linter::KnownLauncher>> {
    std::vector<linter::KnownLauncher> launchers;
    for (const EmbeddedFile& file : EmbeddedKnownLaunchers()) {
      auto launcher = linter::ParseKnownLauncher(file.content, "rules/launchers/" + std::string(file.name));
      if (!launcher.ok()) return Error::Internal("built-in " + launcher.error().message);
      launchers.push_back(std::move(*launcher));
    }
    return launchers;
  }();
  if (!parsed.ok()) return parsed.error();
  return &*parsed;
}

Result<std::vector<const linter::KnownLauncher*>> KnownLauncherSet::For(
    const std::vector<std::filesystem::path>& added) {
  std::vector<const linter::KnownLauncher*> out;
  for (const std::filesystem::path& path : added) {
    auto found = loaded_.find(path);
    if (found == loaded_.end()) {
      auto text = files_.ReadFile(path.string());
      if (!text.ok()) return Error::Usage("launcher description " + text.error().message);
      auto launcher = linter::ParseKnownLauncher(*text, path.string());
      if (!launcher.ok()) return Error::Usage(launcher.error().message);
      found = loaded_.emplace(path, std::move(*launcher)).first;
    }
    out.push_back(&found->second);
  }
  OPMFU_ASSIGN_OR_RETURN(const std::vector<linter::KnownLauncher>* built_in, BuiltInLaunchers());
  for (const linter::KnownLauncher& launcher : *built_in) out.push_back(&launcher);
  return out;
}

}  // namespace opmfu::rules
