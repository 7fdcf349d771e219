#include "rules/lint_checks.h"

namespace opmfu::rules {

void CheckProfilerLevel(LintCheckContext& context) {
  for (const linter::ProfilerCallSite& site : context.facts.sites) {
    if (site.api != linter::ProfilerApi::kTorchNpuProfile) continue;
    bool every_path = false;
    Diagnostic* found = ReportBadValues(
        context, site.profiler_level,
        [](const python::Value& v) {
          if (v.kind != python::ValueKind::kString && v.kind != python::ValueKind::kEnum) return Verdict::kSkip;
          if (v.text == "Level1" || v.text == "Level2") return Verdict::kGood;
          if (v.text == "Level0" || v.text == "Level_none") return Verdict::kBad;
          return Verdict::kSkip;  // not a level at all: reset to Level0, reported by OPM109
        },
        [](const python::Value& v) {
          const std::string level = v.kind == python::ValueKind::kEnum ? "ProfilerLevel." + v.text : v.Describe();
          return "`profiler_level` is " + level +
                 (v.text == "Level_none" ? ", which collects no kernels"
                                         : ", below Level1: kernel shapes and op "
                                           "links msprof-analyze needs are missing");
        },
        "pass `profiler_level=torch_npu.profiler.ProfilerLevel.Level1` (or Level2) to _ExperimentalConfig",
        &every_path);
    if (found != nullptr && every_path) {
      if (auto rewritten = LauncherOptionFix(*found, site.profiler_level, "Level1")) {
        found->fix = std::move(rewritten);  // `--profile-level level0` in a known launcher: level1 there
        continue;
      }
      if (auto rewritten = LauncherKeyFix(site.profiler_level, [](const python::Value& v) {
            return (v.kind == python::ValueKind::kEnum || v.kind == python::ValueKind::kString) && v.text == "Level1";
          })) {
        found->fix = std::move(rewritten);  // LEVELS[args.level] with `--level level0` from a launcher
        continue;
      }
      if (auto added = AddExperimentalConfigFix(context, site)) {
        found->fix = std::move(added);
        continue;
      }
    }
    // Not given in an _ExperimentalConfig(...) that exists: add it, named through the file's imports.
    if (found != nullptr && every_path && !site.profiler_level.written && IsType(site.profiler_level.call, "call") &&
        !ts_node_eq(site.profiler_level.call, site.call)) {
      if (auto level = SpelledInFile(context, "torch_npu.profiler.ProfilerLevel.Level1")) {
        found->fix = SetSettingFix(context, site.profiler_level, *level);
      }
    }
    if (found != nullptr && every_path && site.profiler_level.written) {
      const python::Value& value = site.profiler_level.values.front();
      if (value.kind == python::ValueKind::kString && IsType(value.node, "string")) {
        const char quote = context.module().tree().Text(value.node).back();
        found->fix = SetSettingFix(context, site.profiler_level, std::string(1, quote) + "Level1" + quote);
      } else if (const python::Value* literal = EditableLiteral(context, site.profiler_level);
                 literal != nullptr && literal->kind == python::ValueKind::kEnum) {
        // `ProfilerLevel.Level0` written here: Level1, spelled as the member is.
        if (auto level = SpelledLike(context, literal->node, "Level1")) {
          found->fix = ReplaceLiteralFix(context, literal->node, *level);
        }
      }
    }
  }
}

}  // namespace opmfu::rules
