// The size rules of docs/CONTRIBUTING.md, measured on the sources: no function longer than 150
// lines, no source file longer than 700 and no cli/ file longer than 250. Functions are found by
// a brace counter that first blanks comments and string, character and raw-string literals: a
// `{` at namespace or class level whose declaration has a parameter list (and no `=` before it)
// opens a function, which ends at its matching `}`; lambdas and local classes count as part of
// the function they are in. A function's length is the number of lines from its opening brace's
// line to its closing brace's line (its body and closing brace), as the issue tracker counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxFunctionLines = 150;
constexpr std::size_t kMaxFileLines = 700;
constexpr std::size_t kMaxCliFileLines = 250;

// The folders whose sources the rules hold (tests/ and bench/ are not held).
const std::vector<std::string>& SourceFolders() {
  static const std::vector<std::string> folders = {"common", "python", "linter", "registry", "rules",
                                                   "lint",   "engine", "report", "mcp",      "cli"};
  return folders;
}

// Known exceptions, in folders other engineers were changing when the rule became a test. Each
// may only shrink: the test fails when one grows past its figure, and when one is back within the
// limit (then delete its row). Never add a row for new code; split the function instead.
struct FunctionException {
  std::string_view file;
  std::string_view function;
  std::size_t lines;
};
const std::vector<FunctionException>& FunctionExceptions() {
  static const std::vector<FunctionException> exceptions = {
      {"report/derived_mfu.cpp", "BuildDerivedSection", 307},
      {"engine/profiling_db_builder.cpp", "ProfilingDbBuilder::Fill", 229},
      {"engine/analyze.cpp", "RunAnalyze", 209},
      {"report/torch_analysis.cpp", "AnalyzeTrace", 172},
      {"report/report.cpp", "BuildReport", 170},
  };
  return exceptions;
}
struct FileException {
  std::string_view file;
  std::size_t lines;
};
const std::vector<FileException>& FileExceptions() {
  static const std::vector<FileException> exceptions = {
      {"engine/scan_reader.cpp", 742},
  };
  return exceptions;
}

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// The source with comments, literals' contents and preprocessor lines blanked (newlines kept, so
// line numbers stay).
std::string Blanked(const std::string& source) {
  std::string out = source;
  const std::size_t n = source.size();
  const auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < n; ++k) {
      if (out[k] != '\n') out[k] = ' ';
    }
  };
  bool line_start = true;
  for (std::size_t i = 0; i < n;) {
    const char c = source[i];
    if (line_start && c == '#') {  // a directive, with its continuation lines
      std::size_t j = i;
      while (j < n && !(source[j] == '\n' && (j == 0 || source[j - 1] != '\\'))) ++j;
      blank(i, j);
      i = j;
      continue;
    }
    if (c != ' ' && c != '\t') line_start = c == '\n';
    if (source.compare(i, 2, "//") == 0) {
      const std::size_t j = std::min(source.find('\n', i), n);
      blank(i, j);
      i = j;
      continue;
    }
    if (source.compare(i, 2, "/*") == 0) {
      const std::size_t end = source.find("*/", i + 2);
      const std::size_t j = end == std::string::npos ? n : end + 2;
      blank(i, j);
      i = j;
      continue;
    }
    if (c == 'R' && i + 1 < n && source[i + 1] == '"' &&
        (i == 0 || !IsWordChar(source[i - 1]) || source[i - 1] == '8' || source[i - 1] == 'u' || source[i - 1] == 'U' ||
         source[i - 1] == 'L')) {
      const std::size_t open = source.find('(', i + 2);
      if (open != std::string::npos) {
        const std::string terminator = ")" + source.substr(i + 2, open - i - 2) + "\"";
        const std::size_t end = source.find(terminator, open);
        const std::size_t j = end == std::string::npos ? n : end + terminator.size();
        blank(i + 1, j);
        i = j;
        continue;
      }
    }
    if (c == '"' || (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(source[i - 1])) && i + 1 < n &&
                                    std::isxdigit(static_cast<unsigned char>(source[i + 1]))))) {
      // A string or character literal (a `'` between digits is a digit separator).
      std::size_t j = i + 1;
      while (j < n && source[j] != c && source[j] != '\n') j += source[j] == '\\' ? 2 : 1;
      blank(i + 1, j);
      i = j + 1;
      continue;
    }
    ++i;
  }
  return out;
}

bool HasWord(std::string_view text, std::string_view word) {
  for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const bool starts = at == 0 || !IsWordChar(text[at - 1]);
    const bool ends = at + word.size() >= text.size() || !IsWordChar(text[at + word.size()]);
    if (starts && ends) return true;
  }
  return false;
}

// Where the first parameter list of a declaration opens, or npos.
std::size_t ParameterListAt(std::string_view declaration) { return declaration.find('('); }

// `=` outside brackets before the parameter list: an initializer (`auto f = [](...) {`), not a
// function. `==`, `<=`, `>=`, `!=` and `operator=` are not one; a template's default argument
// (`template <class T = int>`) is inside angle brackets.
bool AssignsBeforeParameters(std::string_view declaration) {
  const std::string_view head = declaration.substr(0, ParameterListAt(declaration));
  if (head.find("operator") != std::string_view::npos) return false;
  int depth = 0;
  for (std::size_t i = 0; i < head.size(); ++i) {
    const char c = head[i];
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') --depth;
    if (c != '=' || depth != 0) continue;
    const char before = i > 0 ? head[i - 1] : ' ';
    const char after = i + 1 < head.size() ? head[i + 1] : ' ';
    if (after == '=' || before == '=' || before == '!') continue;
    return true;
  }
  return false;
}

// A constructor's member initializer list is open: a single `:` after the parameter list.
bool InInitializerList(std::string_view declaration) {
  const std::size_t close = declaration.find(')');
  if (close == std::string_view::npos) return false;
  for (std::size_t i = close; i < declaration.size(); ++i) {
    if (declaration[i] != ':') continue;
    if (i + 1 < declaration.size() && declaration[i + 1] == ':') {
      ++i;
      continue;
    }
    return true;
  }
  return false;
}

std::string FunctionName(std::string_view declaration) {
  std::size_t end = ParameterListAt(declaration);
  while (end > 0 && std::isspace(static_cast<unsigned char>(declaration[end - 1]))) --end;
  std::size_t begin = end;
  while (begin > 0 &&
         (IsWordChar(declaration[begin - 1]) || declaration[begin - 1] == ':' || declaration[begin - 1] == '~')) {
    --begin;
  }
  if (begin == end) {  // an operator: from the keyword
    const std::size_t keyword = declaration.rfind("operator", end);
    if (keyword != std::string_view::npos) begin = keyword;
  }
  return std::string(declaration.substr(begin, end - begin));
}

struct Function {
  std::string name;
  std::size_t line = 0;   ///< of its opening brace
  std::size_t lines = 0;  ///< closing brace's line minus opening brace's line
};

std::vector<Function> MeasureFunctions(const std::string& source) {
  const std::string text = Blanked(source);
  enum class Kind { kScope, kFunction, kOther };
  struct Open {
    Kind kind;
    std::size_t line;
    std::string name;
  };
  std::vector<Open> open;
  std::vector<Function> out;
  std::size_t line = 1;
  std::size_t declaration_start = 0;
  const auto at_scope_level = [&] { return open.empty() || open.back().kind == Kind::kScope; };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
    } else if (c == ';' && at_scope_level()) {
      declaration_start = i + 1;
    } else if (c == '{') {
      if (!at_scope_level()) {
        open.push_back({Kind::kOther, line, {}});
        continue;
      }
      const std::string_view declaration = std::string_view(text).substr(declaration_start, i - declaration_start);
      std::size_t last = declaration.find_last_not_of(" \t\n");
      const char before = last == std::string_view::npos ? ' ' : declaration[last];
      Kind kind = Kind::kOther;
      if (HasWord(declaration, "enum")) {
        kind = Kind::kOther;
      } else if (HasWord(declaration, "namespace") || HasWord(declaration, "extern") ||
                 ((HasWord(declaration, "class") || HasWord(declaration, "struct") || HasWord(declaration, "union")) &&
                  ParameterListAt(declaration) == std::string_view::npos)) {
        kind = Kind::kScope;
      } else if (ParameterListAt(declaration) != std::string_view::npos && !AssignsBeforeParameters(declaration)) {
        if (InInitializerList(declaration) && (IsWordChar(before) || before == '>')) {
          // `: member_{value}`: part of the constructor's declaration; skip to its closing brace.
          int depth = 0;
          for (; i < text.size(); ++i) {
            if (text[i] == '\n') ++line;
            if (text[i] == '{') ++depth;
            if (text[i] == '}' && --depth == 0) break;
          }
          continue;
        }
        kind = Kind::kFunction;
      }
      open.push_back({kind, line, kind == Kind::kFunction ? FunctionName(declaration) : std::string()});
      declaration_start = i + 1;
    } else if (c == '}') {
      if (open.empty()) continue;  // unbalanced (a macro's half): ignore
      const Open closed = open.back();
      open.pop_back();
      if (closed.kind == Kind::kFunction) out.push_back({closed.name, closed.line, line - closed.line});
      if (at_scope_level()) declaration_start = i + 1;
    }
  }
  return out;
}

std::size_t LineCount(const std::string& text) {
  std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  if (!text.empty() && text.back() != '\n') ++lines;
  return lines;
}

struct SourceFile {
  std::string relative;
  std::string text;
};

std::vector<SourceFile> Sources() {
  std::vector<SourceFile> out;
  const fs::path root = OPMFU_SOURCE_DIR;
  for (const std::string& folder : SourceFolders()) {
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      const auto extension = entry.path().extension();
      if (extension != ".cpp" && extension != ".h") continue;
      out.push_back({fs::relative(entry.path(), root).generic_string(), ReadAll(entry.path())});
    }
  }
  std::sort(out.begin(), out.end(), [](const SourceFile& a, const SourceFile& b) { return a.relative < b.relative; });
  return out;
}

TEST(SizeLimits, TheCounterFindsFunctionsAndTheirLengths) {
  const std::string source =
      "namespace a {\n"                                         // 1
      "struct S {\n"                                            // 2
      "  int Inline() const { return 1; }\n"                    // 3
      "  S(int x) : x_{x}, y_(x) {\n"                           // 4
      "    x_ = 2;\n"                                           // 5
      "  }\n"                                                   // 6
      "  int x_ = 0, y_;\n"                                     // 7
      "};\n"                                                    // 8
      "const auto kLambda = [](int v) {\n"                      // 9
      "  return v;\n"                                           // 10
      "};\n"                                                    // 11
      "enum class E { kA, kB };\n"                              // 12
      "// void NotAFunction() {\n"                              // 13
      "std::string F(int v) {\n"                                // 14
      "  const char* s = \"}{\";  /* } */\n"                    // 15
      "  auto inner = [&] { return '}'; };\n"                   // 16
      "  const char* raw = R\"x(}\n{)x\";\n"                    // 17, 18
      "  if (v == 1) {\n"                                       // 19
      "    return s;\n"                                         // 20
      "  }\n"                                                   // 21
      "  return 1'000 > v ? s : raw;\n"                         // 22
      "}\n"                                                     // 23
      "bool operator==(const S&, const S&) { return true; }\n"  // 24
      "}  // namespace a\n";
  const std::vector<Function> functions = MeasureFunctions(source);
  ASSERT_EQ(functions.size(), 4U);
  EXPECT_EQ(functions[0].name, "Inline");
  EXPECT_EQ(functions[0].lines, 0U);
  EXPECT_EQ(functions[1].name, "S");
  EXPECT_EQ(functions[1].line, 4U);
  EXPECT_EQ(functions[1].lines, 2U);
  EXPECT_EQ(functions[2].name, "F");
  EXPECT_EQ(functions[2].line, 14U);
  EXPECT_EQ(functions[2].lines, 9U);
  EXPECT_EQ(functions[3].name, "operator==");
}

TEST(SizeLimits, NoFunctionIsLongerThan150Lines) {
  std::map<std::pair<std::string, std::string>, std::size_t> over;
  std::size_t measured = 0;
  for (const SourceFile& file : Sources()) {
    for (const Function& function : MeasureFunctions(file.text)) {
      ++measured;
      if (function.lines > kMaxFunctionLines) {
        auto& lines = over[{file.relative, function.name}];
        lines = std::max(lines, function.lines);
      }
    }
  }
  EXPECT_GT(measured, 1000U) << "the counter finds too few functions to be measuring the tree";
  for (const auto& entry : over) {
    // Not a structured binding: clang 14 (the asan preset) cannot capture one in a lambda.
    const std::pair<std::string, std::string>& where = entry.first;
    const std::size_t lines = entry.second;
    const auto& exceptions = FunctionExceptions();
    auto known = std::find_if(exceptions.begin(), exceptions.end(), [&](const FunctionException& e) {
      return e.file == where.first && e.function == where.second;
    });
    if (known == exceptions.end()) {
      ADD_FAILURE() << where.first << ": " << where.second << " is " << lines << " lines, over " << kMaxFunctionLines
                    << ": split it";
    } else if (lines > known->lines) {
      ADD_FAILURE() << where.first << ": " << where.second << " grew to " << lines << " lines (its exception allows "
                    << known->lines << ", and may only shrink): split it";
    }
  }
  for (const FunctionException& exception : FunctionExceptions()) {
    if (!over.contains({std::string(exception.file), std::string(exception.function)})) {
      ADD_FAILURE() << exception.file << ": " << exception.function << " is within " << kMaxFunctionLines
                    << " lines now (or gone): delete its row in FunctionExceptions()";
    }
  }
}

TEST(SizeLimits, NoSourceFileIsLongerThan700LinesNorACliFileThan250) {
  std::map<std::string, std::size_t> over;
  for (const SourceFile& file : Sources()) {
    const std::size_t lines = LineCount(file.text);
    const std::size_t limit = file.relative.starts_with("cli/") ? kMaxCliFileLines : kMaxFileLines;
    if (lines > limit) over[file.relative] = lines;
  }
  for (const auto& entry : over) {
    const std::string& file = entry.first;
    const std::size_t lines = entry.second;
    const auto& exceptions = FileExceptions();
    auto known =
        std::find_if(exceptions.begin(), exceptions.end(), [&](const FileException& e) { return e.file == file; });
    const std::size_t limit = file.starts_with("cli/") ? kMaxCliFileLines : kMaxFileLines;
    if (known == exceptions.end()) {
      ADD_FAILURE() << file << " is " << lines << " lines, over " << limit << ": split it";
    } else if (lines > known->lines) {
      ADD_FAILURE() << file << " grew to " << lines << " lines (its exception allows " << known->lines
                    << ", and may only shrink): split it";
    }
  }
  for (const FileException& exception : FileExceptions()) {
    if (!over.contains(std::string(exception.file))) {
      ADD_FAILURE() << exception.file << " is within its limit now (or gone): delete its row in FileExceptions()";
    }
  }
}

}  // namespace
