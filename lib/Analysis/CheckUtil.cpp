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

bool isUserLoc(ASTContext &Ctx, const CheckContext &CC, SourceLocation L) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation E = SM.getExpansionLoc(L);
  if (E.isInvalid() || SM.isInSystemHeader(E))
    return false;
  if (CC.IsUserFile)
    return CC.IsUserFile(makeSourceLoc(SM, E).File);
  return true;
}

} // namespace cudal1
