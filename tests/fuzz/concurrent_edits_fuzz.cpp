// Edits under concurrency (issue 47): `lint --fix`, `registry check --fix` and `registry add
// --write` all end in ReplaceFileIfUnchanged. The input is a starting text and a schedule of
// edits, each by one of up to four threads: read the file, insert a text at an offset, replace.
// The threads commit at once, unordered by the harness (the file lock is what orders them).
// Whatever the interleaving, an edit reported as written is never lost: the successful edits form
// one chain (each one's original is the text exactly one other wrote, the first one's is the
// starting text) ending in what the file holds; a refused edit wrote nothing. Texts only grow, so
// the chain is found by following originals; two successes from one original are a lost update.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/file_io.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

struct Commit {
  std::string original;
  std::string edited;
};

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  // Byte 0: threads (1-4); byte 1: edits per thread (1-8); then the starting text up to a NUL,
  // then each edit's insertion offset and text taken in turn from the rest.
  const std::size_t threads = 1 + data[0] % 4;
  const std::size_t edits = 1 + data[1] % 8;
  const std::string rest = opmfu::fuzz::AsText(data + 2, size - 2);
  const std::size_t split = rest.find('\0');
  const std::string start = rest.substr(0, split);
  const std::string inserts = split == std::string::npos ? std::string("x") : rest.substr(split + 1);

  const std::filesystem::path file = opmfu::fuzz::ScratchDirectory() / "edited.py";
  std::ofstream(file, std::ios::binary | std::ios::trunc) << start;

  std::mutex mutex;
  std::vector<Commit> commits;  // the successful edits, in no particular order
  std::vector<std::thread> workers;
  for (std::size_t t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (std::size_t e = 0; e < edits; ++e) {
        const std::string original = ReadAll(file);
        const std::size_t at =
            inserts.empty() ? 0 : static_cast<unsigned char>(inserts[(t * edits + e) % inserts.size()]);
        // A text no other edit inserts, so each commit can be told apart.
        const std::string mark = "#" + std::to_string(t) + "." + std::to_string(e) + "\n";
        std::string edited = original;
        edited.insert(std::min(at, edited.size()), mark);
        if (!opmfu::ReplaceFileIfUnchanged(file, original, edited).ok()) continue;
        const std::lock_guard keep(mutex);
        commits.push_back({original, edited});
      }
    });
  }
  for (std::thread& worker : workers) worker.join();

  std::multimap<std::string, const Commit*> by_original;
  for (const Commit& commit : commits) by_original.emplace(commit.original, &commit);
  std::string expected = start;
  for (std::size_t followed = 0; followed < commits.size(); ++followed) {
    if (by_original.count(expected) != 1) std::abort();  // two edits of one text both written, or a gap
    expected = by_original.find(expected)->second->edited;
  }
  if (ReadAll(file) != expected) std::abort();  // a reported edit was lost, or a refused one wrote
  return 0;
}
