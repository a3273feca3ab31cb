//===- LaunchCoarsenRows.cpp - launch-coarsen-rows ------------------------===//
//
// A kernel without loops that computes one element per thread of a 2-D
// block and reads several global values (a stencil, a field update) spends
// its time waiting on those loads: each thread has only its own few in
// flight. With the block R times shorter along y, each thread runs the
// body for R consecutive rows of the original block (logical threadIdx.y =
// threadIdx.y * R + r, logical blockDim.y = blockDim.y * R): the same
// threads' work, R times the independent loads per thread, and neighbouring
// rows' loads shared in L1.
//
// Bitwise: every logical thread (threadIdx.x, threadIdx.y * R + r,
// threadIdx.z) of every block runs the original body once, with the same
// built-in values, and threads do not interact (no shared memory,
// barriers, warp operations, atomics, asm, lambdas, calls outside CUDA's
// headers, or CUDA library code that reads the index itself).
// `return` ends one logical thread: it becomes `continue`.
//
//===----------------------------------------------------------------------===//
#include "LaunchCoarsenRows.h"
#include "HostStatements.h"
#include "cudal1/Rules/BuiltinUse.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <functional>
#include <set>

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {
/// The element \p A reads lies in shared memory or in a local array of the
/// thread (not a global load): `s[ty][tx]`, `w[k]` with `float w[4]`.
bool onChip(const ArraySubscriptExpr *A) {
  const Expr *B = A->getBase()->IgnoreParenImpCasts();
  while (const auto *In = dyn_cast<ArraySubscriptExpr>(B))
    B = In->getBase()->IgnoreParenImpCasts();
  const auto *DRE = dyn_cast<DeclRefExpr>(B);
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V)
    return false;
  if (V->hasAttr<CUDASharedAttr>())
    return true;
  return V->hasLocalStorage() && V->getType()->isArrayType();
}
} // namespace

RuleInfo LaunchCoarsenRows::info() const {
  RuleInfo I;
  I.Id = "launch-coarsen-rows";
  I.Category = "launch";
  I.Summary = "2-D one-element-per-thread kernel waiting on several loads; "
              "each thread does R rows of the block";
  I.Exactness = Exactness::Bitwise;
  I.Help = "A kernel without loops whose threads each compute one element "
           "of a 2-D block from several global loads has few loads in "
           "flight per thread; running R rows of the block in each thread "
           "(a block R times shorter) overlaps them.";
  I.DefaultOptions["MeasureFirst"] = "true";
  I.DefaultOptions["MinLoads"] = "3";
  I.DefaultOptions["MinBlockX"] = "32";
  I.Doc.Detects =
      "Kernels without loops that read at least MinLoads (default 3) "
      "global array elements, use `threadIdx.y`, access every array "
      "element whose index the tool can analyse with consecutive "
      "`threadIdx.x` on consecutive (or the same) "
      "elements (rows along x are coalescing-thread-mapping-swap's), and "
      "are launched with the "
      "same compile-time constant 2-D block at every launch in the file, "
      "with a y extent of at least 4 and an x extent of at least MinBlockX "
      "(default 32: a warp is one row of the block) (a stencil or a field "
      "update: `B[i * n + j] = 0.2 * (A[i * n + j] + A[i * n + j - 1] + "
      "...)` with 32x8 blocks). Narrower blocks are left out: a warp "
      "already spans several of their rows, and the one such kernel "
      "measured lost (HeCBench's ace, 8x8x4 blocks of doubles: 0.88x and "
      "0.91x on an H200).";
  I.Doc.WhySlow =
      "Each thread issues its few loads and then waits for them; the SM "
      "hides the wait only with other warps. Nsight Compute shows such "
      "kernels stalled on L1TEX scoreboard dependencies at well below the "
      "memory bandwidth (jacobi2d's step: 37% of DRAM throughput on an "
      "H200).";
  I.Doc.Example = R"cuda(__global__ void step(int n, const float *A, float *B) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)   // warning
    B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + j - 1] + A[i * n + j + 1] +
                           A[(i + 1) * n + j] + A[(i - 1) * n + j]);
}
dim3 block(32, 8);
step<<<grid, block>>>(n, A, B);)cuda";
  I.Doc.Fixed = R"cuda(__global__ void step(int n, const float *A, float *B) {
  #pragma unroll
  for (int cudal1_r = 0; cudal1_r < 4; ++cudal1_r) {
  int i = blockIdx.y * (blockDim.y * 4) + (threadIdx.y * 4 + cudal1_r);
  ...
  }
}
step<<<grid, dim3((block).x, (block).y / 4, (block).z)>>>(n, A, B);)cuda";
  I.Doc.Fix =
      "The block's y extent becomes `block.y / R` at every launch (R = 4 "
      "when it divides the block's y extent, else 2; the block keeps at "
      "least 32 threads), the grid stays. In the kernel, the body runs in "
      "`for (cudal1_r = 0; cudal1_r < R; ++cudal1_r)` with every "
      "`threadIdx.y` read as `threadIdx.y * R + cudal1_r` and every "
      "`blockDim.y` as `blockDim.y * R`, and `return` becomes `continue`. "
      "Each logical thread of the original block runs once with the same "
      "built-in values: bitwise.\n"
      "\n"
      "## Measured: applied where the GPU measures it faster\n"
      "\n"
      "On an H200 (utils/experiments/coarsen-remap.cu), jacobi2d's 5-point "
      "step at 4096x4096 with 32x8 blocks: 1.33x with 32x2 blocks and 4 "
      "rows per thread (1.48x with the grid shortened instead, which this "
      "rule does not do); the Game of Life step with its 3x3 loop: 1.02x. "
      "The gain depends on the kernel, so the fix is offered for GPU "
      "measurement: plain `--fix` never applies it, `--fix --verify=run` "
      "applies it where the GPU measures it faster (option MeasureFirst).\n"
      "\n"
      "## When there is no fix\n"
      "\n"
      "- the kernel uses shared memory, barriers, warp operations, atomics, "
      "inline assembly, lambdas, calls through pointers, functions of the "
      "program that read `threadIdx.y` or `blockDim.y` themselves, or "
      "library code that reads the thread index itself (cooperative "
      "groups, cub): threads would see a different block (device "
      "functions it calls are followed);\n"
      "- it names `threadIdx` or `blockDim` as a whole (not `.x`/`.y`/`.z`), "
      "or the built-ins come from a macro;\n"
      "- a launch is not visible in the file, its block is not a `dim3` "
      "expression without side effects, or it comes from a macro;\n"
      "- it is a template.";
  return I;
}

void LaunchCoarsenRows::checkKernel(const KernelUnit &Kernel) {
  if (Kernel.IsTemplate || !context().Model)
    return;
  ASTContext &C = ctx();
  const SourceManager &SM = C.getSourceManager();
  const FunctionDecl *K = Kernel.FD;
  const auto *Body = dyn_cast_or_null<CompoundStmt>(K->getBody());
  if (!Body || K->isTemplated() || !K->hasAttr<CUDAGlobalAttr>())
    return;
  // --- the shape: no loops, several global loads, threadIdx.y --------------
  unsigned Loads = 0;
  bool Loop = false, UsesY = false, Strided = false;
  std::function<void(const Stmt *, bool)> Scan = [&](const Stmt *S,
                                                     bool Written) {
    if (!S)
      return;
    if (isLoop(S))
      Loop = true;
    if (const auto *E = dyn_cast<Expr>(S))
      if (builtinName(E) == "threadIdx.y")
        UsesY = true;
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(S)) {
      // Through a kernel parameter (global memory, also `phi[x][y][z]` of
      // a `double phi[][NY][NZ]` parameter): not a subscript of a thread's
      // own registers (`reinterpret_cast<const uchar4 *>(&v)[i]`).
      const Expr *Root = A->getBase()->IgnoreParenImpCasts();
      while (const auto *In = dyn_cast<ArraySubscriptExpr>(Root))
        Root = In->getBase()->IgnoreParenImpCasts();
      if (!Written && A->getBase()->getType()->isPointerType() &&
          !A->getType()->isArrayType() && !onChip(A) &&
          rootPointerParam(Root, Kernel.Facts))
        ++Loads;
      // Along threadIdx.x: consecutive lanes on consecutive elements (or
      // the same one). Rows along x are coalescing-thread-mapping-swap's.
      if (rootPointerParam(A->getBase(), Kernel.Facts)) {
        AffineExpr I = toAffine(A->getIdx(), Kernel.Facts);
        if (I.isKnown()) {
          AffineExpr C = I.coefficientOf("threadIdx.x");
          auto CX = C.constantValue();
          if (C.isKnown() && (!CX || *CX < -1 || *CX > 1))
            Strided = true;
        }
      }
    }
    if (const auto *B = dyn_cast<BinaryOperator>(S))
      if (B->isAssignmentOp()) {
        // The stored element is not a load (a compound assignment is).
        Scan(B->getLHS(), B->getOpcode() == BO_Assign);
        Scan(B->getRHS(), false);
        return;
      }
    // A struct's or vector's assignment (`dst[i] = make_uint2(...)`).
    if (const auto *O = dyn_cast<CXXOperatorCallExpr>(S);
        O && O->getOperator() == OO_Equal && O->getNumArgs() == 2) {
      Scan(O->getArg(0), true);
      Scan(O->getArg(1), false);
      return;
    }
    for (const Stmt *Ch : S->children())
      Scan(Ch, false);
  };
  Scan(Body, false);
  if (Loop || !UsesY || Strided ||
      Loads < unsigned(optionInt("MinLoads", 3)))
    return;
  std::string Why;
  auto Block = constantBlock(context(), K, Why);
  // A block at least a warp wide along x (a warp is one row), as where
  // the coarsening was measured faster (jacobi2d's 32x8 step, 1.40x on an
  // H200). With narrower blocks a warp already spans several rows, and the
  // one measurement lost: ace's 8x8x4 phase-field steps, 0.88x and 0.91x
  // (H200, session 46).
  if (!Block || (*Block)[1] < 4 ||
      (*Block)[0] < uint64_t(optionInt("MinBlockX", 32)))
    return;
  uint64_t BX = (*Block)[0], BY = (*Block)[1], BZ = (*Block)[2];
  unsigned R = BY % 4 == 0 ? 4 : BY % 2 == 0 ? 2 : 0;
  if (R && BX * (BY / R) * BZ < 32)
    R = BY % 2 == 0 && BX * (BY / 2) * BZ >= 32 ? 2 : 0;
  if (!R)
    return;
  std::string Rs = std::to_string(R);
  // "32x8", or "32x8x2" for a 3-D block; the folded block has BY / R rows.
  auto Shape = [&](uint64_t Rows) {
    return std::to_string(BX) + "x" + std::to_string(Rows) +
           (BZ > 1 ? "x" + std::to_string(BZ) : std::string());
  };
  Finding &F = reportLater(finding(
      K->getLocation(),
      "each thread of '" + K->getNameAsString() + "' computes one element "
          "of a " + Shape(BY) +
          " block with " + std::to_string(Loads) +
          " global loads in its code and then waits for them; running " + Rs +
          " rows of the block in each thread (blocks of " +
          Shape(BY / R) +
          ") keeps " + Rs + " times the loads in flight",
      K));
  // --- legality: threads independent, built-ins by component ---------------
  std::vector<const Expr *> TY, BDY;
  std::vector<const ReturnStmt *> Returns;
  // In = the device function of the program being walked (null: the
  // kernel). A called function runs once per logical thread as before; it
  // must not read threadIdx.y or blockDim.y itself (its text stays).
  std::set<const FunctionDecl *> Seen;
  std::function<bool(const Stmt *, const FunctionDecl *)> Walk =
      [&](const Stmt *S, const FunctionDecl *In) {
    if (!S)
      return true;
    if (isa<LabelStmt>(S) || isa<GotoStmt>(S)) {
      Why = "it uses goto";
      return false;
    }
    if (const auto *Ret = dyn_cast<ReturnStmt>(S); Ret && !In)
      Returns.push_back(Ret);
    if (isa<LambdaExpr>(S)) {
      Why = "it holds a lambda";
      return false;
    }
    if (const auto *E = dyn_cast<Expr>(S)) {
      // builtinName looks through parentheses and implicit casts: the
      // built-in itself is the PseudoObjectExpr below them.
      std::string N = isa<PseudoObjectExpr>(E) ? builtinName(E) : "";
      if ((N == "threadIdx.y" || N == "blockDim.y") && In) {
        Why = "'" + In->getNameAsString() + "', which it calls, reads '" +
              N + "'";
        return false;
      }
      if (N == "threadIdx.y" || N == "blockDim.y") {
        if (E->getBeginLoc().isMacroID() || E->getEndLoc().isMacroID()) {
          Why = "'" + N + "' is written in a macro";
          return false;
        }
        (N == "threadIdx.y" ? TY : BDY).push_back(E);
        return true;
      }
      if (!N.empty())
        return true;
      if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
        if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl())) {
          StringRef VN = V->getIdentifier() ? V->getName() : "";
          if (VN == "threadIdx" || VN == "blockDim") {
            Why = "it names '" + VN.str() + "' as a whole";
            return false;
          }
        }
    }
    // A kernel launched from this one is not followed: refused as a call.
    if (isa<CUDAKernelCallExpr>(S)) {
      Why = "it launches a kernel";
      return false;
    }
    const FunctionDecl *Callee;
    if (std::string W = threadCooperationWhy(C, S, Callee); !W.empty()) {
      Why = W;
      return false;
    }
    if (Callee) {
      if (Seen.size() > 16) {
        Why = "its calls are too many to follow";
        return false;
      }
      if (Seen.insert(Callee).second && !Walk(Callee->getBody(), Callee))
        return false;
    }
    for (const Stmt *Ch : S->children())
      if (!Walk(Ch, In))
        return false;
    return true;
  };
  if (!Walk(Body, nullptr)) {
    refuse(F, "the rows of a block could tell they share a thread: " + Why);
    return;
  }
  // Library code from CUDA's headers that reads the thread index itself
  // (cooperative groups, cub) would see the real threadIdx.y.
  if (std::string U = builtinUse(C, K).Unknown; !U.empty()) {
    refuse(F, "the rows of a block could tell they share a thread: " + U);
    return;
  }
  if (!allLaunchesVisible(C, context(), K, Why)) {
    refuse(F, Why);
    return;
  }
  if (inMacro(Body->getSourceRange())) {
    refuse(F, "the kernel's body comes from a macro expansion");
    return;
  }
  FixIt X;
  X.Exact = Exactness::Bitwise;
  X.NeedsMeasurement = optionBool("MeasureFirst", true);
  X.Description = "run " + Rs + " rows of the block in each thread of '" +
                  K->getNameAsString() + "' (blocks of " +
                  Shape(BY / R) + ")";
  // Launch sites: the block's y extent divided by R.
  for (const CUDAKernelCallExpr *Call : launchSitesOf(C, context(), K)) {
    const CallExpr *Cfg = Call->getConfig();
    if (!Cfg || Cfg->getNumArgs() < 2 || inMacro(Call->getSourceRange())) {
      refuse(F, "a launch comes from a macro expansion");
      return;
    }
    const Expr *BW = writtenLaunchDim(Cfg->getArg(1));
    BW = BW ? BW : Cfg->getArg(1);
    const auto *RD = BW->getType()->getAsCXXRecordDecl();
    if (!RD || !RD->getIdentifier() || RD->getName() != "dim3" ||
        isa<InitListExpr>(BW->IgnoreParens()) || !pureLaunchValue(C, BW)) {
      refuse(F, "the block at a launch is not a dim3 expression without "
                "side effects");
      return;
    }
    std::string BT = sourceText(C, Cfg->getArg(1)->getSourceRange());
    auto BR = editableRange(
        C, CharSourceRange::getTokenRange(Cfg->getArg(1)->getSourceRange()),
        Why);
    if (!BR || BT.empty()) {
      refuse(F, Why.empty() ? "the launch's block cannot be edited" : Why);
      return;
    }
    X.Edits.push_back(makeTextEdit(C, *BR,
                                   "dim3((" + BT + ").x, (" + BT + ").y / " +
                                       Rs + ", (" + BT + ").z)"));
    note(F, Call->getBeginLoc(),
         "launched here with blocks of " + Shape(BY));
  }
  // The kernel: the body in the row loop.
  std::string Var = freshName(C, context(), K, "cudal1_r");
  auto Indent = lineIndent(C, Body->body_empty()
                                  ? Body->getRBracLoc()
                                  : (*Body->body_begin())->getBeginLoc());
  std::string In = Indent ? *Indent : "  ";
  X.Edits.push_back(makeInsertion(
      C, Body->getLBracLoc().getLocWithOffset(1),
      "\n" + In + "// cuda-l1 launch-coarsen-rows: " + Rs +
          " rows of the original block per thread\n" + In +
          "#pragma unroll\n" + In + "for (int " + Var + " = 0; " + Var +
          " < " + Rs + "; ++" + Var + ") {"));
  X.Edits.push_back(makeInsertion(C, Body->getRBracLoc(), In + "}\n"));
  for (const Expr *E : TY)
    X.Edits.push_back(makeTextEdit(
        C, CharSourceRange::getTokenRange(E->getSourceRange()),
        "(threadIdx.y * " + Rs + " + " + Var + ")"));
  for (const Expr *E : BDY)
    X.Edits.push_back(
        makeTextEdit(C, CharSourceRange::getTokenRange(E->getSourceRange()),
                     "(blockDim.y * " + Rs + ")"));
  for (const ReturnStmt *Ret : Returns) {
    if (Ret->getBeginLoc().isMacroID()) {
      refuse(F, "a return statement comes from a macro expansion");
      return;
    }
    X.Edits.push_back(makeTextEdit(
        C, CharSourceRange::getTokenRange(Ret->getBeginLoc(),
                                          Ret->getBeginLoc()),
        "continue"));
  }
  F.Fix = std::move(X);
}

} // namespace cudal1
