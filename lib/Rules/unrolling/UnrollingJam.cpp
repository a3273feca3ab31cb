//===- UnrollingJam.cpp - unrolling-jam ------------------------------------===//
//
// unrolling-jam: `for (c = 0; c < 3; c++) { float sum = 0; <loop nest adding
// into sum>; out[.. c ..] = sum; }` where each iteration has its own
// accumulators and its own output: the nest's index arithmetic, bounds
// clamps and loads that do not depend on c are done once per iteration of
// c. Unroll and jam: the accumulators become arrays indexed by c, the c
// loop (fully unrolled) moves into the innermost loop of the nest, and the
// statements after the nest run in their own c loop. Each accumulator sees
// the same operations in the same order: bitwise.
//
//===----------------------------------------------------------------------===//
#include "UnrollingJam.h"
#include "../StoreTarget.h"
#include "../coalescing/RowWalk.h"

#include "clang/AST/ParentMapContext.h"

#include <set>

using namespace clang;
using namespace llvm;

namespace cudal1 {

RuleInfo UnrollingJam::info() const {
  RuleInfo I;
  I.Id = "unrolling-jam";
  I.Category = "unrolling";
  I.Summary = "a loop of a few independent iterations around a loop nest "
              "repeats the nest's work per iteration; unroll and jam";
  I.Exactness = Exactness::Bitwise;
  I.Help =
      "An outer loop with a constant trip count of 2 to 8 whose iterations "
      "are independent (each declares its own accumulators, runs the same "
      "loop nest into them and then stores its own results: the colour "
      "channels of an image filter) recomputes, in every iteration, what "
      "the nest does that does not depend on the outer index: clamped "
      "neighbour indices, weights, bounds checks. Unroll and jam moves the "
      "outer loop, fully unrolled, into the innermost loop, with one "
      "accumulator per iteration: that work is done once. Bitwise: each "
      "accumulator gets the same operations in the same order.";
  I.DefaultOptions["MeasureFirst"] = "true";
  I.Doc.Detects =
      "`for (int c = 0; c < 3; c++) { float sum = 0.0f, wsum = 0.0f; for "
      "(dy ...) for (dx ...) { ... sum += w * in[(yy * width + xx) * 3 + "
      "c]; wsum += w; } out[(y * width + x) * 3 + c] = sum / wsum; }`: an "
      "outer loop of 2 to 8 iterations (constant bounds) whose body is "
      "declarations of scalar accumulators (initialised without reading "
      "memory), one loop nest, and statements after it. The nest's loops "
      "are nested directly (between them only declarations), their "
      "headers and those declarations do not use the outer index or the "
      "accumulators, and the innermost body has no loop. It is reported "
      "only when the innermost body does some work without the outer "
      "index (a declaration or a load that does not use it).";
  I.Doc.WhySlow =
      "Every iteration of the outer loop runs the whole nest again: the "
      "index arithmetic, clamps and weights of each tap are computed three "
      "times for three channels. Measured on the H200 "
      "(utils/experiments/blur-jam.cu, a 5x5 Gaussian blur of a 2048x2048 "
      "RGB image): 256.9 us as written, 122.3 us jammed (2.10x), bit for "
      "bit the same output.";
  I.Doc.Example = R"cuda(for (int c = 0; c < 3; c++) {            // warning
  float sum = 0.0f, wsum = 0.0f;
  for (int dy = -2; dy <= 2; dy++)
    for (int dx = -2; dx <= 2; dx++) {
      int xx = min(max(x + dx, 0), width - 1);
      int yy = min(max(y + dy, 0), height - 1);
      float w = expf(-(dx * dx + dy * dy) / 4.5f);
      sum += w * in[(yy * width + xx) * 3 + c];
      wsum += w;
    }
  out[(y * width + x) * 3 + c] = (unsigned char)(sum / wsum + 0.5f);
})cuda";
  I.Doc.Fixed = R"cuda({ // cuda-l1 unrolling-jam
  float cudal1_sum[3], cudal1_wsum[3];
#pragma unroll
  for (int c = 0; c < 3; c++) {
    cudal1_sum[c] = 0.0f;
    cudal1_wsum[c] = 0.0f;
  }
  for (int dy = -2; dy <= 2; dy++)
    for (int dx = -2; dx <= 2; dx++) {
#pragma unroll
      for (int c = 0; c < 3; c++) {
      int xx = min(max(x + dx, 0), width - 1);
      int yy = min(max(y + dy, 0), height - 1);
      float w = expf(-(dx * dx + dy * dy) / 4.5f);
      cudal1_sum[c] += w * in[(yy * width + xx) * 3 + c];
      cudal1_wsum[c] += w;
    }
    }
#pragma unroll
  for (int c = 0; c < 3; c++) {
  out[(y * width + x) * 3 + c] = (unsigned char)(cudal1_sum[c] / cudal1_wsum[c] + 0.5f);
  }
})cuda";
  I.Doc.Fix =
      "The accumulators become arrays of the trip count (declared with "
      "their type as written), set in an unrolled copy of the outer loop; "
      "the innermost body runs inside an unrolled copy of the outer loop, "
      "with each accumulator read and written through its array; the "
      "statements after the nest run in a third copy. With the outer loop "
      "unrolled the arrays stay in registers, and the compiler computes "
      "what does not depend on the index once.\n"
      "\n"
      "Legality: the statements after the nest of one iteration now run "
      "after the nest of every iteration, so what they store must not be "
      "read by the nest: their stores go through pointer parameters that "
      "are proven distinct from every array the nest reads (`__restrict__`, "
      "or separate allocations at every launch), and the nest stores "
      "nothing but its accumulators and its own locals. No `break`, "
      "`continue`, `return` or `goto`, no barrier, atomic, shuffle or call "
      "of the program's own functions anywhere in the loop.\n"
      "\n"
      "It is bitwise but not faster everywhere (registers: one accumulator "
      "per iteration): `--fix` alone does not apply it (option "
      "`MeasureFirst`, default true); `--fix --verify=run` applies it where "
      "the GPU measures it faster.\n"
      "\n"
      "## When there is no fix\n"
      "\n"
      "- the statements after the nest store through a pointer the nest "
      "reads, or one not proven distinct from it;\n"
      "- an accumulator is not a scalar of arithmetic type, or its "
      "initialiser reads memory;\n"
      "- the loop comes from a macro.";
  return I;
}

namespace {

/// Through `#pragma unroll` (an AttributedStmt) to the statement.
const Stmt *stripAttributes(const Stmt *S) {
  while (const auto *A = dyn_cast_or_null<AttributedStmt>(S))
    S = A->getSubStmt();
  return S;
}

bool mentionsAny(const Stmt *S, const std::set<const Decl *> &Ds) {
  bool Found = false;
  forEachStmt(S, [&](const Stmt *X) {
    if (const auto *R = dyn_cast<DeclRefExpr>(X))
      Found |= Ds.count(R->getDecl()) > 0;
  });
  return Found;
}

/// The variable an array access \p E reads or writes through: a pointer
/// parameter, a local, __shared__ or __constant__ array; null otherwise.
const VarDecl *accessRoot(const ArraySubscriptExpr *E,
                          const FunctionFacts &F) {
  const Expr *B = E->getBase()->IgnoreParenImpCasts();
  while (const auto *A = dyn_cast<ArraySubscriptExpr>(B))
    B = A->getBase()->IgnoreParenImpCasts();
  if (const ParmVarDecl *P = rootPointerParam(B, F))
    return P;
  const auto *D = dyn_cast<DeclRefExpr>(B);
  const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
  if (!V)
    return nullptr;
  // Memory the loop cannot store into (its stores go through pointer
  // parameters or into scalars): __constant__ and __shared__ arrays (a
  // table the kernel filled before the loop), local arrays.
  if (V->hasAttr<CUDAConstantAttr>() || V->hasAttr<CUDASharedAttr>() ||
      (V->hasLocalStorage() && V->getType()->isArrayType()))
    return V;
  return nullptr;
}

/// \p Text of a statement ending in ';' or '}': the source range of an
/// expression statement, or of an `if` whose branch is one, ends before its
/// ';'.
std::string withSemicolon(std::string Text) {
  size_t E = Text.find_last_not_of(" \t\n");
  if (E == std::string::npos || (Text[E] != ';' && Text[E] != '}'))
    Text += ";";
  return Text;
}

/// The variables declared in \p S.
std::set<const Decl *> declaredIn(const Stmt *S) {
  std::set<const Decl *> Out;
  forEachStmt(S, [&](const Stmt *Z) {
    if (const auto *DS = dyn_cast<DeclStmt>(Z))
      for (const Decl *D : DS->decls())
        Out.insert(D);
  });
  return Out;
}

} // namespace

void UnrollingJam::checkKernel(const KernelUnit &Kernel) {
  if (Kernel.IsTemplate)
    return;
  forEachStmt(Kernel.FD->getBody(), [&](const Stmt *S) {
    if (const auto *FS = dyn_cast<ForStmt>(S))
      match(Kernel.FD, Kernel.Facts, FS);
  });
}

// Over 150 lines: the outer loop, the nest, the legality of the new order
// and the rewrite share the matched nodes.
void UnrollingJam::match(const FunctionDecl *K, const FunctionFacts &F,
                         const ForStmt *Outer) {
  ASTContext &Ctx = ctx();
  std::optional<LoopShape> Sh = analyzeFor(Ctx, Outer);
  if (!Sh || !Sh->IV || Sh->Step != 1)
    return;
  std::optional<int64_t> Lo = evalInt(Ctx, Sh->Init),
                         Hi = evalInt(Ctx, Sh->Bound);
  if (!Lo || !Hi)
    return;
  std::optional<int64_t> Trip = tripCount(*Lo, *Hi, Sh->Cmp, Sh->Step);
  if (!Trip || *Trip < 2 || *Trip > 8)
    return;
  const auto *Body = dyn_cast<CompoundStmt>(Outer->getBody());
  if (!Body || Body->size() < 2)
    return;
  // `#pragma unroll` on the loop itself would be left before a block.
  {
    auto Ps = Ctx.getParents(*Outer);
    if (!Ps.empty() && Ps[0].get<AttributedStmt>())
      return;
  }
  // Declarations of scalar accumulators, one loop nest, statements after.
  std::vector<const VarDecl *> Accs;
  std::set<const Decl *> AccSet;
  const ForStmt *Nest = nullptr;
  const Stmt *NestStmt = nullptr; // the nest as written (with its pragma)
  std::vector<const Stmt *> Tail;
  for (const Stmt *S : Body->body()) {
    if (!Nest) {
      if (const auto *DS = dyn_cast<DeclStmt>(S)) {
        for (const Decl *D : DS->decls()) {
          const auto *V = dyn_cast<VarDecl>(D);
          if (!V || !V->getType()->isArithmeticType() || !V->getInit() ||
              !isPureNoMemory(V->getInit()) ||
              V->getType().isConstQualified())
            return;
          Accs.push_back(V);
          AccSet.insert(V);
        }
        continue;
      }
      Nest = dyn_cast_or_null<ForStmt>(stripAttributes(S));
      if (!Nest)
        return;
      NestStmt = S;
      continue;
    }
    Tail.push_back(S);
  }
  if (!Nest || Accs.empty() || Tail.empty())
    return;
  std::set<const Decl *> IVAndAccs = AccSet;
  IVAndAccs.insert(Sh->IV);
  // The copies of the loop declare its index again around the innermost
  // body and the statements after: nothing inside may have that name.
  for (const Stmt *S : Body->body())
    for (const Decl *D : declaredIn(S))
      if (const auto *ND = dyn_cast<NamedDecl>(D);
          ND && ND->getName() == Sh->IV->getName())
        return;
  // Down the nest: headers and the declarations between loops without the
  // index or the accumulators.
  const ForStmt *Inner = Nest;
  while (true) {
    for (const Stmt *H : {Inner->getInit(), (const Stmt *)Inner->getCond(),
                          (const Stmt *)Inner->getInc()})
      if (H && mentionsAny(H, IVAndAccs))
        return;
    const Stmt *B = stripAttributes(Inner->getBody());
    const ForStmt *Next = dyn_cast_or_null<ForStmt>(B);
    if (const auto *CS = dyn_cast_or_null<CompoundStmt>(B); CS && !Next) {
      const ForStmt *Only = nullptr;
      bool Loops = false, Other = false;
      for (const Stmt *X : CS->body()) {
        const Stmt *Y = stripAttributes(X);
        if (const auto *FS = dyn_cast<ForStmt>(Y)) {
          Loops |= Only != nullptr;
          Only = FS;
        } else if (!isa<DeclStmt>(Y)) {
          Other = true;
        }
        forEachStmt(Y, [&](const Stmt *Z) {
          Loops |= Z != Y && (isa<ForStmt>(Z) || isa<WhileStmt>(Z) ||
                              isa<DoStmt>(Z));
        });
      }
      if (Only && !Other && !Loops) {
        for (const Stmt *X : CS->body())
          if (isa<DeclStmt>(X) && mentionsAny(X, IVAndAccs))
            return;
        Next = Only;
      } else if (Only || Loops) {
        return; // a loop beside other statements: not a plain nest
      }
    }
    if (!Next)
      break;
    Inner = Next;
  }
  const Stmt *Innermost = Inner->getBody();
  bool HasLoop = false;
  forEachStmt(Innermost, [&](const Stmt *Z) {
    HasLoop |= isa<ForStmt>(Z) || isa<WhileStmt>(Z) || isa<DoStmt>(Z);
  });
  if (HasLoop)
    return;
  // Nothing leaves the loop early, nothing orders memory or calls the
  // program's code; the nest stores only into its accumulators and its own
  // locals.
  bool Bad = false;
  forEachStmt(Body, [&](const Stmt *Z) {
    if (isa<BreakStmt>(Z) || isa<ContinueStmt>(Z) || isa<ReturnStmt>(Z) ||
        isa<GotoStmt>(Z) || isa<AsmStmt>(Z))
      Bad = true;
    if (const auto *C = dyn_cast<CallExpr>(Z))
      Bad |= !sideEffectFree(Ctx, C);
  });
  if (Bad)
    return;
  std::set<const VarDecl *> ReadRoots;
  std::set<const Decl *> NestLocals = declaredIn(Nest),
                         InnerLocals = declaredIn(Inner->getBody());
  std::set<const Stmt *> InnerStmts;
  forEachStmt(Inner->getBody(), [&](const Stmt *Z) { InnerStmts.insert(Z); });
  // Every pointer parameter the nest names may be read through (a call's
  // argument `buf + k`, not only a subscript).
  forEachStmt(Nest, [&](const Stmt *Z) {
    if (const auto *D = dyn_cast<DeclRefExpr>(Z))
      if (const auto *P = dyn_cast<ParmVarDecl>(D->getDecl());
          P && P->getType()->isPointerType())
        ReadRoots.insert(P);
  });
  forEachStmt(Nest, [&](const Stmt *Z) {
    const Expr *Target = storeTarget(Z);
    if (Target) {
      const auto *D = dyn_cast<DeclRefExpr>(Target->IgnoreParenImpCasts());
      const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
      // The innermost body runs once per iteration of the outer loop now:
      // it may change only the accumulators and its own locals; the loop
      // headers only their induction variables.
      bool InInner = InnerStmts.count(Z) > 0;
      if (!V || !(AccSet.count(V) ||
                  (InInner ? InnerLocals.count(V) : NestLocals.count(V))))
        Bad = true;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(Z);
        UO && UO->getOpcode() == UO_Deref)
      Bad = true;
    if (const auto *ME = dyn_cast<MemberExpr>(Z); ME && ME->isArrow())
      Bad = true;
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(Z)) {
      // The outermost subscript of an access names its root: an inner
      // one (`t[i]` of `t[i][j]`) is the base of its parent.
      const Stmt *Cur = A;
      while (true) {
        auto Ps = Ctx.getParents(*Cur);
        const Stmt *Up = Ps.empty() ? nullptr : Ps[0].get<Stmt>();
        if (Up && (isa<ImplicitCastExpr>(Up) || isa<ParenExpr>(Up))) {
          Cur = Up;
          continue;
        }
        if (const auto *OA = dyn_cast_or_null<ArraySubscriptExpr>(Up);
            OA && OA->getBase()->IgnoreParenImpCasts() == A)
          return;
        break;
      }
      const VarDecl *R = accessRoot(A, F);
      if (!R)
        Bad = true;
      else
        ReadRoots.insert(R);
    }
  });
  if (Bad)
    return;
  // Statements after the nest: stores through pointer parameters the nest
  // does not read (proven distinct), or into locals of their own.
  std::set<const ParmVarDecl *> StoreRoots;
  for (const Stmt *T : Tail)
    forEachStmt(T, [&](const Stmt *Z) {
      const Expr *Target = storeTarget(Z);
      if (!Target)
        return;
      const Expr *TE = Target->IgnoreParenImpCasts();
      if (const auto *D = dyn_cast<DeclRefExpr>(TE)) {
        const auto *V = dyn_cast<VarDecl>(D->getDecl());
        // The accumulators (their own iteration's) or the tail's locals.
        if (!V || !(AccSet.count(V) || declaredIn(T).count(V)))
          Bad = true;
        return;
      }
      const auto *TA = dyn_cast<ArraySubscriptExpr>(TE);
      const ParmVarDecl *P =
          TA ? dyn_cast_or_null<ParmVarDecl>(accessRoot(TA, F)) : nullptr;
      if (!P)
        Bad = true;
      else
        StoreRoots.insert(P);
    });
  if (Bad)
    return;
  std::string How, Why;
  for (const ParmVarDecl *P : StoreRoots)
    for (const VarDecl *R : ReadRoots) {
      const auto *Q = dyn_cast<ParmVarDecl>(R);
      if (!Q)
        continue; // a local, __shared__ or __constant__ table: never stored
      if (P == Q || !provenDistinct(Ctx, context(), K, P, Q, How, Why))
        return;
    }
  // Worth it only when the innermost body does work without the index: a
  // declaration or a load that does not use it.
  bool Shared = false;
  std::set<const Decl *> IVOnly{Sh->IV};
  forEachStmt(Innermost, [&](const Stmt *Z) {
    if (const auto *DS = dyn_cast<DeclStmt>(Z))
      Shared |= !mentionsAny(DS, IVAndAccs);
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(Z))
      Shared |= !mentionsAny(A, IVOnly);
  });
  if (!Shared)
    return;
  if (inMacro(Outer->getSourceRange()))
    return;

  // --- rewrite ------------------------------------------------------------
  std::string IVName = Sh->IV->getName().str();
  std::string Idx = *Lo == 0 ? IVName
                             : "(" + IVName + " - (" + std::to_string(*Lo) + "))";
  std::map<const Decl *, std::string> Arr;
  std::string Decls;
  std::string Ind = indentOf(Ctx, Outer->getBeginLoc());
  std::string I1 = Ind + "  ";
  for (const VarDecl *V : Accs) {
    std::string Name = freshName(Ctx, context(), K, "cudal1_" + V->getName().str());
    Arr[V] = Name;
    std::string Ty = V->getTypeSourceInfo()
                         ? sourceText(Ctx, V->getTypeSourceInfo()
                                               ->getTypeLoc()
                                               .getSourceRange())
                         : "";
    if (Ty.empty() || StringRef(Ty).contains("auto"))
      return;
    Decls += I1 + Ty + " " + Name + "[" + std::to_string(*Trip) + "];\n";
  }
  auto WithArrays = [&](const Stmt *S) {
    std::vector<std::pair<const Stmt *, std::string>> R;
    forEachStmt(S, [&](const Stmt *Z) {
      if (const auto *D = dyn_cast<DeclRefExpr>(Z))
        if (auto It = Arr.find(D->getDecl()); It != Arr.end())
          R.push_back({D, It->second + "[" + Idx + "]"});
    });
    return rewrittenText(Ctx, S, R);
  };
  // The outer loop's header as written: `for (int c = 0; c < 3; c++)`.
  std::string Header = sourceText(
      Ctx, SourceRange(Outer->getBeginLoc(), Outer->getRParenLoc()));
  if (Header.empty())
    return;
  std::string T = "{ // cuda-l1 unrolling-jam\n" + Decls;
  T += "#pragma unroll\n" + I1 + Header + " {\n";
  for (const VarDecl *V : Accs) {
    std::string Init = WithArrays(V->getInit());
    if (Init.empty())
      return;
    T += I1 + "  " + Arr[V] + "[" + Idx + "] = " + Init + ";\n";
  }
  T += I1 + "}\n";
  std::string InnerText = WithArrays(Innermost);
  if (InnerText.empty())
    return;
  InnerText = withSemicolon(InnerText);
  std::string InnerInd = indentOf(Ctx, Inner->getBeginLoc());
  std::string NewInner = "{\n#pragma unroll\n" + InnerInd + "  " + Header +
                         " " + (isa<CompoundStmt>(Innermost) ? "" : "{ ") +
                         InnerText +
                         (isa<CompoundStmt>(Innermost) ? "" : " }") + "\n" +
                         InnerInd + "}";
  std::string NestText = rewrittenText(Ctx, NestStmt, {{Innermost, NewInner}});
  if (NestText.empty())
    return;
  // The nest keeps its own indentation, one level deeper.
  T += I1 + reindent(NestText, "") + "\n";
  T += "#pragma unroll\n" + I1 + Header + " {\n";
  for (const Stmt *S : Tail) {
    std::string X = WithArrays(S);
    if (X.empty())
      return;
    X = withSemicolon(X);
    T += indentOf(Ctx, S->getBeginLoc()) + X + "\n";
  }
  T += I1 + "}\n" + Ind + "}";
  std::string EW;
  std::optional<CharSourceRange> R = editableRange(
      Ctx, CharSourceRange::getTokenRange(Outer->getSourceRange()), EW);
  if (!R)
    return;
  std::string Names;
  for (const VarDecl *V : Accs)
    Names += (Names.empty() ? "'" : ", '") + V->getName().str() + "'";
  Finding Fd = makeFinding(
      Ctx, "unrolling-jam", Outer->getBeginLoc(),
      "the " + std::to_string(*Trip) + " iterations of this loop are "
          "independent (own accumulators " + Names +
          ", own results) and each runs the whole loop nest again, "
          "recomputing what does not depend on '" + IVName +
          "': unroll and jam them into the innermost loop",
      K, SourceRange(Outer->getBeginLoc(), Outer->getRParenLoc()));
  FixIt Fix;
  Fix.Exact = Exactness::Bitwise;
  Fix.NeedsMeasurement = optionBool("MeasureFirst", true);
  Fix.Description = "unroll and jam: one accumulator per iteration, the "
                    "iterations inside the innermost loop";
  Fix.Edits.push_back(makeTextEdit(Ctx, *R, T));
  Fd.Fix = Fix;
  report(std::move(Fd));
}

} // namespace cudal1
