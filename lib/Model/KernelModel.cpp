//===- KernelModel.cpp - kernels, device-call closure, launch sites ------===//
#include "cudal1/Model/KernelModel.h"
#include "cudal1/Model/LaunchValues.h"
#include "cudal1/Model/RecordMembers.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/QualTypeNames.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

SourceLoc makeSourceLoc(const SourceManager &SM, SourceLocation L) {
  SourceLoc R;
  if (L.isInvalid())
    return R;
  SourceLocation E = SM.getExpansionLoc(L);
  PresumedLoc P = SM.getPresumedLoc(E, /*UseLineDirectives=*/false);
  if (P.isInvalid())
    return R;
  SmallString<256> Path(P.getFilename());
  if (OptionalFileEntryRef FE = SM.getFileEntryRefForID(SM.getFileID(E))) {
    StringRef Real = FE->getFileEntry().tryGetRealPathName();
    if (!Real.empty())
      Path = Real;
  }
  sys::fs::make_absolute(Path);
  sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
  R.File = std::string(Path);
  R.Line = P.getLine();
  R.Column = P.getColumn();
  return R;
}

namespace {

std::string sourceText(const ASTContext &Ctx, SourceRange R) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange CR = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(R), SM, Ctx.getLangOpts());
  if (CR.isInvalid())
    CR = SM.getExpansionRange(R);
  bool Invalid = false;
  StringRef T = Lexer::getSourceText(CR, SM, Ctx.getLangOpts(), &Invalid);
  if (Invalid)
    return "";
  return T.trim().str();
}

std::string exprText(const ASTContext &Ctx, const Expr *E) {
  std::string T = sourceText(Ctx, E->getSourceRange());
  if (!T.empty())
    return T;
  std::string S;
  raw_string_ostream OS(S);
  E->printPretty(OS, nullptr, Ctx.getPrintingPolicy());
  return S;
}

PrintingPolicy displayPolicy(const ASTContext &Ctx) {
  PrintingPolicy P = Ctx.getPrintingPolicy();
  P.SuppressTagKeyword = true;
  P.SuppressUnwrittenScope = true;
  return P;
}

/// Template arguments as "float, 256" (display) or fully qualified.
std::string templateArgsText(const ASTContext &Ctx,
                             ArrayRef<TemplateArgument> Args,
                             bool FullyQualified) {
  PrintingPolicy P = displayPolicy(Ctx);
  if (FullyQualified) {
    P.FullyQualifiedName = true;
    P.SuppressScope = false;
  }
  std::string S;
  raw_string_ostream OS(S);
  bool First = true;
  for (const TemplateArgument &A : Args) {
    if (A.getKind() == TemplateArgument::Pack) {
      for (const TemplateArgument &PA : A.pack_elements()) {
        if (!First)
          OS << ", ";
        First = false;
        if (FullyQualified && PA.getKind() == TemplateArgument::Type)
          OS << TypeName::getFullyQualifiedName(PA.getAsType(), Ctx, P);
        else
          PA.print(P, OS, /*IncludeType=*/true);
      }
      continue;
    }
    if (!First)
      OS << ", ";
    First = false;
    if (FullyQualified && A.getKind() == TemplateArgument::Type)
      OS << TypeName::getFullyQualifiedName(A.getAsType(), Ctx, P);
    else
      A.print(P, OS, /*IncludeType=*/true);
  }
  return S;
}


ParamInfo makeParam(const ASTContext &Ctx, const ParmVarDecl *P,
                    unsigned Index) {
  ParamInfo R;
  R.Index = Index;
  R.Name = P->getNameAsString();
  QualType T = P->getType();
  PrintingPolicy Pol = displayPolicy(Ctx);
  R.Type = T.getAsString(Pol);
  R.IsConst = T.isConstQualified();
  R.Restrict = T.isRestrictQualified();
  R.IsReference = T->isReferenceType();
  QualType Elem = T.getNonReferenceType();
  if (const auto *PT = T->getAs<PointerType>()) {
    R.IsPointer = true;
    Elem = PT->getPointeeType();
    R.PointeeConst = Elem.isConstQualified();
  }
  R.ElementType = Elem.getUnqualifiedType().getAsString(Pol);
  if (!T->isDependentType() && !T->isIncompleteType()) {
    R.SizeBytes = Ctx.getTypeSizeInChars(T).getQuantity();
    R.AlignBytes = Ctx.getTypeAlignInChars(T).getQuantity();
  }
  if (!Elem->isDependentType() && !Elem->isIncompleteType() &&
      !Elem->isVoidType() && !Elem->isFunctionType())
    R.ElementSizeBytes = Ctx.getTypeSizeInChars(Elem).getQuantity();
  if (!Elem->isDependentType()) {
    QualType C = Elem.getCanonicalType().getUnqualifiedType();
    if (const auto *ET = C->getAs<EnumType>())
      C = ET->getDecl()->getIntegerType().getCanonicalType();
    if (!C.isNull())
      R.ScalarType = C.getUnqualifiedType().getAsString(Pol);
  }
  setRecordMembers(Ctx, Elem, Pol, R);
  return R;
}

std::vector<ParamInfo> makeParams(const ASTContext &Ctx,
                                  const FunctionDecl *FD) {
  std::vector<ParamInfo> R;
  for (unsigned I = 0; I < FD->getNumParams(); ++I)
    R.push_back(makeParam(Ctx, FD->getParamDecl(I), I));
  return R;
}

const char *cudaVarKind(const VarDecl *VD) {
  if (VD->hasAttr<CUDASharedAttr>())
    return "shared";
  if (VD->hasAttr<CUDAConstantAttr>())
    return "constant";
  if (VD->hasAttr<HIPManagedAttr>())
    return "managed";
  if (VD->hasAttr<CUDADeviceAttr>())
    return "device";
  return nullptr;
}

/// Walks a kernel's body (and, transitively, the bodies of the functions it
/// calls) collecting user device functions and CUDA variables.
class ClosureCollector : public RecursiveASTVisitor<ClosureCollector> {
public:
  ClosureCollector(ASTContext &Ctx, const FileFilter &IsUser, KernelInfo &K)
      : Ctx(Ctx), IsUser(IsUser), K(K) {}

  bool shouldVisitImplicitCode() const { return true; }
  bool shouldVisitLambdaBodies() const { return true; }

  void walk(const FunctionDecl *FD) {
    if (!FD || !Visited.insert(FD).second)
      return;
    if (const Stmt *Body = FD->getBody())
      TraverseStmt(const_cast<Stmt *>(Body));
    // Default arguments and member initialisers of constructors.
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->getInit())
          TraverseStmt(Init->getInit());
  }

  void addFunction(const FunctionDecl *FD) {
    if (!FD)
      return;
    const FunctionDecl *Def = FD->getDefinition();
    if (!Def)
      Def = FD;
    if (Def->hasAttr<CUDAGlobalAttr>())
      return; // kernels are not device functions (dynamic parallelism)
    const SourceManager &SM = Ctx.getSourceManager();
    SourceLocation L = Def->getLocation();
    if (L.isInvalid() || SM.isInSystemHeader(SM.getExpansionLoc(L)))
      return;
    if (const auto *MD = dyn_cast<CXXMethodDecl>(Def))
      if (MD->getParent()->isLambda()) {
        walk(Def);
        return;
      }
    const FunctionDecl *Pattern = Def->getTemplateInstantiationPattern();
    const FunctionDecl *Shown = Pattern ? Pattern : Def;
    if (!Def->isImplicit()) {
      SourceLoc SL = makeSourceLoc(SM, Shown->getLocation());
      if (!IsUser || IsUser(SL.File)) {
        std::string Key = SL.str() + Shown->getQualifiedNameAsString();
        if (SeenFunctions.insert(Key).second) {
          CalleeInfo C;
          C.Name = Shown->getNameAsString();
          C.QualifiedName = Shown->getQualifiedNameAsString();
          C.Loc = SL;
          K.DeviceFunctions.push_back(C);
        }
      }
    }
    walk(Def);
  }

  void addVar(const VarDecl *VD) {
    const char *Kind = cudaVarKind(VD);
    if (!Kind)
      return;
    const SourceManager &SM = Ctx.getSourceManager();
    if (SM.isInSystemHeader(SM.getExpansionLoc(VD->getLocation())))
      return;
    if (const VarDecl *Pattern = VD->getTemplateInstantiationPattern())
      VD = Pattern;
    SourceLoc SL = makeSourceLoc(SM, VD->getLocation());
    std::string Key = SL.str() + VD->getQualifiedNameAsString();
    if (!SeenVars.insert(Key).second)
      return;
    GlobalVarInfo G;
    G.Name = VD->getNameAsString();
    G.QualifiedName = VD->getQualifiedNameAsString();
    G.Kind = Kind;
    G.Type = VD->getType().getAsString(displayPolicy(Ctx));
    G.IsDynamicShared = VD->hasExternalStorage() &&
                        VD->getType()->isIncompleteArrayType() &&
                        VD->hasAttr<CUDASharedAttr>();
    G.IsLocal = VD->isLocalVarDecl();
    G.Loc = SL;
    K.Variables.push_back(G);
  }

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (auto *FD = dyn_cast<FunctionDecl>(E->getDecl()))
      addFunction(FD);
    else if (auto *VD = dyn_cast<VarDecl>(E->getDecl()))
      addVar(VD);
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) {
    if (auto *MD = dyn_cast<CXXMethodDecl>(E->getMemberDecl()))
      addFunction(MD);
    else if (auto *VD = dyn_cast<VarDecl>(E->getMemberDecl()))
      addVar(VD);
    return true;
  }
  bool VisitCallExpr(CallExpr *E) {
    addFunction(E->getDirectCallee());
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    addFunction(E->getConstructor());
    return true;
  }
  bool VisitVarDecl(VarDecl *VD) {
    if (VD->isLocalVarDecl() && cudaVarKind(VD))
      addVar(VD);
    return true;
  }

private:
  ASTContext &Ctx;
  const FileFilter &IsUser;
  KernelInfo &K;
  SmallPtrSet<const FunctionDecl *, 16> Visited;
  std::set<std::string> SeenFunctions, SeenVars;
};

class ModelBuilder : public RecursiveASTVisitor<ModelBuilder> {
  using Base = RecursiveASTVisitor<ModelBuilder>;

public:
  ModelBuilder(ASTContext &Ctx, const FileFilter &Filter)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Filter(Filter), Values(Ctx) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  ProjectModel take() { return std::move(Model); }
  LaunchEvaluator &values() { return Values; }

  bool TraverseDecl(Decl *D) {
    auto *FD = dyn_cast_or_null<FunctionDecl>(D);
    if (FD)
      FunctionStack.push_back(FD);
    bool R = Base::TraverseDecl(D);
    if (FD)
      FunctionStack.pop_back();
    return R;
  }

  bool isUserLocation(SourceLocation L, SourceLoc *Out = nullptr) {
    if (L.isInvalid())
      return false;
    SourceLocation E = SM.getExpansionLoc(L);
    if (SM.isInSystemHeader(E) || SM.isWrittenInBuiltinFile(E) ||
        SM.isWrittenInCommandLineFile(E) || SM.isWrittenInScratchSpace(E))
      return false;
    SourceLoc SL = makeSourceLoc(SM, E);
    if (SL.File.empty())
      return false;
    if (Filter && !Filter(SL.File))
      return false;
    if (Out)
      *Out = SL;
    return true;
  }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->hasAttr<CUDAGlobalAttr>() || !FD->doesThisDeclarationHaveABody())
      return true;
    TemplateSpecializationKind TSK = FD->getTemplateSpecializationKind();
    if (TSK == TSK_ImplicitInstantiation ||
        TSK == TSK_ExplicitInstantiationDefinition ||
        TSK == TSK_ExplicitInstantiationDeclaration)
      return true; // reported through their template
    FunctionTemplateDecl *FTD = FD->getDescribedFunctionTemplate();
    SourceRange R = FTD ? FTD->getSourceRange() : FD->getSourceRange();
    SourceLoc Begin;
    if (!isUserLocation(R.getBegin(), &Begin))
      return true;

    KernelInfo K;
    K.Name = FD->getNameAsString();
    K.QualifiedName = FD->getQualifiedNameAsString();
    K.Range.Begin = Begin;
    K.Range.End = makeSourceLoc(SM, R.getEnd());
    K.ExternC = FD->isExternC();
    K.IsStatic = FD->getStorageClass() == SC_Static;
    K.Params = makeParams(Ctx, FD);
    if (const auto *LB = FD->getAttr<CUDALaunchBoundsAttr>()) {
      LaunchBoundsInfo L;
      if (const Expr *E = LB->getMaxThreads()) {
        L.MaxThreadsText = exprText(Ctx, E);
        L.MaxThreads = evalInt(E);
      }
      if (const Expr *E = LB->getMinBlocks()) {
        L.MinBlocksText = exprText(Ctx, E);
        L.MinBlocks = evalInt(E);
      }
      K.LaunchBounds = L;
    }

    ClosureCollector Closure(Ctx, Filter, K);
    if (FTD) {
      K.IsTemplate = true;
      for (const NamedDecl *P : *FTD->getTemplateParameters()) {
        TemplateParamInfo TP;
        TP.Name = P->getNameAsString();
        if (isa<TemplateTypeParmDecl>(P)) {
          TP.Kind = "type";
        } else if (const auto *NT = dyn_cast<NonTypeTemplateParmDecl>(P)) {
          TP.Kind = "non-type";
          TP.Type = NT->getType().getAsString(displayPolicy(Ctx));
        } else {
          TP.Kind = "template";
        }
        K.TemplateParams.push_back(TP);
      }
      for (FunctionDecl *Spec : FTD->specializations()) {
        const TemplateArgumentList *Args =
            Spec->getTemplateSpecializationArgs();
        if (!Args)
          continue;
        InstantiationInfo I;
        I.TemplateArgs = templateArgsText(Ctx, Args->asArray(), false);
        I.NameExpr = K.QualifiedName + "<" +
                     templateArgsText(Ctx, Args->asArray(), true) + ">";
        I.MangledName = mangledName(Ctx, Spec);
        I.Params = makeParams(Ctx, Spec);
        K.Instantiations.push_back(std::move(I));
        Closure.walk(Spec);
      }
    } else {
      K.MangledName = mangledName(Ctx, FD);
      InstantiationInfo I;
      I.NameExpr = K.QualifiedName;
      I.MangledName = K.MangledName;
      I.Params = K.Params;
      K.Instantiations.push_back(std::move(I));
    }
    // The written body too: for templates it holds code (dependent calls)
    // that no instantiation may have resolved.
    Closure.walk(FD);
    Model.Kernels.push_back(std::move(K));
    return true;
  }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *E) {
    LaunchSite L;
    if (!isUserLocation(E->getBeginLoc(), &L.Loc))
      return true;
    L.Form = "chevron";
    setKernel(L, E->getDirectCallee(), E->getCallee());
    if (const CallExpr *Cfg = E->getConfig()) {
      if (Cfg->getNumArgs() > 0)
        L.Grid = launchArg(Cfg->getArg(0), /*IsDim=*/true);
      if (Cfg->getNumArgs() > 1)
        L.Block = launchArg(Cfg->getArg(1), true);
      if (Cfg->getNumArgs() > 2)
        L.SharedMem = launchArg(Cfg->getArg(2), false);
      if (Cfg->getNumArgs() > 3)
        L.Stream = launchArg(Cfg->getArg(3), false, /*Eval=*/false);
    }
    for (const Expr *A : E->arguments())
      if (!isa<CXXDefaultArgExpr>(A))
        L.Args.push_back(exprText(Ctx, A));
    L.EnclosingFunction = enclosingFunction();
    LaunchExprs LE;
    LE.Launch = E;
    if (const CallExpr *Cfg = E->getConfig()) {
      LE.Grid = Cfg->getNumArgs() > 0 ? Cfg->getArg(0) : nullptr;
      LE.Block = Cfg->getNumArgs() > 1 ? Cfg->getArg(1) : nullptr;
      if (Cfg->getNumArgs() > 2 && !isa<CXXDefaultArgExpr>(Cfg->getArg(2)))
        LE.Shared = Cfg->getArg(2);
    }
    for (const Expr *A : E->arguments())
      LE.Args.push_back(A);
    evaluateValues(L, LE, E->getDirectCallee());
    Model.LaunchSites.push_back(std::move(L));
    return true;
  }

  bool VisitCallExpr(CallExpr *E) {
    if (isa<CUDAKernelCallExpr>(E))
      return true;
    const FunctionDecl *Callee = E->getDirectCallee();
    if (!Callee || !Callee->getIdentifier())
      return true;
    StringRef N = Callee->getName();
    bool Ex = N == "cudaLaunchKernelEx" || N == "cudaLaunchKernelExC";
    if (N != "cudaLaunchKernel" && N != "cudaLaunchCooperativeKernel" && !Ex)
      return true;
    LaunchSite L;
    if (!isUserLocation(E->getBeginLoc(), &L.Loc))
      return true;
    L.Form = Ex ? "cudaLaunchKernelEx" : N.str();
    unsigned FnArg = Ex ? 1 : 0;
    if (E->getNumArgs() <= FnArg)
      return true;
    const Expr *Fn = E->getArg(FnArg)->IgnoreParenCasts();
    if (const auto *U = dyn_cast<UnaryOperator>(Fn))
      if (U->getOpcode() == UO_AddrOf)
        Fn = U->getSubExpr()->IgnoreParenCasts();
    const FunctionDecl *K = nullptr;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(Fn))
      K = dyn_cast<FunctionDecl>(DRE->getDecl());
    setKernel(L, K, Fn);
    if (Ex) {
      L.Grid.Present = L.Block.Present = true;
      L.Grid.Text = L.Block.Text = exprText(Ctx, E->getArg(0));
    } else {
      if (E->getNumArgs() > 1)
        L.Grid = launchArg(E->getArg(1), true);
      if (E->getNumArgs() > 2)
        L.Block = launchArg(E->getArg(2), true);
      if (E->getNumArgs() > 3)
        L.Args.push_back(exprText(Ctx, E->getArg(3)));
      if (E->getNumArgs() > 4)
        L.SharedMem = launchArg(E->getArg(4), false);
      if (E->getNumArgs() > 5)
        L.Stream = launchArg(E->getArg(5), false, false);
      LaunchExprs LE;
      LE.Launch = E;
      LE.Grid = E->getNumArgs() > 1 ? E->getArg(1) : nullptr;
      LE.Block = E->getNumArgs() > 2 ? E->getArg(2) : nullptr;
      LE.Shared = E->getNumArgs() > 4 ? E->getArg(4) : nullptr;
      if (K && E->getNumArgs() > 3)
        LE.Args = argumentArray(E->getArg(3), K->getNumParams());
      evaluateValues(L, LE, K);
    }
    L.EnclosingFunction = enclosingFunction();
    Model.LaunchSites.push_back(std::move(L));
    return true;
  }

private:
  /// The values of launch \p LE (LaunchValues.h), in the innermost function
  /// being traversed; none in templates not instantiated.
  void evaluateValues(LaunchSite &L, LaunchExprs LE, const FunctionDecl *K) {
    for (auto It = FunctionStack.rbegin(); It != FunctionStack.rend(); ++It)
      if ((*It)->getBody()) {
        LE.Host = *It;
        break;
      }
    if (!LE.Host || LE.Host->isDependentContext() ||
        LE.Launch->isValueDependent() || LE.Launch->isTypeDependent())
      return;
    L.Values = Values.evaluate(LE, L.ValuesNote);
    std::string Args, NameExpr = L.Kernel;
    if (const TemplateArgumentList *TA =
            K ? K->getTemplateSpecializationArgs() : nullptr) {
      Args = templateArgsText(Ctx, TA->asArray(), false);
      NameExpr += "<" + templateArgsText(Ctx, TA->asArray(), true) + ">";
    }
    for (LaunchValues &V : L.Values) {
      V.TemplateArgs = Args;
      V.NameExpr = NameExpr;
    }
  }

  /// The kernel arguments of cudaLaunchKernel's `void *args[] = {&a, &b}`:
  /// the variables whose addresses the array holds (null where not seen).
  std::vector<const Expr *> argumentArray(const Expr *A, unsigned NumParams) {
    std::vector<const Expr *> Out(NumParams, nullptr);
    const auto *D = dyn_cast<DeclRefExpr>(A->IgnoreParenCasts());
    const auto *VD = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
    const auto *IL =
        VD ? dyn_cast_or_null<InitListExpr>(VD->getInit()) : nullptr;
    if (!IL || !VD->getType()->isArrayType())
      return Out;
    for (unsigned I = 0; I < NumParams && I < IL->getNumInits(); ++I)
      if (const auto *U =
              dyn_cast<UnaryOperator>(IL->getInit(I)->IgnoreParenCasts()))
        if (U->getOpcode() == UO_AddrOf)
          Out[I] = U->getSubExpr();
    return Out;
  }

  void setKernel(LaunchSite &L, const FunctionDecl *K, const Expr *Callee) {
    if (K) {
      const FunctionDecl *Pattern = K->getTemplateInstantiationPattern();
      const FunctionDecl *Def = Pattern ? Pattern : K;
      if (const FunctionDecl *D = Def->getDefinition())
        Def = D;
      L.Kernel = Def->getQualifiedNameAsString();
      if (const TemplateArgumentList *Args = K->getTemplateSpecializationArgs())
        L.TemplateArgs.push_back(templateArgsText(Ctx, Args->asArray(), false));
      if (Def->doesThisDeclarationHaveABody()) {
        const FunctionTemplateDecl *FTD = Def->getDescribedFunctionTemplate();
        SourceRange R = FTD ? FTD->getSourceRange() : Def->getSourceRange();
        L.KernelKey = L.Kernel + "@" + makeSourceLoc(SM, R.getBegin()).str();
      }
      return;
    }
    // Dependent call in a template: name only.
    const Expr *C = Callee ? Callee->IgnoreImplicit() : nullptr;
    if (const auto *ULE = dyn_cast_or_null<UnresolvedLookupExpr>(C))
      L.Kernel = ULE->getName().getAsString();
    else if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(C))
      L.Kernel = DRE->getDecl()->getQualifiedNameAsString();
    else if (C)
      L.Kernel = exprText(Ctx, C);
  }

  std::string enclosingFunction() const {
    for (auto It = FunctionStack.rbegin(); It != FunctionStack.rend(); ++It) {
      const FunctionDecl *F = *It;
      if (const auto *MD = dyn_cast<CXXMethodDecl>(F))
        if (MD->getParent()->isLambda())
          continue;
      if (const FunctionDecl *P = F->getTemplateInstantiationPattern())
        F = P;
      return F->getQualifiedNameAsString();
    }
    return "";
  }

  const Stmt *enclosingBody() const {
    for (auto It = FunctionStack.rbegin(); It != FunctionStack.rend(); ++It)
      if ((*It)->getBody())
        return (*It)->getBody();
    return nullptr;
  }

  /// True when \p VD is a local variable that nothing in its function
  /// modifies after its initialisation.
  bool isUnmodifiedLocal(const VarDecl *VD) {
    if (!VD || !VD->isLocalVarDecl() || !VD->getInit() ||
        VD->getType()->isReferenceType() || isa<ParmVarDecl>(VD))
      return false;
    if (VD->getType().isConstQualified())
      return true;
    const Stmt *Body = enclosingBody();
    if (!Body)
      return false;
    auto &A = Analyzers[Body];
    if (!A)
      A = std::make_unique<ExprMutationAnalyzer>(*Body, Ctx);
    return !A->isMutated(VD);
  }

  /// Evaluates an integer expression; local variables that are never
  /// modified are replaced by their initialisers.
  std::optional<int64_t> evalInt(const Expr *E, unsigned Depth = 0) {
    if (!E || Depth > 16 || E->isValueDependent() || E->isTypeDependent())
      return std::nullopt;
    Expr::EvalResult R;
    if (E->EvaluateAsInt(R, Ctx))
      return R.Val.getInt().getExtValue();
    E = E->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
      if (isUnmodifiedLocal(VD))
        return evalInt(VD->getInit(), Depth + 1);
      return std::nullopt;
    }
    if (const auto *C = dyn_cast<ExplicitCastExpr>(E))
      return evalInt(C->getSubExpr(), Depth + 1);
    // `(block).y` of a dim3 value (a swapped launch: dim3((b).y, (b).x,
    // (b).z)).
    if (const auto *ME = dyn_cast<MemberExpr>(E);
        ME && !ME->isArrow() && ME->getBase()->getType()->isRecordType()) {
      // dim3 and uint3 only: evalDim reads other records' initialisers by
      // position, not by field.
      const RecordDecl *RD = ME->getBase()->getType()->getAsRecordDecl();
      if (!RD || !RD->getIdentifier() ||
          (RD->getName() != "dim3" && RD->getName() != "uint3"))
        return std::nullopt;
      StringRef M = ME->getMemberDecl()->getName();
      int I = M == "x" ? 0 : M == "y" ? 1 : M == "z" ? 2 : -1;
      if (I >= 0)
        if (auto D = evalDim(ME->getBase(), Depth + 1))
          return int64_t((*D)[I]);
      return std::nullopt;
    }
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      auto L = evalInt(B->getLHS(), Depth + 1);
      auto Rv = evalInt(B->getRHS(), Depth + 1);
      if (!L || !Rv)
        return std::nullopt;
      switch (B->getOpcode()) {
      case BO_Add: return *L + *Rv;
      case BO_Sub: return *L - *Rv;
      case BO_Mul: return *L * *Rv;
      case BO_Div: return *Rv ? std::optional<int64_t>(*L / *Rv) : std::nullopt;
      case BO_Rem: return *Rv ? std::optional<int64_t>(*L % *Rv) : std::nullopt;
      case BO_Shl: return *L << *Rv;
      case BO_Shr: return *L >> *Rv;
      default: return std::nullopt;
      }
    }
    if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
      auto C = evalInt(CO->getCond(), Depth + 1);
      if (!C)
        return std::nullopt;
      return evalInt(*C ? CO->getTrueExpr() : CO->getFalseExpr(), Depth + 1);
    }
    if (const auto *CE = dyn_cast<CallExpr>(E)) {
      // std::min/max and friends on constants.
      const FunctionDecl *F = CE->getDirectCallee();
      if (F && F->getIdentifier() && CE->getNumArgs() == 2 &&
          (F->getName() == "min" || F->getName() == "max")) {
        auto A = evalInt(CE->getArg(0), Depth + 1);
        auto B = evalInt(CE->getArg(1), Depth + 1);
        if (A && B)
          return F->getName() == "min" ? std::min(*A, *B) : std::max(*A, *B);
      }
    }
    return std::nullopt;
  }

  std::optional<std::array<uint64_t, 3>> evalDim(const Expr *E,
                                                 unsigned Depth = 0) {
    if (!E || Depth > 16 || E->isValueDependent() || E->isTypeDependent())
      return std::nullopt;
    const Expr *S = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(S))
      S = MT->getSubExpr()->IgnoreImplicit()->IgnoreParens();
    QualType T = S->getType();
    if (T->isIntegralOrEnumerationType()) {
      if (auto V = evalInt(S, Depth + 1))
        return std::array<uint64_t, 3>{uint64_t(*V), 1, 1};
      return std::nullopt;
    }
    // dim3 / uint3 values.
    if (const auto *CE = dyn_cast<CXXConstructExpr>(S)) {
      std::array<uint64_t, 3> D = {1, 1, 1};
      unsigned N = CE->getNumArgs();
      if (N == 1 && CE->getArg(0)->getType()->isRecordType())
        return evalDim(CE->getArg(0), Depth + 1); // copy
      if (N > 3)
        return std::nullopt;
      for (unsigned I = 0; I < N; ++I) {
        const Expr *A = CE->getArg(I);
        if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(A))
          A = DA->getExpr();
        auto V = evalInt(A, Depth + 1);
        if (!V)
          return std::nullopt;
        D[I] = uint64_t(*V);
      }
      return D;
    }
    if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(S))
      return evalDim(FC->getSubExpr(), Depth + 1);
    if (const auto *IL = dyn_cast<InitListExpr>(S)) {
      std::array<uint64_t, 3> D = {1, 1, 1};
      if (IL->getNumInits() > 3)
        return std::nullopt;
      for (unsigned I = 0; I < IL->getNumInits(); ++I) {
        auto V = evalInt(IL->getInit(I), Depth + 1);
        if (!V)
          return std::nullopt;
        D[I] = uint64_t(*V);
      }
      return D;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
      const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
      if (VD && (isUnmodifiedLocal(VD) ||
                 (VD->getType().isConstQualified() && VD->getInit())))
        return evalDim(VD->getInit(), Depth + 1);
    }
    return std::nullopt;
  }

  LaunchArg launchArg(const Expr *E, bool IsDim, bool Eval = true) {
    LaunchArg A;
    if (!E || isa<CXXDefaultArgExpr>(E))
      return A;
    A.Present = true;
    A.Text = exprText(Ctx, E);
    if (!Eval)
      return A;
    if (IsDim)
      A.Dim = evalDim(E);
    else
      A.Value = evalInt(E);
    return A;
  }

  ASTContext &Ctx;
  const SourceManager &SM;
  const FileFilter &Filter;
  ProjectModel Model;
  std::vector<FunctionDecl *> FunctionStack;
  DenseMap<const Stmt *, std::unique_ptr<ExprMutationAnalyzer>> Analyzers;
  LaunchEvaluator Values;
};

} // namespace

ProjectModel collectKernelModel(ASTContext &Ctx, const FileFilter &Filter,
                                const ExternalCalls *Calls, bool RecordCalls,
                                const ProgramCommandLine *ProgramArgs) {
  ModelBuilder B(Ctx, Filter);
  B.values().setExternalCalls(Calls);
  B.values().setProgramArgs(ProgramArgs);
  B.TraverseDecl(Ctx.getTranslationUnitDecl());
  ProjectModel M = B.take();
  M.Unreached = B.values().unreached();
  if (RecordCalls) {
    M.CallsOut = B.values().externalCalls();
    M.CallsNeed = B.values().callsUnreached();
  }
  // A launch site inside a template is visited once per instantiation (and
  // once unresolved in the pattern): merge them by location.
  ProjectModel Merged;
  Merged.merge(M);
  return Merged;
}

std::string mangledName(ASTContext &Ctx, const FunctionDecl *FD) {
  std::unique_ptr<MangleContext> MC(Ctx.createMangleContext());
  if (!MC->shouldMangleDeclName(FD))
    return FD->getNameAsString();
  std::string S;
  raw_string_ostream OS(S);
  MC->mangleName(GlobalDecl(FD), OS);
  return S;
}

} // namespace cudal1
