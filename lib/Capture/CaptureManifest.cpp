//===- CaptureManifest.cpp - reading cuda-l1-capture directories ----------===//
#include "cudal1/Capture/CaptureManifest.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cassert>
#include <cstring>

using namespace llvm;

namespace cudal1 {

namespace {

/// Collects the first problem found, prefixed with the manifest path and
/// the place in it.
class Reader {
public:
  Reader(std::string ManifestPath, std::string Dir)
      : ManifestPath(std::move(ManifestPath)), Dir(std::move(Dir)) {}

  bool failed() const { return !Problem.empty(); }
  Error takeError() {
    return createStringError(inconvertibleErrorCode(), "%s",
                             (ManifestPath + ": " + Problem).c_str());
  }
  bool fail(const Twine &Where, const Twine &What) {
    if (Problem.empty())
      Problem = (Where + ": " + What).str();
    return false;
  }

  bool u64(const json::Object &O, StringRef Key, const Twine &Where,
           uint64_t &Out, bool Required = true) {
    const json::Value *V = O.get(Key);
    if (!V || V->kind() == json::Value::Null) {
      if (Required)
        return fail(Where, "\"" + Key + "\" is missing");
      return true;
    }
    if (std::optional<uint64_t> U = V->getAsUINT64()) {
      Out = *U;
      return true;
    }
    return fail(Where, "\"" + Key + "\" is not an unsigned integer");
  }

  bool u32(const json::Object &O, StringRef Key, const Twine &Where,
           unsigned &Out, bool Required = true) {
    uint64_t V = Out;
    if (!u64(O, Key, Where, V, Required))
      return false;
    if (V > UINT32_MAX)
      return fail(Where, "\"" + Key + "\" is out of range");
    Out = static_cast<unsigned>(V);
    return true;
  }

  bool str(const json::Object &O, StringRef Key, const Twine &Where,
           std::string &Out, bool Required = true) {
    const json::Value *V = O.get(Key);
    if (!V || V->kind() == json::Value::Null) {
      if (Required)
        return fail(Where, "\"" + Key + "\" is missing");
      return true;
    }
    if (std::optional<StringRef> S = V->getAsString()) {
      Out = S->str();
      return true;
    }
    return fail(Where, "\"" + Key + "\" is not a string");
  }

  bool boolean(const json::Object &O, StringRef Key, const Twine &Where,
               bool &Out) {
    const json::Value *V = O.get(Key);
    if (!V || V->kind() == json::Value::Null)
      return true;
    if (std::optional<bool> B = V->getAsBoolean()) {
      Out = *B;
      return true;
    }
    return fail(Where, "\"" + Key + "\" is not a boolean");
  }

  bool dim3(const json::Object &O, StringRef Key, const Twine &Where,
            std::array<unsigned, 3> &Out) {
    const json::Array *A = O.getArray(Key);
    if (!A || A->size() != 3)
      return fail(Where, "\"" + Key + "\" is not [x, y, z]");
    for (size_t I = 0; I < 3; ++I) {
      std::optional<uint64_t> U = (*A)[I].getAsUINT64();
      if (!U || *U == 0 || *U > UINT32_MAX)
        return fail(Where, "\"" + Key + "\" is not [x, y, z] of positive integers");
      Out[I] = static_cast<unsigned>(*U);
    }
    return true;
  }

  bool address(const json::Object &O, StringRef Key, const Twine &Where,
               uint64_t &Out) {
    std::string S;
    if (!str(O, Key, Where, S, /*Required=*/false))
      return false;
    if (S.empty())
      return true;
    if (StringRef(S).getAsInteger(0, Out))
      return fail(Where, "\"" + Key + "\" is not an address ('" + S + "')");
    return true;
  }

  /// A data file: a path inside the capture directory, of \p Size bytes;
  /// \p Out gets its absolute path.
  bool dataFile(const json::Object &O, StringRef Key, const Twine &Where,
                uint64_t Size, std::string &Out) {
    std::string Rel;
    if (!str(O, Key, Where, Rel))
      return false;
    if (!isContainedRelativePath(Rel))
      return fail(Where, "\"" + Key + "\" is '" + Rel +
                             "', not a path inside the capture directory");
    SmallString<256> P(Dir);
    sys::path::append(P, Rel);
    sys::fs::file_status St;
    if (sys::fs::status(P, St) || !sys::fs::is_regular_file(St))
      return fail(Where, "data file " + Rel + " is missing");
    if (St.getSize() != Size)
      return fail(Where, "data file " + Rel + " has " + Twine(St.getSize()) +
                             " bytes, the manifest says " + Twine(Size));
    Out = std::string(P);
    return true;
  }

  bool region(const json::Object &O, const Twine &Where, bool Variable,
              CaptureRegion &R) {
    if (!u64(O, "size", Where, R.Size))
      return false;
    if (Variable) {
      if (!str(O, "name", Where, R.Name))
        return false;
      if (R.Name.empty())
        return fail(Where, "\"name\" is empty");
      if (!str(O, "kind", Where, R.Memory, false))
        return false;
      if (!address(O, "address", Where, R.OriginalAddress))
        return false;
    } else {
      if (!str(O, "memory", Where, R.Memory))
        return false;
      if (R.Memory != "device" && R.Memory != "managed")
        return fail(Where, "\"memory\" is '" + R.Memory +
                               "' (expected \"device\" or \"managed\")");
      if (!address(O, "base", Where, R.OriginalAddress))
        return false;
    }
    return boolean(O, "changed", Where, R.Changed) &&
           dataFile(O, "before", Where, R.Size, R.BeforeFile) &&
           dataFile(O, "after", Where, R.Size, R.AfterFile);
  }

  bool launch(const json::Value &V, size_t Pos, CaptureLaunch &L) {
    std::string Where = "launches[" + std::to_string(Pos) + "]";
    const json::Object *O = V.getAsObject();
    if (!O)
      return fail(Where, "not an object");
    if (!u32(*O, "index", Where, L.Index))
      return false;
    Where = "launch " + std::to_string(L.Index);
    if (!str(*O, "kernel", Where, L.Kernel))
      return false;
    if (L.Kernel.empty())
      return fail(Where, "\"kernel\" is empty");
    Where += " (" + L.Kernel + ")";
    if (!str(*O, "status", Where, L.Status) ||
        !str(*O, "demangled", Where, L.Demangled, false) ||
        !str(*O, "api", Where, L.Api, false) ||
        !u64(*O, "kernelLaunchOrdinal", Where, L.KernelLaunchOrdinal, false))
      return false;
    if (L.Status == "skipped") {
      if (!str(*O, "reason", Where, L.Reason))
        return false;
      if (L.Reason.empty())
        return fail(Where, "a skipped launch has an empty \"reason\"");
      return true;
    }
    if (L.Status != "captured")
      return fail(Where, "\"status\" is '" + L.Status +
                             "' (expected \"captured\" or \"skipped\")");
    if (!dim3(*O, "grid", Where, L.Grid) || !dim3(*O, "block", Where, L.Block) ||
        !u32(*O, "sharedMemBytes", Where, L.SharedMemBytes) ||
        !boolean(*O, "cooperative", Where, L.Cooperative))
      return false;
    if (const json::Value *C = O->get("clusterDim");
        C && C->kind() != json::Value::Null) {
      std::array<unsigned, 3> D;
      if (!dim3(*O, "clusterDim", Where, D))
        return false;
      L.ClusterDim = D;
    }
    const json::Object *Layout = O->getObject("layout");
    if (!Layout)
      return fail(Where, "\"layout\" is missing");
    if (!str(*Layout, "source", Where + ": layout", L.LayoutSource) ||
        !boolean(*Layout, "checkedByDriver", Where + ": layout",
                 L.LayoutCheckedByDriver) ||
        !u64(*Layout, "bytes", Where + ": layout", L.LayoutBytes))
      return false;
    const json::Array *Ps = Layout->getArray("parameters");
    if (!Ps)
      return fail(Where + ": layout", "\"parameters\" is missing");
    for (size_t I = 0; I < Ps->size(); ++I) {
      std::string PW = Where + ": layout parameter " + std::to_string(I);
      const json::Object *PO = (*Ps)[I].getAsObject();
      if (!PO)
        return fail(PW, "not an object");
      CaptureParam P;
      P.Index = static_cast<unsigned>(I);
      if (!u64(*PO, "offset", PW, P.Offset) || !u64(*PO, "size", PW, P.Size) ||
          !u64(*PO, "align", PW, P.Align, false) ||
          !str(*PO, "kind", PW, P.Kind) || !str(*PO, "type", PW, P.Type, false))
        return false;
      if (P.Kind != "pointer" && P.Kind != "scalar" && P.Kind != "aggregate")
        return fail(PW, "\"kind\" is '" + P.Kind + "'");
      if (P.Offset + P.Size > L.LayoutBytes)
        return fail(PW, "ends at byte " + Twine(P.Offset + P.Size) +
                            ", past the layout's " + Twine(L.LayoutBytes) +
                            " bytes");
      L.Params.push_back(P);
    }
    if (!u64(*O, "paramsBytes", Where, L.ParamsBytes))
      return false;
    if (L.ParamsBytes < L.LayoutBytes)
      return fail(Where, "\"paramsBytes\" (" + Twine(L.ParamsBytes) +
                             ") is smaller than the layout (" +
                             Twine(L.LayoutBytes) + ")");
    if (!dataFile(*O, "params", Where, L.ParamsBytes, L.ParamsFile))
      return false;
    const json::Array *As = O->getArray("allocations");
    if (!As)
      return fail(Where, "\"allocations\" is missing");
    for (size_t I = 0; I < As->size(); ++I) {
      std::string AW = Where + ": allocation " + std::to_string(I);
      const json::Object *AO = (*As)[I].getAsObject();
      if (!AO)
        return fail(AW, "not an object");
      CaptureRegion R;
      if (!region(*AO, AW, /*Variable=*/false, R))
        return false;
      L.Allocations.push_back(std::move(R));
    }
    const json::Array *Ptrs = O->getArray("pointers");
    if (!Ptrs)
      return fail(Where, "\"pointers\" is missing");
    for (size_t I = 0; I < Ptrs->size(); ++I) {
      std::string PW = Where + ": pointer " + std::to_string(I);
      const json::Object *PO = (*Ptrs)[I].getAsObject();
      if (!PO)
        return fail(PW, "not an object");
      CapturePointer P;
      if (!u32(*PO, "parameter", PW, P.Parameter, false) ||
          !u64(*PO, "paramOffset", PW, P.ParamOffset) ||
          !u32(*PO, "allocation", PW, P.Allocation) ||
          !u64(*PO, "offset", PW, P.Offset))
        return false;
      if (P.ParamOffset + 8 > L.ParamsBytes)
        return fail(PW, "\"paramOffset\" " + Twine(P.ParamOffset) +
                            " is outside the " + Twine(L.ParamsBytes) +
                            "-byte parameter buffer");
      if (P.Allocation >= L.Allocations.size())
        return fail(PW, "\"allocation\" " + Twine(P.Allocation) +
                            " does not exist (the launch has " +
                            Twine(L.Allocations.size()) + ")");
      // One past the end is a valid pointer (an end iterator).
      if (P.Offset > L.Allocations[P.Allocation].Size)
        return fail(PW, "\"offset\" " + Twine(P.Offset) +
                            " is past the end of allocation " +
                            Twine(P.Allocation));
      L.Pointers.push_back(P);
    }
    if (const json::Object *G = O->getObject("globals")) {
      std::string GW = Where + ": globals";
      if (!str(*G, "status", GW, L.GlobalsStatus, false) ||
          !str(*G, "note", GW, L.GlobalsNote, false))
        return false;
      if (const json::Array *Vs = G->getArray("variables")) {
        for (size_t I = 0; I < Vs->size(); ++I) {
          std::string VW = Where + ": variable " + std::to_string(I);
          const json::Object *VO = (*Vs)[I].getAsObject();
          if (!VO)
            return fail(VW, "not an object");
          CaptureRegion R;
          if (!region(*VO, VW, /*Variable=*/true, R))
            return false;
          L.Globals.push_back(std::move(R));
        }
      }
    } else {
      L.GlobalsStatus = "unknown";
    }
    if (const json::Object *M = O->getObject("module")) {
      std::string Rel;
      if (!str(*M, "image", Where + ": module", Rel, false))
        return false;
      if (!Rel.empty()) {
        if (!isContainedRelativePath(Rel))
          return fail(Where + ": module", "\"image\" is '" + Rel +
                                              "', not a path inside the capture directory");
        SmallString<256> P(Dir);
        sys::path::append(P, Rel);
        L.ModuleImage = std::string(P);
      }
    }
    return true;
  }

  bool manifest(const json::Value &Root, CaptureManifest &M) {
    const json::Object *O = Root.getAsObject();
    if (!O)
      return fail("top level", "not a JSON object");
    std::string Format;
    if (!str(*O, "format", "top level", Format))
      return false;
    if (Format != CaptureFormatName)
      return fail("\"format\"", "is '" + Format + "', not \"" +
                                    CaptureFormatName +
                                    "\" (not a cuda-l1-capture manifest)");
    uint64_t Version;
    if (!u64(*O, "version", "top level", Version))
      return false;
    if (Version != static_cast<uint64_t>(CaptureFormatVersion))
      return fail("\"version\"", "is " + Twine(Version) +
                                     "; this build reads version " +
                                     Twine(CaptureFormatVersion));
    M.Version = static_cast<unsigned>(Version);
    if (!str(*O, "tool", "top level", M.Tool, false) ||
        !str(*O, "created", "top level", M.Created, false))
      return false;
    if (const json::Array *C = O->getArray("command")) {
      for (const auto &A : *C)
        if (std::optional<StringRef> S = A.getAsString())
          M.Command.push_back(S->str());
    } else if (const json::Object *P = O->getObject("process")) {
      if (const json::Array *C = P->getArray("commandLine"))
        for (const auto &A : *C)
          if (std::optional<StringRef> S = A.getAsString())
            M.Command.push_back(S->str());
    }
    if (const json::Object *P = O->getObject("process"))
      if (!boolean(*P, "complete", "process", M.Complete))
        return false;
    if (const json::Array *Ds = O->getArray("devices"); Ds && !Ds->empty())
      if (const json::Object *D = Ds->front().getAsObject())
        if (!str(*D, "name", "devices[0]", M.DeviceName, false) ||
            !str(*D, "computeCapability", "devices[0]", M.ComputeCapability,
                 false))
          return false;
    if (const json::Object *D = O->getObject("driver"))
      if (!str(*D, "version", "driver", M.DriverVersion, false))
        return false;
    if (const json::Array *Ps = O->getArray("problems"))
      for (const auto &P : *Ps)
        if (std::optional<StringRef> S = P.getAsString())
          M.Problems.push_back(S->str());
    const json::Array *Ls = O->getArray("launches");
    if (!Ls)
      return fail("top level", "\"launches\" is missing or not an array");
    for (size_t I = 0; I < Ls->size(); ++I) {
      CaptureLaunch L;
      if (!launch((*Ls)[I], I, L))
        return false;
      M.Launches.push_back(std::move(L));
    }
    return true;
  }

private:
  std::string ManifestPath, Dir, Problem;
};

Error fileError(const Twine &Path, const Twine &What) {
  return createStringError(inconvertibleErrorCode(), "%s",
                           (Path + ": " + What).str().c_str());
}

Error readBytes(const std::string &Path, uint64_t Size,
                std::vector<uint8_t> &Out) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B =
      MemoryBuffer::getFile(Path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!B)
    return fileError(Path, "cannot read: " + B.getError().message());
  if ((*B)->getBufferSize() != Size)
    return fileError(Path, "has " + Twine((*B)->getBufferSize()) +
                               " bytes, the manifest says " + Twine(Size));
  const auto *P = reinterpret_cast<const uint8_t *>((*B)->getBufferStart());
  Out.assign(P, P + Size);
  return Error::success();
}

} // namespace

Expected<CaptureManifest> parseCaptureManifest(StringRef Text, StringRef Dir) {
  SmallString<256> Path(Dir);
  sys::path::append(Path, CaptureManifestFile);
  Expected<json::Value> V = json::parse(Text);
  if (!V)
    return fileError(Path, "not valid JSON: " + toString(V.takeError()));
  CaptureManifest M;
  M.Dir = Dir.str();
  M.ManifestPath = std::string(Path);
  Reader R(M.ManifestPath, M.Dir);
  if (!R.manifest(*V, M))
    return R.takeError();
  return M;
}

Expected<CaptureManifest> readCaptureManifest(StringRef Dir) {
  SmallString<256> Path(Dir);
  sys::path::append(Path, CaptureManifestFile);
  if (!sys::fs::is_directory(Dir))
    return fileError(Dir, "not a capture directory (no such directory)");
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path);
  if (!B)
    return fileError(Path, "cannot read the capture manifest: " +
                               B.getError().message());
  return parseCaptureManifest((*B)->getBuffer(), Dir);
}

bool matchesKernel(const CaptureLaunch &L, const std::string &MangledName) {
  if (L.Kernel == MangledName)
    return true;
  return normalizeKernelName(L.Kernel) == normalizeKernelName(MangledName);
}

std::vector<uint8_t>
ReplayLaunch::patchedParams(ArrayRef<uint64_t> Bases) const {
  assert(Bases.size() == Allocations.size() && "one base per allocation");
  std::vector<uint8_t> B = ParamBuffer;
  for (const auto &F : Fixups) {
    uint64_t V = Bases[F.Allocation] + F.Offset;
    std::memcpy(B.data() + F.ParamOffset, &V, sizeof(V));
  }
  return B;
}

uint64_t ReplayLaunch::bytes() const {
  uint64_t N = 0;
  for (const auto &A : Allocations)
    N += A.Size;
  for (const auto &G : Globals)
    N += G.Size;
  return N;
}

Expected<ReplayLaunch> loadReplayLaunch(const CaptureManifest &M,
                                        const CaptureLaunch &L) {
  if (!L.captured())
    return fileError(M.ManifestPath, "launch " + Twine(L.Index) + " (" +
                                         L.Kernel + ") was not captured: " +
                                         L.Reason);
  ReplayLaunch R;
  R.Origin = M.Dir + " launch " + std::to_string(L.Index);
  R.Kernel = L.Kernel;
  R.Grid = L.Grid;
  R.Block = L.Block;
  R.SharedMemBytes = L.SharedMemBytes;
  R.Cooperative = L.Cooperative;
  R.ClusterDim = L.ClusterDim;
  R.Params = L.Params;
  R.Fixups = L.Pointers;
  R.GlobalsStatus = L.GlobalsStatus;
  if (Error E = readBytes(L.ParamsFile, L.ParamsBytes, R.ParamBuffer))
    return std::move(E);
  for (const auto &A : L.Allocations) {
    ReplayLaunch::Allocation RA;
    RA.Size = A.Size;
    RA.Managed = A.Memory == "managed";
    RA.Changed = A.Changed;
    if (Error E = readBytes(A.BeforeFile, A.Size, RA.Before))
      return std::move(E);
    if (Error E = readBytes(A.AfterFile, A.Size, RA.After))
      return std::move(E);
    R.Allocations.push_back(std::move(RA));
  }
  for (const auto &G : L.Globals) {
    ReplayLaunch::Variable V;
    V.Name = G.Name;
    V.Kind = G.Memory;
    V.Size = G.Size;
    V.Changed = G.Changed;
    if (Error E = readBytes(G.BeforeFile, G.Size, V.Before))
      return std::move(E);
    if (Error E = readBytes(G.AfterFile, G.Size, V.After))
      return std::move(E);
    R.Globals.push_back(std::move(V));
  }
  return R;
}

Expected<std::vector<ReplayLaunch>>
loadCapturedLaunches(StringRef Dir, const std::string &MangledName,
                     unsigned Max) {
  Expected<CaptureManifest> M = readCaptureManifest(Dir);
  if (!M)
    return M.takeError();
  std::vector<ReplayLaunch> Out;
  for (const auto &L : M->Launches) {
    if (Out.size() >= Max)
      break;
    if (!L.captured() || !matchesKernel(L, MangledName))
      continue;
    Expected<ReplayLaunch> R = loadReplayLaunch(*M, L);
    if (!R)
      return R.takeError();
    Out.push_back(std::move(*R));
  }
  return Out;
}

} // namespace cudal1
