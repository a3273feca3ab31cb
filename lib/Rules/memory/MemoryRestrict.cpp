//===- MemoryRestrict.cpp - memory-restrict -------------------------------===//
#include "MemoryRestrict.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/TypeLoc.h"
#include "RestrictWrites.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

RuleInfo MemoryRestrict::info() const {
  RuleInfo I;
  I.Id = "memory-restrict";
  I.Category = "memory";
  I.Summary = "kernel pointer parameters without __restrict__; the "
              "compiler must assume they alias";
  I.Exactness = Exactness::Bitwise;
  I.Help = "Without __restrict__ every store may change what any other "
           "pointer reads, so loads cannot be reordered, kept in registers "
           "or sent through the read-only path. The fix is applied only "
           "when every launch of the kernel is in the file and passes, for "
           "each pointer, a different variable holding its own cudaMalloc "
           "allocation; otherwise the finding says what is not proven.";
  I.ExactnessNote =
      "bitwise; applied only when no-aliasing is proven, otherwise "
      "reported without a fix";
  I.Doc.Detects =
      "A kernel with two or more pointer parameters, some without "
      "`__restrict__`. Not reported when every write of the kernel goes "
      "through a pointer parameter with `__restrict__`, or through the only "
      "one without it, and the kernel has no atomic, fence, printf, inline "
      "assembly or call the tool cannot follow: an object written through "
      "a restrict pointer is reached only through it, so the compiler "
      "already knows that no pair aliases and that the inputs are "
      "read-only, and the qualifier would change no instruction.\n"
      "\n"
      "This rule also covers what `memory-const-restrict` reported "
      "(read-only inputs of a kernel that writes memory, without `const "
      "__restrict__`).";
  I.Doc.WhySlow =
      "Without `__restrict__` the compiler must assume every store may "
      "change what the other pointers read: no reordering of loads over "
      "stores, no keeping values in registers, no read-only path.";
  I.Doc.Example = R"cuda(__global__ void saxpy(int n, float a, const float *x, float *y))cuda";
  I.Doc.Fixed = R"cuda(__global__ void saxpy(int n, float a, const float *__restrict__ x, float *__restrict__ y))cuda";
  I.Doc.Fix =
      "Adds `__restrict__` to every pointer parameter. *Proven* (and "
      "applied by --fix) only when every launch of the kernel is visible "
      "(all its declarations in this file, its name used only in `<<<>>>` "
      "launches) and each launch passes, for each pointer parameter, a "
      "different local variable holding its own single `cudaMalloc*` "
      "allocation, never reassigned, or a different constant element of "
      "a local array of pointers whose elements are set only by "
      "`cudaMalloc*` (`float *d[10]; for (f = 0; f < 10; f++) "
      "cudaMalloc(&d[f], bytes); k<<<g, b>>>(d[0], d[7]);`). The same "
      "proof serves every rule that needs no aliasing (register "
      "accumulation, hoisting, the structural rewrites). Otherwise the "
      "finding says what is not proven and has no fix. Memory reached "
      "through other means "
      "(globals) is not considered.";
  return I;
}

void MemoryRestrict::checkKernel(const KernelUnit &K) {
  ASTContext &C = ctx();
  const FunctionDecl *FD = K.FD;
  auto Ptrs = pointerParams(FD);
  if (Ptrs.size() < 2)
    return;
  std::vector<const ParmVarDecl *> Missing;
  for (const ParmVarDecl *P : Ptrs)
    if (!P->getType().isRestrictQualified())
      Missing.push_back(P);
  if (Missing.empty())
    return;
  // The qualifier changes no instruction when every write of the kernel
  // goes through a pointer with it, or through the one pointer without it
  // (an object written through a restrict pointer is reached only through
  // it: the compiler knows no pair aliases and the inputs are read-only).
  // Writes it cannot name (a global, a struct's pointer, an atomic) keep
  // the finding (HeCBench and test kernels, compared PTX/SASS).
  if (writesOnlyThrough(FD, C.getSourceManager(),
                        [&](const ParmVarDecl *P) {
                          return P->getType().isRestrictQualified() ||
                                 (Missing.size() == 1 && P == Missing.front());
                        }))
    return;
  std::string Names;
  for (const ParmVarDecl *P : Missing)
    Names += (Names.empty() ? "'" : ", '") + P->getName().str() + "'";
  Finding F = makeFinding(
      C, id(), Missing.front()->getLocation(),
      (Missing.size() == 1 ? "pointer parameter " + Names +
                                 " is not __restrict__: the compiler must "
                                 "assume it aliases the others, "
                           : "pointer parameters " + Names +
                                 " are not __restrict__: the compiler must "
                                 "assume they alias, ") +
          "which blocks reordering and the read-only data path",
      FD);
  std::string Why;
  if (!pointerArgsDistinct(C, context(), FD, Why)) {
    reportWithoutFix(std::move(F), "no-aliasing is not proven: " + Why);
    return;
  }
  FixIt X;
  X.Description = "add __restrict__ to " + Names;
  X.Exact = Exactness::Bitwise;
  bool Ok = true;
  const SourceManager &SM = C.getSourceManager();
  for (const ParmVarDecl *P : Missing) {
    unsigned Index = P->getFunctionScopeIndex();
    for (const FunctionDecl *R : FD->redecls()) {
      PointerTypeLoc PTL = pointerTypeLoc(R->getParamDecl(Index));
      if (PTL.isNull()) {
        Ok = false;
        Why = "a parameter's type is not written as a pointer (typedef)";
        break;
      }
      SourceLocation Star = PTL.getStarLoc();
      std::string W;
      auto ER = editableRange(C, CharSourceRange::getTokenRange(Star, Star), W);
      if (!ER || !isUserCode(Star)) {
        Ok = false;
        Why = W.empty() ? "a declaration is not in user code" : W;
        break;
      }
      SourceLocation After = ER->getEnd();
      bool Invalid = false;
      const char *Next = SM.getCharacterData(After, &Invalid);
      bool Space = !Invalid && (*Next == ' ' || *Next == '\t');
      X.Edits.push_back(
          makeInsertion(C, After, Space ? " __restrict__" : "__restrict__ "));
    }
    if (!Ok)
      break;
  }
  reportFixOr(std::move(F), Ok, std::move(X), Why);
}

} // namespace cudal1
