//===- MemoryRestrict.cpp - memory-restrict -------------------------------===//
#include "MemoryRestrict.h"
#include "../CompiledKernel.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/TypeLoc.h"
#include "RestrictLoops.h"
#include "RestrictWrites.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {
/// Memory the kernel reaches other than through its pointer parameters (a
/// global variable that is not constant, a pointer loaded from memory: a
/// struct's pointer field, an element of a pointer array, a local pointer
/// not computed from a parameter), or an atomic, fence, printf or inline
/// assembly (nvcc then keeps coherent loads). Followed into the user's
/// functions (3 calls deep; not into system headers).
bool reachesOtherMemory(const Stmt *S, const SourceManager &SM,
                        const ParmVarDecl *Missing, unsigned Depth) {
  if (!S)
    return false;
  if (const auto *D = dyn_cast<DeclRefExpr>(S))
    if (const auto *V = dyn_cast<VarDecl>(D->getDecl())) {
      if (V->hasGlobalStorage() && !V->isStaticLocal() &&
          !V->getType().isConstQualified() && !V->hasAttr<CUDAConstantAttr>() &&
          !V->hasAttr<CUDASharedAttr>() && !SM.isInSystemHeader(V->getLocation()))
        return true;
      // A local pointer that is not a parameter plus an offset (copied from
      // a struct's field or an array of pointers: memory reached otherwise).
      if (V->hasLocalStorage() && !isa<ParmVarDecl>(V) &&
          V->getType()->isPointerType() &&
          (!V->getInit() || !restrict_writes::pointerParam(V->getInit())))
        return true;
    }
  // Atomics, fences, printf and inline assembly keep nvcc on coherent loads
  // of the other pointers (an atomic through a restrict pointer next to a
  // read of the one without it: LDG.E, not LDG.E.CONSTANT).
  if (isa<AsmStmt>(S))
    return true;
  const Expr *Through = nullptr;
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(S))
    Through = AS->getBase()->IgnoreParenImpCasts();
  else if (const auto *U = dyn_cast<UnaryOperator>(S);
           U && U->getOpcode() == UO_Deref)
    Through = U->getSubExpr()->IgnoreParenImpCasts();
  else if (const auto *M = dyn_cast<MemberExpr>(S); M && M->isArrow())
    Through = M->getBase()->IgnoreParenImpCasts();
  if (Through && Through->getType()->isPointerType() &&
      (isa<MemberExpr>(Through) || isa<ArraySubscriptExpr>(Through) ||
       (isa<UnaryOperator>(Through) &&
        cast<UnaryOperator>(Through)->getOpcode() == UO_Deref)))
    return true;
  if (const auto *CE = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *Callee = CE->getDirectCallee()) {
      std::string N = Callee->getIdentifier() ? Callee->getName().lower() : "";
      if (N.find("atomic") != std::string::npos && CE->getNumArgs() > 0) {
        // An atomic on the pointer without the qualifier itself changes
        // nothing (the kernels of the test: identical cubins); one through
        // another pointer keeps the loads of that one coherent.
        const Expr *A = CE->getArg(0)->IgnoreParenImpCasts();
        if (const auto *U = dyn_cast<UnaryOperator>(A);
            U && U->getOpcode() == UO_AddrOf) {
          A = U->getSubExpr()->IgnoreParenImpCasts();
          if (const auto *AS = dyn_cast<ArraySubscriptExpr>(A))
            A = AS->getBase();
        }
        if (restrict_writes::pointerParam(A) != Missing)
          return true;
      } else if (N.find("fence") != std::string::npos ||
                 N.find("printf") != std::string::npos) {
        return true;
      }
      if (const FunctionDecl *Def = Callee->getDefinition();
          Def && Def->hasBody() && !SM.isInSystemHeader(Def->getLocation())) {
        if (Depth >= 3)
          return true;
        if (reachesOtherMemory(Def->getBody(), SM, Missing, Depth + 1))
          return true;
      }
    }
  for (const Stmt *C : S->children())
    if (reachesOtherMemory(C, SM, Missing, Depth))
      return true;
  return false;
}

/// Some load through a pointer parameter (or a call that may load: any
/// call that is passed a pointer).
bool readsThroughPointers(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *B = dyn_cast<BinaryOperator>(S);
      B && B->getOpcode() == BO_Assign) {
    // The stored-to element itself is not read; its index may be.
    const Expr *L = B->getLHS()->IgnoreParenImpCasts();
    bool Lhs = false;
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(L))
      Lhs = readsThroughPointers(AS->getIdx());
    else if (const auto *U = dyn_cast<UnaryOperator>(L);
             U && U->getOpcode() == UO_Deref)
      Lhs = readsThroughPointers(U->getSubExpr());
    else
      Lhs = readsThroughPointers(L);
    return Lhs || readsThroughPointers(B->getRHS());
  }
  // threadIdx.x and the like (a call inside a pseudo-object): no memory.
  if (isa<PseudoObjectExpr>(S))
    return false;
  if (isa<ArraySubscriptExpr>(S))
    return true;
  if (const auto *CE = dyn_cast<CallExpr>(S)) {
    // A call may load through a pointer it is passed (in a template, an
    // argument of a dependent type may be one: `src + k` with `const T *`).
    for (const Expr *A : CE->arguments())
      if (A->getType()->isPointerType() || A->getType()->isReferenceType() ||
          A->isGLValue() || A->isTypeDependent())
        return true;
  }
  if (const auto *U = dyn_cast<UnaryOperator>(S);
      U && U->getOpcode() == UO_Deref)
    return true;
  if (const auto *M = dyn_cast<MemberExpr>(S); M && M->isArrow())
    return true;
  for (const Stmt *C : S->children())
    if (readsThroughPointers(C))
      return true;
  return false;
}
} // namespace

RuleInfo MemoryRestrict::info() const {
  RuleInfo I;
  I.Id = "memory-restrict";
  I.Category = "memory";
  I.Summary = "kernel pointer parameters without __restrict__; the "
              "compiler must assume they alias";
  I.Exactness = Exactness::Bitwise;
  I.Help = "Without __restrict__ every store may change what any other "
           "pointer reads, so loads cannot be reordered, kept in registers "
           "or sent through the read-only path. The fix is applied only "
           "when every launch of the kernel is in the file and passes, for "
           "each pointer, a different variable holding its own cudaMalloc "
           "allocation; otherwise the finding says what is not proven.";
  I.ExactnessNote =
      "bitwise; applied only when no-aliasing is proven, otherwise "
      "reported without a fix";
  I.Doc.Detects =
      "A kernel with two or more pointer parameters, some without "
      "`__restrict__`. Not reported when every write of the kernel goes "
      "through a pointer parameter with `__restrict__`, or through the only "
      "one without it, and the kernel has no atomic, fence, printf, inline "
      "assembly or call the tool cannot follow: an object written through "
      "a restrict pointer is reached only through it, so the compiler "
      "already knows that no pair aliases and that the inputs are "
      "read-only, and the qualifier would change no instruction. Nor when "
      "only one pointer parameter lacks it (every pair of parameters "
      "already has a restrict member) and the kernel reaches no memory "
      "other than through its parameters (no non-constant global variable, "
      "no pointer loaded from memory or copied from one) and has no "
      "atomic through another pointer, fence, printf or inline assembly; "
      "nor when the kernel loads nothing through pointers (it only "
      "stores).\n"
      "\n"
      "Nor when no loop of the kernel (or of a function it calls, 3 calls "
      "deep) stores through one pointer and loads through another that "
      "no `__restrict__` tells apart (an atomic counts as a store, memory "
      "the tool cannot name as any pointer): only there must the compiler "
      "keep a later iteration's loads behind a store; elsewhere the "
      "qualifier changes the read-only path at most. Loads that no "
      "qualifier can move do not count: volatile loads and the reads of "
      "atomics (HeCBench's gerbil probes a hash table through a volatile "
      "pointer and bumps its counters with atomics: its 8 instantiations "
      "compile to as many instructions with the qualifiers). A call, in a "
      "template, of a member of a class template on an object of a "
      "dependent type (`key.hash(t)`, `Key<N> key`) is followed into the "
      "member like any call. Measured on an H100 "
      "(sessions 36 and 37, the rule's proven fixes alone on 14 HeCBench "
      "programs): softmax 1.29x and all-pairs-distance 1.01x, both with such "
      "a loop; the 12 others 1.00x. On the naive-style corpus, 47 kernels "
      "without such a loop measured 0.99x-1.03x, 17 of the 23 with one "
      "above 1.05x. A rewrite that creates such a loop (a tile that loops "
      "over rows) gets the qualifier in the next composition round. "
      "Stores that reach only the thread's own memory do not count: locals, "
      "local arrays and their members handed to helpers by address or by "
      "reference, a null pointer argument (an optional output the helper "
      "tests), pointers into shared memory, lambdas' captured locals, "
      "records assigned by their implicit operator into such memory. The "
      "message names the loop and the two "
      "pointers. The option RequireLoop (default true) reports kernels "
      "without such a loop too.\n"
      "\n"
      "The loop must be one thread's: a loop that deals its iterations out "
      "to the threads does not count, its variable stepping by the block's "
      "or the grid's size, a constant multiple of it or its warps (`i += "
      "blockDim.x * gridDim.x`, `j += 4 * blockDim.x`, `r += blockDim.x / "
      "32`, a local holding such a size, also among the steps that end a "
      "while loop's body; not `blockDim.x / 2`), or counting the block's "
      "rounds (`r * blockDim.x + tid < n; r++`). Each of its iterations is "
      "another "
      "thread's work, and the threads already overlap their loads and "
      "stores. Nor does a loop with a barrier in every iteration "
      "(`__syncthreads()` or a cooperative group's `sync()` as a statement "
      "of its body or of a function the body calls): no load of a later "
      "iteration can move above it, qualifier or not (HeCBench's "
      "qtclustering and ans, 1.00x); nor a macro's `do { } while (0)`. A "
      "thread's own loop inside one still counts. Measured on an "
      "H100 (session 42, utils/experiments/restrict-stride.cu, 2^25 floats, "
      "plain/restrict): grid-stride with a grid that covers the data "
      "1.00x, with 8 blocks per SM 0.97x, block-stride over rows 1.00x, "
      "block-stride with an atomic per iteration 1.00x, rows dealt out to "
      "warps 1.00x; one thread walking "
      "a row, storing while it loads, 1.03x, and accumulating into global "
      "memory in the loop 1.11x. HeCBench's programs whose only such loops "
      "deal their iterations out (mask, silu, qrg, bincount, histogram's "
      "global-atomics kernel) measured 1.00x with the qualifiers.\n"
      "\n"
      "Pointers that a launch in the file passes the same buffer for (one "
      "of them to non-const data: an update in place, `add<<<g, b>>>(n, "
      "acc, x, acc)`, also through host functions that pass their "
      "parameters on) are left out: the qualifier on either would be "
      "undefined behaviour. The others are still reported where a loop "
      "loads through one of them.\n"
      "\n"
      "Nor when the qualifiers change no machine code: the kernel is "
      "extracted with its context (as `--extract` does) and compiled by "
      "NVRTC for the `--cuda-gpu-arch` target as it is and with the fix's "
      "`__restrict__`s; when the code sections and register counts of the "
      "two CUBINs are the same, the compiler already knew what the "
      "qualifiers tell it (on HeCBench, 7 of the 45 fixes the rule applied "
      "changed no instruction, `utils/sass-oracle.py`). This is checked "
      "for findings without a fix too (no-aliasing not proven), as long as "
      "the qualifiers can be written; when the kernel cannot be extracted "
      "or compiled, or NVRTC is missing, the static conditions above alone "
      "decide. The option CompareCode (default true) turns the comparison "
      "off; it costs two NVRTC compilations per finding, kept for the "
      "session.\n"
      "\n"
      "This rule also covers what `memory-const-restrict` reported "
      "(read-only inputs of a kernel that writes memory, without `const "
      "__restrict__`).";
  I.DefaultOptions["CompareCode"] = "true";
  I.DefaultOptions["RequireLoop"] = "true";
  I.Doc.WhySlow =
      "Without `__restrict__` the compiler must assume every store may "
      "change what the other pointers read: no reordering of loads over "
      "stores, no keeping values in registers, no read-only path.";
  I.Doc.Example = R"cuda(__global__ void saxpy(int n, float a, const float *x, float *y))cuda";
  I.Doc.Fixed = R"cuda(__global__ void saxpy(int n, float a, const float *__restrict__ x, float *__restrict__ y))cuda";
  I.Doc.Fix =
      "Adds `__restrict__` to every pointer parameter; a parameter "
      "declared as an array (`double phi[][NY]`, which C++ does not let "
      "take the qualifier in its brackets) is rewritten as the pointer it "
      "is, `double (*__restrict__ phi)[NY]`. *Proven* (and "
      "applied by --fix) only when every launch of the kernel is visible "
      "(all its declarations in this file, its name used only in `<<<>>>` "
      "launches) and each launch passes, for each pointer parameter, a "
      "different local variable holding its own single `cudaMalloc*` "
      "allocation, never reassigned, or a different constant element of "
      "a local array of pointers whose elements are set only by "
      "`cudaMalloc*` (`float *d[10]; for (f = 0; f < 10; f++) "
      "cudaMalloc(&d[f], bytes); k<<<g, b>>>(d[0], d[7]);`). The same "
      "proof serves every rule that needs no aliasing (register "
      "accumulation, hoisting, the structural rewrites). Otherwise the "
      "finding says what is not proven and has no fix. Memory reached "
      "through other means "
      "(globals) is not considered.";
  return I;
}

void MemoryRestrict::checkKernel(const KernelUnit &K) {
  ASTContext &C = ctx();
  const FunctionDecl *FD = K.FD;
  auto Ptrs = pointerParams(FD);
  if (Ptrs.size() < 2)
    return;
  std::vector<const ParmVarDecl *> Missing;
  for (const ParmVarDecl *P : Ptrs)
    if (!P->getType().isRestrictQualified())
      Missing.push_back(P);
  if (Missing.empty())
    return;
  // A launch that passes one buffer for two of the pointers, one of them
  // to non-const data (an update in place, `k<<<g, b>>>(n, acc, x, acc)`):
  // the qualifier on either would be undefined behaviour. The others may
  // still take it, where a loop loads through them.
  std::vector<const ParmVarDecl *> Aliased;
  for (size_t I = 0; I < Ptrs.size(); ++I)
    for (size_t J = I + 1; J < Ptrs.size(); ++J) {
      const ParmVarDecl *P = Ptrs[I], *Q = Ptrs[J];
      if ((!P->getType()->getPointeeType().isConstQualified() ||
           !Q->getType()->getPointeeType().isConstQualified()) &&
          sameBufferAtSomeLaunch(C, context(), FD, P, Q)) {
        Aliased.push_back(P);
        Aliased.push_back(Q);
      }
    }
  llvm::erase_if(Missing, [&](const ParmVarDecl *P) {
    return llvm::is_contained(Aliased, P);
  });
  if (Missing.empty())
    return;
  // The qualifier changes no instruction when every write of the kernel
  // goes through a pointer with it, or through the one pointer without it
  // (an object written through a restrict pointer is reached only through
  // it: the compiler knows no pair aliases and the inputs are read-only).
  // Writes it cannot name (a global, a struct's pointer, an atomic) keep
  // the finding (HeCBench and test kernels, compared PTX/SASS).
  if (writesOnlyThrough(FD, C.getSourceManager(),
                        [&](const ParmVarDecl *P) {
                          return P->getType().isRestrictQualified() ||
                                 (Aliased.empty() && Missing.size() == 1 &&
                                  P == Missing.front());
                        }))
    return;
  // One pointer without it and the others with it: every pair of
  // parameters already has a restrict member (LLVM's noalias on one
  // argument separates it from every pointer not based on it), so the
  // qualifier could only separate that pointer from memory reached
  // otherwise (globals, pointers loaded from memory). HeCBench: the 5 such
  // fixes changed no instruction (utils/sass-oracle.py).
  if (Missing.size() == 1 && Aliased.empty() &&
      !reachesOtherMemory(FD->getBody(), C.getSourceManager(), Missing.front(), 0))
    return;
  // A kernel that loads nothing through pointers (it only stores): there is
  // no load to reorder, keep in registers or send through the read-only
  // path.
  if (!readsThroughPointers(FD->getBody()))
    return;
  // No loop that stores through one pointer and loads through another:
  // the qualifier can only change the read-only path.
  std::string LoopWhy;
  if (optionBool("RequireLoop", true)) {
    // With pointers left out, a loop must load through one of those that
    // can take the qualifier.
    bool Found = false;
    if (Aliased.empty())
      Found = loopStoresAndLoads(FD, C.getSourceManager(), LoopWhy);
    else
      for (const ParmVarDecl *P : Missing)
        if (!Found)
          Found = loopStoresAndLoads(FD, C.getSourceManager(), LoopWhy, P);
    if (!Found)
      return;
  }
  std::string Names;
  for (const ParmVarDecl *P : Missing)
    Names += (Names.empty() ? "'" : ", '") + P->getName().str() + "'";
  Finding F = makeFinding(
      C, id(), Missing.front()->getLocation(),
      (Missing.size() == 1 ? "pointer parameter " + Names +
                                 " is not __restrict__: the compiler must "
                                 "assume it aliases the others, "
                           : "pointer parameters " + Names +
                                 " are not __restrict__: the compiler must "
                                 "assume they alias, ") +
          "which blocks reordering and the read-only data path" +
          (LoopWhy.empty() ? std::string() : ": " + LoopWhy),
      FD);
  std::string Why;
  FixIt X;
  X.Description = "add __restrict__ to " + Names;
  X.Exact = Exactness::Bitwise;
  bool Ok = true;
  const SourceManager &SM = C.getSourceManager();
  for (const ParmVarDecl *P : Missing) {
    unsigned Index = P->getFunctionScopeIndex();
    for (const FunctionDecl *R : FD->redecls()) {
      const ParmVarDecl *RP = R->getParamDecl(Index);
      PointerTypeLoc PTL = pointerTypeLoc(RP);
      // Declared as an array (`double phi[][NY][NZ]`): C++ has no
      // `phi[__restrict__]`, so the declarator becomes the pointer it
      // decays to, `(*__restrict__ phi)[NY][NZ]`.
      ArrayTypeLoc ATL;
      if (PTL.isNull() && RP->getTypeSourceInfo())
        ATL = RP->getTypeSourceInfo()->getTypeLoc().getAs<ArrayTypeLoc>();
      if (!ATL.isNull() && RP->getIdentifier() && RP->getLocation().isValid()) {
        SourceLocation NameLoc = RP->getLocation();
        SourceLocation RBracket = ATL.getRBracketLoc();
        std::string W;
        auto ER = editableRange(
            C, CharSourceRange::getTokenRange(NameLoc, RBracket), W);
        if (!ER || !isUserCode(NameLoc) || RBracket.isMacroID() ||
            !SM.isBeforeInTranslationUnit(NameLoc, RBracket)) {
          Ok = false;
          Why = W.empty() ? "an array parameter's declarator is not plain "
                            "source text"
                          : W;
          break;
        }
        X.Edits.push_back(makeTextEdit(
            C, *ER, "(*__restrict__ " + RP->getName().str() + ")"));
        continue;
      }
      if (PTL.isNull()) {
        Ok = false;
        Why = "a parameter's type is not written as a pointer (typedef)";
        break;
      }
      SourceLocation Star = PTL.getStarLoc();
      std::string W;
      auto ER = editableRange(C, CharSourceRange::getTokenRange(Star, Star), W);
      if (!ER || !isUserCode(Star)) {
        Ok = false;
        Why = W.empty() ? "a declaration is not in user code" : W;
        break;
      }
      SourceLocation After = ER->getEnd();
      bool Invalid = false;
      const char *Next = SM.getCharacterData(After, &Invalid);
      bool Space = !Invalid && (*Next == ' ' || *Next == '\t');
      X.Edits.push_back(
          makeInsertion(C, After, Space ? " __restrict__" : "__restrict__ "));
    }
    if (!Ok)
      break;
  }
  // The kernel compiled with NVRTC as it is and with the qualifiers: the
  // same machine code means the compiler already knows what they would
  // tell it (HeCBench: 7 of 45 such fixes changed no instruction).
  if (Ok && optionBool("CompareCode", true))
    if (std::optional<bool> Changes =
            editsChangeCode(C, context(), FD, FD, X.Edits);
        Changes && !*Changes)
      return;
  std::string Distinct;
  if (!pointerArgsDistinct(C, context(), FD, Distinct)) {
    reportWithoutFix(std::move(F), "no-aliasing is not proven: " + Distinct);
    return;
  }
  reportFixOr(std::move(F), Ok, std::move(X), Why);
}

} // namespace cudal1
