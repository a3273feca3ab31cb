//===- LoopRules.cpp - unrolling pragmas ----------------------------------===//
//
// unrolling-constant-trip  #pragma unroll on innermost loops whose trip count
//                          is a compile-time constant (or a template argument)
// unrolling-param-bound    #pragma unroll N on small innermost loops bounded
//                          by an unchanged parameter
//
//===----------------------------------------------------------------------===//
#include "CheckBase.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace cudal1 {
namespace {

struct LoopShape {
  const VarDecl *IV = nullptr;
  const Expr *Init = nullptr;
  const Expr *Bound = nullptr;
  BinaryOperatorKind Cmp = BO_LT;
  int64_t Step = 0;
};

const VarDecl *refVar(const Expr *E) {
  if (!E)
    return nullptr;
  if (const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(D->getDecl());
  return nullptr;
}

std::optional<LoopShape> analyzeFor(ASTContext &Ctx, const ForStmt *F) {
  LoopShape S;
  // init
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit())) {
    if (!DS->isSingleDecl())
      return std::nullopt;
    const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl());
    if (!VD || !VD->getInit())
      return std::nullopt;
    S.IV = VD;
    S.Init = VD->getInit();
  } else if (const auto *BO =
                 dyn_cast_or_null<BinaryOperator>(F->getInit())) {
    if (BO->getOpcode() != BO_Assign)
      return std::nullopt;
    S.IV = refVar(BO->getLHS());
    S.Init = BO->getRHS();
  }
  if (!S.IV || !S.IV->getType()->isIntegerType())
    return std::nullopt;
  // condition
  const auto *C = dyn_cast_or_null<BinaryOperator>(
      F->getCond() ? F->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!C || !C->isComparisonOp() || C->getOpcode() == BO_EQ)
    return std::nullopt;
  if (refVar(C->getLHS()) == S.IV) {
    S.Bound = C->getRHS();
    S.Cmp = C->getOpcode();
  } else if (refVar(C->getRHS()) == S.IV) {
    S.Bound = C->getLHS();
    S.Cmp = BinaryOperator::reverseComparisonOp(C->getOpcode());
  } else {
    return std::nullopt;
  }
  // increment
  const Expr *Inc = F->getInc() ? F->getInc()->IgnoreParenImpCasts() : nullptr;
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(Inc)) {
    if (refVar(U->getSubExpr()) != S.IV || !U->isIncrementDecrementOp())
      return std::nullopt;
    S.Step = U->isIncrementOp() ? 1 : -1;
  } else if (const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(Inc)) {
    Expr::EvalResult R;
    if (refVar(CA->getLHS()) != S.IV ||
        !CA->getRHS()->EvaluateAsInt(R, Ctx))
      return std::nullopt;
    int64_t V = R.Val.getInt().getExtValue();
    if (CA->getOpcode() == BO_AddAssign)
      S.Step = V;
    else if (CA->getOpcode() == BO_SubAssign)
      S.Step = -V;
    else
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (S.Step == 0)
    return std::nullopt;
  // the body must not change the induction variable
  if (F->getBody()) {
    ExprMutationAnalyzer EMA(*F->getBody(), Ctx);
    if (EMA.isMutated(S.IV))
      return std::nullopt;
  }
  return S;
}

bool hasInnerLoop(const Stmt *S) {
  if (!S)
    return false;
  for (const Stmt *C : S->children()) {
    if (!C)
      continue;
    if (isa<ForStmt>(C) || isa<WhileStmt>(C) || isa<DoStmt>(C) ||
        isa<CXXForRangeStmt>(C))
      return true;
    if (hasInnerLoop(C))
      return true;
  }
  return false;
}

unsigned countStmts(const Stmt *S) {
  if (!S)
    return 0;
  unsigned N = isa<Expr>(S) ? 0 : 1;
  for (const Stmt *C : S->children())
    if (C && !isa<Expr>(C))
      N += countStmts(C);
    else if (C)
      N += 0;
  return N;
}

bool hasLoopHint(ASTContext &Ctx, const Stmt *Loop) {
  auto P = Ctx.getParents(*Loop);
  if (P.empty())
    return false;
  if (const auto *AS = P[0].get<AttributedStmt>())
    for (const Attr *A : AS->getAttrs())
      if (isa<LoopHintAttr>(A))
        return true;
  return false;
}

std::optional<int64_t> evalInt(ASTContext &Ctx, const Expr *E) {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  Expr::EvalResult R;
  if (!E->EvaluateAsInt(R, Ctx))
    return std::nullopt;
  return R.Val.getInt().getExtValue();
}

std::optional<int64_t> tripCount(int64_t Init, int64_t Bound,
                                 BinaryOperatorKind Cmp, int64_t Step) {
  int64_t Span;
  switch (Cmp) {
  case BO_LT:
    if (Step <= 0)
      return std::nullopt;
    Span = Bound - Init;
    break;
  case BO_LE:
    if (Step <= 0)
      return std::nullopt;
    Span = Bound - Init + 1;
    break;
  case BO_GT:
    if (Step >= 0)
      return std::nullopt;
    Span = Init - Bound;
    Step = -Step;
    break;
  case BO_GE:
    if (Step >= 0)
      return std::nullopt;
    Span = Init - Bound + 1;
    Step = -Step;
    break;
  case BO_NE:
    if (Step > 0 && Bound >= Init && (Bound - Init) % Step == 0)
      return (Bound - Init) / Step;
    if (Step < 0 && Init >= Bound && (Init - Bound) % -Step == 0)
      return (Init - Bound) / -Step;
    return std::nullopt;
  default:
    return std::nullopt;
  }
  if (Span <= 0)
    return 0;
  return (Span + Step - 1) / Step;
}

class UnrollBase : public MatcherCheck {
protected:
  void registerMatchers(MatchFinder &F) override {
    F.addMatcher(forStmt().bind("for"), this);
  }

  /// The pragma insertion, or the reason there is none.
  bool pragmaFix(const ForStmt *For, StringRef Pragma, FixIt &X,
                 std::string &Why) {
    ASTContext &C = *Ctx;
    auto Indent = lineIndent(For->getBeginLoc());
    auto P = C.getParents(*For);
    if (For->getBeginLoc().isMacroID() || inMacro(For->getSourceRange())) {
      Why = "the loop comes from a macro expansion";
      return false;
    }
    if (!Indent || P.empty() || !P[0].get<CompoundStmt>()) {
      Why = "the loop does not start its own line in a { } block";
      return false;
    }
    X.Description = "add " + Pragma.str();
    X.Exact = Exactness::Bitwise;
    X.Edits.push_back(
        makeInsertion(C, For->getBeginLoc(), Pragma.str() + "\n" + *Indent));
    return true;
  }

  const ForStmt *candidate(const MatchFinder::MatchResult &R,
                           std::optional<LoopShape> &Shape,
                           const FunctionDecl *&FD) {
    const auto *For = R.Nodes.getNodeAs<ForStmt>("for");
    if (!For)
      return nullptr;
    FD = functionOf(*For);
    if (!FD || !isDeviceCode(FD) || isInInstantiation(FD))
      return nullptr;
    const Stmt *Body = For->getBody();
    if (Body && (isa<ForStmt>(Body) || isa<WhileStmt>(Body) ||
                 isa<DoStmt>(Body) || isa<CXXForRangeStmt>(Body)))
      return nullptr;
    if (hasInnerLoop(Body) || hasLoopHint(*Ctx, For))
      return nullptr;
    Shape = analyzeFor(*Ctx, For);
    if (!Shape)
      return nullptr;
    return For;
  }
};

class ConstantTripUnrollCheck : public UnrollBase {
public:
  RuleInfo info() const override {
    RuleInfo I;
    I.Id = "unrolling-constant-trip";
    I.Category = "unrolling";
    I.Summary = "innermost loop with a compile-time trip count is not "
                "unrolled; add #pragma unroll";
    I.Exactness = Exactness::Bitwise;
    I.Help = "A loop whose trip count is a constant (or a template argument) "
             "can be fully unrolled: no counter, no branch, and loads from "
             "different iterations can be issued together. The pragma "
             "changes no result. Loops with more than MaxTripCount "
             "iterations are left alone (code size).";
    I.DefaultOptions["MaxTripCount"] = "64";
    return I;
  }

protected:
  void run(const MatchFinder::MatchResult &R) override {
    std::optional<LoopShape> S;
    const FunctionDecl *FD;
    const ForStmt *For = candidate(R, S, FD);
    if (!For)
      return;
    ASTContext &C = *Ctx;
    auto Init = evalInt(C, S->Init);
    auto Bound = evalInt(C, S->Bound);
    std::string TripText;
    if (Init && Bound) {
      auto T = tripCount(*Init, *Bound, S->Cmp, S->Step);
      if (!T || *T < 2 || *T > optionInt("MaxTripCount", 64))
        return;
      TripText = std::to_string(*T);
    } else if (Init && S->Bound->isValueDependent() &&
               !S->Bound->isTypeDependent() && (S->Step == 1 || S->Step == -1)) {
      // Bounded by a template argument: a constant in every instantiation.
      TripText = "'" + sourceText(C, S->Bound->getSourceRange()) +
                 "' (a template argument)";
    } else {
      return;
    }
    if (!wanted(For->getBeginLoc()))
      return;
    Finding F = makeFinding(C, id(), For->getBeginLoc(),
                            "loop with constant trip count " + TripText +
                                " is not unrolled; '#pragma unroll' removes "
                                "the counter and branch and lets loads of "
                                "different iterations overlap",
                            FD);
    FixIt X;
    std::string Why;
    if (pragmaFix(For, "#pragma unroll", X, Why))
      F.Fix = std::move(X);
    else
      F.WhyNoFix = Why;
    emit(std::move(F));
  }
};
CUDAL1_REGISTER_CHECK(ConstantTripUnrollCheck);

class ParamBoundUnrollCheck : public UnrollBase {
public:
  RuleInfo info() const override {
    RuleInfo I;
    I.Id = "unrolling-param-bound";
    I.Category = "unrolling";
    I.Summary = "small innermost loop bounded by a parameter; add "
                "#pragma unroll N";
    I.Exactness = Exactness::Bitwise;
    I.Help = "A short loop body bounded by a kernel parameter runs its "
             "counter, compare and branch every iteration; partial unrolling "
             "by Factor (default 4) amortises them and lets loads overlap. "
             "The compiler keeps a remainder loop, so any trip count is "
             "handled and results are unchanged.";
    I.DefaultOptions["Factor"] = "4";
    I.DefaultOptions["MaxBodyStatements"] = "8";
    return I;
  }

protected:
  void run(const MatchFinder::MatchResult &R) override {
    std::optional<LoopShape> S;
    const FunctionDecl *FD;
    const ForStmt *For = candidate(R, S, FD);
    if (!For)
      return;
    ASTContext &C = *Ctx;
    if (S->Step != 1 && S->Step != -1)
      return;
    if (!evalInt(C, S->Init) || evalInt(C, S->Bound) ||
        S->Bound->isValueDependent())
      return;
    // The bound: a parameter (or a local copy of one) never changed.
    const VarDecl *B = refVar(S->Bound);
    if (!B || !FD->getBody())
      return;
    if (!isa<ParmVarDecl>(B)) {
      if (!B->isLocalVarDecl() || !B->getInit() || !refVar(B->getInit()) ||
          !isa<ParmVarDecl>(refVar(B->getInit())))
        return;
    }
    ExprMutationAnalyzer EMA(*FD->getBody(), C);
    if (EMA.isMutated(B))
      return;
    if (countStmts(For->getBody()) >
        unsigned(optionInt("MaxBodyStatements", 8)))
      return;
    if (!wanted(For->getBeginLoc()))
      return;
    int64_t Factor = optionInt("Factor", 4);
    if (Factor < 2)
      return;
    std::string Pragma = "#pragma unroll " + std::to_string(Factor);
    Finding F = makeFinding(C, id(), For->getBeginLoc(),
                            "small loop bounded by parameter '" +
                                B->getName().str() +
                                "' is not unrolled; '" + Pragma +
                                "' amortises the counter and branch and "
                                "lets loads overlap",
                            FD);
    FixIt X;
    std::string Why;
    if (pragmaFix(For, Pragma, X, Why))
      F.Fix = std::move(X);
    else
      F.WhyNoFix = Why;
    emit(std::move(F));
  }
};
CUDAL1_REGISTER_CHECK(ParamBoundUnrollCheck);

} // namespace
} // namespace cudal1
