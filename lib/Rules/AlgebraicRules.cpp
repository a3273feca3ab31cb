//===- AlgebraicRules.cpp - local algebraic transformations ---------------===//
//
// algebraic-float-literal      double literals in float arithmetic -> 1.5f
// algebraic-float-math         double math functions on float data -> sqrtf
// algebraic-division-constant   x / 2^k -> x * 2^-k (exact)
// algebraic-reciprocal-hoist  x / s in a loop, s loop-invariant -> hoisted
//                               reciprocal, x * inv_s
// algebraic-pow2-divmod         i / 2^k, i % 2^k on values >= 0 -> shift, mask
// algebraic-repeated-subexpr    a pure subexpression repeated in a statement
//                               -> one local
//
//===----------------------------------------------------------------------===//
#include "CheckBase.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <functional>
#include <map>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace cudal1 {
namespace {

const Expr *parentExpr(ASTContext &Ctx, const Expr *E) {
  auto P = Ctx.getParents(*E);
  return P.empty() ? nullptr : P[0].get<Expr>();
}

/// Skips parentheses upward.
const Expr *parentSkippingParens(ASTContext &Ctx, const Expr *E,
                                 const Expr **Child = nullptr) {
  const Expr *C = E;
  const Expr *P = parentExpr(Ctx, E);
  while (P && isa<ParenExpr>(P)) {
    C = P;
    P = parentExpr(Ctx, P);
  }
  if (Child)
    *Child = C;
  return P;
}

bool isFloat(QualType T) {
  return T.getCanonicalType()->isSpecificBuiltinType(BuiltinType::Float);
}
bool isDouble(QualType T) {
  return T.getCanonicalType()->isSpecificBuiltinType(BuiltinType::Double);
}

/// A float value promoted to double: ImplicitCastExpr<FloatingCast> of a
/// float expression.
bool isPromotedFloat(const Expr *E) {
  const auto *IC = dyn_cast<ImplicitCastExpr>(E->IgnoreParens());
  return IC && IC->getCastKind() == CK_FloatingCast &&
         isFloat(IC->getSubExpr()->getType()) && isDouble(IC->getType());
}

/// A double value computed only from promoted floats and double literals
/// (+ - * / of those), with at least one promoted float.
bool floatDerived(const Expr *E, bool &AnyFloat) {
  E = E->IgnoreParens();
  if (isPromotedFloat(E)) {
    AnyFloat = true;
    return true;
  }
  if (const auto *L = dyn_cast<FloatingLiteral>(E))
    return isDouble(L->getType());
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    if (U->getOpcode() == UO_Minus || U->getOpcode() == UO_Plus)
      return floatDerived(U->getSubExpr(), AnyFloat);
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    if (isDouble(B->getType()) && (B->isAdditiveOp() || B->isMultiplicativeOp()) &&
        B->getOpcode() != BO_Rem)
      return floatDerived(B->getLHS(), AnyFloat) &&
             floatDerived(B->getRHS(), AnyFloat);
  return false;
}

/// Converted to float right away: ImplicitCastExpr<FloatingCast> to float.
bool convertedToFloat(ASTContext &Ctx, const Expr *E) {
  const Expr *P = parentSkippingParens(Ctx, E);
  const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(P);
  return IC && IC->getCastKind() == CK_FloatingCast && isFloat(IC->getType());
}

bool exactlyFloat(const APFloat &V) {
  APFloat F = V;
  bool LosesInfo = false;
  F.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &LosesInfo);
  return !LosesInfo;
}

std::string sourceOf(ASTContext &Ctx, const Expr *E) {
  return sourceText(Ctx, E->getSourceRange());
}

// ---------------------------------------------------------------------------
class DoubleLiteralCheck : public MatcherCheck {
public:
  RuleInfo info() const override {
    RuleInfo I;
    I.Id = "algebraic-float-literal";
    I.Category = "algebraic";
    I.Summary = "double literal in float arithmetic promotes it to double; "
                "use a float literal (1.5f)";
    I.Exactness = Exactness::Bitwise;
    I.Help = "In C++ an unsuffixed floating literal is a double, so "
             "`x * 0.5` with float x is computed in double precision, which "
             "runs at 1/2 to 1/64 of the FP32 rate on NVIDIA GPUs. The fix "
             "appends 'f'. It is bitwise exact when the literal is exactly "
             "representable as a float and the double result is converted "
             "straight back to float (one IEEE operation rounded twice, "
             "first to double then to float, gives the float-rounded result); "
             "otherwise its exactness is 'ulp' (up to 4 ulp).";
    return I;
  }

protected:
  void registerMatchers(MatchFinder &F) override {
    F.addMatcher(floatLiteral(hasType(realFloatingPointType())).bind("lit"), this);
  }

  void run(const MatchFinder::MatchResult &R) override {
    const auto *Lit = R.Nodes.getNodeAs<FloatingLiteral>("lit");
    if (!Lit || !isDouble(Lit->getType()))
      return;
    ASTContext &C = *Ctx;
    // The operand: the literal, possibly negated.
    const Expr *Operand = Lit;
    const Expr *P = parentSkippingParens(C, Lit, &Operand);
    if (const auto *U = dyn_cast_or_null<UnaryOperator>(P);
        U && (U->getOpcode() == UO_Minus || U->getOpcode() == UO_Plus))
      P = parentSkippingParens(C, U, &Operand);
    const auto *BO = dyn_cast_or_null<BinaryOperator>(P);
    if (!BO)
      return;
    const FunctionDecl *FD = functionOf(*Lit);
    if (!FD || !isDeviceCode(FD) || isInInstantiation(FD))
      return;
    BinaryOperatorKind Op = BO->getOpcode();
    const Expr *Other = BO->getLHS() == Operand ? BO->getRHS() : BO->getLHS();
    bool Bitwise = exactlyFloat(Lit->getValue());
    bool Applies = false;
    if (BO->isMultiplicativeOp() || BO->isAdditiveOp()) {
      if (Op == BO_Rem)
        return;
      bool AnyFloat = false;
      if (!floatDerived(Other, AnyFloat) || !AnyFloat)
        return;
      if (!isPromotedFloat(Other))
        Bitwise = false; // part of a longer double computation
      // The double result must end up in float, directly or through a chain
      // of double arithmetic.
      const Expr *QP = parentSkippingParens(C, BO);
      if (convertedToFloat(C, BO)) {
        Applies = true;
      } else if (const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(QP);
                 CA && CA->getRHS()->IgnoreParens() == BO &&
                 isFloat(CA->getLHS()->getType()) &&
                 isDouble(CA->getComputationLHSType())) {
        // acc += x * 0.5: the product, then the sum, move to float.
        Applies = true;
        Bitwise = false;
      } else {
        const Expr *Cur = BO;
        for (int I = 0; I < 8 && !Applies; ++I) {
          const Expr *Q = parentSkippingParens(C, Cur);
          const auto *QB = dyn_cast_or_null<BinaryOperator>(Q);
          if (!QB || !(QB->isMultiplicativeOp() || QB->isAdditiveOp()) ||
              !isDouble(QB->getType()))
            break;
          Cur = QB;
          Applies = convertedToFloat(C, QB);
        }
        Bitwise = false;
      }
    } else if (BO->isComparisonOp()) {
      // x < 0.5 with float x: exact only when the literal is a float value.
      if (!isPromotedFloat(Other) || !Bitwise)
        return;
      Applies = true;
    } else if (const auto *CA = dyn_cast<CompoundAssignOperator>(BO)) {
      if (CA->getRHS()->IgnoreParens() != Operand->IgnoreParens() ||
          !isFloat(CA->getLHS()->getType()) ||
          !isDouble(CA->getComputationLHSType()))
        return;
      if (Op == BO_RemAssign)
        return;
      Applies = true;
    }
    if (!Applies || !wanted(Lit->getLocation()))
      return;
    std::string Text = sourceText(C, Lit->getSourceRange());
    if (Text.empty()) {
      // In a macro body: the literal's own spelling.
      const SourceManager &SM = C.getSourceManager();
      Text = Lexer::getSourceText(CharSourceRange::getTokenRange(
                                      SM.getSpellingLoc(Lit->getLocation())),
                                  SM, C.getLangOpts())
                 .str();
    }
    StringRef T = Text;
    if (T.empty() || T.ends_with("f") || T.ends_with("F") ||
        T.ends_with("l") || T.ends_with("L"))
      return;
    Finding F = makeFinding(C, id(), Lit->getLocation(),
                            "double literal '" + Text +
                                "' promotes float arithmetic to double "
                                "(FP64 runs at 1/2 to 1/64 of the FP32 rate); "
                                "use '" + Text + "f'",
                            FD);
    std::string Why;
    auto ER = editableRange(C, CharSourceRange::getTokenRange(Lit->getSourceRange()), Why);
    if (!ER) {
      F.WhyNoFix = Why;
    } else {
      FixIt X;
      X.Description = "use the float literal " + Text + "f";
      X.Edits.push_back(makeTextEdit(C, *ER, Text + "f"));
      if (Bitwise) {
        X.Exact = Exactness::Bitwise;
      } else {
        X.Exact = Exactness::Ulp;
        X.Ulp = 4;
        F.Notes.push_back(makeNote(
            C, Lit->getLocation(),
            exactlyFloat(Lit->getValue())
                ? "the surrounding expression is then computed in float "
                  "rather than double: results may differ by a few ulp"
                : "the literal is not exactly representable as a float: "
                  "results may differ by a few ulp"));
      }
      F.Fix = std::move(X);
    }
    emit(std::move(F));
  }
};
CUDAL1_REGISTER_CHECK(DoubleLiteralCheck);

// ---------------------------------------------------------------------------
/// Maximum ulp error of CUDA's float function (CUDA Math API, "Single
/// Precision Mathematical Functions"), plus 1 for the double version rounded
/// to float. 0 = correctly rounded in both: bitwise.
std::optional<unsigned> floatVersionUlp(StringRef Name) {
  static const StringMap<unsigned> M = {
      {"sqrt", 0},  {"fabs", 0},  {"floor", 0}, {"ceil", 0},  {"trunc", 0},
      {"round", 0}, {"rint", 0},  {"fmin", 0},  {"fmax", 0},  {"fmod", 0},
      {"copysign", 0}, {"exp", 3}, {"exp2", 3}, {"exp10", 3}, {"expm1", 2},
      {"log", 2},   {"log2", 2},  {"log10", 3}, {"log1p", 2}, {"sin", 3},
      {"cos", 3},   {"tan", 5},   {"asin", 3},  {"acos", 3},  {"atan", 3},
      {"atan2", 4}, {"sinh", 4},  {"cosh", 3},  {"tanh", 3},  {"pow", 5},
      {"cbrt", 2},  {"hypot", 4}, {"erf", 3},   {"erfc", 5},  {"rsqrt", 3}};
  auto It = M.find(Name);
  if (It == M.end())
    return std::nullopt;
  return It->second;
}

class DoubleMathCheck : public MatcherCheck {
public:
  RuleInfo info() const override {
    RuleInfo I;
    I.Id = "algebraic-float-math";
    I.Category = "algebraic";
    I.Summary = "double-precision math function called on float data; use "
                "the float version (sqrtf, expf, ...)";
    I.Exactness = Exactness::Ulp;
    I.Help = "sqrt/exp/sin/... on a value promoted from float run the "
             "double-precision routine (slow FP64 on most GPUs) and the "
             "result is rounded back to float. The float version is exact "
             "(bitwise) for correctly rounded functions (sqrt, fabs, floor, "
             "fmin, ...) and within the function's documented ulp bound plus "
             "one otherwise.";
    return I;
  }

protected:
  void registerMatchers(MatchFinder &F) override {
    F.addMatcher(callExpr(callee(functionDecl(returns(realFloatingPointType()))
                                     .bind("fn")))
                     .bind("call"),
                 this);
  }

  void run(const MatchFinder::MatchResult &R) override {
    const auto *Call = R.Nodes.getNodeAs<CallExpr>("call");
    const auto *Fn = R.Nodes.getNodeAs<FunctionDecl>("fn");
    if (!Call || !Fn || !Fn->getIdentifier() || !isDouble(Call->getType()))
      return;
    auto Ulp = floatVersionUlp(Fn->getName());
    if (!Ulp || Call->getNumArgs() == 0)
      return;
    ASTContext &C = *Ctx;
    for (const ParmVarDecl *P : Fn->parameters())
      if (!isDouble(P->getType()))
        return;
    // Every argument: float data computed in double only because of
    // promotion (a promoted float, an exactly representable double literal,
    // or + - * / of those).
    std::vector<const FloatingLiteral *> Lits;
    bool AnyFloat = false, Inner = false;
    std::function<bool(const Expr *)> FloatDerived = [&](const Expr *E) {
      E = E->IgnoreParens();
      if (isPromotedFloat(E)) {
        AnyFloat = true;
        return true;
      }
      if (const auto *L = dyn_cast<FloatingLiteral>(E)) {
        if (!isDouble(L->getType()) || !exactlyFloat(L->getValue()))
          return false;
        Lits.push_back(L);
        return true;
      }
      if (const auto *B = dyn_cast<BinaryOperator>(E)) {
        if (!isDouble(B->getType()) ||
            !(B->isAdditiveOp() || B->isMultiplicativeOp()) ||
            B->getOpcode() == BO_Rem)
          return false;
        Inner = true;
        return FloatDerived(B->getLHS()) && FloatDerived(B->getRHS());
      }
      return false;
    };
    for (const Expr *A : Call->arguments())
      if (!FloatDerived(A))
        return;
    if (!AnyFloat)
      return;
    if (!convertedToFloat(C, Call))
      return;
    const FunctionDecl *FD = functionOf(*Call);
    if (!FD || !isDeviceCode(FD) || isInInstantiation(FD))
      return;
    if (!wanted(Call->getBeginLoc()))
      return;
    std::string Name = Fn->getName().str();
    Finding F = makeFinding(C, id(), Call->getBeginLoc(),
                            "'" + Name +
                                "' computes in double on a float value (FP64 "
                                "runs at 1/2 to 1/64 of the FP32 rate); use '" +
                                Name + "f'",
                            FD);
    std::string Why;
    const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
    auto ER = editableRange(
        C, CharSourceRange::getTokenRange(Callee->getSourceRange()), Why);
    FixIt X;
    if (ER) {
      X.Edits.push_back(makeTextEdit(C, *ER, Name + "f"));
      for (const FloatingLiteral *L : Lits) {
        std::string T = sourceText(C, L->getSourceRange());
        auto LR = editableRange(
            C, CharSourceRange::getTokenRange(L->getSourceRange()), Why);
        if (!LR || T.empty()) {
          ER.reset();
          break;
        }
        X.Edits.push_back(makeTextEdit(C, *LR, T + "f"));
      }
    }
    if (!ER) {
      F.WhyNoFix = Why;
    } else {
      X.Description = "call " + Name + "f";
      // Arithmetic inside the arguments moves from double to float too.
      unsigned U = *Ulp + (Inner ? 2 : 0);
      X.Exact = U == 0 ? Exactness::Bitwise : Exactness::Ulp;
      X.Ulp = U;
      F.Fix = std::move(X);
    }
    emit(std::move(F));
  }
};
CUDAL1_REGISTER_CHECK(DoubleMathCheck);

// ---------------------------------------------------------------------------
/// log2 of a power of two > 1, else -1.
int log2Exact(uint64_t V) {
  if (V < 2 || (V & (V - 1)))
    return -1;
  int K = 0;
  while (V > 1) {
    V >>= 1;
    ++K;
  }
  return K;
}

class DivisionConstantCheck : public MatcherCheck {
public:
  RuleInfo info() const override {
    RuleInfo I;
    I.Id = "algebraic-division-constant";
    I.Category = "algebraic";
    I.Summary = "floating division by a power of two; multiply by its exact "
                "reciprocal";
    I.Exactness = Exactness::Bitwise;
    I.Help = "IEEE division is a multi-instruction sequence on the GPU; "
             "x / 2^k equals x * 2^-k exactly (both are one correctly "
             "rounded operation on the same real value).";
    return I;
  }

protected:
  void registerMatchers(MatchFinder &F) override {
    F.addMatcher(binaryOperator(hasOperatorName("/"),
                                hasType(realFloatingPointType()))
                     .bind("div"),
                 this);
  }
  void run(const MatchFinder::MatchResult &R) override {
    const auto *BO = R.Nodes.getNodeAs<BinaryOperator>("div");
    ASTContext &C = *Ctx;
    if (!BO || BO->isValueDependent() || BO->isTypeDependent())
      return;
    QualType T = BO->getType();
    if (!isFloat(T) && !isDouble(T))
      return;
    const Expr *RHS = BO->getRHS();
    Expr::EvalResult ER;
    if (!RHS->EvaluateAsRValue(ER, C) || !ER.Val.isFloat())
      return;
    APFloat V = ER.Val.getFloat();
    if (V.isNegative() || V.isZero() || !V.isFinite())
      return;
    // Power of two: the reciprocal is exact.
    APFloat Inv(V.getSemantics(), 1);
    if (Inv.divide(V, APFloat::rmNearestTiesToEven) != APFloat::opOK)
      return;
    int Exp = ilogb(V);
    APFloat Pow2 = scalbn(APFloat(V.getSemantics(), 1), Exp,
                          APFloat::rmNearestTiesToEven);
    if (Pow2.compare(V) != APFloat::cmpEqual)
      return;
    if (Exp == 0)
      return; // x / 1
    // Only literals (and negated literals are excluded above): constants
    // named by variables stay as written.
    const Expr *RL = RHS->IgnoreParenImpCasts();
    if (!isa<FloatingLiteral>(RL) && !isa<IntegerLiteral>(RL))
      return;
    const FunctionDecl *FD = functionOf(*BO);
    if (!FD || !isDeviceCode(FD) || isInInstantiation(FD))
      return;
    if (!wanted(BO->getOperatorLoc()))
      return;
    SmallString<32> S;
    APFloat InvT = Inv;
    InvT.toString(S);
    std::string Lit = S.str().str();
    if (!StringRef(Lit).contains('.') && !StringRef(Lit).contains('e') &&
        !StringRef(Lit).contains('E'))
      Lit += ".0";
    if (isFloat(T))
      Lit += "f";
    std::string Old = sourceText(C, RHS->getSourceRange());
    Finding F = makeFinding(C, id(), BO->getOperatorLoc(),
                            "division by " + Old +
                                " is a multi-instruction IEEE division; "
                                "multiplying by " + Lit + " is exact and one "
                                "instruction",
                            FD);
    std::string Why;
    auto Range = editableRange(
        C,
        CharSourceRange::getTokenRange(BO->getOperatorLoc(), RHS->getEndLoc()),
        Why);
    if (!Range) {
      F.WhyNoFix = Why;
    } else {
      FixIt X;
      X.Description = "multiply by " + Lit;
      X.Exact = Exactness::Bitwise;
      // The RHS may be written with parentheses: keep them.
      X.Edits.push_back(makeTextEdit(C, *Range, "* " + Lit));
      F.Fix = std::move(X);
    }
    emit(std::move(F));
  }
};
CUDAL1_REGISTER_CHECK(DivisionConstantCheck);

// ---------------------------------------------------------------------------
/// All names declared in a function (to pick fresh names).
std::set<std::string> namesIn(const FunctionDecl *FD) {
  std::set<std::string> Names;
  struct V : RecursiveASTVisitor<V> {
    std::set<std::string> &N;
    explicit V(std::set<std::string> &N) : N(N) {}
    bool VisitNamedDecl(NamedDecl *D) {
      if (D->getIdentifier())
        N.insert(D->getName().str());
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      if (E->getDecl()->getIdentifier())
        N.insert(E->getDecl()->getName().str());
      return true;
    }
  } Vis(Names);
  Vis.TraverseDecl(const_cast<FunctionDecl *>(FD));
  return Names;
}

/// Names this run has already introduced, per function (two fixes of one
/// run must not declare the same name).
std::map<const FunctionDecl *, std::set<std::string>> &generatedNames() {
  static thread_local std::map<const FunctionDecl *, std::set<std::string>> M;
  return M;
}

std::string freshName(const std::set<std::string> &Used, StringRef Base) {
  std::string N = Base.str();
  for (unsigned I = 2; Used.count(N); ++I)
    N = Base.str() + "_" + std::to_string(I);
  return N;
}

class DivisionInvariantCheck : public MatcherCheck {
public:
  RuleInfo info() const override {
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
             "about 3e-39).";
    return I;
  }

protected:
  void registerMatchers(MatchFinder &F) override {
    F.addMatcher(
        binaryOperator(hasOperatorName("/"), hasType(realFloatingPointType()),
                       hasRHS(ignoringParenImpCasts(
                           declRefExpr(to(varDecl().bind("var"))))))
            .bind("div"),
        this);
  }

  struct Group {
    const Stmt *Loop = nullptr;
    const VarDecl *Var = nullptr;
    const FunctionDecl *FD = nullptr;
    std::vector<const BinaryOperator *> Divs;
  };
  std::vector<Group> Groups;

  void run(const MatchFinder::MatchResult &R) override {
    const auto *BO = R.Nodes.getNodeAs<BinaryOperator>("div");
    const auto *VD = R.Nodes.getNodeAs<VarDecl>("var");
    ASTContext &C = *Ctx;
    if (!BO || !VD || BO->isTypeDependent() || BO->isValueDependent())
      return;
    QualType T = BO->getType();
    if (!(isFloat(T) || isDouble(T)) ||
        !C.hasSameUnqualifiedType(VD->getType().getNonReferenceType(), T))
      return;
    if (!(isa<ParmVarDecl>(VD) || VD->isLocalVarDecl()) ||
        VD->getType()->isReferenceType() ||
        VD->getType().isVolatileQualified() || VD->hasAttr<CUDASharedAttr>() ||
        VD->isStaticLocal())
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

  void finish() override {
    ASTContext &C = *Ctx;
    for (Group &G : Groups) {
      const BinaryOperator *First = G.Divs.front();
      if (!wanted(First->getOperatorLoc()))
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
          makeNote(C, G.Loop->getBeginLoc(), "the loop in which '" + Var +
                                                  "' does not change"));
      std::string Why;
      auto Indent = lineIndent(G.Loop->getBeginLoc());
      auto Parents = C.getParents(*G.Loop);
      bool InBlock = !Parents.empty() && Parents[0].get<CompoundStmt>();
      if (!Indent || !InBlock || G.Loop->getBeginLoc().isMacroID()) {
        F.WhyNoFix = "the loop does not start its own line in a { } block, "
                     "so the reciprocal cannot be declared before it";
        emit(std::move(F));
        continue;
      }
      std::set<std::string> Used = namesIn(G.FD);
      Used.insert(generatedNames()[G.FD].begin(), generatedNames()[G.FD].end());
      std::string Name = freshName(Used, "inv_" + Var);
      generatedNames()[G.FD].insert(Name);
      FixIt X;
      X.Description = "compute 1/" + Var + " once before the loop";
      X.Exact = Exactness::Ulp;
      X.Ulp = 2;
      std::string Type = IsF ? "float" : "double";
      X.Edits.push_back(makeInsertion(
          C, G.Loop->getBeginLoc(),
          "const " + Type + " " + Name + " = " + (IsF ? "1.0f" : "1.0") +
              " / " + Var + ";\n" + *Indent));
      bool Ok = true;
      for (const BinaryOperator *BO : G.Divs) {
        auto R = editableRange(C,
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
      emit(std::move(F));
    }
    Groups.clear();
  }
};
CUDAL1_REGISTER_CHECK(DivisionInvariantCheck);

// ---------------------------------------------------------------------------
class Pow2DivModCheck : public MatcherCheck {
public:
  RuleInfo info() const override {
    RuleInfo I;
    I.Id = "algebraic-pow2-divmod";
    I.Category = "algebraic";
    I.Summary = "integer / or % by a power of two on a value proven >= 0; "
                "use >> or &";
    I.Exactness = Exactness::Bitwise;
    I.Help = "For a signed integer the compiler must keep / and % correct "
             "for negative values (extra instructions around the shift); "
             "when the value is provably non-negative (built-in indices, "
             "non-negative constants, locals initialised from them) a shift "
             "or mask gives the same bits. Unsigned operands are compiled to "
             "shifts anyway: reported only with the option IncludeUnsigned.";
    I.DefaultOptions["IncludeUnsigned"] = "false";
    return I;
  }

protected:
  void registerMatchers(MatchFinder &F) override {
    F.addMatcher(binaryOperator(anyOf(hasOperatorName("/"),
                                      hasOperatorName("%")),
                                hasType(isInteger()))
                     .bind("op"),
                 this);
  }
  void run(const MatchFinder::MatchResult &R) override {
    const auto *BO = R.Nodes.getNodeAs<BinaryOperator>("op");
    ASTContext &C = *Ctx;
    if (!BO || BO->isValueDependent() || BO->isTypeDependent())
      return;
    Expr::EvalResult ER;
    if (!BO->getRHS()->EvaluateAsInt(ER, C))
      return;
    llvm::APSInt V = ER.Val.getInt();
    if (V.isSigned() && V.isNegative())
      return;
    int K = log2Exact(V.getZExtValue());
    if (K < 0)
      return;
    const Expr *LHS = BO->getLHS();
    const Expr *LHSRaw = LHS->IgnoreImpCasts();
    // The shift must have the type of the division.
    QualType LT = C.isPromotableIntegerType(LHSRaw->getType())
                      ? C.getPromotedIntegerType(LHSRaw->getType())
                      : LHSRaw->getType();
    if (!C.hasSameUnqualifiedType(LT, BO->getType()))
      return;
    bool Unsigned = BO->getType()->isUnsignedIntegerType();
    if (Unsigned && !optionBool("IncludeUnsigned", false))
      return;
    if (!Unsigned && !isProvablyNonNegative(C, LHSRaw))
      return;
    const FunctionDecl *FD = functionOf(*BO);
    if (!FD || !isDeviceCode(FD) || isInInstantiation(FD))
      return;
    if (!wanted(BO->getOperatorLoc()))
      return;
    bool Div = BO->getOpcode() == BO_Div;
    std::string NewOp = Div ? ">> " + std::to_string(K)
                            : "& " + std::to_string((1ULL << K) - 1);
    std::string LText = sourceText(C, LHS->getSourceRange());
    Finding F = makeFinding(
        C, id(), BO->getOperatorLoc(),
        std::string(Div ? "division" : "modulo") + " by " +
            std::to_string(1ULL << K) + " of a " +
            (Unsigned ? "unsigned value" : "signed value proven >= 0") +
            (Unsigned ? "; a shift/mask says what the hardware does"
                      : " still pays for negative-value handling; '" +
                            NewOp + "' gives the same result"),
        FD);
    // Parentheses unless the context cannot bind tighter.
    const Expr *Child = BO;
    const Expr *P = parentSkippingParens(C, BO, &Child);
    bool NeedParens = true;
    if (Child != BO)
      NeedParens = false; // already parenthesised
    else if (!P)
      NeedParens = false; // full expression / initialiser / return
    else if (const auto *IC = dyn_cast<ImplicitCastExpr>(P)) {
      const Expr *PP = parentSkippingParens(C, IC);
      NeedParens = PP && !isa<CallExpr>(PP) && !isa<ArraySubscriptExpr>(PP);
      if (const auto *A = dyn_cast_or_null<BinaryOperator>(PP))
        NeedParens = !(A->isAssignmentOp() && A->getRHS()->IgnoreParens() == IC);
    } else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(P)) {
      NeedParens = AS->getIdx()->IgnoreParenImpCasts() != BO;
    } else if (isa<CallExpr>(P)) {
      NeedParens = false;
    } else if (const auto *A = dyn_cast<BinaryOperator>(P)) {
      NeedParens = !(A->isAssignmentOp() && A->getRHS() == BO);
    }
    std::string Why;
    auto OpR = editableRange(
        C,
        CharSourceRange::getTokenRange(BO->getOperatorLoc(),
                                       BO->getRHS()->getEndLoc()),
        Why);
    auto Whole = editableRange(
        C, CharSourceRange::getTokenRange(BO->getSourceRange()), Why);
    if (!OpR || !Whole) {
      F.WhyNoFix = Why;
    } else {
      FixIt X;
      X.Description = "use " + NewOp;
      X.Exact = Exactness::Bitwise;
      X.Edits.push_back(makeTextEdit(C, *OpR, NewOp));
      if (NeedParens) {
        X.Edits.push_back(makeInsertion(C, Whole->getBegin(), "("));
        X.Edits.push_back(makeTextEdit(
            C, CharSourceRange::getCharRange(Whole->getEnd(), Whole->getEnd()),
            ")"));
      }
      // The insertion of ")" sits where the replacement ends: merge into one
      // edit so both tools apply them the same way.
      if (NeedParens) {
        X.Edits.clear();
        std::string NewText = "(" + sourceText(C, LHS->getSourceRange()) + " " +
                              NewOp + ")";
        X.Edits.push_back(makeTextEdit(C, *Whole, NewText));
      }
      F.Fix = std::move(X);
    }
    (void)LText;
    emit(std::move(F));
  }
};
CUDAL1_REGISTER_CHECK(Pow2DivModCheck);

// ---------------------------------------------------------------------------
class RepeatedSubexprCheck : public MatcherCheck {
public:
  RuleInfo info() const override {
    RuleInfo I;
    I.Id = "algebraic-repeated-subexpr";
    I.Category = "algebraic";
    I.Summary = "the same pure subexpression computed more than once in a "
                "statement; compute it once into a local";
    I.Exactness = Exactness::Bitwise;
    I.Help = "A pure expression (no side effects, no writes between the "
             "uses) written several times in one statement is computed once "
             "into a const local declared just before the statement. Integer "
             "expressions are bitwise exact; floating ones are marked 'ulp' "
             "(1 ulp): with FMA contraction, a product used once may be fused "
             "into an add where a shared one is not.";
    return I;
  }

protected:
  void registerMatchers(MatchFinder &F) override {
    F.addMatcher(compoundStmt(hasAncestor(functionDecl())).bind("block"),
                 this);
  }

  struct Cand {
    const Expr *E;
    std::string Key;
    unsigned Begin, End; ///< file offsets
  };

  static bool interesting(const Expr *E) {
    E = E->IgnoreParens();
    if (E->isTypeDependent() || E->isValueDependent() || E->isGLValue())
      return false;
    QualType T = E->getType();
    if (!T->isIntegerType() && !T->isRealFloatingType())
      return false;
    if (T->isBooleanType())
      return false;
    // At least two operations, or one call.
    unsigned Ops = 0;
    bool Call = false;
    std::function<void(const Stmt *)> Count = [&](const Stmt *S) {
      if (!S)
        return;
      if (isa<BinaryOperator>(S) || isa<ArraySubscriptExpr>(S))
        ++Ops;
      if (isa<CallExpr>(S))
        Call = true;
      for (const Stmt *C : S->children())
        Count(C);
    };
    if (!isa<BinaryOperator>(E) && !isa<CallExpr>(E))
      return false;
    Count(E);
    return Ops >= 2 || Call;
  }

  void run(const MatchFinder::MatchResult &R) override {
    const auto *Block = R.Nodes.getNodeAs<CompoundStmt>("block");
    ASTContext &C = *Ctx;
    const SourceManager &SM = C.getSourceManager();
    if (!Block)
      return;
    const FunctionDecl *FD = functionOf(*Block);
    if (!FD || !isDeviceCode(FD) || isInInstantiation(FD))
      return;
    for (const Stmt *S : Block->body()) {
      // The expression parts of the statement that are evaluated
      // unconditionally.
      std::vector<const Expr *> Roots;
      const Expr *Assigned = nullptr;
      if (const auto *E = dyn_cast<Expr>(S)) {
        const Expr *X = E->IgnoreParenImpCasts();
        if (const auto *BO = dyn_cast<BinaryOperator>(X);
            BO && BO->isAssignmentOp()) {
          Assigned = BO->getLHS();
          Roots = {BO->getLHS(), BO->getRHS()};
        } else {
          continue;
        }
      } else if (const auto *DS = dyn_cast<DeclStmt>(S)) {
        if (!DS->isSingleDecl())
          continue;
        const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl());
        if (!VD || !VD->getInit())
          continue;
        Roots = {VD->getInit()};
      } else if (const auto *RS = dyn_cast<ReturnStmt>(S)) {
        if (!RS->getRetValue())
          continue;
        Roots = {RS->getRetValue()};
      } else {
        continue;
      }
      // Everything must be pure except the top-level assignment.
      bool Pure = true;
      for (const Expr *Rt : Roots) {
        if (Rt == Assigned) {
          // The target: its subexpressions must be pure (indices).
          for (const Stmt *Ch : Rt->IgnoreParens()->children())
            if (const auto *CE = dyn_cast_or_null<Expr>(Ch))
              Pure = Pure && isPure(C, CE);
        } else {
          Pure = Pure && isPure(C, Rt);
        }
      }
      if (!Pure)
        continue;
      const VarDecl *AssignedVar = nullptr;
      if (Assigned)
        if (const auto *DRE =
                dyn_cast<DeclRefExpr>(Assigned->IgnoreParenImpCasts()))
          AssignedVar = dyn_cast<VarDecl>(DRE->getDecl());
      // Collect candidates, skipping conditionally evaluated parts.
      std::vector<Cand> Cands;
      std::function<void(const Stmt *, bool)> Walk = [&](const Stmt *X,
                                                         bool Cond) {
        if (!X)
          return;
        if (const auto *E = dyn_cast<Expr>(X)) {
          if (!Cond && interesting(E) && !inMacro(E->getSourceRange())) {
            bool UsesAssigned = false;
            bool LaterDecl = false;
            std::function<void(const Stmt *)> Refs = [&](const Stmt *Y) {
              if (!Y)
                return;
              if (const auto *D = dyn_cast<DeclRefExpr>(Y)) {
                if (D->getDecl() == AssignedVar)
                  UsesAssigned = true;
                if (SM.isBeforeInTranslationUnit(S->getBeginLoc(),
                                                 D->getDecl()->getLocation()))
                  LaterDecl = true;
              }
              for (const Stmt *Ch : Y->children())
                Refs(Ch);
            };
            Refs(E);
            std::string Text = sourceText(C, E->getSourceRange());
            if (!UsesAssigned && !LaterDecl && !Text.empty()) {
              std::string Key;
              for (char Ch : Text)
                if (!isspace((unsigned char)Ch))
                  Key += Ch;
              Key += "|" + E->getType().getCanonicalType().getAsString();
              CharSourceRange FR = Lexer::makeFileCharRange(
                  CharSourceRange::getTokenRange(E->getSourceRange()), SM,
                  C.getLangOpts());
              if (FR.isValid())
                Cands.push_back({E->IgnoreParens(), Key,
                                 SM.getFileOffset(FR.getBegin()),
                                 SM.getFileOffset(FR.getEnd())});
            }
          }
          if (const auto *BO = dyn_cast<BinaryOperator>(E);
              BO && BO->isLogicalOp()) {
            Walk(BO->getLHS(), Cond);
            Walk(BO->getRHS(), true);
            return;
          }
          if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E)) {
            Walk(CO->getCond(), Cond);
            Walk(CO->getTrueExpr(), true);
            Walk(CO->getFalseExpr(), true);
            return;
          }
        }
        for (const Stmt *Ch : X->children())
          Walk(Ch, Cond);
      };
      for (const Expr *Rt : Roots)
        Walk(Rt, false);
      if (Cands.size() < 2)
        continue;
      // Largest repeated expressions first.
      std::stable_sort(Cands.begin(), Cands.end(),
                       [](const Cand &A, const Cand &B) {
                         return A.End - A.Begin > B.End - B.Begin;
                       });
      std::vector<std::pair<unsigned, unsigned>> Taken;
      std::vector<std::vector<const Cand *>> Chosen;
      std::set<std::string> Done;
      for (const Cand &A : Cands) {
        if (Done.count(A.Key))
          continue;
        std::vector<const Cand *> Occ;
        std::set<unsigned> Starts;
        for (const Cand &B : Cands) {
          if (B.Key != A.Key || !Starts.insert(B.Begin).second)
            continue;
          bool Inside = false;
          for (auto &T : Taken)
            if (B.Begin >= T.first && B.End <= T.second)
              Inside = true;
          if (!Inside)
            Occ.push_back(&B);
        }
        Done.insert(A.Key);
        if (Occ.size() < 2)
          continue;
        for (const Cand *O : Occ)
          Taken.push_back({O->Begin, O->End});
        std::sort(Occ.begin(), Occ.end(), [](const Cand *X, const Cand *Y) {
          return X->Begin < Y->Begin;
        });
        Chosen.push_back(Occ);
      }
      if (Chosen.empty())
        continue;
      if (!wanted(S->getBeginLoc()))
        continue;
      Finding F = makeFinding(
          C, id(), Chosen.front().front()->E->getBeginLoc(),
          "'" + sourceText(C, Chosen.front().front()->E->getSourceRange()) +
              "' is computed " + std::to_string(Chosen.front().size()) +
              " times in this statement; compute it once into a local",
          FD);
      for (size_t I = 1; I < Chosen.front().size(); ++I)
        F.Notes.push_back(makeNote(C, Chosen.front()[I]->E->getBeginLoc(),
                                   "computed again here"));
      auto Indent = lineIndent(S->getBeginLoc());
      if (!Indent) {
        F.WhyNoFix = "the statement does not start its own line";
        emit(std::move(F));
        continue;
      }
      std::set<std::string> Used = namesIn(FD);
      Used.insert(generatedNames()[FD].begin(), generatedNames()[FD].end());
      FixIt X;
      X.Description = "compute the repeated expression once";
      X.Exact = Exactness::Bitwise;
      std::string Decls;
      bool Ok = true;
      for (auto &Occ : Chosen) {
        const Expr *E = Occ.front()->E;
        if (E->getType()->isRealFloatingType()) {
          X.Exact = Exactness::Ulp;
          X.Ulp = 1;
        }
        std::string Name = freshName(Used, "common");
        Used.insert(Name);
        generatedNames()[FD].insert(Name);
        Decls += "const auto " + Name + " = " +
                 sourceText(C, E->getSourceRange()) + ";\n" + *Indent;
        for (const Cand *O : Occ) {
          std::string Why;
          auto R = editableRange(
              C, CharSourceRange::getTokenRange(O->E->getSourceRange()), Why);
          if (!R) {
            Ok = false;
            F.WhyNoFix = Why;
            break;
          }
          X.Edits.push_back(makeTextEdit(C, *R, Name));
        }
      }
      if (Ok) {
        X.Edits.insert(X.Edits.begin(),
                       makeInsertion(C, S->getBeginLoc(), Decls));
        F.Fix = std::move(X);
      }
      emit(std::move(F));
    }
  }
};
CUDAL1_REGISTER_CHECK(RepeatedSubexprCheck);

} // namespace
} // namespace cudal1
