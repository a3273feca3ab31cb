//===- SetupKernels.cpp - kernels a program runs once beside a loop -------===//
#include "SetupKernels.h"
#include "CallTree.h"
#include "LoopTrips.h"

#include "cudal1/Analysis/AstFacts.h"

#include "cudal1/Analysis/Finding.h"
#include "cudal1/Analysis/Rule.h"
#include "cudal1/Rules/RuleSupport.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <vector>

using namespace clang;

namespace cudal1 {

namespace {

/// Calls of and references to the functions of a translation unit, outside
/// template instantiations (as SharedRuleFacts' launch sites are).
class CallIndex : public RecursiveASTVisitor<CallIndex> {
public:
  std::map<const FunctionDecl *, std::vector<const CallExpr *>> Calls;
  std::map<const FunctionDecl *, unsigned> Refs;
  std::set<std::string> UnresolvedNames;

  static const FunctionDecl *key(const FunctionDecl *FD) {
    if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
      FD = P;
    return FD->getCanonicalDecl();
  }
  bool VisitCallExpr(CallExpr *E) {
    if (isa<CUDAKernelCallExpr>(E))
      return true;
    if (const FunctionDecl *FD = E->getDirectCallee())
      Calls[key(FD)].push_back(E);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (const auto *FD = dyn_cast<FunctionDecl>(E->getDecl()))
      ++Refs[key(FD)];
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) {
    if (const auto *FD = dyn_cast<FunctionDecl>(E->getMemberDecl()))
      ++Refs[key(FD)];
    return true;
  }
  bool VisitOverloadExpr(OverloadExpr *E) {
    UnresolvedNames.insert(E->getName().getAsString());
    return true;
  }
  bool VisitCXXDependentScopeMemberExpr(CXXDependentScopeMemberExpr *E) {
    UnresolvedNames.insert(E->getMember().getAsString());
    return true;
  }
};

/// One translation unit's setup kernels and where their code is.
struct SetupIndex {
  std::weak_ptr<const SharedRuleFacts> Facts;
  /// (file, begin offset, end offset) of the setup kernels, the device
  /// functions only they call, and the setup kernels' launches.
  std::vector<std::tuple<FileID, unsigned, unsigned>> Places;
};

class Builder {
public:
  Builder(ASTContext &Ctx) : Ctx(Ctx) {
    Index.TraverseDecl(Ctx.getTranslationUnitDecl());
  }

  /// Where \p S runs: inside a loop (or in a function called inside one,
  /// up to 4 levels of callers; true when this cannot be told), and inside
  /// a loop that repeats work (a time step, the timed repetitions: not one
  /// whose condition is driven by a product, a quotient or a shift, as the
  /// passes of a reduction or a scan are, nor one of fewer than 8 constant
  /// trips; false when this cannot be told).
  struct Where {
    bool AnyLoop = false;
    unsigned RepeatLoops = 0; ///< how many such loops are around it
  };
  static constexpr Where Unknown{true, 0};

  Where where(const Stmt *S, unsigned Depth) {
    DynTypedNode N = DynTypedNode::create(*S);
    const Stmt *Child = S;
    Where W;
    for (unsigned Steps = 0; Steps < 256; ++Steps) {
      auto Parents = Ctx.getParents(N);
      if (Parents.empty())
        return Unknown;
      const DynTypedNode &P = Parents[0];
      if (const auto *St = P.get<Stmt>()) {
        if (isa<LambdaExpr>(St))
          return Unknown;
        const Stmt *Cond = nullptr, *Step = nullptr, *Body = nullptr;
        bool Loop = true;
        if (const auto *For = dyn_cast<ForStmt>(St)) {
          Loop = For->getInit() != Child;
          Cond = For->getCond();
          Step = For->getInc();
          Body = For->getBody();
        } else if (const auto *Wh = dyn_cast<WhileStmt>(St)) {
          Cond = Wh->getCond();
          Body = Wh->getBody();
        } else if (const auto *Do = dyn_cast<DoStmt>(St)) {
          Cond = Do->getCond();
          Body = Do->getBody();
        } else if (const auto *Range = dyn_cast<CXXForRangeStmt>(St)) {
          Body = Range->getBody();
        } else {
          Loop = false;
        }
        if (Loop) {
          W.AnyLoop = true;
          if (!geometricLoop(Cond, Step, Body) && !fewTrips(St))
            ++W.RepeatLoops;
        }
        Child = St;
        N = P;
        continue;
      }
      if (const auto *FD = P.get<FunctionDecl>()) {
        Where C = callers(FD, Depth);
        return {W.AnyLoop || C.AnyLoop, W.RepeatLoops + C.RepeatLoops};
      }
      N = P;
    }
    return Unknown;
  }

  /// A loop whose condition reads a variable that the loop multiplies,
  /// divides or shifts (`n /= 2`, `n = (n + 255) / 256`, `offset *= 2`): it
  /// runs a logarithmic number of times, as the passes of a reduction or a
  /// scan do.
  static bool geometricLoop(const Stmt *Cond, const Stmt *Step,
                          const Stmt *Body) {
    if (!Cond)
      return false;
    std::set<const ValueDecl *> CondVars;
    forEachStmt(Cond, [&](const Stmt *X) {
      if (const auto *R = dyn_cast<DeclRefExpr>(X))
        CondVars.insert(R->getDecl());
    });
    bool Halving = false;
    auto Scan = [&](const Stmt *X) {
      const auto *B = dyn_cast<BinaryOperator>(X);
      if (!B || !B->isAssignmentOp())
        return;
      const auto *L = dyn_cast<DeclRefExpr>(B->getLHS()->IgnoreParenImpCasts());
      if (!L || !CondVars.count(L->getDecl()))
        return;
      if (B->getOpcode() == BO_DivAssign || B->getOpcode() == BO_ShrAssign ||
          B->getOpcode() == BO_MulAssign || B->getOpcode() == BO_ShlAssign) {
        Halving = true;
        return;
      }
      if (B->getOpcode() == BO_Assign)
        forEachStmt(B->getRHS(), [&](const Stmt *Y) {
          if (const auto *D = dyn_cast<BinaryOperator>(Y))
            if (D->getOpcode() == BO_Div || D->getOpcode() == BO_Shr ||
                D->getOpcode() == BO_Mul || D->getOpcode() == BO_Shl)
              Halving = true;
        });
    };
    if (Step)
      forEachStmt(Step, Scan);
    if (Body)
      forEachStmt(Body, Scan);
    return Halving;
  }

  /// A counted loop of fewer than 8 iterations with constant bounds (a
  /// test's `for (g = 0; g < 3; ++g)` over three grid shapes): a few
  /// launches written once, not a loop that repeats work.
  bool fewTrips(const Stmt *S) {
    auto Trips = constantTripCount(Ctx, S);
    return Trips && *Trips < 8;
  }

  /// Where the calls of \p FD run (`main` runs once).
  Where callers(const FunctionDecl *FD, unsigned Depth) {
    if (FD->isMain())
      return {};
    if (Depth >= 4)
      return Unknown;
    if (const auto *M = dyn_cast<CXXMethodDecl>(FD))
      if (M->isVirtual() || M->getParent()->isLambda())
        return Unknown;
    if (FD->getDeclName().isIdentifier() &&
        Index.UnresolvedNames.count(FD->getNameAsString()))
      return Unknown;
    const FunctionDecl *K = CallIndex::key(FD);
    auto It = Index.Calls.find(K);
    if (It == Index.Calls.end() || It->second.empty() ||
        Index.Refs[K] > It->second.size())
      return Unknown;
    Where W;
    for (const CallExpr *Call : It->second) {
      Where C = where(Call, Depth + 1);
      W.AnyLoop = W.AnyLoop || C.AnyLoop;
      W.RepeatLoops = std::max(W.RepeatLoops, C.RepeatLoops);
    }
    return W;
  }

  void addPlace(SourceRange R) {
    const SourceManager &SM = Ctx.getSourceManager();
    CharSourceRange E = SM.getExpansionRange(R);
    auto B = SM.getDecomposedLoc(E.getBegin());
    auto End = SM.getDecomposedLoc(E.getEnd());
    if (B.first.isValid() && B.first == End.first)
      Out.Places.emplace_back(B.first, B.second, End.second);
  }

  ASTContext &Ctx;
  CallIndex Index;
  SetupIndex Out;
};

/// A grid-stride loop (`i += blockDim.x * gridDim.x`): it maps the threads
/// to the elements, it does not repeat a thread's work.
bool gridStride(const Stmt *S) {
  const auto *For = dyn_cast<ForStmt>(S);
  bool Grid = false;
  if (For && For->getInc())
    forEachStmt(For->getInc(), [&](const Stmt *X) {
      if (const auto *E = dyn_cast<Expr>(X))
        Grid = Grid || StringRef(builtinName(E)).starts_with("gridDim");
    });
  return Grid;
}

/// The deepest nest of loops in \p Kernel's body (its definition's),
/// grid-stride loops not counted.
unsigned loopDepth(const Stmt *S) {
  if (!S)
    return 0;
  unsigned Inner = 0;
  for (const Stmt *C : S->children())
    Inner = std::max(Inner, loopDepth(C));
  bool Loop = isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
  return Inner + (Loop && !gridStride(S) ? 1 : 0);
}
unsigned loopDepth(const FunctionDecl *Kernel) {
  const FunctionDecl *Def = Kernel->getDefinition();
  return Def ? loopDepth(Def->getBody()) : 0;
}

/// `<<<1, 1>>>` (dim3(1) and `{1, 1, 1}` too): the kernel runs serially.
bool oneThread(ASTContext &Ctx, const CUDAKernelCallExpr *Site) {
  const CallExpr *Cfg = Site->getConfig();
  if (!Cfg || Cfg->getNumArgs() < 2)
    return false;
  for (unsigned A = 0; A < 2; ++A) {
    const Expr *W = writtenLaunchDim(Cfg->getArg(A));
    if (!W)
      return false;
    std::vector<const Expr *> Parts{W};
    if (auto Comps = writtenDimComponents(W))
      Parts = *Comps;
    for (const Expr *P : Parts) {
      auto V = evalInt(Ctx, P);
      if (!V || *V != 1)
        return false;
    }
  }
  return true;
}

/// Every launch of \p Kernel that can escape this translation unit's view
/// is in it: its address is used only in <<<>>> launches, and the kernel is
/// either declared only in the main file (or internal), or defined in a
/// header, where every file that launches it sees the definition and
/// decides for itself.
bool launchesSeen(ASTContext &Ctx, const CallIndex &Index,
                  const FunctionDecl *Kernel, const KernelLaunches &L) {
  // A launch through a pointer needs the kernel's address (a reference
  // that is not a launch); one in a template, whose kernel is not resolved,
  // names it.
  if (L.Sites.empty() || L.Refs > L.Sites.size() ||
      Index.UnresolvedNames.count(Kernel->getNameAsString()))
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  const FunctionDecl *Def = Kernel->getDefinition();
  if (!Def)
    return false;
  if (!SM.isInMainFile(SM.getExpansionLoc(Def->getLocation())))
    return true;
  if (Kernel->isExternallyVisible())
    for (const FunctionDecl *R : Kernel->redecls())
      if (!SM.isInMainFile(SM.getExpansionLoc(R->getLocation())))
        return false;
  return true;
}

SetupIndex build(ASTContext &Ctx, const CheckContext &CC) {
  const SharedRuleFacts &Facts = sharedFacts(Ctx, CC);
  Builder B(Ctx);
  B.Out.Facts = CC.Shared;
  // A kernel launched once is setup code only if it does less work than a
  // repeated one: its loop nest is shallower than the repeated kernel's
  // plus the host loops around that launch. A forward substitution launched
  // once (two nested loops per thread) next to a loop of one back
  // substitution row per launch (one loop per thread, in a host loop over
  // the rows) is not setup.
  std::set<const FunctionDecl *> Once;
  unsigned RepeatedWork = 0;
  bool AnyRepeated = false;
  for (const auto &[Kernel, L] : Facts.Launches) {
    bool InLoop = false;
    for (const CUDAKernelCallExpr *Site : L.Sites) {
      Builder::Where W = B.where(Site, 0);
      InLoop = InLoop || W.AnyLoop;
      if (W.RepeatLoops) {
        AnyRepeated = true;
        RepeatedWork =
            std::max(RepeatedWork, loopDepth(Kernel) + W.RepeatLoops);
      }
    }
    if (!InLoop && launchesSeen(Ctx, B.Index, Kernel, L))
      Once.insert(Kernel->getCanonicalDecl());
  }
  // A kernel that runs in one thread does its loops serially: one level
  // more (a one-thread sum over the partials of a reduction is not setup
  // code beside a column loop of launches).
  std::set<const FunctionDecl *> Setup;
  for (const FunctionDecl *K : Once) {
    const auto &Sites = Facts.Launches.find(K)->second.Sites;
    bool Serial = llvm::all_of(Sites, [&](const CUDAKernelCallExpr *S) {
      return oneThread(Ctx, S);
    });
    if (loopDepth(K) + (Serial && loopDepth(K) ? 1 : 0) < RepeatedWork)
      Setup.insert(K);
  }
  if (!AnyRepeated || Setup.empty())
    return std::move(B.Out);
  // The device functions each kernel calls; those that only setup kernels
  // call are setup code too.
  std::map<const FunctionDecl *, bool> OnlySetup;
  std::map<const FunctionDecl *, const FunctionDecl *> Def;
  for (const FunctionDecl *K : Facts.Kernels) {
    bool IsSetup = Setup.count(K->getCanonicalDecl());
    if (IsSetup)
      B.addPlace(K->getSourceRange());
    anyCalledDefinition(K->getBody(), 4, [&](const FunctionDecl *D) {
      const FunctionDecl *Key = CallIndex::key(D);
      auto [It, New] = OnlySetup.insert({Key, IsSetup});
      if (!New)
        It->second = It->second && IsSetup;
      Def[Key] = D;
      return false;
    });
  }
  for (const auto &[Key, Only] : OnlySetup)
    if (Only && !Def[Key]->hasAttr<CUDAGlobalAttr>())
      B.addPlace(Def[Key]->getSourceRange());
  for (const FunctionDecl *K : Setup) {
    auto It = Facts.Launches.find(K);
    if (It != Facts.Launches.end())
      for (const CUDAKernelCallExpr *Site : It->second.Sites)
        B.addPlace(Site->getSourceRange());
  }
  return std::move(B.Out);
}

} // namespace

bool inSetupKernel(ASTContext &Ctx, const CheckContext &CC, const Finding &F) {
  // One index per translation unit, built on first use. Each thread checks
  // one translation unit at a time.
  thread_local SetupIndex Cached;
  const SharedRuleFacts &Facts = sharedFacts(Ctx, CC);
  if (Cached.Facts.expired() || Cached.Facts.lock().get() != &Facts)
    Cached = build(Ctx, CC);
  if (Cached.Places.empty())
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  auto FE = SM.getFileManager().getOptionalFileRef(F.Loc.File);
  if (!FE)
    return false;
  FileID FID = SM.translateFile(*FE);
  for (const auto &[File, Begin, End] : Cached.Places)
    if (File == FID && Begin <= F.Offset && F.Offset <= End)
      return true;
  return false;
}

bool skipAsSetup(ASTContext &Ctx, const CheckContext &CC, const Finding &F) {
  if (CC.Options &&
      CC.Options->getBool(F.RuleId, "IncludeSetupKernels",
                          CC.Options->getBool("*", "IncludeSetupKernels",
                                              false)))
    return false;
  return inSetupKernel(Ctx, CC, F);
}

} // namespace cudal1
