// The HTML table cells of report/presentation: a figure stays on one line, a name or a shape list
// wraps after its separators.

#include <gtest/gtest.h>

#include "report/presentation.h"

namespace opmfu::report {
namespace {

TEST(Presentation, FiguresAreNumbersWithTheirUnits) {
  for (const char* figure : {"531.59 ms", "42.9%", "3", "1.1e+12", "15.1% !", "-2.5 us", "0.434 TB/s", "1.75x",
                             "353.89 TFLOPS", "157.0 FLOP/B", "1,001,010"}) {
    EXPECT_TRUE(IsFigure(figure)) << figure;
  }
  for (const char* text : {"", "aten::mm", "32768,4096;4096,12288", "MatMulV3", "far", "x", "!", "ms", "typical 42%",
                           "rank 0", "e5", "compute-bound at low MFU"}) {
    EXPECT_FALSE(IsFigure(text)) << text;
  }
}

TEST(Presentation, AFigureCellKeepsToOneLineAndOtherCellsWrapAfterSeparators) {
  EXPECT_EQ(HtmlCell("531.59 ms"), "<td class=\"n\">531.59 ms</td>");
  EXPECT_EQ(HtmlCell("32,4096;4096,16"), "<td>32,<wbr>4096;<wbr>4096,<wbr>16</td>");
  EXPECT_EQ(HtmlCell("<b>"), "<td>&lt;b&gt;</td>");
}

}  // namespace
}  // namespace opmfu::report
