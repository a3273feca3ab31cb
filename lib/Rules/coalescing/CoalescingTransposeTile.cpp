//===- CoalescingTransposeTile.cpp - coalescing-transpose-tile ------------===//
//
// Transpose-like copies: each thread reads in[II] coalesced along
// threadIdx.x and writes out[IO] where threadIdx.x walks a column (lanes a
// row apart). The rewrite goes through a padded B x (B+1) shared-memory
// tile in two phases:
//   phase 1 (the original thread mapping) loads in[II] into
//            tile[threadIdx.y][threadIdx.x];
//   phase 2 every thread plays the role of the thread with x and y swapped
//            (the index declarations are re-emitted with threadIdx.x and
//            threadIdx.y exchanged) and stores out[IO] from
//            tile[threadIdx.x][threadIdx.y]: consecutive threads now write
//            consecutive addresses.
// Each output element gets the same value computed from the same input
// element: bitwise. Needs a constant block at every launch site. With a
// non-square BX x BY block (32x8 is the common one) phase 2 cannot swap x
// and y; instead the block's threads, numbered l = threadIdx.y*BX +
// threadIdx.x, take the roles of the virtual threads (l / BY, l % BY): lanes
// next to each other walk the output column, BY elements contiguous, and the
// tile's row padding is chosen so that phase 2's reads hit distinct banks.
// The guard, and any early `if (cond) return;` before the copy, are
// evaluated for the thread whose element is handled.
//
//===----------------------------------------------------------------------===//
#include "CoalescingTransposeTile.h"
#include "RowWalk.h"
#include "cudal1/Rules/SpelledType.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <map>

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

const char *RuleId = "coalescing-transpose-tile";

} // namespace

RuleInfo CoalescingTransposeTile::info() const {
  RuleInfo I;
  I.Id = RuleId;
  I.Category = "coalescing";
  I.Summary = "transpose-like copy (coalesced read, column-strided write) "
              "-> through a padded shared-memory tile";
  I.Exactness = Exactness::Bitwise;
  I.Help = "A kernel that reads in[y*W + x] and writes out[x*H + y] has one "
           "of its two accesses strided by a whole row along the warp. "
           "Staging a square block's elements in a shared-memory tile with "
           "one padding column lets both the global read and the global "
           "write be contiguous along threadIdx.x, without bank conflicts.";
  I.Doc.Detects =
      "Transpose-like copies: the kernel's last statement is `[if (guard)] "
      "out[IO] = f(in[II]);` where `in[II]` is contiguous along "
      "`threadIdx.x` and `out[IO]` is a row apart per lane and contiguous "
      "along `threadIdx.y` (`out[x * H + y] = in[y * W + x]`). Also the "
      "mirror image: a store contiguous along `threadIdx.x` whose value "
      "reads one element a row apart per lane and contiguous along "
      "`threadIdx.y` (`C[y * W + x] = alpha * At[x * H + y] + B[y * W + "
      "x]`), its other reads contiguous along `threadIdx.x` or the same in "
      "every lane.";
  I.Doc.WhySlow =
      "One of the two accesses is always column-strided: with a 32x32 "
      "block, every warp's write touches 32 sectors instead of 4.";
  I.Doc.Example = R"cuda(int x = blockIdx.x * blockDim.x + threadIdx.x;
int y = blockIdx.y * blockDim.y + threadIdx.y;
if (x < W && y < H)
  out[x * H + y] = in[y * W + x];       // warning)cuda";
  I.Doc.Fix =
      "Two phases through a padded `B x (B + 1)` shared-memory tile: every "
      "thread loads its element into `tile[threadIdx.y][threadIdx.x]` "
      "(coalesced read); after a barrier every thread takes the role of "
      "its transposed partner — the index declarations are re-emitted with "
      "`threadIdx.x` and `threadIdx.y` exchanged — and writes the "
      "partner's output element from `tile[threadIdx.x][threadIdx.y]` "
      "(coalesced write, no bank conflicts thanks to the padding). The "
      "guard is evaluated for the thread whose element is handled. "
      "Bitwise.\n"
      "\n"
      "A non-square `BX x BY` block (e.g. 32x8, the usual shape of "
      "hand-written transposes) uses a `BY x (BX + P)` tile: in phase 2 the "
      "thread numbered `l = threadIdx.y * BX + threadIdx.x` takes the role "
      "of the thread `(l / BY, l % BY)`, so a warp writes runs of `BY` "
      "contiguous output elements (with 32x8 and `float`: 4 sectors per "
      "request instead of 32). `P` is `32 / BY` when `BY` divides 32 (else "
      "1), which makes phase 2's reads of the tile conflict-free.\n"
      "\n"
      "A 32x8 or 32x16 block whose launches are all in the file and can be "
      "edited (grid and block `dim3` values or expressions, not macros; "
      "the kernel does not read `gridDim.y`, and spells `blockIdx.y`, "
      "`blockDim.y` and `threadIdx` outside macros) gets a tall 32x32 tile "
      "instead: each block does the work of `32 / BY` of the original "
      "blocks along y, every thread handles `32 / BY` elements (unrolled "
      "loops), and a warp writes 32 contiguous output elements. Each launch "
      "becomes `<<<dim3(g.x, g.y % R == 0 ? g.y / R : g.y, g.z), dim3(b.x, "
      "g.y % R == 0 ? b.y : b.y / R, b.z)>>>` with `R = 32 / BY`: a grid R "
      "times shorter when `grid.y` divides by R, else the grid as it was "
      "with blocks R times shorter. The kernel reads which from "
      "`blockDim.y`: a block covers `blockDim.y * R` of the original thread "
      "rows, and the original thread `(blockIdx.y, threadIdx.y)` is row "
      "`blockIdx.y * blockDim.y * R + q` of exactly one block, so each "
      "output element is still written once with the same value. Bitwise. "
      "On an H200 a 4096x6144 float transpose ran 1.71x faster through the "
      "tall tile than through the 32x8 one "
      "(utils/experiments/coarsen-remap.cu).\n"
      "\n"
      "An early "
      "`if (cond) return;` among the index declarations becomes part of the "
      "guard (`!(cond) && ...`), evaluated in both phases, so every thread "
      "reaches the barrier.\n"
      "\n"
      "For a transposed read the phases are mirrored: phase 1 loads the "
      "element the partner thread reads (with the partner's index "
      "declarations and guard, contiguous along the lanes), phase 2 "
      "computes and stores as written, with the tile's element in place of "
      "the read. Bitwise.\n"
      "\n"
      "## When there is no fix\n"
      "\n"
      "- the block is not constant `BX x BY x 1` (with `BY >= 2`) at every "
      "launch site in the file;\n"
      "- statements other than declarations computed without memory reads "
      "(and `if (cond) return;` with such a condition) precede the copy, the "
      "guard reads memory, or the stored value calls functions;\n"
      "- `in` and `out` may alias (not `__restrict__`, and not separate "
      "`cudaMalloc` allocations at every launch site);\n"
      "- the kernel uses `threadIdx.z`, or the code comes from macros.";
  return I;
}

// Over 150 lines: one pass from the pattern (indices, guard, block shape,
// aliasing) to the two-phase tile code; the steps share the index expressions
// they matched and are commented blocks.
void CoalescingTransposeTile::runOn(ASTContext &Ctx, const CheckContext &CC,
                                    const FunctionDecl *K,
                                    const FunctionFacts &F,
                                    std::vector<Finding> &Out) {
  const auto *Body = dyn_cast<CompoundStmt>(K->getBody());
  if (!Body || Body->body_empty())
    return;
  // The last statement: [if (COND)] out[IO] = RHS;
  const Stmt *Last = Body->body_back();
  const Expr *Cond = nullptr;
  const Stmt *Assign = Last;
  if (const auto *If = dyn_cast<IfStmt>(Last)) {
    if (If->getElse() || If->getInit() || If->getConditionVariable())
      return;
    Cond = If->getCond();
    Assign = If->getThen();
    if (const auto *CS = dyn_cast<CompoundStmt>(Assign)) {
      if (CS->size() != 1)
        return;
      Assign = CS->body_front();
    }
  }
  const auto *BO = dyn_cast<BinaryOperator>(Assign);
  if (!BO || BO->getOpcode() != BO_Assign)
    return;
  const auto *OutAcc =
      dyn_cast<ArraySubscriptExpr>(BO->getLHS()->IgnoreParens());
  if (!OutAcc)
    return;
  const ParmVarDecl *OutP = rootPointerParam(OutAcc->getBase(), F);
  if (!OutP)
    return;
  std::vector<const ArraySubscriptExpr *> RhsReads;
  forEachStmt(BO->getRHS(), [&](const Stmt *S) {
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(S))
      RhsReads.push_back(AS);
  });
  if (RhsReads.empty())
    return;
  AffineExpr IO = toAffine(OutAcc->getIdx(), F);
  if (!IO.isKnown())
    return;
  auto Unit = [](const AffineExpr &C) {
    auto V = C.constantValue();
    return V && *V == 1;
  };
  auto Far = [](const AffineExpr &C) {
    auto V = C.constantValue();
    return C.isKnown() && !(V && *V >= -1 && *V <= 1);
  };
  auto Zero = [](const AffineExpr &C) {
    auto V = C.constantValue();
    return V && *V == 0;
  };
  // The transposed access: the store (read coalesced along x, the one read)
  // or, with the store coalesced along x, the one read that walks a column
  // (`C[y * W + x] = alpha * At[x * H + y] + B[y * W + x]`; ReadT): the
  // other reads coalesced along x or the same in every lane.
  const ArraySubscriptExpr *InAcc = nullptr;
  bool ReadT = false;
  if (RhsReads.size() == 1) {
    AffineExpr II = toAffine(RhsReads[0]->getIdx(), F);
    if (II.isKnown() && Unit(II.coefficientOf("threadIdx.x")) &&
        Far(IO.coefficientOf("threadIdx.x")) &&
        Unit(IO.coefficientOf("threadIdx.y")))
      InAcc = RhsReads[0];
  }
  if (!InAcc && Unit(IO.coefficientOf("threadIdx.x"))) {
    for (const ArraySubscriptExpr *A : RhsReads) {
      AffineExpr IA = toAffine(A->getIdx(), F);
      if (!IA.isKnown()) {
        InAcc = nullptr;
        break;
      }
      AffineExpr CX = IA.coefficientOf("threadIdx.x");
      if (Far(CX) && Unit(IA.coefficientOf("threadIdx.y"))) {
        if (InAcc) { // two transposed reads: not this shape
          InAcc = nullptr;
          break;
        }
        InAcc = A;
        continue;
      }
      if (!Unit(CX) && !Zero(CX)) {
        InAcc = nullptr;
        break;
      }
    }
    ReadT = InAcc != nullptr;
  }
  if (!InAcc)
    return;
  const ParmVarDecl *InP = rootPointerParam(InAcc->getBase(), F);
  if (!InP || InP == OutP)
    return;

  Finding Fd = makeFinding(
      Ctx, RuleId, ReadT ? InAcc->getBeginLoc() : OutAcc->getBeginLoc(),
      ReadT ? "transposed read: '" + sourceText(Ctx, InAcc->getSourceRange()) +
                  "' is read a row apart per lane (one 32-byte sector per "
                  "lane) while '" +
                  sourceText(Ctx, OutAcc->getSourceRange()) +
                  "' is written along the row; a shared-memory tile makes "
                  "the read contiguous"
            : "transpose-like copy: '" +
                  sourceText(Ctx, InAcc->getSourceRange()) +
                  "' is read along the row but '" +
                  sourceText(Ctx, OutAcc->getSourceRange()) +
                  "' is written a row apart per lane (one 32-byte sector "
                  "per lane); a shared-memory tile makes both contiguous",
      K);
  Out.push_back(Fd);
  Finding &R = Out.back();

  // --- legality ----------------------------------------------------------
  std::string Why;
  auto Block = constantBlock(CC, K, Why);
  if (!Block) {
    refuse(R, Why + "; the tile needs a constant block");
    return;
  }
  uint64_t BX = (*Block)[0], BY = (*Block)[1];
  bool Square = BX == BY;
  if ((*Block)[2] != 1 || BY < 2) {
    refuse(R, "the block (" + std::to_string((*Block)[0]) + "x" +
                  std::to_string((*Block)[1]) + "x" +
                  std::to_string((*Block)[2]) +
                  ") is not two-dimensional with at least 2 rows: the "
                  "output column has no run of elements a warp could "
                  "write together");
    return;
  }
  // Row padding: +1 for square blocks and tall tiles (phase 2 reads a
  // column); 32 / BY when BY divides 32 (phase 2 reads BY rows x 32/BY
  // columns per warp).
  uint64_t Pad0 = Square ? 1 : (32 % BY == 0 ? 32 / BY : 1);
  QualType ET = InAcc->getType().getUnqualifiedType();
  uint64_t EB = Ctx.getTypeSizeInChars(ET).getQuantity();
  if (BY * (BX + Pad0) * EB > 40 * 1024) {
    refuse(R, "the tile would not fit in shared memory");
    return;
  }
  // Early exits: `if (cond) return;` with a condition computed without
  // memory reads joins the guard.
  std::vector<const Expr *> Exits;
  for (const Stmt *S : Body->body()) {
    if (S == Last)
      break;
    if (const Expr *EC = earlyExit(S)) {
      if (isPureNoMemory(EC)) {
        Exits.push_back(EC);
        continue;
      }
    }
    const auto *DS = dyn_cast<DeclStmt>(S);
    bool Ok = DS != nullptr;
    if (DS)
      for (const Decl *D : DS->decls()) {
        const auto *V = dyn_cast<VarDecl>(D);
        if (!V || V->hasAttr<CUDASharedAttr>() || V->isStaticLocal() ||
            (V->getInit() && !isPureNoMemory(V->getInit())))
          Ok = false;
      }
    if (!Ok) {
      refuse(R, "'" + sourceText(Ctx, S->getSourceRange()) +
                    "' is not a declaration of a value computed without "
                    "memory reads; only index declarations may precede the "
                    "copy");
      return;
    }
  }
  if (Cond && !isPureNoMemory(Cond)) {
    refuse(R, "the guard reads memory");
    return;
  }
  // Everything but the one read is arithmetic.
  bool RhsOk = true;
  forEachStmt(BO->getRHS(), [&](const Stmt *S) {
    if (isa<CallExpr>(S) || isa<StmtExpr>(S))
      RhsOk = false;
    if (const auto *U = dyn_cast<UnaryOperator>(S))
      if (U->getOpcode() == UO_Deref || U->isIncrementDecrementOp())
        RhsOk = false;
    if (const auto *B2 = dyn_cast<BinaryOperator>(S))
      if (B2->isAssignmentOp())
        RhsOk = false;
  });
  // The tile loads the element whenever the guard holds: the value must
  // read it unconditionally too (not under ?:, && or ||).
  {
    DynTypedNode N = DynTypedNode::create(*(const Stmt *)InAcc);
    for (unsigned D = 0; D < 64 && RhsOk; ++D) {
      auto Ps = Ctx.getParents(N);
      if (Ps.empty())
        break;
      const Stmt *P = Ps[0].get<Stmt>();
      if (!P || P == BO)
        break;
      if (isa<ConditionalOperator, BinaryConditionalOperator>(P))
        RhsOk = false;
      if (const auto *B2 = dyn_cast<BinaryOperator>(P))
        if (B2->isLogicalOp())
          RhsOk = false;
      N = Ps[0];
    }
  }
  if (!RhsOk) {
    refuse(R, ReadT ? "the stored value is not plain arithmetic on array "
                      "elements"
                    : "the stored value is not plain arithmetic on the one "
                      "input element");
    return;
  }
  std::string How;
  if (!provenDistinct(Ctx, context(), K, InP, OutP, How, Why)) {
    refuse(R, Why + " (mark them __restrict__ if they never overlap)");
    return;
  }
  R.Notes.push_back(
      makeNote(Ctx, OutAcc->getBeginLoc(), "no aliasing: " + How));
  if (uses(K->getBody(), "threadIdx.z")) {
    refuse(R, "the kernel uses threadIdx.z");
    return;
  }

  // --- tall tile ----------------------------------------------------------
  // A 32x8 (or 32x16) block whose launches can be edited runs 32 / BY of the
  // original blocks along y in each block through a 32x32 tile: 4 (or 2)
  // elements per thread in flight, and a warp writes 32 contiguous output
  // elements instead of 4 runs of 8. The launch takes blocks of BX x BY and
  // a grid.y divided by RT when it divides, else blocks of BX x BY/RT and
  // the grid as it was; either way each block covers T = blockDim.y * RT of
  // the original thread rows, which the kernel reads from blockDim.y. Every
  // original thread (blockIdx.y, threadIdx.y) is the row blockIdx.y * T + q
  // of exactly one block: bitwise.
  uint64_t RT = 32 / BY;
  bool Tall = !Square && BX == 32 && (BY == 8 || BY == 16) &&
              !uses(K->getBody(), "gridDim.y") &&
              32 * 33 * EB <= 40 * 1024;
  std::string VisWhy;
  // Each launch's grid and block as written, and their editable ranges.
  struct TallSite {
    const Expr *Grid, *Block;
    CharSourceRange GridRange, BlockRange;
  };
  std::vector<TallSite> TallSites;
  if (Tall && !allLaunchesVisible(Ctx, context(), K, VisWhy))
    Tall = false;
  if (Tall)
    for (const CUDAKernelCallExpr *Call : launchSitesOf(Ctx, context(), K)) {
      const CallExpr *Cfg = Call->getConfig();
      const Expr *WG = Cfg && Cfg->getNumArgs() >= 2
                           ? writtenLaunchDim(Cfg->getArg(0))
                           : nullptr;
      const Expr *WB = WG ? writtenLaunchDim(Cfg->getArg(1)) : nullptr;
      auto Simple = [](const Expr *W) {
        return W && !inMacro(W->getSourceRange()) &&
               !W->getType()->isIntegralOrEnumerationType() &&
               !W->getType()->isRealFloatingType() &&
               (isa<DeclRefExpr>(W->IgnoreParenImpCasts()) ||
                isPureNoMemory(W));
      };
      std::string EW;
      std::optional<CharSourceRange> GR, BR;
      if (Simple(WG) && Simple(WB) && !inMacro(Call->getSourceRange())) {
        GR = editableRange(
            Ctx, CharSourceRange::getTokenRange(WG->getSourceRange()), EW);
        BR = editableRange(
            Ctx, CharSourceRange::getTokenRange(WB->getSourceRange()), EW);
      }
      if (!GR || !BR) {
        Tall = false;
        break;
      }
      TallSites.push_back({WG, WB, *GR, *BR});
    }
  if (TallSites.empty())
    Tall = false;
  // The tall tile rewrites blockIdx.y and blockDim.y too: none of the
  // built-ins it maps may be spelled in a macro (the 32x8 tile maps only
  // threadIdx).
  for (const Stmt *S : Body->body())
    forEachStmt(S, [&](const Stmt *X) {
      if (const auto *PO = dyn_cast<PseudoObjectExpr>(X)) {
        std::string Bn = builtinName(PO);
        if ((Bn == "blockIdx.y" || Bn == "blockDim.y" ||
             StringRef(Bn).starts_with("threadIdx.")) &&
            (PO->getBeginLoc().isMacroID() || PO->getEndLoc().isMacroID()))
          Tall = false;
      }
    });
  if (!Tall)
    TallSites.clear(); // no launch is edited for the 32x8 tile

  // --- rewrite ------------------------------------------------------------
  // Two thread mappings, A (the original's: coalesced along threadIdx.x)
  // and B (the partner's). Phase 2's roles in B: threadIdx.x and threadIdx.y
  // exchanged (square), or the virtual thread (l / BY, l % BY) of the
  // linear thread number l; in a tall tile the element q, c of the tile.
  std::string Lane = uniqueName(K, "cudal1_lane");
  std::string BYs = std::to_string(BY);
  std::string TxRole = Square ? "threadIdx.y" : "(" + Lane + " / " + BYs + ")";
  std::string TyRole = Square ? "threadIdx.x" : "(" + Lane + " % " + BYs + ")";
  std::string Tile = uniqueName(K, "cudal1_tile");
  std::string TileA = Tile + "[threadIdx.y][threadIdx.x]";
  std::string TileB = Tile + "[" + TyRole + "][" + TxRole + "]";
  std::map<std::string, std::string> MapA, MapB = {{"threadIdx.x", TxRole},
                                                   {"threadIdx.y", TyRole}};
  std::string TK, TQ, TC, TE, TBy, TTy, TS;
  if (Tall) {
    TK = uniqueName(K, "cudal1_k");
    TQ = uniqueName(K, "cudal1_q");
    TC = uniqueName(K, "cudal1_c");
    TE = uniqueName(K, "cudal1_e");
    TBy = uniqueName(K, "cudal1_by");
    TTy = uniqueName(K, "cudal1_ty");
    TS = uniqueName(K, "cudal1_tshift");
    MapA = {{"threadIdx.y", TTy}, {"blockIdx.y", TBy}, {"blockDim.y", BYs + "u"}};
    MapB = MapA;
    MapB["threadIdx.x"] = TC;
    TileA = Tile + "[" + TQ + "][threadIdx.x]";
    TileB = Tile + "[" + TQ + "][" + TC + "]";
  }
  // \p S with the built-ins of \p M replaced, and \p Skip (an expression
  // inside S) by \p SkipText; empty when S comes from a macro.
  auto Mapped = [&](const Stmt *S, const std::map<std::string, std::string> &M,
                    const Stmt *Skip = nullptr,
                    const std::string &SkipText = "") {
    if (M.empty() && !Skip)
      return sourceText(Ctx, S->getSourceRange());
    std::vector<std::pair<const Stmt *, std::string>> Reps;
    if (Skip)
      Reps.push_back({Skip, SkipText});
    const SourceManager &SM0 = Ctx.getSourceManager();
    forEachStmt(S, [&](const Stmt *X) {
      const auto *PO = dyn_cast<PseudoObjectExpr>(X);
      if (!PO)
        return;
      if (Skip) {
        SourceRange IR = Skip->getSourceRange();
        SourceLocation L = PO->getBeginLoc();
        if (!SM0.isBeforeInTranslationUnit(L, IR.getBegin()) &&
            !SM0.isBeforeInTranslationUnit(IR.getEnd(), L))
          return; // inside the skipped expression
      }
      auto It = M.find(builtinName(PO));
      if (It != M.end())
        Reps.push_back({PO, It->second});
    });
    return rewrittenText(Ctx, S, Reps);
  };
  std::string Ind = indentOf(Ctx, Body->body_front()->getBeginLoc());
  std::string I1 = Ind + "  ";
  std::string Shape = std::to_string(BX) + "x" + std::to_string(BY);
  std::string ETs = spelledType(Ctx, ET, InAcc);
  std::string DeclsA, DeclsB;
  // The guard: early exits negated, then the copy's own condition.
  std::string GuardA, GuardB;
  auto AddGuard = [&](const std::string &A, const std::string &B) {
    GuardA += (GuardA.empty() ? "" : " && ") + A;
    GuardB += (GuardB.empty() ? "" : " && ") + B;
  };
  for (const Expr *EC : Exits) {
    std::string A = Mapped(EC, MapA), B = Mapped(EC, MapB);
    if (A.empty() || B.empty()) {
      refuse(R, "an early exit's condition comes from a macro expansion");
      return;
    }
    AddGuard("!(" + A + ")", "!(" + B + ")");
  }
  for (const Stmt *S : Body->body()) {
    if (S == Last)
      break;
    if (!isa<DeclStmt>(S))
      continue; // an early exit, in the guard
    std::string A = Mapped(S, MapA), B = Mapped(S, MapB);
    if (A.empty() || B.empty()) {
      refuse(R, "a declaration comes from a macro expansion");
      return;
    }
    DeclsA += I1 + A + "\n";
    DeclsB += I1 + B + "\n";
  }
  // Not ReadT: phase 1 (A) loads the read into the tile, phase 2 (B) stores
  // for the partner with the tile's element in place of the read. ReadT:
  // phase 1 (B) loads the read for the partner, phase 2 (A) computes and
  // stores as written with the tile's element in place of the read. The
  // value may use thread-dependent locals: each phase re-declares them.
  const std::map<std::string, std::string> &MapLoad = ReadT ? MapB : MapA,
                                           &MapStore = ReadT ? MapA : MapB;
  const std::string &TileLoad = ReadT ? TileB : TileA,
                    &TileStore = ReadT ? TileA : TileB;
  std::string CondA = Cond ? Mapped(Cond, MapA) : "";
  std::string CondB = Cond ? Mapped(Cond, MapB) : "";
  std::string InL = Mapped(InAcc, MapLoad);
  std::string OutS = Mapped(OutAcc, MapStore);
  std::string RhsS = Mapped(BO->getRHS(), MapStore, InAcc, TileStore);
  if ((Cond && (CondA.empty() || CondB.empty())) || InL.empty() ||
      OutS.empty() || RhsS.empty()) {
    refuse(R, "the copy comes from a macro expansion");
    return;
  }
  if (Cond)
    AddGuard(Exits.empty() ? CondA : "(" + CondA + ")",
             Exits.empty() ? CondB : "(" + CondB + ")");
  const std::string &GuardLoad = ReadT ? GuardB : GuardA,
                    &GuardStore = ReadT ? GuardA : GuardB;
  const std::string &DeclsLoad = ReadT ? DeclsB : DeclsA,
                    &DeclsStore = ReadT ? DeclsA : DeclsB;
  uint64_t Pad = Square || Tall ? 1 : (32 % BY == 0 ? 32 / BY : 1);
  std::string PadNote = Pad == 1 ? "+1 padding column"
                                 : "+" + std::to_string(Pad) + " padding columns";
  std::string TileShape = Tall ? "32x32" : Shape;
  std::string Rows = std::to_string(RT);
  std::string Txt;
  Txt += "// cuda-l1 " + std::string(RuleId) + ": through a " + TileShape +
         " shared-memory tile (" + PadNote + ")" +
         (Tall ? ", " + Rows + " of the " + Shape + " blocks along y in each "
                 "block"
               : "") +
         "\n";
  Txt += Ind + "__shared__ " + ETs + " " + Tile + "[" +
         (Tall ? std::string("32") : BYs) + "][" + std::to_string(BX) + " + " +
         std::to_string(Pad) + "];\n";
  std::string Partner =
      Tall ? " consecutive lanes take consecutive " +
                 std::string(ReadT ? "input" : "output") +
                 " elements of a tile column"
      : Square ? " each thread takes its transposed partner's element"
               : " thread l takes the role of thread (l / " + BYs + ", l % " +
                     BYs + "): runs of " + BYs + " contiguous " +
                     (ReadT ? "input" : "output") + " elements";
  // Each phase's opening: a block, or in a tall tile the loop over the RT
  // elements of each thread with the original thread it stands for.
  auto Open = [&](bool B, const std::string &Comment) {
    if (!Tall)
      return Ind + "{ //" + Comment + "\n" +
             (B && !Square ? I1 + "const unsigned " + Lane +
                                 " = threadIdx.y * " + std::to_string(BX) +
                                 " + threadIdx.x;\n"
                           : "");
    std::string T = Ind + "#pragma unroll\n" + Ind + "for (unsigned " + TK +
                    " = 0; " + TK + " < " + Rows + "; ++" + TK + ") { //" +
                    Comment + "\n";
    std::string Row = "threadIdx.y + " + TK + " * blockDim.y";
    if (B)
      T += I1 + "const unsigned " + TE + " = (" + Row + ") * 32 + threadIdx.x;\n" +
           I1 + "const unsigned " + TQ + " = " + TE + " & ((1u << " + TS +
           ") - 1u), " + TC + " = " + TE + " >> " + TS + ";\n";
    else
      T += I1 + "const unsigned " + TQ + " = " + Row + ";\n";
    std::string G = "((blockIdx.y << " + TS + ") + " + TQ + ")";
    T += I1 + "const unsigned " + TBy + " = " + G + " / " + BYs + "u, " + TTy +
         " = " + G + " % " + BYs + "u;\n";
    return T;
  };
  auto Guarded = [&](const std::string &G, const std::string &St) {
    return I1 + (G.empty() ? "" : "if (" + G + ")\n" + I1 + "  ") + St + ";\n";
  };
  if (Tall) {
    // log2 of the tile rows a block covers: blockDim.y * RT.
    auto Log2 = [](uint64_t V) {
      unsigned L = 0;
      while ((1ull << L) < V)
        ++L;
      return std::to_string(L);
    };
    Txt += Ind + "// rows of the original threads per block: " +
           std::to_string(BY * RT) + " with " + Shape + " blocks, " + BYs +
           " with " + std::to_string(BX) + "x" + std::to_string(BY / RT) +
           " blocks (the launch's choice)\n";
    Txt += Ind + "const unsigned " + TS + " = blockDim.y == " + BYs + " ? " +
           Log2(BY * RT) + " : " + Log2(BY) + ";\n";
  }
  Txt += Open(ReadT, ReadT ? " load:" + Partner
                          : std::string(" load: coalesced along threadIdx.x"));
  Txt += DeclsLoad;
  Txt += Guarded(GuardLoad, TileLoad + " = " + InL);
  Txt += Ind + "}\n";
  Txt += Ind + "__syncthreads();\n";
  Txt += Open(!ReadT, ReadT ? " compute: coalesced along threadIdx.x"
                            : " store:" + Partner);
  Txt += DeclsStore;
  Txt += Guarded(GuardStore, OutS + " = " + RhsS);
  Txt += Ind + "}";
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation BB = SM.getExpansionLoc(Body->body_front()->getBeginLoc());
  SourceLocation BE = SM.getExpansionLoc(Body->getRBracLoc());
  // Up to the end of the last statement (keep the closing brace's line).
  SourceLocation LE = Lexer::getLocForEndOfToken(
      SM.getExpansionLoc(Last->getEndLoc()), 0, SM, Ctx.getLangOpts());
  SourceLocation AfterSemi =
      Lexer::findLocationAfterToken(SM.getExpansionLoc(Last->getEndLoc()),
                                    tok::semi, SM, Ctx.getLangOpts(), false);
  if (AfterSemi.isValid() &&
      !isa<CompoundStmt>(Assign == Last ? Last : cast<IfStmt>(Last)->getThen()))
    LE = AfterSemi;
  (void)BE;
  if (inMacro(Body->getSourceRange())) {
    refuse(R, "the kernel body comes from a macro expansion");
    return;
  }
  FixIt Fix;
  Fix.Exact = Exactness::Bitwise;
  Fix.Edits.push_back(
      makeTextEdit(Ctx, CharSourceRange::getCharRange(BB, LE), Txt));
  Fix.Description =
      "transpose through a " + TileShape + " shared-memory tile (" + PadNote +
      ")" +
      (Tall ? ", " + Rows + " of the " + Shape + " blocks in each block" : "");
  // A tall tile's launches: grid.y / RT blocks of BX x BY when grid.y
  // divides, else the grid as it was with blocks of BX x BY/RT.
  for (const TallSite &TS : TallSites) {
    std::string G = launchDimText(Ctx, TS.Grid),
                B = launchDimText(Ctx, TS.Block);
    std::string C = "(" + G + ".y % " + Rows + " == 0)";
    std::string NewGrid = "dim3(" + G + ".x, " + C + " ? " + G + ".y / " +
                          Rows + " : " + G + ".y, " + G + ".z)";
    std::string NewBlock = "dim3(" + B + ".x, " + C + " ? " + B + ".y : " + B +
                           ".y / " + Rows + ", " + B + ".z)";
    Fix.Edits.push_back(makeTextEdit(Ctx, TS.GridRange, NewGrid));
    Fix.Edits.push_back(makeTextEdit(Ctx, TS.BlockRange, NewBlock));
    R.Notes.push_back(makeNote(
        Ctx, TS.Grid->getBeginLoc(),
        "launched here with " + Rows + " times fewer blocks along y (or, "
        "when grid.y does not divide by " + Rows + ", blocks of " +
            std::to_string(BX) + "x" + std::to_string(BY / RT) + ")"));
  }
  R.Fix = Fix;
}

bool CoalescingTransposeTile::uses(const Stmt *S, const std::string &Builtin) {
  bool U = false;
  forEachStmt(S, [&](const Stmt *X) {
    if (const auto *PO = dyn_cast<PseudoObjectExpr>(X))
      if (builtinName(PO) == Builtin)
        U = true;
  });
  return U;
}

void CoalescingTransposeTile::checkKernel(const KernelUnit &Kernel) {
  if (Kernel.IsTemplate)
    return;
  std::vector<Finding> Out;
  runOn(ctx(), context(), Kernel.FD, Kernel.Facts, Out);
  for (Finding &F : Out)
    report(std::move(F));
}

} // namespace cudal1
