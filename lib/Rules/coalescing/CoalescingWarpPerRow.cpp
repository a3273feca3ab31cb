//===- CoalescingWarpPerRow.cpp - coalescing-warp-per-row -----------------===//
//
// coalescing-warp-per-row: the alternative to staging when the launch
// sites can be rewritten: one warp per row, lanes stride the row by 32,
// a shuffle reduction, lane 0 finishes. Reassociating (the sum's order
// changes); bitwise for integers.
//
//===----------------------------------------------------------------------===//
#include "CoalescingWarpPerRow.h"
#include "CoalescingWarpPerRowPasses.h"
#include "cudal1/Rules/SpelledType.h"
#include "cudal1/Rules/BuiltinUse.h"

#include "RowWalk.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

RuleInfo CoalescingWarpPerRow::info() const {
  RuleInfo I;
  I.Id = "coalescing-warp-per-row";
  I.Category = "coalescing";
  I.Summary = "each thread sums its own matrix row -> one warp per row "
              "with a shuffle reduction (grid rewritten 32x)";
  I.Exactness = Exactness::Reassociating;
  I.Help = "When thread row = blockIdx.x*blockDim.x + threadIdx.x sums "
           "A[row*LD + k] over k, a warp per row reads the row with 32 "
           "consecutive lanes (coalesced) and reduces the lanes' partial "
           "sums with __shfl_down_sync; every launch site's grid is "
           "multiplied by 32 so there is one warp per former thread. The "
           "sum is reassociated.";
  I.ExactnessNote =
      "reassociating (bitwise for integer sums)";
  I.Doc.Detects =
      "The same row-walking sums as "
      "[coalescing-smem-staging](coalescing-smem-staging.md): thread `row "
      "= blockIdx.x * blockDim.x + threadIdx.x` accumulates `acc += "
      "f(A[row * LD + k])` over `k`. This is the alternative rewrite for "
      "when the launch sites can be changed; the verifier picks the faster "
      "of the two. A kernel that makes several passes over its row (a "
      "softmax: max, sum, normalised row) is left to "
      "[coalescing-warp-per-row-passes](coalescing-warp-per-row-passes.md). "
      "Not reported for rows of fewer than 32 elements, a constant (3-D "
      "points, `for (j = 0; j < 3; ++j)`): a warp per row would leave most "
      "of its lanes idle (and where the rows are packed, `p[i * 3 + j]`, "
      "a warp's rows are one contiguous span whose bytes the iterations "
      "use up).";
  I.Doc.WhySlow =
      "Lanes read addresses a whole row apart (one sector per lane per "
      "request), and with one thread per row a 4096-row matrix gives only "
      "16 blocks of 256 threads: most of the GPU's SMs stay idle.";
  I.Doc.Example = R"cuda(int row = blockIdx.x * blockDim.x + threadIdx.x;
if (row < M) {
  float sum = 0.0f;
  for (int k = 0; k < N; ++k)
    sum += A[row * N + k] * x[k];        // warning
  y[row] = sum;
}
...
matvec<<<(M + 255) / 256, 256>>>(A, x, y, M, N);)cuda";
  I.Doc.Fix =
      "```cuda\n"
      "int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;\n"
      "const unsigned int cudal1_lane = threadIdx.x % 32u;\n"
      "if (row < M) {\n"
      "  float sum = 0.0f;\n"
      "  for (int k = 0 + (int)cudal1_lane; k < N; k += 32)\n"
      "    sum += A[row * N + k] * x[k];\n"
      "  for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)\n"
      "    sum += __shfl_down_sync(0xffffffffu, sum, cudal1_o);\n"
      "  if (cudal1_lane == 0) {\n"
      "    y[row] = sum;\n"
      "  }\n"
      "}\n"
      "...\n"
      "matvec<<<((M + 255) / 256) * 32, 256>>>(A, x, y, M, N);\n"
      "```\n"
      "\n"
      "One warp per row (the grid is multiplied by 32 at every launch "
      "site): the lanes read consecutive elements, the partial sums are "
      "combined with shuffles, lane 0 runs the code after the loop. Every "
      "value that decides control flow depends on the row only, so whole "
      "warps take the same branches and the full-mask shuffle is safe. The "
      "floating-point sum is reassociated (tolerance); integer sums are "
      "exact.\n"
      "\n"
      "An accumulator that starts from another value than zero (`float "
      "sum = y[row];`, what "
      "[memory-register-accumulation](memory-register-accumulation.md) "
      "makes of `y[row] += …` in the loop; a bias; `alpha * sum + beta * "
      "y[row]` after the loop is code after the loop and runs in lane 0) "
      "keeps it in lane 0 only: `if (cudal1_lane != 0u) sum = 0;` before "
      "the loop. The row may be read as `A[row * N + k]` or, for a "
      "parameter `float A[][N]`, as `A[row][k]`. Accumulations into global "
      "memory (`y[row] = 0; for (…) y[row] += …;`) are reached by "
      "composition: `--fix` applies memory-register-accumulation in round "
      "1 and this rule in round 2 of the same run "
      "([fixes.md](../fixes.md#composition-rounds-to-a-fixed-point)).\n"
      "\n"
      "## Measured and verified\n"
      "\n"
      "On an H200, the naive 4096x4096 matrix-vector product (16 blocks of "
      "256\n"
      "threads): 23.22x in utils/bench-structural.sh; accepted by the "
      "verifier at\n"
      "30.88x (95% CI 30.65-30.99x), within tolerance on 3 input sets, and "
      "applied\n"
      "with its annotation by `--fix --verify=run` (30.77x); 13.31x at "
      "1000x1000\n"
      "([structural-results.md](../structural-results.md)). The verifier "
      "launches the\n"
      "rewritten kernel with the grid its rewritten launch site gives (the "
      "harness's\n"
      "grid x32; [harness.md](../harness.md)).\n"
      "\n"
      "## When there is no fix\n"
      "\n"
      "- the block's x-extent is not a constant multiple of 32 at every "
      "launch site (a 2-D or 3-D block is fine when the kernel reads its "
      "y/z index, e.g. a batch `b = blockIdx.y * blockDim.y + "
      "threadIdx.y`: a warp keeps one batch; a y index the kernel never "
      "reads is launch-redundant-threads' case), or no launch site is "
      "visible, or a grid is neither an integer expression nor a `dim3` "
      "variable;\n"
      "- the accumulator is not declared in the loop's block, its initial "
      "value calls a function or assigns, or the loop body is not a single "
      "`acc += …` (or it calls user functions / reads the accumulator);\n"
      "- the kernel uses `threadIdx.x`/`blockIdx.x`/`blockDim.x`/"
      "`gridDim.x` anywhere but in the one row declaration;\n"
      "- statements before the loop store or call (they would run in all "
      "32 lanes), or the loop is nested in other control flow than a final "
      "`if (…) { … }`.";
  return I;
}

void CoalescingWarpPerRow::runOn(ASTContext &Ctx, const CheckContext &CC,
                                 const FunctionDecl *K, const FunctionFacts &F,
                                 std::vector<Finding> &Out) {
  // Several passes over the row (a softmax): coalescing-warp-per-row-passes.
  if (hasRowPasses(Ctx, K, F))
    return;
  for (const ForStmt *L : forLoopsIn(K->getBody())) {
    const Expr *K0 = nullptr, *End = nullptr;
    const VarDecl *IV = simpleLoop(Ctx, L, K0, End);
    if (!IV)
      continue;
    // A row of fewer than 32 elements, a constant (3-D points, a 4x4
    // matrix): a warp per row would leave most of its lanes idle.
    if (auto First = evalInt(Ctx, K0), Last = evalInt(Ctx, End);
        First && Last && *Last - *First < 32)
      continue;
    // The body: ACC += E(k) with A[row*LD + k] in E.
    const Stmt *BS = L->getBody();
    if (const auto *CS = dyn_cast<CompoundStmt>(BS)) {
      if (CS->size() != 1)
        continue;
      BS = CS->body_front();
    }
    const auto *Upd = dyn_cast<CompoundAssignOperator>(BS);
    if (!Upd || Upd->getOpcode() != BO_AddAssign)
      continue;
    const auto *AccRef = dyn_cast<DeclRefExpr>(Upd->getLHS()->IgnoreParens());
    const VarDecl *Acc =
        AccRef ? dyn_cast<VarDecl>(AccRef->getDecl()) : nullptr;
    if (!Acc || !Acc->hasLocalStorage() || isa<ParmVarDecl>(Acc))
      continue;
    std::map<const VarDecl *, std::string> Syms{{IV, "k@iv"}};
    bool Walk = false;
    forEachStmt(Upd->getRHS(), [&](const Stmt *S) {
      const auto *AS = dyn_cast<ArraySubscriptExpr>(S);
      AffineExpr Idx;
      if (AS && rowWalkAccess(AS, F, Syms, Idx) && walksRowPerThread(Idx))
        Walk = true;
    });
    if (!Walk)
      continue;
    Out.push_back(analyze(Ctx, CC, K, F, L, IV, K0, End, Upd, Acc));
  }
}

// Over 150 lines: the legality proof of the warp-per-row rewrite and the kernel
// and launch-site text it writes; the steps share the matched loop, accumulator
// and launch sites.
Finding CoalescingWarpPerRow::analyze(
    ASTContext &Ctx, const CheckContext &CC, const FunctionDecl *K,
    const FunctionFacts &F, const ForStmt *L, const VarDecl *IV, const Expr *K0,
    const Expr *End, const CompoundAssignOperator *Upd, const VarDecl *Acc) {
  const SourceManager &SM = Ctx.getSourceManager();
  Finding Fd = makeFinding(
      Ctx, "coalescing-warp-per-row", Upd->getBeginLoc(),
      "each thread sums its own row into '" + Acc->getName().str() +
          "': a warp per row would read the row with consecutive lanes "
          "(coalesced) and reduce with warp shuffles",
      K, Upd->getSourceRange());
  auto Fail = [&](const std::string &W) {
    refuse(Fd, W);
    return Fd;
  };
  std::string Why;
  auto Block = constantBlock(CC, K, Why);
  if (!Block)
    return Fail(Why + "; a warp per row needs a constant block size");
  if ((*Block)[0] % 32 == 0)
    if (std::string R = redundantBlockDimsWhy(Ctx, K, *Block); !R.empty())
      return Fail(R);
  // A 2-D or 3-D block whose y/z index the kernel reads (a batch, a plane):
  // a warp keeps one y and z when the x-extent is a multiple of 32.
  if ((*Block)[0] % 32)
    return Fail("the block's x-extent " + std::to_string((*Block)[0]) +
                " is not a multiple of 32 (a warp must stay in one row)");
  if (!isBlockUniform(K0, F) || !isBlockUniform(End, F))
    return Fail("the loop bounds differ between threads");
  QualType AT = Acc->getType();
  if (!AT->isArithmeticType() || AT.isVolatileQualified())
    return Fail("the accumulator is not an arithmetic scalar");
  if (!Acc->getInit())
    return Fail("the accumulator has no initial value");
  // Another start than zero (`float s = y[row];`, what a register
  // accumulation of `y[row] += ...` gives; a bias): lane 0 starts from it,
  // the other lanes from zero. It is read in all 32 lanes, so it must not
  // store, call or depend on the lane.
  bool ZeroStart =
      isZeroConstant(Ctx, Acc->getInit(), /*RejectNegativeZero=*/true);
  if (!ZeroStart) {
    bool Pure = true;
    forEachStmt(Acc->getInit(), [&](const Stmt *X) {
      if (const auto *CE = dyn_cast<CallExpr>(X)) {
        const FunctionDecl *FD = CE->getDirectCallee();
        if (!FD || !SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation())))
          Pure = false;
      }
      if (const auto *B2 = dyn_cast<BinaryOperator>(X))
        if (B2->isAssignmentOp())
          Pure = false;
      if (const auto *U = dyn_cast<UnaryOperator>(X))
        if (U->isIncrementDecrementOp())
          Pure = false;
    });
    if (!Pure)
      return Fail("the accumulator's initial value calls a function or "
                  "assigns (it would run in all 32 lanes)");
  }
  // The x components of the thread index appear only in the row
  // declaration (y and z, uniform in a warp, anywhere).
  const VarDecl *Row = nullptr;
  unsigned Builtins = 0;
  forEachStmt(K->getBody(), [&](const Stmt *S) {
    if (const auto *PO = dyn_cast<PseudoObjectExpr>(S)) {
      std::string N = builtinName(PO);
      if (!N.empty() && StringRef(N).ends_with(".x"))
        ++Builtins;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          if (V->getInit() && !F.isMutated(V) &&
              toAffine(V->getInit(), F) ==
                  AffineExpr::symbol("blockIdx.x") *
                          AffineExpr::symbol("blockDim.x") +
                      AffineExpr::symbol("threadIdx.x"))
            Row = V;
  });
  if (!Row || Builtins != 3)
    return Fail("the kernel uses the x thread or block index other than in "
                "one 'row = blockIdx.x * blockDim.x + threadIdx.x'");
  // Shape: the loop's block is the kernel body, or the then-block of an
  // if in the kernel body that is the last statement.
  const auto *Body = cast<CompoundStmt>(K->getBody());
  // A `#pragma unroll` before the loop: the replacement starts with the
  // lane-strided `for`, which it then applies to.
  const Stmt *LS = loopStatement(Ctx, L);
  auto P = Ctx.getParents(*LS);
  const CompoundStmt *Blk = P.empty() ? nullptr : P[0].get<CompoundStmt>();
  if (!Blk)
    return Fail("the loop is not directly in a block");
  if (Blk != Body) {
    auto PP = Ctx.getParents(*Blk);
    const IfStmt *If = PP.empty() ? nullptr : PP[0].get<IfStmt>();
    auto P3 = If ? Ctx.getParents(*If) : Ctx.getParents(*Blk);
    if (!If || If->getElse() || P3.empty() ||
        P3[0].get<CompoundStmt>() != Body || Body->body_back() != If)
      return Fail("the loop is nested in control flow other than a final "
                  "`if (...) { ... }` of the kernel");
  }
  // The accumulator is declared in the same block, before the loop, and
  // nothing before the loop (after the row) stores or calls.
  bool AccHere = false, SeenRow = false;
  for (const Stmt *S : Blk->body()) {
    if (S == LS)
      break;
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (D == Acc)
          AccHere = true;
  }
  if (!AccHere)
    return Fail("the accumulator is not declared in the loop's block");
  for (const Stmt *S : Body->body()) {
    if (S == LS || (Blk != Body && S == Body->body_back()))
      break;
    bool Bad = false;
    forEachStmt(S, [&](const Stmt *X) {
      if (isa<CallExpr>(X) || isa<ReturnStmt>(X) == false && false)
        Bad = true;
      if (const auto *B2 = dyn_cast<BinaryOperator>(X))
        if (B2->isAssignmentOp())
          Bad = true;
      if (const auto *U = dyn_cast<UnaryOperator>(X))
        if (U->isIncrementDecrementOp())
          Bad = true;
    });
    if (Bad)
      return Fail("'" + sourceText(Ctx, S->getSourceRange()) +
                  "' would run in all 32 lanes of the row's warp");
    (void)SeenRow;
  }
  if (Blk != Body)
    for (const Stmt *S : Blk->body()) {
      if (S == LS)
        break;
      bool Bad = false;
      forEachStmt(S, [&](const Stmt *X) {
        if (isa<CallExpr>(X) || isa<ReturnStmt>(X))
          Bad = true;
        if (const auto *B2 = dyn_cast<BinaryOperator>(X))
          if (B2->isAssignmentOp())
            Bad = true;
        if (const auto *U = dyn_cast<UnaryOperator>(X))
          if (U->isIncrementDecrementOp())
            Bad = true;
      });
      if (Bad)
        return Fail("'" + sourceText(Ctx, S->getSourceRange()) +
                    "' would run in all 32 lanes of the row's warp");
    }
  bool RhsOk = true;
  forEachStmt(Upd->getRHS(), [&](const Stmt *X) {
    if (const auto *CE = dyn_cast<CallExpr>(X)) {
      const FunctionDecl *FD = CE->getDirectCallee();
      if (!FD || !SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation())))
        RhsOk = false;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(X))
      if (DRE->getDecl() == Acc)
        RhsOk = false;
    if (const auto *B2 = dyn_cast<BinaryOperator>(X))
      if (B2->isAssignmentOp())
        RhsOk = false;
  });
  if (!RhsOk)
    return Fail("the summed expression calls user functions, assigns, or "
                "reads the accumulator");
  // Launch sites: grid.x * 32.
  auto Sites = launchSitesOf(Ctx, context(), K);
  if (Sites.empty())
    return Fail("no launch site is visible to rewrite the grid");
  FixIt Fix;
  Fix.Exact =
      AT->isIntegerType() ? Exactness::Bitwise : Exactness::Reassociating;
  if (Fix.Exact == Exactness::Reassociating) {
    Fix.Rtol = 1e-4;
    Fix.Atol = 1e-5;
    Fix.ScaleRtol = 1e-4; // outputs that cancel to ~0
  }
  for (const CUDAKernelCallExpr *Site : Sites) {
    std::string GW;
    if (!gridTimes32(Ctx, Site, Fix.Edits, GW))
      return Fail(GW);
    Fd.Notes.push_back(makeNote(Ctx, Site->getBeginLoc(),
                                "grid multiplied by 32 at this launch"));
  }
  if (inMacro(L->getSourceRange()) || inMacro(Row->getSourceRange()))
    return Fail("the code comes from a macro expansion");
  // Row: the warp's index.
  std::string Lane = uniqueName(K, "cudal1_lane");
  std::string RowInit = sourceText(Ctx, Row->getInit()->getSourceRange());
  Fix.Edits.push_back(makeTextEdit(
      Ctx, CharSourceRange::getTokenRange(Row->getInit()->getSourceRange()),
      "(" + RowInit + ") / 32"));
  auto RowDS = Ctx.getParents(*Row);
  const DeclStmt *RDS = RowDS.empty() ? nullptr : RowDS[0].get<DeclStmt>();
  if (!RDS)
    return Fail("the row declaration is not a statement");
  std::string RInd = indentOf(Ctx, RDS->getBeginLoc());
  Fix.Edits.push_back(makeInsertion(Ctx, stmtEnd(Ctx, RDS),
                                    "\n" + RInd + "const unsigned int " + Lane +
                                        " = threadIdx.x % 32u;"));
  // The loop: lanes stride by 32, then the shuffle reduction.
  std::string Ind = indentOf(Ctx, L->getBeginLoc());
  std::string IVN = IV->getName().str();
  std::string K0T = sourceText(Ctx, K0->getSourceRange());
  std::string EndT = sourceText(Ctx, End->getSourceRange());
  std::string BodyT = sourceText(Ctx, L->getBody()->getSourceRange());
  if (!isa<CompoundStmt>(L->getBody()))
    BodyT += ";";
  std::string IVT = spelledType(Ctx, IV);
  std::string AccN = Acc->getName().str();
  std::string T;
  if (!ZeroStart && LS != L)
    return Fail("the loop carries a '#pragma' and its accumulator does not "
                "start at zero (the lanes' reset would come between them)");
  if (!ZeroStart) // lane 0 keeps the initial value
    T = "if (" + Lane + " != 0u)\n" + Ind + "  " + Acc->getName().str() +
        " = 0;\n" + Ind;
  T += "for (" + IVT + " " + IVN + " = " + K0T + " + (" + IVT + ")" +
                  Lane + "; " + IVN + " < " + EndT + "; " + IVN + " += 32)" +
                  (isa<CompoundStmt>(L->getBody()) ? " " : "\n" + Ind + "  ") +
                  BodyT + "\n";
  T += warpShuffleSum(Ind, AccN);
  Fix.Edits.push_back(
      makeTextEdit(Ctx,
                   CharSourceRange::getCharRange(
                       SM.getExpansionLoc(L->getBeginLoc()), stmtEnd(Ctx, L)),
                   T));
  // The rest of the block: lane 0 only.
  const Stmt *First = nullptr, *Last = nullptr;
  bool Seen = false;
  for (const Stmt *S : Blk->body()) {
    if (Seen) {
      if (!First)
        First = S;
      Last = S;
    }
    if (S == LS)
      Seen = true;
  }
  if (First) {
    SourceLocation FB = SM.getExpansionLoc(First->getBeginLoc());
    CharSourceRange AR = CharSourceRange::getCharRange(FB, stmtEnd(Ctx, Last));
    bool Inv = false;
    std::string Rest =
        Lexer::getSourceText(AR, SM, Ctx.getLangOpts(), &Inv).str();
    if (Inv)
      return Fail("code after the loop cannot be read");
    std::string FI = indentOf(Ctx, First->getBeginLoc());
    Fix.Edits.push_back(makeTextEdit(Ctx, AR,
                                     "if (" + Lane + " == 0) {\n" + FI + "  " +
                                         reindent(Rest, "  ") + "\n" + FI +
                                         "}"));
  }
  Fix.Description = "one warp per row: lanes stride the row by 32, "
                    "__shfl_down_sync reduction, lane 0 finishes; grid x32";
  Fd.Fix = Fix;
  return Fd;
}

void CoalescingWarpPerRow::checkKernel(const KernelUnit &Kernel) {
  if (Kernel.IsTemplate)
    return;
  std::vector<Finding> Out;
  runOn(ctx(), context(), Kernel.FD, Kernel.Facts, Out);
  for (Finding &F : Out)
    report(std::move(F));
}

} // namespace cudal1
