#include "lint/fix.h"

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "common/file_io.h"
#include "common/file_reader.h"
#include "common/text_edit.h"
#include "common/tree_sitter.h"
#include "lint/stage.h"
#include "python/syntax.h"

namespace opmfu::lint {

namespace {

namespace fs = std::filesystem;

std::string Key(const std::string& path) { return fs::absolute(fs::path(path)).lexically_normal().string(); }

// The files as fixed so far, over the reader the lint would otherwise use.
class FixedFiles final : public FileReader {
 public:
  explicit FixedFiles(const FileReader& base) : base_(base) {}
  void Set(const std::string& path, std::string text) { texts_[Key(path)] = std::move(text); }

  Result<std::string> ReadFile(const std::string& path) const override {
    if (auto found = texts_.find(Key(path)); found != texts_.end()) return found->second;
    return base_.ReadFile(path);
  }
  FileKind Stat(const std::string& path, std::string* cause) const override {
    return texts_.contains(Key(path)) ? FileKind::kFile : base_.Stat(path, cause);
  }
  Result<std::vector<DirectoryEntry>> ListDirectory(const std::string& path) const override {
    return base_.ListDirectory(path);  // a fixed file exists already: no listing changes
  }
  Result<std::string> Canonical(const std::string& path) const override { return base_.Canonical(path); }
  Result<FileScan> Scan(const std::string& path, std::span<const std::string_view> words) const override {
    return texts_.contains(Key(path)) ? FileReader::Scan(path, words) : base_.Scan(path, words);
  }

 private:
  const FileReader& base_;
  std::map<std::string, std::string> texts_;
};

bool IsStdin(const std::string& path, const LintOptions& options) {
  return options.stdin_source.has_value() && Key(path) == Key(options.stdin_filename);
}

}  // namespace

std::optional<std::string> FixedTextProblem(const std::string& path, const std::string& text) {
  if (std::filesystem::path(path).extension() != ".py") return std::nullopt;
  auto parsed = ParseSource(Grammar::kPython, text);
  std::optional<std::string> problem =
      parsed.ok() ? python::EditedPythonProblem(*parsed) : std::optional<std::string>(parsed.error().message);
  if (!problem) return std::nullopt;
  return path + ": its fixes were not applied: the fixed text would have " + *problem;
}

std::vector<TextEdit> SafeFixEdits(const std::vector<Diagnostic>& found) {
  std::vector<TextEdit> edits;
  for (const Diagnostic& d : found) {
    if (d.fix && d.fix->safe) edits.insert(edits.end(), d.fix->edits.begin(), d.fix->edits.end());
  }
  return edits;
}

Result<FixResult> FixInMemory(const std::vector<std::string>& paths, const LintOptions& options, LintReport first) {
  FixResult result;
  result.report = std::move(first);
  FixedFiles texts(FilesOf(options));
  LintOptions again = options;
  again.files = &texts;
  std::map<std::string, FixedFile> fixed;  // by path as reported
  for (int pass = 0;; ++pass) {
    // Every edited file's fixed text for this pass, against the text the last lint read. An edit
    // may land in another file than its finding's (a launcher that spells a script's value): the
    // edits are gathered by the file they edit.
    struct Target {
      std::string path;  // as reported, or as the edit names it
      const LintedFile* linted = nullptr;
      std::vector<TextEdit> edits;
      std::size_t findings = 0;  // the findings whose fixes the edits are
    };
    std::map<std::string, Target> targets;  // by Key(path)
    for (const LintedFile& file : result.report.files) {
      Target& own = targets[Key(file.path)];
      own.path = file.path;
      own.linted = &file;
    }
    for (const LintedFile& file : result.report.files) {
      if (!file.parsed_cleanly) continue;
      for (const Diagnostic& finding : file.diagnostics) {
        if (!finding.fix || !(finding.fix->safe || options.unsafe_fixes)) continue;
        std::set<std::string> credited;  // a finding is fixed once in each file it edits
        for (TextEdit edit : finding.fix->edits) {
          const std::string edited = edit.file.empty() ? file.path : edit.file;
          // The standard input takes only its own fixes, and gives none to other files: its name
          // may be that of a file on disk, which another file's fix must not take for the piped
          // text (and a fix of it is printed, never written to a file).
          if (IsStdin(edited, options) != IsStdin(file.path, options)) continue;
          Target& target = targets[Key(edited)];
          if (target.path.empty()) target.path = edit.file;
          edit.file.clear();
          target.edits.push_back(std::move(edit));
          if (credited.insert(Key(edited)).second) ++target.findings;
        }
      }
    }
    struct Change {
      std::string path;
      std::string original;
      std::string text;
      std::size_t findings;
    };
    std::vector<Change> changes;
    for (auto& [key, target] : targets) {
      if (target.edits.empty()) continue;
      // A linted file that did not parse cleanly takes no fix, from its own findings or others'.
      if (target.linted != nullptr && !target.linted->parsed_cleanly) continue;
      std::string original;
      if (target.linted != nullptr) {
        original = target.linted->source;
      } else {
        auto read = texts.ReadFile(target.path);
        if (!read.ok()) return Error::Input(target.path + ": a fix edits it, but " + read.error().message);
        original = std::move(*read);
      }
      const std::size_t count = target.findings;
      auto text = ApplyEdits(original, std::move(target.edits));
      if (!text.ok()) return Error::Input(target.path + ": the fixes overlap: " + text.error().message);
      if (*text == original) continue;
      // Every edited Python file must still compile: a fix that would break it is not applied.
      if (auto problem = FixedTextProblem(target.path, *text)) {
        result.withheld.push_back(std::move(*problem));
        continue;
      }
      changes.push_back({target.path, std::move(original), std::move(*text), count});
    }
    if (changes.empty()) break;
    if (pass == kMaxFixPasses) {  // the report stays that of the texts as they are
      result.settled = false;
      break;
    }
    for (Change& change : changes) {
      const bool from_stdin = IsStdin(change.path, options);
      FixedFile& entry =
          fixed.try_emplace(change.path, FixedFile{change.path, std::move(change.original), {}, 0, from_stdin})
              .first->second;
      entry.fixed = change.text;
      entry.findings += change.findings;
      if (from_stdin) {
        again.stdin_source = std::move(change.text);  // the next pass lints the fixed text
      } else {
        texts.Set(change.path, std::move(change.text));
      }
    }
    OPMFU_ASSIGN_OR_RETURN(result.report, LintPaths(paths, again));
    ++result.passes;
  }
  for (auto& [path, file] : fixed) result.files.push_back(std::move(file));
  return result;
}

Status WriteFixes(std::span<const FixedFile> files) {
  for (const FixedFile& file : files) {
    if (file.standard_input) continue;  // printed by the caller, never written
    // An editor (or another --fix) may have saved the file since it was read: fixing the old text
    // would lose that. The check and the rename are one locked step.
    OPMFU_RETURN_IF_ERROR(ReplaceFileIfUnchanged(file.path, file.original, file.fixed));
  }
  return Ok();
}

std::string FixDiff(std::span<const FixedFile> files) {
  std::string diff;
  for (const FixedFile& file : files) {
    diff += UnifiedDiff(file.path, file.original, LineEditsBetween(file.original, file.fixed));
  }
  return diff;
}

std::function<const std::string*(std::string_view file)> FixableSources(const LintReport& report) {
  auto sources = std::make_shared<std::map<std::string, const std::string*, std::less<>>>();
  for (const LintedFile& file : report.files) {
    if (file.parsed_cleanly) sources->emplace(file.path, &file.source);
  }
  return [sources](std::string_view file) -> const std::string* {
    const auto found = sources->find(file);
    return found == sources->end() ? nullptr : found->second;
  };
}

}  // namespace opmfu::lint
