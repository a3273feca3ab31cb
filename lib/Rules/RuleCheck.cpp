//===- RuleCheck.cpp - the base class of every C++ rule -------------------===//
#include "RuleCheck.h"

#include "cudal1/Model/KernelModel.h"

#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Lexer.h"

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

void RuleCheck::refuse(Finding &F, const std::string &Why) {
  F.Fix.reset();
  F.WhyNoFix = Why;
}

} // namespace cudal1
