#include "registry/flops_query.h"

#include <cstdlib>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/file_io.h"
#include "common/text.h"

namespace opmfu::registry {

namespace {

using OrderedJson = nlohmann::ordered_json;

// 268435456 -> "268.44 GFLOP": the magnitude a person checks first.
std::string Magnitude(const std::string& decimal) {
  constexpr const char* kUnits[] = {"", "K", "M", "G", "T", "P", "E", "Z", "Y"};
  double value = std::strtod(decimal.c_str(), nullptr);
  std::size_t unit = 0;
  while (value >= 1000 && unit + 1 < std::size(kUnits)) {
    value /= 1000;
    ++unit;
  }
  std::ostringstream out;
  out << std::setprecision(unit == 0 ? 0 : 2) << std::fixed << value << " " << kUnits[unit] << "FLOP";
  if (value >= 1000) {
    out.str("");
    out << std::scientific << std::setprecision(2) << std::strtod(decimal.c_str(), nullptr) << " FLOP";
  }
  return out.str();
}

// Which release's formulas to compute, and how that was decided.
Status ChooseVersion(const FlopsRequest& request, FlopsAnswer& answer) {
  const int sources = static_cast<int>(!request.formulas_version.empty()) +
                      static_cast<int>(!request.formulas.empty()) + static_cast<int>(request.installed);
  if (sources > 1) return Error::Usage("give one of --formulas-version, --formulas and --installed");
  if (request.python_given && !request.installed) return Error::Usage("--python goes with --installed");
  std::string formulas_path = request.formulas;
  if (request.installed) {
    // Found as `registry` commands find it: $OPMFU_FORMULAS, else the sys.path of --python.
    OPMFU_ASSIGN_OR_RETURN(const LocatedFormulas located, LocateFormulas(request.locate));
    formulas_path = located.path.string();
  }
  if (!request.formulas_version.empty()) {
    answer.version = FindFormulasVersion(request.formulas_version);
    if (answer.version == nullptr) {
      std::string known;
      for (const FormulasVersion& v : KnownFormulasVersions())
        known += (known.empty() ? "" : ", ") + std::string(v.name);
      return Error::Usage("--formulas-version: opmfu knows " + known + ", not '" + request.formulas_version + "'");
    }
    answer.version_source = "--formulas-version";
    return Ok();
  }
  if (formulas_path.empty()) {
    answer.version = &NewestFormulasVersion();
    answer.version_source = "the default: the newest release opmfu knows";
    return Ok();
  }
  OPMFU_ASSIGN_OR_RETURN(const std::string source, ReadTextFile(formulas_path));
  const auto recognized = RecognizeFormulasVersion(source);
  if (!recognized) {
    answer.version_warning = formulas_path +
                             ": cannot tell which torch_npu release its built-in formulas are (opmfu reads the file, "
                             "never runs it, and recognizes v26.1.0-beta.2 and v26.1.0); computed with " +
                             std::string(NewestFormulasVersion().name) + ", the newest it knows";
    answer.version = &NewestFormulasVersion();
    answer.version_source = "cannot tell from " + formulas_path;
    return Ok();
  }
  answer.version = FindFormulasVersion(recognized->version.name);
  answer.version_source = "recognized in " + formulas_path + ": " + recognized->evidence;
  return Ok();
}

std::string OutcomeText(const Result<FlopsOutcome>& outcome, std::string_view op_name) {
  if (!outcome.ok()) return "nothing recorded (" + outcome.error().message + ")";
  return outcome->decimal + "-" + std::string(op_name);
}

}  // namespace

Result<FlopsAnswer> AnswerFlops(const FlopsRequest& request) {
  FlopsAnswer answer;
  answer.target = FindBuiltinTarget(request.target);
  if (answer.target == nullptr) {
    std::vector<std::string> names;
    for (const BuiltinTarget& t : BuiltinTargets()) names.emplace_back(t.op_name);
    return Error::Usage("`" + request.target + "` is not a built-in FLOPs target of torch_npu" +
                        DidYouMean(request.target, names) +
                        "; a custom formula's FLOPs are whatever it returns (`opmfu flops --list` lists the built-in "
                        "ones)");
  }
  const BuiltinTarget& target = *answer.target;
  OPMFU_RETURN_IF_ERROR(ChooseVersion(request, answer));
  std::vector<nlohmann::json> positional;
  for (const std::string& value : request.values) positional.push_back(ParseFlopsArgumentValue(value));
  std::vector<std::pair<std::string, nlohmann::json>> named;
  for (const std::string& argument : request.arguments) {
    const std::size_t equals = argument.find('=');
    if (equals == std::string::npos || equals == 0) {
      return Error::Usage("--arg takes NAME=VALUE, got '" + argument + "'");
    }
    named.emplace_back(argument.substr(0, equals), ParseFlopsArgumentValue(argument.substr(equals + 1)));
  }
  OPMFU_ASSIGN_OR_RETURN(answer.bound, BindFlopsArguments(target, positional, named));
  auto flops = EvaluateBuiltinFlops(target, answer.bound.arguments, *answer.version);
  if (!flops.ok()) {
    return Error::Usage(flops.error().message + " [formulas " + std::string(answer.version->name) + "]");
  }
  answer.flops = std::move(*flops);
  if (!answer.bound.not_given.empty()) {
    answer.not_given_note = "not given, as their values do not change the FLOPs: " + Join(answer.bound.not_given, ", ");
  }
  // The same call under the other releases, when they record something else.
  answer.message = answer.flops.decimal + "-" + std::string(target.op_name);
  for (const FormulasVersion& other : KnownFormulasVersions()) {
    if (other.name == answer.version->name) continue;
    std::string text = OutcomeText(EvaluateBuiltinFlops(target, answer.bound.arguments, other), target.op_name);
    if (text != answer.message) answer.others.emplace_back(other.name, std::move(text));
  }
  return answer;
}

std::string RenderBuiltinTargets(bool json) {
  if (json) {
    OrderedJson targets = OrderedJson::array();
    for (const BuiltinTarget& target : BuiltinTargets()) {
      OrderedJson reads = OrderedJson::array();
      for (std::string_view name : target.used) reads.push_back(std::string(name));
      targets.push_back(
          {{"op_name", std::string(target.op_name)}, {"target", std::string(target.target)}, {"reads", reads}});
    }
    OrderedJson versions = OrderedJson::array();
    for (const FormulasVersion& version : KnownFormulasVersions()) {
      versions.push_back({{"name", std::string(version.name)}, {"default", &version == &NewestFormulasVersion()}});
    }
    return OrderedJson{{"targets", targets}, {"formulas_versions", versions}}.dump(2) + "\n";
  }
  std::ostringstream out;
  for (const BuiltinTarget& target : BuiltinTargets()) {
    std::string used;
    for (std::string_view name : target.used) used += (used.empty() ? "" : ", ") + std::string(name);
    out << std::left << std::setw(36) << target.op_name << " " << std::setw(46) << target.target << " reads " << used
        << "\n";
  }
  out << "\nformula versions (--formulas-version):";
  for (const FormulasVersion& version : KnownFormulasVersions()) {
    out << " " << version.name << (&version == &NewestFormulasVersion() ? " (default)" : "");
  }
  out << "\n";
  return out.str();
}

std::string RenderFlopsText(const FlopsAnswer& answer) {
  const BuiltinTarget& target = *answer.target;
  const BoundFlopsCall& bound = answer.bound;
  std::ostringstream out;
  out << answer.flops.decimal << " FLOPs (" << Magnitude(answer.flops.decimal) << ") for " << target.op_name << "(";
  bool first = true;
  for (const BuiltinParameter& parameter : target.parameters) {  // in signature order
    const auto value = bound.arguments.find(std::string(parameter.name));
    if (value == bound.arguments.end()) continue;
    out << (first ? "" : ", ") << parameter.name << "=" << PythonRepr(*value);
    first = false;
  }
  out << ")\nmfu_flops range message: " << answer.message << "\n";
  if (!answer.not_given_note.empty()) out << "note: " << answer.not_given_note << "\n";
  if (!bound.absorbed.empty()) {
    out << "ignored, as torch_npu's formula takes them in **kwargs:";
    for (const auto& [name, value] : bound.absorbed) out << " " << name << "=" << PythonRepr(value);
    out << "\n";
  }
  if (bound.extra_positional > 0) {
    out << "ignored, as torch_npu's formula takes them in *args: " << bound.extra_positional << " positional value"
        << (bound.extra_positional == 1 ? "" : "s") << "\n";
  }
  out << "formulas: torch_npu " << answer.version->name << " (" << answer.version_source << ")\n";
  for (const auto& [name, text] : answer.others) out << "with the " << name << " formulas: " << text << "\n";
  return out.str();
}

std::string RenderFlopsJson(const FlopsAnswer& answer) {
  const BoundFlopsCall& bound = answer.bound;
  OrderedJson out;
  out["target"] = answer.target->target;
  out["op_name"] = answer.target->op_name;
  out["formulas_version"] = answer.version->name;
  out["formulas_version_source"] = answer.version_source;
  out["arguments"] = bound.arguments;
  OrderedJson ignored = OrderedJson::object();
  for (const auto& [name, value] : bound.absorbed) ignored[name] = value;
  out["ignored_keywords"] = ignored;
  out["ignored_positional"] = bound.extra_positional;
  out["not_given"] = bound.not_given;
  // A value past 2^63-1 is text, as torch_npu writes it into the range message.
  if (answer.flops.value) {
    out["flops"] = *answer.flops.value;
  } else {
    out["flops"] = answer.flops.decimal;
  }
  out["message"] = answer.message;
  out["warnings"] = answer.flops.warnings;
  if (!answer.not_given_note.empty()) out["notes"] = OrderedJson::array({answer.not_given_note});
  OrderedJson other_versions = OrderedJson::object();
  for (const auto& [name, text] : answer.others) other_versions[std::string(name)] = text;
  out["other_versions"] = other_versions;
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace opmfu::registry
