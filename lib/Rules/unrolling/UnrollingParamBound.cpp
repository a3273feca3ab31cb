//===- UnrollingParamBound.cpp - unrolling-param-bound --------------------===//
//
// unrolling-param-bound: a small innermost loop bounded by an unchanged
// parameter gets '#pragma unroll N' (the compiler keeps a remainder loop:
// any trip count, same results).
//
//===----------------------------------------------------------------------===//
#include "UnrollingParamBound.h"
#include "UnrollPragma.h"

#include "clang/AST/Expr.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace cudal1 {

RuleInfo UnrollingParamBound::info() const {
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
  I.Doc.Detects =
      "A small (at most MaxBodyStatements, default 8) innermost loop in "
      "device code bounded by a parameter that is never changed (or a "
      "local copy of one), step 1.";
  I.Doc.WhySlow =
      "Each iteration pays for counter, compare and branch; partial "
      "unrolling amortises them and overlaps loads.";
  I.Doc.Example = R"cuda(for (int j = 0; j < k; ++j) {
  acc += in[j];
})cuda";
  I.Doc.Fixed = R"cuda(#pragma unroll 4
for (int j = 0; j < k; ++j) {
  acc += in[j];
})cuda";
  I.Doc.Fix =
      "Inserts `#pragma unroll Factor` (option, default 4). The compiler "
      "keeps a remainder loop, so every trip count stays correct.";
  return I;
}

void UnrollingParamBound::registerMatchers(MatchFinder &F) {
  F.addMatcher(forStmt().bind("for"), this);
}

void UnrollingParamBound::check(const MatchFinder::MatchResult &R) {
  const auto *For = R.Nodes.getNodeAs<ForStmt>("for");
  const FunctionDecl *FD = nullptr;
  ASTContext &C = ctx();
  std::optional<LoopShape> S = For ? unrollCandidate(C, For, FD) : std::nullopt;
  if (!S)
    return;
  if (S->Step != 1 && S->Step != -1)
    return;
  if (!evalInt(C, S->Init) || evalInt(C, S->Bound) ||
      S->Bound->isValueDependent())
    return;
  // The bound: a parameter (or a local copy of one) never changed.
  const VarDecl *B = varOf(S->Bound);
  if (!B || !FD->getBody())
    return;
  if (!isa<ParmVarDecl>(B)) {
    if (!B->isLocalVarDecl() || !B->getInit() || !varOf(B->getInit()) ||
        !isa<ParmVarDecl>(varOf(B->getInit())))
      return;
  }
  ExprMutationAnalyzer EMA(*FD->getBody(), C);
  if (EMA.isMutated(B))
    return;
  if (countStmts(For->getBody()) > unsigned(optionInt("MaxBodyStatements", 8)))
    return;
  if (!firstInUserCode(For->getBeginLoc()))
    return;
  int64_t Factor = optionInt("Factor", 4);
  if (Factor < 2)
    return;
  std::string Pragma = "#pragma unroll " + std::to_string(Factor);
  Finding F =
      makeFinding(C, id(), For->getBeginLoc(),
                  "small loop bounded by parameter '" + B->getName().str() +
                      "' is not unrolled; '" + Pragma +
                      "' amortises the counter and branch and "
                      "lets loads overlap",
                  FD);
  FixIt X;
  std::string Why;
  bool Ok = pragmaFix(C, For, Pragma, X, Why);
  reportFixOr(std::move(F), Ok, std::move(X), Why);
}

} // namespace cudal1
