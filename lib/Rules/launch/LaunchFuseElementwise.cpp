//===- LaunchFuseElementwise.cpp - launch-fuse-elementwise ----------------===//
//
// A chain of element-wise kernels, each its own launch with the same grid
// and block:
//
//   step1<<<grid, block>>>(x, y, a, n);
//   CUDA_CHECK_KERNEL();
//   step2<<<grid, block>>>(a, b, n);
//
// where every kernel is `i = blockIdx.x * blockDim.x + threadIdx.x` and
// accesses its pointer parameters only at [i]. Each launch reads back from
// DRAM what the one before wrote. The fix launches one kernel that runs
// each body in turn: each kernel's body moves into a `__noinline__` device
// function declared before it, which the kernel now calls (other launches
// of it are unchanged) and the fused kernel calls in launch order. Not
// inlined, the compiler contracts nothing across two bodies, and every
// body computes bitwise what its kernel computes.
//
// Legality. Thread i of the fused kernel runs body 1 at element i, then
// body 2 at element i. Against the launches one after the other, the
// order changes only between body 2 at element i and body 1 at another
// element i': they touch the same memory only when two arguments point
// into one allocation at different offsets. So for every pair of pointer
// arguments of two different launches of which one is written, the
// arguments are the same variable or provably separate allocations
// (distinctHostArgs). Launches are one-dimensional (block and grid written
// with one component): otherwise several threads would share an element.
// The statements between the launches only check errors or synchronise.
//
//===----------------------------------------------------------------------===//
#include "LaunchFuseElementwise.h"
#include "../coalescing/RowWalk.h"
#include "HostStatements.h"
#include "cudal1/Rules/SpelledType.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <map>
#include <set>

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

const Expr *bare(const Expr *E) { return E ? E->IgnoreParenImpCasts() : nullptr; }

struct Elementwise {
  const VarDecl *Idx = nullptr;
  std::set<unsigned> Accessed, Written; ///< pointer parameters, by position
};

/// One thread per element: every pointer parameter accessed only as
/// `p[i]` with i the global x index; nothing that other threads see but
/// those elements.
std::optional<Elementwise> elementwise(const ASTContext &C,
                                       const FunctionDecl *K) {
  if (!K->hasBody() || K->isTemplated() || K->isVariadic())
    return std::nullopt;
  const auto *Body = dyn_cast<CompoundStmt>(K->getBody());
  if (!Body || Body->size() == 0)
    return std::nullopt;
  // `i = blockIdx.x * blockDim.x + threadIdx.x;` first, or a grid-stride
  // loop over the elements (`for (i = ...; i < n; i += blockDim.x *
  // gridDim.x)`) as the whole body: every element has one thread, the same
  // in every kernel launched with the same grid and block.
  const Stmt *Front = Body->body_front();
  const Expr *Stride = nullptr;
  if (const auto *FS = dyn_cast<ForStmt>(Front)) {
    if (Body->size() != 1)
      return std::nullopt;
    Front = FS->getInit();
    const auto *Inc = dyn_cast_or_null<CompoundAssignOperator>(FS->getInc());
    const auto *M = Inc ? dyn_cast<BinaryOperator>(bare(Inc->getRHS()))
                        : nullptr;
    if (!Front || !Inc || Inc->getOpcode() != BO_AddAssign || !M ||
        M->getOpcode() != BO_Mul)
      return std::nullopt;
    std::string A = builtinName(bare(M->getLHS())),
                B = builtinName(bare(M->getRHS()));
    if (!((A == "blockDim.x" && B == "gridDim.x") ||
          (A == "gridDim.x" && B == "blockDim.x")))
      return std::nullopt;
    Stride = Inc;
  } else if (Body->size() < 2) {
    return std::nullopt;
  }
  const auto *DS = dyn_cast_or_null<DeclStmt>(Front);
  const auto *I = DS && DS->isSingleDecl()
                      ? dyn_cast<VarDecl>(DS->getSingleDecl())
                      : nullptr;
  if (!I || !I->getType()->isIntegerType() || !I->getInit() ||
      !isGlobalXIndex(I->getInit()))
    return std::nullopt;
  FunctionFacts F = FunctionFacts::compute(K);
  if (Stride) {
    // The loop's step is the only write of its variable.
    const auto *FS = cast<ForStmt>(Body->body_front());
    if (varOf(cast<CompoundAssignOperator>(Stride)->getLHS()) != I ||
        varsWrittenIn(FS->getBody()).count(I))
      return std::nullopt;
  } else if (F.isMutated(I)) {
    return std::nullopt;
  }
  std::set<const Stmt *> InStride;
  if (Stride)
    forEachStmt(Stride, [&](const Stmt *X) { InStride.insert(X); });
  Elementwise E;
  E.Idx = I;
  bool Ok = true;
  std::set<const DeclRefExpr *> AtIdx; // p in p[i]
  forEachStmt(Body, [&](const Stmt *X) {
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(X))
      if (const auto *D = dyn_cast<DeclRefExpr>(bare(A->getBase())))
        if (isa<ParmVarDecl>(D->getDecl()) && varOf(A->getIdx()) == I &&
            bare(A->getIdx())->getStmtClass() == Stmt::DeclRefExprClass)
          AtIdx.insert(D);
  });
  // The element a write goes to: `p[i]`, `p[i].x` (p a pointer parameter)
  // or a local's own storage; anything else (through a loaded pointer,
  // `pp[i][k]`, `*q`, `s->f`) is not an element-wise write.
  auto WrittenBase = [&](const Expr *L) {
    const Expr *X = bare(L);
    while (const auto *M = dyn_cast<MemberExpr>(X)) {
      if (M->isArrow()) {
        Ok = false;
        return;
      }
      X = bare(M->getBase());
    }
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(X)) {
      if (const auto *D = dyn_cast<DeclRefExpr>(bare(A->getBase()))) {
        if (const auto *P = dyn_cast<ParmVarDecl>(D->getDecl())) {
          E.Written.insert(P->getFunctionScopeIndex());
          return;
        }
        if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
          if (V->hasLocalStorage() && V->getType()->isArrayType())
            return;
      }
      Ok = false;
      return;
    }
    const VarDecl *V = varOf(X);
    if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
        V->getType()->isReferenceType())
      Ok = false;
  };
  forEachStmt(Body, [&](const Stmt *X) {
    if (!Ok)
      return;
    if (const auto *D = dyn_cast<DeclRefExpr>(X)) {
      if (const auto *P = dyn_cast<ParmVarDecl>(D->getDecl())) {
        if (P->getType()->isPointerType() || P->getType()->isArrayType()) {
          if (!AtIdx.count(D))
            Ok = false; // passed on, offset, dereferenced otherwise
          else
            E.Accessed.insert(P->getFunctionScopeIndex());
        } else if (!P->getType()->isScalarType()) {
          Ok = false; // a struct by value: its pointers are not followed
        }
      } else if (const auto *V = dyn_cast<VarDecl>(D->getDecl())) {
        if (V->hasAttr<CUDASharedAttr>())
          Ok = false;
        // blockIdx.y, gridDim, warpSize, ...: not one element per thread.
        StringRef N = V->getName();
        if ((N == "gridDim" && !InStride.count(D)) || N == "warpSize")
          Ok = false;
      }
    }
    if (const auto *XE = dyn_cast<Expr>(X)) {
      std::string B = builtinName(XE);
      if (!B.empty() && B != "blockIdx.x" && B != "blockDim.x" &&
          B != "threadIdx.x" && !(B == "gridDim.x" && InStride.count(XE)))
        Ok = false;
    }
    if (const auto *B = dyn_cast<BinaryOperator>(X))
      if (B->isAssignmentOp() && X != Stride && varOf(B->getLHS()) == E.Idx)
        Ok = false;
    // __ldg: a later body may read through the read-only cache what an
    // earlier one wrote.
    if (const auto *CE = dyn_cast<CallExpr>(X))
      Ok &= plainMathCall(C, CE) && !containsCallTo(CE, {"__ldg*"});
    if (isa<GCCAsmStmt>(X) || isa<MSAsmStmt>(X) || isa<CXXNewExpr>(X))
      Ok = false;
    // Memory only as p[i] of a parameter or a local array's element.
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(X)) {
      const auto *D = dyn_cast<DeclRefExpr>(bare(A->getBase()));
      const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
      if (!V || (!isa<ParmVarDecl>(V) &&
                 !(V->hasLocalStorage() && V->getType()->isArrayType())))
        Ok = false;
    }
    if (const auto *U = dyn_cast<UnaryOperator>(X))
      if (U->getOpcode() == UO_Deref)
        Ok = false;
    if (const auto *M = dyn_cast<MemberExpr>(X))
      if (M->isArrow())
        Ok = false;
    // Global variables other threads may write (not __constant__ or const).
    if (const auto *D = dyn_cast<DeclRefExpr>(X))
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
        if (V->hasGlobalStorage() && !V->getType().isConstQualified() &&
            !V->hasAttr<CUDAConstantAttr>())
          Ok = false;
    if (const auto *B = dyn_cast<BinaryOperator>(X))
      if (B->isAssignmentOp() && X != Stride)
        WrittenBase(B->getLHS());
    if (const auto *U = dyn_cast<UnaryOperator>(X)) {
      if (U->isIncrementDecrementOp())
        WrittenBase(U->getSubExpr());
      if (U->getOpcode() == UO_AddrOf)
        if (const auto *A = dyn_cast<ArraySubscriptExpr>(bare(U->getSubExpr())))
          if (const auto *D = dyn_cast<DeclRefExpr>(bare(A->getBase())))
            if (isa<ParmVarDecl>(D->getDecl()))
              Ok = false; // &p[i] escapes
    }
  });
  if (!Ok || E.Accessed.empty())
    return std::nullopt;
  for (const ParmVarDecl *P : K->parameters())
    if (F.isMutated(P))
      return std::nullopt;
  return E;
}

/// A member of \p V assigned in \p Body (`block.y = 2;`).
bool memberWritten(const Stmt *Body, const VarDecl *V) {
  bool Any = false;
  forEachStmt(Body, [&](const Stmt *X) {
    const Expr *L = nullptr;
    if (const auto *B = dyn_cast<BinaryOperator>(X))
      if (B->isAssignmentOp())
        L = B->getLHS();
    if (const auto *U = dyn_cast<UnaryOperator>(X))
      if (U->isIncrementDecrementOp())
        L = U->getSubExpr();
    if (const auto *M = dyn_cast_or_null<MemberExpr>(L ? bare(L) : nullptr))
      Any |= varOf(M->getBase()) == V;
  });
  return Any;
}

/// A launch dimension written with one component (an integer, `dim3(n)`,
/// `{n}`, `dim3 v(n)` of a variable not changed in \p Fn).
bool oneDimensional(ASTContext &C, const FunctionDecl *Fn, const Expr *E) {
  const Expr *W = writtenLaunchDim(E);
  if (!W)
    return false;
  auto Comps = writtenDimComponents(W);
  if (!Comps)
    if (const auto *D = dyn_cast<DeclRefExpr>(bare(W)))
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
        if (V->getInit() && V->hasLocalStorage() &&
            !varsWrittenIn(Fn->getBody()).count(V) &&
            !memberWritten(Fn->getBody(), V)) {
          const Expr *I = writtenLaunchDim(V->getInit());
          Comps = I ? writtenDimComponents(I) : std::nullopt;
          if (!Comps && I && I->getType()->isIntegerType())
            return true;
        }
  if (!Comps)
    return W->getType()->isIntegerType();
  for (size_t K = 1; K < Comps->size(); ++K) {
    auto V = evalInt(C, (*Comps)[K]);
    if (!V || *V != 1)
      return false;
  }
  return !Comps->empty();
}

/// The type of parameter \p P as its declaration writes it (macros and
/// typedefs kept: `const DATA_TYPE *`), without __restrict__ (the fused
/// kernel passes one pointer to several bodies), ready for a name.
std::string paramType(const ASTContext &C, const ParmVarDecl *P) {
  const SourceManager &SM = C.getSourceManager();
  SourceLocation B = SM.getExpansionLoc(P->getBeginLoc());
  SourceLocation N = SM.getExpansionLoc(P->getLocation());
  std::string T;
  if (P->getIdentifier() && B.isFileID() && N.isFileID() &&
      SM.getFileID(B) == SM.getFileID(N) && SM.isBeforeInTranslationUnit(B, N))
    T = std::string(Lexer::getSourceText(CharSourceRange::getCharRange(B, N),
                                         SM, C.getLangOpts()));
  if (T.empty() || T.find_first_of("[(") != std::string::npos)
    return spelledType(C, P) + " ";
  for (const char *R : {"__restrict__", "__restrict"}) {
    size_t At;
    while ((At = T.find(R)) != std::string::npos)
      T.erase(At, strlen(R));
  }
  // Collapse the spaces the erasure left.
  std::string Out;
  for (char Ch : T)
    if (!(Ch == ' ' && !Out.empty() && Out.back() == ' '))
      Out += Ch;
  while (!Out.empty() && (Out.back() == ' ' || Out.back() == '\t'))
    Out.pop_back();
  if (!Out.empty() && Out.back() != '*' && Out.back() != '&')
    Out += ' ';
  return Out;
}

struct Launch {
  const Stmt *S = nullptr;
  const CUDAKernelCallExpr *Call = nullptr;
  const FunctionDecl *K = nullptr;
  const Elementwise *E = nullptr;
};

} // namespace

RuleInfo LaunchFuseElementwise::info() const {
  RuleInfo I;
  I.Id = "launch-fuse-elementwise";
  I.Category = "launch";
  I.Summary = "element-wise kernels launched one after the other with the "
              "same grid and block: one launch can run them all";
  I.Exactness = Exactness::Bitwise;
  I.ExactnessNote = "bitwise (each body runs as it is, in a device function "
                    "of its own)";
  I.Help =
      "Each kernel of the chain is one thread per element and touches "
      "only its own element of every array, and all are launched with the "
      "same grid and block: every launch reads back from DRAM what the "
      "previous one wrote, and pays a launch. One kernel whose threads run "
      "each body in turn reads the intermediate values from cache.";
  I.Doc.Detects =
      "Two or more launches in a row, statements of one block, separated "
      "only by error checks or synchronisations (`CUDA_CHECK_KERNEL();`, "
      "`cudaDeviceSynchronize()`), of kernels whose body starts with `i = "
      "blockIdx.x * blockDim.x + threadIdx.x` and accesses every pointer "
      "parameter only as `p[i]` (no other built-in index, no shared "
      "memory, atomics, barriers, warp operations, printf, calls of the "
      "program's own functions, writes of global variables), with the same "
      "grid and block expressions, one-dimensional (an integer, `dim3(n)` "
      "or a `dim3` variable declared with one component), and no dynamic "
      "shared memory or stream. One finding per chain, at its first launch. "
      "Reported without a fix when two launches pass pointers that may "
      "point into one allocation at different offsets (one of them "
      "written), or when a kernel is defined after the function that "
      "launches it.";
  I.Doc.WhySlow =
      "An element-wise kernel moves its arrays through DRAM once and does "
      "little arithmetic: a chain of them writes each intermediate array "
      "to DRAM and reads it back in the next launch. With the bodies in "
      "one kernel, thread i reads what it just wrote, from cache, and the "
      "chain pays one launch instead of several.";
  I.Doc.Example = R"cuda(__global__ void step1(float *x, float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = sinf(x[i]) + 1.0f;
}
__global__ void step2(float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = expf(-a[i] * a[i]);
}
...
step1<<<grid, block>>>(d_x, d_a, n);   // warning
CUDA_CHECK(cudaGetLastError());
step2<<<grid, block>>>(d_a, d_b, n);)cuda";
  I.Doc.Fixed = R"cuda(// cuda-l1 launch-fuse-elementwise: the body of 'step1', also run by a fused launch
static __device__ __noinline__ void cudal1_body_step1(float *x, float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = sinf(x[i]) + 1.0f;
}
__global__ void step1(float *x, float *a, int n) {
  cudal1_body_step1(x, a, n);
}
// ... the same for step2, then before the launching function:
__global__ void cudal1_fused_step1_step2(float *cudal1_0_0, float *cudal1_0_1, int cudal1_0_2,
                                         float *cudal1_1_0, float *cudal1_1_1, int cudal1_1_2) {
  cudal1_body_step1(cudal1_0_0, cudal1_0_1, cudal1_0_2);
  cudal1_body_step2(cudal1_1_0, cudal1_1_1, cudal1_1_2);
}
...
cudal1_fused_step1_step2<<<grid, block>>>(d_x, d_a, n, d_a, d_b, n);
CUDA_CHECK(cudaGetLastError());)cuda";
  I.Doc.Fix =
      "Turns each kernel into a `static __device__ __noinline__` function "
      "where it stands (only its head changes: parameters and body stay as "
      "written), and adds right after it a kernel of the same name and "
      "parameters that calls it: other launches of the kernel run the same "
      "code. Not inlined, the compiler contracts no "
      "arithmetic across two bodies, and each computes bitwise what its "
      "kernel computed. Before the launching function, a kernel calls the "
      "functions in launch order, each with the arguments of its launch "
      "(parameter types as written, without `__restrict__`: one pointer "
      "may go to several bodies); the first launch becomes a launch of that "
      "kernel with every launch's arguments, the others are removed (the "
      "error checks between them stay). Legal when, for every two launches "
      "of the chain, every pair of pointer arguments of which one is "
      "written by its kernel is the same variable (thread i then reads the "
      "element it wrote itself) or two separate allocations (different "
      "locals each set only by cudaMalloc, followed through host "
      "functions' parameters); the launches are one-dimensional, so each "
      "element has one thread. The fix is applied before every other fix "
      "of the round and takes the kernels as written; the kernels' own "
      "fixes of that round inside their parameters or bodies (float math, "
      "`const`, `__restrict__`) do not overlap its edits and apply with "
      "it: under `--verify=run` each is verified on its kernel as written, "
      "and the fused launch runs that verified code. Fixes of the kernels' "
      "heads or launches (launch bounds, launch shapes) overlap and wait. "
      "Host code and device code only moved or called: `--fix` applies it, "
      "and so does `--fix --verify=run` (nothing new to run on its own; it "
      "says so).";
  return I;
}

void LaunchFuseElementwise::checkTranslationUnit() {
  ASTContext &C = ctx();
  const SourceManager &SM = C.getSourceManager();
  const SharedRuleFacts &SF = sharedFacts(C, context());
  std::map<const FunctionDecl *, Elementwise> Kernels;
  for (const FunctionDecl *K : SF.Kernels)
    if (auto E = elementwise(C, K))
      Kernels[K->getCanonicalDecl()] = *E;
  if (Kernels.empty())
    return;
  // The blocks holding launches of element-wise kernels, in file order.
  std::vector<const CompoundStmt *> Blocks;
  std::set<const CompoundStmt *> SeenBlocks;
  for (const auto &KV : SF.Launches) {
    if (!Kernels.count(KV.first->getCanonicalDecl()))
      continue;
    for (const CUDAKernelCallExpr *Site : KV.second.Sites) {
      const CompoundStmt *B = nullptr;
      if (statementInBlock(C, Site, B) && B && SeenBlocks.insert(B).second)
        Blocks.push_back(B);
    }
  }
  for (const CompoundStmt *B : Blocks) {
    const FunctionDecl *Fn = functionOf(*B);
    if (!Fn || !isHostCode(Fn) || isInInstantiation(Fn) || Fn->isTemplated())
      continue;
    // Runs of launches separated only by error checks.
    std::vector<std::vector<Launch>> Runs(1);
    for (const Stmt *S : B->body()) {
      const auto *Call = dyn_cast<CUDAKernelCallExpr>(S);
      if (const auto *EWC = dyn_cast<ExprWithCleanups>(S))
        Call = dyn_cast<CUDAKernelCallExpr>(EWC->getSubExpr());
      const FunctionDecl *K = Call ? Call->getDirectCallee() : nullptr;
      auto It = K ? Kernels.find(K->getCanonicalDecl()) : Kernels.end();
      if (It != Kernels.end()) {
        Launch L{S, Call, It->first, &It->second};
        auto &Cur = Runs.back();
        const CallExpr *Cfg = Call->getConfig();
        bool Same = !Cur.empty() && Cfg && Cur.front().Call->getConfig() &&
                    sameExpr(C, Cfg->getArg(0),
                             Cur.front().Call->getConfig()->getArg(0)) &&
                    sameExpr(C, Cfg->getArg(1),
                             Cur.front().Call->getConfig()->getArg(1));
        if (!Cur.empty() && !Same)
          Runs.emplace_back();
        Runs.back().push_back(L);
        continue;
      }
      if (!Runs.back().empty() && errorCheckOnly(C, S, {}))
        continue;
      if (!Runs.back().empty())
        Runs.emplace_back();
    }
    for (const std::vector<Launch> &Run : Runs) {
      if (Run.size() < 2 || !isUserCode(Run.front().Call->getBeginLoc()))
        continue;
      std::string Names;
      for (size_t I = 0; I < Run.size(); ++I)
        Names += (I ? ", '" : "'") + Run[I].K->getNameAsString() + "'";
      const CUDAKernelCallExpr *First = Run.front().Call;
      Finding &F = reportLater(finding(
          First->getBeginLoc(),
          "element-wise kernels " + Names +
              " are launched one after the other with the same grid and "
              "block: each launch reads back from DRAM what the one before "
              "wrote; one launch can run each body in turn and read it from "
              "cache"));
      for (size_t I = 1; I < Run.size(); ++I)
        note(F, Run[I].Call->getBeginLoc(), "launch " +
                                                std::to_string(I + 1) +
                                                " of the chain");
      // --- legality ------------------------------------------------------------
      const CallExpr *Cfg = First->getConfig();
      if (!Cfg || Cfg->getNumArgs() < 2) {
        refuse(F, "the launch configuration is not visible");
        continue;
      }
      bool Plain = true;
      for (const Launch &L : Run)
        Plain &= defaultStreamNoSharedMemory(C, L.Call);
      if (!Plain) {
        refuse(F, "a launch names dynamic shared memory or a stream");
        continue;
      }
      if (!oneDimensional(C, Fn, Cfg->getArg(0)) ||
          !oneDimensional(C, Fn, Cfg->getArg(1))) {
        refuse(F, "the grid or the block is not written as one-dimensional: "
                  "several threads could share an element");
        continue;
      }
      std::string Why;
      for (const Launch &L : Run) {
        if (L.Call->getNumArgs() != L.K->getNumParams()) {
          Why = "a launch passes default arguments";
          break;
        }
        for (const Expr *A : L.Call->arguments())
          if (!isPure(C, A)) {
            Why = "a launch argument has side effects";
            break;
          }
        const FunctionDecl *Def = L.K->getDefinition();
        SourceLocation KEnd =
            Def ? SM.getExpansionLoc(Def->getEndLoc()) : SourceLocation();
        if (!Def || !SM.isBeforeInTranslationUnit(
                        KEnd, SM.getExpansionLoc(Fn->getBeginLoc())) ||
            SM.getFileID(KEnd) != SM.getFileID(SM.getExpansionLoc(
                                      First->getBeginLoc())) ||
            Def->hasAttr<CUDALaunchBoundsAttr>() ||
            !isa<TranslationUnitDecl>(Def->getDeclContext())) {
          Why = "'" + L.K->getNameAsString() +
                "' is not defined at file scope before the launching "
                "function in this file (or has __launch_bounds__, or is in a "
                "namespace or extern \"C\")";
          break;
        }
      }
      // Pairs of pointer arguments of two launches, one of them written.
      for (size_t X = 0; X < Run.size() && Why.empty(); ++X)
        for (size_t Y = X + 1; Y < Run.size() && Why.empty(); ++Y)
          for (unsigned PX : Run[X].E->Accessed)
            for (unsigned PY : Run[Y].E->Accessed) {
              if (!Why.empty())
                break;
              if (!Run[X].E->Written.count(PX) && !Run[Y].E->Written.count(PY))
                continue;
              const Expr *AX = Run[X].Call->getArg(PX);
              const Expr *AY = Run[Y].Call->getArg(PY);
              const VarDecl *VX = varOf(AX), *VY = varOf(AY);
              bool SameVar =
                  VX && VX == VY && isa<DeclRefExpr>(bare(AX)) &&
                  isa<DeclRefExpr>(bare(AY)) &&
                  Run[X].K->getParamDecl(PX)->getType()->getPointeeType()
                          .getCanonicalType().getUnqualifiedType() ==
                      Run[Y].K->getParamDecl(PY)->getType()->getPointeeType()
                          .getCanonicalType().getUnqualifiedType();
              std::string W;
              if (!SameVar && !distinctHostArgs(C, Fn, AX, AY, W))
                Why = "'" + sourceText(C, AX->getSourceRange()) + "' and '" +
                      sourceText(C, AY->getSourceRange()) +
                      "' may point into one allocation at different offsets (" +
                      W + ")";
            }
      if (!Why.empty()) {
        refuse(F, Why);
        continue;
      }
      // --- edits ----------------------------------------------------------------
      const Decl *Top = topLevelDecl(C, Fn);
      SourceLocation TopLoc =
          Top ? SM.getExpansionLoc(Top->getBeginLoc()) : SourceLocation();
      if (!Top || inMacro(First->getSourceRange()) ||
          SM.getFileID(TopLoc) !=
              SM.getFileID(SM.getExpansionLoc(First->getBeginLoc()))) {
        refuse(F, "the launches come from a macro expansion");
        continue;
      }
      FixIt Fx;
      Fx.Exact = Exactness::Bitwise;
      Fx.HostOnly = true;
      Fx.FirstInRound = true;
      std::string Helpers, FusedName = "cudal1_fused", Params, Calls, Args;
      std::set<const FunctionDecl *> Bodies;
      bool TextOk = true;
      for (size_t I = 0; I < Run.size(); ++I) {
        const FunctionDecl *Def = Run[I].K->getDefinition();
        std::string KN = Def->getNameAsString();
        FusedName += "_" + KN;
        FunctionTypeLoc FTL = Def->getFunctionTypeLoc();
        std::string ParamText =
            FTL ? sourceText(C, SourceRange(FTL.getLParenLoc(),
                                            FTL.getRParenLoc()))
                : "";
        std::string BodyText = sourceText(C, Def->getBody()->getSourceRange());
        if (ParamText.empty() || BodyText.empty() ||
            inMacro(Def->getBody()->getSourceRange())) {
          TextOk = false;
          break;
        }
        if (Bodies.insert(Def).second) {
          // The body moves into a device function declared just before the
          // kernel, and the kernel calls it: one copy of the code, used by
          // the kernel (other launches) and by the fused kernel.
          std::string Fwd;
          for (const ParmVarDecl *P : Def->parameters()) {
            if (!P->getIdentifier()) {
              TextOk = false;
              break;
            }
            Fwd += std::string(Fwd.empty() ? "" : ", ") + P->getName().str();
          }
          SourceLocation KB = SM.getExpansionLoc(Def->getBeginLoc());
          SourceLocation PB = SM.getExpansionLoc(FTL.getLParenLoc());
          SourceLocation PE = SM.getExpansionLoc(FTL.getRParenLoc());
          SourceLocation BE = SM.getExpansionLoc(Def->getBody()->getEndLoc());
          if (!TextOk || !KB.isFileID() || !PB.isFileID() ||
              SM.getFileID(KB) != SM.getFileID(BE)) {
            TextOk = false;
            break;
          }
          // The kernel becomes the device function where it stands: only
          // its head (from the declaration's start to the parameter list)
          // changes, so a fix of the same round inside the body or the
          // parameters (float math, const, restrict), verified on the kernel
          // as written, applies with the fusion and runs in the fused
          // launch as verified. The kernel follows it with the parameters as
          // written and a body that calls the function.
          std::string Head = sourceText(C, SourceRange(KB, PE));
          if (Head.empty()) {
            TextOk = false;
            break;
          }
          Fx.Edits.push_back(makeTextEdit(
              C, CharSourceRange::getCharRange(KB, PB),
              "// cuda-l1 launch-fuse-elementwise: the body of '" + KN +
                  "', also run by a fused launch\nstatic __device__ "
                  "__noinline__ void cudal1_body_" +
                  KN));
          Fx.Edits.push_back(makeInsertion(
              C, BE.getLocWithOffset(1),
              "\n" + Head + " {\n  cudal1_body_" + KN + "(" + Fwd + ");\n}"));
        }
        std::string CallArgs;
        for (unsigned P = 0; P < Def->getNumParams(); ++P) {
          std::string PN = "cudal1_" + std::to_string(I) + "_" +
                           std::to_string(P);
          Params += std::string(Params.empty() ? "" : ", ") +
                    paramType(C, Def->getParamDecl(P)) + PN;
          CallArgs += std::string(P ? ", " : "") + PN;
          std::string AT =
              sourceText(C, Run[I].Call->getArg(P)->getSourceRange());
          TextOk &= !AT.empty();
          Args += std::string(Args.empty() ? "" : ", ") + AT;
        }
        Calls += "  cudal1_body_" + KN + "(" + CallArgs + ");\n";
      }
      std::string GridT = sourceText(C, Cfg->getArg(0)->getSourceRange());
      std::string BlockT = sourceText(C, Cfg->getArg(1)->getSourceRange());
      if (!TextOk || GridT.empty() || BlockT.empty()) {
        refuse(F, "the kernels or the launches cannot be read from the file");
        continue;
      }
      std::string G = "CUDAL1_" + FusedName;
      Helpers += "#ifndef " + G + "\n#define " + G +
                 "\n// cuda-l1 launch-fuse-elementwise: " + Names +
                 " in one launch\n__global__ void " + FusedName + "(" +
                 Params + ") {\n" + Calls + "}\n#endif\n\n";
      Fx.Edits.push_back(makeInsertion(C, TopLoc, Helpers));
      std::string Why2;
      auto FR = editableRange(
          C, CharSourceRange::getTokenRange(First->getSourceRange()), Why2);
      if (!FR) {
        refuse(F, Why2.empty() ? "the first launch cannot be edited" : Why2);
        continue;
      }
      Fx.Edits.push_back(makeTextEdit(C, *FR,
                                      FusedName + "<<<" + GridT + ", " +
                                          BlockT + ">>>(" + Args + ")"));
      bool Removable = true;
      for (size_t I = 1; I < Run.size(); ++I) {
        auto R = statementRange(C, Run[I].S);
        if (!R) {
          Removable = false;
          break;
        }
        Fx.Edits.push_back(makeTextEdit(C, wholeLines(C, *R), ""));
      }
      if (!Removable) {
        refuse(F, "a launch of the chain cannot be removed from the file");
        continue;
      }
      Fx.Description = "one launch runs " + Names + " in turn";
      F.Fix = std::move(Fx);
    }
  }
}

} // namespace cudal1
