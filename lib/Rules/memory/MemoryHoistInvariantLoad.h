//===- MemoryHoistInvariantLoad.h - memory-hoist-invariant-load -*- C++ -*-===//
//
// A global load with a loop-invariant index repeated in every iteration:
// loaded once before the loop.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_MEMORY_MEMORYHOISTINVARIANTLOAD_H
#define CUDAL1_LIB_RULES_MEMORY_MEMORYHOISTINVARIANTLOAD_H

#include "../RuleCheck.h"

#include <optional>

namespace cudal1 {

class MemoryHoistInvariantLoad : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &Kernel) override;
  /// Loop-invariant loads the access analysis finds in loops that store to
  /// global memory and that checkKernel did not report: reported without a
  /// fix.
  void checkTranslationUnit() override;

private:
  void runOn(clang::ASTContext &Ctx, const CheckContext &CC,
             const clang::FunctionDecl *K, const FunctionFacts &F,
             std::vector<Finding> &Out);

  /// The statements directly in the loop body (not nested in control flow).
  static std::vector<const clang::Stmt *>
  topStatements(const clang::Stmt *Body);

  /// Loads executed unconditionally by a top-level statement: subscripts
  /// not under ?:, &&, ||, a nested statement or lambda.
  static void
  unconditionalLoads(const clang::Stmt *S,
                     std::vector<const clang::ArraySubscriptExpr *> &Out);

  static bool isRead(clang::ASTContext &Ctx, const clang::Expr *E);

  void runOnLoop(clang::ASTContext &Ctx, const clang::FunctionDecl *K,
                 const FunctionFacts &F, const clang::Stmt *L,
                 std::set<std::string> &Used, std::vector<Finding> &Out);

  /// The finding for the load \p AS in the loop \p L (with its fix, or
  /// why there is none); std::nullopt when there is nothing to tell: nvcc
  /// hoists the load itself, or the loop may write the element.
  std::optional<Finding> analyze(clang::ASTContext &Ctx, const clang::FunctionDecl *K,
                  const FunctionFacts &F, const clang::Stmt *L,
                  const clang::ArraySubscriptExpr *AS,
                  const clang::ParmVarDecl *P, std::set<std::string> &Used);
};

} // namespace cudal1

#endif
