//===- KernelListing.cpp - --list-kernels output --------------------------===//
#include "cudal1/Emit/KernelListing.h"
#include "cudal1/Config.h"

#include "llvm/Support/Format.h"

using namespace llvm;

namespace cudal1 {

json::Value toJson(const SourceLoc &L) {
  return json::Object{{"file", L.File}, {"line", L.Line}, {"column", L.Column}};
}

template <typename T> static json::Value optJson(const std::optional<T> &V) {
  if (V)
    return json::Value(*V);
  return nullptr;
}

json::Value toJson(const ParamInfo &P) {
  return json::Object{{"index", P.Index},
                      {"name", P.Name},
                      {"type", P.Type},
                      {"sizeBytes", optJson(P.SizeBytes)},
                      {"alignBytes", optJson(P.AlignBytes)},
                      {"isPointer", P.IsPointer},
                      {"pointeeConst", P.PointeeConst},
                      {"restrict", P.Restrict},
                      {"isConst", P.IsConst},
                      {"elementType", P.ElementType},
                      {"elementSizeBytes", optJson(P.ElementSizeBytes)}};
}

static json::Value paramsJson(const std::vector<ParamInfo> &Ps) {
  json::Array A;
  for (const auto &P : Ps)
    A.push_back(toJson(P));
  return A;
}

json::Value toJson(const KernelInfo &K) {
  json::Object O{{"name", K.Name},
                 {"qualifiedName", K.QualifiedName},
                 {"mangledName", K.MangledName.empty()
                                     ? json::Value(nullptr)
                                     : json::Value(K.MangledName)},
                 {"file", K.Range.Begin.File},
                 {"begin", toJson(K.Range.Begin)},
                 {"end", toJson(K.Range.End)},
                 {"isTemplate", K.IsTemplate},
                 {"externC", K.ExternC},
                 {"static", K.IsStatic},
                 {"parameters", paramsJson(K.Params)}};
  json::Array TPs;
  for (const auto &T : K.TemplateParams)
    TPs.push_back(json::Object{
        {"kind", T.Kind}, {"name", T.Name}, {"type", T.Type}});
  O["templateParameters"] = std::move(TPs);
  json::Array Insts;
  for (const auto &I : K.Instantiations)
    Insts.push_back(json::Object{{"templateArgs", I.TemplateArgs},
                                 {"nameExpression", I.NameExpr},
                                 {"mangledName", I.MangledName},
                                 {"parameters", paramsJson(I.Params)}});
  O["instantiations"] = std::move(Insts);
  if (K.LaunchBounds) {
    O["launchBounds"] = json::Object{
        {"maxThreadsText", K.LaunchBounds->MaxThreadsText},
        {"maxThreads", optJson(K.LaunchBounds->MaxThreads)},
        {"minBlocksText", K.LaunchBounds->MinBlocksText},
        {"minBlocks", optJson(K.LaunchBounds->MinBlocks)}};
  } else {
    O["launchBounds"] = nullptr;
  }
  json::Array Fns;
  for (const auto &F : K.DeviceFunctions)
    Fns.push_back(json::Object{{"name", F.Name},
                               {"qualifiedName", F.QualifiedName},
                               {"location", toJson(F.Loc)}});
  O["deviceFunctions"] = std::move(Fns);
  json::Array Vars;
  for (const auto &V : K.Variables)
    Vars.push_back(json::Object{{"name", V.Name},
                                {"qualifiedName", V.QualifiedName},
                                {"kind", V.Kind},
                                {"type", V.Type},
                                {"dynamicShared", V.IsDynamicShared},
                                {"local", V.IsLocal},
                                {"location", toJson(V.Loc)}});
  O["variables"] = std::move(Vars);
  return O;
}

static json::Value argJson(const LaunchArg &A) {
  if (!A.Present)
    return nullptr;
  json::Object O{{"text", A.Text}};
  if (A.Dim)
    O["value"] = json::Array{(*A.Dim)[0], (*A.Dim)[1], (*A.Dim)[2]};
  else if (A.Value)
    O["value"] = *A.Value;
  else
    O["value"] = nullptr;
  return O;
}

json::Value toJson(const LaunchSite &L) {
  json::Array TA;
  for (const auto &A : L.TemplateArgs)
    TA.push_back(A);
  json::Array Args;
  for (const auto &A : L.Args)
    Args.push_back(A);
  return json::Object{{"kernel", L.Kernel},
                      {"templateArgs", std::move(TA)},
                      {"form", L.Form},
                      {"location", toJson(L.Loc)},
                      {"enclosingFunction", L.EnclosingFunction},
                      {"grid", argJson(L.Grid)},
                      {"block", argJson(L.Block)},
                      {"sharedMemBytes", argJson(L.SharedMem)},
                      {"stream", argJson(L.Stream)},
                      {"arguments", std::move(Args)}};
}

json::Value kernelListJson(const ProjectModel &M) {
  json::Array Ks, Ls;
  for (const auto &K : M.Kernels)
    Ks.push_back(toJson(K));
  for (const auto &L : M.LaunchSites)
    Ls.push_back(toJson(L));
  return json::Object{{"schemaVersion", KernelListSchemaVersion},
                      {"tool", "cuda-l1-rewrite " CUDAL1_VERSION},
                      {"kernels", std::move(Ks)},
                      {"launchSites", std::move(Ls)}};
}

static std::string dimText(const LaunchArg &A) {
  if (!A.Present)
    return "-";
  std::string S = A.Text;
  if (A.Dim) {
    const auto &D = *A.Dim;
    std::string V = std::to_string(D[0]);
    if (D[1] != 1 || D[2] != 1)
      V = "(" + V + ", " + std::to_string(D[1]) + ", " + std::to_string(D[2]) +
          ")";
    if (V != S)
      S += " = " + V;
  } else if (A.Value) {
    std::string V = std::to_string(*A.Value);
    if (V != S)
      S += " = " + V;
  } else if (A.Text.size()) {
    S += " (not constant)";
  }
  return S;
}

static void printParam(const ParamInfo &P, raw_ostream &OS) {
  OS << "    #" << P.Index << " " << P.Type << " " << P.Name;
  SmallVector<std::string, 4> Notes;
  if (P.SizeBytes)
    Notes.push_back(std::to_string(*P.SizeBytes) + " bytes, align " +
                    std::to_string(P.AlignBytes.value_or(0)));
  else
    Notes.push_back("dependent size");
  if (P.IsPointer) {
    std::string E = "pointer to " + std::string(P.PointeeConst ? "const " : "") +
                    P.ElementType;
    if (P.ElementSizeBytes)
      E += " (" + std::to_string(*P.ElementSizeBytes) + " bytes)";
    Notes.push_back(E);
  }
  if (P.Restrict)
    Notes.push_back("restrict");
  OS << "  [";
  for (size_t I = 0; I < Notes.size(); ++I)
    OS << (I ? "; " : "") << Notes[I];
  OS << "]\n";
}

void printKernelListText(const ProjectModel &M, raw_ostream &OS) {
  OS << M.Kernels.size() << " kernel" << (M.Kernels.size() == 1 ? "" : "s")
     << ", " << M.LaunchSites.size() << " launch site"
     << (M.LaunchSites.size() == 1 ? "" : "s") << "\n";
  for (const auto &K : M.Kernels) {
    OS << "\nkernel " << K.QualifiedName;
    if (K.IsTemplate) {
      OS << " (template <";
      for (size_t I = 0; I < K.TemplateParams.size(); ++I) {
        const auto &T = K.TemplateParams[I];
        OS << (I ? ", " : "")
           << (T.Kind == "type" ? "typename" : T.Kind == "non-type" ? T.Type
                                                                     : "template")
           << " " << T.Name;
      }
      OS << ">)";
    }
    OS << "\n  at " << K.Range.Begin.str() << " to line " << K.Range.End.Line
       << "\n";
    if (!K.MangledName.empty())
      OS << "  mangled: " << K.MangledName << "\n";
    SmallVector<std::string, 3> Attrs;
    if (K.ExternC)
      Attrs.push_back("extern \"C\"");
    if (K.IsStatic)
      Attrs.push_back("static");
    if (K.LaunchBounds) {
      std::string LB = "__launch_bounds__(" + K.LaunchBounds->MaxThreadsText;
      if (!K.LaunchBounds->MinBlocksText.empty())
        LB += ", " + K.LaunchBounds->MinBlocksText;
      LB += ")";
      if (K.LaunchBounds->MaxThreads &&
          std::to_string(*K.LaunchBounds->MaxThreads) !=
              K.LaunchBounds->MaxThreadsText)
        LB += " = " + std::to_string(*K.LaunchBounds->MaxThreads) + " threads";
      Attrs.push_back(LB);
    }
    if (!Attrs.empty()) {
      OS << "  attributes:";
      for (const auto &A : Attrs)
        OS << " " << A;
      OS << "\n";
    }
    OS << "  parameters:" << (K.Params.empty() ? " none" : "") << "\n";
    for (const auto &P : K.Params)
      printParam(P, OS);
    if (K.IsTemplate) {
      OS << "  instantiations:" << (K.Instantiations.empty() ? " none" : "")
         << "\n";
      bool Dependent = false;
      for (const auto &P : K.Params)
        Dependent |= !P.SizeBytes;
      for (const auto &I : K.Instantiations) {
        OS << "    " << I.NameExpr << "  [" << I.MangledName << "]\n";
        if (!Dependent)
          continue; // same layout as the declared parameters
        for (const auto &P : I.Params) {
          OS << "  ";
          printParam(P, OS);
        }
      }
    }
    if (!K.DeviceFunctions.empty()) {
      OS << "  device functions:\n";
      for (const auto &F : K.DeviceFunctions)
        OS << "    " << F.QualifiedName << "  " << F.Loc.str() << "\n";
    }
    if (!K.Variables.empty()) {
      OS << "  variables:\n";
      for (const auto &V : K.Variables)
        OS << "    __" << V.Kind << "__ " << V.Type << " " << V.QualifiedName
           << (V.IsDynamicShared ? " (dynamic)" : "")
           << (V.IsLocal ? " (local)" : "") << "  " << V.Loc.str() << "\n";
    }
  }
  if (!M.LaunchSites.empty())
    OS << "\nlaunch sites:\n";
  for (const auto &L : M.LaunchSites) {
    OS << "  " << L.Loc.str() << ": " << L.Kernel;
    if (!L.TemplateArgs.empty()) {
      OS << " <";
      for (size_t I = 0; I < L.TemplateArgs.size(); ++I)
        OS << (I ? "> <" : "") << L.TemplateArgs[I];
      OS << ">";
    }
    OS << " via " << L.Form;
    if (!L.EnclosingFunction.empty())
      OS << " in " << L.EnclosingFunction << "()";
    OS << "\n    grid: " << dimText(L.Grid) << "\n    block: " << dimText(L.Block)
       << "\n";
    if (L.SharedMem.Present)
      OS << "    shared memory: " << dimText(L.SharedMem) << " bytes\n";
    if (L.Stream.Present)
      OS << "    stream: " << L.Stream.Text << "\n";
  }
}

} // namespace cudal1
