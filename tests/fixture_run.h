#pragma once
// Every lint and registry fixture, and one run of opmfu over one of them as `opmfu lint --no-config`
// (or `opmfu check`) would do it from the repository root: the annotation tests, the snapshots and
// the fix round-trips all read the same run.

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "common/diagnostic.h"

namespace opmfu::testing {

enum class FixtureKind {
  kLint,      ///< tests/fixtures/lint/NAME.py: one Python file
  kLaunch,    ///< tests/fixtures/launch/NAME/: a launcher project, linted as a directory
  kRegistry,  ///< tests/fixtures/registry/NAME.py: a _flops_formulas.py file (`opmfu check`)
};

struct Fixture {
  FixtureKind kind = FixtureKind::kLint;
  std::filesystem::path path;  ///< relative to the repository root
  std::string name;            ///< "lint/opm101_false", "launch/env_export", "registry/targets"
};

/// For gtest's messages: the fixture's name.
void PrintTo(const Fixture& fixture, std::ostream* out);

/// Every fixture, in name order.
std::vector<Fixture> AllFixtures();

/// A name gtest accepts ("lint_opm101_false").
std::string TestName(const Fixture& fixture);

struct FixtureFile {
  std::string path;  ///< relative to the root the run was made in
  std::string source;
  bool parsed_cleanly = true;
  std::vector<Diagnostic> diagnostics;  ///< those reported while linting it (`--fix` applies their fixes to it)
};

struct FixtureRun {
  std::vector<Diagnostic> diagnostics;  ///< sorted; paths relative to the run's root
  std::vector<FixtureFile> files;       ///< the files the run read
  std::vector<std::string> errors;      ///< inputs it could not read (none, for a good fixture)
  std::vector<std::string> warnings;    ///< files a launcher names that could not be followed
};

/// Runs opmfu over `fixture.path` below `root` (the repository, or a scratch copy of the
/// fixture's files at the same relative path), from `root` as the working directory.
FixtureRun RunFixture(const Fixture& fixture, const std::filesystem::path& root);

/// The rules that can report on a fixture of `kind` (for the `= docs:` lines and SARIF).
std::vector<RuleDescriptor> FixtureRules(FixtureKind kind);

/// Restores the working directory when it dies.
class WorkingDirectory {
 public:
  explicit WorkingDirectory(const std::filesystem::path& to);
  WorkingDirectory(const WorkingDirectory&) = delete;
  WorkingDirectory& operator=(const WorkingDirectory&) = delete;
  ~WorkingDirectory();

 private:
  std::filesystem::path previous_;
};

}  // namespace opmfu::testing
