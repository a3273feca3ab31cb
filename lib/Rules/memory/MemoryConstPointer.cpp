//===- MemoryConstPointer.cpp - memory-const-pointer ----------------------===//
#include "MemoryConstPointer.h"

#include "clang/Lex/Lexer.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

RuleInfo MemoryConstPointer::info() const {
  RuleInfo I;
  I.Id = "memory-const-pointer";
  I.Category = "memory";
  I.Summary = "kernel pointer parameter only read through; declare the "
              "pointee const";
  I.Exactness = Exactness::Bitwise;
  I.Help = "A pointer the kernel never writes through can be 'const T *'. "
           "With __restrict__ as well the compiler may load through the "
           "read-only (non-coherent) data path. Adding const changes no "
           "result; every declaration of the kernel in the translation "
           "unit is changed together. The kernel's mangled name changes: a "
           "separate, hand-written declaration in another file must be "
           "updated too.";
  I.Doc.Detects =
      "A kernel pointer parameter never written through (clang's "
      "ExprMutationAnalyzer: no stores, no passing to non-const pointers, "
      "no non-const copies).";
  I.Doc.WhySlow =
      "`const` documents the contract and, with `__restrict__`, allows "
      "loads through the read-only (non-coherent) data path.";
  I.Doc.Example = R"cuda(__global__ void saxpy(int n, float a, float *x, float *y))cuda";
  I.Doc.Fixed = R"cuda(__global__ void saxpy(int n, float a, const float *x, float *y))cuda";
  I.Doc.Fix =
      "Inserts `const` before the pointee type in every declaration of the "
      "kernel in the translation unit. The mangled name changes: a "
      "hand-written declaration of the kernel in another file must change "
      "too (link error otherwise). A rewrite that no longer compiles is "
      "not written.";
  return I;
}

void MemoryConstPointer::checkKernel(const KernelUnit &K) {
  ASTContext &C = ctx();
  const FunctionDecl *FD = K.FD;
  if (!FD->getBody())
    return;
  ExprMutationAnalyzer EMA(*FD->getBody(), C);
  for (const ParmVarDecl *P : pointerParams(FD)) {
    QualType Pointee = P->getType()->getPointeeType();
    if (Pointee.isConstQualified() || Pointee->isVoidType() ||
        Pointee->isPointerType() || Pointee.isVolatileQualified())
      continue;
    if (EMA.isPointeeMutated(P))
      continue;
    // Also not written through in a copy: the analyzer follows those.
    unsigned Index = P->getFunctionScopeIndex();
    std::string Name = P->getName().str();
    Finding F = makeFinding(C, id(), P->getLocation(),
                            "pointer parameter '" + Name +
                                "' is only read; declare it 'const " +
                                Pointee.getAsString() +
                                " *' (with __restrict__ the loads can use "
                                "the read-only data path)",
                            FD);
    FixIt X;
    X.Description = "make the pointee of '" + Name + "' const";
    X.Exact = Exactness::Bitwise;
    bool Ok = true;
    std::string Why;
    for (const FunctionDecl *R : FD->redecls()) {
      if (Index >= R->getNumParams()) {
        Ok = false;
        break;
      }
      PointerTypeLoc PTL = pointerTypeLoc(R->getParamDecl(Index));
      if (PTL.isNull()) {
        Ok = false;
        Why = "the parameter's type is not written as a pointer (typedef)";
        break;
      }
      SourceLocation B = PTL.getPointeeLoc().getBeginLoc();
      // The element type from an object-like macro (`DATA_TYPE *a`, the
      // macro the whole pointee and the `*` written outside it): `const`
      // goes before the macro's name, the macro's text unchanged.
      const SourceManager &SM = C.getSourceManager();
      SourceLocation MacroBegin, MacroEnd;
      SourceLocation PE = PTL.getPointeeLoc().getEndLoc();
      if (B.isMacroID() && PE.isMacroID() && PTL.getStarLoc().isFileID() &&
          Lexer::isAtStartOfMacroExpansion(B, SM, C.getLangOpts(),
                                           &MacroBegin) &&
          Lexer::isAtEndOfMacroExpansion(PE, SM, C.getLangOpts(),
                                         &MacroEnd) &&
          MacroBegin.isFileID() &&
          SM.getExpansionLoc(B) == SM.getExpansionLoc(PE))
        B = MacroBegin;
      auto ER = editableRange(C, CharSourceRange::getCharRange(B, B), Why);
      if (!ER) {
        Ok = false;
        break;
      }
      if (!isUserCode(B)) {
        Ok = false;
        Why = "a declaration of the kernel is not in user code";
        break;
      }
      X.Edits.push_back(makeInsertion(C, ER->getBegin(), "const "));
    }
    reportFixOr(std::move(F), Ok, std::move(X), Why);
  }
}

} // namespace cudal1
