//===- KernelInfo.cpp - plain-data kernel model helpers -------------------===//
#include "llvm/Support/Path.h"
#include "cudal1/Model/KernelInfo.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace cudal1 {

std::vector<ParamInfo> namedParams(std::vector<ParamInfo> Params) {
  for (ParamInfo &P : Params)
    if (P.Name.empty())
      P.Name = "arg" + std::to_string(P.Index);
  return Params;
}

ParamInfo makeParam(std::string Name, std::string Type,
                    std::string ElementType, bool IsPointer,
                    bool PointeeConst, uint64_t Size, uint64_t ElementSize) {
  ParamInfo P;
  P.Name = std::move(Name);
  P.Type = std::move(Type);
  P.ElementType = std::move(ElementType);
  P.IsPointer = IsPointer;
  P.PointeeConst = PointeeConst;
  P.SizeBytes = Size;
  P.AlignBytes = Size;
  P.ElementSizeBytes = ElementSize;
  return P;
}

bool ValueInfo::known() const {
  switch (Kind) {
  case Unknown:
    return false;
  case Integer:
  case Floating:
    return Expr.empty();
  case Dim:
    return DimExprs[0].empty() && DimExprs[1].empty() && DimExprs[2].empty();
  case Pointer:
    return Bytes.has_value() || Null;
  case Record:
    return std::all_of(Members.begin(), Members.end(),
                       [](const ValueInfo &M) { return M.known(); });
  }
  return false;
}

bool ValueInfo::expressible() const {
  if (known())
    return true;
  if (Kind == Record)
    return std::all_of(Members.begin(), Members.end(),
                       [](const ValueInfo &M) { return M.expressible(); });
  return Kind == Dim || ((Kind == Integer || Kind == Floating ||
                          Kind == Pointer) &&
                         !Expr.empty());
}

static bool sameValue(const ValueInfo &A, const ValueInfo &B) {
  return A.Kind == B.Kind && A.Int == B.Int && A.Float == B.Float &&
         A.Dims == B.Dims && A.Expr == B.Expr && A.DimExprs == B.DimExprs &&
         A.Bytes == B.Bytes && A.Null == B.Null &&
         A.HostInitialised == B.HostInitialised &&
         A.Why == B.Why && A.Members.size() == B.Members.size() &&
         std::equal(A.Members.begin(), A.Members.end(), B.Members.begin(),
                    sameValue);
}

bool LaunchValues::complete() const {
  if (!Grid.known() || !Block.known() || !SharedMem.known())
    return false;
  return std::all_of(Args.begin(), Args.end(),
                     [](const ValueInfo &V) { return V.known(); });
}

bool LaunchValues::sameValues(const LaunchValues &O) const {
  if (Args.size() != O.Args.size() || NameExpr != O.NameExpr ||
      !sameValue(Grid, O.Grid) ||
      !sameValue(Block, O.Block) || !sameValue(SharedMem, O.SharedMem))
    return false;
  for (size_t I = 0; I < Args.size(); ++I)
    if (!sameValue(Args[I], O.Args[I]))
      return false;
  // A host function's call (another file's values): the object's members
  // and the structures' members count too.
  auto SameMembers = [&](const std::vector<std::pair<std::string, ValueInfo>> &A,
                         const std::vector<std::pair<std::string, ValueInfo>> &B) {
    if (A.size() != B.size())
      return false;
    for (size_t K = 0; K < A.size(); ++K)
      if (A[K].first != B[K].first || !sameValue(A[K].second, B[K].second))
        return false;
    return true;
  };
  if (!SameMembers(Members, O.Members) ||
      ArgMembers.size() != O.ArgMembers.size())
    return false;
  for (size_t I = 0; I < ArgMembers.size(); ++I)
    if (!SameMembers(ArgMembers[I], O.ArgMembers[I]))
      return false;
  return true;
}

void addLaunchValues(std::vector<LaunchValues> &Into,
                     const std::vector<LaunchValues> &From,
                     std::string &Note) {
  for (const LaunchValues &V : From) {
    if (std::any_of(Into.begin(), Into.end(),
                    [&](const LaunchValues &E) { return E.sameValues(V); }))
      continue;
    if (Into.size() >= kMaxLaunchTuples) {
      Note = "more than " + std::to_string(kMaxLaunchTuples) +
             " distinct sets of values reach this launch; the first " +
             std::to_string(kMaxLaunchTuples) + " are kept";
      continue;
    }
    Into.push_back(V);
  }
  // Complete tuples first, each group in the order found.
  std::stable_partition(Into.begin(), Into.end(),
                        [](const LaunchValues &V) { return V.complete(); });
}

std::string SourceLoc::str() const {
  return File + ":" + std::to_string(Line) + ":" + std::to_string(Column);
}

std::string SourceLoc::brief() const {
  return llvm::sys::path::filename(File).str() + ":" + std::to_string(Line) +
         ":" + std::to_string(Column);
}

static void mergeKernel(KernelInfo &Into, const KernelInfo &From) {
  // Instantiations seen in another translation unit.
  for (const auto &I : From.Instantiations) {
    bool Seen = std::any_of(
        Into.Instantiations.begin(), Into.Instantiations.end(),
        [&](const InstantiationInfo &J) { return J.NameExpr == I.NameExpr; });
    if (!Seen)
      Into.Instantiations.push_back(I);
  }
  std::set<std::string> Have;
  for (const auto &C : Into.DeviceFunctions)
    Have.insert(C.Loc.str() + C.QualifiedName);
  for (const auto &C : From.DeviceFunctions)
    if (Have.insert(C.Loc.str() + C.QualifiedName).second)
      Into.DeviceFunctions.push_back(C);
  Have.clear();
  for (const auto &V : Into.Variables)
    Have.insert(V.Loc.str() + V.QualifiedName);
  for (const auto &V : From.Variables)
    if (Have.insert(V.Loc.str() + V.QualifiedName).second)
      Into.Variables.push_back(V);
}

void ProjectModel::merge(const ProjectModel &TU) {
  for (const auto &KV : TU.CallsOut) {
    std::vector<ExternalCall> &Into = CallsOut[KV.first];
    for (const ExternalCall &C : KV.second)
      if (std::none_of(Into.begin(), Into.end(), [&](const ExternalCall &E) {
            return E.Where == C.Where && E.Args.size() == C.Args.size() &&
                   std::equal(E.Args.begin(), E.Args.end(), C.Args.begin(),
                              sameValue);
          }))
        Into.push_back(C);
  }
  Unreached.insert(TU.Unreached.begin(), TU.Unreached.end());
  CallsNeed.insert(TU.CallsNeed.begin(), TU.CallsNeed.end());
  for (const auto &K : TU.Kernels) {
    auto It = std::find_if(Kernels.begin(), Kernels.end(),
                           [&](const KernelInfo &E) { return E.key() == K.key(); });
    if (It == Kernels.end())
      Kernels.push_back(K);
    else
      mergeKernel(*It, K);
  }
  for (const auto &L : TU.LaunchSites) {
    auto It = std::find_if(
        LaunchSites.begin(), LaunchSites.end(),
        [&](const LaunchSite &E) { return E.key() == L.key(); });
    if (It == LaunchSites.end()) {
      LaunchSites.push_back(L);
      continue;
    }
    std::vector<LaunchValues> Values = It->Values;
    std::string ValuesNote = It->ValuesNote;
    addLaunchValues(Values, L.Values, ValuesNote);
    std::vector<std::string> Args = It->TemplateArgs;
    for (const auto &A : L.TemplateArgs)
      if (std::find(Args.begin(), Args.end(), A) == Args.end())
        Args.push_back(A);
    // Prefer a resolved call (instantiation) over the unresolved one in a
    // template pattern; if instantiations disagree on a value, it is not a
    // constant of the launch site.
    if (It->KernelKey.empty() && !L.KernelKey.empty()) {
      *It = L;
    } else if (!L.KernelKey.empty()) {
      auto Agree = [](LaunchArg &A, const LaunchArg &B) {
        if (A.Dim != B.Dim)
          A.Dim.reset();
        if (A.Value != B.Value)
          A.Value.reset();
      };
      Agree(It->Grid, L.Grid);
      Agree(It->Block, L.Block);
      Agree(It->SharedMem, L.SharedMem);
    }
    It->TemplateArgs = Args;
    It->Values = std::move(Values);
    if (ValuesNote.empty())
      ValuesNote = L.ValuesNote;
    It->ValuesNote = ValuesNote;
  }
}

void ProjectModel::sort() {
  std::stable_sort(Kernels.begin(), Kernels.end(),
                   [](const KernelInfo &A, const KernelInfo &B) {
                     return A.Range.Begin < B.Range.Begin;
                   });
  for (auto &K : Kernels) {
    std::sort(K.DeviceFunctions.begin(), K.DeviceFunctions.end());
    std::sort(K.Variables.begin(), K.Variables.end());
    std::stable_sort(K.Instantiations.begin(), K.Instantiations.end(),
                     [](const InstantiationInfo &A, const InstantiationInfo &B) {
                       return A.TemplateArgs < B.TemplateArgs;
                     });
  }
  std::stable_sort(LaunchSites.begin(), LaunchSites.end(),
                   [](const LaunchSite &A, const LaunchSite &B) {
                     return A.Loc < B.Loc;
                   });
  for (auto &L : LaunchSites)
    std::sort(L.TemplateArgs.begin(), L.TemplateArgs.end());
}

} // namespace cudal1

namespace cudal1 {

bool IndexExpr::loads(unsigned P, bool InBound, bool UnderRange) const {
  if (Kind == Load && Buffer == P && (!InBound || UnderRange))
    return true;
  for (const IndexExpr &O : Ops)
    if (O.loads(P, InBound, UnderRange || Kind == Range))
      return true;
  return false;
}

void IndexExpr::loadedParams(std::set<unsigned> &Out) const {
  if (Kind == Load)
    Out.insert(Buffer);
  for (const IndexExpr &O : Ops)
    O.loadedParams(Out);
}

std::string IndexExpr::opaqueWhy(unsigned P) const {
  if (Kind == Opaque && loads(P))
    return Name;
  for (const IndexExpr &O : Ops) {
    std::string W = O.opaqueWhy(P);
    if (!W.empty())
      return W;
  }
  return "";
}

std::string IndexExpr::str(const std::vector<std::string> &Names) const {
  auto Bin = [&](const char *Op) {
    return "(" + Ops[0].str(Names) + " " + Op + " " + Ops[1].str(Names) + ")";
  };
  switch (Kind) {
  case Const:
    return std::to_string(Value);
  case Param:
  case Builtin:
    return Name;
  case Load:
    return (Buffer < Names.size() ? Names[Buffer]
                                 : "param" + std::to_string(Buffer)) +
           "[.]";
  case Range:
    return "{" + Ops[0].str(Names) + ".." + Ops[1].str(Names) + "}";
  case Add:
    return Bin("+");
  case Sub:
    return Bin("-");
  case Mul:
    return Bin("*");
  case Div:
    return Bin("/");
  case Rem:
    return Bin("%");
  case Shl:
    return Bin("<<");
  case Shr:
    return Bin(">>");
  case And:
    return Bin("&");
  case Min:
    return "min(" + Ops[0].str(Names) + ", " + Ops[1].str(Names) + ")";
  case Max:
    return "max(" + Ops[0].str(Names) + ", " + Ops[1].str(Names) + ")";
  case Select:
    return "(? " + Ops[0].str(Names) + " : " + Ops[1].str(Names) + ")";
  case Opaque:
    return "<" + Name + ">";
  }
  return "?";
}

} // namespace cudal1
