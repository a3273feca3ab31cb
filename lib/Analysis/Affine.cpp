//===- Affine.cpp - symbolic index expressions and warp access math -------===//
#include "cudal1/Analysis/Affine.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace cudal1 {

namespace {
bool mulOv(int64_t A, int64_t B, int64_t &R) {
  return __builtin_mul_overflow(A, B, &R);
}
bool addOv(int64_t A, int64_t B, int64_t &R) {
  return __builtin_add_overflow(A, B, &R);
}
int64_t floorDiv(int64_t A, int64_t B) {
  int64_t Q = A / B;
  if ((A % B != 0) && ((A < 0) != (B < 0)))
    --Q;
  return Q;
}
int64_t floorMod(int64_t A, int64_t B) { return A - floorDiv(A, B) * B; }
} // namespace

AffineExpr AffineExpr::constant(int64_t C) {
  AffineExpr E;
  E.addTerm({}, C);
  return E;
}
AffineExpr AffineExpr::symbol(const std::string &Name) {
  AffineExpr E;
  E.addTerm({Name}, 1);
  return E;
}
AffineExpr AffineExpr::unknown() {
  AffineExpr E;
  E.Known = false;
  return E;
}

void AffineExpr::addTerm(const Monomial &M, int64_t C) {
  if (!Known || C == 0)
    return;
  auto It = Terms.find(M);
  if (It == Terms.end()) {
    Terms.emplace(M, C);
    return;
  }
  int64_t R;
  if (addOv(It->second, C, R)) {
    Known = false;
    Terms.clear();
    return;
  }
  if (R == 0)
    Terms.erase(It);
  else
    It->second = R;
}

bool AffineExpr::isConstant() const {
  return Known && (Terms.empty() || (Terms.size() == 1 &&
                                     Terms.begin()->first.empty()));
}
std::optional<int64_t> AffineExpr::constantValue() const {
  if (!isConstant())
    return std::nullopt;
  return constantTerm();
}
int64_t AffineExpr::constantTerm() const {
  auto It = Terms.find({});
  return It == Terms.end() ? 0 : It->second;
}
bool AffineExpr::isAffine() const {
  if (!Known)
    return false;
  for (auto &T : Terms)
    if (T.first.size() > 1)
      return false;
  return true;
}

AffineExpr AffineExpr::operator+(const AffineExpr &O) const {
  if (!Known || !O.Known)
    return unknown();
  AffineExpr R = *this;
  for (auto &T : O.Terms)
    R.addTerm(T.first, T.second);
  return R;
}
AffineExpr AffineExpr::operator-() const {
  if (!Known)
    return unknown();
  AffineExpr R;
  for (auto &T : Terms) {
    if (T.second == INT64_MIN)
      return unknown();
    R.addTerm(T.first, -T.second);
  }
  return R;
}
AffineExpr AffineExpr::operator-(const AffineExpr &O) const {
  return *this + (-O);
}
AffineExpr AffineExpr::operator*(const AffineExpr &O) const {
  if (!Known || !O.Known)
    return unknown();
  AffineExpr R;
  for (auto &A : Terms)
    for (auto &B : O.Terms) {
      Monomial M = A.first;
      M.insert(M.end(), B.first.begin(), B.first.end());
      std::sort(M.begin(), M.end());
      if (M.size() > 6)
        return unknown();
      int64_t C;
      if (mulOv(A.second, B.second, C))
        return unknown();
      R.addTerm(M, C);
      if (!R.Known)
        return unknown();
    }
  return R;
}

AffineExpr AffineExpr::coefficientOf(const std::string &Sym) const {
  if (!Known)
    return unknown();
  AffineExpr R;
  for (auto &T : Terms) {
    auto N = std::count(T.first.begin(), T.first.end(), Sym);
    if (N == 0)
      continue;
    if (N > 1)
      return unknown();
    Monomial M = T.first;
    M.erase(std::find(M.begin(), M.end(), Sym));
    R.addTerm(M, T.second);
  }
  return R;
}

AffineExpr AffineExpr::substitute(const std::string &Sym,
                                  const AffineExpr &Value) const {
  if (!Known)
    return unknown();
  AffineExpr R;
  for (auto &T : Terms) {
    AffineExpr Term = constant(T.second);
    for (const std::string &S : T.first)
      Term = Term * (S == Sym ? Value : symbol(S));
    R = R + Term;
  }
  return R;
}

std::set<std::string> AffineExpr::symbols() const {
  std::set<std::string> S;
  for (auto &T : Terms)
    S.insert(T.first.begin(), T.first.end());
  return S;
}

bool AffineExpr::dependsOn(
    const std::function<bool(const std::string &)> &Pred) const {
  for (auto &T : Terms)
    for (auto &S : T.first)
      if (Pred(S))
        return true;
  return false;
}

bool AffineExpr::dependsOnThread() const { return dependsOn(isThreadSymbol); }

bool isThreadSymbol(const std::string &Sym) {
  return Sym.rfind("threadIdx.", 0) == 0;
}

std::string displaySymbol(const std::string &Sym) {
  std::string S = Sym;
  auto At = S.rfind('@');
  if (At != std::string::npos)
    S = S.substr(0, At);
  if (S.size() >= 2 && S.front() == '{' && S.back() == '}')
    S = "(" + S.substr(1, S.size() - 2) + ")";
  return S;
}

std::string AffineExpr::str() const {
  if (!Known)
    return "unknown";
  if (Terms.empty())
    return "0";
  // Constant last, then terms in a stable order (thread terms last reads
  // naturally: blockIdx.x*blockDim.x + threadIdx.x).
  std::vector<std::pair<Monomial, int64_t>> Ts(Terms.begin(), Terms.end());
  auto Rank = [](const Monomial &M) {
    if (M.empty())
      return 3;
    for (auto &S : M)
      if (isThreadSymbol(S))
        return 2;
    return 1;
  };
  std::stable_sort(Ts.begin(), Ts.end(), [&](const auto &A, const auto &B) {
    return Rank(A.first) < Rank(B.first);
  });
  std::ostringstream OS;
  bool First = true;
  for (auto &[M, C] : Ts) {
    int64_t Abs = C < 0 ? -C : C;
    if (First)
      OS << (C < 0 ? "-" : "");
    else
      OS << (C < 0 ? " - " : " + ");
    First = false;
    bool NeedStar = false;
    if (Abs != 1 || M.empty()) {
      OS << Abs;
      NeedStar = true;
    }
    // Keep the symbols' order as written by the user where possible:
    // blockIdx before blockDim reads "blockIdx.x*blockDim.x".
    Monomial Sorted = M;
    std::stable_sort(Sorted.begin(), Sorted.end(),
                     [](const std::string &A, const std::string &B) {
                       auto K = [](const std::string &S) {
                         if (S.rfind("blockIdx.", 0) == 0)
                           return 0;
                         if (S.rfind("blockDim.", 0) == 0)
                           return 1;
                         if (S.rfind("gridDim.", 0) == 0)
                           return 2;
                         if (isThreadSymbol(S))
                           return 4;
                         return 3;
                       };
                       return K(A) < K(B);
                     });
    for (auto &S : Sorted) {
      OS << (NeedStar ? "*" : "") << displaySymbol(S);
      NeedStar = true;
    }
  }
  return OS.str();
}

const char *toString(AccessClass C) {
  switch (C) {
  case AccessClass::Coalesced:
    return "coalesced";
  case AccessClass::Strided:
    return "strided";
  case AccessClass::Uncoalesced:
    return "uncoalesced";
  case AccessClass::Broadcast:
    return "broadcast";
  case AccessClass::Unknown:
    return "unknown";
  }
  return "unknown";
}

std::array<std::array<int64_t, 3>, 32> warpLanes(const BlockShape &Block,
                                                 std::string &Assumption) {
  std::array<std::array<int64_t, 3>, 32> L{};
  unsigned BX = Block[0], BY = Block[1];
  if (BX == 0) {
    Assumption = "block shape unknown at the launch sites: a warp is taken "
                 "as 32 consecutive threadIdx.x";
    BX = 32;
  }
  for (int64_t Lane = 0; Lane < 32; ++Lane) {
    if (BX >= 32) {
      L[Lane] = {Lane, 0, 0};
      continue;
    }
    int64_t TY = Lane / BX;
    int64_t TZ = 0;
    if (BY != 0) {
      TZ = TY / BY;
      TY = TY % BY;
    }
    L[Lane] = {Lane % BX, TY, TZ};
  }
  return L;
}

static const char *const ThreadSyms[3] = {"threadIdx.x", "threadIdx.y",
                                          "threadIdx.z"};

WarpRequest analyzeGlobalRequest(const AffineExpr &Addr, unsigned AccessBytes,
                                 unsigned ElemBytes, const BlockShape &Block) {
  WarpRequest R;
  if (AccessBytes == 0)
    AccessBytes = 1;
  if (ElemBytes == 0)
    ElemBytes = AccessBytes;
  R.IdealSectors = std::max(1u, (32 * AccessBytes + 31) / 32);
  if (!Addr.isKnown()) {
    R.Why = "the address is not an analysable function of the thread index";
    return R;
  }
  AffineExpr Const[3], Sym[3];
  for (int D = 0; D < 3; ++D) {
    AffineExpr C = Addr.coefficientOf(ThreadSyms[D]);
    if (!C.isKnown() || C.dependsOnThread()) {
      R.Why = "the address is not linear in the thread index";
      return R;
    }
    Const[D] = AffineExpr::constant(C.constantTerm());
    Sym[D] = C - Const[D];
  }
  std::string Assumption;
  auto Lanes = warpLanes(Block, Assumption);
  bool UsesYZ = !(Const[1] == AffineExpr() && Sym[1] == AffineExpr() &&
                  Const[2] == AffineExpr() && Sym[2] == AffineExpr());
  if (UsesYZ || Block[0] == 0)
    R.Assumption = Assumption;
  // Group lanes by the thread coordinates that multiply symbolic strides:
  // different groups are taken to lie in different sectors (the condition).
  std::map<std::vector<int64_t>, std::set<int64_t>> Groups;
  std::set<int64_t> AllOffsets;
  bool AnySym = false;
  for (auto &T : Lanes) {
    std::vector<int64_t> Key;
    int64_t Off = 0;
    for (int D = 0; D < 3; ++D) {
      if (Sym[D] != AffineExpr()) {
        Key.push_back(T[D]);
        if (T[D] != 0 || true)
          AnySym = AnySym || true;
      }
      int64_t P;
      if (mulOv(Const[D].constantTerm(), T[D], P) || addOv(Off, P, Off)) {
        R.Why = "index arithmetic overflows";
        return R;
      }
    }
    AllOffsets.insert(Off);
    auto &Set = Groups[Key];
    for (int64_t B = 0; B < (int64_t)AccessBytes; B += 32)
      Set.insert(floorDiv(Off + B, 32));
    Set.insert(floorDiv(Off + AccessBytes - 1, 32));
  }
  unsigned Sectors = 0;
  for (auto &G : Groups)
    Sectors += G.second.size();
  bool SymUsed = Groups.size() > 1;
  (void)AnySym;
  R.Sectors = Sectors;
  R.Factor = double(Sectors) / double(R.IdealSectors);

  // Stride along x, in elements.
  AffineExpr SX = Const[0] + Sym[0];
  if (auto C = SX.constantValue()) {
    if (*C % ElemBytes == 0)
      R.StrideElems = *C / ElemBytes;
    R.StrideText = R.StrideElems ? std::to_string(*R.StrideElems)
                                 : std::to_string(*C) + " bytes";
  } else {
    // Divide the symbolic stride by the element size when exact.
    AffineExpr Q;
    bool Exact = true;
    for (auto &T : SX.terms()) {
      if (T.second % (int64_t)ElemBytes) {
        Exact = false;
        break;
      }
      AffineExpr M = AffineExpr::constant(T.second / ElemBytes);
      for (auto &S : T.first)
        M = M * AffineExpr::symbol(S);
      Q = Q + M;
    }
    R.StrideText = Exact ? Q.str() : SX.str() + " bytes";
  }

  if (AllOffsets.size() == 1 && !SymUsed) {
    R.Class = AccessClass::Broadcast;
    R.Sectors = 1;
    R.Factor = 1.0 / R.IdealSectors;
    return R;
  }
  if (Sectors <= R.IdealSectors) {
    R.Class = AccessClass::Coalesced;
    return R;
  }
  if (SymUsed) {
    R.Class = AccessClass::Uncoalesced;
    R.Condition = "when the symbolic stride spans at least 32 bytes";
    return R;
  }
  R.Class = AccessClass::Strided;
  return R;
}

BankResult analyzeSharedRequest(const AffineExpr &Addr, unsigned AccessBytes,
                                const BlockShape &Block) {
  BankResult R;
  if (AccessBytes == 0)
    AccessBytes = 1;
  if (!Addr.isKnown()) {
    R.Why = "the address is not an analysable function of the thread index";
    return R;
  }
  int64_t C[3];
  for (int D = 0; D < 3; ++D) {
    AffineExpr Co = Addr.coefficientOf(ThreadSyms[D]);
    auto V = Co.constantValue();
    if (!V) {
      R.Why = "the stride between threads is not a constant";
      return R;
    }
    C[D] = *V;
  }
  if (AccessBytes > 16) {
    R.Why = "accesses wider than 16 bytes";
    return R;
  }
  std::string Assumption;
  auto Lanes = warpLanes(Block, Assumption);
  if (C[1] != 0 || C[2] != 0 || Block[0] == 0)
    R.Assumption = Assumption;
  unsigned LanesPerPhase = AccessBytes <= 4 ? 32 : 128 / AccessBytes;
  R.Ways = 1;
  for (unsigned Start = 0; Start < 32; Start += LanesPerPhase) {
    std::map<int64_t, std::set<int64_t>> Banks;
    for (unsigned L = Start; L < Start + LanesPerPhase; ++L) {
      int64_t Off = C[0] * Lanes[L][0] + C[1] * Lanes[L][1] +
                    C[2] * Lanes[L][2];
      for (int64_t W = floorDiv(Off, 4);
           W <= floorDiv(Off + AccessBytes - 1, 4); ++W)
        Banks[floorMod(W, 32)].insert(W);
    }
    unsigned Ways = 1;
    for (auto &B : Banks)
      Ways = std::max<unsigned>(Ways, B.second.size());
    R.Wavefronts += Ways;
    R.Ideal += 1;
    R.Ways = std::max(R.Ways, Ways);
  }
  if (C[0] % 4 == 0)
    R.StrideWords = C[0] / 4;
  R.Known = true;
  return R;
}

} // namespace cudal1
