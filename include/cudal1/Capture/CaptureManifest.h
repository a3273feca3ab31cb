//===- CaptureManifest.h - reading cuda-l1-capture directories -*- C++ -*-===//
//
// The verifier's view of a capture directory written by cuda-l1-capture
// (docs/capture.md): the manifest, validated, and per captured launch a
// ReplayLaunch holding everything a replay needs: the kernel's mangled
// name, the launch configuration, the parameter buffer, the allocations
// with their bytes before and after the launch, the pointer fix-ups that
// place each pointer in a recreated allocation, and the module variables.
//
// Plain data: no CUDA, no Clang (LLVM Support only). The GPU side (lib/Verify)
// allocates, restores, launches and compares.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_CAPTURE_CAPTUREMANIFEST_H
#define CUDAL1_CAPTURE_CAPTUREMANIFEST_H

#include "cudal1/Capture/CaptureFormat.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudal1 {

/// One kernel parameter of a captured launch's layout.
struct CaptureParam {
  unsigned Index = 0;
  uint64_t Offset = 0, Size = 0, Align = 1;
  std::string Kind; ///< "pointer", "scalar" or "aggregate"
  std::string Type; ///< as spelled by the layout source ("" from the driver)
};

/// An allocation, or a module (__device__/__constant__) variable.
struct CaptureRegion {
  std::string Name;   ///< variables: the module symbol; allocations: ""
  std::string Memory; ///< allocations: "device"/"managed"; variables: "device"/"constant"
  uint64_t Size = 0;
  uint64_t OriginalAddress = 0;
  std::string BeforeFile, AfterFile; ///< absolute paths
  bool Changed = false;              ///< the launch changed its bytes
};

/// Where a pointer goes: the 8 bytes at ParamOffset of the parameter buffer
/// hold the address Allocation's base + Offset.
struct CapturePointer {
  unsigned Parameter = 0;
  uint64_t ParamOffset = 0;
  unsigned Allocation = 0;
  uint64_t Offset = 0;
};

struct CaptureLaunch {
  unsigned Index = 0;
  std::string Status; ///< "captured" or "skipped"
  std::string Reason; ///< why it was skipped
  std::string Kernel; ///< mangled name
  std::string Demangled;
  std::string Api; ///< "cuLaunchKernel", "cuLaunchKernelEx_ptsz", ...
  uint64_t KernelLaunchOrdinal = 0;
  std::array<unsigned, 3> Grid{{1, 1, 1}}, Block{{1, 1, 1}};
  unsigned SharedMemBytes = 0;
  bool Cooperative = false;
  std::optional<std::array<unsigned, 3>> ClusterDim;
  std::string LayoutSource; ///< "model", "demangled" or "driver"
  bool LayoutCheckedByDriver = false;
  uint64_t LayoutBytes = 0;
  std::vector<CaptureParam> Params;
  std::string ParamsFile; ///< absolute path
  uint64_t ParamsBytes = 0;
  std::vector<CaptureRegion> Allocations;
  std::vector<CapturePointer> Pointers;
  std::vector<CaptureRegion> Globals;
  std::string GlobalsStatus; ///< "captured", "partial", "none", "unknown"
  std::string GlobalsNote;
  std::string ModuleImage; ///< absolute path of the saved cubin, or ""

  bool captured() const { return Status == "captured"; }
};

struct CaptureManifest {
  std::string Dir;          ///< the capture directory
  std::string ManifestPath; ///< Dir/manifest.json
  unsigned Version = 0;
  std::string Tool, Created;
  std::vector<std::string> Command; ///< the application's command line
  std::string DeviceName, ComputeCapability, DriverVersion;
  bool Complete = false; ///< the application exited normally
  std::vector<CaptureLaunch> Launches;
  std::vector<std::string> Problems; ///< notes recorded during the capture
};

/// Reads and validates <Dir>/manifest.json: the format name and version,
/// every launch's fields, and for captured launches that every data file is
/// inside \p Dir with the size the manifest gives. Errors read
/// "<Dir>/manifest.json: launch 3 (_Z4axpyPfi): <problem>".
llvm::Expected<CaptureManifest> readCaptureManifest(llvm::StringRef Dir);
/// The same from text (tests); \p Dir resolves the data files.
llvm::Expected<CaptureManifest> parseCaptureManifest(llvm::StringRef Text,
                                                     llvm::StringRef Dir);

/// Is \p L a launch of the kernel \p MangledName? Exact mangled names, with
/// anonymous-namespace components normalised (normalizeKernelName), so that
/// a kernel compiled again by NVRTC matches the application's.
bool matchesKernel(const CaptureLaunch &L, const std::string &MangledName);

/// A captured launch with its bytes, ready to replay.
struct ReplayLaunch {
  std::string Origin; ///< "<dir> launch <n>", for messages
  std::string Kernel;
  std::array<unsigned, 3> Grid{{1, 1, 1}}, Block{{1, 1, 1}};
  unsigned SharedMemBytes = 0;
  bool Cooperative = false;
  std::optional<std::array<unsigned, 3>> ClusterDim;
  /// The parameter buffer as the application passed it; parameter i is at
  /// Params[i].Offset (kernelParams[i] = ParamBuffer.data() + Offset).
  std::vector<uint8_t> ParamBuffer;
  std::vector<CaptureParam> Params;
  struct Allocation {
    uint64_t Size = 0;
    bool Managed = false;
    bool Changed = false;
    std::vector<uint8_t> Before, After;
  };
  std::vector<Allocation> Allocations;
  std::vector<CapturePointer> Fixups;
  struct Variable {
    std::string Name; ///< for cuModuleGetGlobal
    std::string Kind; ///< "device" or "constant"
    uint64_t Size = 0;
    bool Changed = false;
    std::vector<uint8_t> Before, After;
  };
  std::vector<Variable> Globals;
  std::string GlobalsStatus;

  /// ParamBuffer with every fix-up applied: the pointer at ParamOffset set
  /// to Bases[Allocation] + Offset. \p Bases has one address per
  /// allocation (asserted).
  std::vector<uint8_t> patchedParams(llvm::ArrayRef<uint64_t> Bases) const;
  /// Total bytes of allocations and variables.
  uint64_t bytes() const;
};

/// Loads the bytes of captured launch \p L of \p M.
llvm::Expected<ReplayLaunch> loadReplayLaunch(const CaptureManifest &M,
                                              const CaptureLaunch &L);

/// The hook for `cuda-l1-rewrite --capture=<dir>`: every captured launch of
/// kernel \p MangledName in \p Dir (at most \p Max), loaded. An empty
/// vector when the capture has none of that kernel; an error when the
/// directory or a data file is unreadable or invalid.
llvm::Expected<std::vector<ReplayLaunch>>
loadCapturedLaunches(llvm::StringRef Dir, const std::string &MangledName,
                     unsigned Max = ~0u);

} // namespace cudal1

#endif
