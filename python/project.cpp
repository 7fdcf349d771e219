#include "python/project.h"

#include <algorithm>
#include <deque>
#include <set>
#include <utility>

#include "common/text.h"

namespace opmfu::python {

namespace fs = std::filesystem;

namespace {

bool Below(const fs::path& path, const fs::path& root) {
  const fs::path relative = path.lexically_relative(root);
  return !relative.empty() && *relative.begin() != "..";
}

}  // namespace

ModuleLocator::ModuleLocator(std::vector<fs::path> search, fs::path root, const FileReader& files, ModuleCache* cache)
    : search_(std::move(search)), root_(std::move(root)), files_(&files), cache_(cache) {
  if (cache_ != nullptr) {
    for (const fs::path& directory : search_) cache_key_ += directory.string() + '\0';
    cache_key_ += root_.string() + '\0';
  }
}

bool ModuleLocator::IsFile(const fs::path& path) const {
  const auto [known, added] = is_file_.try_emplace(path.string(), false);
  if (added) known->second = files_->IsFile(known->first);
  return known->second;
}

std::optional<fs::path> ModuleLocator::Locate(std::string_view name, const fs::path& importer) const {
  if (!name.starts_with('.')) {
    if (auto known = absolute_.find(name); known != absolute_.end()) return known->second;
  }
  // An absolute name leads where it leads for every locator with the same search directories.
  std::string key;
  if (cache_ != nullptr && !name.starts_with('.')) {
    key = cache_key_ + std::string(name);
    if (auto known = cache_->Located(key)) {
      absolute_.emplace(std::string(name), *known);
      return *known;
    }
  }
  std::optional<fs::path> found = LocateUncached(name, importer);
  if (!name.starts_with('.')) absolute_.emplace(std::string(name), found);
  if (!key.empty()) cache_->RememberLocated(key, found);
  return found;
}

std::optional<fs::path> ModuleLocator::LocateUncached(std::string_view name, const fs::path& importer) const {
  std::vector<fs::path> bases;
  std::string_view rest = name;
  if (name.starts_with('.')) {
    // Relative: one dot is the importer's package, each further dot one package up.
    std::size_t level = 0;
    while (level < rest.size() && rest[level] == '.') ++level;
    rest.remove_prefix(level);
    fs::path base = importer.parent_path();
    for (std::size_t i = 1; i < level; ++i) base = base.parent_path();
    bases.push_back(base);
  } else {
    bases = search_;
  }
  if (rest.empty()) return std::nullopt;
  fs::path relative;
  for (const std::string& part : SplitString(rest, '.')) relative /= part;
  for (const fs::path& base : bases) {
    for (const fs::path& candidate : {base / relative += ".py", base / relative / "__init__.py"}) {
      const fs::path normal = candidate.lexically_normal();
      if (Below(normal, root_) && IsFile(normal)) return normal;
    }
  }
  return std::nullopt;
}

namespace {

// The texts of a program's files as read so far: each file is read once (an unreadable one is
// an empty text).
class ReadOnce {
 public:
  explicit ReadOnce(const FileReader& files) : files_(files) {}
  void Know(const fs::path& path, std::string text) { texts_.try_emplace(path.lexically_normal(), std::move(text)); }
  const std::string& Text(const fs::path& path) {
    const auto [known, added] = texts_.try_emplace(path.lexically_normal());
    if (added) {
      auto text = files_.ReadFile(known->first.string());
      if (text.ok()) known->second = std::move(*text);
    }
    return known->second;
  }

 private:
  const FileReader& files_;
  std::map<fs::path, std::string> texts_;
};

std::vector<fs::path> ClosureUncached(const ModuleLocator& locator, ReadOnce& texts, const fs::path& start,
                                      std::size_t limit, int depth) {
  std::vector<fs::path> out;
  std::set<fs::path> seen = {start.lexically_normal()};
  std::deque<std::pair<fs::path, int>> queue = {{start, 0}};
  while (!queue.empty() && out.size() < limit) {
    auto [file, level] = queue.front();
    queue.pop_front();
    if (level >= depth) continue;
    const std::string& text = texts.Text(file);
    const std::shared_ptr<const ModuleCache::Scan> scan =
        locator.cache() != nullptr ? locator.cache()->Scanned(file.lexically_normal().string(), text) : nullptr;
    for (const std::string& name : scan != nullptr ? scan->imports : ScanImports(text)) {
      auto found = locator.Locate(name, file);
      if (!found || !seen.insert(*found).second) continue;
      out.push_back(*found);
      if (out.size() >= limit) break;
      queue.emplace_back(*found, level + 1);
    }
  }
  return out;
}

// A program's files are the same whichever program asks in one run (the run reads each once).
std::vector<fs::path> Closure(const ModuleLocator& locator, ReadOnce& texts, const fs::path& start, std::size_t limit,
                              int depth) {
  if (locator.cache() == nullptr) return ClosureUncached(locator, texts, start, limit, depth);
  const std::string key = locator.cache_key() + start.lexically_normal().string() + '\0' + std::to_string(limit) +
                          '\0' + std::to_string(depth);
  if (auto known = locator.cache()->Closure(key)) return std::move(*known);
  std::vector<fs::path> closure = ClosureUncached(locator, texts, start, limit, depth);
  locator.cache()->RememberClosure(key, closure);
  return closure;
}

}  // namespace

std::vector<fs::path> ImportClosure(const ModuleLocator& locator, const fs::path& start, std::size_t limit, int depth) {
  ReadOnce texts(locator.files());
  return Closure(locator, texts, start, limit, depth);
}

std::vector<SourceFile> ReadProgram(const ModuleLocator& locator, const fs::path& self, const std::string& self_text,
                                    const fs::path& entry) {
  ReadOnce texts(locator.files());
  texts.Know(self, self_text);
  std::vector<fs::path> files = Closure(locator, texts, self, 64, 6);
  if (entry.lexically_normal() != self.lexically_normal()) {
    files.push_back(entry);
    for (fs::path& file : Closure(locator, texts, entry, 64, 6)) files.push_back(std::move(file));
  }
  std::vector<SourceFile> out;
  std::set<fs::path> seen = {self.lexically_normal()};
  for (const fs::path& file : files) {
    fs::path path = file.lexically_normal();
    if (!seen.insert(path).second) continue;
    const std::string& text = texts.Text(path);
    const bool valid =
        locator.cache() != nullptr ? locator.cache()->Scanned(path.string(), text)->valid_utf8 : IsValidUtf8(text);
    out.push_back(SourceFile{std::move(path), valid ? text : std::string()});
  }
  return out;
}

std::shared_ptr<const PythonModule> ModuleCache::Parsed(const std::string& path, const std::string& text,
                                                        const LibraryKnowledge& knowledge) {
  const auto parse = [&]() -> std::shared_ptr<const PythonModule> {
    auto parsed = PythonModule::Parse(path, text, knowledge);
    if (!parsed.ok()) return nullptr;
    return std::make_shared<const PythonModule>(std::move(*parsed));
  };
  std::shared_ptr<Slot> slot;
  {
    const std::lock_guard lock(mutex_);
    auto found = slots_.find({path, &knowledge});
    if (found != slots_.end()) {
      slot = found->second;
    } else if (retained_ + text.size() <= capacity_) {
      retained_ += text.size();
      slot = slots_.emplace(std::pair(path, &knowledge), std::make_shared<Slot>()).first->second;
    }
  }
  if (slot == nullptr) return parse();  // the store is full
  const std::lock_guard lock(slot->parsing);
  if (!slot->parsed) {
    slot->parsed = true;
    slot->module = parse();
  }
  // The same path read with another text (a file fixed in place between two lints of one run):
  // the asker's text is what it traces.
  if (slot->module != nullptr && slot->module->tree().source() != text) return parse();
  return slot->module;
}

std::shared_ptr<const ModuleCache::Scan> ModuleCache::Scanned(const std::string& path, const std::string& text) {
  const std::size_t hash = std::hash<std::string>{}(text);
  {
    const std::lock_guard lock(mutex_);
    if (auto known = scans_.find(path);
        known != scans_.end() && known->second.size == text.size() && known->second.hash == hash) {
      return known->second.scan;
    }
  }
  auto scan = std::make_shared<Scan>();
  scan->valid_utf8 = IsValidUtf8(text);
  scan->imports = ScanImports(text);
  const std::lock_guard lock(mutex_);
  scans_.insert_or_assign(path, ScanSlot{text.size(), hash, scan});
  return scan;
}

std::optional<std::optional<fs::path>> ModuleCache::Located(const std::string& key) const {
  const std::lock_guard lock(mutex_);
  if (auto known = located_.find(key); known != located_.end()) return known->second;
  return std::nullopt;
}

void ModuleCache::RememberLocated(const std::string& key, std::optional<fs::path> found) {
  const std::lock_guard lock(mutex_);
  located_.try_emplace(key, std::move(found));
}

std::optional<std::vector<fs::path>> ModuleCache::Closure(const std::string& key) const {
  const std::lock_guard lock(mutex_);
  if (auto known = closures_.find(key); known != closures_.end()) return known->second;
  return std::nullopt;
}

void ModuleCache::RememberClosure(const std::string& key, std::vector<fs::path> closure) {
  const std::lock_guard lock(mutex_);
  closures_.try_emplace(key, std::move(closure));
}

ModuleSet::ModuleSet(ModuleLocator locator, fs::path self, std::vector<SourceFile> files,
                     const LibraryKnowledge& knowledge)
    : locator_(std::move(locator)), self_(self.lexically_normal()), knowledge_(&knowledge) {
  for (SourceFile& file : files) {
    auto entry = std::make_unique<Entry>();
    entry->path = file.path.lexically_normal();
    if (by_path_.contains(entry->path.string())) continue;
    entry->text = std::move(file.text);
    by_path_[entry->path.string()] = entry.get();
    entries_.push_back(std::move(entry));
  }
}

const PythonModule* ModuleSet::Load(Entry& entry) const {
  if (entry.parsed) return entry.module.get();
  entry.parsed = true;
  if (entry.text.empty()) return nullptr;
  if (ModuleCache* cache = locator_.cache()) {
    entry.module = cache->Parsed(entry.path.string(), entry.text, *knowledge_);
  } else if (auto parsed = PythonModule::Parse(entry.path.string(), entry.text, *knowledge_); parsed.ok()) {
    entry.module = std::make_shared<const PythonModule>(std::move(*parsed));
  }
  return entry.module.get();
}

const PythonModule* ModuleSet::Find(std::string_view name, const fs::path& importer, std::string_view mentions) const {
  auto path = locator_.Locate(name, importer);
  if (!path) return nullptr;
  auto found = by_path_.find(path->string());
  if (found == by_path_.end()) return nullptr;  // beyond the closure's bounds
  if (!mentions.empty() && found->second->text.find(mentions) == std::string::npos) return nullptr;
  return Load(*found->second);
}

const std::vector<ModuleSet::Entry*>& ModuleSet::EntriesContaining(std::string_view needle) const {
  if (auto known = containing_.find(needle); known != containing_.end()) return known->second;
  std::vector<Entry*> with;
  for (const auto& entry : entries_) {
    if (entry->text.find(needle) != std::string::npos) with.push_back(entry.get());
  }
  return containing_.emplace(std::string(needle), std::move(with)).first->second;
}

bool ModuleSet::AnyImports(std::string_view name) const {
  for (const Entry* entry : EntriesContaining(LastComponent(name))) {
    if (ImportsModule(ScanImports(entry->text), name)) return true;
  }
  return false;
}

bool ModuleSet::IsFileOf(const fs::path& located, const PythonModule& module) const {
  const auto entry = by_path_.find(module.path());
  const bool in_set = entry != by_path_.end() && entry->second->module.get() == &module;
  return located.lexically_normal() == (in_set ? entry->second->path : self_);
}

std::vector<const PythonModule*> ModuleSet::Containing(std::string_view needle, const PythonModule* except) const {
  return Containing(needle, {}, except);
}

std::vector<const PythonModule*> ModuleSet::Containing(std::string_view needle,
                                                       std::initializer_list<std::string_view> any_of,
                                                       const PythonModule* except) const {
  std::vector<const PythonModule*> out;
  const fs::path except_path = except != nullptr ? fs::path(except->path()).lexically_normal() : fs::path();
  for (Entry* entry : EntriesContaining(needle)) {
    if (except != nullptr && entry->path == except_path) continue;
    const std::string& text = entry->text;
    if (any_of.size() > 0 && std::none_of(any_of.begin(), any_of.end(), [&](std::string_view also) {
          return text.find(also) != std::string::npos;
        })) {
      continue;
    }
    if (const PythonModule* module = Load(*entry)) out.push_back(module);
  }
  return out;
}

}  // namespace opmfu::python
