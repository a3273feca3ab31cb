//===- CoalescingThreadMappingSwap.cpp - coalescing-thread-mapping-swap ---===//
//
// 2-D kernels whose global accesses mostly run along the slow dimension
// (consecutive threadIdx.x a row apart, consecutive threadIdx.y adjacent):
// swap the roles of x and y in the kernel (threadIdx, blockIdx, blockDim,
// gridDim) and swap the x and y components of grid and block at every
// launch site, so each logical thread computes the same element, now with
// the warp along the contiguous dimension. Bitwise: threads are
// independent (no shared memory, barriers, warp operations or atomics).
//
//===----------------------------------------------------------------------===//
#include "CoalescingThreadMappingSwap.h"
#include "RowWalk.h"
#include "../AccessNotes.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"

#include <functional>

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

const char *RuleId = "coalescing-thread-mapping-swap";


/// New text for a grid/block argument with x and y swapped; "" when it
/// cannot be written safely (\p Why set).
std::string swappedDim(ASTContext &Ctx, const Expr *W, std::string &Why) {
  std::string Text = sourceText(Ctx, W->getSourceRange());
  if (Text.empty() || inMacro(W->getSourceRange())) {
    Why = "a launch configuration comes from a macro expansion";
    return "";
  }
  QualType T = W->getType();
  if (T->isIntegralOrEnumerationType())
    return "dim3(1, " + Text + ")";
  // dim3(a, b[, c]) written explicitly.
  if (const auto *C = dyn_cast<CXXConstructExpr>(W->IgnoreParenImpCasts())) {
    std::vector<std::string> Args;
    for (const Expr *A : C->arguments()) {
      if (isa<CXXDefaultArgExpr>(A))
        break;
      Args.push_back(sourceText(Ctx, A->getSourceRange()));
    }
    if (!Args.empty() && Args.size() <= 3 && C->getNumArgs() >= 1 &&
        C->getArg(0)->getType()->isIntegralOrEnumerationType()) {
      while (Args.size() < 3)
        Args.push_back("1");
      for (auto &A : Args)
        if (A.empty()) {
          Why = "a launch configuration comes from a macro expansion";
          return "";
        }
      return "dim3(" + Args[1] + ", " + Args[0] + ", " + Args[2] + ")";
    }
  }
  if (isa<DeclRefExpr>(W->IgnoreParenImpCasts()) || isPureNoMemory(W))
    return "dim3((" + Text + ").y, (" + Text + ").x, (" + Text + ").z)";
  Why = "the launch configuration '" + Text + "' is not a simple expression";
  return "";
}


/// The expression around \p E, through parentheses and implicit casts.
const Expr *enclosingExpr(ASTContext &Ctx, const Expr *E) {
  const Stmt *Cur = E;
  for (int Depth = 0; Depth < 16; ++Depth) {
    auto P = Ctx.getParents(*Cur);
    if (P.empty())
      return nullptr;
    const auto *PE = P[0].get<Expr>();
    if (!PE)
      return nullptr;
    if (!isa<ParenExpr, ImplicitCastExpr>(PE))
      return PE;
    Cur = PE;
  }
  return nullptr;
}

/// \p B (a built-in index variable) is part of `blockIdx.D * blockDim.D +
/// threadIdx.D` (operands in either order), the global index along D.
bool inGlobalIndex(ASTContext &Ctx, const Expr *B) {
  std::string N = builtinName(B);
  if (N.size() < 2 || (N.back() != 'x' && N.back() != 'y'))
    return false;
  std::string D(1, N.back());
  auto Other = [](const BinaryOperator *Op, const Expr *Mine) {
    const Expr *L = Op->getLHS()->IgnoreParenImpCasts(),
               *R = Op->getRHS()->IgnoreParenImpCasts();
    return L == Mine->IgnoreParenImpCasts() ? R : L;
  };
  auto IsMul = [&](const Expr *E) {
    const auto *M = dyn_cast_or_null<BinaryOperator>(E ? E->IgnoreParenImpCasts() : nullptr);
    if (!M || M->getOpcode() != BO_Mul)
      return false;
    std::string A = builtinName(M->getLHS()->IgnoreParenImpCasts()),
                C = builtinName(M->getRHS()->IgnoreParenImpCasts());
    return (A == "blockIdx." + D && C == "blockDim." + D) ||
           (A == "blockDim." + D && C == "blockIdx." + D);
  };
  const Expr *Up = enclosingExpr(Ctx, B);
  const auto *Op = dyn_cast_or_null<BinaryOperator>(Up);
  if (!Op)
    return false;
  if (N == "threadIdx." + D)
    return Op->getOpcode() == BO_Add && IsMul(Other(Op, B));
  if (N != "blockIdx." + D && N != "blockDim." + D)
    return false;
  if (!IsMul(Op))
    return false;
  const auto *Add = dyn_cast_or_null<BinaryOperator>(enclosingExpr(Ctx, Op));
  return Add && Add->getOpcode() == BO_Add &&
         builtinName(Other(Add, Op)) == "threadIdx." + D;
}

} // namespace

RuleInfo CoalescingThreadMappingSwap::info() const {
  RuleInfo I;
  I.Id = RuleId;
  I.Category = "coalescing";
  I.Summary = "2-D kernel indexing rows by threadIdx.x -> swap x and y in "
              "the kernel and at every launch site";
  I.Exactness = Exactness::Bitwise;
  I.Help = "When consecutive threadIdx.x values address elements a row "
           "apart and consecutive threadIdx.y values address adjacent "
           "elements, every warp request touches one sector per lane. "
           "Swapping the roles of x and y (threadIdx, blockIdx, blockDim, "
           "gridDim) in the kernel, and the x and y components of grid "
           "and block at every launch site, keeps each logical thread's "
           "work and makes the accesses contiguous along the warp.";
  I.Doc.Detects =
      "2-D kernels whose global accesses mostly run along the slow "
      "dimension: consecutive `threadIdx.x` values address elements a row "
      "apart while consecutive `threadIdx.y` values address adjacent "
      "elements (`int r = blockIdx.x * blockDim.x + threadIdx.x; int c = "
      "…y…; out[r * W + c]`). Reported when such accesses outnumber the "
      "ones already contiguous along x, and the swap would make more "
      "accesses contiguous or broadcast than it would make strided: a "
      "kernel whose loop reads `in[j * cols + k]` (the same address across "
      "`threadIdx.x`, rows apart along y) and stores `out[i * rows + j]` "
      "once gets no finding, since the swap would trade one strided store "
      "for a strided load per iteration. Nor does a kernel whose every "
      "access the swap makes contiguous or broadcast runs once per thread "
      "beside a loop of many iterations "
      "(coalescing-uncoalesced-access's test, loops in the functions it "
      "calls included: mandelbrot's one store of an escape count after "
      "`p->Point(c)`'s loop): a small share of the kernel's time.";
  I.Doc.WhySlow =
      "A warp is made of consecutive `threadIdx.x` values. With a 16x16 "
      "block a warp covers 16 rows x 2 columns: 16 sectors per request "
      "where 4 would do.";
  I.Doc.Example = R"cuda(int r = blockIdx.x * blockDim.x + threadIdx.x;
int c = blockIdx.y * blockDim.y + threadIdx.y;
if (r < H && c < W)
  out[r * W + c] = a * in[r * W + c];   // warning
...
scale2d<<<grid, block>>>(in, out, W, H, a);)cuda";
  I.Doc.Fix =
      "Swap `x` and `y` of `threadIdx`, `blockIdx`, `blockDim` and "
      "`gridDim` in the kernel, and the x and y components of grid and "
      "block at every launch site (`dim3(b, a, c)` for `dim3(a, b, c)`, "
      "`dim3((g).y, (g).x, (g).z)` for a `dim3` variable, `dim3(1, n)` for "
      "an integer). Each logical thread computes the same element: "
      "bitwise.\n"
      "\n"
      "With a 32x8 block the swapped block is 8x32: a warp then spans 8 "
      "consecutive elements (32 bytes), not 32. So when the kernel has no "
      "loop (one element per thread; kernels with loops keep the plain "
      "swap, which coalescing-matmul-tile can build on), uses "
      "the x and y built-ins only as global indices (`blockIdx.D * "
      "blockDim.D + threadIdx.D`, operands in any order; no `gridDim`, no "
      "`threadIdx` on its own), every launch's block has a multiple of 32 "
      "threads along x, and the tool knows every launch's grid and block, "
      "the block stays and the grid is reshaped to cover the swapped "
      "extents: `grid.x * block.x` rows and `grid.y * block.y` columns "
      "become `dim3(grid.y * block.y / block.x, grid.x * block.x / "
      "block.y)` blocks. A warp then spans 32 consecutive elements. This "
      "needs the swapped extents to divide by the block; the launch tests "
      "it at run time (with the 65535 limit of `gridDim.y`) and otherwise "
      "swaps grid and block as above (also exact for the rewritten "
      "kernel). The fallback puts the old `grid.x` in `gridDim.y`: a "
      "launch with more than 65535 blocks along x (over 2 million rows "
      "with 32-wide blocks) then fails to launch (an error, not wrong "
      "results); the tool reshapes only when every launch it evaluates "
      "stays within both limits. On an "
      "H200, FDTD's `hz` update at 2048x2048 ran in 20.5 us reshaped "
      "against 41.5 us with the 8x32 block "
      "(utils/experiments/coarsen-remap.cu).\n"
      "\n"
      "## Measured and verified\n"
      "\n"
      "On an H200, a 4096x4096 element-wise kernel with rows along "
      "`threadIdx.x` in\n"
      "32x8 blocks: 3.83x in utils/bench-structural.sh; accepted by the "
      "verifier at\n"
      "4.04x (95% CI 4.04-4.10x), bit for bit, and applied with its "
      "annotation by\n"
      "`--fix --verify=run` (4.05x); 2.93x at 777x1000 with non-square "
      "blocks\n"
      "([structural-results.md](../structural-results.md)). The verifier "
      "launches the\n"
      "rewritten kernel with grid and block x/y swapped, as its rewritten "
      "launch site\n"
      "says ([harness.md](../harness.md)). How much the swap gains depends "
      "on the\n"
      "block shape: 3.5x with 32x32 blocks, 3.1x with 64x4, 1.38x with "
      "16x16, none\n"
      "with 256x1 (one row of threads: swapping cannot change which "
      "addresses a warp\n"
      "touches); docs/structural-results/experiments.txt.\n"
      "\n"
      "## When there is no fix\n"
      "\n"
      "- the kernel uses shared memory, barriers, warp operations or "
      "atomics (threads are not independent), or calls a user function (it "
      "may use the thread index);\n"
      "- no launch site of the kernel is visible in the file, or a launch "
      "configuration comes from a macro or is not a simple expression;\n"
      "- a thread index is spelled in a macro;\n"
      "- a constant grid has more than 65535 blocks along x (the limit of "
      "`gridDim.y` after the swap);\n"
      "- the grid is not a compile-time constant and some launch's block "
      "is not constant or has fewer than 8 threads along y: the fix is "
      "shown as not proven (never applied), with a note.\n"
      "\n"
      "When the grid is not a compile-time constant (`dim3 grid(ceil(n / "
      "32.0), ...)`), the fix swaps the block alone: `threadIdx` and "
      "`blockDim` in the kernel, the block at the launch sites; `blockIdx`, "
      "`gridDim` and the grid stay. Every block computes the same outputs "
      "with its threads permuted (valid for any grid, no 65535 limit), and a "
      "warp spans `block.y` consecutive elements of a row (done when every "
      "launch's `block.y` is at least 8).\n"
      "\n"
      "The kernel's other launch sites must be in the processed files; a "
      "note says so for kernels with external linkage.";
  return I;
}

// Over 150 lines: one pass: the accesses that decide the mapping, the legality
// (no shared memory, barriers, warp operations), the kernel and launch-site
// edits.
void CoalescingThreadMappingSwap::runOn(ASTContext &Ctx, const CheckContext &CC,
                                        const FunctionDecl *K,
                                        const FunctionFacts &F,
                                        const KernelAnalysis *KA,
                                        std::vector<Finding> &Out) {
  unsigned Bad = 0, Good = 0;
  // Accesses the swap would make strided along the warp (broadcast or
  // contiguous along x now, rows apart along y: `din[j * cols + k]` read
  // by every lane of a row of threads) against those it would make
  // contiguous or broadcast (rows apart along x now).
  unsigned Worsen = 0, Improve = 0;
  // Accesses the swap makes contiguous or broadcast.
  std::vector<const ArraySubscriptExpr *> Helped;
  // Counters of loops the same for every thread (`for (k = 0; k < n;
  // ++k)`): a symbol in the index, so that `in[r * cols + k]` has known
  // coefficients of threadIdx.
  std::map<const VarDecl *, std::string> LoopSyms;
  for (const ForStmt *L : forLoopsIn(K->getBody()))
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(L->getInit()))
      if (DS->isSingleDecl())
        if (const auto *V = dyn_cast<VarDecl>(DS->getSingleDecl());
            V && V->getInit() && V->getType()->isIntegerType()) {
          AffineExpr I = toAffine(V->getInit(), F);
          bool Uniform = I.isKnown();
          for (const std::string &Sym : I.symbols())
            if (StringRef(Sym).starts_with("threadIdx.") ||
                StringRef(Sym).starts_with("blockIdx."))
              Uniform = false;
          if (Uniform)
            LoopSyms[V] = "@loop." + V->getName().str();
        }
  const ArraySubscriptExpr *FirstBad = nullptr;
  std::vector<const Expr *> Builtins;
  bool UsesY = false;
  forEachStmt(K->getBody(), [&](const Stmt *S) {
    if (const auto *E = dyn_cast<Expr>(S)) {
      if (isa<PseudoObjectExpr>(E)) {
        std::string B = builtinName(E);
        if (!B.empty()) {
          Builtins.push_back(E);
          if (B == "threadIdx.y")
            UsesY = true;
        }
      }
    }
    const auto *AS = dyn_cast<ArraySubscriptExpr>(S);
    if (!AS || !rootPointerParam(AS->getBase(), F))
      return;
    AffineExpr Idx = toAffine(AS->getIdx(), F, LoopSyms);
    if (!Idx.isKnown()) {
      // Not affine (`(rows - j) % rows`, `cols / 2 + 1`): an index that
      // reads threadIdx.y and not threadIdx.x is the same across a row of
      // lanes now and, likely, rows apart after the swap.
      std::set<std::string> Uses;
      std::set<const VarDecl *> Seen;
      std::function<void(const Stmt *)> Walk = [&](const Stmt *X) {
        if (!X)
          return;
        if (const auto *E = dyn_cast<Expr>(X)) {
          std::string B = builtinName(E);
          if (!B.empty()) {
            Uses.insert(B);
            return;
          }
        }
        if (const auto *D = dyn_cast<DeclRefExpr>(X))
          if (const auto *V = dyn_cast<VarDecl>(D->getDecl());
              V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) &&
              V->getInit() && Seen.insert(V).second)
            Walk(V->getInit());
        for (const Stmt *Ch : X->children())
          Walk(Ch);
      };
      Walk(AS->getIdx());
      if (Uses.count("threadIdx.y") && !Uses.count("threadIdx.x"))
        ++Worsen;
      return;
    }
    AffineExpr CX = Idx.coefficientOf("threadIdx.x");
    AffineExpr CY = Idx.coefficientOf("threadIdx.y");
    auto CXv = CX.constantValue(), CYv = CY.constantValue();
    bool XUnit = CXv && (*CXv == 1 || *CXv == -1);
    bool YUnit = CYv && (*CYv == 1 || *CYv == -1);
    bool XFar = CX.isKnown() && !(CXv && *CXv >= -1 && *CXv <= 1);
    bool YFar = CY.isKnown() && !(CYv && *CYv >= -1 && *CYv <= 1);
    if (YFar && !XFar && CX.isKnown())
      ++Worsen;
    if (XFar && !YFar && CY.isKnown()) {
      ++Improve;
      Helped.push_back(AS);
    }
    if (XUnit)
      ++Good;
    else if (XFar && YUnit) {
      ++Bad;
      Helped.push_back(AS);
      if (!FirstBad)
        FirstBad = AS;
    }
  });
  if (!UsesY || !FirstBad || Bad <= Good || Improve <= Worsen)
    return;
  // Each access the swap would make contiguous or broadcast runs once per
  // thread beside a loop of many iterations (coalescing-uncoalesced-
  // access's test): mandelbrot's one store after its escape loop, a small
  // share of the kernel's traffic and time. A product's row reads in its
  // loop are not: they become broadcasts, and keep the finding.
  if (KA && llvm::all_of(Helped, [&](const ArraySubscriptExpr *AS) {
        const MemAccess *A = ownAccess(*KA, AS);
        return A && outweighingLoop(CC, Ctx, *KA, *A);
      }))
    return;
  Finding Fd = makeFinding(
      Ctx, RuleId, FirstBad->getBeginLoc(),
      "consecutive threadIdx.x values access '" +
          sourceText(Ctx, FirstBad->getSourceRange()) +
          "' a row apart while threadIdx.y walks along the row (" +
          std::to_string(Bad) + " of " + std::to_string(Bad + Good) +
          " analysed accesses): each warp request touches one sector per "
          "lane; swapping the x and y roles makes them contiguous",
      K);
  Out.push_back(std::move(Fd));
  Finding &R = Out.back();

  // --- legality ----------------------------------------------------------
  const SourceManager &SM = Ctx.getSourceManager();
  if (containsCallTo(K->getBody(),
                     {"__syncthreads", "__syncthreads_count",
                      "__syncthreads_and", "__syncthreads_or", "__syncwarp",
                      "__shfl*", "__ballot*", "__any*", "__all*",
                      "__activemask", "atomic*", "__match*", "__reduce*"})) {
    refuse(R, "the kernel uses barriers, warp operations or atomics: "
              "threads are not independent");
    return;
  }
  std::string Why;
  forEachStmt(K->getBody(), [&](const Stmt *S) {
    if (!Why.empty())
      return;
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (D->hasAttr<CUDASharedAttr>())
          Why = "the kernel uses shared memory: threads are not independent";
    if (const auto *CE = dyn_cast<CallExpr>(S))
      if (const FunctionDecl *FD = CE->getDirectCallee())
        if (!SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation())) &&
            !FD->getBuiltinID())
          Why = "the kernel calls '" + FD->getNameAsString() +
                "', which may use the thread index";
  });
  if (!Why.empty()) {
    refuse(R, Why);
    return;
  }
  auto Sites = launchSitesOf(Ctx, context(), K);
  if (Sites.empty()) {
    refuse(R, "no launch site of '" + K->getNameAsString() +
                  "' is visible in this file; the grid and block must be "
                  "swapped where it is launched");
    return;
  }
  // gridDim.y is limited to 65535: swapping the grid puts the old x extent
  // there. When the grid is not a compile-time constant, swap only the
  // block (threadIdx and blockDim; blockIdx and gridDim stay): every block
  // covers the same outputs with its threads permuted, valid for any grid.
  // A warp then spans block.y consecutive elements of a row instead of
  // block.x rows: done when every launch's block.y is at least 8 (a full
  // 32-byte sector of 4-byte elements).
  std::string QN = K->getQualifiedNameAsString();
  bool GridKnown = true, BlocksWide = true;
  std::string TooWide; // a constant grid with more than 65535 blocks along x
  if (CC.Model)
    for (const LaunchSite &S : CC.Model->LaunchSites)
      if (S.Kernel == QN) {
        if (!S.Grid.Dim)
          GridKnown = false;
        else if ((*S.Grid.Dim)[0] > 65535 && TooWide.empty())
          TooWide = S.Loc.str();
        if (!S.Block.Dim || (*S.Block.Dim)[1] < 8)
          BlocksWide = false;
      }
  // Reshaped: the block stays and the grid covers the swapped extents
  // (grid.x = grid.y * block.y / block.x, grid.y = grid.x * block.x /
  // block.y), so a warp spans block.x (32) consecutive elements of a row,
  // not block.y. Exact when each logical thread keeps its element: the
  // kernel uses the x and y built-ins only as `blockIdx.D * blockDim.D +
  // threadIdx.D`, and at every launch (values known) the swapped extents
  // divide by the block.
  // Only kernels without loops (one element per thread, bandwidth-bound):
  // a kernel with a loop keeps the plain swap, whose constant block the
  // structural rules of the next round (coalescing-matmul-tile) build on.
  bool Reshape = CC.Model != nullptr && !containsLoop(K->getBody());
  for (const Expr *B : Builtins) {
    std::string N = builtinName(B);
    if (N.back() != 'z' && !inGlobalIndex(Ctx, B))
      Reshape = false;
  }
  if (Reshape) {
    unsigned Seen = 0, Divisible = 0;
    for (const LaunchSite &S : CC.Model->LaunchSites) {
      if (S.Kernel != QN)
        continue;
      ++Seen;
      if (S.Values.empty())
        Reshape = false;
      for (const LaunchValues &LV : S.Values) {
        if (!LV.Grid.known() || !LV.Block.known()) {
          Reshape = false;
          break;
        }
        uint64_t GX = LV.Grid.Dims[0] * LV.Block.Dims[0],
                 GY = LV.Grid.Dims[1] * LV.Block.Dims[1];
        uint64_t BX = LV.Block.Dims[0], BY = LV.Block.Dims[1];
        bool Div = GY % BX == 0 && GX % BY == 0;
        // Not divisible: the launch falls back to the full swap, whose
        // gridDim.y is the old grid.x.
        if (BX < 32 || BX % 32 || (Div && GX / BY > 65535) ||
            (!Div && LV.Grid.Dims[0] > 65535))
          Reshape = false;
        Divisible += Div;
      }
    }
    if (Seen != Sites.size() || !Divisible)
      Reshape = false;
  }
  bool BlockOnly = !Reshape && (!GridKnown || !TooWide.empty()) && BlocksWide;
  if (!TooWide.empty() && !BlockOnly && !Reshape) {
    refuse(R, "the grid at " + TooWide +
                  " has more than 65535 blocks along x, too many for "
                  "gridDim.y after the swap");
    return;
  }
  FixIt Fix;
  Fix.Exact = Exactness::Bitwise;
  for (const Expr *B : Builtins) {
    const auto *PO = cast<PseudoObjectExpr>(B);
    const auto *P =
        dyn_cast<MSPropertyRefExpr>(PO->getSyntacticForm()->IgnoreParens());
    if (!P) {
      refuse(R, "unrecognised built-in index expression");
      return;
    }
    std::string Name = builtinName(B);
    char Dim = Name.back();
    if (Dim == 'z' || (BlockOnly && !StringRef(Name).starts_with("threadIdx.") &&
                       !StringRef(Name).starts_with("blockDim.")))
      continue;
    SourceLocation ML = P->getMemberLoc();
    if (ML.isMacroID()) {
      refuse(R, "'" + Name +
                    "' is written in a macro; the macro's text is "
                    "not changed");
      return;
    }
    Fix.Edits.push_back(makeTextEdit(
        Ctx, CharSourceRange::getTokenRange(ML, ML), Dim == 'x' ? "y" : "x"));
  }
  // Replaces a launch argument's text, or refuses the fix.
  auto EditArg = [&](const Expr *W, const std::string &Text) {
    std::string EW;
    auto Range = editableRange(
        Ctx, CharSourceRange::getTokenRange(W->getSourceRange()), EW);
    if (!Range) {
      refuse(R, EW);
      return false;
    }
    Fix.Edits.push_back(makeTextEdit(Ctx, *Range, Text));
    return true;
  };
  for (const CUDAKernelCallExpr *Site : Sites) {
    const CallExpr *Cfg = Site->getConfig();
    if (!Cfg || Cfg->getNumArgs() < 2) {
      refuse(R, "a launch site has no visible configuration");
      return;
    }
    const Expr *WG = writtenLaunchDim(Cfg->getArg(0)),
               *WB = writtenLaunchDim(Cfg->getArg(1));
    if (Reshape && (inMacro(WG->getSourceRange()) ||
                    inMacro(WB->getSourceRange()) ||
                    !(isa<DeclRefExpr>(WB->IgnoreParenImpCasts()) ||
                      isPureNoMemory(WB)) ||
                    !(isa<DeclRefExpr>(WG->IgnoreParenImpCasts()) ||
                      isPureNoMemory(WG)) ||
                    WB->getType()->isIntegralOrEnumerationType())) {
      refuse(R, "a launch configuration is not a simple expression (or a "
                "macro) that the reshaped grid could name");
      return;
    }
    if (Reshape) {
      // At run time: the reshaped grid when the swapped extents divide by
      // the block (every launch the tool evaluated), else the full swap of
      // grid and block (also exact for the swapped kernel).
      std::string G = launchDimText(Ctx, WG), B = launchDimText(Ctx, WB);
      std::string C = "(" + G + ".y * " + B + ".y % " + B + ".x + " + G +
                      ".x * " + B + ".x % " + B + ".y == 0 && " + G +
                      ".x * " + B + ".x / " + B + ".y <= 65535)";
      std::string NewGrid = "dim3(" + C + " ? " + G + ".y * " + B + ".y / " +
                            B + ".x : " + G + ".y, " + C + " ? " + G +
                            ".x * " + B + ".x / " + B + ".y : " + G +
                            ".x, " + G + ".z)";
      std::string NewBlock = "dim3(" + C + " ? " + B + ".x : " + B + ".y, " +
                             C + " ? " + B + ".y : " + B + ".x, " + B +
                             ".z)";
      if (!EditArg(WG, NewGrid) || !EditArg(WB, NewBlock))
        return;
      R.Notes.push_back(makeNote(
          Ctx, Site->getBeginLoc(),
          "grid reshaped at this launch, the block kept (grid and block "
          "swapped instead when the swapped extents do not divide by the "
          "block)"));
      continue;
    }
    for (unsigned I = BlockOnly ? 1 : 0; I < 2; ++I) {
      const Expr *W = I ? WB : WG;
      std::string NewText = swappedDim(Ctx, W, Why);
      if (NewText.empty()) {
        refuse(R, Why);
        return;
      }
      if (!EditArg(W, NewText))
        return;
    }
    R.Notes.push_back(makeNote(Ctx, Site->getBeginLoc(),
                               BlockOnly ? "block swapped at this launch (the "
                                           "grid stays)"
                                         : "grid and block swapped at this "
                                           "launch"));
  }
  Fix.Description =
      Reshape ? "swap x and y of threadIdx/blockIdx/blockDim in '" +
                    K->getNameAsString() +
                    "' and give its launches the grid of the swapped "
                    "extents with the same block (warps along the row)"
      : BlockOnly ? "swap x and y of threadIdx/blockDim in '" +
                      K->getNameAsString() +
                      "' and of the block at its launch sites (the grid is "
                      "not a compile-time constant: blocks keep their "
                      "outputs)"
                : "swap x and y of threadIdx/blockIdx/blockDim/gridDim in "
                  "'" + K->getNameAsString() +
                      "' and of grid and block at its launch sites";
  // Every launch must be swapped with the kernel: one this file does not
  // show (the kernel's address taken for cudaLaunchKernel, a launch in
  // another file) would run the swapped kernel with the old shape.
  std::string VisWhy;
  if (!allLaunchesVisible(Ctx, context(), K, VisWhy)) {
    Fix.Proven = false;
    R.Notes.push_back(makeNote(
        Ctx, K->getLocation(),
        "not every launch of '" + K->getNameAsString() +
            "' is known to be swapped with it (" + VisWhy + "): not proven"));
  } else if (!GridKnown && !BlockOnly && !Reshape) {
    Fix.Proven = false;
    R.Notes.push_back(
        makeNote(Ctx, K->getLocation(),
                 "the grid size is not a compile-time constant, and a block "
                 "with fewer than 8 threads along y (or not constant) would "
                 "gain little from swapping the block alone: the full swap "
                 "needs grid.x <= 65535, not proven"));
  }
  if (K->getFormalLinkage() == Linkage::External)
    R.Notes.push_back(
        makeNote(Ctx, K->getLocation(),
                 "assumes every launch of '" + K->getNameAsString() +
                     "' is in this file (the kernel has external linkage)"));
  R.Fix = Fix;
}

void CoalescingThreadMappingSwap::checkKernel(const KernelUnit &Kernel) {
  if (Kernel.IsTemplate)
    return;
  std::vector<Finding> Out;
  runOn(ctx(), context(), Kernel.FD, Kernel.Facts, Kernel.Analysis, Out);
  for (Finding &F : Out)
    report(std::move(F));
}

} // namespace cudal1
