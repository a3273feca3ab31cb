//===- HarnessSpec.cpp - harness specs (docs/harness.md) ------------------===//
//
// A spec is read into a located YAML tree (cudal1/Support/Yaml.h) and its
// fields are evaluated in dependency order: sizes first, then the launch
// shape and the parameters, whose values are expressions over the sizes.
// Every error names the file, the line and column of the key or value at
// fault, and the field ("params.x.count: unknown name 'N'").
//
//===----------------------------------------------------------------------===//
#include "cudal1/Support/Yaml.h"
#include "HarnessParams.h"
#include "cudal1/Verify/Harness.h"

#include <map>

using namespace llvm;

namespace cudal1 {

namespace {

using Dims = std::array<uint64_t, 3>;

/// Items of a sequence (or the one scalar), with items that a flow sequence
/// split inside parentheses joined again: [cdiv(N, 32), 4] has two items, not
/// three.
std::vector<std::pair<std::string, const YamlTree *>>
items(const YamlTree *N) {
  std::vector<std::pair<std::string, const YamlTree *>> Out;
  if (!N)
    return Out;
  if (N->Kind != YamlTree::Seq) {
    Out.push_back({N->Value, N});
    return Out;
  }
  int Depth = 0;
  for (const YamlTree &I : N->Items) {
    if (Depth > 0 && !Out.empty())
      Out.back().first += ", " + I.Value;
    else
      Out.push_back({I.Value, &I});
    for (char C : I.Value)
      Depth += C == '(' ? 1 : C == ')' ? -1 : 0;
  }
  return Out;
}

const ParamInfo *findParam(const std::vector<ParamInfo> &Params,
                           StringRef Name) {
  for (const auto &P : Params)
    if (P.Name == Name)
      return &P;
  return nullptr;
}

std::string paramNames(const std::vector<ParamInfo> &Params) {
  std::string S;
  for (const auto &P : Params)
    S += (S.empty() ? "" : ", ") + P.Name;
  return S.empty() ? "none" : S;
}

/// Parses one spec for one kernel into a Harness.
class SpecParser {
public:
  SpecParser(std::string File, std::string Kernel,
             const std::vector<ParamInfo> &Params, const ExprEnv &Defines,
             Harness &Out)
      : File(std::move(File)), Kernel(std::move(Kernel)), Params(Params),
        Defines(Defines), Out(Out) {}

  std::string Error;

  /// The kernel's entry: the top mapping, or its entry under `kernels:`.
  bool selectEntry(const YamlTree &Root);
  bool checkFields();
  bool readKernelName();
  bool readSizes();
  bool readLaunch();
  bool readCandidate();
  bool readScalars();
  bool readTolerance();
  bool readParams();

private:
  bool fail(const YamlTree *N, const std::string &Field,
            const std::string &Msg) {
    if (!Error.empty())
      return false;
    Error = File + ":" + std::to_string(N ? N->Line : 0) + ":" +
            std::to_string(N ? N->Col : 0) + ": " +
            (Field.empty() ? "" : Field + ": ") + Msg;
    return false;
  }
  bool scalar(const YamlTree *N, const std::string &Field, std::string &Out) {
    if (N && N->isScalar()) {
      Out = N->Value;
      return true;
    }
    return fail(N, Field, "expected a value");
  }
  bool expr(const YamlTree *N, const std::string &Field, ExprValue &V) {
    std::string T, E;
    if (!scalar(N, Field, T))
      return false;
    if (!evalExpr(T, Env, V, E))
      return fail(N, Field, E);
    return true;
  }
  bool dims(const YamlTree *N, const std::string &Field, const ExprEnv &In,
            Dims &D);
  bool readBuffer(const ParamInfo &P, const YamlTree *N,
                  const std::string &Field, BufferSpec &B);
  bool applyRole(const ParamInfo &P, const std::string &Role,
                 const YamlTree *N, const std::string &Field, BufferSpec &B);
  /// "kernels.<k>." before a field when the spec holds several kernels.
  std::string F(const std::string &S) const { return Prefix + S; }
  const YamlTree *top(const char *Key) const {
    auto It = Top.find(Key);
    return It == Top.end() ? nullptr : It->second;
  }

  std::string File, Kernel;
  const std::vector<ParamInfo> &Params;
  const ExprEnv &Defines;
  Harness &Out;
  ExprEnv Env;
  const YamlTree *Entry = nullptr;
  std::string Prefix;
  std::map<std::string, const YamlTree *> Top;
  std::vector<std::pair<std::string, const YamlTree *>> TopKeys;
};

bool SpecParser::dims(const YamlTree *N, const std::string &Field,
                      const ExprEnv &In, Dims &D) {
  D = {1, 1, 1};
  if (N && N->isMap())
    return fail(N, Field, "expected a value or [x, y, z]");
  auto Items = items(N);
  if (Items.empty() || Items.size() > 3)
    return fail(N, Field, "expected 1 to 3 dimensions");
  for (size_t I = 0; I < Items.size(); ++I) {
    ExprValue V;
    std::string E;
    if (!evalExpr(Items[I].first, In, V, E))
      return fail(Items[I].second, Field, E);
    if (V.IsFloat || V.I <= 0)
      return fail(Items[I].second, Field,
                  "dimensions must be positive integers");
    D[I] = V.I;
  }
  return true;
}

bool SpecParser::selectEntry(const YamlTree &Root) {
  if (!Root.isMap())
    return fail(&Root, "", "expected a mapping (kernel:, sizes:, grid:, "
                           "block:, params:)");
  Entry = &Root;
  auto Index = [&](const YamlTree &M) {
    Top.clear();
    TopKeys.clear();
    for (auto &KV : M.Entries) {
      std::string Key;
      if (!scalar(&KV.first, "", Key))
        return false;
      Top[Key] = &KV.second;
      TopKeys.push_back({Key, &KV.first});
    }
    return true;
  };
  if (!Index(Root))
    return false;
  const YamlTree *KS = top("kernels");
  if (!KS)
    return true;
  // A spec may hold several kernels under "kernels:", or one at the top.
  if (!KS->isMap())
    return fail(KS, "kernels", "expected a mapping of kernel names");
  Entry = nullptr;
  std::string Names;
  for (auto &KV : KS->Entries) {
    std::string Key;
    scalar(&KV.first, "kernels", Key);
    Names += (Names.empty() ? "" : ", ") + Key;
    if (Key == Kernel)
      Entry = KV.second.isMap() ? &KV.second : nullptr;
  }
  if (!Entry)
    return fail(KS, "kernels",
                "no entry for kernel '" + Kernel + "' (entries: " + Names +
                    ")");
  Prefix = "kernels." + Kernel + ".";
  return Index(*Entry);
}

bool SpecParser::checkFields() {
  static const char *Known[] = {"kernel", "sizes",      "grid",      "block",
                                "shared_mem", "seed",   "input_sets", "params",
                                "tolerance", "kernels", "candidate"};
  for (auto &KK : TopKeys)
    if (std::none_of(std::begin(Known), std::end(Known),
                     [&](const char *K) { return KK.first == K; }))
      return fail(KK.second, F(KK.first),
                  "unknown field (fields: kernel, sizes, grid, block, "
                  "shared_mem, seed, input_sets, params, tolerance, "
                  "candidate)");
  return true;
}

bool SpecParser::readKernelName() {
  const YamlTree *N = top("kernel");
  if (!N)
    return true;
  std::string K;
  if (!scalar(N, F("kernel"), K))
    return false;
  if (!Kernel.empty() && K != Kernel)
    return fail(N, F("kernel"),
                "spec is for kernel '" + K + "', verifying '" + Kernel + "'");
  return true;
}

bool SpecParser::readSizes() {
  if (const YamlTree *S = top("sizes")) {
    if (!S->isMap())
      return fail(S, F("sizes"), "expected a mapping NAME: value");
    for (auto &KV : S->Entries) {
      std::string Name;
      if (!scalar(&KV.first, F("sizes"), Name))
        return false;
      ExprValue V;
      if (Defines.count(Name)) {
        V = Defines.at(Name);
        Out.Notes.push_back("size " + Name + " from --define");
      } else if (!expr(&KV.second, F("sizes." + Name), V)) {
        return false;
      }
      Env[Name] = V;
    }
  }
  for (auto &D : Defines)
    if (!Env.count(D.first))
      Env[D.first] = D.second;
  Out.Sizes = Env;
  return true;
}

bool SpecParser::readLaunch() {
  const YamlTree *G = top("grid"), *B = top("block");
  if (!G || !B)
    return fail(Entry, F(G ? "block" : "grid"),
                "missing (grid and block are required)");
  if (!dims(G, F("grid"), Env, Out.Grid) ||
      !dims(B, F("block"), Env, Out.Block))
    return false;
  if (Out.Block[0] * Out.Block[1] * Out.Block[2] > 1024)
    return fail(B, F("block"), "more than 1024 threads per block");
  return true;
}

/// The candidate's own launch shape, for rewrites that change it (thread
/// mapping swap, warp per row): expressions over the sizes and over the
/// original's grid.x .. block.z.
bool SpecParser::readCandidate() {
  const YamlTree *C = top("candidate");
  if (!C)
    return true;
  if (!C->isMap())
    return fail(C, F("candidate"), "expected a mapping with grid and/or block");
  ExprEnv CEnv = Env;
  const char *Axis[] = {"x", "y", "z"};
  for (int I = 0; I < 3; ++I) {
    CEnv[std::string("grid.") + Axis[I]] =
        ExprValue{false, int64_t(Out.Grid[I]), 0};
    CEnv[std::string("block.") + Axis[I]] =
        ExprValue{false, int64_t(Out.Block[I]), 0};
  }
  Dims CG = Out.Grid, CB = Out.Block;
  for (auto &KV : C->Entries) {
    std::string Key;
    if (!scalar(&KV.first, F("candidate"), Key))
      return false;
    if (Key != "grid" && Key != "block")
      return fail(&KV.first, F("candidate." + Key),
                  "unknown field (fields: grid, block)");
    if (!dims(&KV.second, F("candidate." + Key), CEnv,
              Key == "grid" ? CG : CB))
      return false;
    if (Key == "block" && CB[0] * CB[1] * CB[2] > 1024)
      return fail(&KV.second, F("candidate.block"),
                  "more than 1024 threads per block");
  }
  Out.CandidateGrid = CG;
  Out.CandidateBlock = CB;
  return true;
}

bool SpecParser::readScalars() {
  ExprValue V;
  if (const YamlTree *N = top("shared_mem")) {
    if (!expr(N, F("shared_mem"), V))
      return false;
    if (V.IsFloat || V.I < 0)
      return fail(N, F("shared_mem"), "must be bytes >= 0");
    Out.SharedMem = V.I;
  }
  if (const YamlTree *N = top("seed")) {
    if (!expr(N, F("seed"), V))
      return false;
    Out.Seed = V.asInt();
  }
  if (const YamlTree *N = top("input_sets")) {
    if (!expr(N, F("input_sets"), V))
      return false;
    if (V.IsFloat || V.I < 3)
      return fail(N, F("input_sets"), "at least 3 input sets are required");
    Out.InputSets = V.I;
  }
  return true;
}

bool SpecParser::readTolerance() {
  const YamlTree *TN = top("tolerance");
  if (!TN)
    return true;
  const char *Fields = "rtol, atol, half_rtol, half_atol, f64_rtol, "
                       "f64_atol, ulp, scale_rtol";
  if (!TN->isMap())
    return fail(TN, F("tolerance"),
                std::string("expected a mapping (") + Fields + ")");
  Tolerance T;
  std::map<std::string, double *> Slots = {
      {"rtol", &T.F32Rtol},      {"atol", &T.F32Atol},
      {"half_rtol", &T.HalfRtol}, {"half_atol", &T.HalfAtol},
      {"f64_rtol", &T.F64Rtol},   {"f64_atol", &T.F64Atol},
      {"scale_rtol", &T.ScaleRtol}};
  for (auto &KV : TN->Entries) {
    std::string Key;
    if (!scalar(&KV.first, F("tolerance"), Key))
      return false;
    ExprValue V;
    if (!expr(&KV.second, F("tolerance." + Key), V))
      return false;
    double D = V.asDouble();
    if (D < 0)
      return fail(&KV.second, F("tolerance." + Key), "must be >= 0");
    if (Key == "ulp")
      T.MaxUlp = uint64_t(D);
    else if (Slots.count(Key))
      *Slots[Key] = D;
    else
      return fail(&KV.first, F("tolerance." + Key),
                  std::string("unknown field (") + Fields + ")");
  }
  Out.Tol = T;
  return true;
}

bool SpecParser::readBuffer(const ParamInfo &P, const YamlTree *N,
                            const std::string &Field, BufferSpec &B) {
  setBufferKind(B, P);
  ExprValue V;
  if (!N->isMap()) {
    // Shorthand: just the count.
    if (!expr(N, Field + ".count", V))
      return false;
    if (V.IsFloat || V.I <= 0)
      return fail(N, Field + ".count", "must be a positive integer");
    B.Count = V.I;
  } else {
    bool HasCount = false;
    const YamlTree *RoleNode = nullptr;
    std::string Role;
    for (auto &KV : N->Entries) {
      std::string Key;
      if (!scalar(&KV.first, Field, Key))
        return false;
      if (Key == "count") {
        if (!expr(&KV.second, Field + ".count", V))
          return false;
        if (V.IsFloat || V.I <= 0)
          return fail(&KV.second, Field + ".count",
                      "must be a positive integer");
        B.Count = V.I;
        HasCount = true;
      } else if (Key == "init") {
        for (auto &I : items(&KV.second)) {
          if (!I.second->isScalar())
            return fail(I.second, Field + ".init", "expected a distribution");
          Distribution D;
          std::string E;
          if (!parseDistribution(I.first, Env, D, E))
            return fail(I.second, Field + ".init", E);
          B.Init.push_back(D);
        }
      } else if (Key == "seed") {
        if (!expr(&KV.second, Field + ".seed", V))
          return false;
        B.Seed = V.asInt();
      } else if (Key == "before") {
        if (!expr(&KV.second, Field + ".before", V))
          return false;
        if (V.IsFloat || V.I < 0)
          return fail(&KV.second, Field + ".before",
                      "must be a non-negative integer (elements of the "
                      "buffer before the pointer)");
        B.Before = uint64_t(V.I);
      } else if (Key == "role") {
        RoleNode = &KV.second;
        if (!scalar(RoleNode, Field + ".role", Role))
          return false;
      } else {
        return fail(&KV.first, Field + "." + Key,
                    "unknown field (count, before, init, seed, role)");
      }
    }
    if (!HasCount)
      return fail(N, Field + ".count", "missing element count");
    if (RoleNode && !applyRole(P, Role, RoleNode, Field, B))
      return false;
  }
  if (B.ReadOnly && B.Init.empty())
    B.Init.push_back(defaultInit(B.Kind));
  return true;
}

/// `role: input` (only read: initialised, must come back unchanged), `inout`
/// (initialised, compared) or `output` (poisoned, compared).
bool SpecParser::applyRole(const ParamInfo &P, const std::string &Role,
                           const YamlTree *N, const std::string &Field,
                           BufferSpec &B) {
  if (Role != "input" && Role != "inout" && Role != "output")
    return fail(N, Field + ".role",
                "unknown role '" + Role + "' (input, inout or output)");
  if (Role != "input" && P.PointeeConst)
    return fail(N, Field + ".role",
                "'" + P.Name + "' points to const: it can only be an input");
  if (Role == "output" && !B.Init.empty())
    return fail(N, Field + ".role",
                "an output is poisoned before each run: drop its init, or "
                "make it inout");
  B.ReadOnly = Role == "input";
  if (Role != "output" && B.Init.empty())
    B.Init.push_back(defaultInit(B.Kind));
  return true;
}

bool SpecParser::readParams() {
  std::map<std::string, const YamlTree *> PNodes;
  const YamlTree *PN = top("params");
  if (PN) {
    if (!PN->isMap())
      return fail(PN, F("params"),
                  "expected a mapping from parameter name to its value or "
                  "buffer");
    for (auto &KV : PN->Entries) {
      std::string Name;
      if (!scalar(&KV.first, F("params"), Name))
        return false;
      if (!findParam(Params, Name))
        return fail(&KV.first, F("params." + Name),
                    "no such parameter of kernel '" + Kernel +
                        "' (parameters: " + paramNames(Params) + ")");
      PNodes[Name] = &KV.second;
    }
  }
  for (const auto &P : Params) {
    Harness::Arg A;
    std::string Field = F("params." + P.Name);
    auto It = PNodes.find(P.Name);
    if (It == PNodes.end())
      return fail(PN ? PN : Entry, Field,
                  P.IsPointer ? "missing: pointer parameter '" + P.Type +
                                    "' needs { count: <elements>, init: "
                                    "<dist> }"
                              : "missing: scalar parameter '" + P.Type +
                                    "' needs a value");
    const YamlTree *N = It->second;
    std::string Word;
    if (P.IsPointer && N->isScalar() && scalar(N, Field, Word) &&
        Word == "null") {
      // An optional buffer the launch leaves out.
      setNullPointer(A.Scalar, P.Name);
    } else if (P.IsPointer) {
      A.IsBuffer = true;
      if (!readBuffer(P, N, Field, A.Buffer))
        return false;
    } else if (P.IsRecord && N->isMap()) {
      // A structure by value: { x: 1, y: 2.5, origin.z: n / 2 }.
      std::map<std::string, const YamlTree *> Given;
      for (auto &KV : N->Entries) {
        std::string Key;
        if (!scalar(&KV.first, Field, Key))
          return false;
        if (llvm::none_of(P.Members, [&](const ParamInfo::Member &M) {
              return M.Path == Key;
            })) {
          std::string Names;
          for (const ParamInfo::Member &M : P.Members)
            Names += (Names.empty() ? "" : ", ") + M.Path;
          return fail(&KV.first, Field + "." + Key,
                      "no such member of '" + P.Type + "' (members: " +
                          (Names.empty() ? "none" : Names) + ")");
        }
        Given[Key] = &KV.second;
      }
      std::vector<ExprValue> Values;
      for (const ParamInfo::Member &M : P.Members) {
        auto G = Given.find(M.Path);
        if (G == Given.end())
          return fail(N, Field + "." + M.Path,
                      "missing: member '" + M.Path + "' ('" + M.ScalarType +
                          "') needs a value");
        ExprValue V;
        if (!expr(G->second, Field + "." + M.Path, V))
          return false;
        Values.push_back(V);
      }
      std::string E;
      if (!setRecord(A.Scalar, P, Values, E))
        return fail(N, Field, E);
    } else {
      ExprValue V;
      if (!expr(N, Field, V))
        return false;
      std::string E;
      if (!setScalar(A.Scalar, P, V, E))
        return fail(N, Field, E);
    }
    Out.Args.push_back(A);
  }
  return true;
}

} // namespace

bool parseHarnessSpec(const std::string &Text, const std::string &FileName,
                      const std::string &Kernel,
                      const std::vector<ParamInfo> &Params,
                      const ExprEnv &Defines, Harness &Out,
                      std::string &Error) {
  Out = Harness();
  Out.Kernel = Kernel;
  Out.SpecFile = FileName;
  YamlTree Root;
  if (!readYamlTree(Text, FileName, Root, Error))
    return false;
  SpecParser P(FileName, Kernel, Params, Defines, Out);
  bool Ok = P.selectEntry(Root) && P.checkFields() && P.readKernelName() &&
            P.readSizes() && P.readLaunch() && P.readCandidate() &&
            P.readScalars() && P.readTolerance() && P.readParams();
  if (!Ok)
    Error = P.Error;
  return Ok;
}

} // namespace cudal1
