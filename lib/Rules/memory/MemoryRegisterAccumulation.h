//===- MemoryRegisterAccumulation.h - memory-register-accumulation -*- C++
//-*-===//
//
// A global read-modify-write of one element on every loop iteration: a
// register accumulator stored once after the loop.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_MEMORY_MEMORYREGISTERACCUMULATION_H
#define CUDAL1_LIB_RULES_MEMORY_MEMORYREGISTERACCUMULATION_H

#include "../RuleCheck.h"

#include <optional>
#include <set>

namespace cudal1 {

class MemoryRegisterAccumulation : public RuleCheck {
public:
  /// A read-modify-write of out[idx] in a loop.
  struct Accum {
    const clang::Expr *Root = nullptr;              ///< the assignment
    const clang::ArraySubscriptExpr *Lhs = nullptr; ///< out[idx]
    const clang::ParmVarDecl *Param = nullptr;
  };

  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &Kernel) override;
  bool checksInstantiations() const override { return true; }
  /// Accumulations the access analysis finds that checkKernel did not
  /// report (through device functions, in templates, other forms): reported
  /// without a fix.
  void checkTranslationUnit() override;

private:
  /// Elements analyze leaves alone: nvcc keeps them in registers by
  /// itself, or the loop reads other threads' elements of the array (an
  /// in-place scan). No finding without a fix either.
  std::set<clang::SourceLocation> Silent;

  void runOn(clang::ASTContext &Ctx, const CheckContext &CC,
             const clang::FunctionDecl *K, const FunctionFacts &F,
             std::vector<Finding> &Out);

  /// The finding for the accumulation \p A in \p L; none where nvcc keeps
  /// the element in a register by itself.
  std::optional<Finding> analyze(clang::ASTContext &Ctx, const CheckContext &CC,
                  const clang::FunctionDecl *K, const FunctionFacts &F,
                  const clang::Stmt *L, const Accum &A,
                  std::set<std::string> &UsedNames);
};

} // namespace cudal1

#endif
