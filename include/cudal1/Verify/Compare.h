//===- Compare.h - filling, poisoning, guards, comparing buffers -*- C++ -*-===//
//
// Host-side logic of a correctness check; no GPU needed (unit-tested in CI).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_VERIFY_COMPARE_H
#define CUDAL1_VERIFY_COMPARE_H

#include "cudal1/Verify/Harness.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cudal1 {

using Bytes = std::vector<uint8_t>;

/// Fills \p Count elements of kind \p K from \p D with a deterministic
/// generator seeded by \p Seed.
Bytes fillBuffer(ElemKind K, unsigned ElemSize, uint64_t Count,
                 const Distribution &D, uint64_t Seed);

/// The poison written into outputs before every run: quiet NaN (0xFF bytes
/// are NaN too) for floating types, 0xFF bytes otherwise.
Bytes poisonBuffer(ElemKind K, unsigned ElemSize, uint64_t Count);

/// Guard zones: this many bytes before and after every buffer, filled with a
/// pattern that any out-of-bounds write changes.
constexpr uint64_t GuardBytes = 64 * 1024;
uint8_t guardByte(uint64_t Offset); ///< the pattern at an offset
Bytes guardPattern(uint64_t Size);
/// Number of guard bytes that differ from the pattern; \p FirstBad gets the
/// offset of the first (relative to the guard start).
uint64_t checkGuard(const uint8_t *Data, uint64_t Size, uint64_t &FirstBad);

/// The bytes a kernel receives for scalar argument \p S: its value in the
/// parameter's type (half and bf16 rounded to nearest even, integers
/// without going through double), \p S.Size bytes.
Bytes scalarArgBytes(const ScalarSpec &S);

/// Distance in units in the last place between two floats (0 when equal,
/// NaNs with NaNs equal; a NaN against a number: max).
uint64_t ulpDistance(float A, float B);
uint64_t ulpDistance(double A, double B);
/// half / bf16 -> float.
float halfToFloat(uint16_t H);
float bf16ToFloat(uint16_t B);

/// Outcome of comparing one buffer.
struct BufferDiff {
  std::string Buffer;
  uint64_t Elements = 0;
  uint64_t Mismatches = 0;     ///< outside tolerance (or not bitwise equal)
  uint64_t BytesDiffering = 0; ///< bitwise
  uint64_t Unwritten = 0;      ///< candidate left the poison (ref did not)
  uint64_t FirstBad = 0;       ///< element index of the first mismatch
  double MaxAbsErr = 0, MaxRelErr = 0;
  double MaxAbsRef = 0; ///< largest finite |value| of the reference (floats)
  uint64_t MaxUlp = 0;
  bool ok() const { return Mismatches == 0; }
  std::string str() const; ///< "out: 12 of 1024 elements differ (first [3]: ..."
  std::string FirstBadText; ///< "ref 1.5 got nan"
};

/// Compares candidate output \p Got with reference \p Ref (same size).
/// \p Bitwise: every bit must match. Otherwise floats pass within
/// atol + rtol*|ref| + Tol.ScaleRtol*max|ref| (or within Tol.MaxUlp ulps),
/// integers must be equal.
/// \p Poison is the poison pattern written before the run, used to count
/// unwritten elements.
/// \p Allow (floats, not bitwise): a further absolute allowance per
/// element (the original's own sensitivity, conditioningAllowance); with
/// it, an element the original does not compute as a finite number matches
/// a non-finite value of the candidate (inf and NaN: overflow in either
/// order), but not the other infinity nor the poison left unwritten.
BufferDiff compareBuffer(const std::string &Name, ElemKind K, unsigned ElemSize,
                         const Bytes &Ref, const Bytes &Got,
                         const Bytes &Poison, bool Bitwise,
                         const Tolerance &Tol,
                         const std::vector<double> *Allow = nullptr);

/// How far the original's float output \p Ref moves when its inputs are
/// perturbed within rounding (\p Perturbed: its output on those inputs):
/// per element, \p Factor times |Ref - Perturbed| (0 where either is not
/// finite). An element an ill-conditioned computation (a triangular solve
/// on a random matrix) cannot determine better than that is allowed that
/// much more error.
std::vector<double> conditioningAllowance(ElemKind K, unsigned ElemSize,
                                          const Bytes &Ref,
                                          const Bytes &Perturbed,
                                          double Factor);

/// Multiplies every finite element of float buffer \p B by (1 + s * e),
/// s = +1 or -1 from a fixed sequence seeded by \p Seed, e = 2^-18 for
/// float and 2^-47 for double (about 32 units of rounding). Other kinds are
/// left as they are.
void perturbWithinRounding(ElemKind K, unsigned ElemSize, Bytes &B,
                           uint64_t Seed);

/// Tolerance for kind \p K: (atol, rtol).
void toleranceFor(ElemKind K, const Tolerance &Tol, double &Atol, double &Rtol);
/// Sets the (atol, rtol) of kind \p K in \p Tol (the fields toleranceFor
/// reads; half and bf16 share theirs); other kinds: nothing.
void setToleranceFor(ElemKind K, Tolerance &Tol, double Atol, double Rtol);

/// The relative tolerance of an output that sums up to \p Terms float terms
/// of kind \p K, added by the candidate in another order than the original
/// (an atomicAdd per thread replaced by a warp sum and an atomic per warp).
/// Two orders of summing n terms differ by at most 2(n-1)u times the sum of
/// the terms' magnitudes (u: the unit roundoff, 2^-24 for float), which is
/// the result's magnitude when the terms have one sign: the original's own
/// error is that large. The result is that bound, at least \p BaseRtol and
/// at most 1e-2 (KernelBench's fp32 tolerance): a bound over 1% would
/// accept too much. Integers and unknown kinds: \p BaseRtol.
double gridSumRtol(ElemKind K, uint64_t Terms, double BaseRtol);

/// \p Tol for buffer \p Param of a launch of \p Threads threads: with
/// Param in Tol.GridSums, the kind's rtol widened by gridSumRtol (and a note
/// saying so in \p Note, when given); else \p Tol itself.
Tolerance toleranceForBuffer(const Tolerance &Tol, const std::string &Param,
                             ElemKind K, uint64_t Threads,
                             std::string *Note = nullptr);

} // namespace cudal1

#endif
