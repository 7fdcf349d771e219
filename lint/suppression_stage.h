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

/// Applies a file's suppression comments to its findings, then reports malformed (OPM002) and
/// unused (OPM003) ones; the findings come back sorted.
void Suppress(linter::Suppressions& suppressions, const std::string& path, const Effective& effective,
              std::vector<Diagnostic>& diagnostics);

}  // namespace opmfu::lint
