//===- AlgebraicPowSmallExponent.cpp - algebraic-pow-small-exponent -------===//
//
// pow(x, y) with a constant y of 1, 2, 3, 4, -1, 0.5 or -0.5 runs the general
// exp2(y * log2(x)) sequence where a few multiplies or one square root would
// do. The shipped YAML rules rewrite the common cases (rewrite-rules/
// algebraic: powf-square, powf-cube, powf-fourth for 2, 3 and 4 written as
// literals on a pure base; powf-sqrt and pow-sqrt for the literal 0.5). This
// rule reports what they leave: the exponents 1, -1 and -0.5, exponents that
// are constant expressions rather than literals, and integer exponents on a
// base with side effects (which the rewrite would evaluate twice). One
// problem is reported once: by the YAML rule that fixes it, or here.
//
//===----------------------------------------------------------------------===//
#include "AlgebraicPowSmallExponent.h"

#include "clang/AST/Expr.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

RuleInfo AlgebraicPowSmallExponent::info() const {
  RuleInfo I;
  I.Id = "algebraic-pow-small-exponent";
  I.Category = "algebraic";
  I.Summary = "pow/powf with a small integer or +-0.5 exponent that no YAML "
              "rule rewrites";
  I.Help = "pow(x, y) is computed as exp2(y * log2(x)) with special cases, "
           "about 20 instructions for powf and far more for double pow. "
           "Small integer exponents are a few multiplies; 0.5 and -0.5 are "
           "sqrtf/rsqrtf. The YAML rules algebraic-powf-* and "
           "algebraic-pow-sqrt rewrite the literal exponents 2, 3, 4 and "
           "0.5; this rule reports the other cases.";
  I.Doc.Detects =
      "`pow`/`powf` with a constant exponent of 1, 2, 3, 4, -1, 0.5 or "
      "-0.5 that no shipped YAML rule rewrites: the exponents 1, -1 and "
      "-0.5, exponents that are constant expressions rather than literals, "
      "and 2, 3 or 4 on a base with side effects. The literal exponents 2, "
      "3, 4 (pure base) and 0.5 are reported, with their fix, by the YAML "
      "rules `algebraic-powf-square`, `-cube`, `-fourth`, `algebraic-powf-"
      "sqrt` and `algebraic-pow-sqrt`: one problem, one report.";
  I.Doc.WhySlow =
      "`powf(x, y)` computes `exp2(y * log2(x))` with special-case "
      "handling, about 20 instructions (more for double `pow`).";
  I.Doc.Example = R"cuda(float inv = powf(d, -1.0f);   // warning: use 1.0f / (d))cuda";
  I.Doc.Fix =
      "Multiply (`x * x`, `x * x * x`), or use `sqrtf`/`rsqrtf`/`1.0f / "
      "x` (no automatic fix: `powf(x, -1)` and `1.0f / x` may differ in "
      "the last bits, and a base with side effects would be evaluated "
      "twice).";
  return I;
}

/// The replacement text for pow(\p X, \p V), or "" when \p V is not small.
static std::string replacementFor(double V, const std::string &X,
                                  bool IsDouble) {
  if (V == 2)
    return "(" + X + ") * (" + X + ")";
  if (V == 3)
    return "(" + X + ") * (" + X + ") * (" + X + ")";
  if (V == 4)
    return "x2 * x2 with x2 = (" + X + ") * (" + X + ")";
  if (V == 0.5)
    return std::string(IsDouble ? "sqrt(" : "sqrtf(") + X + ")";
  if (V == -0.5)
    return std::string(IsDouble ? "rsqrt(" : "rsqrtf(") + X + ")";
  if (V == -1)
    return std::string(IsDouble ? "1.0 / (" : "1.0f / (") + X + ")";
  if (V == 1)
    return X;
  return "";
}

void AlgebraicPowSmallExponent::checkTranslationUnit() {
  ASTContext &Ctx = ctx();
  forEachDeviceStmt(
      Ctx, context(),
      [&](const Stmt *S, const FunctionDecl *FD, ArrayRef<const Stmt *>) {
        const auto *CE = dyn_cast<CallExpr>(S);
        if (!CE || CE->getNumArgs() != 2)
          return;
        const FunctionDecl *Callee = CE->getDirectCallee();
        if (!Callee || !Callee->getIdentifier())
          return;
        StringRef N = Callee->getName();
        if (N != "pow" && N != "powf" && N != "__powf")
          return;
        const Expr *Y = CE->getArg(1)->IgnoreParenImpCasts();
        if (Y->isValueDependent())
          return;
        Expr::EvalResult R;
        double V;
        if (!Y->EvaluateAsRValue(R, Ctx))
          return;
        if (R.Val.isFloat())
          V = R.Val.getFloat().convertToDouble();
        else if (R.Val.isInt())
          V = (double)R.Val.getInt().getSExtValue();
        else
          return;
        bool IsDouble =
            CE->getType()->isSpecificBuiltinType(BuiltinType::Double);
        std::string X = oneLineText(Ctx, CE->getArg(0)->getSourceRange());
        std::string Repl = replacementFor(V, X, IsDouble);
        if (Repl.empty())
          return;
        // A base with side effects (`in[j++]`) written twice would run them
        // twice: the advice names a local holding it.
        bool PureBase = isPure(Ctx, CE->getArg(0));
        if (!PureBase && (V == 2 || V == 3 || V == 4))
          Repl = replacementFor(V, "b", IsDouble) + " with a local b = " + X +
                 " (the base has side effects: evaluate it once)";
        // What the YAML rules rewrite (a literal exponent 2, 3 or 4 on a pure
        // base, a literal 0.5) is theirs to report.
        bool Literal = isa<FloatingLiteral>(Y) || isa<IntegerLiteral>(Y);
        bool YamlRewrites =
            N != "__powf" && Literal &&
            ((V == 0.5) || ((V == 2 || V == 3 || V == 4) && PureBase));
        if (YamlRewrites || !firstInUserCode(CE->getBeginLoc()))
          return;
        std::string Msg =
            "'" + N.str() + "' with the constant exponent " +
            oneLineText(Ctx, CE->getArg(1)->getSourceRange()) +
            " runs the general exp2(y*log2(x)) sequence (about 20 "
            "instructions" +
            (IsDouble ? ", in FP64" : "") + "); use " + Repl + " instead";
        report(makeFinding(Ctx, id(), CE->getBeginLoc(), Msg, FD,
                           CE->getSourceRange()));
      });
}

} // namespace cudal1
