#pragma once
// Where `opmfu demo` may write: a new or empty directory, or exactly an earlier demo. The demo's
// marker file lists every file it wrote with its size and a hash of its bytes, so a marker copied
// into another tree, a file added beside the demo or an edited example all make it refuse.

#include <filesystem>

#include "common/result.h"

namespace opmfu::engine {

/// The marker file, at the top of a demo directory.
inline constexpr const char* kDemoMarker = ".opmfu-demo";

/// Makes `directory` ready for a demo: creates it when missing; when it holds an earlier demo
/// whose files are all as that demo wrote them, removes them (and the folders they leave empty).
/// Anything else (a file the marker does not list or lists with other bytes, a symlink, an old
/// marker without a list) is an input error naming the first such file, and nothing is removed.
/// An analysis written inside it (`cluster_analysis_output/`) is left alone.
Status PrepareDemoDirectory(const std::filesystem::path& directory);

/// Writes the marker listing every file now below `directory` (after the demo wrote them).
Status RecordDemoDirectory(const std::filesystem::path& directory);

}  // namespace opmfu::engine
