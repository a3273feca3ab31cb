//===- LaunchRedundantThreads.cpp - launch-redundant-threads --------------===//
//
// A launch whose block (or grid) has an extent > 1 along a dimension whose
// index the kernel never reads (threadIdx.y with `dim3 block(32, 8)` and
// `i = blockIdx.x * blockDim.x + threadIdx.x`): the threads that differ only
// in that index run the same code on the same values, so each element is
// computed and stored several times. The fix launches every distinct thread
// once: the dimension's extent becomes 1 at the launch site.
//
// Legality (bitwise): the kernel and everything it calls (builtinUse) read
// neither the index nor the extent of the dimension (blockDim.y, gridDim.y)
// nor anything that depends on it (cooperative groups, cub, inline assembly
// and unseen code make the use unknown: no finding). Then the duplicates of a
// thread hold the same values at every step; a schedule in which they run
// in lockstep behaves like one thread, which is exactly the rewritten
// launch. Other schedules give the same result unless the duplicates race:
// atomics (each duplicate adds: no finding, the result depends on the
// duplication), memory the kernel both reads and writes (one duplicate may
// read what another already wrote), __syncthreads_count/and/or (they count
// the duplicates) and warp operations when the block's x-extent is not a
// multiple of 32 (duplicates share a warp) leave the finding without a fix.
//
//===----------------------------------------------------------------------===//
#include "LaunchRedundantThreads.h"

#include "cudal1/Model/KernelModel.h"

#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

const char *const Axis[3] = {"x", "y", "z"};


/// A known extent of component \p D of a grid (\p Grid) or block: the
/// constant at the launch, else the first tuple of values along the call
/// paths (LaunchValues) that gives more than one; \p Path says which.
std::optional<uint64_t> extentOf(const LaunchSite *L, bool Grid, unsigned D,
                                 std::string &Path) {
  if (!L)
    return std::nullopt;
  const LaunchArg &A = Grid ? L->Grid : L->Block;
  if (A.Dim)
    return (*A.Dim)[D];
  std::optional<uint64_t> Out;
  for (const LaunchValues &V : L->Values) {
    const ValueInfo &VI = Grid ? V.Grid : V.Block;
    if ((VI.Kind != ValueInfo::Dim && VI.Kind != ValueInfo::Integer) ||
        !VI.DimExprs[D].empty())
      continue;
    uint64_t E = VI.Kind == ValueInfo::Dim ? VI.Dims[D]
                 : D == 0                  ? uint64_t(VI.Int)
                                           : 1;
    if (!Out || (*Out <= 1 && E > 1)) {
      Out = E;
      Path = V.Path.empty() ? "" : V.Path.front();
    }
  }
  return Out;
}

} // namespace

RuleInfo LaunchRedundantThreads::info() const {
  RuleInfo I;
  I.Id = "launch-redundant-threads";
  I.Category = "launch";
  I.Summary = "a block or grid dimension whose index the kernel never "
              "reads: several threads per element compute and store the "
              "same values";
  I.Exactness = Exactness::Bitwise;
  I.Help =
      "When a launch gives a dimension an extent > 1 (dim3 block(32, 8)) "
      "and the kernel never reads that dimension's index (threadIdx.y), "
      "the threads that differ only in it do the same work: every element "
      "is loaded, computed and stored several times. Launching with "
      "extent 1 along that dimension runs each distinct thread once.";
  I.Doc.Detects =
      "A launch whose block (or grid) has an extent > 1 along a dimension "
      "whose index the kernel never reads: `threadIdx.y`/`z` for the "
      "block, `blockIdx.y`/`z` for the grid (`x` too, when unread), "
      "neither in the kernel nor in any function it calls (device "
      "functions, lambdas, constructors, followed through the call graph; "
      "a built-in used whole, `uint3 t = threadIdx`, reads every "
      "component). The typical case is a 2-D block `dim3 block(32, 8)` "
      "launching a kernel that indexes with "
      "`blockIdx.x * blockDim.x + threadIdx.x`. The extent comes from the "
      "launch's constant, or from the values the harness inference "
      "computes along the call paths (a `dim3` passed to the host "
      "function holding the launch). Kernels that use atomics are not "
      "reported (each duplicate adds: the result depends on the "
      "duplication), nor kernels whose use of the index cannot be seen: "
      "inline assembly, cooperative groups, cub, thrust or libcu++, calls "
      "through pointers or to functions whose body is not in the file.";
  I.Doc.WhySlow =
      "With `dim3 block(32, 8)` and an index built from x only, the 8 "
      "warps of a block compute the same 32 elements: 8x the instructions, "
      "8x the stores and 8x the load requests (served mostly by the "
      "caches, but still issued), and 8x the threads competing for the "
      "SM's resident-thread slots.";
  I.Doc.Example = R"cuda(__global__ void scale(const float *in, float *out, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * in[i];
}
...
dim3 block(32, 8);
scale<<<(n + 31) / 32, block>>>(in, out, a, n);   // warning: 8 threads per element)cuda";
  I.Doc.Fixed = R"cuda(dim3 block(32, 1);
scale<<<(n + 31) / 32, block>>>(in, out, a, n);)cuda";
  I.Doc.Fix =
      "At the launch site, the unread dimension's extent becomes 1, which "
      "launches every distinct thread exactly once:\n"
      "\n"
      "- `dim3(32, 8)` or `{32, 8}` written in the launch: the component "
      "becomes `1`;\n"
      "- a local `dim3 block(32, 8)` used by this launch only and never "
      "changed: its declaration's component becomes `1`;\n"
      "- any other `dim3` (shared by several launches, changed after its "
      "declaration, a parameter of the host function holding the launch): "
      "the launch gets its own `dim3(block.x, 1, block.z)`, so the other "
      "launches keep theirs.\n"
      "\n"
      "Bitwise: the kernel reads neither the index nor the extent of the "
      "dimension, so the duplicates of a thread hold the same values at "
      "every step; running them in lockstep is one of the original "
      "program's schedules and behaves like a single thread, which is the "
      "rewritten launch, and when the duplicates do not race every "
      "schedule gives that result. Fewer threads per block also only "
      "lowers what the launch needs (registers, `__launch_bounds__`); the "
      "dynamic shared memory argument is unchanged. The grid is not "
      "touched: folding the y threads into x (`dim3 block(256)` with a "
      "grid 8x smaller) would change which threads exist and is exact only "
      "when a bounds guard makes the extra threads harmless, which this "
      "rule does not prove; after the fix a 32-thread block may be "
      "reported by launch-small-block, whose fix you choose.\n"
      "\n"
      "## When there is no fix\n"
      "\n"
      "- the kernel reads the dimension's extent (`blockDim.y`, "
      "`gridDim.y`: launching with extent 1 changes its arithmetic);\n"
      "- the kernel reads and writes the same memory (a buffer, or a "
      "shared array): a duplicate may read what another already wrote, so "
      "the duplicates may race and launching them once is not proven to "
      "give the same result; a pointer escapes the access analysis;\n"
      "- `__syncthreads_count`/`_and`/`_or` (they count the duplicates), "
      "or warp operations (`__shfl*`, `__ballot*`, ...) when the block's "
      "x-extent is not a known multiple of 32 (duplicates share a warp);\n"
      "- the launch configuration is written in a macro, or is not a "
      "simple expression.\n"
      "\n"
      "coalescing-smem-staging and coalescing-warp-per-row refuse a 2-D "
      "block whose extra dimension the kernel never reads and point here: "
      "once the launch is one-dimensional they apply.";
  return I;
}

void LaunchRedundantThreads::checkTranslationUnit() {
  ASTContext &C = ctx();
  const SourceManager &SM = sourceManager();
  std::map<std::string, const LaunchSite *> ByLoc;
  if (context().Model)
    for (const LaunchSite &L : context().Model->LaunchSites)
      ByLoc[L.Loc.str()] = &L;
  std::vector<const CUDAKernelCallExpr *> Sites;
  for (const auto &[K, KL] : sharedFacts(C, context()).Launches)
    Sites.insert(Sites.end(), KL.Sites.begin(), KL.Sites.end());
  std::sort(Sites.begin(), Sites.end(),
            [&](const CUDAKernelCallExpr *A, const CUDAKernelCallExpr *B) {
              return SM.isBeforeInTranslationUnit(A->getBeginLoc(),
                                                  B->getBeginLoc());
            });
  for (const CUDAKernelCallExpr *S : Sites) {
    auto It = ByLoc.find(makeSourceLoc(SM, S->getBeginLoc()).str());
    checkLaunch(S, It == ByLoc.end() ? nullptr : It->second);
  }
}

// Over 150 lines: one pass: which dimensions are redundant (kernel facts and
// launch values), then the legality of launching them once and the edits.
void LaunchRedundantThreads::checkLaunch(const CUDAKernelCallExpr *Site,
                                         const LaunchSite *Model) {
  ASTContext &C = ctx();
  const FunctionDecl *Callee = Site->getDirectCallee();
  const FunctionDecl *Def = Callee ? Callee->getDefinition() : nullptr;
  const CallExpr *Cfg = Site->getConfig();
  if (!Def || !Cfg || Cfg->getNumArgs() < 2 ||
      !isUserCode(Site->getBeginLoc()))
    return;
  auto UIt = Uses.find(Def);
  if (UIt == Uses.end())
    UIt = Uses.emplace(Def, builtinUse(C, Def)).first;
  const BuiltinUse &U = UIt->second;
  if (!U.Unknown.empty() || U.Atomic)
    return;

  // --- which dimensions are redundant --------------------------------------
  // [0]: grid (blockIdx), [1]: block (threadIdx).
  std::array<std::array<bool, 3>, 2> Reduce{};
  std::array<std::array<uint64_t, 3>, 2> Ext{};
  uint64_t Factor = 1;
  std::string Path, Unread, Extents;
  for (unsigned G = 0; G < 2; ++G)
    for (unsigned D = 0; D < 3; ++D) {
      std::string P;
      auto E = extentOf(Model, G == 0, D, P);
      std::string Index = std::string(G ? "threadIdx." : "blockIdx.") +
                          Axis[D];
      if (!E || *E <= 1 || U.reads(Index))
        continue;
      Reduce[G][D] = true;
      Ext[G][D] = *E;
      Factor *= *E;
      if (Path.empty())
        Path = P;
      Unread += (Unread.empty() ? "" : " or ") + Index;
      Extents += (Extents.empty() ? "" : " and ") +
                 std::string(G ? "its block " : "its grid ") +
                 std::to_string(*E) + (G ? " threads" : " blocks") +
                 " along " + Axis[D];
    }
  if (Factor <= 1)
    return;
  std::string KName = Def->getNameAsString();
  Finding &F = reportLater(finding(
      Site->getBeginLoc(),
      "'" + KName + "' never reads " + Unread + ", yet this launch gives " +
          Extents + ": " + std::to_string(Factor) +
          " threads per element compute and store the same values; launch "
          "each distinct thread once",
      Def, Site->getSourceRange()));
  if (!Path.empty())
    note(F, Site->getBeginLoc(), "the launch's values along " + Path);

  // --- legality --------------------------------------------------------------
  for (unsigned G = 0; G < 2; ++G)
    for (unsigned D = 0; D < 3; ++D) {
      std::string Extent = std::string(G ? "blockDim." : "gridDim.") + Axis[D];
      if (Reduce[G][D] && U.reads(Extent)) {
        const Expr *At = U.Reads.at(Extent);
        note(F, At->getBeginLoc(), "'" + Extent + "' read here");
        refuse(F, "the kernel reads '" + Extent +
                      "': launching with extent 1 along " + Axis[D] +
                      " changes its arithmetic");
        return;
      }
    }
  if (U.BarrierCount) {
    refuse(F, "the kernel calls '" +
                  U.BarrierCount->getDirectCallee()->getNameAsString() +
                  "', whose result counts the duplicate threads");
    return;
  }
  if (U.WarpOp) {
    std::string P;
    auto X = extentOf(Model, false, 0, P);
    if (Reduce[1][0] || !X || *X % 32) {
      refuse(F, "the kernel uses warp operations and the block's x-extent "
                "is not a known multiple of 32: duplicate threads share a "
                "warp");
      return;
    }
  }
  const KernelAnalysis *KA = nullptr;
  for (const KernelAnalysis *A : analyzedKernels())
    if (A->Kernel && A->Kernel->getCanonicalDecl() == Def->getCanonicalDecl())
      KA = A;
  if (!KA) {
    refuse(F, "the kernel's memory accesses were not analysed");
    return;
  }
  if (!KA->EscapedBases.empty()) {
    refuse(F, "'" + (*KA->EscapedBases.begin())->getNameAsString() +
                  "' escapes the access analysis: not proven that the "
                  "duplicate threads do not race on it");
    return;
  }
  std::set<const ValueDecl *> Read, Written;
  for (const MemAccess &A : KA->Accesses) {
    if (A.Space == MemSpace::Local || A.Space == MemSpace::Constant)
      continue;
    if (!A.Base && A.IsWrite) {
      refuse(F, "the kernel writes memory the access analysis cannot "
                "name ('" + A.Text + "')");
      return;
    }
    if (A.IsRead)
      Read.insert(A.Base);
    if (A.IsWrite)
      Written.insert(A.Base);
  }
  Read.insert(KA->ReadBases.begin(), KA->ReadBases.end());
  Written.insert(KA->WrittenBases.begin(), KA->WrittenBases.end());
  for (const ValueDecl *B : Written)
    if (B && Read.count(B)) {
      refuse(F, "the kernel reads and writes '" + B->getNameAsString() +
                    "': a duplicate thread may read what another already "
                    "wrote, so launching them once is not proven to give "
                    "the same result");
      return;
    }

  // --- the edits -------------------------------------------------------------
  const FunctionDecl *Host = functionOf(*Site);
  FixIt X;
  X.Exact = Exactness::Bitwise;
  std::string Changed;
  for (unsigned G = 0; G < 2; ++G) {
    if (!Reduce[G][0] && !Reduce[G][1] && !Reduce[G][2])
      continue;
    const Expr *W = writtenLaunchDim(Cfg->getArg(G == 0 ? 0 : 1));
    std::string What = G ? "block" : "grid";
    std::string Why;
    // Replaces component D of \p Comps (written components) with 1.
    auto EditComponents = [&](const std::vector<const Expr *> &Comps) {
      for (unsigned D = 0; D < 3; ++D) {
        if (!Reduce[G][D])
          continue;
        if (D >= Comps.size()) {
          Why = "the " + What + "'s " + Axis[D] +
                " component is not written where it is declared";
          return false;
        }
        auto R = editableRange(
            C, CharSourceRange::getTokenRange(Comps[D]->getSourceRange()),
            Why);
        if (!R)
          return false;
        X.Edits.push_back(makeTextEdit(C, *R, "1"));
      }
      return true;
    };
    bool Done = false;
    if (W->getType()->isIntegralOrEnumerationType()) {
      auto R = editableRange(
          C, CharSourceRange::getTokenRange(W->getSourceRange()), Why);
      if (!R) {
        refuse(F, Why);
        return;
      }
      X.Edits.push_back(makeTextEdit(C, *R, "1"));
      Done = true;
    } else if (auto Comps = writtenDimComponents(W)) {
      if (!EditComponents(*Comps)) {
        refuse(F, Why);
        return;
      }
      Done = true;
    } else if (const auto *V = dyn_cast_or_null<VarDecl>(
                   isa<DeclRefExpr>(W) ? cast<DeclRefExpr>(W)->getDecl()
                                       : nullptr)) {
      // A local dim3 used by this launch only and never changed: edit its
      // declaration.
      if (Host && V->hasLocalStorage() && !isa<ParmVarDecl>(V) &&
          V->getInit() && countReferences(Host->getBody(), V) == 1 &&
          !varsWrittenIn(Host->getBody()).count(V))
        if (auto Comps = writtenDimComponents(writtenLaunchDim(V->getInit()))) {
          std::string Before = Why;
          size_t N = X.Edits.size();
          if (EditComponents(*Comps)) {
            Done = true;
            note(F, V->getLocation(),
                 "'" + V->getNameAsString() +
                     "' is used by this launch only: changed where it is "
                     "declared");
          } else {
            X.Edits.resize(N);
            Why = Before;
          }
        }
      if (!Done && countReferences(Host ? Host->getBody() : nullptr, V) > 1)
        note(F, V->getLocation(),
             "'" + V->getNameAsString() + "' is used elsewhere in '" +
                 Host->getNameAsString() +
                 "': this launch gets a dim3 of its own");
      if (!Done && isa<ParmVarDecl>(V))
        note(F, V->getLocation(),
             "'" + V->getNameAsString() + "' is a parameter of '" +
                 Host->getNameAsString() +
                 "': this launch gets a dim3 of its own");
    }
    if (!Done) {
      // dim3((b).x, 1, (b).z): this launch only.
      std::string T = sourceText(C, W->getSourceRange());
      if (T.empty() || !isPureNoMemory(W)) {
        refuse(F, "the " + What + " '" + T +
                      "' is not a simple expression that can be written "
                      "once per component");
        return;
      }
      if (!isa<DeclRefExpr>(W))
        T = "(" + T + ")";
      std::string New = "dim3(";
      for (unsigned D = 0; D < 3; ++D)
        New += (D ? ", " : "") +
               (Reduce[G][D] ? std::string("1") : T + "." + Axis[D]);
      New += ")";
      auto R = editableRange(
          C, CharSourceRange::getTokenRange(W->getSourceRange()), Why);
      if (!R) {
        refuse(F, Why);
        return;
      }
      X.Edits.push_back(makeTextEdit(C, *R, New));
    }
    for (unsigned D = 0; D < 3; ++D)
      if (Reduce[G][D])
        Changed += (Changed.empty() ? "" : ", ") + What + " " + Axis[D];
  }
  X.Description = "launch '" + KName + "' with extent 1 along " + Changed +
                  " (each distinct thread once)";
  F.Fix = std::move(X);
}

} // namespace cudal1
