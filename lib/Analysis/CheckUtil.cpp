//===- CheckUtil.cpp - helpers shared by the built-in checks --------------===//
#include "CheckUtil.h"
#include "cudal1/Analysis/AccessAnalysis.h"
#include "cudal1/Model/KernelModel.h"

#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include <cstdio>

using namespace clang;
using namespace llvm;

namespace cudal1 {

RuleInfo rule(StringRef Id, StringRef Summary, StringRef Help,
              std::map<std::string, std::string> Opts) {
  RuleInfo R;
  R.Id = Id.str();
  R.Category = Id.substr(0, Id.find('-')).str();
  R.Summary = Summary.str();
  R.Help = Help.str();
  R.DefaultOptions = std::move(Opts);
  return R;
}

Finding makeFinding(ASTContext &Ctx, StringRef Rule, SourceLocation L,
                    std::string Message, const FunctionDecl *Fn,
                    SourceRange Range) {
  const SourceManager &SM = Ctx.getSourceManager();
  Finding F;
  F.RuleId = Rule.str();
  SourceLocation E = SM.getExpansionLoc(L);
  F.Loc = makeSourceLoc(SM, E);
  F.Offset = SM.getFileOffset(E);
  if (Range.isValid()) {
    CharSourceRange CR = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Range), SM, Ctx.getLangOpts());
    if (CR.isValid()) {
      SourceLocation End = CR.getEnd();
      if (End.isValid() && SM.getFileID(End) == SM.getFileID(E) &&
          SM.getFileOffset(End) > SM.getFileOffset(CR.getBegin()))
        F.RangeEnd = makeSourceLoc(SM, End.getLocWithOffset(-1));
      if (CR.getBegin() != E && SM.getFileID(CR.getBegin()) == SM.getFileID(E) &&
          SM.getFileOffset(CR.getBegin()) > F.Offset)
        F.RangeEnd = SourceLoc();
    }
  }
  F.Message = std::move(Message);
  if (Fn) {
    if (const FunctionDecl *P = Fn->getTemplateInstantiationPattern())
      Fn = P;
    F.Kernel = Fn->getQualifiedNameAsString();
  }
  return F;
}

void addNote(ASTContext &Ctx, Finding &F, SourceLocation L,
             std::string Message) {
  FindingNote N;
  if (L.isValid())
    N.Loc = makeSourceLoc(Ctx.getSourceManager(), L);
  N.Message = std::move(Message);
  F.Notes.push_back(std::move(N));
}

std::string textOf(ASTContext &Ctx, SourceRange R) {
  return oneLineText(Ctx, R);
}

std::string factorText(double F) {
  char Buf[32];
  if (F >= 10 || F == (int)F)
    snprintf(Buf, sizeof(Buf), "%.0fx", F);
  else
    snprintf(Buf, sizeof(Buf), "%.1fx", F);
  return Buf;
}

bool isUserLoc(ASTContext &Ctx, const CheckContext &CC, SourceLocation L) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation E = SM.getExpansionLoc(L);
  if (E.isInvalid() || SM.isInSystemHeader(E))
    return false;
  if (CC.IsUserFile)
    return CC.IsUserFile(makeSourceLoc(SM, E).File);
  return true;
}

namespace {
class DeviceFnFinder : public RecursiveASTVisitor<DeviceFnFinder> {
public:
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitLambdaBodies() const { return false; }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if ((FD->hasAttr<CUDAGlobalAttr>() || FD->hasAttr<CUDADeviceAttr>()) &&
        FD->doesThisDeclarationHaveABody() && !FD->isDependentContext() &&
        !FD->isInvalidDecl())
      Fns.push_back(FD);
    return true;
  }
  std::vector<const FunctionDecl *> Fns;
};

void walkStmt(const Stmt *S, const FunctionDecl *FD,
              std::vector<const Stmt *> &Loops,
              const std::function<void(const Stmt *, const FunctionDecl *,
                                       ArrayRef<const Stmt *>)> &Fn) {
  if (!S)
    return;
  Fn(S, FD, Loops);
  bool IsLoop = isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) ||
                isa<CXXForRangeStmt>(S);
  if (IsLoop) {
    // The init of a for loop runs once, outside the loop.
    if (const auto *FS = dyn_cast<ForStmt>(S))
      walkStmt(FS->getInit(), FD, Loops, Fn);
    Loops.push_back(S);
    for (const Stmt *C : S->children())
      if (!(isa<ForStmt>(S) && C == cast<ForStmt>(S)->getInit()))
        walkStmt(C, FD, Loops, Fn);
    Loops.pop_back();
    return;
  }
  if (isa<LambdaExpr>(S))
    return;
  for (const Stmt *C : S->children())
    walkStmt(C, FD, Loops, Fn);
}
} // namespace

void forEachDeviceStmt(
    ASTContext &Ctx, const CheckContext &CC,
    const std::function<void(const Stmt *, const FunctionDecl *,
                             ArrayRef<const Stmt *>)> &Fn) {
  DeviceFnFinder F;
  F.TraverseDecl(Ctx.getTranslationUnitDecl());
  for (const FunctionDecl *FD : F.Fns) {
    if (!isUserLoc(Ctx, CC, FD->getLocation()))
      continue;
    // Host-device functions are checked too: they run on the device.
    std::vector<const Stmt *> Loops;
    walkStmt(FD->getBody(), FD, Loops, Fn);
  }
}

} // namespace cudal1
