//===- ManifestCheck.cpp - validating a capture directory -----------------===//
#include "ManifestCheck.h"
#include "cudal1/Capture/CaptureFormat.h"

#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace cudal1 {
namespace capture {

using capjson::Value;

int64_t fileSize(const std::string &Path) {
  struct stat St;
  if (::stat(Path.c_str(), &St) != 0 || !S_ISREG(St.st_mode))
    return -1;
  return static_cast<int64_t>(St.st_size);
}

bool readWholeFile(const std::string &Path, std::string &Out) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return false;
  std::ostringstream SS;
  SS << In.rdbuf();
  Out = SS.str();
  return !In.bad();
}

bool getU64(const Value &V, const char *Key, uint64_t &Out) {
  const Value *M = V.get(Key);
  return M && M->getUInt(Out);
}

bool getStr(const Value &V, const char *Key, std::string &Out) {
  const Value *M = V.get(Key);
  if (!M || M->kind() != Value::String)
    return false;
  Out = M->str();
  return true;
}

bool getDim3(const Value &V, const char *Key, uint64_t Out[3]) {
  const Value *M = V.get(Key);
  if (!M || M->kind() != Value::Array || M->elements().size() != 3)
    return false;
  for (int I = 0; I < 3; ++I)
    if (!M->elements()[I].getUInt(Out[I]) || Out[I] == 0)
      return false;
  return true;
}

bool readManifest(const std::string &Dir, Value &Root,
                  std::vector<std::string> &Problems) {
  std::string Path = Dir + "/" + CaptureManifestFile;
  std::string Text;
  if (!readWholeFile(Path, Text)) {
    Problems.push_back(Path + ": cannot read the manifest");
    return false;
  }
  std::string Error;
  if (!capjson::parse(Text, Root, Error)) {
    Problems.push_back(Path + ": not valid JSON: " + Error);
    return false;
  }
  return true;
}

namespace {
struct Checker {
  const std::string &Dir;
  std::string Path; // of the manifest
  std::vector<std::string> &Problems;

  void problem(const std::string &Where, const std::string &What) {
    Problems.push_back(Path + ": " + Where + ": " + What);
  }

  /// A data file: contained path, exists, \p Size bytes.
  void dataFile(const std::string &Where, const Value &Obj, const char *Key,
                uint64_t Size) {
    std::string Rel;
    if (!getStr(Obj, Key, Rel)) {
      problem(Where, std::string("\"") + Key + "\" is missing or not a string");
      return;
    }
    if (!isContainedRelativePath(Rel)) {
      problem(Where, std::string("\"") + Key + "\" is '" + Rel +
                         "', not a path inside the capture directory");
      return;
    }
    int64_t S = fileSize(Dir + "/" + Rel);
    if (S < 0)
      problem(Where, "data file " + Rel + " is missing");
    else if (static_cast<uint64_t>(S) != Size)
      problem(Where, "data file " + Rel + " has " + std::to_string(S) +
                         " bytes, the manifest says " + std::to_string(Size));
  }

  void launch(const Value &L, size_t Pos, ManifestSummary &Sum) {
    std::string Where = "launches[" + std::to_string(Pos) + "]";
    if (L.kind() != Value::Object) {
      problem(Where, "not an object");
      return;
    }
    uint64_t Index;
    std::string Kernel, Status;
    if (!getU64(L, "index", Index))
      problem(Where, "\"index\" is missing or not an unsigned integer");
    else
      Where = "launch " + std::to_string(Index);
    if (!getStr(L, "kernel", Kernel) || Kernel.empty())
      problem(Where, "\"kernel\" is missing or empty");
    else
      Where += " (" + Kernel + ")";
    if (!getStr(L, "status", Status)) {
      problem(Where, "\"status\" is missing");
      return;
    }
    if (Status == "skipped") {
      std::string Reason;
      if (!getStr(L, "reason", Reason) || Reason.empty())
        problem(Where, "a skipped launch has no \"reason\"");
      ++Sum.Skipped;
      return;
    }
    if (Status != "captured") {
      problem(Where, "\"status\" is '" + Status +
                         "' (expected \"captured\" or \"skipped\")");
      return;
    }
    ++Sum.Captured;
    uint64_t D[3];
    if (!getDim3(L, "grid", D))
      problem(Where, "\"grid\" is not [x, y, z] of positive integers");
    if (!getDim3(L, "block", D))
      problem(Where, "\"block\" is not [x, y, z] of positive integers");
    uint64_t Smem;
    if (!getU64(L, "sharedMemBytes", Smem))
      problem(Where, "\"sharedMemBytes\" is missing");
    const Value *Layout = L.get("layout");
    uint64_t LayoutBytes = 0;
    if (!Layout || Layout->kind() != Value::Object ||
        !getU64(*Layout, "bytes", LayoutBytes)) {
      problem(Where, "\"layout\" has no \"bytes\"");
    } else {
      const Value *Ps = Layout->get("parameters");
      if (!Ps || Ps->kind() != Value::Array) {
        problem(Where, "\"layout\" has no \"parameters\" array");
      } else {
        for (size_t I = 0; I < Ps->elements().size(); ++I) {
          uint64_t Off, Size;
          const Value &P = Ps->elements()[I];
          if (!getU64(P, "offset", Off) || !getU64(P, "size", Size))
            problem(Where, "layout parameter " + std::to_string(I) +
                               " has no offset/size");
          else if (Off + Size > LayoutBytes)
            problem(Where, "layout parameter " + std::to_string(I) +
                               " ends past the parameter buffer");
        }
      }
    }
    uint64_t ParamsBytes = 0;
    if (!getU64(L, "paramsBytes", ParamsBytes))
      problem(Where, "\"paramsBytes\" is missing");
    else if (ParamsBytes < LayoutBytes)
      problem(Where, "\"paramsBytes\" is smaller than the layout's bytes");
    dataFile(Where, L, "params", ParamsBytes);

    const Value *As = L.get("allocations");
    std::vector<uint64_t> Sizes;
    if (!As || As->kind() != Value::Array) {
      problem(Where, "\"allocations\" is missing");
    } else {
      for (size_t I = 0; I < As->elements().size(); ++I) {
        const Value &A = As->elements()[I];
        std::string AW = Where + ": allocation " + std::to_string(I);
        uint64_t Size = 0;
        if (!getU64(A, "size", Size))
          problem(AW, "\"size\" is missing");
        Sizes.push_back(Size);
        Sum.CapturedBytes += Size;
        std::string Memory;
        if (!getStr(A, "memory", Memory) ||
            (Memory != "device" && Memory != "managed"))
          problem(AW, "\"memory\" is not \"device\" or \"managed\"");
        dataFile(AW, A, "before", Size);
        dataFile(AW, A, "after", Size);
      }
    }
    const Value *Ptrs = L.get("pointers");
    if (!Ptrs || Ptrs->kind() != Value::Array) {
      problem(Where, "\"pointers\" is missing");
    } else {
      for (size_t I = 0; I < Ptrs->elements().size(); ++I) {
        const Value &P = Ptrs->elements()[I];
        std::string PW = Where + ": pointer " + std::to_string(I);
        uint64_t ParamOffset, Alloc, Offset;
        if (!getU64(P, "paramOffset", ParamOffset) ||
            !getU64(P, "allocation", Alloc) || !getU64(P, "offset", Offset)) {
          problem(PW, "needs \"paramOffset\", \"allocation\" and \"offset\"");
          continue;
        }
        if (ParamOffset + 8 > ParamsBytes)
          problem(PW, "\"paramOffset\" " + std::to_string(ParamOffset) +
                          " is outside the parameter buffer");
        if (Alloc >= Sizes.size())
          problem(PW, "\"allocation\" " + std::to_string(Alloc) +
                          " does not exist");
        else if (Offset > Sizes[Alloc])
          problem(PW, "\"offset\" " + std::to_string(Offset) +
                          " is past the end of allocation " +
                          std::to_string(Alloc));
      }
    }
    if (const Value *G = L.get("globals"); G && G->kind() == Value::Object) {
      if (const Value *Vs = G->get("variables");
          Vs && Vs->kind() == Value::Array) {
        for (size_t I = 0; I < Vs->elements().size(); ++I) {
          const Value &V = Vs->elements()[I];
          std::string VW = Where + ": variable " + std::to_string(I);
          std::string Name;
          uint64_t Size = 0;
          if (!getStr(V, "name", Name) || Name.empty())
            problem(VW, "\"name\" is missing");
          if (!getU64(V, "size", Size))
            problem(VW, "\"size\" is missing");
          Sum.CapturedBytes += Size;
          dataFile(VW, V, "before", Size);
          dataFile(VW, V, "after", Size);
        }
      }
    }
  }
};
} // namespace

bool checkManifest(const std::string &Dir, const Value &Root,
                   std::vector<std::string> &Problems, ManifestSummary &Sum) {
  size_t Before = Problems.size();
  Checker C{Dir, Dir + "/" + CaptureManifestFile, Problems};
  if (Root.kind() != Value::Object) {
    C.problem("top level", "not a JSON object");
    return false;
  }
  std::string Format;
  if (!getStr(Root, "format", Format) || Format != CaptureFormatName) {
    C.problem("\"format\"", std::string("is not \"") + CaptureFormatName +
                                "\" (not a cuda-l1-capture manifest)");
    return false;
  }
  uint64_t Version;
  if (!getU64(Root, "version", Version)) {
    C.problem("\"version\"", "is missing");
    return false;
  }
  if (Version != static_cast<uint64_t>(CaptureFormatVersion)) {
    C.problem("\"version\"", "is " + std::to_string(Version) +
                                 "; this tool reads version " +
                                 std::to_string(CaptureFormatVersion));
    return false;
  }
  if (const Value *P = Root.get("process"))
    if (const Value *Cm = P->get("complete"); Cm && Cm->kind() == Value::Bool)
      Sum.Complete = Cm->asBool();
  const Value *Ls = Root.get("launches");
  if (!Ls || Ls->kind() != Value::Array) {
    C.problem("\"launches\"", "is missing or not an array");
    return false;
  }
  for (size_t I = 0; I < Ls->elements().size(); ++I)
    C.launch(Ls->elements()[I], I, Sum);
  return Problems.size() == Before;
}

} // namespace capture
} // namespace cudal1
