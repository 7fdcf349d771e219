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

// weakly_canonical without throwing: a symlink loop or a name too long is an error naming the path.
Result<fs::path> Canonical(const fs::path& path) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(path, ec);
  if (ec) return Error::Input(path.string() + ": cannot resolve the path: " + ec.message());
  return canonical.lexically_normal();
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
  std::error_code ec;
  if (options.root) return fs::weakly_canonical(*options.root, ec).lexically_normal();
  const fs::path from = fs::weakly_canonical(start.empty() ? fs::path(".") : start, ec);
  for (fs::path dir = from; !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / ".git", ec)) return dir;
    if (dir == dir.parent_path()) break;
  }
  const fs::path cwd = fs::weakly_canonical(fs::current_path(ec), ec);
  const fs::path relative = from.lexically_relative(cwd);
  if (!ec && !cwd.empty() && !relative.empty() && *relative.begin() != "..") return cwd;
  return from;
}

// Where the program of an input starts: its entry script's directory, or the launcher's.
fs::path RootStart(const Input& input) {
  if (!input.launches.empty()) return fs::path(input.launches.front().launcher).parent_path();
  if (!input.inherited.empty()) return fs::path(input.inherited.front().launcher).parent_path();
  return fs::path(input.entry.value_or(input.path)).parent_path();
}

Result<ProgramPaths> ResolveProgramPaths(const Input& input, const LintOptions& options) {
  ProgramPaths paths;
  OPMFU_ASSIGN_OR_RETURN(paths.self, Canonical(input.path));
  OPMFU_ASSIGN_OR_RETURN(paths.entry, Canonical(input.entry.value_or(input.path)));
  OPMFU_ASSIGN_OR_RETURN(const fs::path start, Canonical(RootStart(input)));
  paths.root = ProjectRoot(options, start);
  return paths;
}

// A file that mentions none of these cannot configure a torch_npu profiler.
bool CanMatter(std::string_view source) {
  return source.find("profiler") != std::string_view::npos || source.find("torch_npu") != std::string_view::npos;
}

std::string Identity(const std::string& path) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(path, ec);
  return ec ? path : canonical.string();
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
    std::error_code ec;
    const bool named_file = files.IsFile(path);
    if (!named_file && fs::is_directory(path, ec)) {
      std::vector<std::string> found_python;
      // Directory by directory, so that one that cannot be listed (no permission) is an error
      // naming it, and its siblings are still linted: "No findings." must never stand for
      // "nothing could be read".
      std::vector<fs::path> pending{path};
      while (!pending.empty()) {
        const fs::path directory = std::move(pending.back());
        pending.pop_back();
        fs::directory_iterator it(directory, ec);
        for (fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
          std::error_code entry_error;
          // Symlinked directories are not followed, so a link loop cannot trap the walk.
          if (it->is_directory(entry_error) && !it->is_symlink(entry_error)) {
            if (!SkippedDirectory(it->path()) && !MatchesAnyGlob(options.exclude, cwd, it->path())) {
              pending.push_back(it->path());
            }
            continue;
          }
          if (MatchesAnyGlob(options.exclude, cwd, it->path())) continue;
          if (!it->is_regular_file(entry_error)) continue;
          const std::string extension = it->path().extension().string();
          // `lint` (ruff's `.`) names what it finds as ruff does: `train.py`, not `./train.py`.
          std::string found = it->path().string();
          if (found.starts_with("./")) found.erase(0, 2);
          if (extension == ".py") found_python.push_back(found);
          if (extension == ".sh" || extension == ".bash") inputs.launchers.push_back(found);
          if (it->path().filename() == kDynamicConfigName) inputs.json.push_back(found);
        }
        if (ec) {
          report.errors.push_back(Error::Input(directory.string() + ": cannot list: " + ec.message()));
          ec.clear();
        }
      }
      std::sort(found_python.begin(), found_python.end());
      for (std::string& file : found_python) inputs.python.push_back(MakeInput(std::move(file), true));
      continue;
    }
    if (!named_file && !fs::exists(path, ec)) {
      // The real cause: a symlink loop or a permission problem is not a missing file.
      report.errors.push_back(Error::Input(path + ": " + (ec ? ec.message() : "no such file or directory")));
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
    (launcher ? inputs.launchers.push_back(path) : inputs.python.push_back(MakeInput(path, false)));
  }
  std::sort(inputs.launchers.begin(), inputs.launchers.end());
  // A file named twice (`lint src/ src/train.sh`) is linted once; named, it always matters.
  {
    std::set<std::string> seen;
    std::erase_if(inputs.launchers, [&](const std::string& path) { return !seen.insert(Identity(path)).second; });
    std::map<std::string, std::size_t> first;
    std::vector<Input> unique;
    for (Input& input : inputs.python) {
      auto [at, added] = first.emplace(Identity(input.path), unique.size());
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

}  // namespace opmfu::lint
