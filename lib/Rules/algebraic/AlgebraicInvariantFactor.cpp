//===- AlgebraicInvariantFactor.cpp - algebraic-invariant-factor ----------===//
//
// algebraic-invariant-factor: a sum `acc += c * e` (or `-=`) in a loop whose
// factor `c` does not change in the loop multiplies by `c` in every
// iteration. When `acc` starts at zero right before the loop and the loop
// touches it nowhere else, `acc += e` in the loop and `acc *= c` after it
// compute c * (e_1 + e_2 + ...) instead of c*e_1 + c*e_2 + ...: one multiply
// per iteration fewer, results equal up to rounding (reassociating).
//
//===----------------------------------------------------------------------===//
#include "AlgebraicInvariantFactor.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {


RuleInfo AlgebraicInvariantFactor::info() const {
  RuleInfo I;
  I.Id = "algebraic-invariant-factor";
  I.Category = "algebraic";
  I.Summary = "acc += c * e in a loop with loop-invariant c -> acc += e, "
              "acc *= c once after the loop";
  I.Exactness = Exactness::Reassociating;
  I.Help = "A sum that multiplies every term by the same loop-invariant "
           "factor does one multiply per iteration more than needed: "
           "c*e1 + c*e2 + ... = c*(e1 + e2 + ...). The rewrite sums the "
           "terms and multiplies once after the loop, when the accumulator "
           "starts at zero right before the loop and the loop uses it "
           "nowhere else. Results change by rounding only.";
  I.Doc.Detects =
      "A sum `acc += c * e` (or `acc -= c * e`, `e * c`, `c * a * b`) in a "
      "loop, where the factor `c` is a local variable or parameter that "
      "the loop does not change and `acc` is a local floating-point "
      "accumulator.";
  I.Doc.WhySlow =
      "Every iteration multiplies by the same `c`: `c*e1 + c*e2 + ...` "
      "costs a multiply per term more than `c * (e1 + e2 + ...)`. With "
      "`acc += c * a[k] * b[k]` that is an `FMUL` plus an `FFMA` per "
      "iteration instead of one `FFMA`. (Pure loop-invariant arithmetic, "
      "e.g. `alpha * beta`, the compiler already hoists by itself; a "
      "factor applied to every term it cannot remove, because that changes "
      "rounding.)";
  I.Doc.Example = R"cuda(float acc = 0.0f;
for (int k = 0; k < n; ++k)
  acc += alpha * a[row * n + k] * b[k];   // warning
out[row] = acc;)cuda";
  I.Doc.Fix =
      "```cuda\n"
      "float acc = 0.0f;\n"
      "for (int k = 0; k < n; ++k)\n"
      "  acc += a[row * n + k] * b[k];\n"
      "acc *= alpha;\n"
      "out[row] = acc;\n"
      "```\n"
      "\n"
      "The terms are summed without the factor and the sum is multiplied "
      "once after the loop. That is a reassociation: results differ by "
      "rounding (tolerance class; `--verify=run` compares within "
      "tolerance, and a plain `--fix` does not apply it without "
      "`--allow-unverified`). Only when `acc` starts at zero (its "
      "declaration's initializer) in the block of the loop, is not used "
      "between its declaration and the loop, and is used nowhere else in "
      "the loop; a loop that runs zero times then gives `0 * c` (which is "
      "NaN, not 0, when `c` is infinite or NaN). Because a dot product can "
      "cancel to nearly zero, the fix asks the verifier for `scale_rtol` "
      "1e-4 (an error up to 1e-4 of the output's largest value; "
      "docs/verify.md) besides rtol 1e-5 / atol 1e-6.\n"
      "\n"
      "Measured on the H200 (docs/gpu-runs/2026-11-29-session3): on "
      "`utils/bench-structural/factor.cu` (1M dot products of 4096 terms "
      "from shared memory) the benchmark gives 1447.1 us -> 1291.7 us, "
      "**1.12x**, with the rewrite closer to an fp64 reference than the "
      "original (4.2e-6 against 5.9e-6 of the output scale); the verifier "
      "accepted it at 1.13x (95% CI 1.13-1.13x) and `--fix --verify=run` "
      "applied it. The saving is one multiply per iteration, so it shows "
      "where multiplies are a visible part of the loop's work (that "
      "benchmark has no global traffic in the loop); under `--fix "
      "--verify=run` the verifier decides per kernel.\n"
      "\n"
      "## When there is no fix\n"
      "\n"
      "- `acc` does not start at zero, or is used between its declaration "
      "and the loop, or the loop reads or writes it anywhere else (a "
      "condition, another statement);\n"
      "- the loop can `return` or `goto` out (the multiply after it would "
      "be skipped);\n"
      "- the code comes from a macro.\n"
      "\n"
      "Not reported: factors the loop changes (assigns, or declares: a "
      "variable declared in the loop's body, even outside an inner loop "
      "that adds to `acc`, has a new value on each iteration of the loop "
      "around it), integer sums, factors that are expressions rather than "
      "a variable.";
  return I;
}

void AlgebraicInvariantFactor::runOn(ASTContext &Ctx, const CheckContext &CC,
                                     const FunctionDecl *K,
                                     const FunctionFacts &F,
                                     std::vector<Finding> &Out) {
  (void)CC;
  (void)F;
  forEachStmt(K->getBody(), [&](const Stmt *S) {
    const auto *CA = dyn_cast<CompoundAssignOperator>(S);
    if (!CA ||
        (CA->getOpcode() != BO_AddAssign && CA->getOpcode() != BO_SubAssign))
      return;
    const VarDecl *Acc = varOf(CA->getLHS());
    if (!Acc || !Acc->hasLocalStorage() ||
        !Acc->getType()->isRealFloatingType())
      return;
    const auto *Mul =
        dyn_cast<BinaryOperator>(CA->getRHS()->IgnoreParenImpCasts());
    if (!Mul || Mul->getOpcode() != BO_Mul ||
        !Mul->getType()->isRealFloatingType())
      return;
    analyze(Ctx, K, CA, Acc, Mul, Out);
  });
}

bool AlgebraicInvariantFactor::splitFactor(
    ASTContext &Ctx, const BinaryOperator *Mul,
    const std::set<const VarDecl *> &Written, const VarDecl *Acc,
    const VarDecl *&C, std::string &Rest) {
  auto Invariant = [&](const Expr *E) -> const VarDecl * {
    const VarDecl *V = varOf(E);
    if (!V || V == Acc || Written.count(V) || !V->getType()->isScalarType() ||
        V->getType().isVolatileQualified() ||
        !(V->hasLocalStorage() || isa<ParmVarDecl>(V)))
      return nullptr;
    return V;
  };
  if ((C = Invariant(Mul->getLHS()))) {
    Rest = sourceText(Ctx, Mul->getRHS()->getSourceRange());
    return !Rest.empty();
  }
  if ((C = Invariant(Mul->getRHS()))) {
    Rest = sourceText(Ctx, Mul->getLHS()->getSourceRange());
    return !Rest.empty();
  }
  // (c * a) * b -> a * b
  if (const auto *In =
          dyn_cast<BinaryOperator>(Mul->getLHS()->IgnoreParenImpCasts()))
    if (In->getOpcode() == BO_Mul && (C = Invariant(In->getLHS()))) {
      std::string A = sourceText(Ctx, In->getRHS()->getSourceRange());
      std::string B = sourceText(Ctx, Mul->getRHS()->getSourceRange());
      Rest = A + " * " + B;
      return !A.empty() && !B.empty();
    }
  return false;
}

void AlgebraicInvariantFactor::analyze(ASTContext &Ctx, const FunctionDecl *K,
                                       const CompoundAssignOperator *CA,
                                       const VarDecl *Acc,
                                       const BinaryOperator *Mul,
                                       std::vector<Finding> &Out) {
  // The loop: the statement of the accumulator's block that holds CA.
  const Stmt *L = nullptr;
  const CompoundStmt *Block = nullptr;
  {
    const Stmt *Cur = CA;
    while (true) {
      auto P = Ctx.getParents(*Cur);
      if (P.empty())
        return;
      const Stmt *Up = P[0].get<Stmt>();
      if (!Up)
        return;
      if (isLoop(Up))
        L = Up; // the outermost loop below the accumulator's block wins
      if (const auto *CS = dyn_cast<CompoundStmt>(Up)) {
        bool DeclaresAcc = false;
        for (const Stmt *X : CS->body())
          if (const auto *DS = dyn_cast<DeclStmt>(X))
            for (const Decl *D : DS->decls())
              DeclaresAcc |= D == Acc;
        if (DeclaresAcc) {
          Block = CS;
          break;
        }
      }
      Cur = Up;
    }
  }
  if (!L || !Block)
    return;
  // L must be a statement of Block itself, after the declaration.
  bool SeenDecl = false, LoopInBlock = false, UsedBetween = false;
  for (const Stmt *X : Block->body()) {
    if (X == L) {
      LoopInBlock = SeenDecl;
      break;
    }
    if (SeenDecl && countReferences(X, Acc))
      UsedBetween = true;
    if (const auto *DS = dyn_cast<DeclStmt>(X))
      for (const Decl *D : DS->decls())
        SeenDecl |= D == Acc;
  }
  if (!LoopInBlock)
    return;
  // What changes in the loop: variables it writes, and those it declares
  // (initialised again on every iteration).
  std::set<const VarDecl *> Written = varsWrittenIn(L);
  const Stmt *Body = loopBody(L);
  forEachStmt(Body ? Body : L, [&](const Stmt *X) {
    if (const auto *DS = dyn_cast<DeclStmt>(X))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          Written.insert(V);
  });
  const VarDecl *C = nullptr;
  std::string Rest;
  if (!splitFactor(Ctx, Mul, Written, Acc, C, Rest))
    return;
  std::string AccName = Acc->getName().str(), CName = C->getName().str();
  Finding Fd = makeFinding(
      Ctx, "algebraic-invariant-factor", CA->getBeginLoc(),
      "every term added to '" + AccName + "' is multiplied by '" + CName +
          "', which does not change in the loop; summing the terms and "
          "multiplying by '" +
          CName + "' once after the loop saves a multiply per iteration",
      K);
  Fd.Notes.push_back(makeNote(Ctx, L->getBeginLoc(), "the loop"));
  auto Fail = [&](const std::string &W) {
    refuse(Fd, W);
    Out.push_back(Fd);
  };
  if (!isZeroConstant(Ctx, Acc->getInit()))
    return Fail("'" + AccName +
                "' does not start at zero (its initial "
                "value would be multiplied by '" +
                CName + "' too)");
  if (UsedBetween)
    return Fail("'" + AccName +
                "' is used between its declaration and the loop");
  if (countReferences(L, Acc) != 1)
    return Fail("the loop uses '" + AccName +
                "' elsewhere too (it would see "
                "the sum without the factor)");
  if (containsEscape(L, /*AllowContinue=*/true))
    return Fail("the loop can leave the function (return or goto)");
  if (inMacro(CA->getSourceRange()) || inMacro(L->getSourceRange()))
    return Fail("the code comes from a macro expansion");
  FixIt Fix;
  Fix.Exact = Exactness::Reassociating;
  Fix.Rtol = 1e-5;
  Fix.Atol = 1e-6;
  Fix.ScaleRtol = 1e-4; // outputs that cancel to ~0 (see docs/verify.md)
  Fix.Edits.push_back(makeTextEdit(
      Ctx, CharSourceRange::getTokenRange(CA->getRHS()->getSourceRange()),
      Rest));
  Fix.Edits.push_back(makeInsertion(Ctx, stmtEnd(Ctx, L),
                                    "\n" + indentOf(Ctx, L->getBeginLoc()) +
                                        AccName + " *= " + CName + ";"));
  Fix.Description = "sum the terms in the loop and multiply '" + AccName +
                    "' by '" + CName + "' once after it";
  Fd.Fix = Fix;
  Out.push_back(Fd);
}

void AlgebraicInvariantFactor::checkKernel(const KernelUnit &Kernel) {
  if (Kernel.IsTemplate)
    return;
  std::vector<Finding> Out;
  runOn(ctx(), context(), Kernel.FD, Kernel.Facts, Out);
  for (Finding &F : Out)
    report(std::move(F));
}

} // namespace cudal1
