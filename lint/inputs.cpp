#include "lint/inputs.h"

#include <algorithm>
#include <map>
#include <set>

#include "lint/stage.h"

namespace opmfu::lint {

namespace fs = std::filesystem;

namespace {

bool SkippedDirectory(const fs::path& path) {
  const std::string name = path.filename().string();
  return (name.size() > 1 && name[0] == '.') || name == "__pycache__" || name == "node_modules" ||
         name == "site-packages" || name == "venv";
}

// A symlink loop or a name too long is an error naming the path.
Result<fs::path> Canonical(const FileReader& files, const fs::path& path) {
  OPMFU_ASSIGN_OR_RETURN(std::string canonical, files.Canonical(path.string()));
  return fs::path(std::move(canonical));
}

}  // namespace

// A path found by opmfu (a followed import, a launched script) as the user would write it: relative
// to the working directory when it is below it (findings, suppressions and SARIF's %SRCROOT% then
// agree with the paths the user named), else as found.
std::string DisplayPath(const std::string& found) {
  std::error_code ec;
  const fs::path path(found);
  if (!path.is_absolute()) return found;
  const fs::path cwd = fs::current_path(ec);
  if (ec) return found;
  const fs::path relative = path.lexically_normal().lexically_relative(fs::weakly_canonical(cwd, ec));
  if (ec || relative.empty() || *relative.begin() == "..") return found;
  return relative.string();
}

Input MakeInput(std::string path, bool from_directory, bool from_stdin) {
  Input input;
  input.path = std::move(path);
  input.from_directory = from_directory;
  input.from_stdin = from_stdin;
  return input;
}

// The project root: `--root`, else the nearest directory above `start` with a .git, else the
// working directory when `start` is below it (a source tarball or an exported tree has no .git,
// and is linted from its top, as ruff takes the directory it runs in), else `start`.
fs::path ProjectRoot(const LintOptions& options, const fs::path& start) {
  const FileReader& files = FilesOf(options);
  const auto canonical = [&](const fs::path& path) {
    auto resolved = files.Canonical(path.string());
    return resolved.ok() ? fs::path(*resolved) : path.lexically_normal();
  };
  if (options.root) return canonical(*options.root);
  const fs::path from = canonical(start.empty() ? fs::path(".") : start);
  for (fs::path dir = from; !dir.empty(); dir = dir.parent_path()) {
    if (files.Stat((dir / ".git").string()) != FileKind::kMissing) return dir;
    if (dir == dir.parent_path()) break;
  }
  std::error_code ec;
  const fs::path cwd = canonical(fs::current_path(ec));
  const fs::path relative = from.lexically_relative(cwd);
  if (!ec && !cwd.empty() && !relative.empty() && *relative.begin() != "..") return cwd;
  return from;
}

// Where the program of an input starts: its entry script's directory, or the launcher's.
fs::path RootStart(const Input& input) {
  if (!input.launches.empty()) return fs::path(input.launches.front().launcher).parent_path();
  if (input.inherited != nullptr && !input.inherited->empty()) {
    return fs::path(input.inherited->front().launcher).parent_path();
  }
  return fs::path(input.entry.value_or(input.path)).parent_path();
}

Result<ProgramPaths> ResolveProgramPaths(const Input& input, const LintOptions& options) {
  ProgramPaths paths;
  const FileReader& files = FilesOf(options);
  OPMFU_ASSIGN_OR_RETURN(paths.self, Canonical(files, input.path));
  OPMFU_ASSIGN_OR_RETURN(paths.entry, Canonical(files, input.entry.value_or(input.path)));
  OPMFU_ASSIGN_OR_RETURN(const fs::path start, Canonical(files, RootStart(input)));
  paths.root = ProjectRoot(options, start);
  return paths;
}

// A file that mentions none of these cannot configure a torch_npu profiler.
bool CanMatter(std::string_view source) {
  return std::any_of(std::begin(kMentionsOfTheProfilerWords), std::end(kMentionsOfTheProfilerWords),
                     [&](std::string_view word) { return source.find(word) != std::string_view::npos; });
}

std::string Identity(const FileReader& files, const std::string& path) {
  auto canonical = files.Canonical(path);
  return canonical.ok() ? *canonical : path;
}

CollectedInputs CollectInputs(const std::vector<std::string>& paths, const LintOptions& options, LintReport& report) {
  CollectedInputs inputs;
  const FileReader& files = FilesOf(options);
  std::error_code cwd_error;  // --exclude globs are relative to where opmfu runs, as ruff's are
  const fs::path cwd = options.exclude.empty() ? fs::path() : fs::current_path(cwd_error);
  for (const std::string& path : paths) {
    if (path == "-") {
      inputs.stdin_input = MakeInput(options.stdin_filename, false, true);
      continue;
    }
    if (options.force_exclude && MatchesAnyGlob(options.exclude, cwd, path)) continue;
    std::string cause;
    const FileKind kind = files.Stat(path, &cause);
    if (kind == FileKind::kDirectory) {
      std::vector<std::string> found_python;
      // Directory by directory, so that one that cannot be listed (no permission) is an error
      // naming it, and its siblings are still linted: "No findings." must never stand for
      // "nothing could be read".
      std::vector<fs::path> pending{path};
      while (!pending.empty()) {
        const fs::path directory = std::move(pending.back());
        pending.pop_back();
        auto entries = files.ListDirectory(directory.string());
        if (!entries.ok()) {
          report.errors.push_back(entries.take_error());
          continue;
        }
        for (const DirectoryEntry& entry : *entries) {
          const fs::path found_path = directory / entry.name;
          // Symlinked directories are not followed, so a link loop cannot trap the walk.
          if (entry.kind == FileKind::kDirectory && !entry.symlink) {
            if (!SkippedDirectory(found_path) && !MatchesAnyGlob(options.exclude, cwd, found_path)) {
              pending.push_back(found_path);
            }
            continue;
          }
          if (MatchesAnyGlob(options.exclude, cwd, found_path)) continue;
          if (entry.kind != FileKind::kFile) continue;
          const std::string extension = found_path.extension().string();
          // `lint` (ruff's `.`) names what it finds as ruff does: `train.py`, not `./train.py`.
          std::string found = found_path.string();
          if (found.starts_with("./")) found.erase(0, 2);
          if (extension == ".py") found_python.push_back(found);
          if (extension == ".sh" || extension == ".bash") {
            inputs.launchers.push_back(found);
            inputs.walked.insert(found);
          }
          if (entry.name == kDynamicConfigName) {
            inputs.json.push_back(found);
            inputs.walked.insert(found);
          }
        }
      }
      std::sort(found_python.begin(), found_python.end());
      for (std::string& file : found_python) inputs.python.push_back(MakeInput(std::move(file), true));
      continue;
    }
    if (kind == FileKind::kMissing) {
      // The real cause: a symlink loop or a permission problem is not a missing file.
      report.errors.push_back(Error::Input(path + ": " + (cause.empty() ? "no such file or directory" : cause)));
      continue;
    }
    const std::string extension = fs::path(path).extension().string();
    if (extension == ".json") {
      inputs.json.push_back(path);
      continue;
    }
    bool launcher = extension == ".sh" || extension == ".bash";
    if (extension != ".py" && !launcher) {
      // No telling extension: a shell shebang makes it a launcher.
      auto head = files.ReadFile(path);
      launcher = head.ok() && linter::IsShellScript(path, *head);
    }
    if (launcher) {
      inputs.launchers.push_back(path);
    } else {
      inputs.python.push_back(MakeInput(path, false));
      inputs.python.back().named = true;
    }
  }
  std::sort(inputs.launchers.begin(), inputs.launchers.end());
  // A file named twice (`lint src/ src/train.sh`) is linted once; named, it always matters.
  {
    std::set<std::string> seen;
    std::erase_if(inputs.launchers,
                  [&](const std::string& path) { return !seen.insert(Identity(files, path)).second; });
    std::map<std::string, std::size_t> first;
    std::vector<Input> unique;
    for (Input& input : inputs.python) {
      auto [at, added] = first.emplace(Identity(files, input.path), unique.size());
      if (added) {
        unique.push_back(std::move(input));
      } else {
        unique[at->second].from_directory = unique[at->second].from_directory && input.from_directory;
      }
    }
    inputs.python = std::move(unique);
  }
  return inputs;
}

bool ExcludedByConfig(const Input& input, const Config& config, const LintOptions& options) {
  if (options.exclude_replaces_config || !(input.from_directory || (options.force_exclude && input.named))) {
    return false;
  }
  return IsExcluded(config, input.path);
}

}  // namespace opmfu::lint
