//===- LaunchFiles.cpp - values that come from calls in other files ---------===//
//
// A host function holding a launch (`void run(int n, float *d) { k<<<...>>>
// }` in kernels.cu) is often called from another file of the program
// (main.cu). Each translation unit records the calls it makes of host
// functions it declares but does not define, with their arguments evaluated
// along its own call paths (externalCalls); the unit defining the function
// then takes them as the values of its parameters (setExternalCalls), one
// tuple per call and call path, when no call of its own reaches it.
// Functions are matched by hostFunctionKey: qualified name and canonical
// parameter types, as the linker would (overloads stay apart).
//
//===----------------------------------------------------------------------===//
#include "LaunchEval.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/PrettyPrinter.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

using launcheval::CallStep;
using launcheval::Frame;
using launcheval::PtrVal;
using launcheval::Val;

std::string hostFunctionKey(const FunctionDecl *F) {
  if (!F || !F->getIdentifier() || F->isMain() || F->isDependentContext() ||
      F->isTemplateInstantiation() || F->getDescribedFunctionTemplate() ||
      F->hasAttr<CUDAGlobalAttr>() || !F->isExternallyVisible() ||
      isa<CXXConstructorDecl>(F) || isa<CXXDestructorDecl>(F) ||
      F->isOverloadedOperator())
    return "";
  PrintingPolicy P(F->getASTContext().getLangOpts());
  P.SuppressTagKeyword = true;
  P.FullyQualifiedName = true;
  P.PrintAsCanonical = true;
  // The parameter types of the function's type: without top-level const
  // or __restrict__ and with arrays decayed, as in a declaration that
  // matches the definition (`void f(struct g)` and `void f(const struct g)`).
  std::string K = F->getQualifiedNameAsString() + "(";
  const auto *FPT = F->getType()->getAs<FunctionProtoType>();
  for (unsigned I = 0; I < F->getNumParams(); ++I) {
    if (I)
      K += ", ";
    QualType T = FPT && I < FPT->getNumParams() ? FPT->getParamType(I)
                                                 : F->getParamDecl(I)->getType();
    K += T.getCanonicalType().getUnqualifiedType().getAsString(P);
  }
  if (F->isVariadic())
    K += F->getNumParams() ? ", ..." : "...";
  K += ")";
  if (const auto *M = dyn_cast<CXXMethodDecl>(F))
    if (M->isConst())
      K += " const";
  return K;
}

void LaunchEvaluator::setProgramArgs(const ProgramCommandLine *Args) {
  P->ProgramArgs = Args;
}

void LaunchEvaluator::setExternalCalls(const ExternalCalls *Calls) {
  P->Ext = Calls;
}

const std::set<std::string> &LaunchEvaluator::unreached() const {
  return P->Unreached;
}

const std::set<std::string> &LaunchEvaluator::callsUnreached() const {
  return P->CallsUnreached;
}

void LaunchEvaluator::Impl::noteUnreached(const FunctionDecl *F) {
  std::string K = hostFunctionKey(F);
  if (!K.empty())
    Unreached.insert(K);
}

ExternalCalls LaunchEvaluator::externalCalls(unsigned Limit) {
  ExternalCalls Out;
  P->buildIndex();
  // Functions these calls' values need are not launches' needs: a file is
  // parsed again only for its launches (unreached()).
  // What they need is kept apart (callsUnreached()).
  std::set<std::string> Saved = P->Unreached;
  P->CallsUnreached.clear();
  struct Restore {
    std::set<std::string> &To, &From, &Calls;
    ~Restore() {
      for (const std::string &K : To)
        if (!From.count(K))
          Calls.insert(K);
      To = std::move(From);
    }
  } R{P->Unreached, Saved, P->CallsUnreached};
  unsigned N = 0;
  for (const auto &KV : P->Callers) {
    const FunctionDecl *F = KV.first;
    // A method without parameters still passes its object (`sim.Start()`).
    if (F->getDefinition() ||
        (F->getNumParams() == 0 &&
         (!isa<CXXMethodDecl>(F) || cast<CXXMethodDecl>(F)->isStatic())) ||
        inSystemHeader(P->SM, F->getLocation()))
      continue;
    std::string Key = hostFunctionKey(F);
    if (Key.empty())
      continue;
    for (const CallStep &S : KV.second) {
      if (N++ >= Limit)
        return Out;
      const auto *C = S.Call;
      if (isa<CXXOperatorCallExpr>(C) || !S.Caller || !S.Caller->getBody() ||
          S.Caller->isDependentContext())
        continue;
      LaunchExprs L;
      L.Host = S.Caller;
      L.Launch = C;
      for (unsigned I = 0; I < C->getNumArgs(); ++I)
        L.Args.push_back(C->getArg(I));
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(C))
        L.Object = MC->getImplicitObjectArgument();
      std::string Note;
      for (LaunchValues &V : evaluate(L, Note)) {
        ExternalCall X;
        X.Where = P->where(C->getBeginLoc());
        X.Caller = S.Caller->getNameAsString();
        X.Args = std::move(V.Args);
        X.Members = std::move(V.Members);
        X.ArgMembers = std::move(V.ArgMembers);
        X.Unknowns = std::move(V.Unknowns);
        Out[Key].push_back(std::move(X));
      }
    }
  }
  return Out;
}

std::string LaunchEvaluator::Impl::importExpr(const std::string &Text,
                                              const ExternalCall &C) {
  // Every identifier of the expression that is one of the call's unknown
  // names becomes this path's name for it.
  std::string Out;
  for (size_t I = 0; I < Text.size();) {
    char Ch = Text[I];
    if (!isAlpha(Ch) && Ch != '_') {
      Out += Ch;
      ++I;
      continue;
    }
    size_t J = I;
    while (J < Text.size() && (isAlnum(Text[J]) || Text[J] == '_'))
      ++J;
    std::string Id = Text.substr(I, J - I);
    I = J;
    const UnknownValue *U = nullptr;
    for (const UnknownValue &X : C.Unknowns)
      if (X.Name == Id)
        U = &X;
    if (!U) {
      Out += Id; // a function of the spec syntax (cdiv, min, float, ...)
      continue;
    }
    std::string Key = U->Where + "|" + U->Name;
    auto It = St->ExtNames.find(Key);
    if (It == St->ExtNames.end()) {
      std::string Name = U->Name;
      for (unsigned K = 2; St->Used.count(Name); ++K)
        Name = U->Name + "_" + std::to_string(K);
      St->Used.insert(Name);
      UnknownValue V = *U;
      V.Name = Name;
      St->Unknowns.push_back(V);
      It = St->ExtNames.emplace(Key, Name).first;
    }
    Out += It->second;
  }
  return Out;
}

Val LaunchEvaluator::Impl::importValue(const ValueInfo &V,
                                       const ExternalCall &C, QualType T) {
  std::string From = " (the call at " + C.Where + ")";
  // An expression of the spec syntax: parenthesised unless a name.
  auto Wrap = [&](const std::string &E) {
    std::string T = importExpr(E, C);
    bool Name = !T.empty() && std::all_of(T.begin(), T.end(), [](char Ch) {
      return isAlnum(Ch) || Ch == '_';
    });
    return Name ? T : "(" + T + ")";
  };
  auto Scalar = [&](bool IsFloat, int64_t I, double F,
                    const std::string &E) -> Val {
    if (!E.empty())
      return Val::sym(Wrap(E), IsFloat);
    if (IsFloat)
      return Val::ofFloat(F, false);
    return Val::ofInt64(I);
  };
  Val R;
  switch (V.Kind) {
  case ValueInfo::Integer:
    R = Scalar(false, V.Int, 0, V.Expr);
    break;
  case ValueInfo::Floating:
    R = Scalar(true, 0, V.Float, V.Expr);
    break;
  case ValueInfo::Dim:
    R.Kind = Val::Dim;
    for (unsigned K = 0; K < 3; ++K)
      R.D.push_back(V.DimExprs[K].empty()
                        ? Val::ofInt64(int64_t(V.Dims[K]))
                        : Val::sym(Wrap(V.DimExprs[K]), false));
    break;
  case ValueInfo::Pointer: {
    PtrVal P;
    P.Null = V.Null;
    if (V.Bytes)
      P.Bytes = Val::ofInt64(int64_t(*V.Bytes));
    else if (!V.Expr.empty())
      P.Bytes = Val::sym(Wrap(V.Expr), false);
    else
      P.Bytes = Val::unknown(V.Why.empty() ? "the size of " + V.Allocation +
                                                 " is not known"
                                           : V.Why);
    P.Offset = Val::ofInt64(0);
    P.Alloc = V.Allocation.empty() ? "an allocation" + From : V.Allocation;
    P.HostInit = V.HostInitialised;
    P.HostInitHow = V.HostInit;
    P.HostValues = V.HostValues;
    P.HostFill = V.HostFill;
    P.HostSetByte = V.HostSetByte;
    R.Kind = Val::Ptr;
    R.P = std::make_shared<PtrVal>(std::move(P));
    return R;
  }
  case ValueInfo::Record:
    return Val::unknown("a structure passed by value" + From);
  case ValueInfo::Unknown:
    return Val::unknown((V.Why.empty() ? "not known" : V.Why) + From);
  }
  if (R.Kind == Val::Dim || T.isNull())
    return R;
  R = convert(R, T);
  return R;
}

Val LaunchEvaluator::Impl::externalArg(const ParmVarDecl *P, const Frame &Fr) {
  const ExternalCall &C = *Fr.Ext;
  unsigned I = P->getFunctionScopeIndex();
  if (I >= C.Args.size())
    return root(P, "not passed by the call at " + C.Where);
  if (Fr.Step >= 0)
    St->MaxStep = std::max(St->MaxStep, Fr.Step);
  Val V = importValue(C.Args[I], C, P->getType().getNonReferenceType());
  if (V.Kind == Val::Unknown)
    return root(P, V.Why);
  V.How = "'" + P->getNameAsString() + "' from the call at " + C.Where;
  return V;
}

} // namespace cudal1
