//===- GpuReplay.cpp - a captured launch on the device --------------------===//
#include "GpuReplay.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace cudal1 {

ReplayRun::~ReplayRun() {
  for (CUdeviceptr B : Bases)
    if (B)
      D.MemFree(B);
  for (CUdeviceptr B : Images)
    if (B)
      D.MemFree(B);
}

std::string ReplayRun::allocate() {
  for (const auto &A : L.Allocations) {
    CUdeviceptr B = 0;
    uint64_t Bytes = A.Size + 2 * GuardBytes;
    CUresult R = A.Managed ? D.MemAllocManaged(&B, Bytes, CU_MEM_ATTACH_GLOBAL)
                           : D.MemAlloc(&B, Bytes);
    if (R != CUDA_SUCCESS)
      return formatv("{0} for {1} bytes ({2})",
                     A.Managed ? "cuMemAllocManaged" : "cuMemAlloc", A.Size,
                     L.Origin)
                 .str() +
             ": " + D.errorText(R);
    Bases.push_back(B);
    Data.push_back(B + GuardBytes);
  }
  std::vector<uint64_t> Addr(Data.begin(), Data.end());
  Params = L.patchedParams(Addr);
  for (const CaptureParam &P : L.Params) {
    if (P.Offset + P.Size > Params.size())
      return L.Origin + ": parameter " + std::to_string(P.Index) +
             " lies outside the captured parameter buffer";
    ParamPtrs.push_back(Params.data() + P.Offset);
  }
  return "";
}

Bytes ReplayRun::image(size_t I) const {
  const auto &A = L.Allocations[I];
  Bytes Guard = guardPattern(GuardBytes);
  Bytes Img;
  Img.reserve(A.Size + 2 * GuardBytes);
  Img.insert(Img.end(), Guard.begin(), Guard.end());
  Img.insert(Img.end(), A.Before.begin(), A.Before.end());
  Img.insert(Img.end(), Guard.begin(), Guard.end());
  return Img;
}

std::string ReplayRun::restore(CUmodule M) {
  if (Images.empty()) {
    for (size_t I = 0; I < L.Allocations.size(); ++I) {
      Bytes Img = image(I);
      CUdeviceptr P = 0;
      // Without room for a copy, every restore goes from the host.
      if (D.MemAlloc(&P, Img.size()) != CUDA_SUCCESS) {
        P = 0;
      } else if (D.MemcpyHtoD(P, Img.data(), Img.size()) != CUDA_SUCCESS) {
        D.MemFree(P);
        P = 0;
      }
      Images.push_back(P);
    }
  }
  for (size_t I = 0; I < L.Allocations.size(); ++I) {
    const auto &A = L.Allocations[I];
    uint64_t Size = A.Size + 2 * GuardBytes;
    std::string E;
    if (Images[I]) {
      E = check(D.MemcpyDtoD(Bases[I], Images[I], Size),
                "cuMemcpyDtoD (captured state)");
    } else {
      Bytes Img = image(I);
      E = check(D.MemcpyHtoD(Bases[I], Img.data(), Img.size()),
                "cuMemcpyHtoD (captured state)");
    }
    if (!E.empty())
      return E;
  }
  for (const auto &V : L.Globals) {
    CUdeviceptr P = 0;
    size_t Size = 0;
    // The application's module may hold variables this kernel never uses:
    // the extracted module defines only what the kernel refers to, so one it
    // does not define cannot be read by the kernel and needs no value.
    if (D.ModuleGetGlobal(&P, &Size, M, V.Name.c_str()) != CUDA_SUCCESS)
      continue;
    if (Size != V.Before.size())
      return formatv("{0}: module variable '{1}' has {2} bytes, {3} were "
                     "captured",
                     L.Origin, V.Name, Size, V.Before.size())
          .str();
    std::string E = check(D.MemcpyHtoD(P, V.Before.data(), Size),
                          "cuMemcpyHtoD (module variable)");
    if (!E.empty())
      return E;
  }
  return "";
}

std::string ReplayRun::launch(CUfunction F) {
  if (L.SharedMemBytes > 48 * 1024)
    D.FuncSetAttribute(F, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                       int(L.SharedMemBytes));
  return check(D.LaunchKernel(F, L.Grid[0], L.Grid[1], L.Grid[2], L.Block[0],
                              L.Block[1], L.Block[2], L.SharedMemBytes,
                              nullptr, ParamPtrs.data(), nullptr),
               "cuLaunchKernel (captured launch)");
}

std::string ReplayRun::readBack(CUmodule M, ReplayState &Out) {
  Out = ReplayState();
  std::string E = check(D.CtxSynchronize(), "kernel execution");
  if (!E.empty())
    return E;
  for (size_t I = 0; I < L.Allocations.size(); ++I) {
    const auto &A = L.Allocations[I];
    Bytes Img(A.Size + 2 * GuardBytes);
    E = check(D.MemcpyDtoH(Img.data(), Bases[I], Img.size()), "cuMemcpyDtoH");
    if (!E.empty())
      return E;
    uint64_t First = 0;
    if (uint64_t Bad = checkGuard(Img.data(), GuardBytes, First))
      Out.Problems.push_back(formatv("out-of-bounds write: {0} bytes before "
                                     "captured allocation {1}",
                                     Bad, I)
                                 .str());
    if (uint64_t Bad =
            checkGuard(Img.data() + GuardBytes + A.Size, GuardBytes, First))
      Out.Problems.push_back(formatv("out-of-bounds write: {0} bytes after "
                                     "captured allocation {1}",
                                     Bad, I)
                                 .str());
    Out.Allocations.emplace_back(Img.begin() + GuardBytes,
                                 Img.begin() + GuardBytes + A.Size);
  }
  for (const auto &V : L.Globals) {
    CUdeviceptr P = 0;
    size_t Size = 0;
    Bytes B(V.Before.size());
    if (D.ModuleGetGlobal(&P, &Size, M, V.Name.c_str()) == CUDA_SUCCESS &&
        Size == B.size())
      D.MemcpyDtoH(B.data(), P, Size);
    Out.Variables.push_back(std::move(B));
  }
  return "";
}

} // namespace cudal1
