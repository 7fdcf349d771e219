#include "engine/xlsx_export.h"

#include "engine/mfu_columns.h"

#include <fcntl.h>
#include <unistd.h>
#include <xlsxwriter.h>

#include <cerrno>
#include <cstdio>

#include <algorithm>
#include <map>
#include <memory>
#include <span>

#include "common/file_io.h"
#include "common/output_file.h"

namespace opmfu::engine {

namespace fs = std::filesystem;

namespace {

// libxlsxwriter reports a failure with lines of its own on stderr ("[ERROR][packager.c:...]"); the
// error it returns becomes opmfu's one line instead. Only the export runs meanwhile.
class QuietStderr {
 public:
  QuietStderr() : saved_(::dup(STDERR_FILENO)) {
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved_ >= 0 && null >= 0) {
      (void)std::fflush(stderr);  // best effort: silencing libxlsxwriter's lines must not fail the export
      ::dup2(null, STDERR_FILENO);
    }
    if (null >= 0) ::close(null);
  }
  QuietStderr(const QuietStderr&) = delete;
  QuietStderr& operator=(const QuietStderr&) = delete;
  ~QuietStderr() {
    if (saved_ < 0) return;
    (void)std::fflush(stderr);
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
  }

 private:
  int saved_;
};

struct WorkbookCloser {
  void operator()(lxw_workbook* workbook) const { workbook_close(workbook); }
};

// One workbook: created under a temporary name (which Ctrl-C removes), renamed into place by
// Finish().
class Workbook {
 public:
  /// `file`: where it goes (OutputFile: created beneath the directory, never through a link).
  static Result<Workbook> Create(std::unique_ptr<OutputFile> file) {
    const fs::path path = file->path();
    Workbook workbook(path, std::move(file));
    // libxlsxwriter opens by name: the name reaches the file created above through its directory.
    workbook.handle_.reset(workbook_new(workbook.temp_->temporary_name().c_str()));
    if (!workbook.handle_) return Error::Input(path.string() + ": cannot create the workbook");
    workbook.sheet_ = workbook_add_worksheet(workbook.handle_.get(), "Sheet1");
    workbook.header_ = workbook_add_format(workbook.handle_.get());
    format_set_bold(workbook.header_);
    format_set_bg_color(workbook.header_, 0xAFEEEE);
    format_set_border(workbook.header_, LXW_BORDER_THIN);
    format_set_font_name(workbook.header_, "Times New Roman");
    format_set_align(workbook.header_, LXW_ALIGN_VERTICAL_CENTER);
    workbook.cell_ = workbook_add_format(workbook.handle_.get());
    format_set_border(workbook.cell_, LXW_BORDER_THIN);
    format_set_font_name(workbook.cell_, "Times New Roman");
    format_set_align(workbook.cell_, LXW_ALIGN_VERTICAL_CENTER);
    return workbook;
  }
  Workbook(Workbook&&) noexcept = default;
  Workbook& operator=(Workbook&&) noexcept = default;
  ~Workbook() {
    if (!temp_ || committed_) return;  // moved from, or in place
    handle_.reset();                   // not finished: close, and temp_ drops the partial file
  }

  void Headers(std::span<const MfuColumn> columns) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const std::string header(columns[i].xlsx_header);  // NUL-terminated
      worksheet_write_string(sheet_, 0, static_cast<lxw_col_t>(i), header.c_str(), header_);
      worksheet_set_column(sheet_, static_cast<lxw_col_t>(i), static_cast<lxw_col_t>(i), columns[i].xlsx_width,
                           nullptr);
    }
  }
  void Number(std::size_t row, std::size_t column, double value) {
    worksheet_write_number(sheet_, static_cast<lxw_row_t>(row), static_cast<lxw_col_t>(column), value, cell_);
  }
  void Text(std::size_t row, std::size_t column, std::optional<std::string_view> value) {
    if (value) {
      const std::string text(*value);  // libxlsxwriter wants a NUL-terminated string
      worksheet_write_string(sheet_, static_cast<lxw_row_t>(row), static_cast<lxw_col_t>(column), text.c_str(), cell_);
    } else {
      worksheet_write_blank(sheet_, static_cast<lxw_row_t>(row), static_cast<lxw_col_t>(column), cell_);
    }
  }
  void Merge(std::size_t first_row, std::size_t last_row, std::size_t column, const std::string& value) {
    worksheet_merge_range(sheet_, static_cast<lxw_row_t>(first_row), static_cast<lxw_col_t>(column),
                          static_cast<lxw_row_t>(last_row), static_cast<lxw_col_t>(column), value.c_str(), cell_);
  }
  const OutputFile& file() const { return *temp_; }
  void HeaderHeight(double height) { worksheet_set_row(sheet_, 0, height, nullptr); }

  /// Writes the workbook to its temporary file; Commit puts it in place.
  Status Close() {
    errno = 0;
    const lxw_error error = workbook_close(handle_.release());
    const int errnum = errno;
    if (error != LXW_NO_ERROR) {
      return Error::Input(path_.string() + ": cannot write: " + lxw_strerror(error) +
                          (errnum != 0 ? " (" + ErrnoMessage(errnum) + ")" : std::string()));
    }
    return temp_->Seal();
  }
  Status Commit() {
    OPMFU_RETURN_IF_ERROR(temp_->Commit());
    committed_ = true;
    return Ok();
  }

 private:
  Workbook(fs::path path, std::unique_ptr<OutputFile> temp) : path_(std::move(path)), temp_(std::move(temp)) {}
  fs::path path_;
  std::unique_ptr<OutputFile> temp_;
  std::unique_ptr<lxw_workbook, WorkbookCloser> handle_;
  bool committed_ = false;
  lxw_worksheet* sheet_ = nullptr;  // owned by the workbook
  lxw_format* header_ = nullptr;
  lxw_format* cell_ = nullptr;
};

Result<Workbook> WriteKernelWorkbook(std::unique_ptr<OutputFile> file, const std::vector<const OperatorMfuRow*>& rows) {
  OPMFU_ASSIGN_OR_RETURN(Workbook book, Workbook::Create(std::move(file)));
  book.Headers(kOperatorColumns);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const OperatorMfuRow& r = *rows[i];
    const std::size_t row = i + 1;
    book.Number(row, 0, static_cast<double>(r.rank_id));
    book.Text(row, 1, r.op_name());
    book.Text(row, 2, r.kernel_name());
    book.Number(row, 3, static_cast<double>(r.kernel_start));
    book.Number(row, 4, static_cast<double>(r.kernel_end));
    book.Number(row, 5, static_cast<double>(r.kernel_duration));
    book.Number(row, 6, r.mfu);
    book.Number(row, 7, r.actual_tflops);
    book.Number(row, 8, r.chip_peak_tflops);
    book.Number(row, 9, static_cast<double>(r.flops));
    book.Text(row, 10, r.flops_op_name());
    book.Text(row, 11, r.input_shapes());
    book.Text(row, 12, r.output_shapes());
  }
  OPMFU_RETURN_IF_ERROR(book.Close());
  return book;
}

Result<Workbook> WriteModuleWorkbook(std::unique_ptr<OutputFile> file, const std::vector<const ModuleMfuRow*>& rows) {
  OPMFU_ASSIGN_OR_RETURN(Workbook book, Workbook::Create(std::move(file)));
  // avg_mfu is dropped when it is empty in every row of this rank's frame.
  const bool with_avg =
      std::any_of(rows.begin(), rows.end(), [](const ModuleMfuRow* r) { return !r->avg_mfu.empty(); });
  book.Headers(ModuleColumns(with_avg));
  book.HeaderHeight(27);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ModuleMfuRow& r = *rows[i];
    const std::size_t row = i + 1;
    book.Number(row, 0, static_cast<double>(r.rank_id));
    book.Text(row, 3, r.op_name);
    book.Text(row, 4, r.kernel_list);
    book.Number(row, 5, r.total_kernel_duration);
    book.Number(row, 6, r.avg_kernel_duration);
    book.Number(row, 7, static_cast<double>(r.op_count));
    if (with_avg) book.Text(row, 8, r.avg_mfu);
  }
  // Runs of equal Parent Module (column 1) and Module (column 2) values are merged vertically.
  for (std::size_t column : {std::size_t{1}, std::size_t{2}}) {
    const auto value = [&](std::size_t i) -> const std::string& {
      return column == 1 ? rows[i]->parent_module : rows[i]->module;
    };
    std::size_t begin = 0;
    while (begin < rows.size()) {
      std::size_t end = begin + 1;
      while (end < rows.size() && value(end) == value(begin)) ++end;
      if (end - begin > 1) {
        book.Merge(begin + 1, end, column, value(begin));
      } else {
        book.Text(begin + 1, column, value(begin));
      }
      begin = end;
    }
  }
  OPMFU_RETURN_IF_ERROR(book.Close());
  return book;
}

}  // namespace

Result<std::vector<fs::path>> WriteWorkbooks(const fs::path& directory, const AnalysisTables& tables,
                                             const fs::path& tree) {
  std::map<std::int64_t, std::vector<const OperatorMfuRow*>> kernels;
  for (const OperatorMfuRow& row : tables.operator_rows) kernels[row.rank_id].push_back(&row);
  std::map<std::int64_t, std::vector<const ModuleMfuRow*>> modules;
  for (const ModuleMfuRow& row : tables.module_rows) modules[row.rank_id].push_back(&row);
  // Every workbook is written in full before any is put in place: a full disk leaves the earlier
  // set, never some new workbooks beside old ones. They share one open directory (Sibling).
  std::vector<Workbook> books;
  std::vector<fs::path> written;
  std::unique_ptr<OutputFile> first;
  const auto next_file = [&](const std::string& leaf) -> Result<std::unique_ptr<OutputFile>> {
    if (books.empty()) {
      // The directory is the caller's tree when no tree is named (as WriteFileAtomically's parent).
      return OutputFile::Begin(directory / leaf,
                               {.tree = tree.empty() ? directory : tree, .database = false, .edit = false});
    }
    return books.front().file().Sibling(leaf);
  };
  {
    const QuietStderr quiet;
    for (const auto& [rank, rows] : kernels) {
      const std::string leaf = "operator_mfu_kernel_" + std::to_string(rank) + ".xlsx";
      OPMFU_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> file, next_file(leaf));
      OPMFU_ASSIGN_OR_RETURN(Workbook book, WriteKernelWorkbook(std::move(file), rows));
      books.push_back(std::move(book));
      written.push_back(directory / leaf);
    }
    for (const auto& [rank, rows] : modules) {
      const std::string leaf = "operator_mfu_module_" + std::to_string(rank) + ".xlsx";
      OPMFU_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> file, next_file(leaf));
      OPMFU_ASSIGN_OR_RETURN(Workbook book, WriteModuleWorkbook(std::move(file), rows));
      books.push_back(std::move(book));
      written.push_back(directory / leaf);
    }
  }
  for (Workbook& book : books) OPMFU_RETURN_IF_ERROR(book.Commit());
  return written;
}

}  // namespace opmfu::engine
