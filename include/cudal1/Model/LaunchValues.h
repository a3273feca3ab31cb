//===- LaunchValues.h - the values of a launch, from the AST -----*- C++ -*-===//
//
// Evaluates a launch site's grid, block, dynamic shared memory and kernel
// arguments on the AST (DESIGN.md, "Verification and benchmarking": never by
// scanning source text): Clang's constant evaluator first (constexpr, enums,
// macros, sizeof, template arguments), then an evaluator of its own that
// follows what Clang will not fold: local variables initialised once and not
// modified before the launch, `dim3` locals and their components, casts,
// ceil/floor/min/max of constants, small host functions (`return expr;`),
// and the parameters of the host function holding the launch, through the
// call sites of the translation unit (a few levels, recursion guarded).
// Pointer arguments are followed to their allocation (cudaMalloc,
// cudaMallocManaged, cudaMallocAsync, wrappers and macros around them, `p +
// offset`) and to host copies into it (cudaMemcpy host-to-device, memset).
//
// Across files: a parameter of a host function that no call of its own
// translation unit reaches takes the values of the calls in the other files
// of the program (ExternalCall: evaluated in the caller's unit and matched
// by hostFunctionKey), one tuple per call and call path, when they are
// given (setExternalCalls); each unit records the calls it makes of
// functions it does not define (externalCalls) and the functions whose
// parameters it needed but could not reach (unreached).
//
// Soundness: a value is known only when every path the AST shows gives it;
// a launch in a loop takes the values of its first run (a loop counter its
// initial value; what the loop changes after the launch comes later). A
// variable assigned in an earlier loop or under an unknown condition before
// the launch, or passed by non-const reference or address, is not a
// constant. Values that depend on
// such variables are kept as expressions over their names (harness-spec
// syntax) so that a spec can be completed by naming just those.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_MODEL_LAUNCHVALUES_H
#define CUDAL1_MODEL_LAUNCHVALUES_H

#include "cudal1/Model/KernelInfo.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class Expr;
class FunctionDecl;
} // namespace clang

namespace cudal1 {

/// One launch to evaluate: the expressions as written (null when absent).
struct LaunchExprs {
  const clang::FunctionDecl *Host = nullptr; ///< the function holding it
  const clang::Expr *Launch = nullptr;       ///< the launch expression
  const clang::Expr *Grid = nullptr, *Block = nullptr, *Shared = nullptr;
  /// One per kernel parameter; null: not known from the launch's form.
  std::vector<const clang::Expr *> Args;
  /// A call of a method on an object (external calls): the object, whose
  /// number members are evaluated into LaunchValues::Members.
  const clang::Expr *Object = nullptr;
};

/// The key matching a host function across translation units: its
/// qualified name and canonical parameter types ("ns::run(int, float *)");
/// "" for functions other files cannot call (internal linkage, templates,
/// main, kernels).
std::string hostFunctionKey(const clang::FunctionDecl *F);

/// Evaluates launches of one translation unit (caches the call graph and
/// mutation analyses between launches).
class LaunchEvaluator {
public:
  explicit LaunchEvaluator(clang::ASTContext &Ctx);
  ~LaunchEvaluator();
  LaunchEvaluator(const LaunchEvaluator &) = delete;
  LaunchEvaluator &operator=(const LaunchEvaluator &) = delete;

  /// The distinct tuples of values over the call paths reaching \p L (at
  /// most kMaxLaunchTuples, complete ones first); \p Note says what was
  /// left out.
  std::vector<LaunchValues> evaluate(const LaunchExprs &L, std::string &Note);

  /// Calls of other files (by the called function's key) whose values the
  /// parameters of functions that no call of this unit reaches take; null:
  /// none. Must outlive the evaluator.
  void setExternalCalls(const ExternalCalls *Calls);
  /// The arguments the program runs with (argv[1]...; null: not given):
  /// `argc`, `argv[k]` and the numbers `atoi`/`strtol`/`std::stoi`/`atof`...
  /// read from them become known values. Must outlive the evaluator.
  void setProgramArgs(const ProgramCommandLine *Args);
  /// Keys of the functions whose parameters evaluations so far needed and
  /// that no call of this unit reaches.
  const std::set<std::string> &unreached() const;
  /// The calls this unit makes of host functions it declares without
  /// defining (user code), with their arguments' values along each call
  /// path; at most \p Limit calls are evaluated.
  ExternalCalls externalCalls(unsigned Limit = 256);
  /// The keys of functions that the last externalCalls() needed the
  /// parameters of and that no call in this unit reaches.
  const std::set<std::string> &callsUnreached() const;

  struct Impl;

private:
  std::unique_ptr<Impl> P;
};

} // namespace cudal1

#endif
