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
      "1), which makes phase 2's reads of the tile conflict-free. An early "
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
  // Row padding: +1 for square blocks (phase 2 reads a column); 32 / BY
  // when BY divides 32 (phase 2 reads BY rows x 32/BY columns per warp).
  uint64_t Pad = Square ? 1 : (32 % BY == 0 ? 32 / BY : 1);
  QualType ET = InAcc->getType().getUnqualifiedType();
  uint64_t EB = Ctx.getTypeSizeInChars(ET).getQuantity();
  if (BY * (BX + Pad) * EB > 40 * 1024) {
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

  // --- rewrite ------------------------------------------------------------
  // Phase 2's thread roles: threadIdx.x and threadIdx.y exchanged (square),
  // or the virtual thread (l / BY, l % BY) of the linear thread number l.
  std::string Lane = uniqueName(K, "cudal1_lane");
  std::string BYs = std::to_string(BY);
  std::string TxRole = Square ? "threadIdx.y" : "(" + Lane + " / " + BYs + ")";
  std::string TyRole = Square ? "threadIdx.x" : "(" + Lane + " % " + BYs + ")";
  auto SwapXY = [&](const Stmt *S) {
    std::vector<std::pair<const Stmt *, std::string>> Reps;
    forEachStmt(S, [&](const Stmt *X) {
      if (const auto *PO = dyn_cast<PseudoObjectExpr>(X)) {
        std::string Bn = builtinName(PO);
        if (Bn == "threadIdx.x")
          Reps.push_back({PO, TxRole});
        else if (Bn == "threadIdx.y")
          Reps.push_back({PO, TyRole});
      }
    });
    return rewrittenText(Ctx, S, Reps);
  };
  std::string Ind = indentOf(Ctx, Body->body_front()->getBeginLoc());
  std::string I1 = Ind + "  ";
  std::string Tile = uniqueName(K, "cudal1_tile");
  std::string Shape = std::to_string(BX) + "x" + std::to_string(BY);
  std::string ETs = spelledType(Ctx, ET, InAcc);
  std::string Decls, SwappedDecls;
  // The guard: early exits negated, then the copy's own condition.
  std::string Guard, GuardW;
  auto AddGuard = [&](const std::string &T, const std::string &W) {
    Guard += (Guard.empty() ? "" : " && ") + T;
    GuardW += (GuardW.empty() ? "" : " && ") + W;
  };
  for (const Expr *EC : Exits) {
    std::string T = sourceText(Ctx, EC->getSourceRange());
    std::string W = SwapXY(EC);
    if (T.empty() || W.empty()) {
      refuse(R, "an early exit's condition comes from a macro expansion");
      return;
    }
    AddGuard("!(" + T + ")", "!(" + W + ")");
  }
  for (const Stmt *S : Body->body()) {
    if (S == Last)
      break;
    if (!isa<DeclStmt>(S))
      continue; // an early exit, in the guard
    std::string T = sourceText(Ctx, S->getSourceRange());
    std::string W = SwapXY(S);
    if (T.empty() || W.empty()) {
      refuse(R, "a declaration comes from a macro expansion");
      return;
    }
    Decls += I1 + T + "\n";
    SwappedDecls += I1 + W + "\n";
  }
  std::string CondT = Cond ? sourceText(Ctx, Cond->getSourceRange()) : "";
  std::string CondW = Cond ? SwapXY(Cond) : "";
  std::string InT = sourceText(Ctx, InAcc->getSourceRange());
  std::string OutW = SwapXY(OutAcc);
  std::vector<std::pair<const Stmt *, std::string>> RhsReps = {
      {InAcc, Tile + "[" + TyRole + "][" + TxRole + "]"}};
  {
    const SourceManager &SM0 = Ctx.getSourceManager();
    SourceRange IR = InAcc->getSourceRange();
    forEachStmt(BO->getRHS(), [&](const Stmt *X) {
      const auto *PO = dyn_cast<PseudoObjectExpr>(X);
      if (!PO)
        return;
      SourceLocation L = PO->getBeginLoc();
      if (!SM0.isBeforeInTranslationUnit(L, IR.getBegin()) &&
          !SM0.isBeforeInTranslationUnit(IR.getEnd(), L))
        return; // inside the input access
      std::string Bn = builtinName(PO);
      if (Bn == "threadIdx.x")
        RhsReps.push_back({PO, TxRole});
      else if (Bn == "threadIdx.y")
        RhsReps.push_back({PO, TyRole});
    });
  }
  std::string RhsW = rewrittenText(Ctx, BO->getRHS(), RhsReps);
  // ReadT: phase 1 loads the read for the partner, phase 2 computes as
  // written with the tile's element in place of the read.
  std::string InW = SwapXY(InAcc);
  std::string OutT = sourceText(Ctx, OutAcc->getSourceRange());
  std::string RhsT = rewrittenText(
      Ctx, BO->getRHS(), {{InAcc, Tile + "[threadIdx.y][threadIdx.x]"}});
  if (ReadT) {
    RhsW = RhsT;
    OutW = OutT;
    InT = InW;
  }
  // RHS may use thread-dependent locals too: swap them as well by
  // re-evaluating in phase 2's scope (the re-declared locals shadow).
  if ((Cond && (CondT.empty() || CondW.empty())) || InT.empty() ||
      OutW.empty() || RhsW.empty()) {
    refuse(R, "the copy comes from a macro expansion");
    return;
  }
  if (Cond)
    AddGuard(Exits.empty() ? CondT : "(" + CondT + ")",
             Exits.empty() ? CondW : "(" + CondW + ")");
  std::string PadNote =
      Pad == 1 ? "+1 padding column" : "+" + std::to_string(Pad) + " padding columns";
  std::string Txt;
  Txt += "// cuda-l1 " + std::string(RuleId) + ": through a " + Shape +
         " shared-memory tile (" + PadNote + ")\n";
  Txt += Ind + "__shared__ " + ETs + " " + Tile + "[" + BYs + "][" +
         std::to_string(BX) + " + " + std::to_string(Pad) + "];\n";
  std::string Partner =
      Square ? " each thread takes its transposed partner's element"
             : " thread l takes the role of thread (l / " + BYs + ", l % " +
                   BYs + "): runs of " + BYs + " contiguous " +
                   (ReadT ? "input" : "output") + " elements";
  std::string LaneDecl = Square ? "" : I1 + "const unsigned " + Lane +
                                           " = threadIdx.y * " +
                                           std::to_string(BX) +
                                           " + threadIdx.x;\n";
  if (ReadT) {
    Txt += Ind + "{ // load:" + Partner + "\n" + LaneDecl;
    Txt += SwappedDecls;
    Txt += I1 + (GuardW.empty() ? "" : "if (" + GuardW + ")\n" + I1 + "  ") +
           Tile + "[" + TyRole + "][" + TxRole + "] = " + InT + ";\n";
    Txt += Ind + "}\n";
    Txt += Ind + "__syncthreads();\n";
    Txt += Ind + "{ // compute: coalesced along threadIdx.x\n";
    Txt += Decls;
    Txt += I1 + (Guard.empty() ? "" : "if (" + Guard + ")\n" + I1 + "  ") +
           OutW + " = " + RhsW + ";\n";
    Txt += Ind + "}";
  } else {
    Txt += Ind + "{ // load: coalesced along threadIdx.x\n";
    Txt += Decls;
    Txt += I1 + (Guard.empty() ? "" : "if (" + Guard + ")\n" + I1 + "  ") +
           Tile + "[threadIdx.y][threadIdx.x] = " + InT + ";\n";
    Txt += Ind + "}\n";
    Txt += Ind + "__syncthreads();\n";
    Txt += Ind + "{ // store:" + Partner + "\n" + LaneDecl;
    Txt += SwappedDecls;
    Txt += I1 + (GuardW.empty() ? "" : "if (" + GuardW + ")\n" + I1 + "  ") +
           OutW + " = " + RhsW + ";\n";
    Txt += Ind + "}";
  }
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
      "transpose through a " + Shape + " shared-memory tile (" + PadNote + ")";
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
