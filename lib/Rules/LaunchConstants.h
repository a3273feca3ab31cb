//===- LaunchConstants.h - kernel arguments every launch agrees on -*- C++ -*-===//
//
// Private to lib/Rules: the integer a kernel's scalar parameter has at every
// launch the kernel model evaluated in the translation unit (through the
// call paths to each launch), for rules that specialise code for it
// (unrolling-param-bound) or evaluate an access's stride with it
// (coalescing-uncoalesced-access, coalescing-strided-access).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_LAUNCHCONSTANTS_H
#define CUDAL1_LIB_RULES_LAUNCHCONSTANTS_H

#include <cstdint>
#include <optional>
#include <vector>

namespace clang {
class ASTContext;
class CallExpr;
class FunctionDecl;
class ParmVarDecl;
} // namespace clang

namespace cudal1 {

struct CheckContext;

/// The value every launch of \p K passes for its parameter \p P, when all
/// the model's evaluated launches of the file agree on one integer;
/// \p Sites counts the launches. std::nullopt when there is no launch, a
/// launch's value is unknown, or two differ, or the argument can change
/// between executions of a launch (a variable it reads is changed in a loop
/// around the launch, or around a call of the host function it comes from).
std::optional<int64_t> launchConstant(const CheckContext &CC,
                                      const clang::FunctionDecl *K,
                                      const clang::ParmVarDecl *P,
                                      unsigned &Sites);

/// The calls of \p Fn in the translation unit (template instantiations
/// included).
std::vector<const clang::CallExpr *> callsOf(clang::ASTContext &C,
                                             const clang::FunctionDecl *Fn);

} // namespace cudal1

#endif
