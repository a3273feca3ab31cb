//===- Compare.cpp - fill, poison, guard, compare -------------------------===//
#include "cudal1/Verify/Compare.h"
#include "cudal1/Verify/Stats.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

using namespace llvm;

namespace cudal1 {

float halfToFloat(uint16_t H) {
  uint32_t Sign = (H >> 15) & 1, Exp = (H >> 10) & 0x1f, Man = H & 0x3ff;
  float V;
  if (Exp == 0)
    V = std::ldexp(float(Man), -24);
  else if (Exp == 31)
    V = Man ? std::numeric_limits<float>::quiet_NaN()
            : std::numeric_limits<float>::infinity();
  else
    V = std::ldexp(float(Man | 0x400), int(Exp) - 25);
  return Sign ? -V : V;
}

float bf16ToFloat(uint16_t B) {
  uint32_t U = uint32_t(B) << 16;
  float F;
  std::memcpy(&F, &U, 4);
  return F;
}

static uint16_t floatToHalf(float F) {
  // Round to nearest even; good enough for generating inputs.
  uint32_t X;
  std::memcpy(&X, &F, 4);
  uint32_t Sign = (X >> 16) & 0x8000;
  int32_t Exp = int32_t((X >> 23) & 0xff) - 127 + 15;
  uint32_t Man = X & 0x7fffff;
  if (((X >> 23) & 0xff) == 0xff)
    return uint16_t(Sign | 0x7c00 | (Man ? 0x200 : 0));
  if (Exp >= 31)
    return uint16_t(Sign | 0x7c00);
  if (Exp <= 0) {
    if (Exp < -10)
      return uint16_t(Sign);
    Man |= 0x800000;
    uint32_t Shift = uint32_t(14 - Exp);
    uint32_t H = Man >> Shift;
    uint32_t Rem = Man & ((1u << Shift) - 1), Half = 1u << (Shift - 1);
    if (Rem > Half || (Rem == Half && (H & 1)))
      ++H;
    return uint16_t(Sign | H);
  }
  uint32_t H = Sign | (uint32_t(Exp) << 10) | (Man >> 13);
  uint32_t Rem = Man & 0x1fff;
  if (Rem > 0x1000 || (Rem == 0x1000 && (H & 1)))
    ++H;
  return uint16_t(H);
}

static uint16_t floatToBf16(float F) {
  uint32_t X;
  std::memcpy(&X, &F, 4);
  if ((X & 0x7fffffff) > 0x7f800000)
    return uint16_t((X >> 16) | 0x40);
  uint32_t Lsb = (X >> 16) & 1;
  X += 0x7fff + Lsb;
  return uint16_t(X >> 16);
}

template <typename T> static void put(uint8_t *P, T V) {
  std::memcpy(P, &V, sizeof(T));
}

static void storeValue(uint8_t *P, ElemKind K, unsigned ElemSize, double V) {
  switch (K) {
  case ElemKind::F32: put<float>(P, float(V)); break;
  case ElemKind::F64: put<double>(P, V); break;
  case ElemKind::F16: put<uint16_t>(P, floatToHalf(float(V))); break;
  case ElemKind::BF16: put<uint16_t>(P, floatToBf16(float(V))); break;
  case ElemKind::I8: put<int8_t>(P, int8_t(V)); break;
  case ElemKind::I16: put<int16_t>(P, int16_t(V)); break;
  case ElemKind::I32: put<int32_t>(P, int32_t(V)); break;
  case ElemKind::I64: put<int64_t>(P, int64_t(V)); break;
  case ElemKind::U8: put<uint8_t>(P, uint8_t(int64_t(V))); break;
  case ElemKind::U16: put<uint16_t>(P, uint16_t(int64_t(V))); break;
  case ElemKind::U32: put<uint32_t>(P, uint32_t(int64_t(V))); break;
  case ElemKind::U64: put<uint64_t>(P, uint64_t(V)); break;
  case ElemKind::Bool: put<uint8_t>(P, V != 0); break;
  case ElemKind::Bytes:
    for (unsigned I = 0; I < ElemSize; ++I)
      P[I] = uint8_t(int64_t(V) >> (8 * (I % 8)));
    break;
  }
}

Bytes fillBuffer(ElemKind K, unsigned ElemSize, uint64_t Count,
                 const Distribution &D, uint64_t Seed) {
  Bytes Out(Count * ElemSize);
  SplitMix64 Rng(Seed * 0x2545F4914F6CDD1Dull + 0x1234567);
  if (D.K == Distribution::Sorted || D.K == Distribution::Distinct) {
    // Stratified: element I takes a value of the I-th of Count equal slices
    // of [lo, hi], so the values never decrease (and, when the range has
    // at least Count values, never repeat); distinct(...) then shuffles.
    uint64_t Span = uint64_t(D.B - D.A) + 1;
    std::vector<int64_t> Vals(Count);
    for (uint64_t I = 0; I < Count; ++I) {
      unsigned __int128 Lo = (unsigned __int128)I * Span / Count;
      unsigned __int128 Hi = (unsigned __int128)(I + 1) * Span / Count;
      uint64_t Width = uint64_t(Hi - Lo);
      uint64_t Off = uint64_t(Lo);
      if (D.K == Distribution::Distinct && Span < Count)
        Off = I % Span; // fewer values than elements: each as often
      else if (Width > 1)
        Off += Rng.next() % Width;
      Vals[I] = int64_t(D.A) + int64_t(Off);
    }
    if (D.K == Distribution::Distinct)
      for (uint64_t I = Count; I > 1; --I)
        std::swap(Vals[I - 1], Vals[Rng.next() % I]);
    for (uint64_t I = 0; I < Count; ++I)
      storeValue(&Out[I * ElemSize], K, ElemSize, double(Vals[I]));
    return Out;
  }
  bool HaveSpare = false;
  double Spare = 0;
  for (uint64_t I = 0; I < Count; ++I) {
    double V = 0;
    switch (D.K) {
    case Distribution::Uniform:
      V = D.A + (D.B - D.A) * Rng.uniform01();
      break;
    case Distribution::Normal: {
      if (HaveSpare) {
        V = Spare;
        HaveSpare = false;
      } else {
        double U1 = Rng.uniform01(), U2 = Rng.uniform01();
        if (U1 < 1e-300)
          U1 = 1e-300;
        double R = std::sqrt(-2 * std::log(U1));
        V = R * std::cos(2 * M_PI * U2);
        Spare = R * std::sin(2 * M_PI * U2);
        HaveSpare = true;
      }
      V = D.A + D.B * V;
      break;
    }
    case Distribution::IntRange: {
      uint64_t Span = uint64_t(D.B - D.A) + 1;
      V = D.A + double(Rng.next() % Span);
      break;
    }
    case Distribution::Constant: V = D.A; break;
    case Distribution::Iota: V = D.A + D.B * double(I); break;
    case Distribution::Zero: V = 0; break;
    case Distribution::Values: V = D.List[I % D.List.size()]; break;
    case Distribution::Sorted:
    case Distribution::Distinct: break; // above
    }
    if (K == ElemKind::Bytes && D.K == Distribution::Uniform)
      V = double(Rng.next() & 0xff);
    storeValue(&Out[I * ElemSize], K, ElemSize, V);
  }
  return Out;
}

Bytes poisonBuffer(ElemKind K, unsigned ElemSize, uint64_t Count) {
  Bytes Out(Count * ElemSize, 0xFF);
  // 0xFF.. is a NaN for every float format; for f32/f64 use the canonical
  // quiet NaN so a kernel that copies it through is still recognisable.
  if (K == ElemKind::F32)
    for (uint64_t I = 0; I < Count; ++I)
      put<uint32_t>(&Out[I * 4], 0x7fffffffu);
  return Out;
}

uint8_t guardByte(uint64_t Offset) {
  return uint8_t(0xA5 ^ (Offset * 131) ^ (Offset >> 8));
}

Bytes guardPattern(uint64_t Size) {
  Bytes G(Size);
  for (uint64_t I = 0; I < Size; ++I)
    G[I] = guardByte(I);
  return G;
}

uint64_t checkGuard(const uint8_t *Data, uint64_t Size, uint64_t &FirstBad) {
  uint64_t Bad = 0;
  for (uint64_t I = 0; I < Size; ++I)
    if (Data[I] != guardByte(I)) {
      if (!Bad)
        FirstBad = I;
      ++Bad;
    }
  return Bad;
}

static uint64_t orderedBits32(float F) {
  uint32_t U;
  std::memcpy(&U, &F, 4);
  return (U & 0x80000000u) ? uint64_t(0x80000000u) - (U & 0x7fffffffu)
                           : uint64_t(0x80000000u) + U;
}
static uint64_t orderedBits64(double F) {
  uint64_t U;
  std::memcpy(&U, &F, 8);
  const uint64_t Top = 0x8000000000000000ull;
  return (U & Top) ? Top - (U & ~Top) : Top + U;
}

uint64_t ulpDistance(float A, float B) {
  if (std::isnan(A) || std::isnan(B))
    return std::isnan(A) && std::isnan(B) ? 0
                                          : std::numeric_limits<uint64_t>::max();
  uint64_t X = orderedBits32(A), Y = orderedBits32(B);
  return X > Y ? X - Y : Y - X;
}
uint64_t ulpDistance(double A, double B) {
  if (std::isnan(A) || std::isnan(B))
    return std::isnan(A) && std::isnan(B) ? 0
                                          : std::numeric_limits<uint64_t>::max();
  uint64_t X = orderedBits64(A), Y = orderedBits64(B);
  return X > Y ? X - Y : Y - X;
}

void toleranceFor(ElemKind K, const Tolerance &Tol, double &Atol,
                  double &Rtol) {
  switch (K) {
  case ElemKind::F32: Atol = Tol.F32Atol; Rtol = Tol.F32Rtol; return;
  case ElemKind::F64: Atol = Tol.F64Atol; Rtol = Tol.F64Rtol; return;
  case ElemKind::F16:
  case ElemKind::BF16: Atol = Tol.HalfAtol; Rtol = Tol.HalfRtol; return;
  default: Atol = 0; Rtol = 0; return;
  }
}

void setToleranceFor(ElemKind K, Tolerance &Tol, double Atol, double Rtol) {
  switch (K) {
  case ElemKind::F32: Tol.F32Atol = Atol; Tol.F32Rtol = Rtol; return;
  case ElemKind::F64: Tol.F64Atol = Atol; Tol.F64Rtol = Rtol; return;
  case ElemKind::F16:
  case ElemKind::BF16: Tol.HalfAtol = Atol; Tol.HalfRtol = Rtol; return;
  default: return;
  }
}

double gridSumRtol(ElemKind K, uint64_t Terms, double BaseRtol) {
  double U;
  switch (K) {
  case ElemKind::F32: U = std::ldexp(1.0, -24); break;
  case ElemKind::F64: U = std::ldexp(1.0, -53); break;
  case ElemKind::F16: U = std::ldexp(1.0, -11); break;
  case ElemKind::BF16: U = std::ldexp(1.0, -8); break;
  default: return BaseRtol;
  }
  double Bound = Terms > 1 ? 2.0 * double(Terms - 1) * U : 0;
  return std::max(BaseRtol, std::min(Bound, 1e-2));
}

Tolerance toleranceForBuffer(const Tolerance &Tol, const std::string &Param,
                             ElemKind K, uint64_t Threads, std::string *Note) {
  if (!isFloatKind(K) ||
      std::find(Tol.GridSums.begin(), Tol.GridSums.end(), Param) ==
          Tol.GridSums.end())
    return Tol;
  Tolerance Out = Tol;
  double Atol, Rtol;
  toleranceFor(K, Tol, Atol, Rtol);
  double R = gridSumRtol(K, Threads, Rtol);
  setToleranceFor(K, Out, Atol, R);
  if (Note && R > Rtol)
    *Note = "'" + Param + "' sums up to " + std::to_string(Threads) +
            " terms per element (one per thread, added in another order by "
            "the candidate): compared within rtol " +
            llvm::formatv("{0:e1}", R).str() +
            " (2(n-1)u for n terms, at most 1e-2) instead of " +
            llvm::formatv("{0:e1}", Rtol).str();
  return Out;
}

Bytes scalarArgBytes(const ScalarSpec &S) {
  if (S.Record) {
    // Each member at its offset; padding (and an empty structure's byte)
    // zero.
    Bytes B(std::max(1u, S.Size), 0);
    for (const ScalarSpec::Member &M : S.Members) {
      if (M.Offset + M.Size > B.size())
        continue; // not from a layout of this structure
      ScalarSpec One;
      One.Kind = M.Kind;
      One.Size = M.Size;
      One.Value = M.Value;
      Bytes V = scalarArgBytes(One);
      std::memcpy(B.data() + M.Offset, V.data(), M.Size);
    }
    return B;
  }
  Bytes B(std::max(8u, S.Size), 0);
  if (isFloatKind(S.Kind))
    storeValue(B.data(), S.Kind, S.Size, S.Value.asDouble());
  else if (S.Kind == ElemKind::Bool)
    B[0] = S.Value.asInt() != 0;
  else {
    int64_t X = S.Value.asInt(); // little-endian: the low bytes are the value
    std::memcpy(B.data(), &X, 8);
  }
  B.resize(std::max(1u, S.Size));
  return B;
}

static double loadValue(const uint8_t *P, ElemKind K) {
  switch (K) {
  case ElemKind::F32: { float F; std::memcpy(&F, P, 4); return F; }
  case ElemKind::F64: { double F; std::memcpy(&F, P, 8); return F; }
  case ElemKind::F16: { uint16_t H; std::memcpy(&H, P, 2); return halfToFloat(H); }
  case ElemKind::BF16: { uint16_t H; std::memcpy(&H, P, 2); return bf16ToFloat(H); }
  case ElemKind::I8: return double(int8_t(P[0]));
  case ElemKind::U8: case ElemKind::Bool: return double(P[0]);
  case ElemKind::I16: { int16_t V; std::memcpy(&V, P, 2); return V; }
  case ElemKind::U16: { uint16_t V; std::memcpy(&V, P, 2); return V; }
  case ElemKind::I32: { int32_t V; std::memcpy(&V, P, 4); return V; }
  case ElemKind::U32: { uint32_t V; std::memcpy(&V, P, 4); return V; }
  case ElemKind::I64: { int64_t V; std::memcpy(&V, P, 8); return double(V); }
  case ElemKind::U64: { uint64_t V; std::memcpy(&V, P, 8); return double(V); }
  case ElemKind::Bytes: return P[0];
  }
  return 0;
}

static std::string gText(double V) {
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "%.9g", V);
  return Buf;
}

static std::string valueText(const uint8_t *P, ElemKind K, unsigned Size) {
  if (K == ElemKind::Bytes) {
    std::string S = "0x";
    for (unsigned I = 0; I < Size && I < 16; ++I)
      S += formatv("{0:x-2}", P[I]).str();
    return S;
  }
  double V = loadValue(P, K);
  if (std::isnan(V))
    return "nan";
  if (isFloatKind(K))
    return gText(V);
  return formatv("{0}", int64_t(V)).str();
}

BufferDiff compareBuffer(const std::string &Name, ElemKind K, unsigned ElemSize,
                         const Bytes &Ref, const Bytes &Got,
                         const Bytes &Poison, bool Bitwise,
                         const Tolerance &Tol,
                         const std::vector<double> *Allow) {
  BufferDiff D;
  D.Buffer = Name;
  uint64_t N = ElemSize ? Ref.size() / ElemSize : 0;
  D.Elements = N;
  double Atol, Rtol;
  toleranceFor(K, Tol, Atol, Rtol);
  bool HavePoison = Poison.size() == Ref.size();
  if (isFloatKind(K))
    for (uint64_t I = 0; I < N; ++I) {
      double RV = std::fabs(loadValue(&Ref[I * ElemSize], K));
      if (std::isfinite(RV))
        D.MaxAbsRef = std::max(D.MaxAbsRef, RV);
    }
  double ScaleTol = Tol.ScaleRtol * D.MaxAbsRef;
  // Equal elements add nothing below: runs of them are skipped a block at a
  // time (a multi-GB output that matches is one memcmp per 4096 elements).
  const uint64_t Block = 4096;
  for (uint64_t I = 0; I < N; ++I) {
    if (I % Block == 0) {
      uint64_t E = std::min(N, I + Block);
      if (std::memcmp(&Ref[I * ElemSize], &Got[I * ElemSize],
                      (E - I) * ElemSize) == 0) {
        I = E - 1;
        continue;
      }
    }
    const uint8_t *R = &Ref[I * ElemSize], *G = &Got[I * ElemSize];
    bool Same = std::memcmp(R, G, ElemSize) == 0;
    if (!Same)
      for (unsigned B = 0; B < ElemSize; ++B)
        D.BytesDiffering += R[B] != G[B];
    bool Bad = false;
    if (!Same) {
      if (HavePoison && std::memcmp(G, &Poison[I * ElemSize], ElemSize) == 0 &&
          std::memcmp(R, &Poison[I * ElemSize], ElemSize) != 0)
        ++D.Unwritten;
      if (Bitwise || !isFloatKind(K)) {
        Bad = true;
      } else {
        double RV = loadValue(R, K), GV = loadValue(G, K);
        // With a conditioning allowance (an input set the original itself
        // cannot compute stably), an element it overflows (inf, or inf - inf
        // = NaN) matches any non-finite value: reassociated sums overflow to
        // one or the other.
        // Not +inf against -inf, and never the poison the candidate left
        // where the original wrote a value.
        bool Poisoned = HavePoison &&
                        std::memcmp(G, &Poison[I * ElemSize], ElemSize) == 0 &&
                        std::memcmp(R, &Poison[I * ElemSize], ElemSize) != 0;
        bool Overflows = Allow && !std::isfinite(RV) && !std::isfinite(GV) &&
                         !Poisoned &&
                         !(std::isinf(RV) && std::isinf(GV) &&
                           std::signbit(RV) != std::signbit(GV));
        if (Overflows) {
          Bad = false;
        } else if (std::isnan(RV) || std::isnan(GV)) {
          Bad = !(std::isnan(RV) && std::isnan(GV));
          if (Bad)
            D.MaxAbsErr = std::numeric_limits<double>::infinity();
        } else {
          double Abs = std::fabs(RV - GV);
          double Rel = RV != 0 ? Abs / std::fabs(RV) : (Abs ? INFINITY : 0);
          uint64_t Ulp = K == ElemKind::F64 ? ulpDistance(RV, GV)
                                            : ulpDistance(float(RV), float(GV));
          if (K == ElemKind::F16 || K == ElemKind::BF16)
            Ulp = 0; // ulps are counted for f32/f64 only
          D.MaxAbsErr = std::max(D.MaxAbsErr, Abs);
          if (std::isfinite(Rel))
            D.MaxRelErr = std::max(D.MaxRelErr, Rel);
          D.MaxUlp = std::max(D.MaxUlp, Ulp);
          double Extra = Allow && I < Allow->size() ? (*Allow)[I] : 0;
          bool WithinTol =
              Abs <= Atol + Rtol * std::fabs(RV) + ScaleTol + Extra;
          bool WithinUlp = Tol.MaxUlp && Ulp <= Tol.MaxUlp &&
                           K != ElemKind::F16 && K != ElemKind::BF16;
          if (std::isinf(RV) || std::isinf(GV))
            WithinTol = RV == GV;
          Bad = !(WithinTol || WithinUlp);
        }
      }
    }
    if (Bad) {
      if (!D.Mismatches) {
        D.FirstBad = I;
        D.FirstBadText = "expected " + valueText(R, K, ElemSize) + ", got " +
                         valueText(G, K, ElemSize);
      }
      ++D.Mismatches;
    }
  }
  return D;
}

std::vector<double> conditioningAllowance(ElemKind K, unsigned ElemSize,
                                          const Bytes &Ref,
                                          const Bytes &Perturbed,
                                          double Factor) {
  uint64_t N = ElemSize ? Ref.size() / ElemSize : 0;
  std::vector<double> Out(N, 0.0);
  if (!isFloatKind(K) || Perturbed.size() != Ref.size())
    return Out;
  for (uint64_t I = 0; I < N; ++I) {
    double A = loadValue(&Ref[I * ElemSize], K);
    double B = loadValue(&Perturbed[I * ElemSize], K);
    if (std::isfinite(A) && std::isfinite(B))
      Out[I] = Factor * std::fabs(A - B);
  }
  return Out;
}

void perturbWithinRounding(ElemKind K, unsigned ElemSize, Bytes &B,
                           uint64_t Seed) {
  // About 32 units of rounding of the kind: 2^-18 for float, 2^-47 for
  // double; half and bfloat16 are not perturbed (a step that size rounds
  // away, and their tolerance is wide already).
  if (!ElemSize || (K != ElemKind::F32 && K != ElemKind::F64))
    return;
  uint64_t S = Seed * 6364136223846793005ull + 1442695040888963407ull;
  const double Eps = std::ldexp(1.0, K == ElemKind::F64 ? -47 : -18);
  for (uint64_t I = 0; I + ElemSize <= B.size(); I += ElemSize) {
    S = S * 6364136223846793005ull + 1442695040888963407ull;
    double V = loadValue(&B[I], K);
    if (!std::isfinite(V))
      continue;
    storeValue(&B[I], K, ElemSize, V * (1.0 + ((S >> 33) & 1 ? Eps : -Eps)));
  }
}

std::string BufferDiff::str() const {
  if (ok())
    return formatv("{0}: {1} elements match (max abs err {2}, max rel err "
                   "{3}, max ulp {4})",
                   Buffer, Elements, gText(MaxAbsErr), gText(MaxRelErr),
                   MaxUlp)
        .str();
  std::string S = formatv("{0}: {1} of {2} elements differ", Buffer,
                          Mismatches, Elements)
                      .str();
  if (Unwritten)
    S += formatv(" ({0} never written: still poison)", Unwritten).str();
  S += formatv("; first at [{0}]: {1}", FirstBad, FirstBadText).str();
  if (MaxAbsErr > 0) {
    S += "; max abs err " + gText(MaxAbsErr) + ", max rel err " +
         gText(MaxRelErr);
    // Relative to the output's scale: tells cancellation near zero (small
    // here) from a wrong result (large here).
    if (MaxAbsRef > 0 && std::isfinite(MaxAbsErr))
      S += ", max abs err / max |expected| " + gText(MaxAbsErr / MaxAbsRef);
  }
  return S;
}

} // namespace cudal1
