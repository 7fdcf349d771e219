#pragma once
// What the `opmfu registry` subcommands share: where the formulas file is, and the subcommands
// that have a file of their own.

#include <CLI/CLI.hpp>

#include <string>

#include "cli/cli_support.h"
#include "registry/locate.h"

namespace opmfu::cli {

/// --formulas / --python, then $OPMFU_FORMULAS / $OPMFU_PYTHON: where the formulas file is.
struct LocateFlags {
  std::string formulas;
  std::string python;

  void Add(CLI::App& command);
  Result<registry::LocatedFormulas> Locate() const;
};

/// The flags (empty: not given) over $OPMFU_FORMULAS / $OPMFU_PYTHON: how `registry` and `flops`
/// look for the formulas file.
registry::LocateOptions LocateOptionsOf(const std::string& formulas, const std::string& python);

/// Adds `opmfu registry check` to `registry`.
void AddRegistryCheckCommand(CLI::App& registry, Action& action);
/// Adds `opmfu registry add` to `registry`.
void AddRegistryAddCommand(CLI::App& registry, Action& action);

}  // namespace opmfu::cli
