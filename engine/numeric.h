#pragma once
// Arithmetic that must match numpy/Python bit for bit (shared/spec/mfu-analysis.md 4.2, 5.7).

#include <cstdint>
#include <span>
#include <string>

namespace opmfu::engine {

/// numpy.round(x, 2): rint(x * 100) / 100, ties to even on the scaled double.
double Round2(double x);
/// numpy.round(x, 4).
double Round4(double x);

/// numpy's pairwise summation (what numpy.mean adds with), bit-identical.
double PairwiseSum(std::span<const double> values);

/// Python's repr() of a float: shortest round-trip digits, ".0" for integral values, exponent
/// form from 1e16 and below 1e-4.
std::string PythonFloatRepr(double value);

/// `end - start` of two INTEGER timestamps as SQLite computes it: exact, or, when the difference
/// overflows int64, the difference of the two as doubles (only damaged data gets there).
double DifferenceOfInts(std::int64_t end, std::int64_t start);

/// DifferenceOfInts as an INTEGER column reads it ("NULL->0 int": a real beyond int64 is 0): what
/// a TASK row's `endNs - startNs` is.
std::int64_t TaskDuration(std::int64_t start, std::int64_t end);

/// `total + add`, held at the int64 limits instead of overflowing (sums of damaged durations).
std::int64_t SaturatingAdd(std::int64_t total, std::int64_t add);

}  // namespace opmfu::engine
