#pragma once
// docs/schema/*.json compiled into the binary: each tool's outputSchema.

#include <vector>

#include "common/embedded_file.h"

namespace opmfu::mcp {

const std::vector<EmbeddedFile>& EmbeddedSchemas();

}  // namespace opmfu::mcp
