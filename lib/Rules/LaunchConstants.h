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

namespace clang {
class FunctionDecl;
class ParmVarDecl;
} // namespace clang

namespace cudal1 {

struct CheckContext;

/// The value every launch of \p K passes for its parameter \p P, when all
/// the model's evaluated launches of the file agree on one integer;
/// \p Sites counts the launches. std::nullopt when there is no launch, a
/// launch's value is unknown, or two differ.
std::optional<int64_t> launchConstant(const CheckContext &CC,
                                      const clang::FunctionDecl *K,
                                      const clang::ParmVarDecl *P,
                                      unsigned &Sites);

} // namespace cudal1

#endif
