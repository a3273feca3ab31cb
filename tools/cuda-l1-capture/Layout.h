//===- Layout.h - kernel parameter layouts for capture --------*- C++ -*-===//
//
// Where a captured launch's parameter layout comes from (see
// docs/capture.md, "Parameter layouts"): the kernel model that
// `cuda-l1-rewrite --list-kernels --format=json` writes (sizes and
// alignments of every parameter, struct parameters included), or the
// demangled kernel name (pointers, arithmetic and CUDA vector types under
// the x86-64 ABI), checked against the driver's own offsets and sizes when
// it answers (cuFuncGetParamInfo / cuKernelGetParamInfo).
//
// Plain C++ (no LLVM, no CUDA): it runs inside the user's process.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_TOOLS_CAPTURE_LAYOUT_H
#define CUDAL1_TOOLS_CAPTURE_LAYOUT_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cudal1 {
namespace capture {

enum class ParamKind {
  Pointer,   ///< the value is an address (device, managed or host)
  Scalar,    ///< arithmetic or CUDA vector type: never an address
  Aggregate, ///< anything else: every 8-byte-aligned word may be an address
};
const char *paramKindName(ParamKind K);

struct ParamLayout {
  unsigned Index = 0;
  uint64_t Offset = 0, Size = 0, Align = 1;
  ParamKind Kind = ParamKind::Scalar;
  std::string Type; ///< as the source spells it ("float const*", "Params")
};

struct KernelLayout {
  std::vector<ParamLayout> Params;
  uint64_t Bytes = 0;  ///< size of the parameter buffer (end of the last)
  std::string Source;  ///< "model", "demangled" or "driver"
};

/// Offsets from sizes and alignments, as the CUDA ABI packs parameters
/// (each at the next multiple of its alignment); sets Bytes.
void assignOffsets(KernelLayout &L);

/// abi::__cxa_demangle, or "" when \p Mangled is not a mangled name.
std::string demangle(const std::string &Mangled);

/// The parameter types of a demangled function name ("void k<float>(float*,
/// int)" -> {"float*", "int"}). False when it has no parameter list.
bool splitDemangledParams(const std::string &Demangled,
                          std::vector<std::string> &Types);

/// Size, alignment and kind of a parameter type as spelled by the demangler
/// or by Clang ("float const*", "const float *", "unsigned int", "float4").
/// False when the type is unknown without its definition (structs, enums).
bool classifyType(const std::string &Type, uint64_t &Size, uint64_t &Align,
                  ParamKind &Kind);

/// Layout from the demangled name; false (with the reason) when a
/// parameter's type is unknown.
bool layoutFromDemangled(const std::string &Demangled, KernelLayout &L,
                         std::string &Why);

/// One kernel (or template instantiation) of the kernel model.
struct ModelParam {
  std::string Name, Type;
  bool IsPointer = false;
  bool HasSize = false;
  uint64_t Size = 0, Align = 0;
};
struct ModelGlobal {
  std::string QualifiedName;
  std::string Kind;   ///< "constant", "device", "managed"
  std::string Symbol; ///< name in the device module ("" when unknown)
};
struct ModelKernel {
  std::string MangledName;
  std::string File;
  std::vector<ModelParam> Params;
  std::vector<ModelGlobal> Globals; ///< namespace-scope variables it uses
};

/// The kernel model: `cuda-l1-rewrite --list-kernels --format=json` output.
class KernelModel {
public:
  /// Reads \p Path; false with "<path>: <problem>" in \p Error.
  bool load(const std::string &Path, std::string &Error);
  bool loadText(const std::string &Text, const std::string &Name,
                std::string &Error);
  /// The kernel whose mangled name matches (normalizeKernelName on both).
  const ModelKernel *find(const std::string &MangledName) const;
  size_t size() const { return Kernels.size(); }

private:
  std::map<std::string, ModelKernel> Kernels; ///< by normalized name
};

bool layoutFromModel(const ModelKernel &K, KernelLayout &L, std::string &Why);

/// The device-module symbol of a namespace-scope variable: its name at
/// global scope, the Itanium nested name inside namespaces/classes
/// ("ns::x" -> "_ZN2ns1xE"); "" when it cannot be known (anonymous
/// namespaces, templates).
std::string globalSymbolName(const std::string &QualifiedName);

/// Compares \p L with offsets/sizes from \p Other ("the driver", "the
/// model"); "" when they agree, else what differs.
std::string compareLayouts(const KernelLayout &L,
                           const std::vector<uint64_t> &Offsets,
                           const std::vector<uint64_t> &Sizes,
                           const std::string &Other = "the driver");

} // namespace capture
} // namespace cudal1

#endif
