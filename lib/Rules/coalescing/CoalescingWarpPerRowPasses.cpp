//===- CoalescingWarpPerRowPasses.cpp - coalescing-warp-per-row-passes ----===//
//
// A thread per row that walks its row several times: a row softmax
// (`max_ = max(max_, x[row*n + j])`, `sum += expf(x[row*n + j] - max_)`,
// `y[row*n + j] = expf(...) / sum`), a normalisation, a row max. The lanes
// of a warp read addresses a row apart, and a 4096-row matrix gives only
// 4096 threads. The fix gives every row a warp: each pass's loop strides
// the row by 32 from the lane, each reduction is combined across the warp
// with a butterfly of __shfl_xor_sync (every lane ends with the same value,
// which the later passes read), and every launch's grid is multiplied by
// 32.
//
// Legality: the kernel reads the x components of the thread index only in
// `row = blockIdx.x * blockDim.x + threadIdx.x`; around the passes only
// scalar declarations without stores or user calls (every lane runs them:
// they see the same values), stores of one element per row (lane 0 runs
// them between two __syncwarp()), the guard on the row (uniform in a warp);
// each pass's bounds are the same for every thread; a reduction pass is
// one `acc += e`, `acc = max(acc, e)` (fmaxf, fminf, min, fmax, fmin) not
// reading acc in e; a write pass stores elements of the row (unit stride
// in the loop variable), and every read of a buffer the kernel writes is of
// the element the same iteration writes (so each lane only reads what it
// wrote itself). The block's x-extent is a constant multiple of 32 (y and
// z, read as other indices, stay uniform in a warp) at
// every launch. Float sums (and max/min, for the sign of zero) are
// reassociated: tolerance; integer ones are exact.
//
//===----------------------------------------------------------------------===//
#include "CoalescingWarpPerRowPasses.h"
#include "RowWalk.h"

#include "cudal1/Rules/BuiltinUse.h"
#include "cudal1/Rules/SpelledType.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

struct Pass {
  const ForStmt *Loop = nullptr;
  const VarDecl *IV = nullptr;
  const Expr *K0 = nullptr, *End = nullptr;
  /// The reductions of a reducing pass (several accumulators in one loop:
  /// `m2 += d * d; m3 += d * d * d;`); empty for a pass that writes.
  std::vector<Reduction> Reds;
  const Expr *Value = nullptr; ///< Write: the stored value
  const Expr *Store = nullptr; ///< Write: the element written
  bool writes() const { return Reds.empty(); }
};

struct Shape {
  const VarDecl *Row = nullptr;
  const DeclStmt *RowDS = nullptr;
  std::vector<Pass> Passes;
  /// The declarations outside the passes, and assignments of locals
  /// between them (`m2 /= n;`): every lane runs them.
  std::vector<const Stmt *> Decls;
  /// Stores of one element per row between the passes (`mean[r] = s /
  /// n;`): lane 0 runs them, between two __syncwarp(). Groups of
  /// consecutive statements.
  std::vector<std::vector<const BinaryOperator *>> Stores;
  bool WalksRow = false; ///< some pass reads or writes the row per thread
};

/// Every memory access of \p S is `P[i]` or `P[i][j]` with P a parameter
/// named directly: no dereference, no member access through a pointer, no
/// offset base (`(y - 1)[i]`), whose element the index would not say.
bool plainAccesses(const Stmt *S) {
  bool Ok = true;
  forEachStmt(S, [&](const Stmt *X) {
    if (const auto *U = dyn_cast<UnaryOperator>(X))
      Ok &= U->getOpcode() != UO_Deref;
    if (const auto *M = dyn_cast<MemberExpr>(X))
      Ok &= !M->isArrow();
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(X)) {
      const Expr *B = AS->getBase()->IgnoreParenImpCasts();
      if (isa<ArraySubscriptExpr>(B))
        return; // A[i][j]: the inner subscript is checked on its own
      const auto *DRE = dyn_cast<DeclRefExpr>(B);
      const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
      Ok &= V && (isa<ParmVarDecl>(V) || V->getType()->isArrayType());
    }
  });
  return Ok;
}

bool readsVar(const Stmt *S, const VarDecl *V) {
  return varsRead(S).count(V);
}

/// The pass that loop \p L is, or std::nullopt: one store to an element, or
/// reductions into distinct accumulators (one statement each).
std::optional<Pass> passOf(ASTContext &Ctx, const ForStmt *L) {
  Pass P;
  P.Loop = L;
  P.IV = simpleLoop(Ctx, L, P.K0, P.End);
  if (!P.IV)
    return std::nullopt;
  if (auto Rs = loopReductions(Ctx, L)) {
    P.Reds = std::move(*Rs);
    return P;
  }
  std::vector<const Stmt *> Body = loopBodyStatements(L);
  if (Body.size() != 1)
    return std::nullopt;
  const auto *BO = dyn_cast<BinaryOperator>(Body.front());
  if (!BO || !BO->isAssignmentOp() || localAcc(BO->getLHS()) ||
      !isa<ArraySubscriptExpr>(BO->getLHS()->IgnoreParens()))
    return std::nullopt;
  P.Store = BO->getLHS()->IgnoreParens();
  P.Value = BO->getRHS();
  return P;
}

/// The statements the passes are in: the kernel's body (after the row's
/// declaration and early-exit guards), or the then-block of a final `if`
/// without else. \p Conds gets the guards' conditions.
const CompoundStmt *passBlock(const CompoundStmt *Body,
                              std::vector<const Expr *> &Conds) {
  const Stmt *Last = Body->body_back();
  if (const auto *If = dyn_cast_or_null<IfStmt>(Last))
    if (!If->getElse() && !If->getInit() && !If->getConditionVariable())
      if (const auto *Then = dyn_cast<CompoundStmt>(If->getThen())) {
        Conds.push_back(If->getCond());
        return Then;
      }
  return Body;
}

/// A declaration of arithmetic locals whose initialisers have no side
/// effects.
bool plainDecl(const ASTContext &Ctx, const Stmt *S) {
  const auto *DS = dyn_cast<DeclStmt>(S);
  if (!DS)
    return false;
  for (const Decl *D : DS->decls()) {
    const auto *V = dyn_cast<VarDecl>(D);
    if (!V || !V->getType()->isArithmeticType() || !V->hasLocalStorage() ||
        V->isStaticLocal())
      return false;
  }
  return sideEffectFree(Ctx, S);
}

/// The row-passes shape of \p K, with \p Why set when it is not one.
std::optional<Shape> matchShape(ASTContext &Ctx, const FunctionDecl *K,
                                const FunctionFacts &F) {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(K->getBody());
  if (!Body)
    return std::nullopt;
  Shape Sh;
  // Built-ins along x only in the row's declaration; y and z (a 2-D or 3-D
  // block whose other indices pick the plane or line) anywhere: a warp keeps
  // one y and z when the block's x-extent is a multiple of 32 (checked at
  // the launches), so they stay uniform in the warp.
  unsigned Builtins = 0;
  forEachStmt(Body, [&](const Stmt *S) {
    if (const auto *PO = dyn_cast<PseudoObjectExpr>(S)) {
      std::string N = builtinName(PO);
      if (!N.empty() && StringRef(N).ends_with(".x"))
        ++Builtins;
    }
  });
  for (const Stmt *S : Body->body())
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          if (V->getInit() && !F.isMutated(V) && DS->isSingleDecl() &&
              toAffine(V->getInit(), F) ==
                  AffineExpr::symbol("blockIdx.x") *
                          AffineExpr::symbol("blockDim.x") +
                      AffineExpr::symbol("threadIdx.x")) {
            Sh.Row = V;
            Sh.RowDS = DS;
          }
  unsigned InRow = 0;
  if (Sh.Row)
    forEachStmt(Sh.Row->getInit(), [&](const Stmt *S) {
      if (const auto *PO = dyn_cast<PseudoObjectExpr>(S))
        if (!builtinName(PO).empty())
          ++InRow;
    });
  if (!Sh.Row || Builtins != 3 || InRow != 3)
    return std::nullopt;
  std::vector<const Expr *> Conds;
  const CompoundStmt *Blk = passBlock(Body, Conds);
  // The kernel's body up to the passes: declarations (the row's among
  // them), early-exit guards, and the final if when the passes are in it.
  bool InBody = Blk == Body;
  for (const Stmt *S : Body->body()) {
    if (InBody)
      break;
    if (S == Body->body_back())
      break;
    if (const Expr *C = earlyExit(S)) {
      Conds.push_back(C);
      continue;
    }
    if (S == Sh.RowDS || plainDecl(Ctx, S)) {
      if (S != Sh.RowDS)
        Sh.Decls.push_back(cast<DeclStmt>(S));
      continue;
    }
    return std::nullopt;
  }
  std::map<const VarDecl *, std::string> Syms;
  bool SeenRow = !InBody;
  bool PrevStore = false;
  std::set<const VarDecl *> Assigned; // by the statements so far
  for (const Stmt *S : Blk->body()) {
    if (S == Sh.RowDS) {
      SeenRow = true;
      continue;
    }
    if (const Expr *C = earlyExit(S)) {
      Conds.push_back(C);
      PrevStore = false; // a group of stores ends before an exit
      continue;
    }
    if (isa<DeclStmt>(S)) {
      if (!plainDecl(Ctx, S))
        return std::nullopt;
      Sh.Decls.push_back(cast<DeclStmt>(S));
      PrevStore = false;
      continue;
    }
    if (!SeenRow)
      return std::nullopt;
    // An assignment of a local (`m2 /= n;`, `s = s / n;`): every lane holds
    // the same values outside the passes, so every lane runs it.
    if (const auto *BO = dyn_cast<BinaryOperator>(S);
        BO && BO->isAssignmentOp() && localAcc(BO->getLHS())) {
      if (!sideEffectFree(Ctx, BO->getRHS()))
        return std::nullopt;
      Sh.Decls.push_back(S);
      Assigned.insert(localAcc(BO->getLHS()));
      PrevStore = false;
      continue;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(S);
        BO && BO->isAssignmentOp() &&
        isa<ArraySubscriptExpr>(BO->getLHS()->IgnoreParens())) {
      if (!PrevStore)
        Sh.Stores.emplace_back();
      Sh.Stores.back().push_back(BO);
      PrevStore = true;
      continue;
    }
    PrevStore = false;
    const auto *L = dyn_cast<ForStmt>(S);
    if (const auto *AS = dyn_cast<AttributedStmt>(S))
      L = dyn_cast<ForStmt>(AS->getSubStmt());
    if (!L)
      return std::nullopt;
    auto P = passOf(Ctx, L);
    if (!P || !isBlockUniform(P->K0, F) || !isBlockUniform(P->End, F))
      return std::nullopt;
    Syms = {{P->IV, "k@iv"}};
    forEachStmt(L->getBody(), [&](const Stmt *X) {
      const auto *AS = dyn_cast<ArraySubscriptExpr>(X);
      AffineExpr Idx;
      if (AS && rowWalkAccess(AS, F, Syms, Idx) && walksRowPerThread(Idx))
        Sh.WalksRow = true;
    });
    // A pass that stores along a column (a transpose's coalesced write) is
    // not a pass over the row: a warp per row would scatter those stores.
    if (P->Store) {
      AffineExpr Idx;
      const auto *AS = dyn_cast<ArraySubscriptExpr>(P->Store);
      if (!AS || !rowWalkAccess(AS, F, Syms, Idx) || !walksRowPerThread(Idx))
        return std::nullopt;
    }
    for (Reduction &R : P->Reds)
      R.AssignedBefore = Assigned.count(R.Acc) > 0;
    Sh.Passes.push_back(*P);
  }
  if (Sh.Passes.empty())
    return std::nullopt;
  for (const Expr *C : Conds)
    if (!isPureNoMemory(C))
      return std::nullopt;
  return Sh;
}

/// Worth this rule (not coalescing-warp-per-row's single sum).
bool reportable(const Shape &Sh) {
  if (!Sh.WalksRow)
    return false;
  if (Sh.Passes.size() >= 2)
    return true;
  const Pass &P = Sh.Passes[0];
  return P.writes() || P.Reds.size() > 1 || P.Reds[0].Kind != ReductionKind::Sum;
}

} // namespace

bool hasRowPasses(ASTContext &Ctx, const FunctionDecl *K,
                  const FunctionFacts &F) {
  if (K->isTemplated() || K->isTemplateInstantiation())
    return false; // the passes rule does not check templates
  auto Sh = matchShape(Ctx, K, F);
  return Sh && reportable(*Sh);
}

RuleInfo CoalescingWarpPerRowPasses::info() const {
  RuleInfo I;
  I.Id = "coalescing-warp-per-row-passes";
  I.Category = "coalescing";
  I.Summary = "each thread makes several passes over its own row (softmax, "
              "normalisation) -> one warp per row, the reductions combined "
              "with warp shuffles (grid rewritten 32x)";
  I.Exactness = Exactness::Reassociating;
  I.ExactnessNote = "reassociating (bitwise for integer reductions)";
  I.Help =
      "When thread row = blockIdx.x*blockDim.x + threadIdx.x walks its row "
      "several times (the max, the sum of exponentials and the normalised "
      "row of a softmax), a warp per row reads and writes the row with 32 "
      "consecutive lanes and combines each pass's partial max or sum "
      "across the warp with __shfl_xor_sync, so every lane holds the "
      "result the next pass needs; every launch's grid is multiplied by "
      "32.";
  I.Doc.Detects =
      "A kernel whose only use of the thread index is `row = blockIdx.x * "
      "blockDim.x + threadIdx.x`, guarded by a condition on the row "
      "(`if (row >= n) return;` or a final `if (row < n) { ... }`), whose "
      "body is a sequence of scalar declarations and passes over the "
      "row: `for` loops with the same bounds in every thread, each either "
      "reductions, one statement each (`acc += e`, `acc = max(acc, e)`, "
      "`fmaxf`, `fmax`, `min`, `fminf`, `fmin`), into distinct locals "
      "declared before it (the sums of a row's moments, `m2 += d * d; m3 += "
      "d * d * d;`, are one pass), or one store to an element of the "
      "thread's row (`y[row * "
      "n + j] = e`, `y[row][j] /= s`; a store along a column, a "
      "transpose's coalesced write, is not a pass over the row), with at least one pass reading or writing "
      "the row one thread per row (`x[row * n + j]`). A single sum pass is "
      "[coalescing-warp-per-row](coalescing-warp-per-row.md)'s; this rule "
      "takes two passes or more, or a pass that writes the row or takes a "
      "max/min. The typical case is a softmax or a layer normalisation "
      "written with one thread per row.\n"
      "\n"
      "The block may be 2-D or 3-D when the kernel reads `threadIdx.y` or "
      "`threadIdx.z` (other indices, e.g. `j = blockIdx.y * blockDim.y + "
      "threadIdx.y`, may appear anywhere, in guards and subscripts): a 3-D "
      "stencil with x on the slowest dimension and each thread walking its "
      "`k` line (`B[i * n * n + j * n + k] = ...` in a `dim3 block(32, 8)`) "
      "is one write pass over a line. Along x, the thread index must appear "
      "only in the row's declaration.";
  I.Doc.WhySlow =
      "Lanes of a warp read addresses a whole row apart: every request "
      "touches 32 sectors for 32 useful elements, three times for a "
      "softmax, and with one thread per row a 4096-row matrix gives 16 "
      "blocks of 256 threads, most SMs idle.";
  I.Doc.Example = R"cuda(__global__ void softmax(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  float m = x[row * cols];
  for (int j = 0; j < cols; j++)       // warning: 3 passes over the row
    m = fmaxf(m, x[row * cols + j]);
  float s = 0.0f;
  for (int j = 0; j < cols; j++)
    s += expf(x[row * cols + j] - m);
  for (int j = 0; j < cols; j++)
    y[row * cols + j] = expf(x[row * cols + j] - m) / s;
}
...
softmax<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);)cuda";
  I.Doc.Fixed = R"cuda(  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const unsigned int cudal1_lane = threadIdx.x % 32u;
  if (row >= rows)
    return;
  float m = x[row * cols];
  for (int j = (int)cudal1_lane; j < cols; j += 32)
    m = fmaxf(m, x[row * cols + j]);
  for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, cudal1_o));
  float s = 0.0f;
  for (int j = (int)cudal1_lane; j < cols; j += 32)
    s += expf(x[row * cols + j] - m);
  for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)
    s += __shfl_xor_sync(0xffffffffu, s, cudal1_o);
  for (int j = (int)cudal1_lane; j < cols; j += 32)
    y[row * cols + j] = expf(x[row * cols + j] - m) / s;
...
softmax<<<((rows + 255) / 256) * 32, 256>>>(x, y, rows, cols);)cuda";
  I.Doc.Fix =
      "Each former thread becomes a warp: `row` is divided by 32 (written "
      "`blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32`, which does not "
      "overflow with 32 times the threads) and "
      "`cudal1_lane = threadIdx.x % 32` is declared after it; every pass "
      "starts at its start plus the lane and steps by 32; after each "
      "reduction pass a butterfly of `__shfl_xor_sync` combines the "
      "lanes' values with the pass's own operation, and leaves the same "
      "bits in every lane (IEEE addition and max are commutative, so "
      "lanes i and i^d compute the same value at each step); every launch's "
      "grid is multiplied by 32 (`(g) * 32`, or `dim3((g).x * 32, (g).y, "
      "(g).z)` for a dim3 variable); a pass that writes is followed by "
      "`__syncwarp()` when another pass comes after it. A sum that starts from something "
      "else than zero (its initialiser, or an assignment between the passes) "
      "keeps its start in lane 0 only (`if (cudal1_lane != "
      "0u) s = 0;` before the pass); a max or min may start anywhere (it "
      "is idempotent).\n"
      "\n"
      "Float sums are reassociated, and float max/min may return the other "
      "zero when both signs meet: the verifier compares within tolerance; "
      "integer reductions are exact. Everything outside the passes runs in "
      "all 32 lanes: declarations and assignments of locals (`m2 /= cols;`; "
      "no stores, no calls but CUDA's and the C library's), on values every "
      "lane holds the same; except stores of one element per row between "
      "or after the passes (`mean[r] = s / cols;`, "
      "`var[r] = v / cols;` of a layer normalisation that keeps its "
      "statistics, or what memory-register-accumulation leaves of `mean[r] "
      "+= ...`), which lane 0 runs between two `__syncwarp()`: the lanes' "
      "earlier reads come first, their later reads of the element see the "
      "store.\n"
      "\n"
      "## When there is no fix\n"
      "\n"
      "- a store between the passes writes a buffer a pass writes, or its "
      "buffer is accessed elsewhere at another element than the one the "
      "store writes (another row's), or its index or value has side "
      "effects;\n"
      "- the block's x-extent is not a constant multiple of 32 at "
      "every launch, no launch is visible, or a grid is neither an integer "
      "expression nor a `dim3` variable;\n"
      "- a reduction's value reads its accumulator or another accumulator "
      "of its pass, or a sum starting from something else than zero (an "
      "initialiser, an assignment before the pass) carries a `#pragma`;\n"
      "- a pass reads an element of a buffer the kernel writes other than "
      "the one the same iteration writes (another lane may write it);\n"
      "- a pass or a declaration reaches memory through a dereference, a "
      "member access or an offset base (`(y - 1)[i]`) instead of a "
      "parameter's subscript;\n"
      "- a pass's loop variable is narrower than `int` (the step of 32 "
      "could wrap) or initialised with braces;\n"
      "- an integer accumulator takes floating values (each step "
      "truncates: the order matters);\n"
      "- a buffer the kernel writes is not proven distinct from the ones "
      "it reads, or not every launch of the kernel is visible (then the "
      "fix is offered unproven, for `--verify=run`).";
  return I;
}

// Over 150 lines: the legality of the passes and the edits of the kernel and
// its launch sites, in one pass over the matched shape.
void CoalescingWarpPerRowPasses::checkKernel(const KernelUnit &Kernel) {
  if (Kernel.IsTemplate)
    return;
  ASTContext &C = ctx();
  const SourceManager &SM = sourceManager();
  const FunctionDecl *K = Kernel.FD;
  const FunctionFacts &F = Kernel.Facts;
  auto Sh = matchShape(C, K, F);
  if (!Sh || !reportable(*Sh) || !isUserCode(K->getLocation()))
    return;
  std::string Accs;
  unsigned Writes = 0;
  std::set<const VarDecl *> Named;
  for (const Pass &P : Sh->Passes) {
    for (const Reduction &R : P.Reds)
      if (Named.insert(R.Acc).second)
        Accs += (Accs.empty() ? "'" : ", '") + R.Acc->getNameAsString() + "'";
    Writes += P.writes();
  }
  const ForStmt *L0 = Sh->Passes.front().Loop;
  Finding &Fd = reportLater(finding(
      L0->getBeginLoc(),
      "each thread makes " + std::to_string(Sh->Passes.size()) + " pass" +
          (Sh->Passes.size() > 1 ? "es" : "") + " over its own row" +
          (Accs.empty() ? "" : " (reducing into " + Accs + ")") +
          (Writes ? std::string(" and writes it") : std::string()) +
          ": a warp per row would read " + (Writes ? "and write " : "") +
          "the row with consecutive lanes (coalesced)" +
          (Accs.empty() ? std::string()
                        : std::string(" and combine the lanes' values with "
                                      "warp shuffles")),
      K, SourceRange(L0->getBeginLoc(), L0->getRParenLoc())));

  // --- legality ----------------------------------------------------------------
  std::string Why;
  auto Block = constantBlock(context(), K, Why);
  if (!Block) {
    refuse(Fd, Why + "; a warp per row needs a constant block size");
    return;
  }
  if ((*Block)[0] % 32) {
    refuse(Fd, "the block's x-extent " + std::to_string((*Block)[0]) +
                   " is not a multiple of 32 (a warp must stay in one row)");
    return;
  }
  if (std::string R = redundantBlockDimsWhy(C, K, *Block); !R.empty()) {
    refuse(Fd, R);
    return;
  }
  // Values: no side effects, a reduction does not read its accumulator.
  std::set<const ParmVarDecl *> Written;
  bool AnyFloat = false;
  for (const Stmt *DS : Sh->Decls)
    if (!plainAccesses(DS)) {
      refuse(Fd, "'" + sourceText(C, DS->getSourceRange()) +
                     "' reads memory other than through a parameter's "
                     "subscript");
      return;
    }
  for (const Pass &P : Sh->Passes) {
    if (!plainAccesses(P.Loop->getBody())) {
      refuse(Fd, "a pass reads or writes memory other than through a "
                 "parameter's subscript (a dereference, an offset base, a "
                 "member): which element it reaches is not known");
      return;
    }
    if (C.getTypeSize(P.IV->getType()) < 32 ||
        isa<InitListExpr>(P.K0->IgnoreImpCasts()) ||
        P.IV->getInitStyle() != VarDecl::CInit) {
      refuse(Fd, "the loop variable '" + P.IV->getNameAsString() +
                     "' is narrower than int or initialised with braces or "
                     "parentheses");
      return;
    }
    for (const Reduction &R : P.Reds) {
      if (R.Acc->getType()->isIntegerType() &&
          !R.Value->getType()->isIntegerType()) {
        refuse(Fd, "'" + R.Acc->getNameAsString() +
                       "' is an integer reduced from floating values: each "
                       "step truncates, so the order matters");
        return;
      }
      if (!sideEffectFree(C, R.Value)) {
        refuse(Fd, "a pass calls a user function, stores or counts in its "
                   "value (it would run in another lane)");
        return;
      }
      // The lanes' partial values of this pass's accumulators are not the
      // thread's running values.
      for (const Reduction &Q : P.Reds)
        if (readsVar(R.Value, Q.Acc)) {
          refuse(Fd, "the value reduced into '" + R.Acc->getNameAsString() +
                         "' reads '" + Q.Acc->getNameAsString() +
                         "', reduced in the same pass");
          return;
        }
      if (!R.Acc->getType()->isIntegerType())
        AnyFloat = true;
    }
    if (P.writes() &&
        (!sideEffectFree(C, P.Value) || !sideEffectFree(C, P.Store))) {
      refuse(Fd, "a pass calls a user function, stores or counts in its "
                 "value (it would run in another lane)");
      return;
    }
    if (P.writes()) {
      std::map<const VarDecl *, std::string> Syms{{P.IV, "k@iv"}};
      AffineExpr Idx;
      const ParmVarDecl *B =
          rowWalkAccess(cast<ArraySubscriptExpr>(P.Store), F, Syms, Idx);
      if (!B || !Idx.isKnown() ||
          Idx.coefficientOf("k@iv") != AffineExpr::constant(1)) {
        refuse(Fd, "a pass stores '" +
                       sourceText(C, P.Store->getSourceRange()) +
                       "', not one element of a row per iteration");
        return;
      }
      Written.insert(B);
    }
  }
  // Every read of a written buffer is the element its iteration writes.
  std::map<const ParmVarDecl *, AffineExpr> WriteIdx;
  for (const Pass &P : Sh->Passes)
    if (P.writes()) {
      std::map<const VarDecl *, std::string> Syms{{P.IV, "k@iv"}};
      AffineExpr Idx;
      const ParmVarDecl *B =
          rowWalkAccess(cast<ArraySubscriptExpr>(P.Store), F, Syms, Idx);
      auto [It, New] = WriteIdx.emplace(B, Idx);
      if (!New && It->second != Idx) {
        refuse(Fd, "'" + B->getNameAsString() +
                       "' is written at two different elements per "
                       "iteration");
        return;
      }
    }
  for (const Pass &P : Sh->Passes) {
    std::map<const VarDecl *, std::string> Syms{{P.IV, "k@iv"}};
    std::string Bad;
    forEachStmt(P.Loop->getBody(), [&](const Stmt *X) {
      const auto *AS = dyn_cast<ArraySubscriptExpr>(X);
      if (!AS || AS->getType()->isArrayType() || !Bad.empty())
        return;
      const ParmVarDecl *B = subscriptParam(AS, F);
      if (!B || !Written.count(B))
        return;
      AffineExpr Idx;
      if (!rowWalkAccess(AS, F, Syms, Idx) || Idx != WriteIdx[B])
        Bad = sourceText(C, AS->getSourceRange());
    });
    if (!Bad.empty()) {
      refuse(Fd, "'" + Bad + "' reads an element of a buffer the kernel "
                             "writes that its iteration does not write "
                             "(another lane may write it)");
      return;
    }
  }
  // Declarations outside the passes read no written buffer either (lane 0
  // may have written the element another lane reads).
  for (const Stmt *DS : Sh->Decls) {
    bool Bad = false;
    forEachStmt(DS, [&](const Stmt *X) {
      if (const auto *AS = dyn_cast<ArraySubscriptExpr>(X))
        if (const ParmVarDecl *B = rootPointerParam(AS->getBase(), F))
          Bad |= Written.count(B) > 0;
    });
    if (Bad) {
      refuse(Fd, "'" + sourceText(C, DS->getSourceRange()) +
                     "' reads a buffer the kernel writes, in every lane");
      return;
    }
  }
  // Stores of one element per row between the passes: lane 0 runs them.
  // Each buffer they write is not written by a pass, and every access to it
  // in the kernel is at the one element of the row (its index reads no
  // memory and is the same expression everywhere): the other lanes read
  // it only after lane 0's store and a __syncwarp().
  std::map<const ParmVarDecl *, AffineExpr> ScalarIdx;
  for (const auto &G : Sh->Stores)
    for (const BinaryOperator *BO : G) {
      const auto *AS = cast<ArraySubscriptExpr>(BO->getLHS()->IgnoreParens());
      const ParmVarDecl *B = rootPointerParam(AS->getBase(), F);
      AffineExpr Idx = toAffine(AS->getIdx(), F);
      if (!B || !plainAccesses(BO) || !sideEffectFree(C, BO->getRHS()) ||
          !sideEffectFree(C, AS->getIdx()) || !Idx.isKnown() ||
          Written.count(B)) {
        refuse(Fd, "'" + sourceText(C, BO->getSourceRange()) +
                       "' between the passes is not a store of one element "
                       "of the row's own to a buffer no pass writes");
        return;
      }
      auto [It, New] = ScalarIdx.emplace(B, Idx);
      if (!New && It->second != Idx) {
        refuse(Fd, "'" + B->getNameAsString() +
                       "' is stored at two different elements");
        return;
      }
    }
  if (!ScalarIdx.empty()) {
    std::string Bad;
    forEachStmt(K->getBody(), [&](const Stmt *X) {
      const auto *AS = dyn_cast<ArraySubscriptExpr>(X);
      if (!AS || !Bad.empty())
        return;
      const ParmVarDecl *B = rootPointerParam(AS->getBase(), F);
      auto It = B ? ScalarIdx.find(B) : ScalarIdx.end();
      if (It != ScalarIdx.end() && toAffine(AS->getIdx(), F) != It->second)
        Bad = sourceText(C, AS->getSourceRange());
    });
    if (!Bad.empty()) {
      refuse(Fd, "'" + Bad + "' reads another element of a buffer that "
                             "the kernel stores one element of per row");
      return;
    }
  }
  auto Sites = launchSitesOf(C, context(), K);
  if (Sites.empty()) {
    refuse(Fd, "no launch site is visible to rewrite the grid");
    return;
  }

  // --- edits -------------------------------------------------------------------
  FixIt X = reductionFix(AnyFloat);
  for (const CUDAKernelCallExpr *Site : Sites) {
    if (!gridTimes32(C, Site, X.Edits, Why)) {
      refuse(Fd, Why);
      return;
    }
    note(Fd, Site->getBeginLoc(), "grid multiplied by 32 at this launch");
  }
  if (inMacro(Sh->Row->getSourceRange())) {
    refuse(Fd, "the code comes from a macro expansion");
    return;
  }
  std::string Lane = uniqueName(K, "cudal1_lane");
  std::string O = uniqueName(K, "cudal1_o");
  const Expr *RowInit = Sh->Row->getInit();
  std::string RowT = sourceText(C, RowInit->getSourceRange());
  auto RR = editableRange(
      C, CharSourceRange::getTokenRange(RowInit->getSourceRange()), Why);
  if (!RR || RowT.empty()) {
    refuse(Fd, Why.empty() ? "the row's declaration cannot be edited" : Why);
    return;
  }
  // blockIdx.x * blockDim.x + threadIdx.x divided by 32, with a block of a
  // multiple of 32 threads, written so that 32 times the threads do not
  // overflow 32 bits.
  X.Edits.push_back(makeTextEdit(
      C, *RR, "blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32"));
  X.Edits.push_back(makeInsertion(
      C, stmtEnd(C, Sh->RowDS),
      "\n" + indentOf(C, Sh->RowDS->getBeginLoc()) + "const unsigned int " +
          Lane + " = threadIdx.x % 32u;"));
  std::set<const VarDecl *> Reduced; // accumulators of earlier passes
  for (const Pass &P : Sh->Passes) {
    const ForStmt *L = P.Loop;
    std::string IVT = spelledType(C, P.IV);
    std::string IVN = P.IV->getNameAsString();
    std::string K0T = sourceText(C, P.K0->getSourceRange());
    auto IR = editableRange(
        C, CharSourceRange::getTokenRange(P.K0->getSourceRange()), Why);
    auto NR = L->getInc() ? editableRange(C,
                                          CharSourceRange::getTokenRange(
                                              L->getInc()->getSourceRange()),
                                          Why)
                          : std::nullopt;
    if (!IR || !NR || K0T.empty()) {
      refuse(Fd, Why.empty() ? "a pass's header cannot be edited" : Why);
      return;
    }
    std::string Start = "(" + IVT + ")" + Lane;
    if (!isZeroConstant(C, P.K0))
      Start = "(" + K0T + ") + " + Start;
    X.Edits.push_back(makeTextEdit(C, *IR, Start));
    X.Edits.push_back(makeTextEdit(C, *NR, IVN + " += 32"));
    std::string Ind = indentOf(C, L->getBeginLoc());
    if (P.writes()) {
      // A later pass may start elsewhere (another lane reaches the
      // element): the warp's stores are ordered before it.
      if (&P != &Sh->Passes.back())
        X.Edits.push_back(
            makeInsertion(C, stmtEnd(C, L), "\n" + Ind + "__syncwarp();"));
      continue;
    }
    std::string Resets, Combines, FirstReset;
    for (const Reduction &R : P.Reds) {
      std::string A = R.Acc->getNameAsString();
      // A sum that does not start at zero in every lane (another start, an
      // assignment before the pass, or the total of an earlier pass that
      // every lane holds): lane 0 keeps it.
      bool Reset = sumStartsElsewhere(C, R) ||
                   (R.Kind == ReductionKind::Sum && Reduced.count(R.Acc));
      Reduced.insert(R.Acc);
      if (Reset && FirstReset.empty())
        FirstReset = A;
      if (Reset)
        Resets += "if (" + Lane + " != 0u)\n" + Ind + "  " + A + " = 0;\n" +
                  Ind;
      std::string Shfl =
          "__shfl_xor_sync(0xffffffffu, " + A + ", " + O + ")";
      Combines += "\n" + Ind + "  " +
                  (R.Kind == ReductionKind::Sum
                       ? A + " += " + Shfl + ";"
                       : A + " = " + R.Callee + "(" + A + ", " + Shfl + ");");
    }
    if (!Resets.empty()) {
      if (loopStatement(C, L) != L) {
        refuse(Fd, "the sum into '" + FirstReset +
                       "' does not start at zero and its pass carries a "
                       "'#pragma' (the lanes' reset would come between "
                       "them)");
        return;
      }
      X.Edits.push_back(
          makeInsertion(C, SM.getExpansionLoc(L->getBeginLoc()), Resets));
    }
    std::string Head =
        "for (int " + O + " = 16; " + O + " > 0; " + O + " >>= 1)";
    X.Edits.push_back(makeInsertion(
        C, stmtEnd(C, L),
        "\n" + Ind + Head +
            (P.Reds.size() > 1 ? " {" + Combines + "\n" + Ind + "}"
                               : Combines)));
  }
  // Stores between the passes: lane 0, after the lanes' earlier reads and
  // before their later ones.
  for (const auto &G : Sh->Stores) {
    std::string Ind = indentOf(C, G.front()->getBeginLoc());
    for (const BinaryOperator *BO : G)
      if (inMacro(BO->getSourceRange())) {
        refuse(Fd, "the code comes from a macro expansion");
        return;
      }
    X.Edits.push_back(makeInsertion(
        C, SM.getExpansionLoc(G.front()->getBeginLoc()),
        "__syncwarp();\n" + Ind + "if (" + Lane + " == 0u) {\n" + Ind + "  "));
    for (auto It = std::next(G.begin()); It != G.end(); ++It)
      X.Edits.push_back(makeInsertion(
          C, SM.getExpansionLoc((*It)->getBeginLoc()), "  "));
    X.Edits.push_back(makeInsertion(C, stmtEnd(C, G.back()),
                                    "\n" + Ind + "}\n" + Ind +
                                        "__syncwarp();"));
  }
  for (const auto &[B, Idx] : ScalarIdx)
    Written.insert(B);
  // Buffers written against those read: distinct, or the fix is unproven.
  for (const ParmVarDecl *W : Written)
    for (const ParmVarDecl *R : pointerParams(K)) {
      if (R == W)
        continue;
      std::string How, NotWhy;
      if (provenDistinct(C, context(), K, W, R, How, NotWhy))
        continue;
      X.Proven = false;
      note(Fd, W->getLocation(),
           "assumes '" + W->getNameAsString() + "' and '" +
               R->getNameAsString() +
               "' do not overlap (not proven: the fix needs --verify=run)");
    }
  std::string VisWhy;
  if (!allLaunchesVisible(C, context(), K, VisWhy)) {
    X.Proven = false;
    note(Fd, K->getLocation(),
         "not every launch of '" + K->getNameAsString() +
             "' is known to get the grid x32 (" + VisWhy + "): not proven");
  }
  X.Description = "one warp per row: every pass strides the row by 32 from "
                  "the lane, __shfl_xor_sync combines each reduction; grid "
                  "x32";
  Fd.Fix = std::move(X);
}

} // namespace cudal1
