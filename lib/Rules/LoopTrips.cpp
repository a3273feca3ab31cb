//===- LoopTrips.cpp - constant trip counts of counted loops --------------===//
#include "LoopTrips.h"

#include "cudal1/Analysis/AstFacts.h"

#include "clang/AST/Stmt.h"

using namespace clang;

namespace cudal1 {

std::optional<int64_t> constantTripCount(ASTContext &Ctx, const Stmt *Loop) {
  const auto *For = dyn_cast_or_null<ForStmt>(Loop);
  auto Shape = For ? analyzeFor(Ctx, For) : std::nullopt;
  if (!Shape)
    return std::nullopt;
  auto Init = evalInt(Ctx, Shape->Init), Bound = evalInt(Ctx, Shape->Bound);
  if (!Init || !Bound)
    return std::nullopt;
  return tripCount(*Init, *Bound, Shape->Cmp, Shape->Step);
}

} // namespace cudal1
