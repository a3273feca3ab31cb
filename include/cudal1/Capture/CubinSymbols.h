//===- CubinSymbols.h - kernels and globals of a cubin image --*- C++ -*-===//
//
// A CUDA module image (cubin) is an ELF64 file: its symbol table names the
// kernels (STT_FUNC symbols with a .text.<name> section) and the
// namespace-scope variables (STT_OBJECT symbols in .nv.global*,
// .nv.constant<N> with N > 0; bank 0 holds kernel parameters). The capture
// library reads it from CUPTI's module-loaded callback to know which
// __device__/__constant__ variables a kernel's module has; the verifier
// (lib/Verify) reads it to reset those variables before every run; the
// launch-bounds rule reads each kernel's register count, unrolling-constant-trip
// compares machine code. Every read is
// bounds-checked: a malformed image gives an error, never a crash.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_CAPTURE_CUBINSYMBOLS_H
#define CUDAL1_CAPTURE_CUBINSYMBOLS_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cudal1 {
namespace capture {

struct CubinGlobal {
  std::string Name;
  uint64_t Size = 0;
  std::string Section; ///< ".nv.global", ".nv.global.init", ".nv.constant3"
  bool isConstant() const { return Section.rfind(".nv.constant", 0) == 0; }
};

struct CubinSymbols {
  std::vector<std::string> Kernels;
  std::vector<CubinGlobal> Globals;
  /// Registers per thread of each function, from the `.nv.info` section's
  /// EIATTR_REGCOUNT attributes (what `ptxas -v` prints as "Used N
  /// registers").
  std::map<std::string, unsigned> Registers;
  /// The machine code of each function: the bytes of its `.text.<name>`
  /// section (kernels, and device functions that were not inlined). Calls
  /// between functions are relocations, so a callee's change shows in the
  /// callee's bytes only.
  std::map<std::string, std::string> Code;
};

/// True when \p Data starts like an ELF64 little-endian image.
bool looksLikeElf64(const void *Data, size_t Size);

/// Reads the symbol table; false with the problem in \p Error.
bool readCubinSymbols(const void *Data, size_t Size, CubinSymbols &Out,
                      std::string &Error);

} // namespace capture
} // namespace cudal1

#endif
