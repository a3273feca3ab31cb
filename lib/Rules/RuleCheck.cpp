//===- RuleCheck.cpp - the base class of every C++ rule -------------------===//
#include "RuleCheck.h"
#include "AccessNotes.h"
#include "SetupKernels.h"

#include "cudal1/Model/KernelModel.h"

#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Lexer.h"

#include <set>

using namespace clang;
using namespace llvm;

namespace cudal1 {

void RuleCheck::registerMatchers(ast_matchers::MatchFinder &) {
  NoMatchers = true;
}

void RuleCheck::checkKernel(const KernelUnit &) { NoKernels = true; }

void RuleCheck::run(ASTContext &C, const CheckContext &CCtx,
                    std::vector<Finding> &O) {
  Ctx = &C;
  CC = &CCtx;
  Out = &O;
  Reported.clear();
  NoMatchers = NoKernels = false;
  UserCode =
      std::make_unique<UserCodeFilter>(C.getSourceManager(), CCtx.IsUserFile);
  if (CC->CI && CC->CI->hasPreprocessor())
    setRulePreprocessor(&CC->CI->getPreprocessor());

  ast_matchers::MatchFinder Finder;
  registerMatchers(Finder);
  if (!NoMatchers)
    Finder.matchAST(C);

  for (const FunctionDecl *K : sharedFacts(C, CCtx).Kernels) {
    FunctionFacts Facts = FunctionFacts::compute(K);
    const KernelAnalysis *KA = nullptr;
    if (CC->Analysis)
      for (const KernelAnalysis &A : CC->Analysis->Kernels)
        if (A.Kernel == K)
          KA = &A;
    bool IsTemplate =
        K->getDescribedFunctionTemplate() || K->isDependentContext();
    if (IsTemplate && checksInstantiations())
      checkInstantiations(K);
    else
      checkKernel(KernelUnit{K, Facts, KA, IsTemplate});
    flushPending();
    if (NoKernels)
      break;
  }

  checkTranslationUnit();
  flushPending();
  setRulePreprocessor(nullptr);
  UserCode.reset();
}

std::vector<const KernelAnalysis *> RuleCheck::analyzedKernels() const {
  std::vector<const KernelAnalysis *> Out;
  if (CC->Analysis)
    for (const KernelAnalysis &K : CC->Analysis->Kernels)
      if (isUserCode(K.Kernel->getLocation()))
        Out.push_back(&K);
  return Out;
}

int64_t RuleCheck::optionInt(StringRef Key, int64_t Default) const {
  return CC && CC->Options ? CC->Options->getInt(id(), Key, Default) : Default;
}

bool RuleCheck::optionBool(StringRef Key, bool Default) const {
  return CC && CC->Options ? CC->Options->getBool(id(), Key, Default) : Default;
}

bool RuleCheck::isUserCode(SourceLocation L) const {
  return UserCode
             ? UserCode->contains(L)
             : cudal1::isUserCode(Ctx->getSourceManager(), L, CC->IsUserFile);
}

bool RuleCheck::firstInUserCode(SourceLocation L) {
  if (!isUserCode(L))
    return false;
  const SourceManager &SM = Ctx->getSourceManager();
  SourceLocation E = SM.getExpansionLoc(L);
  return Reported.insert({expansionFilePath(SM, E), SM.getFileOffset(E)})
      .second;
}

Finding RuleCheck::finding(SourceLocation L, const std::string &Message,
                           const FunctionDecl *Fn, SourceRange Range) const {
  return makeFinding(*Ctx, id(), L, Message, Fn, Range);
}

Finding RuleCheck::finding(const LaunchSite &L,
                           const std::string &Message) const {
  Finding F;
  F.RuleId = id();
  F.Loc = L.Loc;
  F.Message = Message;
  F.Kernel = L.Kernel;
  // The byte offset of the launch in its file.
  const SourceManager &SM = Ctx->getSourceManager();
  if (auto FE = SM.getFileManager().getOptionalFileRef(L.Loc.File)) {
    FileID FID = SM.translateFile(*FE);
    if (FID.isValid()) {
      SourceLocation SL = SM.translateLineCol(FID, L.Loc.Line, L.Loc.Column);
      if (SL.isValid())
        F.Offset = SM.getFileOffset(SL);
    }
  }
  return F;
}

const FunctionDecl *RuleCheck::functionOf(const Stmt &S) const {
  return enclosingFunction(*Ctx, DynTypedNode::create(S));
}

void RuleCheck::note(Finding &F, SourceLocation L,
                     const std::string &Message) const {
  F.Notes.push_back(makeNote(*Ctx, L, Message));
}

void RuleCheck::report(Finding F) {
  if (F.RuleId.empty())
    F.RuleId = id();
  if (F.Fix && F.Fix->Edits.empty())
    F.Fix.reset();
  if (F.Fix && !F.Fix->Proven) {
    if (F.WhyNoFix.empty())
      F.WhyNoFix = "'" + F.Fix->Description + "' is not proven correct here";
    F.Fix.reset();
  }
  if (F.Fix)
    F.WhyNoFix.clear();
  // Code a program runs once beside a loop that does the work: not worth
  // a finding (SetupKernels.h).
  if (skipAsSetup(*Ctx, *CC, F))
    return;
  if (outweighedArithmetic(*CC, *Ctx, F))
    return;
  // The same note twice (one per pointer proven apart, one per access of a
  // group) says nothing more: keep the first.
  std::set<std::pair<std::string, std::string>> Notes;
  llvm::erase_if(F.Notes, [&](const FindingNote &N) {
    return !Notes.insert({N.Loc.str(), N.Message}).second;
  });
  Reported.insert({F.Loc.File, F.Offset});
  Out->push_back(std::move(F));
}

void RuleCheck::reportFixOr(Finding F, bool Ok, FixIt X,
                            const std::string &Why) {
  if (Ok)
    F.Fix = std::move(X);
  else
    F.WhyNoFix = Why;
  report(std::move(F));
}

void RuleCheck::reportWithoutFix(Finding F, const std::string &Why) {
  F.Fix.reset();
  F.WhyNoFix = Why;
  report(std::move(F));
}

Finding &RuleCheck::reportLater(Finding F) {
  Pending.push_back(std::move(F));
  return Pending.back();
}

void RuleCheck::flushPending() {
  for (Finding &F : Pending)
    report(std::move(F));
  Pending.clear();
}

void RuleCheck::checkInstantiations(const FunctionDecl *Pattern) {
  const FunctionTemplateDecl *FT = Pattern->getDescribedFunctionTemplate();
  if (!FT)
    return; // a member of a class template: not handled
  std::vector<const FunctionDecl *> Insts;
  for (const FunctionDecl *S : FT->specializations())
    if (S->isTemplateInstantiation() && S->doesThisDeclarationHaveABody())
      Insts.push_back(S);
  if (Insts.empty())
    return; // never instantiated here: nothing concrete to check
  auto NameOf = [&](const FunctionDecl *FD) {
    std::string S;
    llvm::raw_string_ostream OS(S);
    FD->getNameForDiagnostic(OS, Ctx->getPrintingPolicy(), false);
    return S;
  };
  // Each instantiation checked on its own, as if first.
  auto SavedReported = Reported;
  std::vector<Finding> *SavedOut = Out;
  std::vector<std::vector<Finding>> Per(Insts.size());
  for (size_t I = 0; I < Insts.size(); ++I) {
    Reported = SavedReported;
    Out = &Per[I];
    FunctionFacts Facts = FunctionFacts::compute(Insts[I]);
    const KernelAnalysis *KA = nullptr;
    if (CC->Analysis)
      for (const KernelAnalysis &A : CC->Analysis->Kernels)
        if (A.Kernel == Insts[I])
          KA = &A;
    checkKernel(KernelUnit{Insts[I], Facts, KA, false, Pattern});
    flushPending();
  }
  Out = SavedOut;
  Reported = SavedReported;
  // One finding per place; its fix only when all instantiations agree.
  auto Same = [](const Finding &A, const Finding &B) {
    return A.RuleId == B.RuleId && A.Loc.File == B.Loc.File &&
           A.Offset == B.Offset;
  };
  std::string All;
  for (const FunctionDecl *FD : Insts)
    All += (All.empty() ? "" : ", ") + NameOf(FD);
  for (size_t I = 0; I < Per.size(); ++I)
    for (Finding &F : Per[I]) {
      bool Earlier = false;
      for (size_t J = 0; J < I && !Earlier; ++J)
        for (const Finding &G : Per[J])
          if (Same(F, G))
            Earlier = true;
      if (Earlier)
        continue;
      std::string Why;
      for (size_t J = 0; J < Per.size() && Why.empty(); ++J) {
        if (J == I)
          continue;
        const Finding *G = nullptr;
        for (const Finding &X : Per[J])
          if (Same(F, X))
            G = &X;
        if (!G)
          Why = "the template's instantiation " + NameOf(Insts[J]) +
                " does not match (the fix edits the template's text, "
                "shared by every instantiation)";
        else if (F.Fix && !G->Fix)
          Why = NameOf(Insts[J]) + ": " + G->WhyNoFix;
        else if (F.Fix && (G->Fix->Edits != F.Fix->Edits ||
                           G->Fix->Exact != F.Fix->Exact))
          Why = "the instantiations " + NameOf(Insts[I]) + " and " +
                NameOf(Insts[J]) + " need different rewrites of the "
                "template's text";
      }
      if (F.Fix && !Why.empty()) {
        F.Fix.reset();
        F.WhyNoFix = Why;
      }
      F.Notes.push_back(makeNote(*Ctx, Pattern->getLocation(),
                                 "kernel template checked in each of its "
                                 "instantiations here: " + All));
      Reported.insert({F.Loc.File, F.Offset});
      Out->push_back(std::move(F));
    }
}

void RuleCheck::refuse(Finding &F, const std::string &Why) {
  F.Fix.reset();
  F.WhyNoFix = Why;
}

} // namespace cudal1
