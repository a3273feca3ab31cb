//===- LaunchPaths.cpp - the call paths reaching a launch, one tuple each ----===//
//
// The function holding a launch may get its values from its callers: every
// call path of the translation unit that reaches it (callers of callers, up
// to kMaxPathDepth functions, recursion skipped, at most kMaxPaths paths) is
// evaluated, and each distinct set of values becomes one tuple.
//
//===----------------------------------------------------------------------===//
#include "LaunchEval.h"
#include "cudal1/Model/RecordMembers.h"

#include "llvm/ADT/StringRef.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

using launcheval::CallStep;
using launcheval::Frame;
using launcheval::PathState;
using launcheval::Val;

namespace {
constexpr unsigned kMaxPathDepth = 4;
constexpr unsigned kMaxPaths = 16;

/// "(a + b)" -> "a + b".
std::string stripOuter(const std::string &T) {
  if (T.size() < 2 || T.front() != '(' || T.back() != ')')
    return T;
  int Depth = 0;
  for (size_t I = 0; I < T.size(); ++I) {
    if (T[I] == '(')
      ++Depth;
    else if (T[I] == ')' && --Depth == 0 && I + 1 != T.size())
      return T;
  }
  return T.substr(1, T.size() - 2);
}

int64_t asInt64(const APSInt &I) {
  if (I.isSigned())
    return I.getSExtValue();
  uint64_t U = I.getZExtValue();
  return U > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(U);
}
} // namespace

LaunchEvaluator::LaunchEvaluator(ASTContext &Ctx)
    : P(std::make_unique<Impl>(Ctx)) {}
LaunchEvaluator::~LaunchEvaluator() = default;

ValueInfo LaunchEvaluator::Impl::dimInfo(const Val &V) {
  ValueInfo I;
  I.Type = "dim3";
  I.How = V.How;
  std::vector<Val> C;
  if (V.Kind == Val::Dim)
    C = V.D;
  else if (V.isScalar())
    C = {convert(V, Ctx.UnsignedIntTy), Val::ofInt64(1), Val::ofInt64(1)};
  else {
    I.Why = V.Why.empty() ? "not known" : V.Why;
    return I;
  }
  I.Kind = ValueInfo::Dim;
  for (unsigned K = 0; K < 3; ++K) {
    const Val &X = C[K];
    if (X.Kind == Val::Int) {
      I.Dims[K] = uint64_t(asInt64(X.I));
    } else if (X.Kind == Val::Sym) {
      I.Dims[K] = 0;
      I.DimExprs[K] = stripOuter(X.Text);
    } else {
      ValueInfo U;
      U.Type = "dim3";
      U.Why = X.Why.empty() ? "not known" : X.Why;
      return U;
    }
  }
  return I;
}

ValueInfo LaunchEvaluator::Impl::toInfo(const Val &V, QualType T) {
  ValueInfo I;
  I.Type = T.getAsString(Ctx.getPrintingPolicy());
  I.How = V.How;
  switch (V.Kind) {
  case Val::Int:
    I.Kind = ValueInfo::Integer;
    I.Int = asInt64(V.I);
    break;
  case Val::Float:
    I.Kind = ValueInfo::Floating;
    I.Float = V.F;
    break;
  case Val::Sym:
    I.Kind = V.SymFloat ? ValueInfo::Floating : ValueInfo::Integer;
    I.Expr = stripOuter(V.Text);
    break;
  case Val::Dim:
    return dimInfo(V);
  case Val::Ptr: {
    const launcheval::PtrVal &P = *V.P;
    I.Kind = ValueInfo::Pointer;
    I.Allocation = P.Alloc;
    if (P.Null) {
      I.Null = true;
      break;
    }
    I.HostInitialised = P.HostInit;
    I.HostInit = P.HostInitHow;
    if (P.Offset.Kind == Val::Int && P.Offset.I == 0) {
      I.HostValues = P.HostValues;
      I.HostFill = P.HostFill;
      I.HostSetByte = P.HostSetByte;
    }
    bool ZeroOff = P.Offset.Kind == Val::Int && P.Offset.I == 0;
    if (P.Bytes.Kind == Val::Int && P.Offset.Kind == Val::Int) {
      int64_t B = asInt64(P.Bytes.I) - asInt64(P.Offset.I);
      if (B > 0) {
        I.Bytes = uint64_t(B);
        if (P.Offset.I > 0)
          I.LeadBytes = asInt64(P.Offset.I);
      } else {
        I.Why = "the pointer is at or past the end of its allocation (" +
                P.Alloc + ")";
      }
    } else if (P.Bytes.isScalar() && P.Offset.isScalar()) {
      I.Expr = ZeroOff ? stripOuter(P.Bytes.text())
                       : P.Bytes.text() + " - " + P.Offset.text();
    } else {
      I.Why = P.Bytes.Why.empty() ? "the size of " + P.Alloc + " is not known"
                                  : P.Bytes.Why;
    }
    break;
  }
  case Val::Unknown:
    I.Why = V.Why.empty() ? "not known" : V.Why;
    break;
  }
  return I;
}

std::vector<std::pair<std::string, ValueInfo>>
LaunchEvaluator::Impl::numberMembers(const Expr *Obj, const Frame &Fr) {
  std::vector<std::pair<std::string, ValueInfo>> Out;
  bool Ptr = Obj->getType()->isPointerType();
  QualType OT = Ptr ? Obj->getType()->getPointeeType()
                    : Obj->getType().getNonReferenceType();
  const auto *RD = OT->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition() || RD->isDependentContext())
    return Out;
  unsigned N = 0;
  for (const FieldDecl *FD : RD->getDefinition()->fields()) {
    QualType FT = FD->getType();
    if (!FD->getIdentifier() || FD->isBitField() || FT->isReferenceType() ||
        !launcheval::scalarType(FT) || ++N > 32)
      continue;
    Val V = Ptr ? fieldThroughPointer(Obj, {FD}, Fr) : fieldOf(Obj, {FD}, Fr);
    Out.push_back({FD->getNameAsString(), toInfo(V, FT)});
  }
  return Out;
}

ValueInfo LaunchEvaluator::Impl::recordInfo(const Expr *A, const Frame &Fr) {
  QualType T = A->getType().getNonReferenceType();
  ValueInfo I;
  I.Type = T.getAsString(Ctx.getPrintingPolicy());
  std::vector<RecordLeaf> Leaves;
  std::string WhyNot;
  if (!recordLeaves(Ctx, T, Leaves, WhyNot)) {
    I.Why = "'" + text(A) + "' is a '" + I.Type + "': " + WhyNot +
            " (the harness passes structures whose members are numbers)";
    return I;
  }
  I.Kind = ValueInfo::Record;
  for (const RecordLeaf &L : Leaves) {
    Val V = fieldOf(A, L.Path, Fr);
    if (V.Kind != Val::Unknown)
      V = convert(V, L.Type);
    ValueInfo M = toInfo(V, L.Type);
    if (M.Kind == ValueInfo::Unknown)
      M.Why = "member '" + L.PathText + "': " + M.Why;
    I.Members.push_back(std::move(M));
  }
  return I;
}

void LaunchEvaluator::Impl::paths(const FunctionDecl *F,
                                  std::vector<CallStep> &Cur,
                                  std::vector<std::vector<CallStep>> &Out,
                                  std::vector<std::string> &RootWhys,
                                  bool &Truncated) {
  if (Out.size() >= kMaxPaths) {
    Truncated = true;
    return;
  }
  const FunctionDecl *Fn = Cur.empty() ? F : Cur.back().Caller;
  const std::vector<CallStep> &Cs = callers(Fn);
  if (Cs.empty()) {
    // Called from other files only: their calls, when given.
    auto It = Ext ? Ext->find(hostFunctionKey(Fn)) : ExternalCalls::const_iterator();
    if (Ext && It != Ext->end() && !It->second.empty()) {
      for (const ExternalCall &X : It->second) {
        if (Out.size() >= kMaxPaths) {
          Truncated = true;
          return;
        }
        CallStep S;
        S.Ext = &X;
        Cur.push_back(S);
        Out.push_back(Cur);
        RootWhys.push_back("");
        Cur.pop_back();
      }
      return;
    }
    Out.push_back(Cur);
    RootWhys.push_back("");
    return;
  }
  if (Cur.size() >= kMaxPathDepth) {
    Out.push_back(Cur);
    RootWhys.push_back("a parameter of " + Fn->getNameAsString() +
                       "(), reached through more than " +
                       std::to_string(kMaxPathDepth) +
                       " calls: not followed further");
    return;
  }
  bool Any = false;
  for (const CallStep &S : Cs) {
    bool OnPath = S.Caller == F;
    for (const CallStep &C : Cur)
      OnPath |= C.Caller == S.Caller;
    if (OnPath)
      continue; // recursion
    Any = true;
    Cur.push_back(S);
    paths(F, Cur, Out, RootWhys, Truncated);
    Cur.pop_back();
    if (Out.size() >= kMaxPaths) {
      Truncated = true;
      return;
    }
  }
  if (!Any) {
    Out.push_back(Cur);
    RootWhys.push_back("a parameter of the recursive " +
                       Fn->getNameAsString() + "()");
  }
}

LaunchValues
LaunchEvaluator::Impl::evaluatePath(const LaunchExprs &L,
                                    const std::vector<CallStep> &Path,
                                    const std::string &RootWhy) {
  // A last step in another file continues no frame: it gives the
  // parameters of the outermost one.
  const launcheval::ExternalCall *X =
      !Path.empty() ? Path.back().Ext : nullptr;
  size_t Local = X ? Path.size() - 1 : Path.size();
  std::vector<Frame> Fs(Local + 1);
  Fs[0].F = L.Host;
  Fs[0].At = L.Launch;
  Fs[0].Step = 0;
  for (size_t I = 1; I <= Local; ++I) {
    Fs[I].F = Path[I - 1].Caller;
    Fs[I].At = Path[I - 1].Call;
    Fs[I].Step = int(I);
    Fs[I - 1].Call = Path[I - 1].Call;
    Fs[I - 1].Parent = &Fs[I];
    // A method called on an object (`sim.run()`): its members are that
    // object's.
    if (const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(Path[I - 1].Call))
      Fs[I - 1].Object = MC->getImplicitObjectArgument();
  }
  Fs.back().RootWhy = RootWhy;
  Fs.back().Ext = X;
  PathState S;
  St = &S;
  LaunchValues LV;
  const Frame &F0 = Fs[0];
  LV.Grid = L.Grid ? dimInfo(eval(L.Grid, F0)) : dimInfo(Val::unknown(
                                                     "the launch gives no grid"));
  LV.Block = L.Block ? dimInfo(eval(L.Block, F0))
                     : dimInfo(Val::unknown("the launch gives no block"));
  if (L.Shared)
    LV.SharedMem =
        toInfo(convert(eval(L.Shared, F0), Ctx.getSizeType()), Ctx.getSizeType());
  else
    LV.SharedMem = toInfo(Val::ofInt64(0), Ctx.getSizeType());
  for (const Expr *A : L.Args) {
    if (!A) {
      ValueInfo U;
      U.Why = "the launch's form does not show this argument";
      LV.Args.push_back(U);
      continue;
    }
    QualType AT = A->getType().getNonReferenceType();
    if (AT->isRecordType() && !AT->isDependentType()) {
      LV.Args.push_back(recordInfo(A, F0));
      if (LV.Args.back().Kind != ValueInfo::Record) {
        // Not passable whole: its number members alone (at most 32, of the
        // class itself), for a function of another file that reads them.
        LV.ArgMembers.resize(L.Args.size());
        LV.ArgMembers[LV.Args.size() - 1] = numberMembers(A, F0);
      }
      continue;
    }
    LV.Args.push_back(toInfo(eval(A, F0), A->getType()));
  }
  // The object of a method's call: its number members (at most 32, of
  // the class itself), for the unit that defines the method.
  if (L.Object)
    LV.Members = numberMembers(L.Object, F0);
  for (int I = 0; I <= S.MaxStep && I < int(Path.size()); ++I) {
    const FunctionDecl *Callee = I == 0 ? L.Host : Path[I - 1].Caller;
    LV.Path.push_back(Callee->getNameAsString() + "() called at " +
                      (Path[I].Ext ? Path[I].Ext->Where
                                   : where(Path[I].Call->getBeginLoc())));
  }
  LV.Unknowns = S.Unknowns;
  LastMaxStep = S.MaxStep;
  St = nullptr;
  Extra.clear();
  return LV;
}

std::vector<LaunchValues> LaunchEvaluator::evaluate(const LaunchExprs &L,
                                                    std::string &Note) {
  std::vector<LaunchValues> Out;
  if (!L.Host || !L.Launch)
    return Out;
  std::vector<std::vector<CallStep>> Paths;
  std::vector<std::string> RootWhys;
  std::vector<CallStep> Cur;
  bool Truncated = false;
  P->paths(L.Host, Cur, Paths, RootWhys, Truncated);
  for (size_t I = 0; I < Paths.size(); ++I) {
    LaunchValues LV = P->evaluatePath(L, Paths[I], RootWhys[I]);
    addLaunchValues(Out, {LV}, Note);
    // Values that need no argument of a caller are the same on every path.
    if (I == 0 && P->LastMaxStep < 0)
      return Out;
  }
  if (Truncated && Note.empty())
    Note = "more than " + std::to_string(kMaxPaths) +
           " call paths reach this launch; the first " +
           std::to_string(kMaxPaths) + " were followed";
  return Out;
}

} // namespace cudal1
