#pragma once
// Arithmetic that must match numpy/Python bit for bit (shared/spec/mfu-analysis.md 4.2, 5.7).

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

}  // namespace opmfu::engine
