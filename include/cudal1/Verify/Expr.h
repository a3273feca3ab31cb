//===- Expr.h - integer/float expressions of harness specs ------*- C++ -*-===//
//
// Grid, block, element counts and scalar values in a harness spec are small
// arithmetic expressions over named sizes: "cdiv(N, 256)", "N * M", "2.5".
// Supported: + - * / % << >> unary -, comparisons (< <= > >= == !=, giving
// 1 or 0), c ? a : b, parentheses, integer and floating literals, names, and
// the functions cdiv(a,b), min(a,b), max(a,b), ceil(x),
// floor(x) and int(x) (integers), float(x). `?` stands for a value the tool
// could not infer: evaluating it fails with a message saying so.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_VERIFY_EXPR_H
#define CUDAL1_VERIFY_EXPR_H

#include <cstdint>
#include <map>
#include <string>

namespace cudal1 {

/// A value: integers stay exact; any floating operand makes the result
/// floating.
struct ExprValue {
  bool IsFloat = false;
  int64_t I = 0;
  double F = 0;
  double asDouble() const { return IsFloat ? F : double(I); }
  int64_t asInt() const { return IsFloat ? int64_t(F) : I; }
};

using ExprEnv = std::map<std::string, ExprValue>;

/// Evaluates \p Text with the names in \p Env. On failure returns false and
/// sets \p Error ("unknown name 'M'", "division by zero", ...).
bool evalExpr(const std::string &Text, const ExprEnv &Env, ExprValue &Out,
              std::string &Error);

} // namespace cudal1

#endif
