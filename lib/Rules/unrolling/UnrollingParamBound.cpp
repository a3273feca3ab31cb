//===- UnrollingParamBound.cpp - unrolling-param-bound --------------------===//
//
// unrolling-param-bound: a small innermost loop bounded by an unchanged
// parameter gets '#pragma unroll N' (the compiler keeps a remainder loop:
// any trip count, same results). When the loop is nested in another loop of
// a kernel and every launch the model evaluates passes the same small value
// for the bound, the loop is specialised instead: `if (n == V) { <the loop
// with bound V> } else { <the loop as written> }`. The compiler then unrolls
// the copy fully, unswitches the outer loop on the test, and keeps the loads
// the outer loop repeats (a row walked once per centroid, per candidate...)
// in registers. Other values run the loop as written: bitwise either way.
//
//===----------------------------------------------------------------------===//
#include "UnrollingParamBound.h"
#include "UnrollPragma.h"
#include "../CompiledKernel.h"
#include "../LaunchConstants.h"

#include "cudal1/Rules/RuleSupport.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace cudal1 {

RuleInfo UnrollingParamBound::info() const {
  RuleInfo I;
  I.Id = "unrolling-param-bound";
  I.Category = "unrolling";
  I.Summary = "small innermost loop bounded by a parameter; add "
              "#pragma unroll N";
  I.Exactness = Exactness::Bitwise;
  I.Help = "A short loop body bounded by a kernel parameter runs its "
           "counter, compare and branch every iteration; partial unrolling "
           "by Factor (default 4) amortises them and lets loads overlap. "
           "The compiler keeps a remainder loop, so any trip count is "
           "handled and results are unchanged.";
  I.DefaultOptions["Factor"] = "4";
  I.DefaultOptions["MaxBodyStatements"] = "8";
  I.DefaultOptions["SpecializeMax"] = "64";
  I.DefaultOptions["CompilerUnrollSize"] = "480";
  I.DefaultOptions["CompareCode"] = "true";
  I.Doc.Detects =
      "A small (at most MaxBodyStatements, default 8) innermost loop in "
      "device code bounded by a parameter that is never changed (or a "
      "local copy of one), step 1, with no barrier in its body. Every "
      "statement counts, expression statements too (an assignment, a "
      "call). The `#pragma unroll Factor` form is offered only when "
      "Factor copies of the body are more code than nvcc unrolls by "
      "itself: Factor times the body's size (its expression and statement "
      "nodes, the user's device functions counted inlined; a libdevice call "
      "as 100, expf and the other float exponentials and logarithms as "
      "30, sqrtf, fabsf, fminf, the approximate intrinsics such as __sinf "
      "and the like as 1) over CompilerUnrollSize "
      "(default 480). Measured with nvcc 13 at -O3 on generated loops of "
      "products, loads, stores, branches, doubles, expf, sqrtf and 2-D "
      "indices: up to about 80 nodes nvcc unrolls a loop with a runtime "
      "trip count 4 times or more by itself (the same SASS with the "
      "pragma, or more unrolling without it); from 80 to 120 nodes it "
      "unrolls it 4 or 2 times, depending on the body; above, 2 times or "
      "not at all. So the rule is silent where nvcc already unrolls as "
      "much, and also in that middle band. The specialised form below "
      "does not depend on the size.\n"
      "\n"
      "Then either form is compiled: the kernel is extracted with its "
      "context (as `--extract` does; for a loop in a device function, a "
      "kernel of the file that calls it) and compiled by NVRTC for the "
      "`--cuda-gpu-arch` target as it is and with the fix (the pragma as "
      "`_Pragma(\"unroll 4\")`, or the specialised copy). When the code "
      "sections and register counts are the same, the fix gains nothing "
      "and the loop is not reported (on HeCBench, atomicSystemWide's loop "
      "of system-wide atomics: nvcc's code is the same with the pragma). "
      "When the comparison "
      "cannot be made (NVRTC missing, the kernel not extractable or "
      "compilable), the conditions above alone decide. The option "
      "CompareCode (default true) turns it off.";
  I.Doc.WhySlow =
      "Each iteration pays for counter, compare and branch; partial "
      "unrolling amortises them and overlaps loads.";
  I.Doc.Example = R"cuda(for (int j = 0; j < k; ++j) {
  acc += in[j];
})cuda";
  I.Doc.Fixed = R"cuda(#pragma unroll 4
for (int j = 0; j < k; ++j) {
  acc += in[j];
})cuda";
  I.Doc.Fix =
      "Inserts `#pragma unroll Factor` (option, default 4). The compiler "
      "keeps a remainder loop, so every trip count stays correct.\n\n"
      "When the loop is nested in another loop of a kernel, the bound is "
      "a parameter of that kernel (or a local copy of one), and every "
      "launch the tool evaluates in the file passes the same value V "
      "(2 <= V <= SpecializeMax, default 64; 0 turns this off), the loop "
      "is specialised instead: `if (n == V) { <the loop with bound V> } "
      "else { <the loop as written> }`. With a constant trip count the "
      "compiler unrolls the copy fully, moves the test out of the "
      "enclosing loop, and keeps in registers the loads that the "
      "enclosing loop repeats (k-means' assignment loads a point's "
      "coordinates once instead of once per centroid). Any other "
      "value runs the loop as written, so the fix is exact for every "
      "launch, also ones the tool did not see. Not when the loop comes "
      "from a macro or holds a label, a `__shared__` declaration or a "
      "static local.";
  return I;
}

namespace {

/// \p For lies in another loop of \p FD.
bool nestedInLoop(ASTContext &C, const ForStmt *For, const FunctionDecl *FD) {
  DynTypedNode N = DynTypedNode::create(*For);
  for (unsigned Depth = 0; Depth < 64; ++Depth) {
    auto P = C.getParents(N);
    if (P.empty())
      return false;
    N = P[0];
    if (const auto *S = N.get<Stmt>()) {
      if (isLoop(S))
        return true;
      if (S == FD->getBody())
        return false;
    } else if (N.get<Decl>()) {
      return false;
    }
  }
  return false;
}

/// Labels or __shared__ declarations in \p S: a copy of it would not
/// compile or would double the block's shared memory.
bool copyUnsafe(const Stmt *S) {
  if (!S)
    return false;
  if (isa<LabelStmt>(S))
    return true;
  if (const auto *DS = dyn_cast<DeclStmt>(S))
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D))
        if (V->hasAttr<CUDASharedAttr>() || V->isStaticLocal())
          return true;
  for (const Stmt *Ch : S->children())
    if (copyUnsafe(Ch))
      return true;
  return false;
}

/// \p For is the else branch of this rule's specialisation: the only
/// statement of the else block of `if (B == <integer>)`.
bool specialisedElse(ASTContext &C, const ForStmt *For, const VarDecl *B) {
  auto P = C.getParents(*For);
  const auto *Block = P.empty() ? nullptr : P[0].get<CompoundStmt>();
  if (!Block || Block->size() != 1)
    return false;
  auto PP = C.getParents(*Block);
  const auto *If = PP.empty() ? nullptr : PP[0].get<IfStmt>();
  if (!If || If->getElse() != Block)
    return false;
  const auto *Eq = dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
  return Eq && Eq->getOpcode() == BO_EQ && varOf(Eq->getLHS()) == B &&
         isa<IntegerLiteral>(Eq->getRHS()->IgnoreParenImpCasts());
}

} // namespace

void UnrollingParamBound::registerMatchers(MatchFinder &F) {
  F.addMatcher(forStmt().bind("for"), this);
}

void UnrollingParamBound::check(const MatchFinder::MatchResult &R) {
  const auto *For = R.Nodes.getNodeAs<ForStmt>("for");
  const FunctionDecl *FD = nullptr;
  ASTContext &C = ctx();
  std::optional<LoopShape> S = For ? unrollCandidate(C, For, FD) : std::nullopt;
  if (!S)
    return;
  if (S->Step != 1 && S->Step != -1)
    return;
  if (!evalInt(C, S->Init) || evalInt(C, S->Bound) ||
      S->Bound->isValueDependent())
    return;
  // The bound: a parameter (or a local copy of one) never changed.
  const VarDecl *B = varOf(S->Bound);
  if (!B || !FD->getBody())
    return;
  if (!isa<ParmVarDecl>(B)) {
    if (!B->isLocalVarDecl() || !B->getInit() || !varOf(B->getInit()) ||
        !isa<ParmVarDecl>(varOf(B->getInit())))
      return;
  }
  ExprMutationAnalyzer EMA(*FD->getBody(), C);
  if (EMA.isMutated(B))
    return;
  if (countStmts(For->getBody()) > unsigned(optionInt("MaxBodyStatements", 8)))
    return;
  // A barrier in the body: the iterations are phases of the block, not
  // small independent steps to overlap.
  if (containsCallTo(For->getBody(), {"__syncthreads*", "__syncwarp",
                                      "__barrier_sync"}))
    return;
  if (!firstInUserCode(For->getBeginLoc()))
    return;
  // The loop as written beside its specialised copy: done.
  if (specialisedElse(C, For, B))
    return;
  // Specialised for the one value every launch passes (see the header).
  const ParmVarDecl *Param = dyn_cast<ParmVarDecl>(B);
  if (!Param)
    Param = dyn_cast<ParmVarDecl>(varOf(B->getInit()));
  int64_t SpecMax = optionInt("SpecializeMax", 64);
  unsigned Sites = 0;
  std::optional<int64_t> V;
  if (SpecMax >= 2 && Param && FD->hasAttr<CUDAGlobalAttr>() &&
      Param->getDeclContext() == FD && nestedInLoop(C, For, FD) &&
      !inMacro(For->getSourceRange()) && !copyUnsafe(For->getBody()))
    V = launchConstant(context(), FD, Param, Sites);
  if (V && *V >= 2 && *V <= SpecMax) {
    const SourceManager &SM = C.getSourceManager();
    SourceLocation Begin = For->getBeginLoc(), End = stmtEnd(C, For);
    SourceLocation BB = S->Bound->getBeginLoc(),
                   BE = Lexer::getLocForEndOfToken(S->Bound->getEndLoc(), 0,
                                                   SM, C.getLangOpts());
    auto Indent = lineIndent(C, Begin);
    std::string Why;
    auto Range =
        editableRange(C, CharSourceRange::getCharRange(Begin, End), Why);
    if (Indent && Range && End.isValid() && BE.isValid() &&
        SM.getFileID(BB) == SM.getFileID(Begin)) {
      unsigned B0 = SM.getFileOffset(Begin), E0 = SM.getFileOffset(End),
               Bb = SM.getFileOffset(BB), Be = SM.getFileOffset(BE);
      StringRef Buf = SM.getBufferData(SM.getFileID(Begin));
      if (B0 <= Bb && Bb < Be && Be <= E0 && E0 <= Buf.size()) {
        std::string Loop = Buf.substr(B0, E0 - B0).str();
        // The value in the bound's own type (an unsigned bound keeps the
        // comparison unsigned: `d < 3u` with d = -1 runs as `d < r` does).
        QualType BT = B->getType().getCanonicalType();
        std::string Lit = std::to_string(*V);
        if (BT->isUnsignedIntegerType())
          Lit += C.getTypeSize(BT) > 32 ? "ull" : "u";
        else if (C.getTypeSize(BT) > 32)
          Lit += "ll";
        std::string Copy =
            Loop.substr(0, Bb - B0) + Lit + Loop.substr(Be - B0);
        std::string Name = B->getName().str(), Val = std::to_string(*V);
        std::string In = *Indent + "  ";
        std::string Text = "if (" + Name + " == " + Val + ") {\n" + In +
                           reindent(Copy, "  ") + "\n" + *Indent +
                           "} else {\n" + In + reindent(Loop, "  ") + "\n" +
                           *Indent + "}";
        Finding F = makeFinding(
            C, id(), For->getBeginLoc(),
            "small loop bounded by parameter '" + B->getName().str() +
                "' is compiled for any trip count, although every launch "
                "passes " + Param->getName().str() + " = " + Val +
                "; a copy of the loop for " + Val +
                " is unrolled fully, and the loads the enclosing loop "
                "repeats stay in registers",
            FD);
        F.Notes.push_back(makeNote(
            C, Param->getLocation(),
            "'" + Param->getName().str() + "' is " + Val + " at " +
                (Sites == 1 ? std::string("the launch")
                            : "all " + std::to_string(Sites) + " launches") +
                " in this file; other values run the loop as written"));
        FixIt X;
        X.Description = "specialise the loop for " + Name + " == " + Val;
        X.Exact = Exactness::Bitwise;
        X.Edits.push_back(makeTextEdit(C, *Range, Text));
        // The specialised copy compiled (NVRTC) beside the kernel as it
        // is: the same machine code means nvcc gains nothing from it.
        if (optionBool("CompareCode", true))
          if (std::optional<bool> Changes =
                  editsChangeCode(C, context(), FD, FD, X.Edits);
              Changes && !*Changes)
            return;
        reportFixOr(std::move(F), true, std::move(X), "");
        return;
      }
    }
  }
  int64_t Factor = optionInt("Factor", 4);
  if (Factor < 2)
    return;
  // nvcc unrolls a small loop with a runtime trip count by itself (with a
  // remainder loop), by 4 or more when the copies fit its budget: the
  // pragma would change nothing, or unroll less than nvcc does.
  // Measured with nvcc 13 -O3 on sm_90 over generated loops (products,
  // loads, stores, branches, doubles, expf, sqrtf, 2-D indices): nvcc
  // unrolls by 4 or more up to about 80 to 120 nodes (4 x 120 = 480),
  // by 2 or not at all above. expf and the other float exponentials and
  // logarithms count as 30 nodes here (nvcc sizes their inlined bodies, a
  // few instructions); powf, sinf and the like as 100 (nvcc does not
  // unroll a loop of them by itself).
  int64_t Size = codeSize(For->getBody(), 0, 100, 30);
  int64_t Budget = optionInt("CompilerUnrollSize", 480);
  if (Factor * Size <= Budget)
    return;
  std::string Pragma = "#pragma unroll " + std::to_string(Factor);
  // Compiled with and without the pragma (NVRTC): the same machine code
  // means nvcc already unrolls the loop so (or will not).
  if (optionBool("CompareCode", true)) {
    if (std::optional<bool> Changes = pragmaChangesCode(
            C, context(), kernelHolding(analyzedKernels(), FD), FD, For,
            "unroll " + std::to_string(Factor));
        Changes && !*Changes)
      return;
  }
  Finding F =
      makeFinding(C, id(), For->getBeginLoc(),
                  "small loop bounded by parameter '" + B->getName().str() +
                      "' is not unrolled; '" + Pragma +
                      "' amortises the counter and branch and "
                      "lets loads overlap",
                  FD);
  F.Notes.push_back(makeNote(
      C, For->getBeginLoc(),
      "the body is about " + std::to_string(Size) +
          " nodes of code; nvcc unrolls a loop with a runtime trip count " +
          std::to_string(Factor) + " times by itself only while " +
          std::to_string(Factor) + " copies fit in about " +
          std::to_string(Budget) + " (option CompilerUnrollSize)"));
  FixIt X;
  std::string Why;
  bool Ok = pragmaFix(C, For, Pragma, X, Why);
  reportFixOr(std::move(F), Ok, std::move(X), Why);
}

} // namespace cudal1
