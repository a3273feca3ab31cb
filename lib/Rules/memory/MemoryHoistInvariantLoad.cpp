//===- MemoryHoistInvariantLoad.cpp - memory-hoist-invariant-load ---------===//
//
// memory-hoist-invariant-load: a global load p[idx] that every iteration
// of a loop performs, with idx unchanged by the loop and nothing in the
// loop able to write p[idx], is loaded once before the loop. The load is
// guarded by the loop's first-iteration condition, so a loop that runs zero
// times still reads nothing. Bitwise.
//
//===----------------------------------------------------------------------===//
#include "MemoryHoistInvariantLoad.h"
#include "cudal1/Rules/SpelledType.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include "../AccessNotes.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

RuleInfo MemoryHoistInvariantLoad::info() const {
  RuleInfo I;
  I.Id = "memory-hoist-invariant-load";
  I.Category = "memory";
  I.Summary = "global load with a loop-invariant index in every iteration -> "
              "loaded once before the loop";
  I.Exactness = Exactness::Bitwise;
  I.Help = "A load p[idx] whose index does not change in the loop is "
           "repeated every iteration unless the compiler can prove nothing "
           "in the loop writes p[idx]. The rewrite loads it once before "
           "the loop, guarded by the loop's first-iteration condition, "
           "when it proves that nothing in the loop can write the element.";
  I.Doc.Detects =
      "A global load `p[idx]` that every iteration of a loop performs (it "
      "is in a statement directly in the loop body, not under `if`, `?:`, "
      "`&&`, `||` or a nested loop), whose index and base do not change in "
      "the loop: every variable they use is declared outside the loop, not "
      "written in it, and is a local, a parameter or a constant (an index "
      "declared in the body, `int e = list[i]; ... f[e]`, changes every "
      "iteration; a `__shared__` or global variable may be changed by other "
      "threads).\n"
      "\n"
      "Not reported where nvcc loads the element once before the loop "
      "itself (checked on nvcc 13's PTX for sm_90): through a "
      "`__restrict__` pointer (LLVM's noalias holds across stores, calls "
      "and barriers), or in a loop that stores nothing to global memory "
      "but through `__restrict__` pointers. Nor where the loop may write "
      "the element: it writes through the same pointer, or passes the "
      "pointer to a call (one load before the loop would not be enough; "
      "keeping the element in a register is "
      "`memory-register-accumulation`'s finding).\n"
      "\n"
      "It also reports, without a fix, the loop-invariant global loads the "
      "symbolic access analysis finds in loops that store to global memory "
      "and that the rewrite does not handle (conditional loads, loads in "
      "device functions; this rule took over `memory-invariant-load`); not "
      "when the load's pointer, or every pointer parameter, is "
      "`__restrict__`, and once per element and loop.";
  I.Doc.WhySlow =
      "Unless the compiler can prove that nothing in the loop writes "
      "`p[idx]` — with plain pointers it usually cannot — it reloads the "
      "element every iteration: one more memory request and its latency "
      "per iteration.";
  I.Doc.Example = R"cuda(for (int k = 0; k < N; ++k)
  out[row * N + k] = A[row * N + k] * s[row];   // warning: s[row])cuda";
  I.Doc.Fix =
      "```cuda\n"
      "const float s_inv = ((0) < N) ? s[row] : float();\n"
      "for (int k = 0; k < N; ++k)\n"
      "  out[row * N + k] = A[row * N + k] * s_inv;\n"
      "```\n"
      "\n"
      "The load is guarded by the loop's first-iteration condition (the "
      "condition with the loop variable replaced by its initial value; "
      "none for `do`-`while`), so a loop that runs zero times reads "
      "nothing, as before. Every read of the same element in the loop uses "
      "the local. Same value: bitwise. The declaration is inserted after "
      "the statement before the loop, so a `#pragma unroll` in front of "
      "the loop stays valid. When the loop is the unbraced body of an "
      "`if`, `for` or `while` (`if (col < N) for (...) ...`), braces are "
      "added around the declaration and the loop (with its `#pragma "
      "unroll`, the declaration goes before the pragma). The local is "
      "declared with the element type as written (`DATA_TYPE`, a typedef), "
      "not its canonical type.\n"
      "\n"
      "## When there is no fix\n"
      "\n"
      "- the loop writes through `p`, writes through a pointer not proven "
      "to point elsewhere (neither is `__restrict__` and not separate "
      "`cudaMalloc` allocations at every launch site in the file), writes "
      "a global variable, or calls a user function;\n"
      "- the loop has a barrier, fence or atomic (other threads may change "
      "the element between iterations), or `break`/`continue`/`return` (a "
      "later iteration might be the first to reach the load);\n"
      "- the loop condition or initialisation reads memory, or the code "
      "comes from a macro.\n"
      "\n"
      "A `volatile` element is not reported: it is re-read on purpose (a "
      "flag that another thread or the host sets).";
  return I;
}

void MemoryHoistInvariantLoad::runOn(ASTContext &Ctx, const CheckContext &CC,
                                     const FunctionDecl *K,
                                     const FunctionFacts &F,
                                     std::vector<Finding> &Out) {
  std::set<std::string> Used;
  forEachStmt(K->getBody(), [&](const Stmt *S) {
    if (isLoop(S))
      runOnLoop(Ctx, K, F, S, Used, Out);
  });
}

std::vector<const Stmt *>
MemoryHoistInvariantLoad::topStatements(const Stmt *Body) {
  if (const auto *CS = dyn_cast<CompoundStmt>(Body))
    return std::vector<const Stmt *>(CS->body_begin(), CS->body_end());
  return {Body};
}

void MemoryHoistInvariantLoad::unconditionalLoads(
    const Stmt *S, std::vector<const ArraySubscriptExpr *> &Out) {
  if (!S || isa<IfStmt>(S) || isa<SwitchStmt>(S) || isLoop(S) ||
      isa<CompoundStmt>(S) || isa<LambdaExpr>(S) ||
      isa<AbstractConditionalOperator>(S))
    return;
  if (const auto *BO = dyn_cast<BinaryOperator>(S))
    if (BO->getOpcode() == BO_LAnd || BO->getOpcode() == BO_LOr) {
      unconditionalLoads(BO->getLHS(), Out);
      return;
    }
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(S))
    Out.push_back(AS);
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D))
        unconditionalLoads(V->getInit(), Out);
    return;
  }
  for (const Stmt *C : S->children())
    unconditionalLoads(C, Out);
}

bool MemoryHoistInvariantLoad::isRead(ASTContext &Ctx, const Expr *E) {
  auto P = Ctx.getParents(*E);
  while (!P.empty() && P[0].get<ParenExpr>())
    P = Ctx.getParents(P[0]);
  const auto *IC = P.empty() ? nullptr : P[0].get<ImplicitCastExpr>();
  return IC && IC->getCastKind() == CK_LValueToRValue;
}

void MemoryHoistInvariantLoad::runOnLoop(ASTContext &Ctx, const FunctionDecl *K,
                                         const FunctionFacts &F, const Stmt *L,
                                         std::set<std::string> &Used,
                                         std::vector<Finding> &Out) {
  const Stmt *Body = loopBody(L);
  // Variables written in the loop or declared inside it (a fresh value in
  // every iteration): an index or base using one is not invariant.
  std::set<const VarDecl *> Changed = varsChangedIn(L);
  std::vector<const ArraySubscriptExpr *> Cands;
  for (const Stmt *S : topStatements(Body))
    unconditionalLoads(S, Cands);
  std::vector<const ArraySubscriptExpr *> Done;
  for (const ArraySubscriptExpr *AS : Cands) {
    if (!isRead(Ctx, AS))
      continue;
    // A volatile element is re-read on purpose (a flag another thread or
    // the host sets): not reported.
    if (AS->getType().isVolatileQualified())
      continue;
    const ParmVarDecl *P = rootPointerParam(AS->getBase(), F);
    if (!P || !isPureNoMemory(AS->getIdx()))
      continue;
    // Invariant: every variable of the index and base is declared outside
    // the loop, not written in it, and holds a value no other thread can
    // change (a local, a parameter, a constant).
    bool Inv = true;
    for (const Expr *E : {AS->getIdx(), AS->getBase()})
      forEachStmt(E, [&](const Stmt *X) {
        if (const auto *DRE = dyn_cast<DeclRefExpr>(X))
          if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
            if (Changed.count(V) ||
                !(V->hasLocalStorage() || V->getType().isConstQualified() ||
                  V->hasAttr<CUDAConstantAttr>()))
              Inv = false;
      });
    if (!Inv)
      continue;
    bool Dup = false;
    for (const ArraySubscriptExpr *D : Done)
      if (sameExpr(Ctx, D, AS))
        Dup = true;
    if (Dup)
      continue;
    Done.push_back(AS);
    if (std::optional<Finding> Fd = analyze(Ctx, K, F, L, AS, P, Used))
      Out.push_back(std::move(*Fd));
  }
}

// Over 150 lines: the legality proof (no write can reach the element, the loop
// guard) and the hoisted load it writes, sharing the matched loop and load.
std::optional<Finding> MemoryHoistInvariantLoad::analyze(ASTContext &Ctx,
                                          const FunctionDecl *K,
                                          const FunctionFacts &F, const Stmt *L,
                                          const ArraySubscriptExpr *AS,
                                          const ParmVarDecl *P,
                                          std::set<std::string> &Used) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::string Elem = sourceText(Ctx, AS->getSourceRange());
  // A `__restrict__` pointer: nothing else in the loop reaches its data
  // (LLVM's noalias), so nvcc loads the element once before the loop
  // itself, across stores, calls and barriers (nvcc 13, sm_90 PTX).
  if (P->getType().isRestrictQualified())
    return std::nullopt;
  Finding Fd =
      makeFinding(Ctx, "memory-hoist-invariant-load", AS->getBeginLoc(),
                  "'" + Elem +
                      "' is loaded from global memory in every iteration of "
                      "the loop although its index does not change; one load "
                      "before the loop is enough",
                  K);
  Fd.Notes.push_back(makeNote(Ctx, L->getBeginLoc(), "the loop"));
  auto Fail = [&](const std::string &W) -> std::optional<Finding> {
    refuse(Fd, W);
    return Fd;
  };
  if (containsCallTo(L, {"__syncthreads", "__syncthreads_count",
                         "__syncthreads_and", "__syncthreads_or", "__syncwarp",
                         "__threadfence", "__threadfence_block",
                         "__threadfence_system", "atomic*"}))
    return Fail("the loop has a barrier, fence or atomic: other threads may "
                "change '" +
                Elem + "' between iterations");
  if (containsEscape(loopBody(L), /*AllowContinue=*/false))
    return Fail("the loop body can skip the rest of an iteration (break, "
                "continue, return)");
  // Writes in the loop: to locals only, or through pointers proven to
  // point elsewhere; no user calls.
  std::string Why;
  std::set<const ParmVarDecl *> Targets;
  // The loop may write the element itself (through its pointer, or by
  // passing the pointer to a call): then one load is not enough, and
  // keeping the element in a register is memory-register-accumulation's.
  bool MayWriteElem = false;
  forEachStmt(L, [&](const Stmt *S) {
    if (const auto *CE = dyn_cast<CallExpr>(S))
      for (const Expr *Arg : CE->arguments())
        if (Arg->getType()->isPointerType() &&
            !Arg->getType()->getPointeeType().isConstQualified() &&
            rootPointerParam(Arg, F) == P)
          MayWriteElem = true;
    if (!Why.empty())
      return;
    const Expr *T = nullptr;
    if (const auto *BO = dyn_cast<BinaryOperator>(S);
        BO && BO->isAssignmentOp())
      T = BO->getLHS();
    else if (const auto *U = dyn_cast<UnaryOperator>(S);
             U && U->isIncrementDecrementOp())
      T = U->getSubExpr();
    else if (const auto *CE = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *FD = CE->getDirectCallee();
      if (!FD || (!SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation())) &&
                  !FD->getBuiltinID()))
        Why = "the loop calls " +
              (FD ? "'" + FD->getNameAsString() + "'"
                  : std::string("through a pointer")) +
              ", which may write '" + Elem + "'";
      return;
    }
    if (!T)
      return;
    T = T->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(T)) {
      const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
      if (V && V->hasLocalStorage())
        return; // a local variable
      Why = "the loop writes the global variable '" +
            DRE->getDecl()->getNameAsString() + "'";
      return;
    }
    const Expr *Base = nullptr;
    if (const auto *W = dyn_cast<ArraySubscriptExpr>(T))
      Base = W->getBase();
    else if (const auto *U = dyn_cast<UnaryOperator>(T);
             U && U->getOpcode() == UO_Deref)
      Base = U->getSubExpr();
    if (Base) {
      if (const auto *BV = dyn_cast<DeclRefExpr>(Base->IgnoreParenImpCasts()))
        if (const auto *V = dyn_cast<VarDecl>(BV->getDecl()))
          if (V->getType()->isArrayType() &&
              (V->hasLocalStorage() || V->hasAttr<CUDASharedAttr>()))
            return; // local or shared array: not global memory
      const ParmVarDecl *Q = rootPointerParam(Base, F);
      if (!Q) {
        Why = "the loop writes through '" +
              sourceText(Ctx, Base->getSourceRange()) +
              "', which may point to '" + Elem + "'";
        return;
      }
      if (Q == P) {
        MayWriteElem = true;
        Why = "the loop writes through '" + P->getName().str() + "'";
        return;
      }
      Targets.insert(Q);
      return;
    }
    Why = "the loop writes '" + sourceText(Ctx, T->getSourceRange()) + "'";
  });
  if (MayWriteElem)
    return std::nullopt;
  if (!Why.empty())
    return Fail(Why);
  // No store in the loop that the compiler must assume may reach the
  // element (none at all, or only through `__restrict__` pointers): LICM
  // already loads it once before the loop.
  if (llvm::all_of(Targets, [](const ParmVarDecl *Q) {
        return Q->getType().isRestrictQualified();
      }))
    return std::nullopt;
  for (const ParmVarDecl *Q : Targets) {
    std::string How, W;
    if (!provenDistinct(Ctx, context(), K, P, Q, How, W))
      return Fail(W + " (mark them __restrict__ if they never overlap)");
    Fd.Notes.push_back(makeNote(Ctx, L->getBeginLoc(), "no aliasing: " + How));
  }
  // The first-iteration condition.
  std::string First;
  if (const auto *FS = dyn_cast<ForStmt>(L)) {
    if (FS->getConditionVariable())
      return Fail("the loop condition declares a variable");
    const Expr *Cond = FS->getCond();
    if (!Cond)
      First = "true";
    else {
      if (!isPureNoMemory(Cond))
        return Fail("the loop condition reads memory or has side effects");
      std::vector<std::pair<const Stmt *, std::string>> Reps;
      if (FS->getInit()) {
        const auto *DS = dyn_cast<DeclStmt>(FS->getInit());
        const VarDecl *IV = DS && DS->isSingleDecl()
                                ? dyn_cast<VarDecl>(DS->getSingleDecl())
                                : nullptr;
        if (!IV || !IV->getInit() || !isPureNoMemory(IV->getInit()))
          return Fail("the loop's initialisation is not one variable "
                      "declared from a value without memory reads");
        std::string Init = sourceText(Ctx, IV->getInit()->getSourceRange());
        if (Init.empty())
          return Fail("the loop comes from a macro expansion");
        forEachStmt(Cond, [&](const Stmt *X) {
          if (const auto *DRE = dyn_cast<DeclRefExpr>(X))
            if (DRE->getDecl() == IV)
              Reps.push_back({DRE, "(" + Init + ")"});
        });
      }
      First = rewrittenText(Ctx, Cond, Reps);
    }
  } else if (const auto *W = dyn_cast<WhileStmt>(L)) {
    if (W->getConditionVariable() || !isPureNoMemory(W->getCond()))
      return Fail("the loop condition reads memory or has side effects");
    First = sourceText(Ctx, W->getCond()->getSourceRange());
  } else {
    First = "true"; // do-while: the body runs at least once
  }
  if (First.empty() || inMacro(L->getSourceRange()))
    return Fail("the loop comes from a macro expansion");
  // Edits.
  std::vector<const ArraySubscriptExpr *> Uses;
  forEachStmt(L, [&](const Stmt *S) {
    if (const auto *U = dyn_cast<ArraySubscriptExpr>(S))
      if (sameExpr(Ctx, U, AS) && isRead(Ctx, U))
        Uses.push_back(U);
  });
  std::string EW;
  for (const ArraySubscriptExpr *U : Uses)
    if (!editableRange(Ctx, CharSourceRange::getTokenRange(U->getSourceRange()),
                       EW))
      return Fail(EW);
  std::string Name = uniqueName(K, P->getName().str() + "_inv");
  while (Used.count(Name))
    Name += "_";
  Used.insert(Name);
  std::string TypeText = spelledType(Ctx, AS->getType(), AS);
  std::string Indent = indentOf(Ctx, L->getBeginLoc());
  std::string Decl = "const " + TypeText + " " + Name + " = " +
                     (First == "true" ? Elem
                                      : "(" + First + ") ? " + Elem + " : " +
                                            TypeText + "()") +
                     ";";
  FixIt Fix;
  Fix.Exact = Exactness::Bitwise;
  // The statement the declaration goes before: the loop with the
  // attributes in front of it (`#pragma unroll`), which must stay directly
  // before the loop.
  const Stmt *Whole = L;
  DynTypedNodeList LP = Ctx.getParents(*L);
  while (!LP.empty() && LP[0].get<AttributedStmt>()) {
    Whole = LP[0].get<AttributedStmt>();
    LP = Ctx.getParents(*Whole);
  }
  if (inMacro(Whole->getSourceRange()))
    return Fail("the loop comes from a macro expansion");
  const CompoundStmt *CS = LP.empty() ? nullptr : LP[0].get<CompoundStmt>();
  const Stmt *Prev = nullptr;
  if (CS) {
    const Stmt *Last = nullptr;
    for (const Stmt *C : CS->body()) {
      if (C == Whole) {
        Prev = Last;
        break;
      }
      Last = C;
    }
  }
  if (Prev && !inMacro(Prev->getSourceRange()))
    Fix.Edits.push_back(
        makeInsertion(Ctx, afterStmt(Ctx, Prev), "\n" + Indent + Decl));
  else if (CS && !Prev)
    Fix.Edits.push_back(makeInsertion(
        Ctx, SM.getExpansionLoc(CS->getLBracLoc()).getLocWithOffset(1),
        "\n" + Indent + Decl));
  else if (!CS && !LP.empty()) {
    // The loop is the unbraced body of an if/for/while: `if (c) for ...`
    // becomes `if (c) {  <decl>  for ... }`. The declaration goes right
    // after the new brace, before any pragma of the loop.
    const Stmt *Parent = LP[0].get<Stmt>();
    SourceLocation RParen;
    if (const auto *I = dyn_cast_or_null<IfStmt>(Parent)) {
      if (I->getThen() == Whole)
        RParen = I->getRParenLoc();
    } else if (const auto *F = dyn_cast_or_null<ForStmt>(Parent)) {
      if (F->getBody() == Whole)
        RParen = F->getRParenLoc();
    } else if (const auto *W = dyn_cast_or_null<WhileStmt>(Parent)) {
      if (W->getBody() == Whole)
        RParen = W->getRParenLoc();
    } else if (const auto *R = dyn_cast_or_null<CXXForRangeStmt>(Parent)) {
      if (R->getBody() == Whole)
        RParen = R->getRParenLoc();
    }
    if (RParen.isInvalid() || RParen.isMacroID() ||
        inMacro(Parent->getSourceRange()))
      return Fail("the loop is not directly in a block");
    std::string PInd = indentOf(Ctx, Parent->getBeginLoc());
    // The loop on its own line keeps its indentation; on the parent's line
    // it gets the parent's plus two.
    bool OwnLine =
        lineIndent(Ctx, SM.getExpansionLoc(L->getBeginLoc())).has_value();
    std::string BodyInd = OwnLine ? Indent : PInd + "  ";
    Fix.Edits.push_back(makeInsertion(Ctx, RParen.getLocWithOffset(1),
                                      " {\n" + BodyInd + Decl +
                                          (OwnLine ? "" : "\n" + BodyInd)));
    Fix.Edits.push_back(
        makeInsertion(Ctx, afterStmt(Ctx, Whole), "\n" + PInd + "}"));
  } else
    return Fail("the loop is not directly in a block");
  for (const ArraySubscriptExpr *U : Uses)
    Fix.Edits.push_back(makeTextEdit(
        Ctx, CharSourceRange::getTokenRange(U->getSourceRange()), Name));
  Fix.Description =
      "load '" + Elem + "' once before the loop into '" + Name + "'";
  Fd.Fix = Fix;
  return Fd;
}

void MemoryHoistInvariantLoad::checkKernel(const KernelUnit &Kernel) {
  if (Kernel.IsTemplate)
    return;
  std::vector<Finding> Out;
  runOn(ctx(), context(), Kernel.FD, Kernel.Facts, Out);
  for (Finding &F : Out)
    report(std::move(F));
}

void MemoryHoistInvariantLoad::checkTranslationUnit() {
  for (const KernelAnalysis *K : analyzedKernels()) {
    if (K->AllPointersRestrict)
      continue; // the compiler may hoist the load itself
    // One finding per element and loop (a load written twice on a line).
    std::set<std::pair<const LoopInfo *, std::string>> Seen;
    for (const MemAccess &A : K->Accesses) {
      if (A.Space != MemSpace::Global || A.IsWrite || A.IsAtomic ||
          !A.Address.isKnown() || A.Loops.empty() ||
          (A.E && A.E->getType().isVolatileQualified()))
        continue;
      // Through a `__restrict__` pointer nvcc hoists it itself.
      if (const auto *PV = dyn_cast_or_null<ParmVarDecl>(A.Base);
          PV && PV->getType().isRestrictQualified())
        continue;
      // The outermost loop in which the address is invariant.
      const LoopInfo *Outer = nullptr;
      for (auto It = A.Loops.rbegin(); It != A.Loops.rend(); ++It) {
        if (!analysis()->isInvariant(A.Address, **It, true))
          break;
        Outer = *It;
      }
      if (!Outer || !Outer->ContainsGlobalStore)
        continue;
      // A store to the very same element in the loop makes the reload
      // necessary (that is memory-register-accumulation's finding).
      // Nor one written through the same pointer anywhere in the loop (also
      // in a function it calls): the element may be among those written.
      bool SameStored = false;
      for (const MemAccess &B : K->Accesses)
        if (B.IsWrite && B.Base == A.Base &&
            (B.Address == A.Address || llvm::is_contained(B.Loops, Outer)))
          SameStored = true;
      if (SameStored || !firstInUserCode(A.E->getExprLoc()) ||
          !Seen.insert({Outer, A.BaseName + "\n" + A.Address.str()}).second)
        continue;
      Finding F = makeFinding(
          ctx(), id(), A.E->getExprLoc(),
          "loop-invariant global load '" + A.Text + "' is re-read " +
              iterationsText(*Outer, "on") + " of the loop at " +
              loopLine(*Outer) +
              ": the loop stores to global memory through pointers that may "
              "alias it, so the compiler cannot hoist it; load it once "
              "before the loop (or make the pointers __restrict__)",
          K->Kernel, A.E->getSourceRange());
      note(F, Outer->S->getBeginLoc(),
           "the address does not depend on this loop");
      for (const MemAccess &B : K->Accesses)
        if (B.IsWrite && B.Space == MemSpace::Global &&
            llvm::is_contained(B.Loops, Outer)) {
          note(F, B.E->getExprLoc(),
               "store that may alias '" + A.BaseName + "'");
          break;
        }
      reportWithoutFix(std::move(F),
                       A.CallChain.empty()
                           ? "the rewrite hoists loads that every iteration "
                             "performs unconditionally, in the loop's own "
                             "body, through a pointer parameter"
                           : "the load is in a device function called in the "
                             "loop");
    }
  }
}

} // namespace cudal1
