//===- AlgebraicReciprocalHoist.cpp - algebraic-reciprocal-hoist ----------===//
//
// algebraic-reciprocal-hoist: x / s in a loop with s loop-invariant becomes
// x * inv_s with inv_s = 1 / s computed once before the loop (within 2
// ulp). Divisions and modulos by loop-invariant values that have no such
// rewrite (integers, divisors that are expressions) are reported without a
// fix (this rule took over algebraic-division-invariant).
//
//===----------------------------------------------------------------------===//
#include "AlgebraicReciprocalHoist.h"
#include "cudal1/Rules/SpelledType.h"

#include "FloatTypes.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"

#include <map>
#include <set>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace cudal1 {

RuleInfo AlgebraicReciprocalHoist::info() const {
  RuleInfo I;
  I.Id = "algebraic-reciprocal-hoist";
  I.Category = "algebraic";
  I.Summary = "floating division by a loop-invariant value in a loop; "
              "multiply by a reciprocal computed once before the loop";
  I.Exactness = Exactness::Ulp;
  I.Help = "IEEE float division costs a multi-instruction sequence per "
           "iteration; the reciprocal is computed once before the loop and "
           "each division becomes a multiply. x * (1/s) differs from x / s "
           "by at most 2 ulp (and overflows when 1/s does, for |s| below "
           "about 3e-39). Other divisions and modulos by loop-invariant "
           "values (integers, divisors that are expressions, /=) are "
           "reported without a fix.";
  I.ExactnessNote =
      "ulp (2)";
  I.Doc.Detects =
      "Floating division `x / s` inside a loop where `s` is a parameter or "
      "local that the loop does not change.\n"
      "\n"
      "It also reports, without a fix, integer divisions and modulos by "
      "loop-invariant values, and floating divisions whose divisor is an "
      "expression or that use `/=` (this rule took over "
      "`algebraic-division-invariant`), in innermost loops only: a division "
      "in a loop that holds another loop (a tile loop around its k loop) "
      "runs once per inner loop and is not where the time goes.";
  I.Doc.WhySlow =
      "Each iteration pays a full IEEE division; the reciprocal can be "
      "computed once.";
  I.Doc.Example = R"cuda(for (int k = 0; k < m; ++k) {
  out[i] += in[k] / s;
})cuda";
  I.Doc.Fixed = R"cuda(const float inv_s = 1.0f / s;
for (int k = 0; k < m; ++k) {
  out[i] += in[k] * inv_s;
})cuda";
  I.Doc.Fix =
      "Declares the reciprocal before the outermost loop in which `s` is "
      "invariant and turns every division by `s` in it into a multiply "
      "(one fix). x*(1/s) is within 2 ulp of x/s; it overflows where 1/s "
      "does (|s| below about 3e-39 for float). Needs `--verify=run` or "
      "`--allow-unverified`. No fix when the loop does not start its own "
      "line inside a `{ }` block.";
  return I;
}

void AlgebraicReciprocalHoist::registerMatchers(MatchFinder &F) {
  F.addMatcher(
      binaryOperator(
          hasOperatorName("/"), hasType(realFloatingPointType()),
          hasRHS(ignoringParenImpCasts(declRefExpr(to(varDecl().bind("var"))))))
          .bind("div"),
      this);
}

void AlgebraicReciprocalHoist::check(const MatchFinder::MatchResult &R) {
  const auto *BO = R.Nodes.getNodeAs<BinaryOperator>("div");
  const auto *VD = R.Nodes.getNodeAs<VarDecl>("var");
  ASTContext &C = ctx();
  if (!BO || !VD || BO->isTypeDependent() || BO->isValueDependent())
    return;
  QualType T = BO->getType();
  if (!(isFloat(T) || isDouble(T)) ||
      !C.hasSameUnqualifiedType(VD->getType().getNonReferenceType(), T))
    return;
  if (!(isa<ParmVarDecl>(VD) || VD->isLocalVarDecl()) ||
      VD->getType()->isReferenceType() || VD->getType().isVolatileQualified() ||
      VD->hasAttr<CUDASharedAttr>() || VD->isStaticLocal())
    return;
  const FunctionDecl *FD = functionOf(*BO);
  if (!FD || !isDeviceCode(FD) || isInInstantiation(FD) || !FD->getBody())
    return;
  // The outermost loop around the division in which the variable is not
  // changed and which the variable's declaration precedes.
  const Stmt *Best = nullptr;
  const Stmt *Cur = BO;
  const SourceManager &SM = C.getSourceManager();
  while (const Stmt *L = enclosingLoop(C, *Cur)) {
    if (!SM.isBeforeInTranslationUnit(VD->getEndLoc(), L->getBeginLoc()))
      break;
    ExprMutationAnalyzer EMA(*L, C);
    if (EMA.isMutated(VD))
      break;
    Best = L;
    Cur = L;
  }
  if (!Best)
    return;
  for (Group &G : Groups)
    if (G.Loop == Best && G.Var == VD) {
      G.Divs.push_back(BO);
      return;
    }
  Groups.push_back({Best, VD, FD, {BO}});
}

void AlgebraicReciprocalHoist::checkTranslationUnit() {
  ASTContext &C = ctx();
  std::set<unsigned> Grouped;
  for (Group &G : Groups)
    for (const BinaryOperator *BO : G.Divs)
      Grouped.insert(sourceManager()
                         .getExpansionLoc(BO->getOperatorLoc())
                         .getRawEncoding());
  for (Group &G : Groups) {
    const BinaryOperator *First = G.Divs.front();
    if (!firstInUserCode(First->getOperatorLoc()))
      continue;
    std::string Var = G.Var->getName().str();
    bool IsF = isFloat(G.Var->getType());
    Finding F = makeFinding(
        C, id(), First->getOperatorLoc(),
        "division by loop-invariant '" + Var + "' inside a loop (" +
            std::to_string(G.Divs.size()) + " division" +
            (G.Divs.size() == 1 ? "" : "s") +
            "); a reciprocal computed once before the loop turns each into "
            "a multiply",
        G.FD);
    F.Notes.push_back(
        makeNote(C, G.Loop->getBeginLoc(),
                 "the loop in which '" + Var + "' does not change"));
    std::string Why;
    auto Indent = lineIndent(ctx(), G.Loop->getBeginLoc());
    auto Parents = C.getParents(*G.Loop);
    bool InBlock = !Parents.empty() && Parents[0].get<CompoundStmt>();
    if (!Indent || !InBlock || G.Loop->getBeginLoc().isMacroID()) {
      F.WhyNoFix = "the loop does not start its own line in a { } block, "
                   "so the reciprocal cannot be declared before it";
      report(std::move(F));
      continue;
    }
    std::string Name = freshName(C, context(), G.FD, "inv_" + Var);
    FixIt X;
    X.Description = "compute 1/" + Var + " once before the loop";
    X.Exact = Exactness::Ulp;
    X.Ulp = 2;
    std::string Type = spelledType(C, G.Var);
    X.Edits.push_back(makeInsertion(C, G.Loop->getBeginLoc(),
                                    "const " + Type + " " + Name + " = " +
                                        (IsF ? "1.0f" : "1.0") + " / " + Var +
                                        ";\n" + *Indent));
    bool Ok = true;
    for (const BinaryOperator *BO : G.Divs) {
      auto R =
          editableRange(C,
                        CharSourceRange::getTokenRange(
                            BO->getOperatorLoc(), BO->getRHS()->getEndLoc()),
                        Why);
      if (!R) {
        Ok = false;
        break;
      }
      X.Edits.push_back(makeTextEdit(C, *R, "* " + Name));
    }
    if (!Ok)
      F.WhyNoFix = Why;
    else
      F.Fix = std::move(X);
    report(std::move(F));
  }
  Groups.clear();
  reportOtherInvariantDivisions(Grouped);
}

void AlgebraicReciprocalHoist::reportOtherInvariantDivisions(
    const std::set<unsigned> &Grouped) {
  ASTContext &Ctx = ctx();
  std::map<const Stmt *, std::set<const VarDecl *>> ChangedCache;
  forEachDeviceStmt(
      Ctx, context(),
      [&](const Stmt *S, const FunctionDecl *FD, ArrayRef<const Stmt *> Loops) {
        const auto *BO = dyn_cast<BinaryOperator>(S);
        if (!BO || Loops.empty())
          return;
        BinaryOperatorKind Op = BO->getOpcode();
        if (Op != BO_Div && Op != BO_Rem && Op != BO_DivAssign &&
            Op != BO_RemAssign)
          return;
        const Expr *RHS = BO->getRHS();
        if (!RHS->isValueDependent()) {
          Expr::EvalResult R;
          if (RHS->EvaluateAsRValue(R, Ctx))
            return; // a constant divisor
        }
        const Stmt *Loop = Loops.back();
        // Only where the division is in an innermost loop: in a loop that
        // holds another (a tile loop around its k loop, a row loop around
        // its column loop) it runs once per inner loop's iterations, and
        // its cost is not where the time goes.
        if (containsLoop(Loop))
          return;
        auto It = ChangedCache.find(Loop);
        if (It == ChangedCache.end())
          It = ChangedCache.emplace(Loop, varsChangedIn(Loop)).first;
        bool HasVar = false;
        if (!isLoopInvariant(RHS, It->second, HasVar) || !HasVar)
          return;
        // If the dividend is invariant too, the whole division is hoisted.
        bool LHSVar = false;
        if (isLoopInvariant(BO->getLHS(), It->second, LHSVar))
          return;
        SourceLocation OpLoc = BO->getOperatorLoc();
        if (Grouped.count(
                sourceManager().getExpansionLoc(OpLoc).getRawEncoding()) ||
            !firstInUserCode(OpLoc))
          return;
        QualType T = BO->getType();
        std::string D = oneLineText(Ctx, RHS->getSourceRange());
        std::string Msg, Why;
        if (T->isRealFloatingType()) {
          Msg = "floating-point division by the loop-invariant '" + D +
                "' on every iteration (about 8 instructions plus a slow-path "
                "check each): compute 'inv = 1.0f / (" +
                D +
                ")' once before the loop and multiply (results may differ by "
                "1 ulp)";
          Why =
              "only '/' by a variable of the division's type, declared before "
              "the loop, gets a hoisted reciprocal";
        } else if (T->isIntegerType()) {
          Msg = std::string("integer ") +
                (Op == BO_Rem || Op == BO_RemAssign ? "modulo" : "division") +
                " by the loop-invariant '" + D +
                "' on every iteration (about 20 instructions each): hoist "
                "what you can out of the loop, e.g. step a second counter "
                "instead of recomputing the quotient, or use a power-of-two "
                "size";
          Why = "an integer division by a run-time value has no exact "
                "multiply-by-reciprocal form";
        } else {
          return;
        }
        Finding F =
            makeFinding(Ctx, id(), OpLoc, Msg, FD, BO->getSourceRange());
        note(F, Loop->getBeginLoc(),
             "'" + D + "' does not change in this loop");
        reportWithoutFix(std::move(F), Why);
      });
}

} // namespace cudal1
