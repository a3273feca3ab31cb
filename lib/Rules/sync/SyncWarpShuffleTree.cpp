//===- SyncWarpShuffleTree.cpp - sync-warp-shuffle-tree -------------------===//
//
// sync-warp-shuffle-tree: the halving shared-memory tree of a block
//   __syncthreads();
//   for (s = B/2; s > 0; s >>= 1) { if (tid < s) X[tid] op= X[tid + s];
//                                   __syncthreads(); }
// (log2(B) barriers, the last five steps run by part of one warp) becomes a
// warp-shuffle reduction of each warp's 32 elements, one element per warp
// through X, and a shuffle reduction of those in the first warp, which
// stores the total in X[0]: two barriers before the total, one after.
// Only X[0] keeps its meaning (checked: the kernel reads nothing else of X
// after the loop). Integers, min and max: bitwise; floating-point sums:
// reassociating.
//
//===----------------------------------------------------------------------===//
#include "SyncWarpShuffleTree.h"
#include "TreeStep.h"
#include "../coalescing/RowWalk.h"
#include "../launch/HostStatements.h"
#include "cudal1/Rules/SpelledType.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

RuleInfo SyncWarpShuffleTree::info() const {
  RuleInfo I;
  I.Id = "sync-warp-shuffle-tree";
  I.Category = "sync";
  I.Summary = "halving shared-memory tree reduction (a barrier per step) -> "
              "warp shuffles and two barriers";
  I.Exactness = Exactness::Reassociating;
  I.Help = "A block's shared-memory tree 'for (s = B/2; s > 0; s >>= 1) { if "
           "(tid < s) X[tid] += X[tid + s]; __syncthreads(); }' waits at a "
           "barrier log2(B) times, five of them for steps that only part of "
           "one warp does. Each warp sums its 32 elements with shuffles, "
           "the first warp sums the per-warp results: two barriers. The "
           "additions pair different elements: bitwise for integers, min "
           "and max, within tolerance for floating-point sums.";
  I.ExactnessNote = "reassociating (bitwise for integers and min/max)";
  I.Doc.Detects =
      "The sequential-addressing tree reduction of a block in shared "
      "memory, at the top level of a kernel after a barrier:\n"
      "\n"
      "```cuda\n"
      "__syncthreads();\n"
      "for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {  // warning\n"
      "  if (tid < s)\n"
      "    sdata[tid] += sdata[tid + s];\n"
      "  __syncthreads();\n"
      "}\n"
      "if (tid == 0)\n"
      "  partial[blockIdx.x] = sdata[0];\n"
      "```\n"
      "\n"
      "The barrier may also be the loop's first statement (`{ "
      "__syncthreads(); if (tid < s) ...; }`, no barrier needed before the "
      "loop then). The start may be `blockDim.x / 2` (or `>> 1`) or a "
      "constant equal to "
      "half the launches' block size; the step `s >>= 1`, `s /= 2` or `s = "
      "s / 2`; the update `X[tid] += X[tid + s]`, `X[tid] = X[tid] + X[tid "
      "+ s]` or `X[tid] = max(X[tid], X[tid + s])` (`min`, `fmaxf`, "
      "`fminf`, `fmax`, `fmin`). The interleaved tree (`tid % (2 * s) == "
      "0`) is sync-sequential-reduction's; after its fix this rule applies "
      "in the next round.";
  I.Doc.WhySlow =
      "Every step ends at a barrier for the whole block: 8 barriers for a "
      "block of 256 threads, the last five for steps of 16, 8, 4, 2 and 1 "
      "threads of the first warp. Where a grid has many small blocks (one "
      "partial sum per 256 elements), the blocks' time is mostly this "
      "latency.";
  I.Doc.Fix =
      "Each thread takes its element into a register, each warp sums its "
      "32 with `__shfl_down_sync`, lane 0 of each warp stores the warp's "
      "sum in `X[warp]`, and the first warp sums those the same way and "
      "stores the total in `X[0]`, followed by a barrier as the loop's last "
      "step was:\n"
      "\n"
      "```cuda\n"
      "{ // cuda-l1 sync-warp-shuffle-tree\n"
      "  float cudal1_r = sdata[tid];\n"
      "  for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)\n"
      "    cudal1_r += __shfl_down_sync(0xffffffffu, cudal1_r, cudal1_o);\n"
      "  __syncthreads();\n"
      "  if ((tid & 31u) == 0u)\n"
      "    sdata[tid >> 5] = cudal1_r;\n"
      "  __syncthreads();\n"
      "  if (tid < 32) {\n"
      "    cudal1_r = sdata[tid < 8 ? tid : 0];\n"
      "    for (int cudal1_o = 4; cudal1_o > 0; cudal1_o >>= 1)\n"
      "      cudal1_r += __shfl_down_sync(0xffffffffu, cudal1_r, cudal1_o);\n"
      "    if (tid == 0)\n"
      "      sdata[0] = cudal1_r;\n"
      "  }\n"
      "  __syncthreads();\n"
      "}\n"
      "```\n"
      "\n"
      "Lane 0's total combines lanes 0 to B/32 - 1 only, so the lanes above "
      "need no identity value (any type with a shuffle works). Only `X[0]` "
      "keeps its meaning; integer sums, min and max are exact, "
      "floating-point sums are reassociated (checked within tolerance).\n"
      "\n"
      "## When there is no fix\n"
      "\n"
      "- the loop is not a statement of the kernel's body (a branch or loop "
      "around it), the statement before it is not `__syncthreads()` (when "
      "the loop does not start with one), or a "
      "statement before it may return;\n"
      "- the step is not one of the updates above on a one-dimensional "
      "`__shared__` array (of constant size or `extern`) of `int`, "
      "`unsigned`, `long long`, `float` or `double` (the types with a "
      "shuffle), or its `max`/`min` is not CUDA's own;\n"
      "- the kernel reads an element of the array other than `X[0]` after "
      "the loop, uses the array other than as `X[k]` (a pointer to it), or "
      "already uses warp shuffles;\n"
      "- every launch is in the file and the launches' block is one "
      "constant shape that is not a "
      "one-dimensional power of two from 64 to 1024 threads, or the start "
      "is a constant other than half of it (where the launches' block is "
      "not known, or a launch is not in the file: through a pointer, "
      "`cudaLaunchKernel`, another file, the kernel tests `blockDim` and "
      "keeps the original loop "
      "for other blocks: `if (blockDim.x == 256 && blockDim.y == 1 && "
      "blockDim.z == 1) { ... } else for (...)`);\n"
      "- the loop comes from a macro.";
  return I;
}

namespace {

/// The element types __shfl_down_sync takes.
bool shuffleType(QualType T) {
  return isWideInteger(T) || T->isSpecificBuiltinType(BuiltinType::Float) ||
         T->isSpecificBuiltinType(BuiltinType::Double);
}

} // namespace

// Over 150 lines: the loop's shape, the update, the legality (position,
// barrier, reads after the loop, block) and the replacement text, sharing
// the matched pieces.
void SyncWarpShuffleTree::match(ASTContext &Ctx, const CheckContext &CC,
                                const FunctionDecl *K, const FunctionFacts &F,
                                const ForStmt *L, std::vector<Finding> &Out) {
  auto ConstIs = [&](const Expr *E, int64_t V) {
    Expr::EvalResult R;
    return !E->isValueDependent() && E->EvaluateAsInt(R, Ctx) &&
           R.Val.getInt() == V;
  };
  // for (T s = START; s > 0 | s >= 1 | s != 0; s >>= 1 | s /= 2 | s = s / 2)
  const auto *DS = dyn_cast_or_null<DeclStmt>(L->getInit());
  if (!DS || !DS->isSingleDecl())
    return;
  const auto *S = dyn_cast<VarDecl>(DS->getSingleDecl());
  if (!S || !S->getInit() || !S->getType()->isIntegerType())
    return;
  const auto *C = dyn_cast_or_null<BinaryOperator>(L->getCond());
  if (!C || varOf(C->getLHS()) != S ||
      !((C->getOpcode() == BO_GT && ConstIs(C->getRHS(), 0)) ||
        (C->getOpcode() == BO_NE && ConstIs(C->getRHS(), 0)) ||
        (C->getOpcode() == BO_GE && ConstIs(C->getRHS(), 1))))
    return;
  const Expr *Inc = L->getInc() ? L->getInc()->IgnoreParens() : nullptr;
  const auto *IB = dyn_cast_or_null<BinaryOperator>(Inc);
  if (!IB || varOf(IB->getLHS()) != S)
    return;
  bool Halving =
      (IB->getOpcode() == BO_ShrAssign && ConstIs(IB->getRHS(), 1)) ||
      (IB->getOpcode() == BO_DivAssign && ConstIs(IB->getRHS(), 2));
  if (IB->getOpcode() == BO_Assign)
    if (const auto *R =
            dyn_cast<BinaryOperator>(IB->getRHS()->IgnoreParenImpCasts()))
      Halving = varOf(R->getLHS()) == S &&
                ((R->getOpcode() == BO_Shr && ConstIs(R->getRHS(), 1)) ||
                 (R->getOpcode() == BO_Div && ConstIs(R->getRHS(), 2)));
  if (!Halving)
    return;
  // Body: { if (tid < s) <update>; __syncthreads(); } or the barrier
  // first, { __syncthreads(); if (tid < s) <update>; }.
  const auto *Body = dyn_cast<CompoundStmt>(L->getBody());
  if (!Body || Body->size() != 2)
    return;
  bool BarrierFirst = isa<CallExpr>(Body->body_front());
  const auto *If = dyn_cast<IfStmt>(BarrierFirst ? Body->body_back()
                                                 : Body->body_front());
  const auto *Sync = dyn_cast<CallExpr>(BarrierFirst ? Body->body_front()
                                                     : Body->body_back());
  if (!If || !Sync || !Sync->getDirectCallee() ||
      !Sync->getDirectCallee()->getIdentifier() ||
      Sync->getDirectCallee()->getName() != "__syncthreads" || If->getElse() ||
      If->getInit() || If->getConditionVariable())
    return;
  const auto *Lt = dyn_cast<BinaryOperator>(If->getCond()->IgnoreParens());
  if (!Lt || Lt->getOpcode() != BO_LT || !isThreadX(Lt->getLHS(), F) ||
      varOf(Lt->getRHS()) != S)
    return;
  const Stmt *Upd = If->getThen();
  if (const auto *CS = dyn_cast<CompoundStmt>(Upd)) {
    if (CS->size() != 1)
      return;
    Upd = CS->body_front();
  }
  // The update: X[tid] += X[tid + s], X[tid] = X[tid] + X[tid + s] (either
  // order), X[tid] = f(X[tid], X[tid + s]) with f a max or min.
  const auto *UA = dyn_cast<BinaryOperator>(Upd);
  const auto *LHS =
      UA ? dyn_cast<ArraySubscriptExpr>(UA->getLHS()->IgnoreParens()) : nullptr;
  const VarDecl *X = LHS ? varOf(LHS->getBase()) : nullptr;
  if (!UA || !X || !X->hasAttr<CUDASharedAttr>() ||
      !isThreadX(LHS->getIdx(), F))
    return;
  std::map<const VarDecl *, std::string> Syms{{S, "s@red"}};
  auto IsElem = [&](const Expr *E, bool Partner) {
    const auto *AS = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
    if (!AS || varOf(AS->getBase()) != X)
      return false;
    AffineExpr I = toAffine(AS->getIdx(), F, Syms);
    return Partner ? I == AffineExpr::symbol("threadIdx.x") +
                              AffineExpr::symbol("s@red")
                   : I == AffineExpr::symbol("threadIdx.x");
  };
  std::string MinMax; // the function, for a max or min
  if (UA->getOpcode() == BO_AddAssign) {
    if (!IsElem(UA->getRHS(), true))
      return;
  } else if (UA->getOpcode() == BO_Assign) {
    const Expr *R = UA->getRHS()->IgnoreParenImpCasts();
    if (const auto *Add = dyn_cast<BinaryOperator>(R);
        Add && Add->getOpcode() == BO_Add) {
      if (!((IsElem(Add->getLHS(), false) && IsElem(Add->getRHS(), true)) ||
            (IsElem(Add->getLHS(), true) && IsElem(Add->getRHS(), false))))
        return;
    } else if (const auto *Call = dyn_cast<CallExpr>(R)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      std::string N = FD && FD->getIdentifier() ? FD->getName().str() : "";
      // CUDA's own max and min (a program's function of that name may
      // compute anything).
      if (!isMinMaxName(N) ||
          !systemCallee(Ctx, Call) || Call->getNumArgs() != 2 ||
          !((IsElem(Call->getArg(0), false) && IsElem(Call->getArg(1), true)) ||
            (IsElem(Call->getArg(0), true) && IsElem(Call->getArg(1), false))))
        return;
      MinMax = N;
    } else
      return;
  } else
    return;

  // The original loop this rule kept for other blocks (`if (blockDim.x ==
  // 128 ...) { // cuda-l1 sync-warp-shuffle-tree ... } else for (...)`).
  for (const DynTypedNode &P : Ctx.getParents(*L))
    if (const auto *PIf = P.get<IfStmt>(); PIf && PIf->getElse() == L &&
                                           StringRef(sourceText(
                                               Ctx, PIf->getThen()
                                                        ->getSourceRange()))
                                               .starts_with(
                                                   "{ // cuda-l1 "
                                                   "sync-warp-shuffle-tree"))
      return;
  const Expr *Tid = Lt->getLHS()->IgnoreParenImpCasts();
  std::string TidText = sourceText(Ctx, Tid->getSourceRange());
  std::string XName = X->getName().str();
  Finding Fd = makeFinding(
      Ctx, id(), L->getBeginLoc(),
      "shared-memory tree reduction of '" + XName +
          "' waits at a barrier at every halving step, the last five for "
          "steps of one warp or less; warp shuffles need two barriers",
      K);
  auto Refuse = [&](const std::string &Why) {
    refuse(Fd, Why);
    Out.push_back(Fd);
  };
  // Every thread reaches the loop: a statement of the kernel's body, after
  // a barrier, with no return before it.
  const auto *KB = cast<CompoundStmt>(K->getBody());
  const Stmt *Prev = nullptr;
  bool Top = false, Escape = false;
  for (const Stmt *St : KB->body()) {
    if (St == L) {
      Top = true;
      break;
    }
    Escape |= containsEscape(St, false);
    Prev = St;
  }
  if (!Top) {
    Refuse("the loop is not a statement of the kernel's body: every thread "
           "must reach the shuffles");
    return;
  }
  // The loop's first step reads other threads' elements after a barrier:
  // the statement before it, or the loop's own first statement.
  const auto *PrevCall = dyn_cast_or_null<CallExpr>(Prev);
  if (!BarrierFirst && (!PrevCall || !PrevCall->getDirectCallee() ||
      !PrevCall->getDirectCallee()->getIdentifier() ||
      PrevCall->getDirectCallee()->getName() != "__syncthreads")) {
    Refuse("the statement before the loop is not '__syncthreads()'");
    return;
  }
  if (Escape) {
    Refuse("a statement before the loop may return: every thread must "
           "reach the shuffles");
    return;
  }
  // A scalar element of a one-dimensional array, of a type with a shuffle.
  // (`extern __shared__ float sdata[];` too: the original's tree reads
  // the block's elements of it as well.)
  QualType ET = LHS->getType();
  const ArrayType *AT = Ctx.getAsArrayType(X->getType());
  if (!AT ||
      !(isa<ConstantArrayType>(AT) || isa<IncompleteArrayType>(AT)) ||
      AT->getElementType()->isArrayType() || !shuffleType(ET)) {
    Refuse("'" + XName +
           "' is not a one-dimensional array of int, unsigned, long long, "
           "float or double");
    return;
  }
  // Shuffles of the kernel's own: its lanes may follow a protocol of their
  // own.
  if (containsCallTo(K->getBody(), {"__shfl*"})) {
    Refuse("the kernel already uses warp shuffles");
    return;
  }
  // After the loop, only X[0] is read; the array is only ever subscripted.
  std::string Why = readAfterTree(Ctx, K, X, L);
  if (!Why.empty()) {
    Refuse(Why);
    return;
  }
  // The block: a one-dimensional power of two from 64 to 1024 threads that
  // the tree covers whole (it starts at half of it). Known at the launches
  // (one constant shape), or tested in the kernel, the original loop kept
  // for other blocks.
  const Expr *Start = S->getInit()->IgnoreParenImpCasts();
  bool HalfBlock = false;
  if (const auto *SB = dyn_cast<BinaryOperator>(Start);
      SB && builtinName(SB->getLHS()->IgnoreParenImpCasts()) == "blockDim.x" &&
      ((SB->getOpcode() == BO_Div && ConstIs(SB->getRHS(), 2)) ||
       (SB->getOpcode() == BO_Shr && ConstIs(SB->getRHS(), 1))))
    HalfBlock = true;
  std::optional<uint64_t> StartC;
  if (Expr::EvalResult ER;
      !Start->isValueDependent() && Start->EvaluateAsInt(ER, Ctx) &&
      ER.Val.getInt().isStrictlyPositive())
    StartC = ER.Val.getInt().getZExtValue();
  if (!HalfBlock && !StartC) {
    Refuse("the tree starts at '" + sourceText(Ctx, Start->getSourceRange()) +
           "', neither half of blockDim.x nor a constant");
    return;
  }
  auto GoodBlock = [](uint64_t B) {
    return B >= 64 && B <= 1024 && !(B & (B - 1));
  };
  std::string BlockWhy;
  // Every launch in view (a launch through a pointer, cudaLaunchKernel or
  // another file could use another block): else the kernel tests blockDim.
  auto Block = constantBlock(CC, K, BlockWhy);
  if (Block && !allLaunchesVisible(Ctx, CC, K, BlockWhy))
    Block.reset();
  uint64_t B = 0;         // the block size, where known
  std::string BlockTest;  // else the kernel's test of blockDim
  if (Block) {
    B = (*Block)[0];
    if ((*Block)[1] != 1 || (*Block)[2] != 1 || !GoodBlock(B)) {
      Refuse("the block is not one-dimensional with a power of two from 64 "
             "to 1024 threads");
      return;
    }
    if (!HalfBlock && *StartC * 2 != B) {
      Refuse("the tree starts at " + std::to_string(*StartC) +
             ", not half the block (" + std::to_string(B / 2) +
             "): it does not cover every thread's element");
      return;
    }
  } else if (!HalfBlock) {
    if (!GoodBlock(*StartC * 2)) {
      Refuse("the tree covers " + std::to_string(*StartC * 2) +
             " elements, not a power of two from 64 to 1024");
      return;
    }
    B = *StartC * 2;
    BlockTest = "blockDim.x == " + std::to_string(B) +
                " && blockDim.y == 1 && blockDim.z == 1";
  } else
    BlockTest = "blockDim.x >= 64 && (blockDim.x & (blockDim.x - 1)) == 0 "
                "&& blockDim.y == 1 && blockDim.z == 1";
  if (inMacro(L->getSourceRange()) || TidText.empty()) {
    Refuse("the loop comes from a macro expansion");
    return;
  }

  FixIt Fix;
  bool Exact = ET->isIntegerType() || !MinMax.empty();
  Fix.Exact = Exact ? Exactness::Bitwise : Exactness::Reassociating;
  if (!Exact) {
    Fix.Rtol = 1e-5;
    Fix.Atol = 1e-6;
    Fix.ScaleRtol = 1e-4; // outputs that cancel to ~0
  }
  std::string T = spelledType(Ctx, ET, LHS);
  std::string R = uniqueName(K, "cudal1_r"), O = uniqueName(K, "cudal1_o");
  std::string Shfl = "__shfl_down_sync(0xffffffffu, " + R + ", " + O + ")";
  std::string Combine = MinMax.empty()
                            ? R + " += " + Shfl + ";"
                            : R + " = " + MinMax + "(" + R + ", " + Shfl + ");";
  std::string NW = B ? std::to_string(B / 32) : "(blockDim.x >> 5)";
  std::string O2 = B ? std::to_string(B / 64) : "(blockDim.x >> 6)";
  std::string Ind = indentOf(Ctx, L->getBeginLoc()), I1 = Ind + "  ",
              I2 = I1 + "  ", I3 = I2 + "  ";
  // A name (`tid`, `threadIdx.x`) needs no parentheses.
  bool Plain = isa<DeclRefExpr>(Tid) || !builtinName(Tid).empty();
  std::string Tx = Plain ? TidText : "(" + TidText + ")";
  std::string Txt = "{ // cuda-l1 sync-warp-shuffle-tree\n";
  if (BarrierFirst)
    Txt += I1 + "__syncthreads();\n";
  Txt += I1 + T + " " + R + " = " + XName + "[" + TidText + "];\n";
  Txt += I1 + "for (int " + O + " = 16; " + O + " > 0; " + O + " >>= 1)\n";
  Txt += I2 + Combine + "\n";
  Txt += I1 + "__syncthreads();\n";
  Txt += I1 + "if ((" + Tx + " & 31u) == 0u)\n";
  Txt += I2 + XName + "[" + Tx + " >> 5] = " + R + ";\n";
  Txt += I1 + "__syncthreads();\n";
  Txt += I1 + "if (" + Tx + " < 32) {\n";
  Txt += I2 + R + " = " + XName + "[" + Tx + " < " + NW + " ? " + Tx +
         " : 0];\n";
  Txt += I2 + "for (int " + O + " = " + O2 + "; " + O +
         " > 0; " + O + " >>= 1)\n";
  Txt += I3 + Combine + "\n";
  Txt += I2 + "if (" + Tx + " == 0)\n";
  Txt += I3 + XName + "[0] = " + R + ";\n";
  Txt += I1 + "}\n";
  Txt += I1 + "__syncthreads();\n";
  Txt += Ind + "}";
  if (!BlockTest.empty()) {
    // Other blocks run the original loop: the block test is the same for
    // every thread of a block, so both branches keep their barriers.
    std::string Orig = sourceText(Ctx, L->getSourceRange());
    if (Orig.empty()) {
      Refuse("the loop's text cannot be copied");
      return;
    }
    Txt = "if (" + BlockTest + ") " + Txt + " else " + Orig;
  }
  Fix.Edits.push_back(makeTextEdit(
      Ctx, CharSourceRange::getTokenRange(L->getSourceRange()), Txt));
  Fix.Description = "warp-shuffle " +
                    std::string(MinMax.empty() ? "sum" : MinMax) +
                    " of each warp's " + XName + " elements, then of the " +
                    NW + " warps' results in the first warp: two barriers "
                         "instead of " +
                    (B ? std::to_string(Log2_64(B)) : std::string("log2(blockDim.x)")) +
                    " loop steps' barriers" +
                    (BlockTest.empty() ? ""
                                       : "; the original loop for other "
                                         "blocks than '" + BlockTest + "'");
  Fd.Fix = Fix;
  Out.push_back(Fd);
}

void SyncWarpShuffleTree::checkKernel(const KernelUnit &Kernel) {
  if (Kernel.IsTemplate)
    return;
  std::vector<Finding> Out;
  forEachStmt(Kernel.FD->getBody(), [&](const Stmt *S) {
    if (const auto *L = dyn_cast<ForStmt>(S))
      match(ctx(), context(), Kernel.FD, Kernel.Facts, L, Out);
  });
  for (Finding &F : Out)
    report(std::move(F));
}

} // namespace cudal1
