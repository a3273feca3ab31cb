//===- UnrollPragma.cpp - innermost counted loops and #pragma unroll ------===//
#include "UnrollPragma.h"
#include "../CompiledKernel.h"
#include "cudal1/Rules/RuleSupport.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

/// Roughly the code the compiler sees in \p S: its expression and
/// statement nodes (implicit casts and parentheses make no code), with the
/// bodies of the user's functions it calls (inlined on the device), up to
/// three calls deep. A call into code the tool cannot see (libdevice's
/// powf, expf, ...: declared without a body) counts as OpaqueCallSize
/// nodes: one such call is tens of instructions, and nvcc does not unroll
/// eight trips of powf by itself.
/// libdevice functions that are one instruction or two (a square root,
/// an absolute value, a fused multiply-add, the approximate intrinsics
/// __sinf, __expf, ... behind `__nv_fast_*`): not worth OpaqueCallSize.
static bool cheapLibdevice(StringRef Name) {
  static const char *const Cheap[] = {
      "sqrt",  "rsqrt", "fabs",   "fmin",    "fmax", "fma",   "floor",
      "ceil",  "trunc", "rint",   "round",   "saturate", "copysign",
      "fdim",  "frcp",  "fsqrt",  "fdiv",    "fmul", "fadd",  "fsub",
      "fmaf",  "signbit", "isnan", "isinf",  "isfinite", "finite"};
  if (!Name.consume_front("__nv_"))
    return false;
  if (Name.starts_with("fast_"))
    return true;
  for (const char *C : Cheap) {
    StringRef P(C);
    if (Name == P || (Name.starts_with(P) &&
                      (Name.size() == P.size() + 1 || Name[P.size()] == '_')))
      return true;
  }
  return false;
}

/// libdevice's float exponentials and logarithms (expf, exp2f, logf, ...):
/// a few instructions once inlined.
static bool floatExpLog(StringRef Name) {
  return Name.consume_front("__nv_") &&
         (Name == "expf" || Name == "exp2f" || Name == "exp10f" ||
          Name == "logf" || Name == "log2f" || Name == "log10f");
}

unsigned codeSize(const Stmt *S, unsigned Depth, unsigned OpaqueCallSize,
                  unsigned ExpLogCallSize) {
  if (!S)
    return 0;
  unsigned N = isa<ImplicitCastExpr, ParenExpr>(S) ? 0 : 1;
  if (const auto *CE = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *FD = CE->getDirectCallee(); FD &&
                                                        FD->getBuiltinID() == 0) {
      const FunctionDecl *Def = FD->getDefinition();
      if (!Def || !Def->hasBody())
        N += !FD->getIdentifier()            ? OpaqueCallSize
             : cheapLibdevice(FD->getName()) ? 1
             : floatExpLog(FD->getName())    ? ExpLogCallSize
                                             : OpaqueCallSize;
      else if (Depth < 3)
        N += codeSize(Def->getBody(), Depth + 1, OpaqueCallSize,
                      ExpLogCallSize);
    }
  for (const Stmt *C : S->children())
    N += codeSize(C, Depth, OpaqueCallSize, ExpLogCallSize);
  return N;
}

std::optional<LoopShape> unrollCandidate(ASTContext &Ctx, const ForStmt *For,
                                         const FunctionDecl *&FD) {
  FD = enclosingFunction(Ctx, DynTypedNode::create(*For));
  if (!FD || !isDeviceCode(FD) || isInInstantiation(FD))
    return std::nullopt;
  const Stmt *Body = For->getBody();
  if (Body && isLoop(Body))
    return std::nullopt;
  if (containsLoop(Body) || hasLoopHint(Ctx, For))
    return std::nullopt;
  return analyzeFor(Ctx, For);
}

bool pragmaFix(ASTContext &Ctx, const ForStmt *For, StringRef Pragma, FixIt &X,
               std::string &Why) {
  auto Indent = lineIndent(Ctx, For->getBeginLoc());
  auto P = Ctx.getParents(*For);
  if (For->getBeginLoc().isMacroID() || inMacro(For->getSourceRange())) {
    Why = "the loop comes from a macro expansion";
    return false;
  }
  if (!Indent || P.empty() || !P[0].get<CompoundStmt>()) {
    Why = "the loop does not start its own line in a { } block";
    return false;
  }
  X.Description = "add " + Pragma.str();
  X.Exact = Exactness::Bitwise;
  X.Edits.push_back(
      makeInsertion(Ctx, For->getBeginLoc(), Pragma.str() + "\n" + *Indent));
  return true;
}

std::optional<bool> pragmaChangesCode(ASTContext &Ctx, const CheckContext &CC,
                                      const FunctionDecl *Kernel,
                                      const FunctionDecl *FD, const Stmt *Loop,
                                      StringRef Pragma) {
  SourceLocation LB = Loop ? Loop->getBeginLoc() : SourceLocation();
  if (!Kernel || !FD || !LB.isFileID())
    return std::nullopt;
  TextEdit X = makeTextEdit(Ctx, CharSourceRange::getCharRange(LB, LB),
                            "_Pragma(\"" + Pragma.str() + "\") ");
  return editsChangeCode(Ctx, CC, Kernel, FD, {X});
}

std::optional<double> UnrollCodeSizes::copyBytes() const {
  if (Full <= Once || Trip < 2)
    return std::nullopt;
  return (Full - Once) / double(Trip - 1);
}

std::optional<double> UnrollCodeSizes::copies() const {
  if (AsIs <= Full && Full <= Once)
    return double(Trip);
  std::optional<double> Copy = copyBytes();
  if (!Copy)
    return std::nullopt;
  return 1.0 + (AsIs - Once) / *Copy;
}

std::optional<UnrollCodeSizes>
unrollCodeSizes(ASTContext &Ctx, const CheckContext &CC,
                const FunctionDecl *Kernel, const FunctionDecl *FD,
                const Stmt *Loop, int64_t Trip) {
  SourceLocation LB = Loop ? Loop->getBeginLoc() : SourceLocation();
  if (!Kernel || !FD || !LB.isFileID() || Trip < 2)
    return std::nullopt;
  auto At = [&](StringRef Text) {
    return std::vector<TextEdit>{makeTextEdit(
        Ctx, CharSourceRange::getCharRange(LB, LB), Text.str())};
  };
  std::vector<std::vector<TextEdit>> Variants{
      At(""), At("_Pragma(\"unroll 1\") "), At("_Pragma(\"unroll\") ")};
  std::optional<std::vector<size_t>> B =
      codeBytesWithEdits(Ctx, CC, Kernel, FD, Variants);
  if (!B || B->size() != 3)
    return std::nullopt;
  UnrollCodeSizes S;
  S.Trip = Trip;
  S.AsIs = double((*B)[0]);
  S.Once = double((*B)[1]);
  S.Full = double((*B)[2]);
  return S;
}

} // namespace cudal1
