//===- UnrollingConstantTrip.cpp - unrolling-constant-trip ----------------===//
//
// unrolling-constant-trip: an innermost loop whose trip count is a
// compile-time constant (or a template argument) and has no #pragma unroll
// gets one (bitwise: unrolling changes no result). When the loop indexes a
// local array with its induction variable, the finding says that the array
// lives in local memory unless the loop is unrolled fully. Such loops that
// the fix cannot annotate are reported without a fix (this rule took over
// unrolling-constant-trip-count).
//
//===----------------------------------------------------------------------===//
#include "UnrollingConstantTrip.h"
#include "UnrollPragma.h"
#include "../CallTree.h"
#include "../CompiledKernel.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"

#include <functional>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace cudal1 {

namespace {

/// A subscript of a local (register-candidate) array by \p IV in \p S.
const ArraySubscriptExpr *localArrayIndexedBy(const Stmt *S,
                                              const VarDecl *IV) {
  if (!S)
    return nullptr;
  if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(S)) {
    const Expr *B = ASE->getBase()->IgnoreParenImpCasts();
    while (const auto *In = dyn_cast<ArraySubscriptExpr>(B))
      B = In->getBase()->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(B))
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        if (V->hasLocalStorage() &&
            (V->getType()->isConstantArrayType() ||
             V->getType()->isDependentSizedArrayType())) { // l[R * R]
          std::function<bool(const Stmt *)> Mentions = [&](const Stmt *X) {
            if (!X)
              return false;
            if (const auto *R = dyn_cast<DeclRefExpr>(X))
              if (R->getDecl() == IV)
                return true;
            for (const Stmt *C : X->children())
              if (Mentions(C))
                return true;
            return false;
          };
          if (Mentions(ASE->getIdx()))
            return ASE;
        }
  }
  for (const Stmt *C : S->children())
    if (const ArraySubscriptExpr *R = localArrayIndexedBy(C, IV))
      return R;
  return nullptr;
}

/// The note on a local array \p Local that the loop indexes by its
/// induction variable.
std::string localArrayNote(const ASTContext &Ctx,
                           const ArraySubscriptExpr *Local) {
  std::string Arr = oneLineText(Ctx, Local->getBase()->getSourceRange());
  return "the loop indexes the local array '" + Arr +
         "' with its induction variable: unless it is unrolled fully, '" + Arr +
         "' lives in local memory (off-chip, cached in L1) instead of "
         "registers";
}

/// The functions instantiated from template pattern \p FD in this file:
/// the specializations of its function template, or the member functions
/// of its class template's specializations.
std::vector<const FunctionDecl *> instancesOf(const FunctionDecl *FD) {
  std::vector<const FunctionDecl *> Out;
  if (!FD)
    return Out;
  if (const FunctionTemplateDecl *FT = FD->getDescribedFunctionTemplate()) {
    for (const FunctionDecl *Spec : FT->specializations())
      Out.push_back(Spec);
    return Out;
  }
  const auto *M = dyn_cast<CXXMethodDecl>(FD);
  const ClassTemplateDecl *CT =
      M ? M->getParent()->getDescribedClassTemplate() : nullptr;
  if (!CT)
    return Out;
  for (const ClassTemplateSpecializationDecl *Spec : CT->specializations())
    for (const Decl *D : Spec->decls())
      if (const auto *X = dyn_cast<CXXMethodDecl>(D))
        if (X->getInstantiatedFromMemberFunction() == FD && X->hasBody())
          Out.push_back(X);
  return Out;
}

/// The largest trip count loop \p For of template pattern \p FD has in
/// the instantiations of this file (the loop at the same place in each);
/// std::nullopt when it has none or one is not a constant.
std::optional<int64_t> largestInstanceTrip(ASTContext &C,
                                           const FunctionDecl *FD,
                                           const ForStmt *For) {
  std::optional<int64_t> Max;
  for (const FunctionDecl *Inst : instancesOf(FD)) {
    // Declared only (`extern template`, named in decltype) or written by
    // the user (an explicit specialization: another body): no such loop.
    if (!Inst->hasBody() || !Inst->isTemplateInstantiation())
      continue;
    std::optional<int64_t> T;
    bool Found = false;
    forEachStmt(Inst->getBody(), [&](const Stmt *S) {
      const auto *F = dyn_cast<ForStmt>(S);
      if (Found || !F || F->getBeginLoc() != For->getBeginLoc())
        return;
      Found = true;
      if (auto Sh = analyzeFor(C, F))
        if (auto I = evalInt(C, Sh->Init))
          if (auto B = evalInt(C, Sh->Bound))
            T = tripCount(*I, *B, Sh->Cmp, Sh->Step);
    });
    if (!Found)
      continue;
    if (!T)
      return std::nullopt;
    Max = Max ? std::max(*Max, *T) : *T;
  }
  return Max;
}

} // namespace

std::optional<bool>
UnrollingConstantTrip::pragmaChangesCode(const FunctionDecl *FD,
                                         const Stmt *Loop) {
  if (!FD || !Loop || !optionBool("CompareCode", true))
    return std::nullopt;
  return cudal1::pragmaChangesCode(ctx(), context(),
                                   kernelHolding(analyzedKernels(), FD), FD,
                                   Loop, "unroll");
}

RuleInfo UnrollingConstantTrip::info() const {
  RuleInfo I;
  I.Id = "unrolling-constant-trip";
  I.Category = "unrolling";
  I.Summary = "innermost loop with a compile-time trip count is not "
              "unrolled; add #pragma unroll";
  I.Exactness = Exactness::Bitwise;
  I.Help = "A loop whose trip count is a constant (or a template argument) "
           "can be fully unrolled: no counter, no branch, loads from "
           "different iterations can be issued together, and local arrays "
           "indexed by the induction variable stay in registers instead of "
           "local memory. The pragma changes no result. Loops with more "
           "than MaxTripCount iterations are left alone (code size), and so are "
           "loops small enough for nvcc to unroll by itself "
           "(CompilerUnrollSize) and loops whose machine code the pragma "
           "does not change (the kernel compiled by NVRTC with and without "
           "it; option CompareCode).";
  I.DefaultOptions["MaxTripCount"] = "64";
  I.DefaultOptions["CompilerUnrollSize"] = "800";
  I.DefaultOptions["MaxBodySize"] = "300";
  I.DefaultOptions["CompareCode"] = "true";
  I.DefaultOptions["MaxCompiledCopyBytes"] = "2048";
  I.Doc.Detects =
      "An innermost `for` loop in device code with a constant trip count "
      "(2..MaxTripCount, default 64) or a bound that is a template "
      "argument, without a `#pragma unroll`, whose counter the body does "
      "not change, and that is too large for nvcc to unroll by itself: the "
      "trip count (in a template, the largest among the loop's "
      "instantiations in the file, members of class templates included; a "
      "template the file does not instantiate is reported only when the "
      "loop indexes a local array) times the body's code size (its expression and statement "
      "nodes, the user's device functions it calls counted inlined) is over "
      "CompilerUnrollSize (default 800; twice that when the loop indexes a "
      "local array). Below that, nvcc 13 at -O3 unrolls the loop fully "
      "unasked and the pragma changes no instruction (measured by comparing "
      "the SASS with and without it, `utils/sass-oracle.py`).\n"
      "\n"
      "Then the kernel is compiled, as launch-bounds does: extracted with "
      "its context (as `--extract` does; for a loop in a device function, "
      "a kernel of the file that calls it) and compiled by NVRTC for the "
      "`--cuda-gpu-arch` target, once as it is and once with the pragma "
      "(`_Pragma(\"unroll\")`, so no line moves). When the code sections and "
      "register counts of the CUBIN are the same, nvcc already unrolls the "
      "loop (or cannot), and the loop is not reported: on HeCBench, kalman's "
      "copies into local arrays of `rd * rd` doubles were reported by the "
      "size estimate alone, and their machine code is the same with and "
      "without the pragma. When the comparison cannot be made (NVRTC "
      "missing, the kernel not extractable or not compilable, a template "
      "the file does not instantiate, a loop from a macro), the estimate "
      "alone decides. When the code differs, the kernel is compiled once "
      "more with `#pragma unroll 1`: from the code sizes with one copy of "
      "the body, as it is and fully unrolled, the copies the compiler makes "
      "by itself are estimated, and a loop it unrolls by 4 or more (4 "
      "copies of the body; mpc's 64 bit-plane gathers, unrolled by 16; "
      "match's and resnet's dot products) is not reported: the loads of "
      "several iterations already overlap, and the pragma saves one branch "
      "in 4 or more. Unless the loop indexes a local array, which needs "
      "the full unrolling. NVRTC unrolls less than nvcc (the same 64-trip "
      "shift-and-mask loop: NVRTC by 16, nvcc 13 fully), so what NVRTC "
      "unrolls nvcc unrolls too. Not reported either, local array or not, "
      "when the code as it is is no larger than the fully unrolled one "
      "(the compiler unrolled the loop fully in another order: "
      "bspline-vgh's 4 x 4 products, the same bytes but not the same "
      "code); nor, without a local array, when one copy of the body is "
      "MaxCompiledCopyBytes (default 2048, 128 instructions) or more of "
      "machine code: the counter and branch the pragma removes are a few "
      "instructions of that (lci's 63 sums of a chain of calls, 3.3 KB a "
      "copy, which nvcc 13 leaves rolled and the pragma makes 230 KB of "
      "code). The option CompareCode (default true) "
      "turns the comparisons off. They cost up to three NVRTC compilations "
      "per loop the estimate reports (about a second each), kept for the "
      "session.\n"
      "\n"
      "Not reported when full unrolling has nothing to gain, unless the "
      "loop indexes a local array with its counter (which stays in "
      "registers only when unrolled): a barrier in "
      "the body or in a function it calls, a `switch` or an exit "
      "(`return`, `break`, `goto`: every unrolled copy keeps its compare "
      "and branch; gerbil's lexicographic key compare) in the body, or a "
      "body of more than MaxBodySize nodes (default 300, callees counted "
      "inlined; long chains of heavy calls: "
      "copies of code and registers, no loads to overlap; HeCBench's "
      "secp256k1 field squarings, and sw4ck, whose pragmas make ptxas spill "
      "1180 bytes). The threshold keeps 12 of the 14 findings read as right "
      "on HeCBench and drops 21 of the 27 read as wrong.\n"
      "\n"
      "When the loop indexes a local array with its induction variable, a "
      "note says that the array lives in local memory unless the loop is "
      "unrolled fully; such loops that are not counted `for` loops are "
      "reported without a fix (this rule took over "
      "`unrolling-constant-trip-count`).";
  I.Doc.WhySlow =
      "Full unrolling removes the counter, compare and branch, and lets "
      "the loads of different iterations be issued together.";
  I.Doc.Example = R"cuda(for (int j = 0; j < 8; ++j)
  acc += in[base + j];)cuda";
  I.Doc.Fixed = R"cuda(#pragma unroll
for (int j = 0; j < 8; ++j)
  acc += in[base + j];)cuda";
  I.Doc.Fix =
      "Inserts `#pragma unroll` on its own line. No fix when the loop does "
      "not start its own line in a `{ }` block or comes from a macro.";
  return I;
}

void UnrollingConstantTrip::registerMatchers(MatchFinder &F) {
  F.addMatcher(forStmt().bind("for"), this);
}

void UnrollingConstantTrip::check(const MatchFinder::MatchResult &R) {
  const auto *For = R.Nodes.getNodeAs<ForStmt>("for");
  const FunctionDecl *FD = nullptr;
  ASTContext &C = ctx();
  std::optional<LoopShape> S = For ? unrollCandidate(C, For, FD) : std::nullopt;
  if (!S)
    return;
  auto Init = evalInt(C, S->Init);
  auto Bound = evalInt(C, S->Bound);
  std::string TripText;
  std::optional<int64_t> Trip;
  if (Init && Bound) {
    auto T = tripCount(*Init, *Bound, S->Cmp, S->Step);
    if (!T || *T < 2 || *T > optionInt("MaxTripCount", 64))
      return;
    TripText = std::to_string(*T);
    Trip = T;
  } else if (Init && S->Bound->isValueDependent() &&
             !S->Bound->isTypeDependent() && (S->Step == 1 || S->Step == -1)) {
    // Bounded by a template argument: a constant in every instantiation.
    const auto *BD = dyn_cast<DeclRefExpr>(S->Bound->IgnoreParenImpCasts());
    TripText = "'" + sourceText(C, S->Bound->getSourceRange()) + "' (" +
               (BD && isa<NonTypeTemplateParmDecl>(BD->getDecl())
                    ? "a template argument"
                    : "computed from template arguments") +
               ")";
    Trip = largestInstanceTrip(C, FD, For);
    if (Trip && (*Trip < 2 || *Trip > optionInt("MaxTripCount", 64)))
      return; // as for a literal bound: too long to unroll fully
  } else {
    return;
  }
  // nvcc unrolls a small loop fully by itself: the pragma would change
  // no instruction.
  const ArraySubscriptExpr *Local = localArrayIndexedBy(For, S->IV);
  if (Trip && compilerUnrolls(*Trip, For->getBody(), Local))
    return;
  // A template this file does not instantiate: its trip count is unknown,
  // and nvcc unrolls a small one by itself; reported only when a local
  // array stays in local memory unless the loop is unrolled.
  if (!Trip && !Local)
    return;
  // Nothing for full unrolling to gain: a barrier or a switch in every
  // iteration, or a large body (heavy calls in a chain: copies of code
  // and registers, no loads to overlap).
  if (nothingToGain(For->getBody(), Local))
    return;
  if (!firstInUserCode(For->getBeginLoc()))
    return;
  // Compiled with and without the pragma: nvcc unrolls more than the size
  // estimate says (or cannot unroll at all), and then the pragma changes
  // no instruction.
  if (std::optional<bool> Changes = pragmaChangesCode(FD, For);
      Changes && !*Changes)
    return;
  // The code with one copy of the body, as it is and fully unrolled:
  // - the code as it is holds (about) Trip copies: the compiler unrolled
  //   it fully, in another order than the pragma makes it (bspline-vgh's
  //   4 x 4 products: the same bytes, not the same code);
  // - 4 copies or more, unless a local array needs the full unrolling: the
  //   loads of 4 iterations already overlap, and the pragma saves one
  //   branch per 4. NVRTC's inliner and unroller are nvcc's with a lower
  //   full-unroll threshold, so nvcc unrolls at least as much;
  // - one copy of MaxCompiledCopyBytes or more, unless a local array needs
  //   the full unrolling: a counter and a branch are a few instructions
  //   of that (lci's 63 sums of a call chain, 3.3 KB a copy).
  if (Trip && optionBool("CompareCode", true))
    if (std::optional<UnrollCodeSizes> Sz = unrollCodeSizes(
            C, context(), kernelHolding(analyzedKernels(), FD), FD, For,
            *Trip)) {
      std::optional<double> Copies = Sz->copies();
      std::optional<double> CopyBytes = Sz->copyBytes();
      if (Copies && *Copies >= double(*Trip) - 0.5)
        return;
      if (!Local && Copies && *Copies >= 3.5)
        return;
      if (!Local && CopyBytes &&
          *CopyBytes >= double(optionInt("MaxCompiledCopyBytes", 2048)))
        return;
    }
  Finding F = makeFinding(C, id(), For->getBeginLoc(),
                          "loop with constant trip count " + TripText +
                              " is not unrolled; '#pragma unroll' removes "
                              "the counter and branch and lets loads of "
                              "different iterations overlap",
                          FD);
  if (Local)
    note(F, Local->getExprLoc(), localArrayNote(C, Local));
  FixIt X;
  std::string Why;
  bool Ok = pragmaFix(C, For, "#pragma unroll", X, Why);
  reportFixOr(std::move(F), Ok, std::move(X), Why);
}

bool UnrollingConstantTrip::nothingToGain(const Stmt *Body,
                                          bool LocalArray) {
  // In the body or in a function it calls (three calls deep).
  auto Barrier = [](const Stmt *S) {
    auto In = [](const Stmt *X) {
      return containsCallTo(X, {"__syncthreads", "__syncthreads_count",
                                "__syncthreads_and", "__syncthreads_or",
                                "__syncwarp"});
    };
    return In(S) || anyCalledDefinition(S, 3, [&](const FunctionDecl *Def) {
             return In(Def->getBody());
           });
  };
  // A local array indexed by the counter stays in registers only when
  // the loop is unrolled: worth it whatever the body holds.
  if (LocalArray)
    return false;
  // A switch, or an exit in the middle (`if (a[i] < b[i]) return true;`, a
  // lexicographic compare that usually leaves at the first word): every
  // unrolled copy keeps its compare and branch, only the counter goes.
  bool Switch = false;
  forEachStmt(Body, [&](const Stmt *S) {
    Switch |= isa<SwitchStmt>(S) || isa<ReturnStmt>(S) || isa<GotoStmt>(S) ||
              isa<BreakStmt>(S);
  });
  return Switch || Barrier(Body) ||
         (int64_t)codeSize(Body) > optionInt("MaxBodySize", 300);
}

bool UnrollingConstantTrip::compilerUnrolls(int64_t Trip, const Stmt *Body,
                                            bool LocalArray) {
  // Unrolling that keeps a local array in registers is worth twice the
  // code to nvcc (measured: 8 trips of 8 products into a local array stay
  // rolled, 4 are unrolled; without the array, 5 are unrolled).
  int64_t Limit = optionInt("CompilerUnrollSize", 800) * (LocalArray ? 2 : 1);
  return Trip * (int64_t)codeSize(Body) <= Limit;
}

void UnrollingConstantTrip::checkTranslationUnit() {
  int64_t Max = optionInt("MaxTripCount", 64);
  for (const KernelAnalysis *K : analyzedKernels())
    for (const auto &L : K->Loops) {
      if (L->Trip != TripKind::Constant || !L->TripCount || *L->TripCount < 2 ||
          *L->TripCount > Max || L->HasUnrollPragma || L->Geometric || !L->IV)
        continue;
      bool Inner = true;
      for (const auto &O : K->Loops)
        if (O->Parent == L.get())
          Inner = false;
      const ArraySubscriptExpr *Local =
          Inner ? localArrayIndexedBy(L->S, L->IV) : nullptr;
      if (!Local || !firstInUserCode(L->S->getBeginLoc()) ||
          compilerUnrolls(*L->TripCount, loopBody(L->S), true))
        continue;
      // A counter the body changes (`int &r = c ? i : j; r += 1;` in an
      // instantiation): not a counted loop, whatever its header says.
      if (const Stmt *B = loopBody(L->S)) {
        ExprMutationAnalyzer EMA(*B, ctx());
        if (EMA.isMutated(L->IV))
          continue;
      }
      if (std::optional<bool> Changes = pragmaChangesCode(
              enclosingFunction(ctx(), DynTypedNode::create(*L->S)), L->S);
          Changes && !*Changes)
        continue;
      Finding F = makeFinding(ctx(), id(), L->S->getBeginLoc(),
                              "loop with constant trip count " + L->TripText +
                                  " is not unrolled; '#pragma unroll' "
                                  "removes the counter and branch and lets "
                                  "loads of different iterations overlap",
                              K->Kernel);
      note(F, Local->getExprLoc(), localArrayNote(ctx(), Local));
      reportWithoutFix(std::move(F),
                       "only counted for loops of the form 'for (i = a; i < "
                       "b; i += c)' get the pragma");
    }
}

} // namespace cudal1
