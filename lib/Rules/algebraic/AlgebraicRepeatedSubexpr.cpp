//===- AlgebraicRepeatedSubexpr.cpp - algebraic-repeated-subexpr ----------===//
//
// algebraic-repeated-subexpr: a pure subexpression written several times in
// one statement is computed once into a const local declared just before
// the statement (bitwise for integers; 1 ulp for floating point, because of
// FMA contraction).
//
//===----------------------------------------------------------------------===//
#include "AlgebraicRepeatedSubexpr.h"

#include "clang/AST/Expr.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <functional>
#include <set>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace cudal1 {

RuleInfo AlgebraicRepeatedSubexpr::info() const {
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
  I.ExactnessNote =
      "bitwise for integer expressions; ulp (1) for floating ones";
  // nvcc merges the repeats itself: with CUDA 13 at -O3 the PTX of the
  // repeated and the factored statement are identical for index arithmetic
  // (`C[row * N + col] = ... C[row * N + col]`), repeated loads and repeated
  // math calls (sqrtf, expf), checked in session 12. So the rule only
  // speaks when asked (unoptimised or debug device builds, -G).
  I.DefaultOptions["Report"] = "false";
  I.Doc.Detects =
      "A pure subexpression (no side effects, only known-pure math calls, "
      "at least two operations or a call) written more than once in one "
      "statement (assignment, declaration, return), evaluated "
      "unconditionally, not using the assigned variable. The CUDA built-ins "
      "(`threadIdx.x`, `blockIdx.x`, `blockDim.x`, `gridDim.x`) are special "
      "register reads, not calls: `threadIdx.x` written twice is not "
      "reported (reading it again costs nothing).\n\n"
      "**Silent unless asked** (option `Report`, default `false`): nvcc "
      "merges such repeats itself. With CUDA 13 at `-O3` the PTX of the "
      "statement as written and with the local is identical for repeated "
      "index arithmetic (`C[row * N + col] = alpha * sum + beta * C[row * N "
      "+ col]`), repeated loads (`in[r * w + c + 1] * 2.0f + in[r * w + c + "
      "1]`) and repeated math calls (`sqrtf(in[c] + 1.0f) + sqrtf(in[c] + "
      "1.0f)`, `expf(a * in[c])` twice): on optimised code the finding is "
      "noise. Set `algebraic-repeated-subexpr.Report: true` for "
      "unoptimised or debug device builds (`-G`), where each repeat is "
      "computed again.";
  I.Doc.WhySlow =
      "Index arithmetic and math calls repeated in one statement; the "
      "compiler often but not always merges them (calls, loads through "
      "possibly aliased pointers).";
  I.Doc.Example = R"cuda(out[r * w + c + 1] = in[r * w + c + 1] * 2.0f + in[r * w + c + 1];)cuda";
  I.Doc.Fixed = R"cuda(const auto common = r * w + c + 1;
out[common] = in[common] * 2.0f + in[common];)cuda";
  I.Doc.Fix =
      "Declares one `const auto` local per repeated expression just before "
      "the statement (largest first). Floating expressions are marked "
      "`ulp` (1): with FMA contraction a product used once may be fused "
      "into an add, a shared one may not.";
  return I;
}

void AlgebraicRepeatedSubexpr::registerMatchers(MatchFinder &F) {
  F.addMatcher(compoundStmt(hasAncestor(functionDecl())).bind("block"), this);
}

bool AlgebraicRepeatedSubexpr::interesting(const Expr *E) {
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
    // threadIdx.x and the other built-ins: a special register read, not a
    // call (their pseudo-object form holds a call to __fetch_builtin_x).
    if (!S || isa<PseudoObjectExpr>(S))
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

// Over 150 lines: per statement: the candidates, the repeated ones, then the
// declarations and edits; the three steps share the candidate list.
void AlgebraicRepeatedSubexpr::check(const MatchFinder::MatchResult &R) {
  if (!optionBool("Report", false))
    return; // the compiler merges the repeats (see DefaultOptions above)
  const auto *Block = R.Nodes.getNodeAs<CompoundStmt>("block");
  ASTContext &C = ctx();
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
      // A built-in (threadIdx.x, blockDim.x, ...) reads a special register:
      // reading it again costs nothing, and it is no candidate.
      if (!X || isa<PseudoObjectExpr>(X))
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
    if (!firstInUserCode(S->getBeginLoc()))
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
    auto Indent = lineIndent(ctx(), S->getBeginLoc());
    if (!Indent) {
      F.WhyNoFix = "the statement does not start its own line";
      report(std::move(F));
      continue;
    }
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
      std::string Name = freshName(C, context(), FD, "common");
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
    report(std::move(F));
  }
}

} // namespace cudal1
