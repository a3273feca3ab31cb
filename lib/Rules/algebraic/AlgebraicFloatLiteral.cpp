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

#include <cmath>
#include <cstdio>
#include <cstdlib>
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
  I.Exactness = Exactness::Ulp;
  I.Help = "In C++ an unsuffixed floating literal is a double, so "
           "`x * 0.5` with float x is computed in double precision, which "
           "runs at 1/2 to 1/64 of the FP32 rate on NVIDIA GPUs. Where "
           "the float form would be bitwise the same (one operation with a "
           "literal that is a float value, its result straight back to "
           "float, or a comparison with such a literal) nvcc already "
           "computes in float, so nothing is reported. Elsewhere the fix "
           "appends 'f' ('ulp', up to 4 ulp), or, for a comparison with a "
           "literal that is no float value, compares with the nearest float "
           "on its side (bitwise). Literals whose double result stays "
           "double are reported without a fix.";
  I.ExactnessNote =
      "ulp (4) for suffixed literals; bitwise for comparisons with the "
      "nearest float bound";
  I.Doc.Detects =
      "An unsuffixed floating literal (`0.5`), or a double constant made "
      "of such literals (`1.0 / 3.0`, `-(0.5 + 2)`), in arithmetic with a "
      "`float` value, in device code, where the result ends up in a float. "
      "A constant is one finding (at its first literal) whose fix makes "
      "every literal of it a float literal. Not reported where the float "
      "form is bitwise the same: one operation with a literal that is a "
      "float value (0.5, 2.0, 0.25, not 0.1) whose double result goes "
      "straight back to float (`y = x * 0.5`, `x *= 0.25`), or a "
      "comparison with such a literal (`x < 0.5`): LLVM narrows those to "
      "float itself, and nvcc 13 emits identical PTX and cubin with and "
      "without the `f` (one IEEE operation rounded to double then to float "
      "equals the operation rounded to float, 53 >= 2*24+2).\n"
      "\n"
      "A comparison of float data with a literal that is no float value "
      "(`x >= 0.99`, which nvcc compares in double) is reported with the "
      "same comparison in float: `x >= 0.99000001f`, the nearest float on "
      "the comparison's side (`>`/`>=` take the float above and become "
      "`>=`, `<`/`<=` the float below and become `<=`); no float lies "
      "between the literal and that bound, so the result is the same for "
      "every float, NaN and infinities included (bitwise). `==` and `!=`, "
      "literals outside the normal float range and macros have no fix.\n"
      "\n"
      "It also reports, without a fix, a double literal whose double "
      "result stays double (passed on in double arithmetic; this rule "
      "took over `algebraic-double-literal`). A double result stored in a "
      "double variable, or passed to a call (that is "
      "`algebraic-float-math`'s finding), is not reported.";
  I.Doc.WhySlow =
      "C++ promotes `x * 0.5` to double. FP64 throughput is 1/2 "
      "(H100/H200, A100) to 1/64 (consumer GPUs) of FP32, and the "
      "conversions cost instructions too.";
  I.Doc.Example = R"cuda(out[i] = 2.0 * x + 1.0;
if (x >= 0.99) ...
x *= 0.1;)cuda";
  I.Doc.Fixed = R"cuda(out[i] = 2.0f * x + 1.0f;
if (x >= 0.99000001f) ...
x *= 0.1f;)cuda";
  I.Doc.Fix =
      "Appends `f`. Literals in a chain of double operations, or not "
      "representable (0.1), and constants of several literals (`1.0 / 3.0` "
      "becomes `1.0f / 3.0f`, computed in float), are `ulp` (4 ulp). "
      "Comparisons with a literal that is no float value take the nearest "
      "float bound (bitwise, above). Host code and double data (`double d "
      "= x * 0.1`) are left alone.";
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

bool AlgebraicFloatLiteral::comparisonInFloat(const BinaryOperator *BO,
                                              const Expr *Root,
                                              const Expr *Operand,
                                              const FloatingLiteral *Lit,
                                              const FunctionDecl *FD) {
  ASTContext &C = ctx();
  BinaryOperatorKind Op = BO->getOpcode();
  if (Op == BO_EQ || Op == BO_NE || !firstInUserCode(Lit->getLocation()))
    return false;
  llvm::APFloat V(0.0);
  if (!Root->EvaluateAsFloat(V, C) ||
      &V.getSemantics() != &llvm::APFloat::IEEEdouble())
    return false;
  double D = V.convertToDouble();
  // Normal floats only: no bound at infinity, none among subnormals (which
  // flush-to-zero builds treat as 0).
  if (!std::isfinite(D) || std::fabs(D) < 1.1754943508222875e-38 ||
      std::fabs(D) > 3.4028234663852886e+38)
    return false;
  // A constant that is a float value (`-0.5`, `1.0 / 4.0`): nvcc compares
  // in float already (LLVM narrows an exact constant), nothing to report.
  if ((double)(float)D == D)
    return true;
  bool LitLeft = BO->getLHS()->IgnoreParens() == Operand->IgnoreParens();
  // As `x OP c`.
  if (LitLeft)
    Op = Op == BO_LT ? BO_GT : Op == BO_GT ? BO_LT : Op == BO_LE ? BO_GE
                                                                  : BO_LE;
  float F = (float)D;
  float Up = (double)F > D ? F : std::nextafter(F, INFINITY);
  float Down = (double)F < D ? F : std::nextafter(F, -INFINITY);
  bool Above = Op == BO_GT || Op == BO_GE; // x > c  <=>  x >= Up
  float B = Above ? Up : Down;
  if (!std::isfinite(B))
    return false;
  char Buf[64];
  snprintf(Buf, sizeof Buf, "%.9g", (double)B);
  if (std::strtof(Buf, nullptr) != B)
    return false;
  std::string Num = Buf;
  if (Num.find_first_of(".eEn") == std::string::npos)
    Num += ".0";
  Num += "f";
  BinaryOperatorKind NewOp = Above ? BO_GE : BO_LE;
  if (LitLeft)
    NewOp = NewOp == BO_GE ? BO_LE : BO_GE;
  std::string OpText = BinaryOperator::getOpcodeStr(NewOp).str();
  std::string Shown = LitLeft ? Num + " " + OpText : OpText + " " + Num;
  std::string Why;
  auto LitR = editableRange(
      C, CharSourceRange::getTokenRange(Root->getSourceRange()), Why);
  auto OpR = editableRange(
      C, CharSourceRange::getTokenRange(BO->getOperatorLoc(),
                                        BO->getOperatorLoc()),
      Why);
  std::string Text = sourceText(C, Root->getSourceRange());
  if (!LitR || !OpR || Text.empty())
    return false;
  Finding Fd = makeFinding(
      C, id(), Lit->getLocation(),
      "double literal '" + Text +
          "' makes this float comparison double (FP64 runs at 1/2 to 1/64 "
          "of the FP32 rate); '" + Shown + "', the nearest "
          "float " + (Above ? "above" : "below") +
          " it, gives the same result for every float value",
      FD);
  FixIt X;
  X.Description = "compare in float: '" + Shown + "'";
  X.Exact = Exactness::Bitwise;
  if (BO->getOpcode() != NewOp)
    X.Edits.push_back(makeTextEdit(C, *OpR, OpText));
  X.Edits.push_back(makeTextEdit(C, *LitR, Num));
  Fd.Fix = std::move(X);
  report(std::move(Fd));
  return true;
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
        // Through a sign (`exp(-(x + 10.66) / 11.1)`).
        if (const auto *QU = dyn_cast_or_null<UnaryOperator>(Q);
            QU && (QU->getOpcode() == UO_Minus || QU->getOpcode() == UO_Plus) &&
            isDouble(QU->getType())) {
          Cur = QU;
          Applies = convertedToFloat(C, QU);
          continue;
        }
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
    // x < 0.5 with float x: with a float value the compiler already
    // compares in float (not reported below). Otherwise the same
    // comparison in float takes the nearest float on the right side.
    if (!isPromotedFloat(Other))
      return;
    if (Bitwise)
      Applies = true;
    else if (comparisonInFloat(BO, Root, Operand, Lit, FD))
      return;
    else
      NoFix = "the literal is not exactly representable as a float, and "
              "no float bound gives the same comparison here (== or !=, "
              "out of float range, or in a macro)";
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
  // The float form would be bitwise the same: then LLVM's instcombine has
  // already narrowed the double operation (or comparison) to float, and
  // nvcc emits the same instructions either way (nvcc 13, sm_90: `y = x *
  // 1e3`, `x / 8.0`, `x < 0.5`, `x *= 0.25` compile to f32 code, PTX and
  // cubin identical with and without the suffix). Nothing to gain.
  if (Applies && NoFix.empty() && Bitwise)
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
  // Without a fix the float form would change the result: no "use".
  std::string Use = NoFix.empty() ? "; use '" + Fixed + "'" : "";
  Finding F = makeFinding(
      C, id(), Lit->getLocation(),
      (Compound ? "double constant '" + RootText + "'"
                : "double literal '" + Text + "'") +
          " promotes float arithmetic to double (FP64 runs at 1/2 to 1/64 "
          "of the FP32 rate)" + Use,
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
