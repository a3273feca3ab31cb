//===- AlgebraicInvariantTable.cpp - algebraic-invariant-table ------------===//
//
// algebraic-invariant-table: a local initialised with an expensive pure
// expression (a math call or a floating division) of nothing but the
// counters of constant-trip loops around it and constants, e.g. Gaussian
// weights `float w = expf(-(dx * dx + dy * dy) / (2.0f * S * S));` inside
// `for (dy = -R; dy <= R; dy++) for (dx = -R; dx <= R; dx++)`. Every thread
// recomputes the same few values on every pass of the loops (and again for
// each outer iteration, e.g. each colour channel). The fix computes them
// once per block into a `__shared__` table at the top of the kernel (the
// block's threads share the work, one barrier) and the initialiser reads
// the table. The table's entries are the same expression evaluated on the
// same counter values by the same device code, so the result is bitwise
// identical, provided the expression's last operation (a call, a division,
// a conversion) cannot be fused with what uses the local.
//
//===----------------------------------------------------------------------===//
#include "AlgebraicInvariantTable.h"
#include "cudal1/Rules/RuleSupport.h"
#include "cudal1/Rules/SpelledType.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Stmt.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"

#include <map>
#include <set>

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

/// Most entries a table may have (and 8 KiB of shared memory at most).
constexpr uint64_t MaxEntries = 1024;
constexpr uint64_t MaxBytes = 8192;

/// A counted loop `for (T v = A; v < B (or <=); ++v (v++, v += 1))` with A
/// and B integer constants.
struct CountedLoop {
  const ForStmt *Loop = nullptr;
  const VarDecl *Var = nullptr;
  int64_t First = 0;
  uint64_t Trip = 0;
  const Expr *Init = nullptr; ///< A, as written (its text starts the table)
};

std::optional<CountedLoop> countedLoop(ASTContext &C, const ForStmt *F) {
  const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit());
  if (!DS || !DS->isSingleDecl())
    return std::nullopt;
  const auto *V = dyn_cast<VarDecl>(DS->getSingleDecl());
  if (!V || !V->getType()->isIntegerType() || !V->getInit())
    return std::nullopt;
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(F->getCond());
  if (!Cond || (Cond->getOpcode() != BO_LT && Cond->getOpcode() != BO_LE))
    return std::nullopt;
  const auto *L = dyn_cast<DeclRefExpr>(Cond->getLHS()->IgnoreParenImpCasts());
  if (!L || L->getDecl() != V)
    return std::nullopt;
  const Expr *Inc = F->getInc();
  if (!Inc)
    return std::nullopt;
  Inc = Inc->IgnoreParens();
  bool StepOne = false;
  if (const auto *U = dyn_cast<UnaryOperator>(Inc)) {
    const auto *D = dyn_cast<DeclRefExpr>(U->getSubExpr()->IgnoreParens());
    StepOne = U->isIncrementOp() && D && D->getDecl() == V;
  } else if (const auto *B = dyn_cast<CompoundAssignOperator>(Inc)) {
    const auto *D = dyn_cast<DeclRefExpr>(B->getLHS()->IgnoreParens());
    Expr::EvalResult R;
    StepOne = B->getOpcode() == BO_AddAssign && D && D->getDecl() == V &&
              !B->getRHS()->isValueDependent() &&
              B->getRHS()->EvaluateAsInt(R, C) && R.Val.getInt() == 1;
  }
  if (!StepOne || V->getInit()->isValueDependent() ||
      Cond->getRHS()->isValueDependent())
    return std::nullopt;
  Expr::EvalResult A, B;
  if (!V->getInit()->EvaluateAsInt(A, C) ||
      !Cond->getRHS()->EvaluateAsInt(B, C))
    return std::nullopt;
  int64_t Lo = A.Val.getInt().getSExtValue(),
          Hi = B.Val.getInt().getSExtValue();
  if (Cond->getOpcode() == BO_LE)
    ++Hi;
  if (Hi <= Lo || uint64_t(Hi - Lo) > MaxEntries)
    return std::nullopt;
  // The body must not change the counter.
  if (ExprMutationAnalyzer(*F->getBody(), C).isMutated(V))
    return std::nullopt;
  return CountedLoop{F, V, Lo, uint64_t(Hi - Lo), V->getInit()};
}

/// Locals initialised inside for-loops, with the for-loops around them
/// (outermost first).
class Collector : public RecursiveASTVisitor<Collector> {
public:
  struct Site {
    const VarDecl *Var;
    std::vector<const ForStmt *> Loops;
  };
  std::vector<Site> Sites;

  bool TraverseForStmt(ForStmt *F) {
    // The init, condition and increment are outside the loop's body.
    if (F->getInit())
      TraverseStmt(F->getInit());
    Stack.push_back(F);
    if (F->getBody())
      TraverseStmt(F->getBody());
    Stack.pop_back();
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitVarDecl(VarDecl *V) {
    if (!Stack.empty() && V->isLocalVarDecl() && V->getInit() &&
        !V->isStaticLocal() && !isa<ParmVarDecl>(V))
      Sites.push_back({V, Stack});
    return true;
  }

private:
  std::vector<const ForStmt *> Stack;
};

/// What the expression may name: the counters of \p Counted, scalar
/// parameters the kernel never changes (\p KernelBody: the analysis of its
/// body), constants, enumerators, and pure functions. \p Used: the
/// counters it names.
bool onlyInvariants(const Expr *E, ExprMutationAnalyzer &KernelBody,
                    const std::vector<CountedLoop> &Counted,
                    std::set<const VarDecl *> &Used, std::string &Why) {
  struct V : RecursiveASTVisitor<V> {
    ExprMutationAnalyzer &KernelBody;
    const std::vector<CountedLoop> &Counted;
    std::set<const VarDecl *> &Used;
    std::string &Why;
    V(ExprMutationAnalyzer &KernelBody,
      const std::vector<CountedLoop> &Counted, std::set<const VarDecl *> &Used,
      std::string &Why)
        : KernelBody(KernelBody), Counted(Counted), Used(Used), Why(Why) {}
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      const ValueDecl *VD = D->getDecl();
      if (isa<FunctionDecl>(VD) || isa<EnumConstantDecl>(VD))
        return true;
      const auto *Var = dyn_cast<VarDecl>(VD);
      if (!Var) {
        Why = "names '" + VD->getNameAsString() + "'";
        return false;
      }
      for (const CountedLoop &L : Counted)
        if (L.Var == Var) {
          Used.insert(Var);
          return true;
        }
      if (const auto *P = dyn_cast<ParmVarDecl>(Var)) {
        QualType T = P->getType();
        if (T->isArithmeticType() && !T->isReferenceType() &&
            !KernelBody.isMutated(P))
          return true;
        Why = "parameter '" + P->getNameAsString() +
              "' is not a scalar the kernel leaves unchanged";
        return false;
      }
      // A file-scope constant (not a local: the table is filled before any
      // local is declared; not device memory).
      if (Var->hasGlobalStorage() && !Var->isLocalVarDeclOrParm() &&
          Var->isUsableInConstantExpressions(Var->getASTContext()))
        return true;
      Why = "'" + Var->getNameAsString() +
            "' is not a loop counter or a constant";
      return false;
    }
    bool VisitArraySubscriptExpr(ArraySubscriptExpr *) {
      Why = "reads memory";
      return false;
    }
    bool VisitMemberExpr(MemberExpr *) {
      Why = "reads a member";
      return false;
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      if (U->getOpcode() == UO_Deref || U->getOpcode() == UO_AddrOf) {
        Why = "reads memory";
        return false;
      }
      return true;
    }
  } Vis(KernelBody, Counted, Used, Why);
  return Vis.TraverseStmt(const_cast<Expr *>(E));
}

/// A call or a floating division somewhere in \p E.
bool hasCostlyOp(const Stmt *S) {
  if (!S)
    return false;
  if (isa<CallExpr>(S))
    return true;
  if (const auto *B = dyn_cast<BinaryOperator>(S))
    if (B->getOpcode() == BO_Div && B->getType()->isRealFloatingType())
      return true;
  for (const Stmt *Ch : S->children())
    if (hasCostlyOp(Ch))
      return true;
  return false;
}

/// The last operation of \p E cannot be fused (FMA contraction) with an
/// operation outside it: a call, a division, or a conversion of one.
bool lastOpStandsAlone(const Expr *E) {
  E = E->IgnoreParens();
  while (const auto *Cast = dyn_cast<CastExpr>(E))
    E = Cast->getSubExpr()->IgnoreParens();
  if (isa<CallExpr>(E))
    return true;
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    return B->getOpcode() == BO_Div;
  return false;
}

} // namespace

RuleInfo AlgebraicInvariantTable::info() const {
  RuleInfo I;
  I.Id = "algebraic-invariant-table";
  I.Category = "algebraic";
  I.Summary = "a costly value of constant loop counters alone (e.g. filter "
              "weights) recomputed by every thread; a per-block table in "
              "shared memory";
  I.Exactness = Exactness::Bitwise;
  I.DefaultOptions["MeasureFirst"] = "true";
  I.ExactnessNote = "bitwise; offered for GPU measurement (--verify=run) "
                    "unless the option MeasureFirst is false";
  I.Help =
      "A local initialised with a math call or a floating division of "
      "nothing but the counters of constant-trip loops and constants is the "
      "same for every thread: each thread recomputes the same few values on "
      "every pass (and again for every outer iteration). The fix computes "
      "them once per block into a __shared__ table at the top of the kernel "
      "and the initialiser reads the table: the same expression on the same "
      "values, so the results are identical.";
  I.Doc.Detects =
      "A local variable whose initialiser contains a call (`expf`, `sinf`, "
      "`powf`, ...) or a floating division and names only the counters of "
      "enclosing `for` loops with constant bounds (`for (int dy = -R; dy <= "
      "R; dy++)`, step 1), constants (literals, macros, enumerators, "
      "file-scope `constexpr`/`const` values) and scalar parameters the "
      "kernel never changes: Gaussian or other filter weights, window "
      "coefficients, twiddle-like factors.";
  I.Doc.WhySlow =
      "Every thread evaluates the same values (an `expf` is a dozen "
      "instructions, an IEEE division about ten) on every pass of the loops, "
      "and again for each iteration of the loops around them, e.g. once per "
      "colour channel. A 5x5 Gaussian blur of an RGB image evaluates 75 "
      "exponentials per pixel for 25 distinct values.";
  I.Doc.Example = R"cuda(for (int c = 0; c < 3; c++)
  for (int dy = -RADIUS; dy <= RADIUS; dy++)
    for (int dx = -RADIUS; dx <= RADIUS; dx++) {
      float w = expf(-(dx * dx + dy * dy) / (2.0f * SIGMA * SIGMA));  // warning
      sum += w * in[...];
    })cuda";
  I.Doc.Fixed = R"cuda(__global__ void blur(...) {
  // cuda-l1 algebraic-invariant-table: 'w' for every (dy, dx), once per block
  __shared__ float cuda_l1_w_table[25];
  for (int cuda_l1_t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
       cuda_l1_t < 25; cuda_l1_t += blockDim.x * blockDim.y * blockDim.z) {
    int dy = (-RADIUS) + cuda_l1_t / 5;
    int dx = (-RADIUS) + cuda_l1_t % 5;
    cuda_l1_w_table[cuda_l1_t] = expf(-(dx * dx + dy * dy) / (2.0f * SIGMA * SIGMA));
  }
  __syncthreads();
  ...
      float w = cuda_l1_w_table[(dy - (-RADIUS)) * 5 + (dx - (-RADIUS))];)cuda";
  I.Doc.Fix =
      "Declares a `__shared__` table with one entry per combination of the "
      "counters the initialiser names (types as written), fills it at the "
      "top of the kernel with the block's threads (linear thread index, any "
      "block shape) followed by `__syncthreads()`, and replaces the "
      "initialiser by a read of the table. Bitwise: each entry is the same "
      "expression evaluated by the same device code on the same counter "
      "values; only expressions whose last operation is a call, a division "
      "or a conversion are taken, so that no multiply-add is fused across "
      "the initialiser in the original and not in the rewrite. At most 1024 "
      "entries and 8 KiB. It costs a barrier and a little shared memory per "
      "block, so it is offered for GPU verification (`--verify=run` applies "
      "it where it measures faster; the option `MeasureFirst: false` lets a "
      "plain `--fix` apply it).\n"
      "\n"
      "Not taken: loops whose bounds are not constants or whose step is not "
      "1, counters the loop body changes, initialisers that read memory, "
      "thread indices, locals or members, calls not known to be pure, "
      "kernel templates, and initialisers that come from a macro's body.\n"
      "\n"
      "## Measured and verified\n"
      "\n"
      "On an H200 (session 18, `utils/bench-corpus-gpu.sh --only blur`): "
      "the naive-style corpus's blur (a 5x5 Gaussian over a 2048x2048 RGB "
      "image, `expf` weights per tap) was verified bitwise and measured "
      "faster by `--fix --verify=run`, then applied with launch-loop-sync: "
      "the program's total kernel time 3.372 -> 1.873 ms (1.80x), its own "
      "check passing "
      "([PERFORMANCE.md](../PERFORMANCE.md#3-results-naive-style-corpus)). "
      "No finding over HeCBench (its filters take their weights from "
      "memory).";
  return I;
}

void AlgebraicInvariantTable::checkKernel(const KernelUnit &Kernel) {
  const FunctionDecl *FD = Kernel.FD;
  const auto *Body = dyn_cast_or_null<CompoundStmt>(FD->getBody());
  if (Kernel.IsTemplate || !Body || Body->body_empty())
    return;
  ASTContext &C = ctx();
  Collector Col;
  Col.TraverseStmt(const_cast<CompoundStmt *>(Body));
  // Loops and parameters shared by several locals are analysed once.
  ExprMutationAnalyzer KernelBody(*Body, C);
  std::map<const ForStmt *, std::optional<CountedLoop>> Loops;
  for (const Collector::Site &S : Col.Sites) {
    const VarDecl *VD = S.Var;
    QualType T = VD->getType();
    if (!T->isRealFloatingType() || T.isVolatileQualified() ||
        VD->hasAttr<CUDASharedAttr>())
      continue;
    const Expr *E = VD->getInit();
    if (E->isValueDependent() || E->isTypeDependent() || !hasCostlyOp(E) ||
        !isPure(C, E))
      continue;
    std::vector<CountedLoop> Counted;
    for (const ForStmt *F : S.Loops) {
      auto It = Loops.find(F);
      if (It == Loops.end())
        It = Loops.emplace(F, countedLoop(C, F)).first;
      if (It->second)
        Counted.push_back(*It->second);
    }
    std::set<const VarDecl *> Used;
    std::string Why;
    if (Counted.empty() || !onlyInvariants(E, KernelBody, Counted, Used, Why) ||
        Used.empty())
      continue;
    std::vector<CountedLoop> Dims;
    uint64_t Entries = 1;
    for (const CountedLoop &L : Counted)
      if (Used.count(L.Var)) {
        Dims.push_back(L);
        Entries *= L.Trip;
      }
    uint64_t Bytes = Entries * C.getTypeSizeInChars(T).getQuantity();
    if (Entries < 2 || Entries > MaxEntries || Bytes > MaxBytes)
      continue;
    // Loops around the local that do not change the table: every pass
    // recomputes it (e.g. the channel loop).
    uint64_t Passes = 1;
    for (const CountedLoop &L : Counted)
      if (!Used.count(L.Var))
        Passes *= L.Trip;
    std::string Name = VD->getNameAsString();
    std::string Counters;
    for (const CountedLoop &L : Dims)
      Counters += (Counters.empty() ? "" : ", ") + L.Var->getNameAsString();
    if (!firstInUserCode(VD->getLocation()))
      continue;
    Finding F = finding(
        VD->getLocation(),
        "'" + Name + "' depends only on the loop counters (" + Counters +
            ") and constants: every thread computes the same " +
            std::to_string(Entries) + " values" +
            (Passes > 1 ? ", " + std::to_string(Passes) + " times each," : "") +
            " on every run of the loops; a table of them computed once per "
            "block in shared memory replaces the computation with a read",
        FD);
    for (const CountedLoop &L : Dims)
      note(F, L.Loop->getBeginLoc(),
           "'" + L.Var->getNameAsString() + "' takes " +
               std::to_string(L.Trip) + " values here");
    // The fix.
    std::string Fail;
    std::string ExprText = sourceText(C, E->getSourceRange());
    auto InitRange = editableRange(
        C, CharSourceRange::getTokenRange(E->getSourceRange()), Fail);
    if (ExprText.empty() || !InitRange) {
      reportWithoutFix(std::move(F), Fail.empty()
                                         ? "the initialiser's text cannot be "
                                           "copied (it comes from a macro)"
                                         : Fail);
      continue;
    }
    if (!lastOpStandsAlone(E)) {
      reportWithoutFix(std::move(F),
                       "the initialiser ends in an addition or "
                       "multiplication, which the compiler may fuse with "
                       "its use in the original: a table read would not "
                       "give the same bits");
      continue;
    }
    bool TextOk = true;
    std::vector<std::string> Firsts;
    for (const CountedLoop &L : Dims) {
      std::string A = sourceText(C, L.Init->getSourceRange());
      if (A.empty())
        TextOk = false;
      Firsts.push_back(A);
    }
    if (!TextOk) {
      reportWithoutFix(std::move(F), "a loop's start cannot be copied");
      continue;
    }
    SourceLocation Open = Body->getLBracLoc();
    if (Open.isMacroID()) {
      reportWithoutFix(std::move(F), "the kernel's body comes from a macro");
      continue;
    }
    std::string Indent = "  ";
    if (auto I = lineIndent(C, (*Body->body_begin())->getBeginLoc()))
      Indent = *I;
    std::string Table = freshName(C, context(), FD, "cuda_l1_" + Name + "_table");
    std::string Idx = freshName(C, context(), FD, "cuda_l1_t");
    std::string Type = spelledType(C, VD);
    // Strides: the innermost counter varies fastest.
    std::vector<uint64_t> Stride(Dims.size(), 1);
    for (size_t K = Dims.size(); K-- > 1;)
      Stride[K - 1] = Stride[K] * Dims[K].Trip;
    std::string Fill;
    raw_string_ostream OS(Fill);
    OS << "\n" << Indent << "// cuda-l1 algebraic-invariant-table: '" << Name
       << "' for every (" << Counters << "), once per block\n"
       << Indent << "__shared__ " << Type << " " << Table << "[" << Entries
       << "];\n"
       << Indent << "for (int " << Idx
       << " = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
          "threadIdx.z); "
       << Idx << " < " << Entries << "; " << Idx
       << " += blockDim.x * blockDim.y * blockDim.z) {\n";
    std::string Read = Table + "[";
    for (size_t K = 0; K < Dims.size(); ++K) {
      std::string VarType = spelledType(C, Dims[K].Var);
      std::string V = Dims[K].Var->getNameAsString();
      OS << Indent << "  " << VarType << " " << V << " = (" << Firsts[K]
         << ") + " << Idx;
      if (Stride[K] > 1)
        OS << " / " << Stride[K];
      if (K > 0)
        OS << " % " << Dims[K].Trip;
      OS << ";\n";
      std::string Term = Dims[K].First == 0 && Firsts[K] == "0"
                             ? V
                             : "(" + V + " - (" + Firsts[K] + "))";
      if (Stride[K] > 1)
        Term += " * " + std::to_string(Stride[K]);
      Read += (K ? " + " : "") + Term;
    }
    Read += "]";
    OS << Indent << "  " << Table << "[" << Idx << "] = " << ExprText
       << ";\n"
       << Indent << "}\n"
       << Indent << "__syncthreads();";
    OS.flush();
    FixIt X;
    X.Description = "compute '" + Name + "' once per block into a shared table";
    X.Exact = Exactness::Bitwise;
    X.NeedsMeasurement = optionBool("MeasureFirst", true);
    X.Edits.push_back(makeInsertion(C, Open.getLocWithOffset(1), Fill));
    X.Edits.push_back(makeTextEdit(C, *InitRange, Read));
    F.Fix = std::move(X);
    report(std::move(F));
  }
}

} // namespace cudal1
