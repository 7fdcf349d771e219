#pragma once
// Known launchers: training frameworks whose profiler call lives in an installed package
// (MindSpeed-LLM, MindSpeed, verl), described as data (rules/launchers/*.yaml, plus files named
// in `.opmfu.yaml`): which script or module starts them, which options they take, and how those
// options become torch_npu profiler settings, including what the package hard-codes. A launch of
// one of them is checked like a `profile(...)` call, without the package being installed.
// The format is documented in docs/launchers.md.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/file_reader.h"
#include "common/result.h"
#include "linter/bash_launcher.h"
#include "python/module.h"

namespace opmfu::linter {

struct ProfilerCallSite;

/// A user-facing option: a flag (`--profile-level`), a Hydra key (`*.profiler.tool_config.npu.level`,
/// where `*` stands for any prefix: one site per prefix), or a key of a YAML config file.
struct KnownOption {
  enum class Type { kString, kBool, kList };
  std::string id;    ///< how settings refer to it
  std::string name;  ///< as the user writes it
  Type type = Type::kString;
  std::optional<std::vector<std::string>> choices;
  std::vector<std::string> default_value;  ///< one word for strings ("" for none), the items of a list
  bool default_bool = false;
};

/// How the package computes one torch_npu setting from the options.
struct KnownSettingRule {
  enum class Kind { kFixed, kOption, kContains, kItems };
  struct Item {
    std::string value;        ///< a ProfilerActivity name
    std::string if_option;    ///< added when this bool option is set
    std::string if_contains;  ///< ... or when this list option holds `contains_item`
    std::string contains_item;
  };
  Kind kind = Kind::kFixed;
  python::Value fixed;                     ///< kFixed
  std::string option;                      ///< kOption, kContains
  std::map<std::string, std::string> map;  ///< kOption: option value -> setting value
  std::string contains_item;               ///< kContains
  std::vector<Item> items;                 ///< kItems
  std::string remedy;
};

struct KnownLauncher {
  /// flags: `--opt value`; hydra: `key=value` overrides; yaml_config: keys of the YAML file the
  /// launch passes (its first `*.yaml`/`*.yml` argument), dotted (`training.profile_level`).
  enum class Style { kFlags, kHydra, kYamlConfig };
  std::string name;                  ///< "MindSpeed-LLM"
  std::string source;                ///< where the package builds its profiler
  std::string file;                  ///< the description's file
  std::vector<std::string> scripts;  ///< script file names that start it
  std::vector<std::string> modules;  ///< `python -m` modules that start it
  std::vector<std::string> imports;  ///< a found script must import one of these to match
  Style style = Style::kFlags;
  /// The options that turn profiling on, any of them (none when only a variable does).
  std::vector<std::string> enabled_by;
  /// Environment variables that turn profiling on when the launch exports one (a server's
  /// `VLLM_TORCH_PROFILER_DIR`), besides `enabled_by`.
  std::vector<std::string> enabled_by_env;
  /// A launch that shows it runs on another platform, to which the description does not apply (a
  /// server whose Ascend build profiles differently from its CUDA one): it exports one of
  /// `other_platform_env` (`CUDA_VISIBLE_DEVICES`), or gives `platform_option` a value other than
  /// `platform_value` (`--device cuda`).
  std::vector<std::string> other_platform_env;
  std::string platform_option;
  std::string platform_value;
  bool platform_required = false;  ///< a launch that does not give `platform_option` is another one too
  /// A project that declares an entry point of this group (`vllm.platform_plugins`) in the
  /// pyproject.toml, setup.py or setup.cfg nearest above the launcher brings its own platform, and
  /// with it its own worker and profiler (linted where its code is), unless the project is
  /// `platform_package` itself (its directory beside that file): the description does not apply.
  std::string platform_plugin_group;
  std::string platform_package;
  std::string enabled_value;    ///< for a string option: the value that does (empty: any non-empty)
  std::string role_enabled_by;  ///< Hydra: a per-role bool option (`*.profiler.enable`) a role needs
  /// Hydra roles whose profiler the package hands to another program (verl's vLLM/SGLang
  /// rollout), with the reason: their settings cannot be known from this description.
  std::map<std::string, std::string> roles_outside;
  /// Variables the package refuses while its profiling is on, each with what it then does
  /// (vllm-ascend raises RuntimeError for MSMONITOR_USE_DAEMON=1 beside its torch profiler).
  std::map<std::string, std::string> refused_env;
  std::vector<KnownOption> options;
  std::map<std::string, KnownSettingRule> settings;  ///< by torch_npu setting name
  std::string no_switch;                             ///< what to do about a hard-coded setting

  const KnownOption* Option(std::string_view id) const;
};

/// Reads one description (a YAML document); errors name `file` and the line.
Result<KnownLauncher> ParseKnownLauncher(std::string_view yaml, const std::string& file);

/// The launcher a launch starts: by script file name or `-m` module; when the script can be read
/// (`script_source`, called only for a launch whose name matches), it must also import one of
/// the launcher's `imports`, if any.
const KnownLauncher* MatchKnownLauncher(const std::vector<const KnownLauncher*>& launchers, const Launch& launch,
                                        const std::function<std::optional<std::string>()>& script_source);

/// A value a launch passes outside an option's choices (the package's argparse exits).
struct KnownChoiceViolation {
  ShellWord word;
  std::string written;  ///< "--profile-level Level1", "x.npu.level=Level1"
  std::vector<std::string> choices;
};

/// What one launch of a known launcher configures: a site per profiled role (one for flags),
/// or none when it does not turn profiling on.
/// A variable a profiled launch sets that the package refuses (`refused_env`), with a value that
/// turns it on (a non-zero int, as the package reads it).
struct KnownRefusedVariable {
  std::string name;
  ShellWord value;
  std::string why;
};

struct KnownLaunchFacts {
  bool profiling_enabled = false;
  std::vector<KnownRefusedVariable> refused;
  std::vector<ProfilerCallSite> sites;
  std::vector<KnownChoiceViolation> choice_violations;
};

/// What a launch of `launcher` sets: its flags, or the YAML config it names (read through `files`).
KnownLaunchFacts ReadKnownLaunch(const KnownLauncher& launcher, const Launch& launch, const FileReader& files);

}  // namespace opmfu::linter
