//===- LaunchLoopSync.cpp - launch-loop-sync ------------------------------===//
//
// `cudaDeviceSynchronize()` (or cudaThreadSynchronize, or
// cudaStreamSynchronize of the default stream) inside a host loop that
// launches kernels on the default stream:
//
//   for (int k = 0; k < n; k++) {
//     scale<<<g1, b1>>>(A, k, n);
//     CUDA_CHECK(cudaDeviceSynchronize());
//     update<<<g2, b2>>>(A, k, n);
//     CUDA_CHECK(cudaDeviceSynchronize());
//   }
//
// The launches of one stream already run one after the other, so the
// synchronisations only make the host wait for the GPU to drain before it
// issues the next launch: the launch overhead is no longer overlapped with
// the running kernel. The fix removes them from the loop and synchronises
// once after it (the statement as written, error check included).
//
// Legality (the host sees the same data at every point it looks): nothing
// in the loop (nor in the functions it calls, followed 3 levels deep) can
// observe device work before it is finished without synchronising by
// itself:
//  - no launch or copy on another stream (a launch's 4th configuration
//    argument other than 0, cudaMemcpyAsync, cudaMemsetAsync, events and
//    streams queried), no library that runs its own streams (cuBLAS, cuFFT,
//    NCCL, MPI, Thrust, CUB, ...);
//  - no host timer (clock, gettimeofday, std::chrono, omp_get_wtime,
//    MPI_Wtime): the synchronisation may be there to time an iteration;
//  - no memory the GPU and the host share without a copy: the translation
//    unit allocates no managed or mapped memory (cudaMallocManaged,
//    cudaMallocHost, cudaHostAlloc, cudaHostRegister, __managed__) and the
//    loop's host code never dereferences a pointer it passes to a kernel;
//  - a cudaMemcpy to the host in the loop waits for the launches before it
//    (legacy default stream), so it needs no synchronisation before it;
//  - no return, goto, throw or OpenMP directive in the loop (every path
//    out of the loop passes the synchronisation after it).
// Only errors of a launch are reported later: at the synchronisation after
// the loop (or at an earlier synchronising call) instead of in the
// iteration that launched it.
//
//===----------------------------------------------------------------------===//
#include "LaunchLoopSync.h"
#include "HostStatements.h"

#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtOpenMP.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <set>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace cudal1 {

namespace {

bool isNullStream(ASTContext &C, const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (isa<CXXDefaultArgExpr>(E))
    return true;
  if (E->isNullPointerConstant(C, Expr::NPC_ValueDependentIsNotNull))
    return true;
  Expr::EvalResult R;
  return E->EvaluateAsInt(R, C) && R.Val.getInt() == 0;
}

/// The callee's name as written in code that calls it (qualified).
std::string calleeName(const CallExpr *CE) {
  if (const FunctionDecl *FD = CE->getDirectCallee())
    return FD->getQualifiedNameAsString();
  return "";
}

/// Is \p CE a device-wide synchronisation that this rule can move?
bool isSyncCall(ASTContext &C, const CallExpr *CE) {
  std::string N = calleeName(CE);
  if (N == "cudaDeviceSynchronize" || N == "cudaThreadSynchronize")
    return CE->getNumArgs() == 0;
  if (N == "cudaStreamSynchronize")
    return CE->getNumArgs() == 1 && isNullStream(C, CE->getArg(0));
  return false;
}

/// CUDA runtime calls that keep the default-stream order and can stay in
/// the loop (a synchronous cudaMemcpy to the host waits for the launches
/// before it by itself).
const std::set<std::string> &allowedCuda() {
  static const std::set<std::string> S = {
      "cudaMemcpy", "cudaMemcpy2D", "cudaMemcpy3D", "cudaMemcpyToSymbol",
      "cudaMemcpyFromSymbol", "cudaMemset", "cudaMemset2D", "cudaMemset3D",
      "cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorString",
      "cudaGetErrorName", "cudaMalloc", "cudaMallocPitch", "cudaFree",
      "cudaMemGetInfo", "cudaGetDevice", "cudaGetDeviceCount",
      "cudaGetDeviceProperties", "cudaDeviceGetAttribute",
      "cudaFuncSetCacheConfig", "cudaFuncGetAttributes",
      "cudaFuncSetAttribute", "cudaEventSynchronize", "cudaEventElapsedTime",
      "cudaLaunchKernel"};
  return S;
}

bool hasPrefix(StringRef N, std::initializer_list<StringRef> Ps) {
  for (StringRef P : Ps)
    if (N.starts_with(P))
      return true;
  return false;
}

/// Host timers: the synchronisation may be there to time an iteration.
bool isTimer(StringRef N) {
  static const std::set<std::string> S = {
      "clock", "clock_gettime", "gettimeofday", "time", "omp_get_wtime",
      "MPI_Wtime", "timespec_get", "QueryPerformanceCounter", "rdtsc",
      "__rdtsc"};
  return S.count(N.str()) || N.contains("chrono") ||
         N.contains("Timer") || N.contains("timer");
}

/// What a loop does, for the legality of moving its synchronisations.
class LoopScan : public RecursiveASTVisitor<LoopScan> {
public:
  LoopScan(ASTContext &C) : C(C) {}
  bool shouldVisitLambdaBody() const { return true; }

  std::string Why;                    ///< first reason to keep them
  /// The reason says the synchronisation is most likely needed (another
  /// stream, an asynchronous copy, a timer, a library with its own
  /// streams, other threads): no finding at all.
  bool Needed = false;
  std::vector<std::string> Kernels;   ///< kernels launched
  std::vector<const FunctionDecl *> KernelDecls; ///< null when unknown
  std::set<const ValueDecl *> LaunchArgs; ///< pointers passed to kernels
  std::vector<std::pair<const ValueDecl *, SourceLocation>> Derefs;
  std::vector<const CallExpr *> MoreSyncs; ///< other syncs (callees)
  unsigned Depth = 0;
  std::set<const FunctionDecl *> Seen;

  bool fail(const std::string &W, bool IsNeeded = false) {
    Needed |= IsNeeded;
    if (Why.empty())
      Why = W;
    return true; // go on: the launches are still counted
  }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *K) {
    std::string N = "?";
    if (const FunctionDecl *K2 = K->getDirectCallee())
      N = K2->getNameAsString();
    Kernels.push_back(N);
    KernelDecls.push_back(K->getDirectCallee());
    for (const Expr *A : K->arguments())
      if (const auto *D =
              dyn_cast<DeclRefExpr>(A->IgnoreParenImpCasts()))
        if (D->getType()->isPointerType())
          LaunchArgs.insert(D->getDecl());
    const CallExpr *Cfg = K->getConfig();
    if (Cfg && Cfg->getNumArgs() >= 4 && !isNullStream(C, Cfg->getArg(3)))
      return fail("a kernel is launched on a stream other than the default "
                  "one: the synchronisation may order two streams",
                  true);
    return true;
  }

  bool VisitCallExpr(CallExpr *CE) {
    if (isa<CUDAKernelCallExpr>(CE))
      return true;
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD) {
      if (isa<CXXPseudoDestructorExpr>(CE->getCallee()->IgnoreParens()))
        return true;
      return fail("a call through a pointer or an unresolved name in the "
                  "loop: what it does with the GPU is not known");
    }
    std::string Q = FD->getQualifiedNameAsString();
    // Operators and conversions have no simple name (getName() asserts).
    StringRef N = FD->getIdentifier() && !FD->getName().empty()
                      ? FD->getName()
                      : StringRef(Q);
    if (isSyncCall(C, CE)) {
      if (Depth > 0)
        MoreSyncs.push_back(CE);
      return true;
    }
    if (N.starts_with("cuda") || N.starts_with("cu")) {
      if (allowedCuda().count(N.str()))
        return true;
      if (N.starts_with("cuda") || hasPrefix(N, {"cuLaunch", "cuMem",
                                                 "cuStream", "cuEvent",
                                                 "cuCtx", "cuGraph"}))
        return fail("'" + N.str() + "' in the loop: it may depend on the "
                    "device being idle (another stream, an asynchronous "
                    "copy, a query or a library with its own streams)",
                    true);
    }
    if (isTimer(Q) || isTimer(N))
      return fail("a host timer ('" + Q + "') in the loop: the "
                  "synchronisation may be there to time each iteration",
                  true);
    if (hasPrefix(Q, {"MPI_", "nccl", "cublas", "cufft", "cusparse",
                      "cusolver", "curand", "cudnn", "cutensor", "nvshmem",
                      "thrust::", "cub::", "omp_", "pthread_", "std::thread",
                      "std::async", "nvtx"}))
      return fail("'" + Q + "' in the loop: a library that may use the "
                  "GPU or other threads on its own",
                  true);
    // A user function: the same checks in its body (3 levels deep).
    const FunctionDecl *Def = nullptr;
    if (FD->hasBody(Def) && Def && !C.getSourceManager().isInSystemHeader(
                                       Def->getLocation())) {
      if (!Seen.insert(Def).second)
        return true;
      if (Depth >= 3)
        return fail("the loop calls functions nested more than 3 deep "
                    "('" + Q + "')");
      ++Depth;
      bool Ok = TraverseStmt(Def->getBody());
      --Depth;
      return Ok;
    }
    return true; // a library function without GPU effects
  }

  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->getOpcode() == UO_Deref)
      noteDeref(U->getSubExpr(), U->getBeginLoc());
    return true;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *A) {
    noteDeref(A->getBase(), A->getBeginLoc());
    return true;
  }
  bool VisitMemberExpr(MemberExpr *M) {
    if (M->isArrow())
      noteDeref(M->getBase(), M->getBeginLoc());
    return true;
  }
  bool VisitReturnStmt(ReturnStmt *) {
    return Depth > 0 ? true
                     : fail("a return in the loop: that path would leave "
                            "without the synchronisation after the loop");
  }
  bool VisitGotoStmt(GotoStmt *) {
    return Depth > 0 ? true : fail("a goto in the loop");
  }
  bool VisitCXXThrowExpr(CXXThrowExpr *) {
    return Depth > 0 ? true : fail("a throw in the loop");
  }
  bool VisitOMPExecutableDirective(OMPExecutableDirective *) {
    return fail("an OpenMP directive in the loop: other host threads may "
                "look at device results",
                true);
  }

private:
  ASTContext &C;
  void noteDeref(const Expr *Base, SourceLocation L) {
    if (const auto *D = dyn_cast<DeclRefExpr>(Base->IgnoreParenImpCasts()))
      if (D->getType()->isPointerType())
        Derefs.push_back({D->getDecl(), L});
  }
};

/// Does the translation unit allocate memory the host and the GPU share
/// without copies? Returns the first such call's name, or "".
class SharedMemoryScan : public RecursiveASTVisitor<SharedMemoryScan> {
public:
  std::string Found;
  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (FD && FD->getIdentifier()) {
      StringRef N = FD->getName();
      if (N == "cudaMallocManaged" || N == "cudaMallocHost" ||
          N == "cudaHostAlloc" || N == "cudaHostRegister" ||
          N == "cudaHostGetDevicePointer" || N == "cuMemAllocManaged" ||
          N == "cuMemHostAlloc" || N == "cudaMallocFromPoolAsync") {
        Found = N.str();
        return false;
      }
    }
    return true;
  }
  bool VisitVarDecl(VarDecl *V) {
    if (V->hasAttr<HIPManagedAttr>()) {
      Found = "__managed__ variable '" + V->getNameAsString() + "'";
      return false;
    }
    return true;
  }
};

const Stmt *loopBody(const Stmt *L) {
  if (const auto *F = dyn_cast<ForStmt>(L))
    return F->getBody();
  if (const auto *W = dyn_cast<WhileStmt>(L))
    return W->getBody();
  if (const auto *D = dyn_cast<DoStmt>(L))
    return D->getBody();
  if (const auto *R = dyn_cast<CXXForRangeStmt>(L))
    return R->getBody();
  return nullptr;
}

/// The statement of a compound statement written in the file (not one of a
/// macro's body) that holds \p E (the whole
/// `CHECK(cudaDeviceSynchronize());`), and that compound statement.
const Stmt *statementOf(ASTContext &C, const Stmt *E,
                        const CompoundStmt *&Parent) {
  DynTypedNode N = DynTypedNode::create(*E);
  for (unsigned Depth = 0; Depth < 64; ++Depth) {
    auto Ps = C.getParents(N);
    if (Ps.empty())
      return nullptr;
    if (const auto *CS = Ps[0].get<CompoundStmt>())
      if (!CS->getLBracLoc().isMacroID()) {
        Parent = CS;
          return N.get<Stmt>();
      }
    if (Ps[0].get<FunctionDecl>() || Ps[0].get<LambdaExpr>())
      return nullptr;
    N = Ps[0];
  }
  return nullptr;
}

} // namespace

RuleInfo LaunchLoopSync::info() const {
  RuleInfo I;
  I.Id = "launch-loop-sync";
  I.Category = "launch";
  I.Summary = "a device-wide synchronisation in a host loop that launches "
              "kernels, which nothing in the loop needs";
  I.Exactness = Exactness::Bitwise;
  I.ExactnessNote = "bitwise in what the program computes (host code; an "
                    "error of a launch is reported at the synchronisation "
                    "after the loop)";
  I.Help =
      "A host loop that launches kernels and calls cudaDeviceSynchronize() "
      "after them makes the host wait for the GPU to drain every "
      "iteration, so the next launch's overhead is no longer overlapped "
      "with the running kernel. The launches of one stream already run in "
      "order; when nothing in the loop looks at device results without "
      "synchronising by itself, one synchronisation after the loop is "
      "enough.";
  I.DefaultOptions["LongKernelIterations"] = "4096";
  I.Doc.Detects =
      "`cudaDeviceSynchronize()`, `cudaThreadSynchronize()` or "
      "`cudaStreamSynchronize(0)` (bare or inside an error-check macro "
      "such as `CUDA_CHECK(...)`) in the body of a host loop that launches "
      "at least one kernel. One finding per loop, at its first "
      "synchronisation. Silent where the synchronisation is most likely "
      "needed: a launch or copy on another stream, an asynchronous copy, a "
      "host timer in the loop (timing each iteration), a library with its "
      "own streams or threads, memory the host and the GPU share "
      "(cudaMallocManaged, cudaMallocHost, cudaHostAlloc, "
      "cudaHostRegister, `__managed__` in the translation unit) or a host "
      "dereference of a pointer the loop passes to a kernel; also where "
      "every kernel the loop launches runs at least LongKernelIterations "
      "(default 4096) iterations per thread (constant trip counts of "
      "nested counted loops, multiplied, in the kernel and the device "
      "functions it calls: meanshift's loop over all 10000 points in each "
      "thread), as each launch then takes far longer than the few "
      "microseconds a synchronisation costs. Reported "
      "without a fix when the loop returns, jumps or throws out, the "
      "synchronisation's result is kept, or a call cannot be followed.";
  I.Doc.WhySlow =
      "Launching a kernel costs the host a few microseconds; without a "
      "synchronisation the host queues the next launches while the GPU "
      "runs the current kernel. With one after every launch, the host "
      "waits for each kernel to finish before it even starts the next "
      "launch, and the GPU idles during every launch: loops of many short "
      "kernels (factorisations, time steps, iterative solvers) spend much "
      "of their time there.";
  I.Doc.Example = R"cuda(for (int k = 0; k < n; k++) {
  scale<<<g1, b1>>>(A, k, n);
  CUDA_CHECK(cudaDeviceSynchronize());   // warning
  update<<<g2, b2>>>(A, k, n);
  CUDA_CHECK(cudaDeviceSynchronize());
})cuda";
  I.Doc.Fix =
      "Removes the synchronisations from the loop and synchronises once "
      "after it, with the first one's statement as written (its error "
      "check included); no synchronisation is added when the statement "
      "after the loop already is one. Legal when nothing in the loop, nor "
      "in the functions it calls (3 levels deep), can see device work "
      "before it is finished: every launch and copy is on the default "
      "stream (no 4th launch argument, no cudaMemcpyAsync, no stream or "
      "event queries, no cuBLAS/cuFFT/NCCL/MPI/Thrust), no host timer "
      "(the synchronisation may be there to time an iteration), no memory "
      "shared with the host without a copy (no cudaMallocManaged, "
      "cudaMallocHost, cudaHostAlloc, cudaHostRegister or `__managed__` "
      "in the translation unit, and the loop's host code dereferences no "
      "pointer it passes to a kernel), and no return, goto, throw or "
      "OpenMP directive in the loop. A synchronous `cudaMemcpy` to the "
      "host in the loop waits for the launches before it by itself. The "
      "fix is host code, proven exact by the analysis: `--fix` applies "
      "it, and so does `--fix --verify=run` (there is no kernel to run; "
      "it says so), and `--app-test` runs your own test on the result. A nested loop's synchronisation moves after the inner "
      "loop; composition (`--compose-rounds`) then looks at the outer "
      "loop. Afterwards the loop's launches are also ready for a CUDA "
      "Graph (stream capture), which this rule does not write.";
  return I;
}

void LaunchLoopSync::registerMatchers(MatchFinder &F) {
  F.addMatcher(callExpr(callee(functionDecl(hasAnyName(
                            "cudaDeviceSynchronize", "cudaThreadSynchronize",
                            "cudaStreamSynchronize"))))
                   .bind("sync"),
               this);
}

void LaunchLoopSync::check(const MatchFinder::MatchResult &R) {
  const auto *CE = R.Nodes.getNodeAs<CallExpr>("sync");
  if (!CE || !isSyncCall(ctx(), CE) || !isUserCode(CE->getBeginLoc()))
    return;
  const FunctionDecl *Fn = functionOf(*CE);
  if (!Fn || !isHostCode(Fn) || isInInstantiation(Fn))
    return;
  // The innermost loop that really loops: `do { ... } while (0)` of an
  // error-check macro is a statement, not a loop.
  const Stmt *Loop = enclosingLoop(ctx(), *CE);
  while (Loop && isa<DoStmt>(Loop)) {
    const Expr *Cond = cast<DoStmt>(Loop)->getCond();
    bool B = true;
    if (!Cond->EvaluateAsBooleanCondition(B, ctx()) || B)
      break;
    Loop = enclosingLoop(ctx(), *Loop);
  }
  if (!Loop)
    return;
  auto &V = Syncs[Loop];
  if (V.empty())
    Loops.push_back(Loop);
  V.push_back(CE);
}

void LaunchLoopSync::checkTranslationUnit() {
  for (const Stmt *L : Loops)
    runOnLoop(L, Syncs[L]);
  Loops.clear();
  Syncs.clear();
  SharedScanned = false;
  SharedFound.clear();
}

/// The most iterations one thread runs in \p S: products of the constant
/// trip counts of nested counted `for` loops (a loop whose count is not a
/// constant counts once), through the user's device functions it calls,
/// two levels deep.
static uint64_t countedWork(ASTContext &C, const Stmt *S, unsigned Depth = 0) {
  if (!S)
    return 1;
  uint64_t Inner = 1;
  for (const Stmt *Ch : S->children())
    Inner = std::max(Inner, countedWork(C, Ch, Depth));
  if (const auto *CE = dyn_cast<CallExpr>(S); CE && Depth < 2)
    if (const FunctionDecl *FD = CE->getDirectCallee())
      if (const FunctionDecl *Def = FD->getDefinition(); Def && Def->hasBody())
        Inner = std::max(Inner, countedWork(C, Def->getBody(), Depth + 1));
  if (const auto *F = dyn_cast<ForStmt>(S))
    if (std::optional<LoopShape> L = analyzeFor(C, F))
      if (auto I0 = evalInt(C, L->Init), B = evalInt(C, L->Bound); I0 && B)
        if (auto T = tripCount(*I0, *B, L->Cmp, L->Step); T && *T > 1)
          return std::min<uint64_t>(uint64_t(*T) * Inner, uint64_t(1) << 40);
  return Inner;
}

void LaunchLoopSync::runOnLoop(const Stmt *Loop,
                               const std::vector<const CallExpr *> &Calls) {
  ASTContext &C = ctx();
  const SourceManager &SM = C.getSourceManager();
  LoopScan Scan(C);
  Scan.TraverseStmt(const_cast<Stmt *>(Loop));
  if (Scan.Kernels.empty())
    return; // no launch in the loop: not this rule's case
  // Every kernel launched runs thousands of iterations per thread (a loop
  // over all N points in each thread: meanshift's O(N^2) step): each
  // launch takes far longer than the few microseconds a synchronisation
  // costs.
  if (llvm::all_of(Scan.KernelDecls, [&](const FunctionDecl *K) {
        const FunctionDecl *Def = K ? K->getDefinition() : nullptr;
        return Def && Def->hasBody() &&
               countedWork(C, Def->getBody()) >=
                   uint64_t(optionInt("LongKernelIterations", 4096));
      }))
    return;
  std::string Names;
  std::set<std::string> Shown;
  for (const std::string &K : Scan.Kernels)
    if (Shown.insert(K).second && Shown.size() <= 3)
      Names += (Names.empty() ? "'" : ", '") + K + "'";
  const CallExpr *First = Calls.front();
  std::string SyncName = calleeName(First);
  Finding F = finding(
      First->getBeginLoc(),
      "'" + SyncName + "()' in a host loop that launches kernels (" + Names +
          "): the host waits for the GPU to drain every iteration, so each "
          "launch's overhead is no longer overlapped with the running "
          "kernel; the launches of one stream already run in order");
  if (Calls.size() > 1)
    F.Message += " (" + std::to_string(Calls.size()) +
                 " synchronisations in this loop)";

  // Silent where the synchronisation is most likely needed: good code.
  if (Scan.Needed)
    return;
  // The host reads through a pointer it passes to a kernel (memory the GPU
  // and the host share), or the program has shared memory at all.
  for (const auto &D : Scan.Derefs)
    if (Scan.LaunchArgs.count(D.first))
      return;
  if (!SharedScanned) {
    SharedMemoryScan Shared;
    Shared.TraverseDecl(C.getTranslationUnitDecl());
    SharedFound = Shared.Found;
    SharedScanned = true;
  }
  if (!SharedFound.empty())
    return;
  if (!Scan.Why.empty())
    return reportWithoutFix(std::move(F), Scan.Why);

  // --- the edits -------------------------------------------------------------
  FixIt X;
  X.Exact = Exactness::Bitwise;
  X.HostOnly = true;
  X.Description = "move the synchronisation after the loop";
  std::string FirstText;
  for (const CallExpr *CE : Calls) {
    const CompoundStmt *Parent = nullptr;
    const Stmt *S = statementOf(C, CE, Parent);
    if (!S || !Parent)
      return reportWithoutFix(std::move(F),
                              "a synchronisation is not a statement of its "
                              "own (its result is used)");
    // A bare call, or a macro invocation (error check) around it whose
    // only effect besides the synchronisation is checking its result.
    const Expr *E = dyn_cast<Expr>(S);
    bool Bare = E && E->IgnoreParenCasts() == CE;
    if (!Bare) {
      SourceLocation B = S->getBeginLoc();
      if (!B.isMacroID() ||
          SM.getExpansionLoc(B) != SM.getExpansionLoc(CE->getBeginLoc()))
        return reportWithoutFix(std::move(F),
                                "a synchronisation is not a statement of "
                                "its own (its result is used)");
      // The macro may keep the result: `err = cudaDeviceSynchronize()`
      // into a variable declared outside it.
      struct Assigns : RecursiveASTVisitor<Assigns> {
        const Stmt *Within;
        const SourceManager &SM;
        bool Outer = false;
        Assigns(const Stmt *W, const SourceManager &SM) : Within(W), SM(SM) {}
        bool VisitBinaryOperator(BinaryOperator *B) {
          if (B->isAssignmentOp())
            if (const auto *D = dyn_cast<DeclRefExpr>(
                    B->getLHS()->IgnoreParenImpCasts()))
              Outer |= !SM.isPointWithin(D->getDecl()->getLocation(),
                                         Within->getBeginLoc(),
                                         Within->getEndLoc());
          return !Outer;
        }
      } As(S, SM);
      As.TraverseStmt(const_cast<Stmt *>(S));
      if (As.Outer)
        return reportWithoutFix(std::move(F),
                                "the statement around a synchronisation "
                                "keeps its result in a variable");
    }
    auto R = statementRange(C, S);
    if (!R || !isUserCode(R->getBegin()))
      return reportWithoutFix(std::move(F),
                              "a synchronisation is not written in the "
                              "file being fixed");
    std::string Text =
        std::string(Lexer::getSourceText(*R, SM, C.getLangOpts()));
    if (FirstText.empty())
      FirstText = Text;
    // Remove the whole line when the statement is alone on it.
    X.Edits.push_back(makeTextEdit(C, wholeLines(C, *R), ""));
  }
  // One synchronisation after the loop, unless the next statement is one.
  const CompoundStmt *Outer = nullptr;
  const Stmt *LoopStmt = statementOf(C, Loop, Outer);
  bool NextSyncs = false;
  if (Outer && LoopStmt) {
    for (auto It = Outer->body_begin(); It != Outer->body_end(); ++It)
      if (*It == LoopStmt && std::next(It) != Outer->body_end()) {
        const Stmt *Next = *std::next(It);
        struct Find : RecursiveASTVisitor<Find> {
          ASTContext &C;
          bool Found = false;
          Find(ASTContext &C) : C(C) {}
          bool VisitCallExpr(CallExpr *CE) {
            std::string N = calleeName(CE);
            Found |= isSyncCall(C, CE) || N == "cudaMemcpy" ||
                     N == "cudaMemcpy2D" || N == "cudaMemcpy3D";
            return !Found;
          }
        } Fd(C);
        Fd.TraverseStmt(const_cast<Stmt *>(Next));
        NextSyncs = Fd.Found;
      }
  }
  if (!LoopStmt || !Outer)
    return reportWithoutFix(std::move(F), "the loop is not a statement of a "
                                          "block, so nothing can follow it");
  if (!NextSyncs) {
    SourceLocation After = stmtEnd(C, LoopStmt);
    if (After.isInvalid() || !After.isFileID())
      return reportWithoutFix(std::move(F), "the end of the loop is inside "
                                            "a macro");
    X.Edits.push_back(makeInsertion(
        C, After, "\n" + indentOf(C, SM.getExpansionLoc(Loop->getBeginLoc())) +
                      FirstText));
    X.Description += " (" + FirstText + ")";
  } else {
    X.Description += ": the statement after the loop already synchronises";
  }
  F.Fix = std::move(X);
  report(std::move(F));
}

} // namespace cudal1
