//===- Affine.h - symbolic index expressions and warp access math -*- C++ -*-===//
//
// Plain data, no Clang. An index or byte address is a polynomial with integer
// coefficients over named symbols:
//   threadIdx.{x,y,z}  blockIdx.*  blockDim.*  gridDim.*   (CUDA builtins)
//   <param>            a kernel parameter never assigned in the kernel
//   i@<n>              a loop induction variable whose value is uniform
//   iter(i)@<n>        the iteration number of loop <n> (for induction
//                      variables that depend on the thread: i = init + step*iter)
//   {<text>}@<n>       an opaque value proven uniform across the warp (all its
//                      operands are), e.g. {N / 16}
// Anything else is Unknown: the analysis never guesses.
//
// The warp math (sectorsPerRequest, bankConflicts) evaluates such an address
// for the 32 lanes of a warp and counts 32-byte sectors / shared-memory
// wavefronts, like Nsight Compute's memory tables.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_ANALYSIS_AFFINE_H
#define CUDAL1_ANALYSIS_AFFINE_H

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cudal1 {

class AffineExpr {
public:
  using Monomial = std::vector<std::string>; ///< sorted symbol names
  AffineExpr() = default;                    ///< the constant 0
  static AffineExpr constant(int64_t C);
  static AffineExpr symbol(const std::string &Name);
  static AffineExpr unknown();

  bool isKnown() const { return Known; }
  bool isConstant() const;
  std::optional<int64_t> constantValue() const;
  /// The constant term.
  int64_t constantTerm() const;
  /// Affine: every monomial has degree <= 1.
  bool isAffine() const;

  AffineExpr operator+(const AffineExpr &O) const;
  AffineExpr operator-(const AffineExpr &O) const;
  AffineExpr operator*(const AffineExpr &O) const;
  AffineExpr operator-() const;
  bool operator==(const AffineExpr &O) const {
    return Known == O.Known && Terms == O.Terms;
  }
  bool operator!=(const AffineExpr &O) const { return !(*this == O); }

  /// d/dSym: the coefficient of \p Sym; Unknown when \p Sym appears with a
  /// power above one (not linear in it).
  AffineExpr coefficientOf(const std::string &Sym) const;
  /// Replaces \p Sym by \p Value everywhere.
  AffineExpr substitute(const std::string &Sym, const AffineExpr &Value) const;
  /// Every symbol appearing.
  std::set<std::string> symbols() const;
  bool dependsOn(const std::function<bool(const std::string &)> &Pred) const;
  /// Depends on threadIdx.* (directly).
  bool dependsOnThread() const;

  /// "blockIdx.x*blockDim.x + threadIdx.x", symbols shown without their
  /// "@<n>" suffix; "unknown" when not known.
  std::string str() const;

  const std::map<Monomial, int64_t> &terms() const { return Terms; }

private:
  bool Known = true;
  std::map<Monomial, int64_t> Terms; ///< no zero coefficients
  void addTerm(const Monomial &M, int64_t C);
};

bool isThreadSymbol(const std::string &Sym);
/// Name shown to users: "i@3" -> "i", "{N / 16}@2" -> "N / 16".
std::string displaySymbol(const std::string &Sym);

/// Block shape as far as known (0 = unknown), from launch sites.
using BlockShape = std::array<unsigned, 3>;

enum class AccessClass { Coalesced, Strided, Uncoalesced, Broadcast, Unknown };
const char *toString(AccessClass C);

/// One warp-wide global memory request: 32 consecutive threads of a block.
struct WarpRequest {
  AccessClass Class = AccessClass::Unknown;
  unsigned Sectors = 0;      ///< 32-byte sectors touched
  unsigned IdealSectors = 0; ///< for 32 lanes reading consecutive elements
  double Factor = 1;         ///< Sectors / IdealSectors
  /// Stride between consecutive lanes along threadIdx.x, in elements
  /// (constant strides) or as an expression (symbolic strides).
  std::optional<int64_t> StrideElems;
  std::string StrideText;
  /// A symbolic stride: the sector count holds when it spans >= 32 bytes
  /// (e.g. "N >= 8").
  std::string Condition;
  /// Assumptions made (e.g. "block shape unknown: warp taken along
  /// threadIdx.x").
  std::string Assumption;
  std::string Why; ///< for Unknown: what could not be analysed
};

/// Classifies the global access at byte address \p Addr (relative to a
/// 32-byte aligned base) of \p AccessBytes bytes per thread, whose element
/// type has \p ElemBytes bytes.
WarpRequest analyzeGlobalRequest(const AffineExpr &Addr, unsigned AccessBytes,
                                 unsigned ElemBytes, const BlockShape &Block);

/// Shared memory: 32 banks of 4 bytes.
struct BankResult {
  bool Known = false;
  unsigned Wavefronts = 0; ///< shared memory wavefronts per request
  unsigned Ideal = 0;      ///< without conflicts
  unsigned Ways = 1;       ///< worst bank conflict degree in one wavefront
  std::optional<int64_t> StrideWords; ///< along threadIdx.x, in 4-byte words
  std::string Assumption;
  std::string Why;
};
BankResult analyzeSharedRequest(const AffineExpr &Addr, unsigned AccessBytes,
                                const BlockShape &Block);

/// Lane -> (threadIdx.x, .y, .z) for a warp of a block of shape \p Block
/// (unknown x: lanes along x only). Sets \p Assumption when guessing is
/// needed to continue (then the caller states it).
std::array<std::array<int64_t, 3>, 32> warpLanes(const BlockShape &Block,
                                                 std::string &Assumption);

} // namespace cudal1

#endif
