#pragma once
// The other Python files of a program: where `import pkg.mod` and `from .mod import f` lead
// (below the script's directory and the project root), read from the text before any parsing so
// a lint run knows which modules a launched script pulls in; and, for one linted file, the
// modules value tracing may follow (a `get_args()` defined elsewhere, `add_argument` calls in a
// helper module, the caller that passes a function its argument). Nothing is imported or run.

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/file_reader.h"
#include "python/module.h"

namespace opmfu::python {

/// What a run knows of its modules, shared by every program that imports them: their parses (a
/// module's index does not depend on the program or the launch, python/module.h), their import
/// scans and where import names lead. A module imported by every program of a tree of launchers
/// is parsed, scanned and located once per run, not once per program. Safe to use from several
/// threads; a module asked for by two at once is parsed once. Holds at most
/// `retained_source_bytes` of parsed source (with their trees, which take tens of times as
/// much); beyond that a module is parsed for its asker alone.
class ModuleCache {
 public:
  explicit ModuleCache(std::size_t retained_source_bytes = kDefaultRetainedSourceBytes)
      : capacity_(retained_source_bytes) {}
  ModuleCache(const ModuleCache&) = delete;
  ModuleCache& operator=(const ModuleCache&) = delete;

  /// The module of `path` with this text, parsed with `knowledge` (which must outlive the store);
  /// null when it does not parse.
  std::shared_ptr<const PythonModule> Parsed(const std::string& path, const std::string& text,
                                             const LibraryKnowledge& knowledge);

  /// A text's imports (ScanImports) and whether it is valid UTF-8, once per path and text.
  struct Scan {
    std::vector<std::string> imports;
    bool valid_utf8 = false;
  };
  std::shared_ptr<const Scan> Scanned(const std::string& path, const std::string& text);

  /// Where an absolute import name leads, by a key naming the search directories, the root and
  /// the name (ModuleLocator's): nullopt when not asked before.
  std::optional<std::optional<std::filesystem::path>> Located(const std::string& key) const;
  void RememberLocated(const std::string& key, std::optional<std::filesystem::path> found);

  /// A file's import closure (ImportClosure), by a key naming the locator, the file and the
  /// bounds: nullopt when not asked before.
  std::optional<std::vector<std::filesystem::path>> Closure(const std::string& key) const;
  void RememberClosure(const std::string& key, std::vector<std::filesystem::path> closure);

  static constexpr std::size_t kDefaultRetainedSourceBytes = std::size_t{16} << 20;

 private:
  struct Slot {
    std::mutex parsing;
    bool parsed = false;
    std::shared_ptr<const PythonModule> module;
  };
  struct ScanSlot {
    std::size_t size = 0;
    std::size_t hash = 0;
    std::shared_ptr<const Scan> scan;
  };
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, const LibraryKnowledge*>, std::shared_ptr<Slot>> slots_;
  std::map<std::string, ScanSlot, std::less<>> scans_;
  std::map<std::string, std::optional<std::filesystem::path>, std::less<>> located_;
  std::map<std::string, std::vector<std::filesystem::path>, std::less<>> closures_;
  std::size_t capacity_;
  std::size_t retained_ = 0;
};

/// Finds the file of a dotted module name below the search directories, asking `files` whether a
/// candidate exists (a stat, never a read). Each answer is kept, so a name asked again while tracing
/// (the closure asked it first) touches nothing; a locator is therefore used by one thread at a time.
class ModuleLocator {
 public:
  /// `search`: the directories a top-level import is looked up in, first match wins (the
  /// script's directory, then the root). Files outside `root` are never returned. `files` must
  /// outlive the locator.
  /// `cache`: the run's (null: none), shared by the run's locators; it must outlive the locator.
  ModuleLocator(std::vector<std::filesystem::path> search, std::filesystem::path root,
                const FileReader& files = DiskFiles(), ModuleCache* cache = nullptr);

  /// The file `name` refers to, imported from `importer` (for relative names): `<dir>/a/b.py` or
  /// `<dir>/a/b/__init__.py`; nullopt when it is not a file below the root.
  std::optional<std::filesystem::path> Locate(std::string_view name, const std::filesystem::path& importer) const;

  const std::filesystem::path& root() const { return root_; }
  /// Where the located files are read.
  const FileReader& files() const { return *files_; }
  /// The run's cache of module facts, or null.
  ModuleCache* cache() const { return cache_; }
  /// What names this locator's search in the cache's keys (the search directories and the root).
  const std::string& cache_key() const { return cache_key_; }

 private:
  bool IsFile(const std::filesystem::path& path) const;
  std::optional<std::filesystem::path> LocateUncached(std::string_view name,
                                                      const std::filesystem::path& importer) const;

  std::vector<std::filesystem::path> search_;
  std::filesystem::path root_;
  const FileReader* files_;
  ModuleCache* cache_;
  std::string cache_key_;  ///< the search directories and the root, for the cache's locations
  mutable std::map<std::string, bool> is_file_;
  /// Absolute names found so far: a program's files import the same few modules again and again,
  /// and an absolute name does not depend on who imports it.
  mutable std::map<std::string, std::optional<std::filesystem::path>, std::less<>> absolute_;
};

/// The files a file imports, transitively, below the root: at most `limit` files, `depth` levels
/// (each file read once, through the locator's FileReader).
std::vector<std::filesystem::path> ImportClosure(const ModuleLocator& locator, const std::filesystem::path& start,
                                                 std::size_t limit = 64, int depth = 6);

/// One file of a program, read before any tracing starts. An empty text: unreadable or not
/// UTF-8 (never parsed).
struct SourceFile {
  std::filesystem::path path;
  std::string text;
};

/// The program one linted file's tracing may follow, read at once before tracing starts (through
/// the locator's FileReader, each file once): the files `self` imports (ImportClosure; `self_text`
/// is its text, not read again), and when `entry` (the script that runs it) is another file, that
/// script and its imports; `self` itself left out, each file once, in that order.
std::vector<SourceFile> ReadProgram(const ModuleLocator& locator, const std::filesystem::path& self,
                                    const std::string& self_text, const std::filesystem::path& entry);

/// The modules one linted file's tracing may follow: an index of texts read beforehand
/// (ReadProgram), parsed on first use. Tracing never reads a file: every text it can reach is in
/// the set. Owned by one lint of one file (not shared between threads); a Tracer reads it.
class ModuleSet {
 public:
  /// `self`: the linted file's canonical path (the module the set's modules are imported into).
  /// Its modules are parsed with `knowledge`, which must outlive the set.
  /// Modules are parsed through the locator's cache, when it has one.
  ModuleSet(ModuleLocator locator, std::filesystem::path self, std::vector<SourceFile> files,
            const LibraryKnowledge& knowledge = LibraryKnowledge::None());

  /// The module an import name refers to, seen from `importer`; nullptr outside the root or
  /// when it does not parse.
  /// With `mentions`, a module whose text does not contain it is not parsed (nullptr).
  const PythonModule* Find(std::string_view name, const std::filesystem::path& importer,
                           std::string_view mentions = {}) const;
  /// The modules among the set's files whose text contains `needle` (a cheap filter before
  /// parsing), other than `except`.
  std::vector<const PythonModule*> Containing(std::string_view needle, const PythonModule* except) const;
  /// The same, for a text that contains `needle` and one of `any_of`.
  std::vector<const PythonModule*> Containing(std::string_view needle, std::initializer_list<std::string_view> any_of,
                                              const PythonModule* except) const;
  /// Whether one of the set's files imports a module named `name` or one below it
  /// (`import torch_npu.contrib.transfer_to_npu`, `from torch_npu.contrib import transfer_to_npu`);
  /// read from the text, nothing parsed.
  bool AnyImports(std::string_view name) const;
  /// Whether `located` (a path from the locator) is the file of `module`: one of the set's, or
  /// the linted file. Answered from the paths the set holds, without asking the file system.
  bool IsFileOf(const std::filesystem::path& located, const PythonModule& module) const;
  const ModuleLocator& locator() const { return locator_; }

 private:
  struct Entry {
    std::filesystem::path path;
    std::string text;
    bool parsed = false;
    std::shared_ptr<const PythonModule> module;
  };
  const PythonModule* Load(Entry& entry) const;
  /// The entries whose text contains `needle`, each text searched once per needle: a program's
  /// tracing asks for the same few needles (`add_argument`, a function's name) again and again.
  const std::vector<Entry*>& EntriesContaining(std::string_view needle) const;

  ModuleLocator locator_;
  std::filesystem::path self_;
  const LibraryKnowledge* knowledge_;
  std::vector<std::unique_ptr<Entry>> entries_;
  std::map<std::string, Entry*> by_path_;
  mutable std::map<std::string, std::vector<Entry*>, std::less<>> containing_;
};

}  // namespace opmfu::python
