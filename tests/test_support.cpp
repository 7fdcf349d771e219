#include "tests/test_support.h"

#include "common/parse_allocator.h"
#include "common/sqlite.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fcntl.h>
#include <linux/fs.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace opmfu::testing {

namespace fs = std::filesystem;

// The tests parse with the allocator the binary uses; it must be in place before any parse.
[[maybe_unused]] const bool kParseAllocatorInstalled = (InstallParseAllocator(), true);

fs::path SourceDir() { return OPMFU_SOURCE_DIR; }

TempDir::TempDir() {
  std::random_device entropy;
  path_ = fs::temp_directory_path() / ("opmfu-test-" + std::to_string(entropy()) + std::to_string(entropy()));
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  // Tests may leave read-only directories behind; make them writable so removal succeeds.
  for (auto it = fs::recursive_directory_iterator(path_, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
  }
  fs::remove_all(path_, ec);
}

fs::path TempDir::Write(const std::string& relative, const std::string& content) const {
  const fs::path target = path_ / relative;
  fs::create_directories(target.parent_path());
  std::ofstream out(target, std::ios::binary);
  out << content;
  return target;
}

ImmutableDirectory::ImmutableDirectory(const fs::path& path)
    : fd_(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
  int flags = 0;
  if (fd_ >= 0 && ::ioctl(fd_, FS_IOC_GETFLAGS, &flags) == 0) {
    flags |= FS_IMMUTABLE_FL;
    set_ = ::ioctl(fd_, FS_IOC_SETFLAGS, &flags) == 0;
  }
}

ImmutableDirectory::~ImmutableDirectory() {
  int flags = 0;
  if (set_ && ::ioctl(fd_, FS_IOC_GETFLAGS, &flags) == 0) {
    flags &= ~FS_IMMUTABLE_FL;
    (void)::ioctl(fd_, FS_IOC_SETFLAGS, &flags);
  }
  if (fd_ >= 0) ::close(fd_);
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

RunResult RunOpmfu(const std::vector<std::string>& args, const fs::path& cwd,
                   const std::map<std::string, std::string>& env, const fs::path& stdin_path) {
  RunOptions options;
  options.cwd = cwd;
  options.env = env;
  options.stdin_path = stdin_path;
  return RunOpmfuWith(args, options);
}

bool CanDropRoot() { return ::geteuid() == 0 && ::access("/usr/bin/setpriv", X_OK) == 0; }

RunResult RunOpmfuWith(const std::vector<std::string>& args, const RunOptions& options) {
  const fs::path& cwd = options.cwd;
  const auto& env = options.env;
  const fs::path& stdin_path = options.stdin_path;
  TempDir scratch;
  const fs::path out_path = scratch.path() / "stdout";
  const fs::path err_path = scratch.path() / "stderr";

  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    if (text.rfind("OPMFU_", 0) == 0 || text.rfind("NO_COLOR=", 0) == 0) continue;
    // A variable the test sets replaces the inherited one (getenv would find the first of two).
    if (env.count(text.substr(0, text.find('='))) > 0) continue;
    environment.push_back(text);
  }
  for (const auto& [key, value] : env) environment.push_back(key + "=" + value);
  std::vector<char*> envp;
  for (std::string& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);

  const std::string program = options.program.empty() ? std::string(OPMFU_BINARY) : options.program.string();
  std::vector<std::string> argv_storage = {program};
  if (options.unprivileged && ::geteuid() == 0) {
    argv_storage = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", program};
  }
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : argv_storage) argv.push_back(arg.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string input = stdin_path.empty() ? std::string("/dev/null") : stdin_path.string();
  posix_spawn_file_actions_addopen(&actions, 0, input.c_str(), O_RDONLY, 0);
  if (options.stdout_path.empty()) {
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  } else {
    posix_spawn_file_actions_addopen(&actions, 1, options.stdout_path.c_str(), O_WRONLY, 0);
  }
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const fs::path directory = cwd.empty() ? SourceDir() : cwd;
  posix_spawn_file_actions_addchdir_np(&actions, directory.c_str());
  pid_t pid = 0;
  // The child inherits resource limits: set the file-size limit around the spawn only.
  rlimit saved{};
  getrlimit(RLIMIT_FSIZE, &saved);
  if (options.file_size_limit) {
    rlimit limited = saved;
    limited.rlim_cur = static_cast<rlim_t>(*options.file_size_limit);
    setrlimit(RLIMIT_FSIZE, &limited);
  }
  rlimit saved_address_space{};
  getrlimit(RLIMIT_AS, &saved_address_space);
  // An ASan binary reserves terabytes of address space for its shadow memory: no cap there.
#if defined(OPMFU_TESTED_BINARY_IS_SANITIZED)
  const bool limit_address_space = false;
#else
  const bool limit_address_space = options.address_space_limit.has_value();
#endif
  if (limit_address_space) {
    rlimit limited = saved_address_space;
    limited.rlim_cur = static_cast<rlim_t>(*options.address_space_limit);
    setrlimit(RLIMIT_AS, &limited);
  }
  const auto start = std::chrono::steady_clock::now();
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  if (limit_address_space) setrlimit(RLIMIT_AS, &saved_address_space);
  if (options.file_size_limit) setrlimit(RLIMIT_FSIZE, &saved);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot run " + argv_storage[0]);

  RunResult result;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() - start > options.timeout) {
      kill(pid, options.stop_signal);
      waitpid(pid, &status, 0);
      result.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = options.stdout_path.empty() ? ReadFile(out_path) : std::string();
  result.err = ReadFile(err_path);
  return result;
}

std::vector<std::string> TableRows(const std::filesystem::path& db_path, const std::string& table) {
  std::vector<std::string> rows;
  auto db = Database::OpenReadOnly(db_path);
  EXPECT_TRUE(db.ok()) << db.error().message;
  if (!db.ok()) return rows;
  auto schema = db->Prepare("SELECT sql FROM sqlite_master WHERE name = '" + table + "'");
  EXPECT_TRUE(schema.ok());
  if (*schema->Step()) rows.emplace_back(schema->Text(0));
  auto columns = db->Prepare("SELECT * FROM \"" + table + "\" LIMIT 0");
  if (!columns.ok()) return rows;
  std::string select;
  for (int i = 0; i < columns->ColumnCount(); ++i) {
    select += std::string(select.empty() ? "" : " || '|' || ") + "quote(\"" +
              sqlite3_column_name(columns->handle(), i) + "\")";
  }
  auto statement = db->Prepare("SELECT " + select + " FROM \"" + table + "\" ORDER BY rowid");
  EXPECT_TRUE(statement.ok());
  while (*statement->Step()) rows.emplace_back(statement->Text(0));
  return rows;
}

}  // namespace opmfu::testing
