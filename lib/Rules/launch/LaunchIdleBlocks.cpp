//===- LaunchIdleBlocks.cpp - launch-idle-blocks --------------------------===//
//
// Factorisations and eliminations launch, for every step k, a kernel over
// the whole matrix whose guard keeps only the trailing part:
//
//   __global__ void update(float *A, int k, int n) {
//     int j = blockIdx.x * blockDim.x + threadIdx.x;
//     int i = blockIdx.y * blockDim.y + threadIdx.y;
//     if (i > k && j > k && i < n && j < n) A[i * n + j] -= ...;
//   }
//   for (int k = 0; k < n; k++) update<<<grid, block>>>(A, k, n);
//
// Most blocks start, find that none of their threads passes the guard, and
// end; for small steps that is most of a launch's time. The fix launches
// only the blocks that hold a thread that can pass: along each dimension
// whose global index `v = blockIdx.d * blockDim.d + threadIdx.d` the guard
// bounds (`v < U`, `v <= U`, `v > L`, `v >= L`, or an early `if (v >= U)
// return;`), the blocks from floor(L / blockDim.d) to ceil(U / blockDim.d),
// with the bounds computed on the host from the launch's arguments. With a
// lower bound the blocks are renumbered: a copy of the kernel adds the first
// block's index to blockIdx.d.
//
// Exactness. A block none of whose threads passes the guard does nothing:
// the kernel's statements before the guard only declare scalars (no call,
// no store, no barrier) or return early, and everything else runs only
// under the guard. Dropping such a block changes no memory. The remaining
// blocks run with the same blockIdx (the copy adds the offset), blockDim
// and threadIdx, so every thread that passes computes what it computed;
// gridDim is not read. When a dimension's extent exceeds 2^31 - 1 threads
// (where the kernel's int index would wrap) the original launch runs.
//
//===----------------------------------------------------------------------===//
#include "LaunchIdleBlocks.h"
#include "HostStatements.h"
#include "../coalescing/RowWalk.h"

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

/// `v < B + Adjust` (upper, exclusive) or `v >= B + Adjust` (lower,
/// inclusive), compared in type Common.
struct Bound {
  const Expr *B = nullptr;
  int Adjust = 0;
  QualType Common;
};

struct DimBounds {
  const VarDecl *V = nullptr;
  std::vector<Bound> Hi, Lo;
};

struct Shape {
  DimBounds D[3];
  bool any() const {
    for (const DimBounds &X : D)
      if (!X.Hi.empty() || !X.Lo.empty())
        return true;
    return false;
  }
};

/// An expression of the kernel's scalar parameters, literals and
/// arithmetic: what the host can compute from the launch's arguments.
bool paramsOnly(const Expr *E) {
  bool Ok = isPureNoMemory(E);
  forEachStmt(E, [&](const Stmt *X) {
    if (const auto *XE = dyn_cast<Expr>(X))
      if (!builtinName(XE).empty())
        Ok = false;
    if (const auto *D = dyn_cast<DeclRefExpr>(X)) {
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl())) {
        const auto *P = dyn_cast<ParmVarDecl>(V);
        if (!P || !P->getType()->isIntegerType())
          Ok = false;
      } else if (!isa<EnumConstantDecl>(D->getDecl())) {
        Ok = false;
      }
    }
  });
  return Ok;
}

/// Records the bound that `L Op R` (true for every active thread) puts on
/// a guard variable.
void addBound(const BinaryOperator *B, BinaryOperatorKind Op,
              const std::map<const VarDecl *, int> &Vars, Shape &S) {
  const Expr *L = B->getLHS(), *R = B->getRHS();
  const VarDecl *VL = isa<DeclRefExpr>(bare(L)) ? varOf(L) : nullptr;
  const VarDecl *VR = isa<DeclRefExpr>(bare(R)) ? varOf(R) : nullptr;
  const Expr *Other = nullptr;
  const VarDecl *V = nullptr;
  if (VL && Vars.count(VL)) {
    V = VL;
    Other = R;
  } else if (VR && Vars.count(VR)) {
    V = VR;
    Other = L;
    Op = BinaryOperator::reverseComparisonOp(Op);
  } else {
    return;
  }
  if (!paramsOnly(Other))
    return;
  QualType CT = L->getType().getCanonicalType().getUnqualifiedType();
  const auto *BT = CT->getAs<BuiltinType>();
  if (!BT || (BT->getKind() != BuiltinType::Int &&
              BT->getKind() != BuiltinType::UInt))
    return; // 32-bit comparisons only: the host adds 1 in 64 bits

  DimBounds &D = S.D[Vars.at(V)];
  switch (Op) {
  case BO_LT:
    D.Hi.push_back({Other, 0, CT});
    break;
  case BO_LE:
    D.Hi.push_back({Other, 1, CT});
    break;
  case BO_GT:
    D.Lo.push_back({Other, 1, CT});
    break;
  case BO_GE:
    D.Lo.push_back({Other, 0, CT});
    break;
  default:
    break;
  }
}

/// The conjuncts of \p E (true for every active thread).
void conjuncts(const Expr *E, const std::map<const VarDecl *, int> &Vars,
               Shape &S) {
  E = bare(E);
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    if (B->getOpcode() == BO_LAnd) {
      conjuncts(B->getLHS(), Vars, S);
      conjuncts(B->getRHS(), Vars, S);
      return;
    }
    if (B->isRelationalOp())
      addBound(B, B->getOpcode(), Vars, S);
  }
}

/// The disjuncts of \p E (false for every active thread: `if (E) return;`).
void disjuncts(const Expr *E, const std::map<const VarDecl *, int> &Vars,
               Shape &S) {
  E = bare(E);
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    if (B->getOpcode() == BO_LOr) {
      disjuncts(B->getLHS(), Vars, S);
      disjuncts(B->getRHS(), Vars, S);
      return;
    }
    if (B->isRelationalOp())
      addBound(B, BinaryOperator::negateComparisonOp(B->getOpcode()), Vars,
               S);
  }
}

/// `if (c) return;`: its condition.
const Expr *earlyReturnCond(const Stmt *S) {
  const auto *If = dyn_cast<IfStmt>(S);
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return nullptr;
  const Stmt *T = If->getThen();
  if (const auto *CS = dyn_cast<CompoundStmt>(T))
    T = CS->size() == 1 ? CS->body_front() : nullptr;
  const auto *R = dyn_cast_or_null<ReturnStmt>(T);
  return R && !R->getRetValue() ? If->getCond() : nullptr;
}

/// The bounds of the kernel's guard on its global indices, when a thread
/// that fails them does nothing.
std::optional<Shape> shapeOf(const ASTContext &C, const FunctionDecl *K) {
  if (!K->hasBody() || K->isTemplated() || K->isVariadic() ||
      K->isFunctionTemplateSpecialization() ||
      K->getTemplateSpecializationInfo())
    return std::nullopt;
  for (const ParmVarDecl *P : K->parameters())
    if (P->hasDefaultArg())
      return std::nullopt;
  const auto *Body = dyn_cast<CompoundStmt>(K->getBody());
  if (!Body || Body->size() < 2)
    return std::nullopt;
  // Block and grid coordinates only as blockIdx.<d> written in the body
  // (the copy renumbers those): no call of a function that could read
  // them (system math only), no whole-struct use, no asm.
  bool Opaque = false;
  forEachStmt(Body, [&](const Stmt *X) {
    if (isa<GCCAsmStmt, MSAsmStmt>(X))
      Opaque = true;
    if (const auto *CE = dyn_cast<CallExpr>(X))
      Opaque |= !systemCallee(C, CE) ||
                containsCallTo(CE, {"atomic*", "printf", "__syncthreads*",
                                    "this_grid", "this_thread_block",
                                    "tiled_partition", "clock*", "__nanosleep",
                                    "__trap", "assert", "__assert*"});
    if (const auto *D = dyn_cast<DeclRefExpr>(X)) {
      StringRef N = D->getDecl()->getName();
      if (N == "blockIdx" || N == "gridDim") {
        const auto &Ps = const_cast<ASTContext &>(C).getParents(*D);
        const Stmt *P = Ps.empty() ? nullptr : Ps[0].get<Stmt>();
        if (!P || !isa<MSPropertyRefExpr, MemberExpr>(P))
          Opaque = true;
      }
    }
  });
  if (Opaque)
    return std::nullopt;
  FunctionFacts F = FunctionFacts::compute(K);
  for (const ParmVarDecl *P : K->parameters())
    if (F.isMutated(P))
      return std::nullopt;
  bool GridDim = false;
  forEachStmt(Body, [&](const Stmt *X) {
    if (const auto *E = dyn_cast<Expr>(X))
      GridDim |= StringRef(builtinName(E)).starts_with("gridDim");
    if (const auto *D = dyn_cast<DeclRefExpr>(X))
      GridDim |= D->getDecl()->getName() == "gridDim";
  });
  if (GridDim)
    return std::nullopt;
  std::map<const VarDecl *, int> Vars;
  Shape S;
  const Stmt *Last = Body->body_back();
  for (const Stmt *X : Body->body()) {
    if (X == Last)
      break;
    if (const Expr *Cond = earlyReturnCond(X)) {
      if (!isPureNoMemory(Cond) && !isPure(const_cast<ASTContext &>(C), Cond))
        return std::nullopt;
      disjuncts(Cond, Vars, S);
      continue;
    }
    const auto *DS = dyn_cast<DeclStmt>(X);
    if (!DS)
      return std::nullopt;
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V || !V->hasLocalStorage() || !V->getType()->isScalarType() ||
          V->getType()->isReferenceType() || !V->getInit() ||
          !isPure(const_cast<ASTContext &>(C), V->getInit()))
        return std::nullopt;
      for (int Dm = 0; Dm < 3; ++Dm)
        if (V->getType()->isIntegerType() && !F.isMutated(V) &&
            isGlobalIndex(V->getInit(), "xyz"[Dm]) &&
            C.getTypeSize(V->getType()) >= 32)
          Vars[V] = Dm;
    }
  }
  if (const auto *If = dyn_cast<IfStmt>(Last))
    if (!If->getElse() && !If->getInit() && !If->getConditionVariable() &&
        !earlyReturnCond(Last) &&
        isPure(const_cast<ASTContext &>(C), If->getCond()))
      conjuncts(If->getCond(), Vars, S);
  for (auto &KV : Vars)
    S.D[KV.second].V = KV.first;
  if (!S.any())
    return std::nullopt;
  return S;
}

/// The kernel's definition as text with the name \p NewName, the extra
/// parameters \p Extra, and blockIdx.<d> + offset in the body.
std::string cloneText(const ASTContext &C, const FunctionDecl *Def,
                      const std::string &NewName, const std::string &Extra,
                      const std::string Off[3]) {
  const SourceManager &SM = C.getSourceManager();
  FunctionTypeLoc FTL = Def->getFunctionTypeLoc();
  if (!FTL || Def->getNumParams() == 0)
    return "";
  SourceLocation B = SM.getExpansionLoc(Def->getBeginLoc());
  SourceLocation N = SM.getExpansionLoc(Def->getLocation());
  SourceLocation RP = SM.getExpansionLoc(FTL.getRParenLoc());
  if (!B.isFileID() || SM.getFileID(B) != SM.getFileID(RP))
    return "";
  std::string Head =
      sourceText(C, SourceRange(B, SM.getExpansionLoc(Def->getLocation())));
  std::string Params = sourceText(C, SourceRange(FTL.getLParenLoc(), RP));
  std::vector<std::pair<const Stmt *, std::string>> Reps;
  forEachStmt(Def->getBody(), [&](const Stmt *X) {
    if (const auto *PO = dyn_cast<PseudoObjectExpr>(X)) {
      std::string Bn = builtinName(PO);
      for (int D = 0; D < 3; ++D)
        if (!Off[D].empty() && Bn == std::string("blockIdx.") + "xyz"[D])
          Reps.push_back({PO, "(blockIdx." + std::string(1, "xyz"[D]) +
                                  " + " + Off[D] + ")"});
    }
  });
  std::string Body = rewrittenText(C, Def->getBody(), Reps);
  std::string Name = Def->getNameAsString();
  if (Head.size() < Name.size() || Params.size() < 2 || Body.empty() ||
      Head.compare(Head.size() - Name.size(), Name.size(), Name) != 0)
    return "";
  (void)N;
  Head.replace(Head.size() - Name.size(), Name.size(), NewName);
  Params.insert(Params.size() - 1, ", " + Extra);
  return Head + Params + " " + Body;
}

} // namespace

RuleInfo LaunchIdleBlocks::info() const {
  RuleInfo I;
  I.Id = "launch-idle-blocks";
  I.Category = "launch";
  I.Summary = "a launch in a loop whose kernel's guard depends on the loop "
              "variable while the grid does not: launch only the blocks "
              "that can pass the guard";
  I.Exactness = Exactness::Bitwise;
  I.ExactnessNote = "bitwise (blocks none of whose threads passes the guard "
                    "do nothing)";
  I.Help =
      "Each step of a factorisation or elimination updates a shrinking "
      "part of the matrix, but the launch covers the whole matrix every "
      "time: most blocks start, find no thread inside the guard, and end. "
      "Launching only the blocks that hold a thread that can pass the "
      "guard leaves the result unchanged and shortens each launch.";
  I.Doc.Detects =
      "A launch, a statement of a loop's body, of a kernel whose body is "
      "scalar declarations and early returns (`if (c) return;`) followed by "
      "its work (the last statement, when it is an `if` without else, "
      "guarding it), where a global index `v = blockIdx.d * blockDim.d + "
      "threadIdx.d` (an integer variable of at least 32 bits, never "
      "changed) is bounded by the guard or an early return (`v < U`, `v <= "
      "U`, `v > L`, `v >= L`, either operand order), the bound an "
      "expression of the kernel's integer parameters and literals, and at "
      "least one bound's arguments at the launch read a variable the loop "
      "changes while the grid and block do not. The kernel does not read "
      "gridDim, calls nothing and stores nothing before the guard.";
  I.Doc.WhySlow =
      "Starting a block costs time even when it does nothing: a launch of "
      "4096 blocks of which a few hundred work takes about as long as one "
      "where all work. In an LU or Cholesky step loop the active part "
      "shrinks to nothing while the grid stays the whole matrix.";
  I.Doc.Example = R"cuda(__global__ void update(float *A, int k, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > k && j > k && i < n && j < n)
    A[i * n + j] -= A[i * n + k] * A[k * n + j];
}
...
for (int k = 0; k < n; k++)
  update<<<grid, block>>>(A, k, n);   // warning)cuda";
  I.Doc.Fixed = R"cuda(// after update: a copy that starts at the given blocks
__global__ void cudal1_idle_update(float *A, int k, int n, unsigned cudal1_ox, unsigned cudal1_oy, unsigned cudal1_oz) {
  int j = (blockIdx.x + cudal1_ox) * blockDim.x + threadIdx.x;
  ...
}
...
for (int k = 0; k < n; k++)
  {
    // cuda-l1 launch-idle-blocks: ...
    dim3 cudal1_g = dim3(grid), cudal1_b = dim3(block);
    ... the blocks from floor((k + 1) / b.d) to ceil(n / b.d) along x and y ...
    if (!cudal1_fits)
      update<<<grid, block>>>(A, k, n);
    else if (cudal1_g.x && cudal1_g.y && cudal1_g.z)
      cudal1_idle_update<<<cudal1_g, cudal1_b>>>(A, k, n, cudal1_o[0], cudal1_o[1], cudal1_o[2]);
  })cuda";
  I.Doc.Fix =
      "Replaces the launch statement with a block that computes, on the "
      "host, for each bounded dimension the first and the last block that "
      "holds a thread inside every bound (each bound evaluated from the "
      "launch's arguments, cast to the parameters' types and compared in "
      "the guard's type), and launches those blocks only, or nothing when "
      "there are none. With only upper bounds the kernel is launched as it "
      "is on the smaller grid; with a lower bound, a copy of the kernel "
      "(inserted after it, once per file) takes the first block of each "
      "dimension as parameters and adds it to blockIdx. The original "
      "launch runs when a dimension's extent exceeds 2^31 - 1 threads or "
      "the shape is one CUDA rejects (an empty or too large block, a grid "
      "over its limits), so that its error stays. Refused: kernels that "
      "call functions other than the system's math (they could read "
      "blockIdx), use blockIdx or gridDim other than as `.x/.y/.z`, asm, "
      "overloaded, specialised or with default arguments, launches from "
      "macros, grids or blocks with side effects. "
      "Host code and a copy of the kernel with renumbered blocks: `--fix` "
      "applies it, and so does `--fix --verify=run` (nothing new to run on "
      "its own; it says so).";
  return I;
}

void LaunchIdleBlocks::checkTranslationUnit() {
  ASTContext &C = ctx();
  const SourceManager &SM = C.getSourceManager();
  const SharedRuleFacts &SF = sharedFacts(C, context());
  for (const FunctionDecl *K : SF.Kernels) {
    if (StringRef(K->getNameAsString()).starts_with("cudal1_"))
      continue;
    auto Sh = shapeOf(C, K);
    if (!Sh)
      continue;
    for (const CUDAKernelCallExpr *L : launchSitesOf(C, context(), K)) {
      if (!isUserCode(L->getBeginLoc()))
        continue;
      const FunctionDecl *Fn = functionOf(*L);
      if (!Fn || !isHostCode(Fn) || isInInstantiation(Fn) || Fn->isTemplated())
        continue;
      const CompoundStmt *Block = nullptr;
      const Stmt *S = statementInBlock(C, L, Block);
      if (!S || !Block) {
        // The whole body of a loop without braces (`for (...)
        // k<<<g, b>>>(...);`): the fix's block replaces it there too.
        S = nullptr;
        DynTypedNode N = DynTypedNode::create(*L);
        for (unsigned D = 0; D < 4; ++D) {
          auto Ps = C.getParents(N);
          if (Ps.empty())
            break;
          if (const auto *X = Ps[0].get<Stmt>(); X && isLoop(X)) {
            if (loopBody(X) == N.get<Stmt>())
              S = N.get<Stmt>();
            break;
          }
          if (!Ps[0].get<Expr>())
            break;
          N = Ps[0];
        }
        if (!S)
          continue;
      }
      if (const auto *EWC = dyn_cast<ExprWithCleanups>(S)) {
        if (EWC->getSubExpr()->IgnoreImplicit() != L)
          continue;
      } else if (S != L) {
        continue;
      }
      // The loop holding the launch (its body or a block in it).
      const Stmt *Loop = nullptr;
      {
        DynTypedNode N = DynTypedNode::create(*S);
        for (unsigned D = 0; D < 8 && !Loop; ++D) {
          auto Ps = C.getParents(N);
          if (Ps.empty())
            break;
          if (const auto *X = Ps[0].get<Stmt>())
            if (isLoop(X))
              Loop = X;
          if (Ps[0].get<Decl>())
            break;
          N = Ps[0];
        }
      }
      if (!Loop || L->getNumArgs() != K->getNumParams())
        continue;
      const CallExpr *Cfg = L->getConfig();
      if (!Cfg || Cfg->getNumArgs() < 2)
        continue;
      std::set<const VarDecl *> Changed = varsChangedIn(Loop);
      auto ReadsChanged = [&](const Expr *E) {
        bool Any = false;
        forEachStmt(E, [&](const Stmt *X) {
          if (const auto *D = dyn_cast<DeclRefExpr>(X))
            if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
              Any |= Changed.count(V) > 0;
        });
        return Any;
      };
      auto Dim = [](const Expr *E) {
        const Expr *W = writtenLaunchDim(E);
        return W ? W : E;
      };
      if (ReadsChanged(Dim(Cfg->getArg(0))) || ReadsChanged(Dim(Cfg->getArg(1))))
        continue;
      // A bound that moves with the loop.
      bool Moves = false;
      for (const DimBounds &D : Sh->D)
        for (const std::vector<Bound> *Bs : {&D.Hi, &D.Lo})
          for (const Bound &B : *Bs)
            forEachStmt(B.B, [&](const Stmt *X) {
              if (const auto *DR = dyn_cast<DeclRefExpr>(X))
                if (const auto *P = dyn_cast<ParmVarDecl>(DR->getDecl()))
                  Moves |= ReadsChanged(L->getArg(P->getFunctionScopeIndex()));
            });
      if (!Moves || !firstInUserCode(L->getBeginLoc()))
        continue;
      std::string KN = K->getNameAsString();
      Finding &F = reportLater(finding(
          L->getBeginLoc(),
          "'" + KN + "' is launched over the same grid in every iteration, "
          "but its guard keeps a part that moves with the loop: blocks "
          "whose threads all fail the guard start and do nothing; launch "
          "only the blocks that can pass it"));
      // --- legality and text -----------------------------------------------------
      bool ArgsPure = true;
      for (const Expr *A : L->arguments())
        ArgsPure &= isPure(C, A);
      if (!ArgsPure) {
        refuse(F, "a launch argument has side effects");
        continue;
      }
      if (!isa<TranslationUnitDecl>(K->getDeclContext())) {
        refuse(F, "'" + KN + "' is in a namespace or a class (the launch is "
                      "written with its plain name)");
        continue;
      }
      if (inMacro(S->getSourceRange()) || inMacro(L->getSourceRange())) {
        refuse(F, "the launch comes from a macro expansion");
        continue;
      }
      if ([&] {
            for (const NamedDecl *D :
                 C.getTranslationUnitDecl()->lookup(K->getDeclName()))
              if (D->getCanonicalDecl() != K->getCanonicalDecl())
                return true;
            return false;
          }()) {
        refuse(F, "'" + KN + "' is overloaded");
        continue;
      }
      {
        const Expr *GW = writtenLaunchDim(Cfg->getArg(0));
        const Expr *BW = writtenLaunchDim(Cfg->getArg(1));
        if (!pureLaunchValue(C, GW ? GW : Cfg->getArg(0)) ||
            !pureLaunchValue(C, BW ? BW : Cfg->getArg(1))) {
          refuse(F, "the grid or the block has side effects");
          continue;
        }
      }
      if (!defaultStreamNoSharedMemory(C, L)) {
        refuse(F, "the launch names dynamic shared memory or a stream");
        continue;
      }
      bool Lower = false;
      for (const DimBounds &D : Sh->D)
        Lower |= !D.Lo.empty();
      const FunctionDecl *Def = K->getDefinition();
      if (Lower) {
        SourceLocation KEnd =
            Def ? SM.getExpansionLoc(Def->getEndLoc()) : SourceLocation();
        if (!Def || !SM.isBeforeInTranslationUnit(
                        KEnd, SM.getExpansionLoc(Fn->getBeginLoc())) ||
            SM.getFileID(KEnd) != SM.getFileID(SM.getExpansionLoc(L->getBeginLoc())) ||
            !isa<TranslationUnitDecl>(Def->getDeclContext()) ||
            inMacro(Def->getBody()->getSourceRange())) {
          refuse(F, "'" + KN + "' is not defined at file scope before the "
                        "launching function in this file (a copy of it "
                        "starts at the first block that can pass)");
          continue;
        }
      }
      // A bound as host text: the arguments in place of the parameters,
      // cast to the parameters' types; the value in the comparison's type.
      std::string Why;
      auto HostBound = [&](const Bound &B) -> std::string {
        std::vector<std::pair<const Stmt *, std::string>> Reps;
        forEachStmt(B.B, [&](const Stmt *X) {
          if (const auto *DR = dyn_cast<DeclRefExpr>(X))
            if (const auto *P = dyn_cast<ParmVarDecl>(DR->getDecl())) {
              std::string A = sourceText(
                  C, L->getArg(P->getFunctionScopeIndex())->getSourceRange());
              Reps.push_back({DR, "((" +
                                      P->getType()
                                          .getCanonicalType()
                                          .getUnqualifiedType()
                                          .getAsString() +
                                      ")(" + A + "))"});
            }
        });
        std::string T = rewrittenText(C, B.B, Reps);
        if (T.empty())
          return "";
        return "(long long)(" + B.Common.getAsString() + ")(" + T + ")" +
               (B.Adjust ? " + " + std::to_string(B.Adjust) : "");
      };
      std::string Ind = indentOf(C, L->getBeginLoc());
      std::string I1 = Ind + "  ", I2 = Ind + "    ";
      std::string G = freshName(C, context(), Fn, "cudal1_g");
      std::string Bk = freshName(C, context(), Fn, "cudal1_b");
      std::string O = freshName(C, context(), Fn, "cudal1_o");
      std::string Fits = freshName(C, context(), Fn, "cudal1_fits");
      std::string GridT = sourceText(C, Cfg->getArg(0)->getSourceRange());
      std::string BlockT = sourceText(C, Cfg->getArg(1)->getSourceRange());
      std::string Args;
      bool TextOk = !GridT.empty() && !BlockT.empty();
      for (unsigned A = 0; A < L->getNumArgs(); ++A) {
        std::string T = sourceText(C, L->getArg(A)->getSourceRange());
        TextOk &= !T.empty();
        Args += (A ? ", " : "") + T;
      }
      std::string Text = "{\n" + I1 + "// cuda-l1 launch-idle-blocks: only the blocks of '" +
                         KN + "' that hold a thread inside its guard\n" + I1 +
                         "dim3 " + G + " = dim3(" + GridT + "), " + Bk +
                         " = dim3(" + BlockT + ");\n" + I1 + "unsigned " + O +
                         "[3] = {0, 0, 0};\n" + I1 +
                         "// a shape CUDA accepts, else the launch as written\n" +
                         I1 + "bool " + Fits + " = " + Bk + ".x && " + Bk +
                         ".y && " + Bk + ".z && (long long)" + Bk + ".x * " +
                         Bk + ".y * " + Bk + ".z <= 1024 && " + G +
                         ".x <= 2147483647u && " + G + ".y <= 65535 && " + G +
                         ".z <= 65535;\n";
      for (int D = 0; D < 3; ++D) {
        const DimBounds &DB = Sh->D[D];
        if (DB.Hi.empty() && DB.Lo.empty())
          continue;
        std::string d(1, "xyz"[D]);
        std::string Hi = "cudal1_hi", Lo = "cudal1_lo";
        Text += I1 + "{ // along " + d + ": blocks [lo / blockDim." + d +
                ", ceil(hi / blockDim." + d + "))\n";
        Text += I2 + "long long " + Lo + " = 0, " + Hi + " = (long long)" + G +
                "." + d + " * " + Bk + "." + d + ";\n";
        Text += I2 + Fits + " = " + Fits + " && " + Hi +
                " <= 2147483647LL;\n";
        for (const Bound &B : DB.Hi) {
          std::string T = HostBound(B);
          TextOk &= !T.empty();
          Text += I2 + "if (" + T + " < " + Hi + ")\n" + I2 + "  " + Hi +
                  " = " + T + ";\n";
        }
        for (const Bound &B : DB.Lo) {
          std::string T = HostBound(B);
          TextOk &= !T.empty();
          Text += I2 + "if (" + T + " > " + Lo + ")\n" + I2 + "  " + Lo +
                  " = " + T + ";\n";
        }
        Text += I2 + "long long cudal1_first = " + Lo + " / " + Bk + "." + d +
                ", cudal1_end = " + Hi + " <= 0 ? 0 : (" + Hi + " + " + Bk +
                "." + d + " - 1) / " + Bk + "." + d + ";\n";
        Text += I2 + "if (cudal1_end < cudal1_first)\n" + I2 +
                "  cudal1_end = cudal1_first;\n";
        if (!DB.Lo.empty())
          Text += I2 + O + "[" + std::to_string(D) +
                  "] = (unsigned)cudal1_first;\n" + I2 + G + "." + d +
                  " = (unsigned)(cudal1_end - cudal1_first);\n";
        else
          Text += I2 + G + "." + d + " = (unsigned)cudal1_end;\n";
        Text += I1 + "}\n";
      }
      std::string Clone = "cudal1_idle_" + KN;
      std::string Launch =
          Lower ? Clone + "<<<" + G + ", " + Bk + ">>>(" + Args + ", " + O +
                      "[0], " + O + "[1], " + O + "[2]);"
                : KN + "<<<" + G + ", " + Bk + ">>>(" + Args + ");";
      Text += I1 + "if (!" + Fits + ")\n" + I2 + KN + "<<<" + GridT + ", " +
              BlockT + ">>>(" + Args + ");\n" + I1 + "else if (" + G +
              ".x && " + G + ".y && " + G + ".z)\n" + I2 + Launch + "\n" +
              Ind + "}";
      auto R = statementRange(C, S);
      if (!TextOk || !R) {
        refuse(F, "the launch, its arguments or the guard's bounds cannot "
                  "be read from the file (macros)");
        continue;
      }
      FixIt X;
      X.Exact = Exactness::Bitwise;
      X.HostOnly = true;
      X.Description = "launch only the blocks of '" + KN +
                      "' that hold a thread inside its guard";
      X.Edits.push_back(makeTextEdit(C, *R, Text));
      if (Lower) {
        const std::string Off[3] = {"cudal1_ox", "cudal1_oy", "cudal1_oz"};
        std::string CT = cloneText(
            C, Def, Clone,
            "unsigned cudal1_ox, unsigned cudal1_oy, unsigned cudal1_oz", Off);
        if (CT.empty()) {
          refuse(F, "the kernel's definition cannot be copied (macros, no "
                    "parameters)");
          continue;
        }
        SourceLocation After = Lexer::getLocForEndOfToken(
            SM.getExpansionLoc(Def->getBody()->getEndLoc()), 0, SM,
            C.getLangOpts());
        // The copy takes the definition as written: a fix of this round
        // that edits it goes first (FixIt::Copies).
        X.Copies.push_back(makeTextEdit(
            C,
            CharSourceRange::getTokenRange(
                SM.getExpansionLoc(Def->getBeginLoc()),
                SM.getExpansionLoc(Def->getBody()->getEndLoc())),
            ""));
        std::string Guard = "CUDAL1_IDLE_" + KN;
        X.Edits.push_back(makeInsertion(
            C, After,
            "\n\n#ifndef " + Guard + "\n#define " + Guard +
                "\n// cuda-l1 launch-idle-blocks: '" + KN +
                "' from the given first blocks\n" + CT + "\n#endif"));
      }
      F.Fix = std::move(X);
    }
  }
}

} // namespace cudal1
