//===- HostStatements.cpp - host statements around launches --------------===//
#include "HostStatements.h"
#include "cudal1/Analysis/AstFacts.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

bool isGlobalXIndex(const Expr *E) {
  const auto *B = dyn_cast_or_null<BinaryOperator>(E ? E->IgnoreParenCasts()
                                                     : nullptr);
  if (!B || B->getOpcode() != BO_Add)
    return false;
  auto IsMul = [](const Expr *X) {
    const auto *M = dyn_cast<BinaryOperator>(X->IgnoreParenCasts());
    if (!M || M->getOpcode() != BO_Mul)
      return false;
    std::string A = builtinName(M->getLHS()->IgnoreParenCasts());
    std::string C = builtinName(M->getRHS()->IgnoreParenCasts());
    return (A == "blockIdx.x" && C == "blockDim.x") ||
           (A == "blockDim.x" && C == "blockIdx.x");
  };
  auto IsTid = [](const Expr *X) {
    return builtinName(X->IgnoreParenCasts()) == "threadIdx.x";
  };
  return (IsTid(B->getRHS()) && IsMul(B->getLHS())) ||
         (IsTid(B->getLHS()) && IsMul(B->getRHS()));
}

namespace {
bool checkOnlyCall(const ASTContext &C, const CallExpr *CE, unsigned Depth);

bool checkOnly(const ASTContext &C, const Stmt *S,
               const std::set<const VarDecl *> &Avoid, unsigned Depth) {
  bool Ok = true;
  std::set<const VarDecl *> Own;
  forEachStmt(S, [&](const Stmt *X) {
    if (const auto *DS = dyn_cast<DeclStmt>(X))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          Own.insert(V);
  });
  forEachStmt(S, [&](const Stmt *X) {
    if (!Ok)
      return;
    if (isa<CUDAKernelCallExpr>(X) || isa<ReturnStmt>(X) ||
        isa<GotoStmt>(X) || isa<CXXThrowExpr>(X) || isa<BreakStmt>(X) ||
        isa<ContinueStmt>(X)) {
      // `break` of the error macro's own do-while is not used in practice.
      Ok = false;
      return;
    }
    if (const auto *CE = dyn_cast<CallExpr>(X))
      if (!isa<CXXOperatorCallExpr>(CE) && !checkOnlyCall(C, CE, Depth))
        Ok = false;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(X))
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        if (Avoid.count(V))
          Ok = false;
  });
  if (!Ok)
    return false;
  for (const VarDecl *V : varsWrittenIn(S))
    if (!Own.count(V) && V->hasLocalStorage())
      return false;
  return true;
}

bool checkOnlyCall(const ASTContext &C, const CallExpr *CE, unsigned Depth) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || !FD->getIdentifier())
    return false;
  StringRef N = FD->getName();
  static const std::set<std::string> Cuda = {
      "cudaGetLastError",      "cudaPeekAtLastError", "cudaDeviceSynchronize",
      "cudaThreadSynchronize", "cudaGetErrorString",  "cudaGetErrorName"};
  if (Cuda.count(N.str()))
    return true;
  if (N == "cudaStreamSynchronize")
    return CE->getNumArgs() == 1 &&
           CE->getArg(0)->IgnoreParenImpCasts()->isNullPointerConstant(
               const_cast<ASTContext &>(C), Expr::NPC_ValueDependentIsNotNull);
  if (N.starts_with("cuda") || N.starts_with("cu"))
    return false;
  const SourceManager &SM = C.getSourceManager();
  if (SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation())))
    return true; // fprintf, exit, abort, printf, ...
  const FunctionDecl *Def = nullptr;
  if (Depth >= 2 || !FD->hasBody(Def) || !Def || Def->isTemplated())
    return false;
  return checkOnly(C, Def->getBody(), {}, Depth + 1);
}
} // namespace

bool errorCheckOnly(const ASTContext &C, const Stmt *S,
                    const std::set<const VarDecl *> &Avoid) {
  return checkOnly(C, S, Avoid, 0);
}

const Stmt *statementInBlock(ASTContext &C, const Stmt *E,
                             const CompoundStmt *&Parent) {
  DynTypedNode N = DynTypedNode::create(*E);
  for (unsigned D = 0; D < 16; ++D) {
    auto Ps = C.getParents(N);
    if (Ps.empty())
      return nullptr;
    if (const auto *CS = Ps[0].get<CompoundStmt>()) {
      Parent = CS;
      return N.get<Stmt>();
    }
    if (!Ps[0].get<Expr>() && !Ps[0].get<ExprWithCleanups>())
      return nullptr;
    N = Ps[0];
  }
  return nullptr;
}

const Decl *topLevelDecl(ASTContext &C, const Decl *D) {
  DynTypedNode N = DynTypedNode::create(*D);
  for (unsigned Depth = 0; Depth < 64; ++Depth) {
    auto Ps = C.getParents(N);
    if (Ps.empty())
      return N.get<Decl>();
    if (Ps[0].get<TranslationUnitDecl>())
      return N.get<Decl>();
    N = Ps[0];
  }
  return nullptr;
}

std::string statementText(const ASTContext &C, const Stmt *S) {
  const SourceManager &SM = C.getSourceManager();
  CharSourceRange R = SM.getExpansionRange(S->getSourceRange());
  SourceLocation E = Lexer::findLocationAfterToken(R.getEnd(), tok::semi, SM,
                                                   C.getLangOpts(), false);
  if (E.isInvalid())
    E = Lexer::getLocForEndOfToken(R.getEnd(), 0, SM, C.getLangOpts());
  return std::string(Lexer::getSourceText(
      CharSourceRange::getCharRange(R.getBegin(), E), SM, C.getLangOpts()));
}

} // namespace cudal1
