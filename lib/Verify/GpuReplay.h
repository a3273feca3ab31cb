//===- GpuReplay.h - a captured launch on the device -------------*- C++ -*-===//
//
// Private to lib/Verify (the GPU job). Recreates the allocations of one
// launch recorded by cuda-l1-capture (offsets preserved through the pointer
// fix-ups, guard zones around each), restores its "before" state (and the
// module variables it captured), launches a kernel with the captured
// parameters and shape, and reads everything back.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_VERIFY_GPUREPLAY_H
#define CUDAL1_LIB_VERIFY_GPUREPLAY_H

#include "CudaApi.h"
#include "cudal1/Capture/CaptureManifest.h"
#include "cudal1/Verify/Compare.h"

#include <string>
#include <vector>

namespace cudal1 {

/// The device state after one replayed run.
struct ReplayState {
  std::vector<Bytes> Allocations; ///< data part of each allocation
  std::vector<Bytes> Variables;   ///< each captured module variable
  std::vector<std::string> Problems; ///< guard zones
};

class ReplayRun {
public:
  ReplayRun(DriverApi &D, const ReplayLaunch &L) : D(D), L(L) {}
  ~ReplayRun();
  ReplayRun(const ReplayRun &) = delete;
  ReplayRun &operator=(const ReplayRun &) = delete;

  /// Allocates every allocation (managed ones as managed) with guard zones
  /// and builds the parameter buffer; "" or the error.
  std::string allocate();
  /// Puts back the "before" bytes (and guard patterns) of every allocation
  /// and the captured module variables of module \p M.
  std::string restore(CUmodule M);
  /// Launches \p F as captured (grid, block, shared memory).
  std::string launch(CUfunction F);
  /// Synchronises and reads every allocation and variable back.
  std::string readBack(CUmodule M, ReplayState &Out);
  /// Bytes of the allocations (for the memory floor).
  const ReplayLaunch &launchData() const { return L; }

private:
  DriverApi &D;
  const ReplayLaunch &L;
  std::vector<CUdeviceptr> Bases, Data;
  /// The "before" image of each allocation with its guard zones, on the
  /// device (made on the first restore): later restores copy device to
  /// device (a timed sample restores before every launch; building and
  /// copying a host image of tens of MB each time made timing on a
  /// captured launch several times slower than on a harness's inputs).
  std::vector<CUdeviceptr> Images;
  /// Allocation \p I's "before" bytes between two guard zones.
  Bytes image(size_t I) const;
  std::vector<uint8_t> Params;
  std::vector<void *> ParamPtrs;
  std::string check(CUresult R, const char *What) {
    return R == CUDA_SUCCESS ? "" : std::string(What) + ": " + D.errorText(R);
  }
};

} // namespace cudal1

#endif
