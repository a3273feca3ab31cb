//===- IndexRanges.cpp - values of buffers used as indices ----------------===//
#include "cudal1/Verify/IndexRanges.h"

#include <algorithm>
#include <limits>
#include <utility>
#include <optional>
#include <set>

namespace cudal1 {

namespace {

using I128 = __int128;
constexpr int64_t Max64 = std::numeric_limits<int64_t>::max();
constexpr int64_t Min64 = std::numeric_limits<int64_t>::min();

bool fits(I128 V) { return V >= I128(Min64) && V <= I128(Max64); }

/// Floor division for a positive divisor.
int64_t floorDiv(I128 A, I128 B) {
  I128 Q = A / B;
  if ((A % B != 0) && ((A < 0) != (B < 0)))
    --Q;
  return int64_t(Q);
}
int64_t ceilDiv(I128 A, I128 B) { return -floorDiv(-A, B); }

struct Eval {
  const IndexRangeEnv &Env;
  std::string &Why;

  bool set(IndexInterval &Out, I128 Lo, I128 Hi) {
    if (!fits(Lo) || !fits(Hi)) {
      Why = "the index overflows 64 bits";
      return false;
    }
    Out.Lo = int64_t(Lo);
    Out.Hi = int64_t(Hi);
    return true;
  }

  bool builtin(const std::string &N, IndexInterval &Out) {
    if (N == "warpSize") {
      Out = {32, 32};
      return true;
    }
    size_t Dot = N.find('.');
    if (Dot == std::string::npos || Dot + 2 != N.size() || N.back() < 'x' ||
        N.back() > 'z') {
      Why = "the builtin '" + N + "'";
      return false;
    }
    unsigned D = N.back() - 'x';
    std::string V = N.substr(0, Dot);
    int64_t G = int64_t(Env.Grid[D]), B = int64_t(Env.Block[D]);
    if (V == "threadIdx")
      Out = {0, B - 1};
    else if (V == "blockIdx")
      Out = {0, G - 1};
    else if (V == "blockDim")
      Out = {B, B};
    else if (V == "gridDim")
      Out = {G, G};
    else {
      Why = "the builtin '" + N + "'";
      return false;
    }
    return true;
  }

  bool run(const IndexExpr &E, IndexInterval &Out) {
    switch (E.Kind) {
    case IndexExpr::Const:
      Out = {E.Value, E.Value};
      return true;
    case IndexExpr::Param: {
      auto It = Env.Params.find(E.Name);
      if (It == Env.Params.end()) {
        Why = "the parameter '" + E.Name + "' has no integer value";
        return false;
      }
      Out = {It->second, It->second};
      return true;
    }
    case IndexExpr::Builtin:
      return builtin(E.Name, Out);
    case IndexExpr::Load: {
      auto It = Env.Loads.find(E.Buffer);
      if (It == Env.Loads.end()) {
        Why = "the values of parameter #" + std::to_string(E.Buffer) +
              " are not integers in a known range";
        return false;
      }
      Out = It->second;
      return true;
    }
    case IndexExpr::Opaque:
      Why = E.Name;
      return false;
    default:
      break;
    }
    if (E.Ops.size() != 2) {
      Why = "malformed index expression";
      return false;
    }
    IndexInterval A, B;
    if (!run(E.Ops[0], A) || !run(E.Ops[1], B))
      return false;
    // Linear forms keep the orientation of their operands (a loop that runs
    // zero times, Lo > Hi, stays so): affinity checks rely on it.
    auto Scale = [&](const IndexInterval &X, I128 C) {
      if (C >= 0)
        return set(Out, I128(X.Lo) * C, I128(X.Hi) * C);
      return set(Out, I128(X.Hi) * C, I128(X.Lo) * C);
    };
    auto Corners = [&](auto F) {
      I128 V[4] = {F(A.Lo, B.Lo), F(A.Lo, B.Hi), F(A.Hi, B.Lo), F(A.Hi, B.Hi)};
      return set(Out, *std::min_element(V, V + 4), *std::max_element(V, V + 4));
    };
    switch (E.Kind) {
    case IndexExpr::Range:
      Out = {A.Lo, B.Hi};
      return true;
    case IndexExpr::Add:
      return set(Out, I128(A.Lo) + B.Lo, I128(A.Hi) + B.Hi);
    case IndexExpr::Sub:
      return set(Out, I128(A.Lo) - B.Hi, I128(A.Hi) - B.Lo);
    case IndexExpr::Mul:
      if (B.Lo == B.Hi)
        return Scale(A, B.Lo);
      if (A.Lo == A.Hi)
        return Scale(B, A.Lo);
      return Corners([](I128 X, I128 Y) { return X * Y; });
    case IndexExpr::Div:
      if (std::min(B.Lo, B.Hi) <= 0 && std::max(B.Lo, B.Hi) >= 0) {
        Why = "a division by a value that may be 0";
        return false;
      }
      if (B.Lo == B.Hi) {
        // Truncating division by a constant never decreases.
        I128 C = B.Lo;
        if (C > 0)
          return set(Out, I128(A.Lo) / C, I128(A.Hi) / C);
        return set(Out, I128(A.Hi) / C, I128(A.Lo) / C);
      }
      return Corners([](I128 X, I128 Y) { return X / Y; });
    case IndexExpr::Rem: {
      if (B.Lo != B.Hi || B.Lo == 0) {
        Why = "a remainder by a value that is not a constant";
        return false;
      }
      I128 M = B.Lo < 0 ? -I128(B.Lo) : I128(B.Lo);
      int64_t Lo = std::min(A.Lo, A.Hi), Hi = std::max(A.Lo, A.Hi);
      if (Lo >= 0 && Hi < M)
        return set(Out, A.Lo, A.Hi);
      if (Lo >= 0)
        return set(Out, 0, M - 1);
      return set(Out, -(M - 1), Hi < 0 ? 0 : M - 1);
    }
    case IndexExpr::Shl:
      if (B.Lo != B.Hi || B.Lo < 0 || B.Lo > 62) {
        Why = "a shift by a value that is not a constant";
        return false;
      }
      return Scale(A, I128(1) << B.Lo);
    case IndexExpr::Shr:
      if (B.Lo != B.Hi || B.Lo < 0 || B.Lo > 62) {
        Why = "a shift by a value that is not a constant";
        return false;
      }
      return set(Out, A.Lo >> B.Lo, A.Hi >> B.Lo);
    case IndexExpr::And: {
      // x & m with a constant m >= 0 lies in [0, m].
      const IndexInterval *M = B.Lo == B.Hi && B.Lo >= 0   ? &B
                               : A.Lo == A.Hi && A.Lo >= 0 ? &A
                                                           : nullptr;
      if (!M) {
        Why = "a bitwise and without a constant mask";
        return false;
      }
      const IndexInterval &X = M == &B ? A : B;
      if (std::min(X.Lo, X.Hi) >= 0 && std::max(X.Lo, X.Hi) <= M->Lo)
        return set(Out, X.Lo, X.Hi);
      return set(Out, 0, M->Lo);
    }
    case IndexExpr::Min:
      return set(Out, std::min(A.Lo, B.Lo), std::min(A.Hi, B.Hi));
    case IndexExpr::Max:
      return set(Out, std::max(A.Lo, B.Lo), std::max(A.Hi, B.Hi));
    case IndexExpr::Select:
      return set(Out, std::min(A.Lo, B.Lo), std::max(A.Hi, B.Hi));
    default:
      Why = "malformed index expression";
      return false;
    }
  }
};

/// min/max of an index as an affine function of the ends of a range:
/// C + A * lo + B * hi.
struct Affine2 {
  I128 C = 0, A = 0, B = 0;
  I128 at(I128 Lo, I128 Hi) const { return C + A * Lo + B * Hi; }
};

} // namespace

bool indexInterval(const IndexExpr &E, const IndexRangeEnv &Env,
                   IndexInterval &Out, std::string &Why) {
  Eval Ev{Env, Why};
  return Ev.run(E, Out);
}

bool integerTypeRange(ElemKind K, IndexInterval &Out) {
  switch (K) {
  case ElemKind::I8: Out = {-128, 127}; return true;
  case ElemKind::U8: Out = {0, 255}; return true;
  case ElemKind::I16: Out = {-32768, 32767}; return true;
  case ElemKind::U16: Out = {0, 65535}; return true;
  case ElemKind::I32: Out = {INT32_MIN, INT32_MAX}; return true;
  case ElemKind::U32: Out = {0, UINT32_MAX}; return true;
  case ElemKind::I64: Out = {-(int64_t(1) << 62), int64_t(1) << 62}; return true;
  case ElemKind::U64: Out = {0, int64_t(1) << 62}; return true;
  default: return false;
  }
}

IndexRangeChoice chooseIndexRange(unsigned Source, uint64_t SourceCount,
                                  const std::vector<IndexUse> &Uses,
                                  const std::map<unsigned, uint64_t> &Counts,
                                  const std::vector<std::string> &Names,
                                  IndexRangeEnv Env, IndexInterval TypeRange,
                                  IndexInterval Default) {
  IndexRangeChoice R;
  auto Name = [&](unsigned P) {
    return P < Names.size() ? Names[P] : "#" + std::to_string(P);
  };
  std::optional<I128> LoBound, HiBound;
  std::vector<std::pair<const IndexUse *, I128>> NonAffine;
  bool Bound = false, Store = false, Failed = false, AllDefaultSafe = true;
  for (const IndexUse &U : Uses) {
    if (!U.Index.loads(Source))
      continue;
    std::string Label = U.Access + " (" + U.Where + ")";
    auto Fail = [&](const std::string &Why) {
      if (!Failed)
        R.Why = "its values index " + Label + ": " + Why;
      Failed = true;
    };
    std::string Opaque = U.Index.opaqueWhy(Source);
    if (!Opaque.empty()) {
      Fail(Opaque);
      continue;
    }
    std::set<unsigned> Others;
    U.Index.loadedParams(Others);
    Others.erase(Source);
    std::string Unranged;
    for (unsigned O : Others)
      if (!Env.Loads.count(O) && Unranged.empty())
        Unranged = Name(O);
    if (!Unranged.empty()) {
      Fail("it also depends on the values of '" + Unranged +
           "', which are not integers in a known range");
      continue;
    }
    auto CI = Counts.find(U.Target);
    if (CI == Counts.end() || CI->second == 0) {
      Fail("the size of '" + Name(U.Target) + "' is not known");
      continue;
    }
    I128 Last = I128(CI->second) - 1;
    auto At = [&](int64_t Lo, int64_t Hi, IndexInterval &Out,
                  std::string &Why) {
      Env.Loads[Source] = {Lo, Hi};
      return indexInterval(U.Index, Env, Out, Why);
    };
    // Probe: affine in the ends of the range?
    std::string Why;
    IndexInterval P00, P01, P11;
    if (!At(0, 0, P00, Why) || !At(0, 1, P01, Why) || !At(1, 1, P11, Why)) {
      Fail(Why);
      continue;
    }
    Affine2 Mn{P00.Lo, I128(P11.Lo) - P01.Lo, I128(P01.Lo) - P00.Lo};
    Affine2 Mx{P00.Hi, I128(P11.Hi) - P01.Hi, I128(P01.Hi) - P00.Hi};
    bool Affine = true;
    static const std::pair<int64_t, int64_t> Probes[] = {
        {0, 1000}, {1000, 1000}, {37, 4099}, {-500, -3}, {-7, 65536}};
    for (auto [Lo, Hi] : Probes) {
      IndexInterval P;
      if (!At(Lo, Hi, P, Why) || Mn.at(Lo, Hi) != P.Lo ||
          Mx.at(Lo, Hi) != P.Hi) {
        Affine = false;
        break;
      }
    }
    if (!Affine) {
      // Not affine (a remainder, a shift): acceptable only when the
      // default values keep it in bounds (checked again below with the
      // range chosen).
      IndexInterval P;
      std::string W;
      if (At(Default.Lo, Default.Hi, P, W) && P.Lo >= 0 && P.Hi <= Last) {
        NonAffine.push_back({&U, Last});
        continue;
      }
      Fail("not an affine function of the values, and the default range "
           "int(" + std::to_string(Default.Lo) + ", " +
           std::to_string(Default.Hi) + ") leaves it out of bounds");
      continue;
    }
    AllDefaultSafe = false;
    bool Constrains = false;
    // Smallest index >= 0.
    if (Mn.A == 0 && Mn.B == 0) {
      if (Mn.C < 0) {
        Fail("below 0 whatever the values");
        continue;
      }
    } else if (Mn.A > 0 && Mn.B == 0) {
      I128 L = ceilDiv(-Mn.C, Mn.A);
      LoBound = LoBound ? std::max(*LoBound, L) : L;
      Constrains = true;
    } else if (Mn.A == 0 && Mn.B < 0) {
      I128 H = floorDiv(Mn.C, -Mn.B);
      HiBound = HiBound ? std::min(*HiBound, H) : H;
      Constrains = true;
    } else {
      Fail("its smallest value depends on both ends of the range");
      continue;
    }
    // Largest index <= count - 1.
    if (Mx.A == 0 && Mx.B == 0) {
      if (Mx.C > Last) {
        Fail("past the end of '" + Name(U.Target) + "' whatever the values");
        continue;
      }
    } else if (Mx.B > 0 && Mx.A == 0) {
      I128 H = floorDiv(Last - Mx.C, Mx.B);
      HiBound = HiBound ? std::min(*HiBound, H) : H;
      Constrains = true;
    } else if (Mx.B == 0 && Mx.A < 0) {
      I128 L = ceilDiv(Mx.C - Last, -Mx.A);
      LoBound = LoBound ? std::max(*LoBound, L) : L;
      Constrains = true;
    } else {
      Fail("its largest value depends on both ends of the range");
      continue;
    }
    if (Constrains) {
      R.Uses.push_back(Label);
      Bound |= U.Index.loads(Source, /*InBound=*/true);
      Store |= U.Write;
    }
  }
  if (Failed)
    return R;
  if (R.Uses.empty()) {
    R.DefaultSafe = AllDefaultSafe;
    R.Lo = Default.Lo;
    R.Hi = Default.Hi;
    return R;
  }
  I128 Lo = LoBound ? *LoBound : std::min<I128>(Default.Lo, HiBound ? *HiBound : Default.Lo);
  I128 Hi = HiBound ? *HiBound : std::max<I128>(Default.Hi, Lo);
  Lo = std::max<I128>(Lo, TypeRange.Lo);
  Hi = std::min<I128>(Hi, TypeRange.Hi);
  if (Lo > Hi) {
    R.Why = "no value keeps every index in bounds (" + R.Uses.front() +
            (R.Uses.size() > 1 ? " and others" : "") + ")";
    R.Uses.clear();
    return R;
  }
  // The uses that are not affine were checked with the default values
  // only: a wider range must keep them in bounds too, else it is narrowed
  // to the default's (inside which they stay: interval evaluation only
  // narrows with its inputs).
  for (const auto &[U, Last] : NonAffine) {
    IndexInterval P;
    std::string W;
    Env.Loads[Source] = {int64_t(Lo), int64_t(Hi)};
    if (indexInterval(U->Index, Env, P, W) && P.Lo >= 0 && P.Hi <= Last)
      continue;
    I128 L2 = std::max<I128>(Lo, Default.Lo), H2 = std::min<I128>(Hi, Default.Hi);
    if (L2 > H2) {
      R.Why = "no value keeps every index in bounds (" + R.Uses.front() +
              " and " + U->Access + " (" + U->Where + "))";
      R.Uses.clear();
      return R;
    }
    Lo = L2;
    Hi = H2;
    R.Note = "narrowed to the default range to keep " + U->Access + " (" +
             U->Where + ") in bounds";
  }
  R.Derived = true;
  R.Lo = int64_t(Lo);
  R.Hi = int64_t(Hi);
  if (Bound) {
    R.Kind = Distribution::Sorted;
  } else if (Store) {
    if (uint64_t(Hi - Lo) + 1 >= SourceCount)
      R.Kind = Distribution::Distinct;
    else
      R.Note += std::string(R.Note.empty() ? "" : "; ") +
                "fewer values than elements: stores through them may "
                "collide";
  }
  return R;
}

} // namespace cudal1
