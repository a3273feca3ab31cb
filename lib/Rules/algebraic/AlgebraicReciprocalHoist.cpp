//===- AlgebraicReciprocalHoist.cpp - algebraic-reciprocal-hoist ----------===//
//
// algebraic-reciprocal-hoist: x / s in a loop with s loop-invariant becomes
// x * inv_s with inv_s = 1 / s computed once before the loop (within 2
// ulp). Divisions and modulos by loop-invariant values that have no such
// rewrite (integers, divisors that are expressions) are reported without a
// fix (this rule took over algebraic-division-invariant).
//
//===----------------------------------------------------------------------===//
#include "AlgebraicReciprocalHoist.h"
#include "cudal1/Rules/SpelledType.h"

#include "../CallTree.h"
#include "FloatTypes.h"
#include "LoopTraffic.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"

#include <functional>
#include <map>
#include <set>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace cudal1 {

RuleInfo AlgebraicReciprocalHoist::info() const {
  RuleInfo I;
  I.Id = "algebraic-reciprocal-hoist";
  I.Category = "algebraic";
  I.Summary = "floating division by a loop-invariant value in a loop; "
              "multiply by a reciprocal computed once before the loop";
  I.Exactness = Exactness::Ulp;
  I.Help = "IEEE float division costs a multi-instruction sequence per "
           "iteration; the reciprocal is computed once before the loop and "
           "each division becomes a multiply. x * (1/s) differs from x / s "
           "by at most 2 ulp (and overflows when 1/s does, for |s| below "
           "about 3e-39). Other divisions and modulos by loop-invariant "
           "values (integers, divisors that are expressions, /=) are "
           "reported without a fix; integer ones only where the loop does "
           "more of them than its memory traffic hides.";
  I.ExactnessNote =
      "ulp (2)";
  I.Doc.Detects =
      "Floating division `x / s` inside a loop where `s` is a parameter or "
      "local that the loop does not change. Not reported when the dividend "
      "does not change in the loop either (nvcc computes the whole quotient "
      "once before it), nor for a division in one case of a `switch` in the "
      "loop (the reciprocal before the loop would cost every thread a "
      "division that case may never need), nor in a loop that retries "
      "one atomic update with `atomicCAS` (an atomic division built on "
      "compare-and-swap: the loop usually runs once, so the division is "
      "not repeated work), nor when every division sits "
      "in an innermost loop that moves at least 32 bytes of global memory "
      "per float division (48 per double; loads whose address changes in "
      "the loop, and stores). Measured on an H200 "
      "(utils/bench/divmod/fdiv-sweep.cu): an IEEE division is not free in "
      "a memory-bound loop the way an integer one is: one per streamed "
      "float (8 bytes in and out) takes 1.14x the copy's time and the "
      "reciprocal brings it back to 1.00x; one per float read (4 bytes) "
      "1.47x; one double division per 16 bytes 1.10x. At 32 bytes per "
      "division the cost is about 3%.\n"
      "\n"
      "It also reports, without a fix, integer divisions and modulos by "
      "loop-invariant values, and floating divisions whose divisor is an "
      "expression or that use `/=` (this rule took over "
      "`algebraic-division-invariant`), in innermost loops only: a division "
      "in a loop that holds another loop (a tile loop around its k loop), "
      "or that calls a function of the program that loops (directly or "
      "through up to two more calls: a renderer's samples, each tracing "
      "rays), runs once per inner loop and is not where the time goes.\n"
      "\n"
      "Integer divisions are reported once per loop, and only when the loop "
      "does more of them than its memory traffic hides: more than one per 4 "
      "bytes of global memory that the iteration reads or writes (loads "
      "whose address changes in the loop; `x / d` "
      "and `x % d` of the same operands count once, a 64-bit division as "
      "2), or any in a loop that moves no memory. Measured on an H200 "
      "(utils/bench/divmod/divmod-sweep.cu): a grid-stride loop streaming a "
      "float in and out (8 bytes) takes the copy's time with 1 or 2 "
      "divisions per element and 1.26x with 3; with doubles (16 bytes), "
      "1.01x with 3 and 1.10x with 4; with 64-bit indices, 1.07x with 1 "
      "and 1.27x with 2. ptxas already computes the divisor's "
      "reciprocal once before the loop; each division keeps about a dozen "
      "instructions in it.";
  I.Doc.WhySlow =
      "Each iteration pays a full IEEE division; the reciprocal can be "
      "computed once.";
  I.Doc.Example = R"cuda(for (int k = 0; k < m; ++k) {
  out[i] += in[k] / s;
})cuda";
  I.Doc.Fixed = R"cuda(const float inv_s = 1.0f / s;
for (int k = 0; k < m; ++k) {
  out[i] += in[k] * inv_s;
})cuda";
  I.Doc.Fix =
      "Declares the reciprocal before the outermost loop in which `s` is "
      "invariant and turns every division by `s` in it into a multiply "
      "(one fix). x*(1/s) is within 2 ulp of x/s; it overflows where 1/s "
      "does (|s| below about 3e-39 for float). Needs `--verify=run` or "
      "`--allow-unverified`. No fix when the loop does not start its own "
      "line inside a `{ }` block.";
  return I;
}

void AlgebraicReciprocalHoist::registerMatchers(MatchFinder &F) {
  F.addMatcher(
      binaryOperator(
          hasOperatorName("/"), hasType(realFloatingPointType()),
          hasRHS(ignoringParenImpCasts(declRefExpr(to(varDecl().bind("var"))))))
          .bind("div"),
      this);
}

/// True when \p S calls a function of the program whose body holds a loop,
/// directly or through the functions it calls (3 levels): a loop
/// iteration that runs another loop's work (aobench's samples, each tracing
/// rays through `ambient_occlusion`'s loops) is not where a division's
/// instructions cost.
static bool callsLoopingFunction(const Stmt *S) {
  return anyCalledDefinition(
      S, 3, [](const FunctionDecl *Def) { return containsLoop(Def->getBody()); },
      /*UserCodeOnly=*/true);
}

/// \p Loop retries one atomic update until it lands (its body calls
/// `atomicCAS`): it usually runs once, and the division in it is done once
/// per update whatever is hoisted.
static bool retryLoop(const Stmt *Loop) {
  return containsCallTo(Loop, {"atomicCAS*"});
}

/// The divisor as the message shows it: its text, or, when that text would
/// be a macro's invocation rather than the divisor (`ATOMIC(Div)` for the
/// `val` inside its expansion), the divisor as the macro's definition
/// spells it, else the expression printed.
static std::string divisorText(const ASTContext &Ctx, const Expr *E) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (E->getBeginLoc().isMacroID() &&
      Lexer::makeFileCharRange(CharSourceRange::getTokenRange(
                                   E->getSourceRange()),
                               SM, Ctx.getLangOpts())
          .isInvalid()) {
    const Expr *Bare = E->IgnoreParens();
    SourceLocation B = SM.getSpellingLoc(Bare->getBeginLoc()),
                   End = SM.getSpellingLoc(Bare->getEndLoc());
    if (SM.getFileID(B) == SM.getFileID(End) &&
        !SM.isBeforeInTranslationUnit(End, B)) {
      std::string T = oneLineText(Ctx, SourceRange(B, End));
      if (!T.empty())
        return T;
    }
    std::string S;
    llvm::raw_string_ostream OS(S);
    E->IgnoreParenImpCasts()->printPretty(OS, nullptr,
                                          Ctx.getPrintingPolicy());
    return OS.str();
  }
  return oneLineText(Ctx, E->getSourceRange());
}

/// \p BO lies in a switch inside \p Loop: in one of its cases, which the
/// loop may rarely take. A reciprocal computed before the loop would cost
/// every thread a division that case may never need (a fractal renderer's
/// 49 variations, one taken per iteration).
static bool inSwitchWithin(ASTContext &C, const Stmt *BO, const Stmt *Loop) {
  for (const Stmt *S = BO; S && S != Loop;) {
    auto Ps = C.getParents(*S);
    S = Ps.empty() ? nullptr : Ps[0].get<Stmt>();
    if (S && isa<SwitchStmt>(S))
      return true;
  }
  return false;
}

void AlgebraicReciprocalHoist::check(const MatchFinder::MatchResult &R) {
  const auto *BO = R.Nodes.getNodeAs<BinaryOperator>("div");
  const auto *VD = R.Nodes.getNodeAs<VarDecl>("var");
  ASTContext &C = ctx();
  if (!BO || !VD || BO->isTypeDependent() || BO->isValueDependent())
    return;
  QualType T = BO->getType();
  if (!(isFloat(T) || isDouble(T)) ||
      !C.hasSameUnqualifiedType(VD->getType().getNonReferenceType(), T))
    return;
  if (!(isa<ParmVarDecl>(VD) || VD->isLocalVarDecl()) ||
      VD->getType()->isReferenceType() || VD->getType().isVolatileQualified() ||
      VD->hasAttr<CUDASharedAttr>() || VD->isStaticLocal())
    return;
  const FunctionDecl *FD = functionOf(*BO);
  if (!FD || !isDeviceCode(FD) || isInInstantiation(FD) || !FD->getBody())
    return;
  // The outermost loop around the division in which the variable is not
  // changed and which the variable's declaration precedes.
  const Stmt *Best = nullptr;
  const Stmt *Cur = BO;
  const SourceManager &SM = C.getSourceManager();
  while (const Stmt *L = enclosingLoop(C, *Cur)) {
    if (!SM.isBeforeInTranslationUnit(VD->getEndLoc(), L->getBeginLoc()))
      break;
    ExprMutationAnalyzer EMA(*L, C);
    if (EMA.isMutated(VD))
      break;
    Best = L;
    Cur = L;
  }
  if (!Best || retryLoop(enclosingLoop(C, *BO)))
    return;
  // A dividend that does not change in the loop either: the whole
  // division is loop-invariant and nvcc computes it once before the loop
  // (`x > -1.f / c` in a rejection loop: div.rn.f32 before the loop).
  {
    bool HasVar = false;
    if (isLoopInvariant(BO->getLHS(), varsChangedIn(Best), HasVar))
      return;
  }
  if (inSwitchWithin(C, BO, Best))
    return;
  for (Group &G : Groups)
    if (G.Loop == Best && G.Var == VD) {
      G.Divs.push_back(BO);
      return;
    }
  Groups.push_back({Best, VD, FD, {BO}});
}

/// Measured on an H200 (utils/bench/divmod/fdiv-sweep.cu, docs/gpu-runs/
/// 2026-12-05-session33): unlike integer divisions, an IEEE division by an
/// invariant is not free in a streaming loop. One per streamed float (8
/// bytes in and out) takes 1.14x the copy's time, one per 4 bytes read
/// 1.47x; one double division per 16 bytes 1.10x. The cost falls with the
/// bytes per division: at 32 bytes per float division (48 per double) it is
/// about 3%, which the loop's memory traffic hides. True when every
/// division of \p Divs sits in an innermost loop that moves that much
/// global memory per division.
static bool hiddenByMemory(const ASTContext &C,
                           ArrayRef<const BinaryOperator *> Divs, bool IsF) {
  std::map<const Stmt *, unsigned> PerLoop;
  for (const BinaryOperator *BO : Divs) {
    const Stmt *L = enclosingLoop(const_cast<ASTContext &>(C), *BO);
    if (!L || containsLoop(L))
      return false;
    ++PerLoop[L];
  }
  for (auto &KV : PerLoop)
    if (globalBytesPerIteration(C, KV.first) <
        uint64_t(KV.second) * (IsF ? 32 : 48))
      return false;
  return true;
}

void AlgebraicReciprocalHoist::checkTranslationUnit() {
  ASTContext &C = ctx();
  std::set<unsigned> Grouped;
  for (Group &G : Groups)
    for (const BinaryOperator *BO : G.Divs)
      Grouped.insert(sourceManager()
                         .getExpansionLoc(BO->getOperatorLoc())
                         .getRawEncoding());
  for (Group &G : Groups) {
    const BinaryOperator *First = G.Divs.front();
    if (!firstInUserCode(First->getOperatorLoc()))
      continue;
    std::string Var = G.Var->getName().str();
    bool IsF = isFloat(G.Var->getType());
    if (hiddenByMemory(C, G.Divs, IsF))
      continue;
    Finding F = makeFinding(
        C, id(), First->getOperatorLoc(),
        "division by loop-invariant '" + Var + "' inside a loop (" +
            std::to_string(G.Divs.size()) + " division" +
            (G.Divs.size() == 1 ? "" : "s") +
            "); a reciprocal computed once before the loop turns each into "
            "a multiply",
        G.FD);
    F.Notes.push_back(
        makeNote(C, G.Loop->getBeginLoc(),
                 "the loop in which '" + Var + "' does not change"));
    std::string Why;
    auto Indent = lineIndent(ctx(), G.Loop->getBeginLoc());
    auto Parents = C.getParents(*G.Loop);
    bool InBlock = !Parents.empty() && Parents[0].get<CompoundStmt>();
    if (!Indent || !InBlock || G.Loop->getBeginLoc().isMacroID()) {
      F.WhyNoFix = "the loop does not start its own line in a { } block, "
                   "so the reciprocal cannot be declared before it";
      report(std::move(F));
      continue;
    }
    std::string Name = freshName(C, context(), G.FD, "inv_" + Var);
    FixIt X;
    X.Description = "compute 1/" + Var + " once before the loop";
    X.Exact = Exactness::Ulp;
    X.Ulp = 2;
    std::string Type = spelledType(C, G.Var);
    X.Edits.push_back(makeInsertion(C, G.Loop->getBeginLoc(),
                                    "const " + Type + " " + Name + " = " +
                                        (IsF ? "1.0f" : "1.0") + " / " + Var +
                                        ";\n" + *Indent));
    bool Ok = true;
    for (const BinaryOperator *BO : G.Divs) {
      auto R =
          editableRange(C,
                        CharSourceRange::getTokenRange(
                            BO->getOperatorLoc(), BO->getRHS()->getEndLoc()),
                        Why);
      if (!R) {
        Ok = false;
        break;
      }
      X.Edits.push_back(makeTextEdit(C, *R, "* " + Name));
    }
    if (!Ok)
      F.WhyNoFix = Why;
    else
      F.Fix = std::move(X);
    report(std::move(F));
  }
  Groups.clear();
  reportOtherInvariantDivisions(Grouped);
}


void AlgebraicReciprocalHoist::reportOtherInvariantDivisions(
    const std::set<unsigned> &Grouped) {
  ASTContext &Ctx = ctx();
  std::map<const Stmt *, std::set<const VarDecl *>> ChangedCache;
  // Integer divisions, per innermost loop (keyed by its place in the
  // source: template instantiations share it).
  struct IntGroup {
    std::vector<const Stmt *> Loops; // one per template instantiation
    const FunctionDecl *FD;
    std::vector<const BinaryOperator *> Divs;
    std::set<std::pair<unsigned, unsigned>> Locs;
  };
  std::map<unsigned, IntGroup> IntGroups;
  std::vector<unsigned> IntOrder;
  forEachDeviceStmt(
      Ctx, context(),
      [&](const Stmt *S, const FunctionDecl *FD, ArrayRef<const Stmt *> Loops) {
        const auto *BO = dyn_cast<BinaryOperator>(S);
        if (!BO || Loops.empty())
          return;
        BinaryOperatorKind Op = BO->getOpcode();
        if (Op != BO_Div && Op != BO_Rem && Op != BO_DivAssign &&
            Op != BO_RemAssign)
          return;
        const Expr *RHS = BO->getRHS();
        if (!RHS->isValueDependent()) {
          Expr::EvalResult R;
          if (RHS->EvaluateAsRValue(R, Ctx))
            return; // a constant divisor
        }
        const Stmt *Loop = Loops.back();
        if (retryLoop(Loop))
          return;
        // Only where the division is in an innermost loop: in a loop that
        // holds another (a tile loop around its k loop, a row loop around
        // its column loop) it runs once per inner loop's iterations, and
        // its cost is not where the time goes. Nor where the loop calls a
        // function that loops.
        if (containsLoop(Loop) || callsLoopingFunction(Loop))
          return;
        auto It = ChangedCache.find(Loop);
        if (It == ChangedCache.end())
          It = ChangedCache.emplace(Loop, varsChangedIn(Loop)).first;
        bool HasVar = false;
        if (!isLoopInvariant(RHS, It->second, HasVar) || !HasVar)
          return;
        // If the dividend is invariant too, the whole division is hoisted.
        bool LHSVar = false;
        if (isLoopInvariant(BO->getLHS(), It->second, LHSVar) ||
            inSwitchWithin(Ctx, BO, Loop))
          return;
        SourceLocation OpLoc = BO->getOperatorLoc();
        if (Grouped.count(
                sourceManager().getExpansionLoc(OpLoc).getRawEncoding()))
          return;
        QualType T = BO->getType();
        std::string D = divisorText(Ctx, RHS);
        if (T->isIntegerType()) {
          // Grouped per loop; the divisions of one macro expansion are told
          // apart by their spelling, instantiations share them.
          if (!isUserCode(OpLoc))
            return;
          const SourceManager &SM = sourceManager();
          unsigned Key = SM.getExpansionLoc(Loop->getBeginLoc()).getRawEncoding();
          auto [G, New] = IntGroups.try_emplace(Key, IntGroup{{}, FD, {}, {}});
          if (New)
            IntOrder.push_back(Key);
          if (!llvm::is_contained(G->second.Loops, Loop))
            G->second.Loops.push_back(Loop);
          if (G->second.Locs
                  .insert({SM.getExpansionLoc(OpLoc).getRawEncoding(),
                           SM.getSpellingLoc(OpLoc).getRawEncoding()})
                  .second)
            G->second.Divs.push_back(BO);
          return;
        }
        if (!firstInUserCode(OpLoc))
          return;
        if (!T->isRealFloatingType() || hiddenByMemory(Ctx, {BO}, isFloat(T)))
          return;
        std::string Msg =
            "floating-point division by the loop-invariant '" + D +
            "' on every iteration (about 8 instructions plus a slow-path "
            "check each): compute 'inv = " +
            std::string(isFloat(T) ? "1.0f" : "1.0") + " / (" + D +
            ")' once before the loop and multiply (results may differ by "
            "up to 2 ulp)";
        std::string Why =
            "only '/' by a variable of the division's type, declared before "
            "the loop, gets a hoisted reciprocal";
        Finding F =
            makeFinding(Ctx, id(), OpLoc, Msg, FD, BO->getSourceRange());
        note(F, Loop->getBeginLoc(),
             "'" + D + "' does not change in this loop");
        reportWithoutFix(std::move(F), Why);
      });
  const SourceManager &SM = sourceManager();
  for (unsigned Key : IntOrder) {
    IntGroup &G = IntGroups[Key];
    // In source order (the walk visits operands first).
    llvm::stable_sort(G.Divs, [&](const BinaryOperator *A,
                                  const BinaryOperator *B) {
      return SM.isBeforeInTranslationUnit(
          SM.getExpansionLoc(A->getOperatorLoc()),
          SM.getExpansionLoc(B->getOperatorLoc()));
    });
    if (!firstInUserCode(G.Divs.front()->getOperatorLoc()))
      continue;
    reportIntegerDivisions(G.Loops, G.FD, G.Divs);
  }
}

void AlgebraicReciprocalHoist::reportIntegerDivisions(
    ArrayRef<const Stmt *> Loops, const FunctionDecl *FD,
    ArrayRef<const BinaryOperator *> Divs) {
  const Stmt *Loop = Loops.front();
  ASTContext &Ctx = ctx();
  // nvcc computes x / d and x % d of the same operands once; ptxas hoists
  // the divisor's reciprocal out of the loop, but each division keeps
  // about a dozen instructions (multiply-high, correction steps, signs).
  // A 64-bit division counts as 2 (measured with 64-bit indices: one per
  // streamed float 1.07x the copy's time, two 1.27x, as three 32-bit ones).
  std::set<std::string> Distinct;
  unsigned Weight = 0;
  std::map<std::string, unsigned> PerDivisor;
  std::vector<std::string> DivisorOrder;
  for (const BinaryOperator *BO : Divs) {
    std::string D = oneLineText(Ctx, BO->getRHS()->getSourceRange());
    std::string Key = oneLineText(Ctx, BO->getLHS()->getSourceRange()) +
                      " / " + D;
    // In a macro the texts may not tell the divisions apart: its spelling
    // does.
    if (BO->getOperatorLoc().isMacroID() || D.empty())
      Key += "@" + std::to_string(Ctx.getSourceManager()
                                      .getSpellingLoc(BO->getOperatorLoc())
                                      .getRawEncoding());
    if (D.empty())
      D = "a macro's operand";
    if (!Distinct.insert(Key).second)
      continue;
    Weight += Ctx.getTypeSize(BO->getType()) > 32 ? 2 : 1;
    if (PerDivisor[D]++ == 0)
      DivisorOrder.push_back(D);
  }
  // The instantiation that moves the fewest bytes (a template over float
  // and double: the float one decides).
  uint64_t Bytes = UINT64_MAX;
  for (const Stmt *L : Loops)
    Bytes = std::min(Bytes, globalBytesPerIteration(Ctx, L));
  // Measured on an H200 (utils/bench/divmod/divmod-sweep.cu): a grid-stride
  // loop streaming 8 or 16 bytes per element hides up to one division per
  // 4 bytes (float: 2 per element 1.02x the copy's time, 3 1.26x; double:
  // 3 1.01x, 4 1.10x, 6 1.50x).
  if (Bytes > 0 && static_cast<uint64_t>(Weight) * 4 <= Bytes)
    return;
  std::string List;
  for (const std::string &D : DivisorOrder) {
    List += (List.empty() ? "'" : ", '") + D + "'";
    if (PerDivisor[D] > 1)
      List += " " + std::to_string(PerDivisor[D]) + " times";
  }
  unsigned N = static_cast<unsigned>(Distinct.size());
  std::string Msg =
      std::to_string(N) + " integer division" + (N == 1 ? "" : "s") +
      " or modulo" + (N == 1 ? "" : "s") + " by loop-invariant run-time " +
      "values on every iteration (by " + List + "), ";
  if (Bytes == 0)
    Msg += "in a loop that moves no global memory: ";
  else
    Msg += "against " + std::to_string(Bytes) +
           " bytes of global memory per iteration, more than the one per 4 "
           "bytes a memory-bound loop hides: ";
  Msg += "each costs about a dozen instructions (nvcc hoists only the "
         "divisor's reciprocal); compute a divider once before the loop (a "
         "multiply-high by a magic number, exact for non-negative 32-bit "
         "values) or step a second counter";
  Finding F = makeFinding(Ctx, id(), Divs.front()->getOperatorLoc(), Msg, FD,
                          Divs.front()->getSourceRange());
  note(F, Loop->getBeginLoc(), "the loop in which the divisors do not change");
  for (size_t I = 1; I < Divs.size(); ++I)
    note(F, Divs[I]->getOperatorLoc(), "also divides here");
  reportWithoutFix(std::move(F),
                   "the tool has no rewrite for integer division by a "
                   "run-time value yet");
}

} // namespace cudal1
