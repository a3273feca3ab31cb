//===- MemoryRegisterAccumulation.cpp - memory-register-accumulation ------===//
//
// A global `out[idx] op= ...` inside a loop whose `idx` does not change in
// the loop becomes a register accumulator: loaded once before the loop (or
// initialised from the store right before it), updated in the loop with the
// same operations in the same order, stored once after it. Bitwise.
//
// Legal only when nothing else in the loop can touch out[idx]: every other
// access to `out` in the loop uses the same index, every other pointer the
// loop uses provably points elsewhere (__restrict__, or separate
// cudaMalloc allocations at every visible launch site), the loop calls no
// user function, has no barrier / fence / atomic, and cannot leave the
// kernel (return, goto) before the store.
//
//===----------------------------------------------------------------------===//
#include "MemoryRegisterAccumulation.h"
#include "cudal1/Rules/SpelledType.h"
#include "../coalescing/RowWalk.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <functional>
#include <optional>

#include "../AccessNotes.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

const char *RuleId = "memory-register-accumulation";

/// Non-negative thread indices: `blockIdx.d * blockDim.d + threadIdx.d`,
/// `threadIdx.d`, `blockIdx.d` (assuming, as CUDA code does, that the
/// index fits its integer type).
bool isThreadIndexForm(const AffineExpr &X) {
  for (const char *D : {"x", "y", "z"}) {
    std::string d(D);
    AffineExpr T = AffineExpr::symbol("threadIdx." + d);
    AffineExpr B = AffineExpr::symbol("blockIdx." + d);
    AffineExpr BD = AffineExpr::symbol("blockDim." + d);
    if (X == B * BD + T || X == T || X == B)
      return true;
  }
  return false;
}

/// \p S (an expression of parameters) is positive wherever \p L runs: a
/// guard `if (i < S ...)` around it, or `if (i >= S) return;` at the top of
/// the kernel before it, with i a thread index.
bool positiveWhereRuns(ASTContext &Ctx, const FunctionDecl *K,
                       const FunctionFacts &F, const Stmt *L,
                       const AffineExpr &S) {
  if (auto C = S.constantValue())
    return *C > 0;
  // Conjuncts of a condition.
  std::function<bool(const Expr *, bool)> Implies = [&](const Expr *E,
                                                        bool Negated) {
    E = E->IgnoreParenImpCasts();
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      if (!Negated && B->getOpcode() == BO_LAnd)
        return Implies(B->getLHS(), false) || Implies(B->getRHS(), false);
      if (Negated && B->getOpcode() == BO_LOr)
        return Implies(B->getLHS(), true) || Implies(B->getRHS(), true);
      BinaryOperatorKind Op = B->getOpcode();
      const Expr *Lo = B->getLHS(), *Hi = B->getRHS();
      // i < S; S > i; negated: i >= S, S <= i.
      bool Less = (!Negated && Op == BO_LT) || (Negated && Op == BO_GE);
      bool Greater = (!Negated && Op == BO_GT) || (Negated && Op == BO_LE);
      if (Greater)
        std::swap(Lo, Hi);
      if (Less || Greater)
        return isThreadIndexForm(toAffine(Lo, F)) && toAffine(Hi, F) == S;
    }
    return false;
  };
  // Enclosing ifs (L in their then-branch).
  const Stmt *Cur = L;
  for (;;) {
    auto P = Ctx.getParents(*Cur);
    if (P.empty())
      break;
    const Stmt *Par = P[0].get<Stmt>();
    if (!Par)
      break;
    if (const auto *If = dyn_cast<IfStmt>(Par))
      if (If->getThen() == Cur && Implies(If->getCond(), false))
        return true;
    Cur = Par;
  }
  // Early returns at the top of the kernel, before the loop.
  const auto *Body = dyn_cast<CompoundStmt>(K->getBody());
  if (!Body)
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  for (const Stmt *St : Body->body()) {
    if (!SM.isBeforeInTranslationUnit(St->getEndLoc(), L->getBeginLoc()))
      break;
    if (const Expr *Exit = earlyExit(St); Exit && Implies(Exit, true))
      return true;
  }
  return false;
}

/// \p Other (a subscript of the same array) is a different element from
/// \p Acc on every iteration of \p L: L counts its variable k up from E0
/// (`for (k = E0; k < / <= End; ++k)`, k not assigned in the body), the
/// indices differ by S * (k - E0 + c) with c >= 1 a constant, and S is
/// positive wherever the loop runs.
bool differsEveryIteration(ASTContext &Ctx, const FunctionDecl *K,
                           const FunctionFacts &F, const Stmt *L,
                           const ArraySubscriptExpr *Acc,
                           const ArraySubscriptExpr *Other) {
  const auto *For = dyn_cast<ForStmt>(L);
  std::optional<LoopShape> Shape = For ? analyzeFor(Ctx, For) : std::nullopt;
  if (!Shape || Shape->Step != 1 || !Shape->Init ||
      !Shape->IV->getType()->isIntegerType())
    return false;
  const VarDecl *IV = Shape->IV;
  const Expr *E0 = Shape->Init;
  std::map<const VarDecl *, std::string> Syms{{IV, "k@iv"}};
  AffineExpr I1 = toAffine(Acc->getIdx(), F, Syms);
  AffineExpr I2 = toAffine(Other->getIdx(), F, Syms);
  AffineExpr A0 = toAffine(E0, F);
  if (!I1.isKnown() || !I2.isKnown() || !A0.isKnown() ||
      I1.symbols().count("k@iv"))
    return false;
  AffineExpr D = I2 - I1;
  AffineExpr S = D.coefficientOf("k@iv");
  if (!S.isKnown() || S.symbols().count("k@iv") || S == AffineExpr::constant(0))
    return false;
  AffineExpr R = D - S * AffineExpr::symbol("k@iv");
  if (R.symbols().count("k@iv"))
    return false;
  // D = S * (k - A0) + Q with Q = R + S * A0; k - A0 >= 0.
  AffineExpr Q = R + S * A0;
  bool CPositive = false;
  for (int64_t C = 1; C <= 64 && !CPositive; ++C)
    CPositive = Q == S * AffineExpr::constant(C);
  if (!CPositive)
    return false;
  return positiveWhereRuns(Ctx, K, F, L, S);
}

/// \p Other (in loop \p L) reads another thread's element of the array
/// \p Acc accumulates into: the two indices differ by the distance between
/// two threads along a thread index times a number of the loop's own
/// variables (`d[(ty - s) * n + x]` beside `d[ty * n + x]` for `s = 1, 2,
/// 4, ...`: an in-place scan across threads). Values pass between threads
/// through the array, so a register copy would hide them. Not a thread's
/// own row or column (`out[i * n + j]` beside `out[i * n + c]`: not a
/// multiple of `n`; `x[k * m + c]` beside `x[r * m + c]`: `m` times `k -
/// r`, a distance the loop's variables alone do not give).
bool readsOtherThreads(const FunctionFacts &F, const Stmt *L,
                       const ArraySubscriptExpr *Acc,
                       const ArraySubscriptExpr *Other) {
  std::map<const VarDecl *, std::string> Syms;
  for (const VarDecl *V : varsWrittenIn(L))
    Syms[V] = "loopvar:" + V->getNameAsString();
  AffineExpr I1 = toAffine(Acc->getIdx(), F, Syms);
  AffineExpr I2 = toAffine(Other->getIdx(), F, Syms);
  if (!I1.isKnown() || !I2.isKnown())
    return false;
  AffineExpr D = I2 - I1;
  bool Varies = false;
  for (const std::string &S : D.symbols()) {
    if (isThreadSymbol(S))
      return false;
    Varies = Varies || StringRef(S).starts_with("loopvar:");
  }
  if (!Varies)
    return false;
  for (const char *T : {"threadIdx.x", "threadIdx.y", "threadIdx.z"}) {
    AffineExpr C = I1.coefficientOf(T);
    if (!C.isKnown() || C.terms().size() != 1)
      continue;
    const auto &[M, CV] = *C.terms().begin();
    if (llvm::any_of(M, [](const std::string &S) { return isThreadSymbol(S); }))
      continue;
    bool Multiple = CV != 0;
    for (const auto &[DM, DV] : D.terms()) {
      // Every term of D is C times a product of the loop's variables.
      std::vector<std::string> Rest = DM;
      for (const std::string &S : M) {
        auto It = llvm::find(Rest, S);
        if (It == Rest.end()) {
          Multiple = false;
          break;
        }
        Rest.erase(It);
      }
      Multiple = Multiple && DV % CV == 0 &&
                 llvm::all_of(Rest, [](const std::string &S) {
                   return StringRef(S).starts_with("loopvar:");
                 });
    }
    if (Multiple)
      return true;
  }
  return false;
}

/// Collects, for each loop, the assignments directly in it (not in a nested
/// loop) whose left side is a subscript of a pointer parameter and which
/// read the same element (compound assignment, or x = x op e).
void collect(const Stmt *S, const Stmt *CurLoop, ASTContext &Ctx,
             const FunctionFacts &F,
             std::map<const Stmt *,
                      std::vector<MemoryRegisterAccumulation::Accum>> &Out) {
  if (!S)
    return;
  if (isLoop(S)) {
    for (const Stmt *C : S->children())
      collect(C, C == loopBody(S) ? S : CurLoop, Ctx, F, Out);
    return;
  }
  if (CurLoop) {
    if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      const auto *LHS =
          dyn_cast<ArraySubscriptExpr>(BO->getLHS()->IgnoreParens());
      bool RMW = BO->isCompoundAssignmentOp();
      if (LHS && BO->getOpcode() == BO_Assign) {
        // out[i] = out[i] op e  /  out[i] = e op out[i]
        if (const auto *R =
                dyn_cast<BinaryOperator>(BO->getRHS()->IgnoreParenImpCasts()))
          for (const Expr *Side : {R->getLHS(), R->getRHS()})
            if (sameExpr(Ctx, Side, LHS))
              RMW = true;
      }
      if (LHS && RMW) {
        const ParmVarDecl *P = rootPointerParam(LHS->getBase(), F);
        if (P)
          Out[CurLoop].push_back({BO, LHS, P});
      }
    }
  }
  for (const Stmt *C : S->children())
    collect(C, CurLoop, Ctx, F, Out);
}

/// The location just past the end of statement \p S (after its ';' when it
/// is an expression statement or a do-while).
SourceLocation endOfStmt(ASTContext &Ctx, const Stmt *S) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  const Stmt *Last = S;
  if (const auto *D = dyn_cast<DoStmt>(S))
    Last = D; // ends at ')'
  else if (const Stmt *B = loopBody(S))
    Last = B;
  SourceLocation E = SM.getExpansionLoc(Last->getEndLoc());
  if (isa<CompoundStmt>(Last))
    return Lexer::getLocForEndOfToken(E, 0, SM, LO);
  SourceLocation AfterSemi =
      Lexer::findLocationAfterToken(E, tok::semi, SM, LO, false);
  if (AfterSemi.isValid())
    return AfterSemi;
  return Lexer::getLocForEndOfToken(E, 0, SM, LO);
}

/// \p W, a store to the element, runs on every iteration of \p L: the
/// statements from it up to the loop are blocks only (no `if`, `?:`,
/// `&&`/`||`, inner loop or `switch`), and \p L has no `continue` or
/// `break`.
bool storedEveryIteration(ASTContext &Ctx, const Stmt *L, const Stmt *W) {
  bool Jumps = false;
  forEachStmt(L, [&](const Stmt *S) {
    Jumps |= isa<ContinueStmt>(S) || isa<BreakStmt>(S);
  });
  if (Jumps)
    return false;
  const Stmt *Cur = W;
  for (;;) {
    auto Ps = Ctx.getParents(*Cur);
    if (Ps.empty())
      return false;
    const Stmt *P = Ps[0].get<Stmt>();
    if (!P)
      return false;
    if (P == L)
      return true;
    if (isa<IfStmt>(P) || isa<SwitchStmt>(P) ||
        isa<AbstractConditionalOperator>(P) || isLoop(P))
      return false;
    if (const auto *B = dyn_cast<BinaryOperator>(P); B && B->isLogicalOp())
      return false;
    Cur = P;
  }
}

} // namespace

RuleInfo MemoryRegisterAccumulation::info() const {
  RuleInfo I;
  I.Id = RuleId;
  I.Category = "memory";
  I.Summary = "global read-modify-write of one element in a loop -> register "
              "accumulator stored once after the loop";
  I.Exactness = Exactness::Bitwise;
  I.Help = "A loop that updates out[idx] (idx unchanged by the loop) loads "
           "and stores global memory on every iteration. The rewrite keeps "
           "the value in a register: one load (or the initialising store "
           "folded in) before the loop and one store after it, with the "
           "same operations in the same order. Applied only when nothing "
           "else in the loop can access out[idx].";
  I.Doc.Detects =
      "A global `out[idx] op= …` (or `out[idx] = out[idx] op …`) inside a "
      "loop whose index `idx` does not change in the loop, e.g. the naive "
      "matrix-vector product `y[row] += A[row * N + k] * x[k]`.\n"
      "\n"
      "It also reports, without a fix, the read-modify-writes of one "
      "element per loop that the symbolic access analysis finds and the "
      "rewrite does not handle: through device functions, in templates, "
      "other forms (this rule took over `memory-global-accumulation`); not "
      "when every pointer parameter is `__restrict__` (the compiler keeps "
      "the value in a register itself).\n"
      "\n"
      "Not reported either where nvcc already keeps the element in a "
      "register (LLVM's loop-invariant code motion promotes it: one load "
      "before the loop and one store after it in nvcc 13's PTX): the "
      "element is stored on every iteration (not under an `if`, `?:` or "
      "inner loop, and the loop has no `continue` or `break`), the loop "
      "reads no other element of `out`, and nothing else the loop uses may "
      "be it: `out` is `__restrict__`, or every other pointer parameter "
      "the loop uses is and it touches no other memory (shared or local "
      "arrays). A store on some iterations only is not promoted: "
      "reported.\n"
      "\n"
      "Nor where the loop also reads another thread's element of `out`: "
      "the indices differ by a thread's distance along a thread index "
      "times the loop's own variables (`img[(ty - s) * n + x]` beside "
      "`img[ty * n + x] += v` for `s = 1, 2, 4, ...`, an in-place scan "
      "across threads). The threads pass values through the array; a "
      "register copy would hide them. A thread's own row or column "
      "(`X[k * m + c]` beside `X[r * m + c]`) is reported without a fix.";
  I.Doc.WhySlow =
      "Unless the compiler can prove that nothing else in the loop writes "
      "`out[idx]`, it must load and store global memory on every "
      "iteration: two memory operations and a load-to-use latency on the "
      "loop's critical path per iteration, where a register would do.";
  I.Doc.Example = R"cuda(y[row] = 0.0f;
for (int k = 0; k < N; ++k)
  y[row] += A[row * N + k] * x[k];     // warning)cuda";
  I.Doc.Fix =
      "```cuda\n"
      "float y_acc = 0.0f;                    // the initialising store is "
      "folded in\n"
      "for (int k = 0; k < N; ++k)\n"
      "  y_acc += A[row * N + k] * x[k];\n"
      "y[row] = y_acc;                        // one store after the loop\n"
      "```\n"
      "\n"
      "The initialising store may be separated from the loop by stores of "
      "the other elements the loop accumulates into (`ax[i] = 0; ay[i] = "
      "0; az[i] = 0; for (...) { ax[i] += ...; ay[i] += ...; az[i] += ...; "
      "}`): each is folded into its accumulator, and the elements "
      "accumulated in one loop get one fix (all in registers, each stored "
      "once after the loop). Declarations go before a `#pragma unroll` "
      "written before the loop, never between it and its loop.\n"
      "\n"
      "Without an initialising store before the loop, the "
      "accumulator is loaded before it (`float y_acc = y[row];`). Same "
      "operations in the same order: bitwise. If the loop runs zero times "
      "the rewrite stores back the value it loaded (same bits).\n"
      "\n"
      "## When there is no fix\n"
      "\n"
      "The finding stays, with the reason, when:\n"
      "- another access through `out` in the loop uses a different index "
      "that may be the same element, or `out[idx]` is used other than read "
      "or assigned (address taken, `++`). A different index is proven "
      "another element when the loop counts `k` up from `E0` and the two "
      "indices differ by `S * (k - E0 + c)`, `c >= 1`, with `S` positive "
      "where the loop runs (a constant, or a guard `if (i < S)` / "
      "`if (i >= S) return;` on a thread index `i`): back substitution's "
      "`X[row * n + c] -= U[row * n + k] * X[k * n + c]` for `k` from "
      "`row + 1`;\n"
      "- another pointer used in the loop is not proven to point "
      "elsewhere: neither is `__restrict__`, and not every launch site in "
      "the file passes separate `cudaMalloc` allocations (no launch site "
      "visible counts as not proven);\n"
      "- the loop calls a user function, or has a barrier, fence or atomic "
      "(other threads might observe the element), or can `return`/`goto` "
      "out before the final store;\n"
      "- the element is `volatile`, or the code comes from a macro.";
  return I;
}

void MemoryRegisterAccumulation::runOn(ASTContext &Ctx, const CheckContext &CC,
                                       const FunctionDecl *K,
                                       const FunctionFacts &F,
                                       std::vector<Finding> &Out) {
  std::map<const Stmt *, std::vector<Accum>> Cands;
  collect(K->getBody(), nullptr, Ctx, F, Cands);
  std::set<std::string> UsedNames;
  // Loops in source order.
  std::vector<const Stmt *> Loops;
  for (auto &[L, V] : Cands)
    Loops.push_back(L);
  const SourceManager &SM = Ctx.getSourceManager();
  std::sort(Loops.begin(), Loops.end(), [&](const Stmt *A, const Stmt *B) {
    return SM.isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
  });
  std::set<std::pair<const ParmVarDecl *, const Stmt *>> Done;
  std::map<const Stmt *, std::vector<size_t>> ByLoop; // findings per loop
  for (const Stmt *L : Loops) {
    // Variables written in the loop or declared inside it (a fresh value
    // each iteration).
    std::set<const VarDecl *> Written = varsChangedIn(L);
    for (const Accum &A : Cands[L]) {
      const Expr *Idx = A.Lhs->getIdx();
      // Loop-invariant index: reads no memory, no variable it uses
      // changes in the loop.
      if (!isPureNoMemory(Idx))
        continue;
      bool Invariant = true;
      forEachStmt(Idx, [&](const Stmt *S) {
        if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
          if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
            if (Written.count(V))
              Invariant = false;
      });
      forEachStmt(A.Lhs->getBase(), [&](const Stmt *S) {
        if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
          if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
            if (Written.count(V))
              Invariant = false;
      });
      if (!Invariant)
        continue;
      if (!Done.insert({A.Param, L}).second)
        continue;
      std::optional<Finding> Fd = analyze(Ctx, CC, K, F, L, A, UsedNames);
      if (!Fd)
        continue;
      Out.push_back(std::move(*Fd));
      ByLoop[L].push_back(Out.size() - 1);
    }
  }
  // Several elements accumulated in one loop (`ax[i] += ...; ay[i] += ...;
  // az[i] += ...`): one fix for all of them. Separate fixes would insert
  // their final stores at the same place, which the fix engine takes as a
  // conflict, so one element would be done per round.
  for (auto &[L, Idx] : ByLoop) {
    std::vector<size_t> Fixed;
    for (size_t I : Idx)
      if (Out[I].Fix && Out[I].Fix->Proven &&
          Out[I].Fix->Exact == Exactness::Bitwise)
        Fixed.push_back(I);
    if (Fixed.size() < 2)
      continue;
    FixIt &Into = *Out[Fixed.front()].Fix;
    std::string Elems;
    for (size_t I : Fixed) {
      const FixIt &X = *Out[I].Fix;
      std::string E = X.Description.substr(X.Description.find('\''));
      E = E.substr(0, E.find('\'', 1) + 1);
      Elems += (Elems.empty() ? "" : ", ") + E;
      if (I == Fixed.front())
        continue;
      for (const TextEdit &T : X.Edits) {
        auto Same = std::find_if(
            Into.Edits.begin(), Into.Edits.end(), [&](const TextEdit &U) {
              return U.File == T.File && U.Offset == T.Offset &&
                     U.Length == 0 && T.Length == 0;
            });
        if (Same != Into.Edits.end())
          Same->Replacement += T.Replacement;
        else
          Into.Edits.push_back(T);
      }
    }
    Into.Description = "keep " + Elems +
                       " in registers during the loop; store each once "
                       "after it";
    for (size_t I : Fixed)
      if (I != Fixed.front()) {
        Out[I].Fix.reset();
        Out[I].WhyNoFix = "fixed together with the other accumulations of "
                          "the loop (" + Elems + ")";
      }
  }
}

// Over 150 lines: the legality proof (uses of the element, aliasing, calls,
// barriers, exits) and the rewrite, in order, sharing the matched loop and
// element.
std::optional<Finding> MemoryRegisterAccumulation::analyze(ASTContext &Ctx,
                                            const CheckContext &CC,
                                            const FunctionDecl *K,
                                            const FunctionFacts &F,
                                            const Stmt *L, const Accum &A,
                                            std::set<std::string> &UsedNames) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::string Elem = sourceText(Ctx, A.Lhs->getSourceRange());
  Finding Fd = makeFinding(
      Ctx, RuleId, A.Lhs->getBeginLoc(),
      "'" + Elem +
          "' is loaded from and stored to global memory on every iteration "
          "of the loop although its index does not change; a register "
          "accumulator needs one load and one store in all",
      K);
  Fd.Notes.push_back(makeNote(Ctx, L->getBeginLoc(), "the loop"));
  const ParmVarDecl *P = A.Param;

  // 1. Every access through `out` in the loop is out[idx] itself, read or
  //    the left side of an assignment.
  std::vector<const ArraySubscriptExpr *> Uses;
  std::vector<const ArraySubscriptExpr *> Apart; // proven other elements
  // Another thread's element read in the loop: the threads pass values
  // through the array (an in-place scan), no accumulation to keep private.
  bool OtherThreads = false;
  forEachStmt(L, [&](const Stmt *S) {
    const auto *AS = dyn_cast<ArraySubscriptExpr>(S);
    OtherThreads = OtherThreads ||
                   (AS && rootPointerParam(AS->getBase(), F) == P &&
                    !sameExpr(Ctx, AS, A.Lhs) &&
                    readsOtherThreads(F, L, A.Lhs, AS));
  });
  if (OtherThreads) {
    Silent.insert(SM.getExpansionLoc(A.Lhs->getExprLoc()));
    return std::nullopt;
  }
  std::string Why;
  forEachStmt(L, [&](const Stmt *S) {
    if (!Why.empty())
      return;
    const auto *DRE = dyn_cast<DeclRefExpr>(S);
    if (!DRE)
      return;
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V || !V->getType()->isPointerType())
      return;
    const ParmVarDecl *R = rootPointerParam(DRE, F);
    if (R != P)
      return;
    // Must be the base of a subscript equal to out[idx].
    auto Parents = Ctx.getParents(*DRE);
    const Expr *Cur = DRE;
    while (!Parents.empty()) {
      const auto *PE = Parents[0].get<Expr>();
      if (PE && (isa<ImplicitCastExpr>(PE) || isa<ParenExpr>(PE))) {
        Cur = PE;
        Parents = Ctx.getParents(*PE);
        continue;
      }
      break;
    }
    const ArraySubscriptExpr *AS =
        Parents.empty() ? nullptr : Parents[0].get<ArraySubscriptExpr>();
    if (AS && AS->getBase()->IgnoreParenImpCasts() == DRE &&
        !sameExpr(Ctx, AS, A.Lhs) &&
        differsEveryIteration(Ctx, K, F, L, A.Lhs, AS)) {
      Apart.push_back(AS); // another element on every iteration
      return;
    }
    if (!AS || AS->getBase()->IgnoreParenImpCasts() != DRE ||
        !sameExpr(Ctx, AS, A.Lhs)) {
      Why = "'" + P->getName().str() + "' is also used as '" +
            sourceText(Ctx, (AS ? (const Expr *)AS : Cur)->getSourceRange()) +
            "' in the loop, which may be the same element as '" + Elem + "'";
      return;
    }
    // The subscript is read (lvalue-to-rvalue) or assigned to.
    auto PP = Ctx.getParents(*AS);
    const Stmt *Use = PP.empty() ? nullptr : PP[0].get<Stmt>();
    while (Use && isa<ParenExpr>(Use)) {
      auto Q = Ctx.getParents(*Use);
      Use = Q.empty() ? nullptr : Q[0].get<Stmt>();
    }
    bool Ok = false;
    if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(Use))
      Ok = IC->getCastKind() == CK_LValueToRValue;
    else if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Use))
      Ok = BO->isAssignmentOp() && BO->getLHS()->IgnoreParens() == AS;
    if (!Ok) {
      Why = "'" + Elem +
            "' is used in the loop other than by reading or "
            "assigning it (address taken, ++/--, or passed on)";
      return;
    }
    Uses.push_back(AS);
  });
  if (!Why.empty()) {
    refuse(Fd, Why);
    return Fd;
  }
  if (A.Lhs->getType().isVolatileQualified()) {
    refuse(Fd, "'" + Elem + "' is volatile");
    return Fd;
  }

  // 2. No barrier, fence, atomic, or user call; no early exit.
  if (containsCallTo(L, {"__syncthreads", "__syncthreads_count",
                         "__syncthreads_and", "__syncthreads_or", "__syncwarp",
                         "__threadfence", "__threadfence_block",
                         "__threadfence_system", "atomic*", "__nanosleep"})) {
    refuse(Fd, "the loop has a barrier, fence or atomic: other threads "
               "may observe '" +
                   Elem + "' between iterations");
    return Fd;
  }
  std::string BadCall;
  forEachStmt(L, [&](const Stmt *S) {
    const auto *CE = dyn_cast<CallExpr>(S);
    if (!CE || !BadCall.empty())
      return;
    const FunctionDecl *Callee = CE->getDirectCallee();
    if (!Callee) {
      BadCall = "an indirect call";
      return;
    }
    // Calls into system headers (math functions, intrinsics) do not
    // touch user memory; user functions might.
    if (!SM.isInSystemHeader(SM.getExpansionLoc(Callee->getLocation())) &&
        !Callee->getBuiltinID())
      BadCall = "'" + Callee->getNameAsString() + "'";
  });
  if (!BadCall.empty()) {
    refuse(Fd,
           "the loop calls " + BadCall + ", which may access '" + Elem + "'");
    return Fd;
  }
  if (containsEscape(L, /*AllowContinue=*/true)) {
    refuse(Fd, "the loop can return or jump out of the kernel before the "
               "final store");
    return Fd;
  }

  // 3. Every other pointer used in the loop points elsewhere.
  std::set<const ParmVarDecl *> Others;
  std::string Unknown;
  bool OtherMemory = false; // memory the loop uses besides `out` or parameters
  forEachStmt(L, [&](const Stmt *S) {
    const auto *DRE = dyn_cast<DeclRefExpr>(S);
    if (!DRE)
      return;
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V)
      return;
    bool Ptr = V->getType()->isPointerType() || V->getType()->isArrayType();
    if (!Ptr)
      return;
    const ParmVarDecl *R = rootPointerParam(DRE, F);
    if (!R)
      OtherMemory = true;
    if (V->getType()->isArrayType() && V->hasLocalStorage())
      return; // a local array: not global memory
    if (V->hasAttr<CUDASharedAttr>() || V->hasAttr<CUDAConstantAttr>())
      return; // different memory space: cannot alias global
    if (!R) {
      if (Unknown.empty())
        Unknown = V->getName().str();
      return;
    }
    if (R != P)
      Others.insert(R);
  });
  if (!Unknown.empty()) {
    refuse(Fd, "the loop uses pointer '" + Unknown +
                   "', whose target cannot be traced to a kernel parameter; "
                   "it may alias '" +
                   Elem + "'");
    return Fd;
  }
  std::vector<std::string> Hows;
  for (const ParmVarDecl *Q : Others) {
    std::string How, W;
    if (!provenDistinct(Ctx, context(), K, P, Q, How, W)) {
      refuse(Fd, W + " (mark them __restrict__ if they never overlap)");
      return Fd;
    }
    Hows.push_back(How);
  }

  // 3b. nvcc keeps the element in a register by itself (LLVM's loop
  //     invariant code motion promotes it: one load before the loop, one
  //     store after it, as in nvcc 13's PTX) when the element is stored on
  //     every iteration and nothing else the loop touches may be it:
  //     `out` is __restrict__, or every other pointer parameter the loop
  //     uses is and it uses no other memory (shared or local arrays). The
  //     rewrite would change nothing.
  //     No call but to math functions (printf, __ldg's inline assembly
  //     and the like are opaque to that motion) and no asm.
  bool NothingElse = Apart.empty();
  forEachStmt(L, [&](const Stmt *S) {
    if (isa<AsmStmt>(S))
      NothingElse = false;
    if (const auto *CE = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *Callee = CE->getDirectCallee();
      NothingElse &= Callee && Callee->getIdentifier() &&
                     isPureMathName(Callee->getName());
    }
    if (P->getType().isRestrictQualified())
      return;
    // Without __restrict__ on `out`: a global variable or a structure's
    // member (a pointer field) may be it.
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        if (V->hasGlobalStorage() && !V->hasAttr<CUDAConstantAttr>() &&
            !V->isConstexpr())
          NothingElse = false;
    if (isa<MemberExpr>(S))
      NothingElse = false;
  });
  if (!P->getType().isRestrictQualified()) {
    NothingElse &= !OtherMemory;
    for (const ParmVarDecl *Q : Others)
      NothingElse &= Q->getType().isRestrictQualified();
  }
  bool EveryIteration = false;
  for (const ArraySubscriptExpr *U : Uses) {
    auto PP = Ctx.getParents(*U);
    const Stmt *Use = PP.empty() ? nullptr : PP[0].get<Stmt>();
    while (Use && isa<ParenExpr>(Use)) {
      auto Q = Ctx.getParents(*Use);
      Use = Q.empty() ? nullptr : Q[0].get<Stmt>();
    }
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Use);
        BO && BO->isAssignmentOp())
      EveryIteration |= storedEveryIteration(Ctx, L, BO);
  }
  if (EveryIteration && NothingElse) {
    Silent.insert(SM.getExpansionLoc(A.Lhs->getExprLoc()));
    return std::nullopt;
  }

  // 4. Edits.
  std::string EW;
  for (const ArraySubscriptExpr *U : Uses)
    if (!editableRange(Ctx, CharSourceRange::getTokenRange(U->getSourceRange()),
                       EW)) {
      refuse(Fd, EW);
      return Fd;
    }
  if (inMacro(L->getSourceRange())) {
    refuse(Fd, "the loop comes from a macro expansion");
    return Fd;
  }
  std::string Name = uniqueName(K, P->getName().str() + "_acc");
  while (UsedNames.count(Name))
    Name += "_";
  UsedNames.insert(Name);
  QualType T = A.Lhs->getType().getUnqualifiedType();
  std::string TypeText = spelledType(Ctx, T, A.Lhs);
  std::string Indent = indentOf(Ctx, L->getBeginLoc());

  FixIt Fix;
  Fix.Exact = Exactness::Bitwise;
  // Fold `out[idx] = init;` right before the loop into the accumulator's
  // initialisation.
  const Stmt *Prev = nullptr;
  // The loop's statement in its block: the loop, or the `#pragma unroll`
  // written before it (a declaration goes before the pragma, not between
  // it and its loop).
  const Stmt *LStmt = L;
  for (;;) {
    auto PP = Ctx.getParents(*LStmt);
    const auto *AS = PP.empty() ? nullptr : PP[0].get<AttributedStmt>();
    if (!AS)
      break;
    LStmt = AS;
  }
  auto LP = Ctx.getParents(*LStmt);
  if (!LP.empty())
    if (const auto *CS = LP[0].get<CompoundStmt>()) {
      const Stmt *Last = nullptr;
      for (const Stmt *C : CS->body()) {
        if (C == LStmt) {
          Prev = Last;
          break;
        }
        Last = C;
      }
    }
  // Or a few statements before, past stores to other buffers the loop
  // accumulates into too (`ax[i] = 0; ay[i] = 0; az[i] = 0; for (...) {
  // ax[i] += ...; ay[i] += ...; az[i] += ...; }`): those are proven
  // distinct from this one (above) and do not read it.
  const Stmt *Init = Prev;
  if (!LP.empty())
    if (const auto *CS = LP[0].get<CompoundStmt>()) {
      auto OtherStore = [&](const Stmt *S) {
        const auto *B = dyn_cast<BinaryOperator>(S);
        const auto *AS = B && B->getOpcode() == BO_Assign
                             ? dyn_cast<ArraySubscriptExpr>(
                                   B->getLHS()->IgnoreParens())
                             : nullptr;
        const ParmVarDecl *Q = AS ? rootPointerParam(AS->getBase(), F) : nullptr;
        if (!Q || Q == P || !Others.count(Q) || !isPure(Ctx, B->getRHS()) ||
            !isPure(Ctx, AS->getIdx()))
          return false;
        bool UsesP = false;
        forEachStmt(B, [&](const Stmt *X) {
          if (const auto *DRE = dyn_cast<DeclRefExpr>(X))
            UsesP |= rootPointerParam(DRE, F) == P;
        });
        return !UsesP;
      };
      std::vector<const Stmt *> Before;
      for (const Stmt *C : CS->body()) {
        if (C == LStmt)
          break;
        Before.push_back(C);
      }
      for (auto It = Before.rbegin(); It != Before.rend(); ++It) {
        const auto *PB = dyn_cast<BinaryOperator>(*It);
        if (PB && PB->getOpcode() == BO_Assign &&
            sameExpr(Ctx, PB->getLHS(), A.Lhs)) {
          Init = *It;
          break;
        }
        if (!OtherStore(*It))
          break;
      }
    }
  bool Folded = false;
  if (const auto *PB = dyn_cast_or_null<BinaryOperator>(Init))
    if (PB->getOpcode() == BO_Assign && sameExpr(Ctx, PB->getLHS(), A.Lhs) &&
        !inMacro(PB->getSourceRange())) {
      bool UsesP = false;
      forEachStmt(PB->getRHS(), [&](const Stmt *S) {
        if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
          if (rootPointerParam(DRE, F) == P)
            UsesP = true;
      });
      std::string Init = sourceText(Ctx, PB->getRHS()->getSourceRange());
      if (!UsesP && !Init.empty()) {
        Fix.Edits.push_back(makeTextEdit(
            Ctx, CharSourceRange::getTokenRange(PB->getSourceRange()),
            TypeText + " " + Name + " = " + Init));
        Folded = true;
      }
    }
  if (!Folded) {
    // Inserted after the previous statement (or the block's '{') rather
    // than at the loop's first character, where another rule may put a
    // `#pragma unroll` that must stay right before the loop.
    std::string Decl = TypeText + " " + Name + " = " + Elem + ";";
    const CompoundStmt *CS = LP.empty() ? nullptr : LP[0].get<CompoundStmt>();
    if (Prev && !inMacro(Prev->getSourceRange()))
      Fix.Edits.push_back(
          makeInsertion(Ctx, afterStmt(Ctx, Prev), "\n" + Indent + Decl));
    else if (CS && !Prev)
      Fix.Edits.push_back(makeInsertion(
          Ctx, SM.getExpansionLoc(CS->getLBracLoc()).getLocWithOffset(1),
          "\n" + Indent + Decl));
    else
      Fix.Edits.push_back(makeInsertion(
          Ctx, SM.getExpansionLoc(LStmt->getBeginLoc()), Decl + "\n" + Indent));
  }
  for (const ArraySubscriptExpr *U : Uses)
    Fix.Edits.push_back(makeTextEdit(
        Ctx, CharSourceRange::getTokenRange(U->getSourceRange()), Name));
  Fix.Edits.push_back(makeInsertion(Ctx, endOfStmt(Ctx, L),
                                    "\n" + Indent + Elem + " = " + Name + ";"));
  Fix.Description = "keep '" + Elem + "' in register '" + Name +
                    "' during the loop; store it once after the loop";
  Fd.Fix = Fix;
  for (const std::string &H : Hows)
    Fd.Notes.push_back(makeNote(Ctx, L->getBeginLoc(), "no aliasing: " + H));
  return Fd;
}

void MemoryRegisterAccumulation::checkKernel(const KernelUnit &Kernel) {
  if (Kernel.IsTemplate)
    return;
  std::vector<Finding> Out;
  runOn(ctx(), context(), Kernel.FD, Kernel.Facts, Out);
  for (Finding &F : Out)
    report(std::move(F));
}

void MemoryRegisterAccumulation::checkTranslationUnit() {
  for (const KernelAnalysis *K : analyzedKernels()) {
    if (K->AllPointersRestrict)
      continue; // the compiler keeps such a value in a register itself
    for (const MemAccess &A : K->Accesses) {
      if (A.Space != MemSpace::Global || A.IsAtomic || !A.IsWrite ||
          !A.IsCompound || !A.Address.isKnown())
        continue;
      const LoopInfo *L = innermostLoop(A);
      if (!L || !analysis()->isInvariant(A.Address, *L, false) ||
          Silent.count(
              ctx().getSourceManager().getExpansionLoc(A.E->getExprLoc())) ||
          !firstInUserCode(A.E->getExprLoc()))
        continue;
      Finding F = makeFinding(
          ctx(), id(), A.E->getExprLoc(),
          "global read-modify-write of '" + A.Text + "' in the loop at " +
              loopLine(*L) + ": the same element is loaded and stored on " +
              iterationsText(*L) +
              " (2 global accesses per iteration); accumulate in a "
              "register and store once after the loop",
          K->Kernel, A.E->getSourceRange());
      note(F, L->S->getBeginLoc(),
           "the address does not depend on this loop's iterations");
      addCallChainNotes(ctx(), F, A);
      reportWithoutFix(std::move(F),
                       A.CallChain.empty()
                           ? "the rewrite handles 'p[i] op= ...' on a pointer "
                             "parameter in the kernel's own loop"
                           : "the access is in a device function called in "
                             "the loop");
    }
  }
}

} // namespace cudal1
