#pragma once
// The known-launcher descriptions a lint run uses: the built-in ones (rules/launchers/*.yaml,
// compiled in) and those a `.opmfu.yaml` adds with `launchers:`, which are tried first.

#include <filesystem>
#include <map>
#include <vector>

#include "common/file_reader.h"
#include "common/result.h"
#include "linter/known_launchers.h"

namespace opmfu::rules {

/// The built-in descriptions, parsed once.
Result<const std::vector<linter::KnownLauncher>*> BuiltInLaunchers();

/// Loads added descriptions once each and hands out the list for one config.
class KnownLauncherSet {
 public:
  /// Reads the added descriptions through `files` (lint's disk seam).
  explicit KnownLauncherSet(const FileReader& files) : files_(files) {}

  /// The config's files first (in order), then the built-in ones. Fails for a file that cannot be
  /// read or is not a valid description (a usage error, like a bad config).
  Result<std::vector<const linter::KnownLauncher*>> For(const std::vector<std::filesystem::path>& added);

 private:
  const FileReader& files_;
  std::map<std::filesystem::path, linter::KnownLauncher> loaded_;
};

}  // namespace opmfu::rules
