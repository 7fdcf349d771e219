#pragma once
// Suppression comments: read while a file's tree exists, applied to its findings at the end.

#include <string>
#include <vector>

#include "common/diagnostic.h"
#include "common/tree_sitter.h"
#include "lint/stage.h"
#include "linter/suppressions.h"

namespace opmfu::lint {

/// The suppression comments among `comments`, with rule names resolved to ids.
linter::Suppressions ReadFileSuppressions(const SyntaxTree& tree, const std::vector<TSNode>& comments);

/// Applies a file's suppression comments to its findings, then runs the meta rules about them
/// (OPM002 malformed, OPM003 unused); the findings come back sorted.
void Suppress(linter::Suppressions& suppressions, const std::string& path, const Effective& effective,
              std::vector<Diagnostic>& diagnostics);

}  // namespace opmfu::lint
