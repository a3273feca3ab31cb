//===- AlgebraicFloatLiteral.cpp - algebraic-float-literal ----------------===//
//
// algebraic-float-literal: a double literal (0.5) combined with float data
// makes the operation double precision; the fix writes the float literal
// (0.5f) where that keeps the result (bitwise) or changes it by a few ulp.
// (This rule also took over algebraic-double-literal: where the double
// result stays double, the finding has no fix.)
//
//===----------------------------------------------------------------------===//
#include "AlgebraicFloatLiteral.h"

#include "FloatTypes.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <functional>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace cudal1 {

/// The double value \p E is stored in a double variable (or returned as a
/// double): computing in double is what the code asks for. Or it is the
/// argument of a call: a double function on float data is
/// algebraic-float-math's finding, whose fix changes the literal too.
static bool storedAsDouble(ASTContext &Ctx, const Expr *E) {
  const Expr *Child = E;
  const Expr *P = parentSkippingParens(Ctx, E, &Child);
  if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(P))
    P = parentSkippingParens(Ctx, IC);
  if (isa_and_nonnull<CallExpr>(P))
    return true;
  auto Parents = Ctx.getParents(*Child);
  if (Parents.empty())
    return false;
  if (const auto *V = Parents[0].get<VarDecl>())
    return isDouble(V->getType());
  if (Parents[0].get<ReturnStmt>())
    return true;
  if (const auto *A = Parents[0].get<BinaryOperator>())
    return A->isAssignmentOp() && isDouble(A->getLHS()->getType());
  return false;
}

RuleInfo AlgebraicFloatLiteral::info() const {
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
           "otherwise its exactness is 'ulp' (up to 4 ulp). Literals whose "
           "double result stays double, and comparisons with literals that "
           "are not float values, are reported without a fix.";
  I.ExactnessNote =
      "bitwise (literal exactly representable in float, result converted "
      "straight to float); ulp (4) otherwise";
  I.Doc.Detects =
      "An unsuffixed floating literal (`0.5`), or a double constant made "
      "of such literals (`1.0 / 3.0`, `-(0.5 + 2)`), in arithmetic with a "
      "`float` value, in device code, where the result ends up in a float. "
      "A constant is one finding (at its first literal) whose fix makes "
      "every literal of it a float literal.\n"
      "\n"
      "It also reports, without a fix, a double literal whose double "
      "result stays double (passed on in double arithmetic) and a "
      "comparison with a literal that is not a float value (this rule took "
      "over `algebraic-double-literal`). A double result stored in a "
      "double variable, or passed to a call (that is "
      "`algebraic-float-math`'s finding), is not reported.";
  I.Doc.WhySlow =
      "C++ promotes `x * 0.5` to double. FP64 throughput is 1/2 "
      "(H100/H200, A100) to 1/64 (consumer GPUs) of FP32, and the "
      "conversions cost instructions too.";
  I.Doc.Example = R"cuda(out[i] = x * 0.5;
if (x < 0.5) ...
x *= 0.25;)cuda";
  I.Doc.Fixed = R"cuda(out[i] = x * 0.5f;
if (x < 0.5f) ...
x *= 0.25f;)cuda";
  I.Doc.Fix =
      "Appends `f`. Bitwise when the literal is a float value (0.5, 2.0, "
      "0.25 — not 0.1) and the double result of the single operation is "
      "converted straight back to float: one IEEE operation rounded to "
      "double then to float equals the same operation rounded to float (53 "
      ">= 2*24+2). Literals in a chain of double operations, or not "
      "representable (0.1), and constants of several literals (`1.0 / 3.0` "
      "becomes `1.0f / 3.0f`, computed in float), are `ulp` (4 ulp). "
      "Comparisons are only "
      "rewritten when the literal is exactly representable. Host code and "
      "double data (`double d = x * 0.1`) are left alone.";
  return I;
}

/// \p E is a double constant made of unsuffixed literals: double literals
/// (and integer literals converted to double) combined by + - * / and unary
/// +/-. Its double literals are added to \p Lits (source order).
static bool doubleConstant(const Expr *E,
                           std::vector<const FloatingLiteral *> &Lits) {
  E = E->IgnoreParens();
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(E)) {
    if (IC->getCastKind() != CK_IntegralToFloating)
      return false;
    return isa<IntegerLiteral>(IC->getSubExpr()->IgnoreParens());
  }
  if (!isDouble(E->getType()))
    return false;
  if (const auto *L = dyn_cast<FloatingLiteral>(E)) {
    Lits.push_back(L);
    return true;
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    return (U->getOpcode() == UO_Minus || U->getOpcode() == UO_Plus) &&
           doubleConstant(U->getSubExpr(), Lits);
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    return (B->isAdditiveOp() || B->getOpcode() == BO_Mul ||
            B->getOpcode() == BO_Div) &&
           doubleConstant(B->getLHS(), Lits) &&
           doubleConstant(B->getRHS(), Lits);
  return false;
}

void AlgebraicFloatLiteral::registerMatchers(MatchFinder &F) {
  F.addMatcher(floatLiteral(hasType(realFloatingPointType())).bind("lit"),
               this);
}

void AlgebraicFloatLiteral::check(const MatchFinder::MatchResult &R) {
  const auto *Lit = R.Nodes.getNodeAs<FloatingLiteral>("lit");
  if (!Lit || !isDouble(Lit->getType()))
    return;
  ASTContext &C = ctx();
  // The operand: the largest double constant holding the literal (the
  // literal, possibly negated, or `1.0 / 3.0`); every literal of it becomes
  // a float literal, in one finding reported at its first literal.
  const Expr *Root = Lit, *Operand = Lit;
  std::vector<const FloatingLiteral *> Lits = {Lit};
  const Expr *P = parentSkippingParens(C, Lit, &Operand);
  while (P) {
    std::vector<const FloatingLiteral *> L;
    if (!doubleConstant(P, L))
      break;
    Root = P;
    Lits = std::move(L);
    P = parentSkippingParens(C, Root, &Operand);
  }
  if (Lits.front() != Lit)
    return; // reported with the constant's first literal
  const auto *BO = dyn_cast_or_null<BinaryOperator>(P);
  if (!BO)
    return;
  const FunctionDecl *FD = functionOf(*Lit);
  if (!FD || !isDeviceCode(FD) || isInInstantiation(FD))
    return;
  BinaryOperatorKind Op = BO->getOpcode();
  const Expr *Other = BO->getLHS() == Operand ? BO->getRHS() : BO->getLHS();
  // One literal, exactly a float: the operation may stay bitwise. A
  // constant expression computed in float instead is not.
  bool Bitwise = exactlyFloat(Lit->getValue()) && Root->IgnoreParens() ==
                                                      Lit->IgnoreParens();
  for (const FloatingLiteral *L : Lits)
    Bitwise = Bitwise && exactlyFloat(L->getValue());
  bool Applies = false;
  // Why the literal, which does promote float data, cannot be changed.
  std::string NoFix;
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
      if (!Applies && isPromotedFloat(Other) && !storedAsDouble(C, Cur))
        NoFix = "the double result is used as a double, not converted back "
                "to float; a float literal would change what it computes";
    }
  } else if (BO->isComparisonOp()) {
    // x < 0.5 with float x: exact only when the literal is a float value.
    if (!isPromotedFloat(Other))
      return;
    if (Bitwise)
      Applies = true;
    else
      NoFix = "the literal is not exactly representable as a float: "
              "comparing with the float literal could change the result";
  } else if (const auto *CA = dyn_cast<CompoundAssignOperator>(BO)) {
    if (CA->getRHS()->IgnoreParens() != Operand->IgnoreParens() ||
        !isFloat(CA->getLHS()->getType()) ||
        !isDouble(CA->getComputationLHSType()))
      return;
    if (Op == BO_RemAssign)
      return;
    Applies = true;
  }
  if ((!Applies && NoFix.empty()) || !firstInUserCode(Lit->getLocation()))
    return;
  std::string Text = sourceText(C, Lit->getSourceRange());
  std::string RootText = Root == Lit ? Text : sourceText(C, Root->getSourceRange());
  if (Text.empty()) {
    // In a macro body: the literal's own spelling.
    const SourceManager &SM = C.getSourceManager();
    Text = Lexer::getSourceText(CharSourceRange::getTokenRange(
                                    SM.getSpellingLoc(Lit->getLocation())),
                                SM, C.getLangOpts())
               .str();
  }
  StringRef T = Text;
  if (T.empty() || T.ends_with("f") || T.ends_with("F") || T.ends_with("l") ||
      T.ends_with("L"))
    return;
  bool Compound = Lits.size() > 1 || Root->IgnoreParens() != Lit;
  std::string Fixed = Text + "f";
  if (Compound) {
    std::vector<std::pair<const Stmt *, std::string>> Reps;
    for (const FloatingLiteral *L : Lits)
      Reps.push_back({L, sourceText(C, L->getSourceRange()) + "f"});
    Fixed = rewrittenText(C, Root, Reps);
  }
  Finding F = makeFinding(
      C, id(), Lit->getLocation(),
      Compound ? "double constant '" + RootText +
                     "' promotes float arithmetic to double (FP64 runs at "
                     "1/2 to 1/64 of the FP32 rate); use '" +
                     Fixed + "'"
               : "double literal '" + Text +
                     "' promotes float arithmetic to double "
                     "(FP64 runs at 1/2 to 1/64 of the FP32 rate); "
                     "use '" +
                     Text + "f'",
      FD);
  if (!NoFix.empty()) {
    reportWithoutFix(std::move(F), NoFix);
    return;
  }
  FixIt X;
  X.Description = Compound ? "use the float constant " + Fixed
                           : "use the float literal " + Text + "f";
  for (const FloatingLiteral *L : Lits) {
    std::string Why;
    auto ER = editableRange(
        C, CharSourceRange::getTokenRange(L->getSourceRange()), Why);
    std::string LT = L == Lit ? Text : sourceText(C, L->getSourceRange());
    if (!ER || LT.empty()) {
      F.WhyNoFix = ER ? "a literal comes from a macro" : Why;
      report(std::move(F));
      return;
    }
    X.Edits.push_back(makeTextEdit(C, *ER, LT + "f"));
  }
  if (Bitwise) {
    X.Exact = Exactness::Bitwise;
  } else {
    X.Exact = Exactness::Ulp;
    X.Ulp = 4;
    F.Notes.push_back(makeNote(
        C, Lit->getLocation(),
        Compound ? "the constant is then computed in float rather than "
                   "double: results may differ by a few ulp"
        : exactlyFloat(Lit->getValue())
            ? "the surrounding expression is then computed in float "
              "rather than double: results may differ by a few ulp"
            : "the literal is not exactly representable as a float: "
              "results may differ by a few ulp"));
  }
  F.Fix = std::move(X);
  report(std::move(F));
}

} // namespace cudal1
