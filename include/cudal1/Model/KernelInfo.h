//===- KernelInfo.h - kernels and launch sites as plain data ----*- C++ -*-===//
//
// The model every later stage consumes. Plain data only (no Clang types), so
// it can be merged across translation units, serialised to JSON and tested.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_MODEL_KERNELINFO_H
#define CUDAL1_MODEL_KERNELINFO_H

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace cudal1 {

struct SourceLoc {
  std::string File; ///< absolute, normalised path
  unsigned Line = 0;
  unsigned Column = 0;
  bool operator<(const SourceLoc &O) const {
    return std::tie(File, Line, Column) < std::tie(O.File, O.Line, O.Column);
  }
  bool operator==(const SourceLoc &O) const {
    return File == O.File && Line == O.Line && Column == O.Column;
  }
  std::string str() const;
};

struct SourceRangeInfo {
  SourceLoc Begin;
  SourceLoc End; ///< position of the last character of the range
};

struct ParamInfo {
  unsigned Index = 0;
  std::string Name;
  std::string Type;                  ///< as written (canonical if dependent)
  std::optional<uint64_t> SizeBytes; ///< absent for dependent types
  std::optional<uint64_t> AlignBytes;
  bool IsPointer = false;
  bool IsReference = false;
  bool PointeeConst = false; ///< `const T *`
  bool Restrict = false;     ///< `T *__restrict__`
  bool IsConst = false;      ///< top-level const (`T *const`, `const int`)
  std::string ElementType;   ///< pointee type for pointers, else the type
  std::optional<uint64_t> ElementSizeBytes;
};

/// \p Params with every unnamed parameter named "arg<index>" (harness specs
/// and messages refer to parameters by name).
std::vector<ParamInfo> namedParams(std::vector<ParamInfo> Params);

/// A parameter for tests and hand-made kernel descriptions: \p Size bytes
/// (pointers: 8), pointee/element \p ElementType of \p ElementSize bytes.
ParamInfo makeParam(std::string Name, std::string Type,
                    std::string ElementType, bool IsPointer,
                    bool PointeeConst, uint64_t Size, uint64_t ElementSize);

struct TemplateParamInfo {
  std::string Kind; ///< "type", "non-type", "template"
  std::string Name;
  std::string Type; ///< for non-type parameters
};

/// One instantiation of a kernel template (or the kernel itself when it is
/// not a template).
struct InstantiationInfo {
  std::string TemplateArgs; ///< "float, 256" ("" for non-templates)
  std::string NameExpr;     ///< NVRTC name expression: "ns::k<float, 256>"
  std::string MangledName;
  std::vector<ParamInfo> Params;
};

struct CalleeInfo {
  std::string Name;
  std::string QualifiedName;
  SourceLoc Loc;
  bool operator<(const CalleeInfo &O) const {
    return std::tie(Loc, QualifiedName) < std::tie(O.Loc, O.QualifiedName);
  }
};

struct GlobalVarInfo {
  std::string Name;
  std::string QualifiedName;
  std::string Kind; ///< "shared", "constant", "device", "managed"
  std::string Type;
  bool IsDynamicShared = false; ///< extern __shared__ T s[];
  bool IsLocal = false;         ///< declared inside a function
  SourceLoc Loc;
  bool operator<(const GlobalVarInfo &O) const {
    return std::tie(Loc, QualifiedName) < std::tie(O.Loc, O.QualifiedName);
  }
};

struct LaunchBoundsInfo {
  std::string MaxThreadsText;
  std::optional<int64_t> MaxThreads;
  std::string MinBlocksText;
  std::optional<int64_t> MinBlocks;
};

struct KernelInfo {
  std::string Name;
  std::string QualifiedName;
  std::string MangledName; ///< "" for templates (see Instantiations)
  SourceRangeInfo Range;
  bool IsTemplate = false;
  std::vector<TemplateParamInfo> TemplateParams;
  std::vector<InstantiationInfo> Instantiations;
  std::vector<ParamInfo> Params; ///< as declared (may be dependent)
  std::optional<LaunchBoundsInfo> LaunchBounds;
  bool ExternC = false;
  bool IsStatic = false;
  std::vector<CalleeInfo> DeviceFunctions; ///< transitive, user code only
  std::vector<GlobalVarInfo> Variables;    ///< __shared__/__constant__/...
  /// Identity across translation units: file:line:col of the definition.
  std::string key() const { return QualifiedName + "@" + Range.Begin.str(); }
};

/// A launch configuration value: the source text and, when it is a
/// compile-time constant, its value (dim3 -> x,y,z).
struct LaunchArg {
  bool Present = false; ///< false when defaulted (e.g. no shared-mem arg)
  std::string Text;
  std::optional<std::array<uint64_t, 3>> Dim; ///< grid/block
  std::optional<int64_t> Value;               ///< shared memory bytes
};

struct LaunchSite {
  std::string Kernel;        ///< qualified kernel name
  std::string KernelKey;     ///< KernelInfo::key() when the definition is known
  std::vector<std::string> TemplateArgs; ///< instantiations launched here
  std::string Form; ///< "chevron", "cudaLaunchKernel", "cudaLaunchCooperativeKernel", "cudaLaunchKernelEx"
  SourceLoc Loc;
  std::string EnclosingFunction;
  LaunchArg Grid, Block, SharedMem, Stream;
  std::vector<std::string> Args; ///< kernel argument texts (chevron form)
  std::string key() const { return Loc.str(); }
};

/// Everything found in the files processed so far, deduplicated.
struct ProjectModel {
  std::vector<KernelInfo> Kernels;
  std::vector<LaunchSite> LaunchSites;

  /// Adds the model of one translation unit; kernels and launch sites seen
  /// before (same definition location) are merged, not duplicated.
  void merge(const ProjectModel &TU);
  /// Sorts kernels and launch sites by location (deterministic output).
  void sort();
};

} // namespace cudal1

#endif
