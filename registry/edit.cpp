#include "registry/edit.h"

#include <algorithm>

#include "common/file_io.h"
#include "common/text.h"

namespace opmfu::registry {

namespace {

Status RequireCleanParse(const FormulaFile& file, std::string_view role) {
  auto error = file.tree.FirstError();
  if (!error) return Ok();
  const SourcePosition position = file.tree.PositionAt(ts_node_start_byte(*error));
  return Error::Input(file.path + ":" + std::to_string(position.line) + ":" + std::to_string(position.column) +
                      ": syntax error; refusing to use " + std::string(role) + " opmfu cannot fully parse");
}

std::string LineRef(const FormulaFile& file, TSNode node) {
  return file.path + ":" + std::to_string(ts_node_start_point(node).row + 1);
}

// The one function of the --from file, after checking that nothing else would need carrying over.
Result<TSNode> CandidateFunction(const FormulaFile& formulas, const FormulaFile& candidate) {
  if (!candidate.registrations.empty()) {
    return Error::Input(LineRef(candidate, candidate.registrations.front().decorator_node) +
                        ": the function already has a @register_npu_flop decorator; give a plain function, "
                        "opmfu adds the decorator from --target");
  }
  std::optional<TSNode> function;
  std::optional<Error> refusal;
  bool first = true;
  ForEachTopLevelNode(candidate.tree, [&](TSNode statement) {
    const std::string_view type = ts_node_type(statement);
    const bool docstring = first && type == "expression_statement" &&
                           python::StringLiteralValue(candidate.tree, ts_node_named_child(statement, 0));
    if (type != "comment") first = false;
    if (refusal || docstring || type == "comment" || type == "import_statement" || type == "import_from_statement") {
      return;  // imports are checked below
    }
    if (type == "function_definition" && !function) {
      function = statement;
    } else if (type == "function_definition") {
      refusal = Error::Input(LineRef(candidate, statement) +
                             ": a second function; --from must hold exactly one "
                             "(add helpers to the formulas file by hand first)");
    } else if (type == "decorated_definition") {
      refusal = Error::Input(LineRef(candidate, statement) + ": the function has a decorator; give a plain function");
    } else {
      refusal = Error::Input(LineRef(candidate, statement) + ": top-level code other than one function and imports");
    }
  });
  if (refusal) return *refusal;
  if (!function) return Error::Input(candidate.path + ": no function definition found");
  // Names the function imports must already mean the same in the formulas file.
  for (const auto& [local, imported] : candidate.imports) {
    auto found = formulas.imports.find(local);
    if (found == formulas.imports.end() || found->second != imported) {
      return Error::Input(candidate.path + ": imports '" + local + "' (" + imported + "), which " + formulas.path +
                          " does not import the same way; add the import to the formulas file first");
    }
  }
  return *function;
}

bool TopLevelNameTaken(const FormulaFile& file, std::string_view name) {
  bool taken = false;
  ForEachTopLevelNode(file.tree, [&](TSNode statement) {
    if (IsType(statement, "decorated_definition")) statement = ChildByField(statement, "definition");
    if (IsType(statement, "function_definition") || IsType(statement, "class_definition")) {
      taken = taken || file.tree.Text(ChildByField(statement, "name")) == name;
    } else if (IsType(statement, "expression_statement") && IsType(ts_node_named_child(statement, 0), "assignment")) {
      taken = taken || file.tree.Text(ChildByField(ts_node_named_child(statement, 0), "left")) == name;
    }
  });
  return taken;
}

std::string PythonStringLiteral(std::string_view value) {
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

int CountLines(std::string_view text, std::size_t end) {
  return static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n')) + 1;
}

}  // namespace

Result<PlannedAddition> PlanAddition(const FormulaFile& formulas, const FormulaFile& candidate,
                                     const std::string& target) {
  OPMFU_RETURN_IF_ERROR(RequireCleanParse(formulas, "a formulas file"));
  OPMFU_RETURN_IF_ERROR(RequireCleanParse(candidate, "a --from file"));
  if (auto problem = TargetProblem(target)) return Error::Usage("--target '" + target + "' " + *problem);
  if (!BindsDecorator(formulas)) {
    return Error::Input(formulas.path + ": does not import register_npu_flop, so a new registration there would fail");
  }
  const std::string resolved = *ResolvedTargetPath(target);
  const std::string op_name = target.substr(target.find(':') + 1);
  for (const Registration& registration : formulas.registrations) {
    const auto existing = registration.TargetText();
    if (existing && ResolvedTargetPath(*existing) == resolved) {
      return Error::Input("target '" + target + "' is already registered at " + formulas.path + ":" +
                          std::to_string(registration.line) + " (function " + registration.function_name + ")");
    }
    if (registration.resolved_op_name == op_name && registration.IsDefault().value_or(false)) {
      return Error::Input("op name '" + op_name + "' is already registered at " + formulas.path + ":" +
                          std::to_string(registration.line) + " (target " + existing.value_or("?") +
                          "); two formulas would write the same \"<flops>-" + op_name + "\" records");
    }
  }

  OPMFU_ASSIGN_OR_RETURN(TSNode function, CandidateFunction(formulas, candidate));
  const std::string function_name(candidate.tree.Text(ChildByField(function, "name")));
  if (TopLevelNameTaken(formulas, function_name)) {
    return Error::Input(formulas.path + ": already defines '" + function_name + "'; rename the function in " +
                        candidate.path);
  }

  // Follow the file's own style: registrations in torch_npu's file all say is_default=True.
  const auto defaults = std::count_if(formulas.registrations.begin(), formulas.registrations.end(),
                                      [](const Registration& r) { return r.IsDefault().value_or(false); });
  const bool is_default =
      formulas.registrations.empty() || defaults * 2 >= static_cast<long>(formulas.registrations.size());
  const std::string decorator = "@" + formulas.decorator_names.front() + "(target=" + PythonStringLiteral(target) +
                                (is_default ? ", is_default=True" : "") + ")";

  const std::string& source = formulas.tree.source();
  std::size_t insert_at = source.size();
  if (!formulas.registrations.empty()) {
    // After the top-level statement that holds the last registration: one nested in a function or
    // an `if` would otherwise take the rest of that body into the new function.
    TSNode statement = formulas.registrations.back().decorated_definition;
    for (TSNode up = ts_node_parent(statement); !ts_node_is_null(up) && !IsType(up, "module");
         up = ts_node_parent(up)) {
      statement = up;
    }
    const std::uint32_t end = ts_node_end_byte(statement);
    const std::size_t newline = source.find('\n', end);
    insert_at = newline == std::string::npos ? source.size() : newline + 1;
  }
  std::string text;
  if (insert_at > 0 && source[insert_at - 1] != '\n') text += "\n";
  text += "\n\n" + decorator + "\n" + std::string(candidate.tree.Text(function)) + "\n";

  PlannedAddition plan;
  plan.edit = {insert_at, insert_at, text};
  OPMFU_ASSIGN_OR_RETURN(plan.new_source, ApplyEdits(source, {plan.edit}));
  plan.function_name = function_name;
  plan.decorator_line = CountLines(plan.new_source, insert_at + text.find('@'));
  plan.function_line = plan.decorator_line + 1;
  plan.source_def_line = static_cast<int>(ts_node_start_point(function).row) + 1;
  plan.inserted_line_count = static_cast<int>(std::count(text.begin(), text.end(), '\n'));

  // The edit must add exactly this registration and break nothing.
  OPMFU_ASSIGN_OR_RETURN(FormulaFile check, ParseFormulaFile(formulas.path, plan.new_source));
  const bool added = check.parsed_cleanly() && check.registrations.size() == formulas.registrations.size() + 1 &&
                     std::any_of(check.registrations.begin(), check.registrations.end(), [&](const Registration& r) {
                       return r.TargetText() == target && r.function_name == function_name;
                     });
  if (!added)
    return Error::Internal("the planned edit of " + formulas.path + " did not re-parse as one more registration");
  return plan;
}

Result<std::string> WriteAddition(const FormulaFile& formulas, const PlannedAddition& plan) {
  std::string backup = formulas.path + ".bak";
  OPMFU_RETURN_IF_ERROR(CopyFileAtomically(formulas.path, backup));
  // The file must still hold the text the addition was planned on; the check and the rename are
  // one locked step, so two additions to one file never both succeed with one lost.
  OPMFU_RETURN_IF_ERROR(ReplaceFileIfUnchanged(formulas.path, formulas.tree.source(), plan.new_source));
  return backup;
}

}  // namespace opmfu::registry
