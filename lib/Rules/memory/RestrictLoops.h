//===- RestrictLoops.h - loops that store and load through two pointers -*- C++ -*-===//
//
// Private to memory-restrict and memory-ldg: `__restrict__` (or `__ldg`)
// changes a kernel's time only where a loop stores through one pointer and
// loads through another that nothing tells apart: only there must the
// compiler keep a later iteration's loads behind a store, or reload a value
// a store may have changed. Elsewhere it changes the read-only path at
// most, which on HeCBench changed no kernel's time (measured on an H100,
// docs/PERFORMANCE.md section 4). The loop must be one thread's: a loop
// that deals its iterations out to the threads (grid-stride, block-stride)
// gained nothing either.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_MEMORY_RESTRICTLOOPS_H
#define CUDAL1_LIB_RULES_MEMORY_RESTRICTLOOPS_H

#include <string>

namespace clang {
class ASTContext;
class Expr;
class FunctionDecl;
class ParmVarDecl;
class SourceManager;
} // namespace clang

namespace cudal1 {

struct CheckContext;

/// A loop of kernel \p FD, or of a function it calls (3 calls deep, the
/// callee's pointer parameters bound to the arguments), not one whose
/// variable steps by the block's or the grid's size, that stores through
/// one pointer (an atomic counts; memory the analysis cannot name is any
/// pointer) and loads through another, neither of them `__restrict__`.
/// With \p LoadsThrough, only loads through that parameter count. \p Why
/// gets "the loop at line N stores through 'y' and loads through 'x'"
/// ("at helpers.cuh:N" for a loop in another file than the kernel).
bool loopStoresAndLoads(const clang::FunctionDecl *FD,
                        const clang::SourceManager &SM, std::string &Why,
                        const clang::ParmVarDecl *LoadsThrough = nullptr);

/// Arguments \p A and \p B, written in host function \p Fn, are the same
/// variable, or parameters of \p Fn that some call of \p Fn passes the
/// same variable for (up to three calls up): one buffer for both.
bool sameBufferSomewhere(clang::ASTContext &C, const clang::FunctionDecl *Fn,
                         const clang::Expr *A, const clang::Expr *B,
                         unsigned Depth);
/// Some launch of kernel \p K in the file passes one buffer for its
/// parameters \p P and \p Q (sameBufferSomewhere on the launch's
/// arguments).
bool sameBufferAtSomeLaunch(clang::ASTContext &C, const CheckContext &CC,
                            const clang::FunctionDecl *K,
                            const clang::ParmVarDecl *P,
                            const clang::ParmVarDecl *Q);

} // namespace cudal1

#endif
