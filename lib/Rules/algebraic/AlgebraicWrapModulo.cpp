//===- AlgebraicWrapModulo.cpp - algebraic-wrap-modulo --------------------===//
#include "AlgebraicWrapModulo.h"
#include "cudal1/Analysis/AstFacts.h"

#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

#include <functional>
#include <map>
#include <optional>

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

/// What holds where a statement runs: conditions known true (enclosing
/// `if`s), conditions known false (earlier `if (c) return;`), and the ranges
/// of the enclosing loops' variables.
struct Known {
  std::vector<const Expr *> True, False;
  std::map<const VarDecl *, std::pair<int64_t, int64_t>> Loops;
};

/// `X < M` (or `M > X`) is among \p K's true conjuncts, or `X >= M` (or
/// `M <= X`) among the disjuncts of a condition known false.
bool knownBelow(const Known &K, const VarDecl *X, const VarDecl *M) {
  auto Is = [&](const Expr *E, BinaryOperatorKind Lt, BinaryOperatorKind Gt) {
    const auto *BO = dyn_cast<BinaryOperator>(E);
    if (!BO)
      return false;
    if (BO->getOpcode() == Lt)
      return varOf(BO->getLHS()) == X && varOf(BO->getRHS()) == M;
    if (BO->getOpcode() == Gt)
      return varOf(BO->getLHS()) == M && varOf(BO->getRHS()) == X;
    return false;
  };
  for (const Expr *C : K.True) {
    std::vector<const Expr *> Parts;
    splitTopLevel(C, BO_LAnd, Parts);
    for (const Expr *P : Parts)
      if (Is(P, BO_LT, BO_GT))
        return true;
  }
  for (const Expr *C : K.False) {
    std::vector<const Expr *> Parts;
    splitTopLevel(C, BO_LOr, Parts);
    for (const Expr *P : Parts)
      if (Is(P, BO_GE, BO_LE))
        return true;
  }
  return false;
}

/// \p V is a thread index `blockIdx.d * blockDim.d + threadIdx.d`, never
/// changed: >= 0.
bool threadIndex(const VarDecl *V, const FunctionFacts &F) {
  if (!V || !V->getInit() || F.isMutated(V) || isa<ParmVarDecl>(V))
    return false;
  AffineExpr A = toAffine(V->getInit(), F);
  for (const char *D : {"x", "y", "z"}) {
    std::string S(D);
    if (A == AffineExpr::symbol("blockIdx." + S) *
                     AffineExpr::symbol("blockDim." + S) +
                 AffineExpr::symbol("threadIdx." + S))
      return true;
  }
  return false;
}

/// The proof that a dividend lies in [0, 3M): its terms.
struct WrapProof {
  const VarDecl *X = nullptr; ///< the index in [0, M)
  int64_t C = 0;              ///< multiple of M added
  int64_t Lo = 0, Hi = 0;     ///< range of the other terms
  std::vector<std::string> Why;
};

/// \p T is the type of the `%`: every sum and difference of the dividend
/// is computed in it (a narrower one that wraps and is then widened would
/// break the range), leaves may be widened (their values are kept).
bool collectTerms(const Expr *E, int Sign, const VarDecl *M, const Known &K,
                  const FunctionFacts &F, ASTContext &Ctx, QualType T,
                  WrapProof &P) {
  E = E->IgnoreParenImpCasts();
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (!Ctx.hasSameUnqualifiedType(BO->getType(), T))
      return false;
    if (BO->getOpcode() == BO_Add)
      return collectTerms(BO->getLHS(), Sign, M, K, F, Ctx, T, P) &&
             collectTerms(BO->getRHS(), Sign, M, K, F, Ctx, T, P);
    if (BO->getOpcode() == BO_Sub)
      return collectTerms(BO->getLHS(), Sign, M, K, F, Ctx, T, P) &&
             collectTerms(BO->getRHS(), -Sign, M, K, F, Ctx, T, P);
    return false;
  }
  Expr::EvalResult R;
  if (isa<IntegerLiteral>(E) && E->EvaluateAsInt(R, Ctx)) {
    int64_t V = Sign * R.Val.getInt().getExtValue();
    P.Lo += V;
    P.Hi += V;
    return true;
  }
  const VarDecl *V = varOf(E);
  if (!V)
    return false;
  if (V == M) {
    P.C += Sign;
    return true;
  }
  if (auto It = K.Loops.find(V); It != K.Loops.end()) {
    auto [L, H] = It->second;
    P.Lo += Sign > 0 ? L : -H;
    P.Hi += Sign > 0 ? H : -L;
    P.Why.push_back("'" + V->getNameAsString() + "' in [" + std::to_string(L) +
                    ", " + std::to_string(H) + "]");
    return true;
  }
  if (Sign > 0 && !P.X && threadIndex(V, F) && knownBelow(K, V, M)) {
    P.X = V;
    P.Why.push_back("'" + V->getNameAsString() + "' in [0, " +
                    M->getNameAsString() + ")");
    return true;
  }
  return false;
}

/// The loop variable of `for (int v = lo; v <= hi (or <); v++ / v--)` with
/// constant bounds, assigned nowhere in the body: its range.
std::optional<std::pair<int64_t, int64_t>>
loopRange(ASTContext &Ctx, const ForStmt *L, const VarDecl *&IV) {
  auto S = analyzeFor(Ctx, L);
  if (!S || !S->IV || (S->Step != 1 && S->Step != -1) || !S->Init ||
      !S->Bound)
    return std::nullopt;
  Expr::EvalResult A, B;
  if (!S->Init->EvaluateAsInt(A, Ctx) || !S->Bound->EvaluateAsInt(B, Ctx))
    return std::nullopt;
  int64_t I0 = A.Val.getInt().getExtValue(), E = B.Val.getInt().getExtValue();
  bool Assigned = false;
  forEachStmt(L->getBody(), [&](const Stmt *X) {
    if (const auto *BO = dyn_cast<BinaryOperator>(X))
      Assigned |= BO->isAssignmentOp() && varOf(BO->getLHS()) == S->IV;
    if (const auto *U = dyn_cast<UnaryOperator>(X))
      Assigned |= (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf) &&
                  varOf(U->getSubExpr()) == S->IV;
  });
  if (Assigned)
    return std::nullopt;
  IV = S->IV;
  if (S->Step == 1 && S->Cmp == BO_LT)
    return std::make_pair(I0, E - 1);
  if (S->Step == 1 && S->Cmp == BO_LE)
    return std::make_pair(I0, E);
  if (S->Step == -1 && S->Cmp == BO_GT)
    return std::make_pair(E + 1, I0);
  if (S->Step == -1 && S->Cmp == BO_GE)
    return std::make_pair(E, I0);
  return std::nullopt;
}

} // namespace

RuleInfo AlgebraicWrapModulo::info() const {
  RuleInfo I;
  I.Id = "algebraic-wrap-modulo";
  I.Category = "algebraic";
  I.Summary = "a periodic wrap `(x + dx + n) % n` of an index proven in "
              "range: compares and subtractions instead of an integer "
              "division";
  I.Help = "An integer % by a value known only at run time is a division "
           "routine of about twenty instructions. When the dividend is "
           "proven in [0, 3n) (a thread index below n by its guard, plus a "
           "neighbour offset from a loop over -1..1, plus n) one or two "
           "conditional subtractions give the same result.";
  I.Exactness = Exactness::Bitwise;
  I.Doc.Detects =
      "`E % M` in a kernel, with `M` a variable the kernel never changes "
      "and `E` a sum of: exactly one thread index `x = blockIdx.d * "
      "blockDim.d + threadIdx.d` (never changed, so >= 0) that a guard "
      "proves below `M` (an enclosing `if (x < M && ...)`, or an earlier "
      "`if (x >= M || ...) return;`); variables of enclosing `for` loops "
      "with constant bounds that the body does not assign (`for (int dx = "
      "-1; dx <= 1; dx++)`); integer constants; and `M` itself at most "
      "once. The sum must lie in [0, 3M) for every M >= 1, which the "
      "terms' ranges show: the periodic boundary of a stencil or the Game "
      "of Life (`(x + dx + n) % n`).";
  I.Doc.WhySlow =
      "A GPU has no integer divider: `%` by a runtime value is a routine of "
      "about twenty instructions (a reciprocal, multiplies, corrections). A "
      "3x3 neighbourhood with wrapped coordinates pays it 16 times per "
      "cell, more than the loads cost.";
  I.Doc.Example = R"cuda(int x = blockIdx.x * blockDim.x + threadIdx.x;
if (x < n && y < n)
  for (int dx = -1; dx <= 1; dx++) {
    int xx = (x + dx + n) % n;     // warning: x + dx + n in [0, 2n]
    ...)cuda";
  I.Doc.Fixed = R"cuda(    int xx = ((x + dx + n) >= (n) ? ((x + dx + n) - (n) >= (n) ? (x + dx + n) - (n) - (n) : (x + dx + n) - (n)) : (x + dx + n));)cuda";
  I.Doc.Fix =
      "`E % M` becomes `(E >= M ? E - M : E)` when the sum is below 2M, "
      "else `(E >= M ? (E - M >= M ? E - M - M : E - M) : E)` (no `2 * M` "
      "that could overflow). Bitwise: for E in [0, 3M) both are E mod M. "
      "Not reported when a term's range is not shown (an index without a "
      "guard, a loop with variable bounds or a body that assigns its "
      "variable, a term that is not a variable or constant).";
  return I;
}

void AlgebraicWrapModulo::checkKernel(const KernelUnit &Kernel) {
  if (Kernel.IsTemplate)
    return;
  ASTContext &C = ctx();
  const FunctionDecl *K = Kernel.FD;
  const FunctionFacts &F = Kernel.Facts;
  if (!K->getBody() || !isUserCode(K->getLocation()))
    return;
  auto Check = [&](const Expr *Root, const Known &Kn) {
    forEachStmt(Root, [&](const Stmt *S) {
      const auto *BO = dyn_cast<BinaryOperator>(S);
      if (!BO || BO->getOpcode() != BO_Rem ||
          !BO->getType()->isIntegerType())
        return;
      const VarDecl *M = varOf(BO->getRHS());
      if (!M || F.isMutated(M) || !M->getType()->isIntegerType())
        return;
      WrapProof P;
      if (!collectTerms(BO->getLHS(), 1, M, Kn, F, C, BO->getType(), P) ||
          !P.X ||
          P.C < 0 || P.C > 1 || P.Lo + P.C < 0 || P.Hi > 2 - P.C)
        return;
      if (!firstInUserCode(BO->getOperatorLoc()))
        return;
      const Expr *L = BO->getLHS()->IgnoreImpCasts();
      if (const auto *PE = dyn_cast<ParenExpr>(L))
        L = PE->getSubExpr();
      std::string Et = sourceText(C, L->getSourceRange());
      std::string Mt = M->getNameAsString();
      bool Below2M = P.Hi <= 1 - P.C;
      std::string Upper = Below2M ? "2" : "3";
      std::string Why;
      for (const std::string &W : P.Why)
        Why += (Why.empty() ? "" : ", ") + W;
      Finding Fd = finding(
          BO->getOperatorLoc(),
          "'" + sourceText(C, BO->getSourceRange()) + "' divides by a value known only at run "
              "time (an integer division routine, about twenty "
              "instructions) although the dividend is proven in [0, " +
              Upper + Mt + ") (" + Why +
              "); " + (Below2M ? "a compare and a subtraction give"
                               : "compares and subtractions give") +
              " the same result",
          K, BO->getSourceRange());
      auto R = editableRange(
          C, CharSourceRange::getTokenRange(BO->getSourceRange()), Why);
      std::string E = "(" + Et + ")", Mp = "(" + Mt + ")";
      if (!R || Et.empty()) {
        reportWithoutFix(std::move(Fd),
                         Why.empty() ? "the expression cannot be edited"
                                     : Why);
        return;
      }
      std::string New =
          Below2M ? "(" + E + " >= " + Mp + " ? " + E + " - " + Mp + " : " +
                        E + ")"
                  : "(" + E + " >= " + Mp + " ? (" + E + " - " + Mp +
                        " >= " + Mp + " ? " + E + " - " + Mp + " - " + Mp +
                        " : " + E + " - " + Mp + ") : " + E + ")";
      FixIt X;
      X.Exact = Exactness::Bitwise;
      X.Description = "compare and subtract instead of %";
      X.Edits.push_back(makeTextEdit(C, *R, New));
      Fd.Fix = std::move(X);
      report(std::move(Fd));
    });
  };
  // Walks statements, keeping what holds at each.
  std::function<void(const Stmt *, Known)> Walk = [&](const Stmt *S,
                                                      Known Kn) {
    if (!S)
      return;
    if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
      for (const Stmt *X : CS->body()) {
        // A case or goto label is reached without passing the earlier
        // exits of this block.
        if (isa<SwitchCase>(X) || isa<LabelStmt>(X))
          Kn.False.clear();
        Walk(X, Kn);
        if (const auto *If = dyn_cast<IfStmt>(X))
          if (!If->getElse() && !If->getInit() && !If->getConditionVariable()) {
            const Stmt *T = If->getThen();
            if (const auto *TC = dyn_cast<CompoundStmt>(T))
              T = TC->size() == 1 ? TC->body_front() : nullptr;
            if (isa_and_nonnull<ReturnStmt>(T))
              Kn.False.push_back(If->getCond());
          }
      }
      return;
    }
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      Check(If->getCond(), Kn);
      Known T = Kn;
      T.True.push_back(If->getCond());
      Walk(If->getThen(), T);
      Walk(If->getElse(), Kn);
      return;
    }
    if (const auto *L = dyn_cast<ForStmt>(S)) {
      Known In = Kn;
      const VarDecl *IV = nullptr;
      if (auto R = loopRange(C, L, IV))
        In.Loops[IV] = *R;
      if (L->getInit())
        Walk(L->getInit(), Kn);
      if (L->getCond())
        Check(L->getCond(), Kn);
      if (L->getInc())
        Check(L->getInc(), In);
      Walk(L->getBody(), In);
      return;
    }
    if (isa<WhileStmt>(S) || isa<DoStmt>(S) || isa<SwitchStmt>(S) ||
        isa<AttributedStmt>(S) || isa<CaseStmt>(S) || isa<DefaultStmt>(S) ||
        isa<LabelStmt>(S)) {
      for (const Stmt *Ch : S->children())
        Walk(Ch, Kn);
      return;
    }
    if (const auto *E = dyn_cast<Expr>(S)) {
      Check(E, Kn);
      return;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          if (V->getInit())
            Check(V->getInit(), Kn);
      return;
    }
    for (const Stmt *Ch : S->children())
      if (const auto *E = dyn_cast_or_null<Expr>(Ch))
        Check(E, Kn);
  };
  Walk(K->getBody(), Known());
}

} // namespace cudal1
