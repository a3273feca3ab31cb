//===- LaunchPointers.cpp - pointer arguments of a launch and their allocations -===//
//
// A pointer argument is followed back to the allocation it points into:
// through assignments and initialisations of local variables (the last one
// before the use), host function parameters (the caller's argument),
// `p + k` and `&p[k]` (an offset), small functions returning a pointer, and
// the `&p` argument of cudaMalloc* or of a wrapper function around it (also
// when a CHECK macro surrounds the call: the AST holds the call either way),
// and elements of host arrays of device pointers (`cudaMalloc(&d[k], n)` in
// a counted loop, `d[0]` at the launch).
// The allocation's byte count is evaluated like every other value. Host
// copies (cudaMemcpy host-to-device or device-to-device, cudaMemset) into
// the pointer's variable before the launch mark the buffer as initialised.
//
//===----------------------------------------------------------------------===//
#include "LaunchEval.h"

#include "llvm/Support/FormatVariadic.h"

#include <functional>
#include <optional>

using namespace clang;
using namespace llvm;

namespace cudal1 {

using launcheval::Frame;
using launcheval::PtrVal;
using launcheval::Val;

namespace {

/// Two byte counts known to be equal: the same number, or the same
/// expression over unknown names.
bool sameBytes(const Val &A, const Val &B) {
  if (A.Kind == Val::Int && B.Kind == Val::Int)
    return A.I.getBitWidth() <= 64 && B.I.getBitWidth() <= 64 &&
           A.I.getZExtValue() == B.I.getZExtValue();
  return A.Kind == Val::Sym && B.Kind == Val::Sym && A.Text == B.Text;
}

bool isAllocation(StringRef N) {
  return N == "cudaMalloc" || N == "cudaMallocManaged" ||
         N == "cudaMallocAsync" || N == "cudaMallocFromPoolAsync" ||
         N == "cudaMallocHost" || N == "cudaHostAlloc";
}

bool isPitched(StringRef N) {
  return N == "cudaMallocPitch" || N == "cudaMalloc3D" ||
         N == "cudaMallocArray" || N == "cudaMalloc3DArray";
}

StringRef calleeName(const CallExpr *C) {
  const FunctionDecl *FD = C->getDirectCallee();
  return FD && FD->getIdentifier() ? FD->getName() : StringRef();
}

/// The variable \p E names, through parentheses and casts.
const VarDecl *refVar(const Expr *E) {
  if (!E)
    return nullptr;
  if (const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenCasts()))
    return dyn_cast<VarDecl>(D->getDecl());
  return nullptr;
}

/// The variable whose address \p E is: `&p`, `(void **)&p`.
const VarDecl *addrOfVar(const Expr *E) {
  if (const auto *U = dyn_cast<UnaryOperator>(E->IgnoreParenCasts()))
    if (U->getOpcode() == UO_AddrOf)
      return refVar(U->getSubExpr());
  return nullptr;
}

/// The variable a pointer expression is based on: p, p + k, &p[k], (T *)p.
const VarDecl *baseVar(const Expr *E) {
  E = E->IgnoreParenCasts();
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    if (B->isAdditiveOp())
      return baseVar(B->getLHS()->getType()->isPointerType() ? B->getLHS()
                                                              : B->getRHS());
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    if (U->getOpcode() == UO_AddrOf)
      if (const auto *A =
              dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParens()))
        return baseVar(A->getBase());
  return refVar(E);
}

/// The host variable whose start \p E is: `h`, `&h[0]` (an array's
/// subscript or a class's operator[]); null otherwise.
const VarDecl *hostObjectAtStart(ASTContext &Ctx, const Expr *E) {
  E = E->IgnoreParenCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_AddrOf) {
    const Expr *Sub = U->getSubExpr()->IgnoreParens();
    const Expr *Base = nullptr, *Idx = nullptr;
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(Sub)) {
      Base = A->getBase();
      Idx = A->getIdx();
    } else if (const auto *O = dyn_cast<CXXOperatorCallExpr>(Sub);
               O && O->getOperator() == OO_Subscript && O->getNumArgs() == 2) {
      Base = O->getArg(0);
      Idx = O->getArg(1);
    }
    Expr::EvalResult R;
    if (!Base || !Idx->EvaluateAsInt(R, Ctx) || R.Val.getInt() != 0)
      return nullptr;
    E = Base->IgnoreParenCasts();
  }
  const auto *D = dyn_cast<DeclRefExpr>(E);
  return D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
}

/// \p E names a host array (`shape`, `&shape[0]`, `(void *)shape`) that is
/// `const`, of a constant size up to 256 elements of arithmetic type, every
/// one given a constant by its initialiser: that array, with its values in
/// \p Out (elements the initialiser leaves out are zero). Null otherwise.
const VarDecl *constantHostArray(ASTContext &Ctx, const Expr *E,
                                 std::vector<double> &Out) {
  Out.clear();
  const VarDecl *VD = hostObjectAtStart(Ctx, E);
  const ConstantArrayType *AT =
      VD ? Ctx.getAsConstantArrayType(VD->getType()) : nullptr;
  const Expr *Init = VD ? VD->getInit() : nullptr;
  const auto *IL = Init ? dyn_cast<InitListExpr>(Init->IgnoreImplicit())
                        : nullptr;
  if (!AT || !IL || !AT->getElementType().isConstQualified() ||
      !AT->getElementType()->isArithmeticType() ||
      AT->getSize().getZExtValue() == 0 || AT->getSize().getZExtValue() > 256)
    return nullptr;
  uint64_t N = AT->getSize().getZExtValue();
  for (uint64_t I = 0; I < N; ++I) {
    if (I >= IL->getNumInits()) {
      Out.push_back(0);
      continue;
    }
    Expr::EvalResult R;
    const Expr *X = IL->getInit(unsigned(I));
    if (X->isValueDependent() || !X->EvaluateAsRValue(R, Ctx)) {
      Out.clear();
      return nullptr;
    }
    if (R.Val.isInt()) {
      // As the element type says (a uint8_t 0xC0 is 192), and exactly.
      const llvm::APSInt &V = R.Val.getInt();
      if ((V.isUnsigned() ? V.getActiveBits() : V.getSignificantBits()) >
          53) {
        Out.clear();
        return nullptr;
      }
      Out.push_back(double(V.getExtValue()));
    } else if (R.Val.isFloat())
      Out.push_back(R.Val.getFloat().convertToDouble());
    else {
      Out.clear();
      return nullptr;
    }
  }
  return VD;
}

/// A place where a pointer variable gets its value.
struct PtrDef {
  const Stmt *S = nullptr;     ///< for ordering
  const Expr *Value = nullptr; ///< initialiser / assigned value
  const CallExpr *Call = nullptr;
  unsigned Arg = 0; ///< Call's argument that is `&p` (or p by reference)
};

bool bindsNonConstRef(const CallExpr *C, unsigned I) {
  const FunctionDecl *FD = C->getDirectCallee();
  if (!FD || I >= FD->getNumParams())
    return false;
  QualType T = FD->getParamDecl(I)->getType();
  return T->isLValueReferenceType() &&
         !T.getNonReferenceType().isConstQualified();
}

void pointerDefs(const Stmt *S, const VarDecl *VD, std::vector<PtrDef> &Out) {
  if (!S)
    return;
  if (const auto *B = dyn_cast<BinaryOperator>(S)) {
    if (B->getOpcode() == BO_Assign && refVar(B->getLHS()) == VD)
      Out.push_back({B, B->getRHS(), nullptr, 0});
  } else if (const auto *C = dyn_cast<CallExpr>(S)) {
    for (unsigned I = 0; I < C->getNumArgs(); ++I)
      if (addrOfVar(C->getArg(I)) == VD ||
          (refVar(C->getArg(I)) == VD && bindsNonConstRef(C, I)))
        Out.push_back({C, nullptr, C, I});
  }
  for (const Stmt *Ch : S->children())
    pointerDefs(Ch, VD, Out);
}

void collectCalls(const Stmt *S, std::vector<const CallExpr *> &Out) {
  if (!S)
    return;
  if (const auto *C = dyn_cast<CallExpr>(S))
    Out.push_back(C);
  for (const Stmt *Ch : S->children())
    collectCalls(Ch, Out);
}

void collectReturns(const Stmt *S, std::vector<const ReturnStmt *> &Out) {
  if (!S || isa<LambdaExpr>(S))
    return;
  if (const auto *R = dyn_cast<ReturnStmt>(S))
    Out.push_back(R);
  for (const Stmt *Ch : S->children())
    collectReturns(Ch, Out);
}

/// `*p = v` (p a pointer to pointer) or `p = v` (p a reference).
void outParamStores(const Stmt *S, const ParmVarDecl *PV,
                    std::vector<const BinaryOperator *> &Out) {
  if (!S)
    return;
  if (const auto *B = dyn_cast<BinaryOperator>(S))
    if (B->getOpcode() == BO_Assign) {
      const Expr *L = B->getLHS()->IgnoreParenImpCasts();
      if (const auto *U = dyn_cast<UnaryOperator>(L))
        if (U->getOpcode() == UO_Deref && refVar(U->getSubExpr()) == PV)
          Out.push_back(B);
      if (PV->getType()->isReferenceType() && refVar(L) == PV)
        Out.push_back(B);
    }
  for (const Stmt *Ch : S->children())
    outParamStores(Ch, PV, Out);
}

Val ptrOf(PtrVal P) {
  Val V;
  V.Kind = Val::Ptr;
  V.P = std::make_shared<PtrVal>(std::move(P));
  return V;
}

/// Calls that allocate element \p C of host array \p VD: `cudaMalloc(&VD[E],
/// ...)` (any call taking `&VD[E]`) where E is C, or the counter of loops
/// around the call (`for (k = a; k < b; ++k)`, a <= C < b, the bounds
/// given by \p Bounds).
struct ElementAlloc {
  const CallExpr *Call;
  unsigned Arg;
};
void elementAllocs(
    const Stmt *S, const VarDecl *VD, int64_t C,
    const std::function<std::optional<int64_t>(const Expr *, const Stmt *)>
        &IntAt,
    std::vector<std::pair<const VarDecl *, std::pair<int64_t, int64_t>>> &Loops,
    std::vector<ElementAlloc> &Out) {
  if (!S)
    return;
  if (const auto *F = dyn_cast<ForStmt>(S)) {
    const VarDecl *IV = nullptr;
    std::optional<int64_t> Lo, Hi;
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit());
        DS && DS->isSingleDecl())
      if (const auto *V = dyn_cast<VarDecl>(DS->getSingleDecl());
          V && V->getInit()) {
        IV = V;
        Lo = IntAt(V->getInit(), F);
      }
    if (const auto *B = dyn_cast_or_null<BinaryOperator>(F->getCond()))
      if (IV && refVar(B->getLHS()) == IV &&
          (B->getOpcode() == BO_LT || B->getOpcode() == BO_LE)) {
        Hi = IntAt(B->getRHS(), F);
        if (Hi && B->getOpcode() == BO_LE)
          ++*Hi;
      }
    bool Up = false;
    if (const auto *U = dyn_cast_or_null<UnaryOperator>(F->getInc()))
      Up = U->isIncrementOp() && refVar(U->getSubExpr()) == IV;
    bool Pushed = IV && Lo && Hi && Up;
    if (Pushed)
      Loops.push_back({IV, {*Lo, *Hi}});
    elementAllocs(F->getBody(), VD, C, IntAt, Loops, Out);
    if (Pushed)
      Loops.pop_back();
    return;
  }
  if (const auto *CE = dyn_cast<CallExpr>(S))
    for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
      const auto *U = dyn_cast<UnaryOperator>(CE->getArg(I)->IgnoreParenCasts());
      if (!U || U->getOpcode() != UO_AddrOf)
        continue;
      const auto *A =
          dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParens());
      if (!A || refVar(A->getBase()) != VD)
        continue;
      bool Match = false;
      if (const VarDecl *K = refVar(A->getIdx())) {
        for (const auto &L : Loops)
          if (L.first == K)
            Match = L.second.first <= C && C < L.second.second;
      } else if (auto V = IntAt(A->getIdx(), CE)) {
        Match = *V == C;
      }
      if (Match)
        Out.push_back({CE, I});
    }
  for (const Stmt *Ch : S->children())
    elementAllocs(Ch, VD, C, IntAt, Loops, Out);
}

} // namespace

Val LaunchEvaluator::Impl::offsetBy(Val Base, Val Elements, QualType Pointee) {
  if (Base.Kind != Val::Ptr)
    return Base;
  if (Base.P->Null)
    return Val::unknown("an offset from a null pointer");
  if (Pointee->isIncompleteType() || Pointee->isDependentType())
    return Val::unknown("an offset into a pointer of unknown element size");
  int64_t Size = Ctx.getTypeSizeInChars(Pointee).getQuantity();
  Val Off = Base.P->Offset;
  Val Add;
  if (Elements.Kind == Val::Int) {
    Add = Val::ofInt64(Elements.I.getSExtValue() * Size);
  } else if (Elements.Kind == Val::Sym && !Elements.SymFloat) {
    Add = Val::sym("(" + Elements.Text + " * " + std::to_string(Size) + ")",
                   false);
  } else {
    return Val::unknown("the offset '" +
                        (Elements.Why.empty() ? "?" : Elements.Why) +
                        "' into the buffer is not known");
  }
  PtrVal P = *Base.P;
  if (Off.Kind == Val::Int && Add.Kind == Val::Int)
    P.Offset = Val::ofInt64(Off.I.getSExtValue() + Add.I.getSExtValue());
  else if (Off.Kind == Val::Int && Off.I == 0)
    P.Offset = Add;
  else
    P.Offset = Val::sym("(" + Off.text() + " + " + Add.text() + ")", false);
  Val R = ptrOf(std::move(P));
  R.How = Base.How;
  return R;
}

Val LaunchEvaluator::Impl::evalPointer(const Expr *E, const Frame &Fr) {
  E = E->IgnoreParens();
  if (const auto *C = dyn_cast<CastExpr>(E)) {
    if (C->getCastKind() == CK_NullToPointer) {
      // An optional buffer left out (`moe_softmax(..., nullptr, ...)`): the
      // harness passes a null pointer too.
      PtrVal P;
      P.Null = true;
      P.Bytes = Val::unknown("a null pointer");
      P.Offset = Val::ofInt64(0);
      P.Alloc = "a null pointer at " + where(C->getBeginLoc());
      return ptrOf(std::move(P));
    }
    return evalPointer(C->getSubExpr(), Fr);
  }
  if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *VD = dyn_cast<VarDecl>(D->getDecl()))
      return evalPointerVar(VD, D, Fr);
    return Val::unknown("'" + text(D) + "' is not a variable");
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    if (B->isAdditiveOp()) {
      bool LP = B->getLHS()->getType()->isPointerType();
      const Expr *PE = LP ? B->getLHS() : B->getRHS();
      Val Idx = eval(LP ? B->getRHS() : B->getLHS(), Fr);
      if (B->getOpcode() == BO_Sub && Idx.Kind == Val::Int)
        Idx.I = -Idx.I;
      else if (B->getOpcode() == BO_Sub)
        return Val::unknown("'" + text(B) + "' subtracts an unknown offset");
      return offsetBy(evalPointer(PE, Fr), Idx,
                      PE->getType()->getPointeeType());
    }
    if (B->getOpcode() == BO_Comma)
      return evalPointer(B->getRHS(), Fr);
  }
  if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
    // Ping-pong buffers (`(k % 2) ? d_prev : d_next`): a known condition
    // picks its side; otherwise, when both sides are allocations of known
    // sizes at the same offset, the kernel's accesses fit either (the
    // program passes both), so the smaller one stands for the argument.
    // (An unknown condition is not a value the harness needs: the names
    // its evaluation registered are taken back.)
    PathMark M = mark();
    Val C = eval(CO->getCond(), Fr);
    if (C.Kind == Val::Int)
      return evalPointer(C.I.isZero() ? CO->getFalseExpr()
                                      : CO->getTrueExpr(),
                         Fr);
    restore(M);
    Val T = evalPointer(CO->getTrueExpr(), Fr);
    Val F = evalPointer(CO->getFalseExpr(), Fr);
    for (const Val *V : {&T, &F})
      if (V->Kind != Val::Ptr)
        return Val::unknown(
            "'" + text(E) + "': the condition '" + text(CO->getCond()) +
            "' is not known and a side is not followed (" +
            (V->Kind == Val::Unknown ? V->Why : std::string("not a pointer")) +
            ")");
    const PtrVal &TP = *T.P, &FP = *F.P;
    if (TP.Bytes.Kind != Val::Int || FP.Bytes.Kind != Val::Int ||
        TP.Offset.Kind != Val::Int || FP.Offset.Kind != Val::Int ||
        TP.Offset.I.getSExtValue() != FP.Offset.I.getSExtValue())
      return Val::unknown("'" + text(E) + "': the condition '" +
                          text(CO->getCond()) +
                          "' is not known and the sizes of its two buffers "
                          "are not both known");
    int64_t TB = TP.Bytes.I.getSExtValue(), FB = FP.Bytes.I.getSExtValue();
    bool TakeFalse = FB < TB;
    Val R = TakeFalse ? F : T;
    auto P = std::make_shared<PtrVal>(TakeFalse ? FP : TP);
    // Host data on either side: the kernel may read it.
    const PtrVal &Other = TakeFalse ? TP : FP;
    if (!P->HostInit && Other.HostInit) {
      P->HostInit = true;
      P->HostInitHow = Other.HostInitHow + " (to the other side)";
    }
    P->Alloc += std::string(" (") +
                (TB == FB ? "both sides" : "the smaller side") +
                " of '" + text(E) + "'; the condition is not known)";
    R.P = P;
    return R;
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    if (U->getOpcode() == UO_AddrOf)
      if (const auto *A =
              dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParens()))
        return offsetBy(evalPointer(A->getBase(), Fr), eval(A->getIdx(), Fr),
                        A->getType());
  if (const auto *C = dyn_cast<CallExpr>(E)) {
    // A function returning a pointer (an allocating helper): its one
    // `return`, evaluated in the callee.
    const FunctionDecl *FD = C->getDirectCallee();
    const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
    std::vector<const ReturnStmt *> Rets;
    if (Def && !inSystemHeader(SM, Def->getLocation()))
      collectReturns(Def->getBody(), Rets);
    // `return NULL;` on a failed allocation: the run the harness makes is
    // the one where the allocation succeeds, so the other return counts.
    if (Rets.size() > 1)
      llvm::erase_if(Rets, [&](const ReturnStmt *R) {
        return R->getRetValue() &&
               R->getRetValue()->IgnoreParenImpCasts()->isNullPointerConstant(
                   Ctx, Expr::NPC_ValueDependentIsNotNull);
      });
    bool Recursive = false;
    for (const Frame *P = &Fr; P; P = P->Parent)
      Recursive |= P->F == Def;
    if (Rets.size() == 1 && Rets[0]->getRetValue() && !Recursive) {
      Frame Callee;
      Callee.F = Def;
      Callee.Call = C;
      Callee.Parent = &Fr;
      Callee.At = Rets[0];
      return evalPointer(Rets[0]->getRetValue(), Callee);
    }
  }
  if (const auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
    // An element of a host array of device pointers (`float *d[4]; for (k
    // ...) cudaMalloc(&d[k], n); kernel<<<...>>>(d[0], ...)`): the last
    // allocation of that element before the launch.
    const VarDecl *AV = refVar(A->getBase());
    // A parameter `float *d[2]` (`float **`) is the caller's array.
    const Frame *ArrFr = &Fr;
    const Expr *UseE = A;
    while (AV && isa<ParmVarDecl>(AV) && AV->getType()->isPointerType() &&
           AV->getType()->getPointeeType()->isPointerType()) {
      const Frame &PO = ownerFrame(AV, UseE, *ArrFr);
      unsigned I = cast<ParmVarDecl>(AV)->getFunctionScopeIndex();
      std::string Why;
      if (!PO.Parent || !PO.Call || I >= PO.Call->getNumArgs() ||
          !constantAt(AV, PO.F, PO.F == ArrFr->F ? ArrFr->At : PO.At, Why))
        break;
      const VarDecl *CA = refVar(PO.Call->getArg(I));
      if (!CA)
        break;
      UseE = PO.Call->getArg(I);
      ArrFr = PO.Parent;
      AV = CA;
    }
    if (AV && AV->getType()->isArrayType() && !AV->hasGlobalStorage()) {
      const Frame &Own = ownerFrame(AV, UseE, *ArrFr);
      const Stmt *At = Own.F == ArrFr->F ? ArrFr->At : Own.At;
      if (!Own.F || !Own.F->getBody())
        return Val::unknown("'" + AV->getNameAsString() + "' is not followed");
      auto IntAt = [&](const Expr *X, const Stmt *S) -> std::optional<int64_t> {
        Val V = eval(X, Own.at(S));
        if (V.Kind == Val::Int)
          return V.I.getSExtValue();
        return std::nullopt;
      };
      // The allocation of element C last before the launch.
      auto ElementVal = [&](int64_t C) -> std::optional<Val> {
        std::vector<std::pair<const VarDecl *, std::pair<int64_t, int64_t>>>
            Loops;
        std::vector<ElementAlloc> Allocs;
        elementAllocs(Own.F->getBody(), AV, C, IntAt, Loops, Allocs);
        const ElementAlloc *Last = nullptr;
        for (const ElementAlloc &EA : Allocs)
          if (!At || before(EA.Call, At))
            Last = &EA;
        if (!Last)
          return std::nullopt;
        return evalAllocCall(Last->Call, Last->Arg, Own.at(Last->Call));
      };
      Val Idx = eval(A->getIdx(), Fr);
      if (Idx.Kind != Val::Int) {
        // Any element (ping-pong buffers `d[src]`): when every element of
        // the array is allocated with the same byte count, that is the
        // buffer's size whichever one the index picks.
        const auto *CAT = Ctx.getAsConstantArrayType(AV->getType());
        uint64_t N = CAT ? CAT->getSize().getZExtValue() : 0;
        std::optional<Val> First;
        bool Same = N > 0 && N <= 64;
        for (uint64_t C = 0; Same && C < N; ++C) {
          std::optional<Val> V = ElementVal(int64_t(C));
          if (!V || V->Kind != Val::Ptr || V->P->Bytes.Kind != Val::Int) {
            Same = false;
          } else if (!First) {
            First = V;
          } else if (First->P->Bytes.I != V->P->Bytes.I) {
            Same = false;
          }
        }
        if (Same && First) {
          auto P = std::make_shared<PtrVal>(*First->P);
          P->Alloc += " (every element of '" + AV->getNameAsString() +
                      "' has this size; the index '" + text(A->getIdx()) +
                      "' is not known)";
          First->P = P;
          return *First;
        }
        return Val::unknown("'" + text(A) + "': the index into host array '" +
                            AV->getNameAsString() +
                            "' is not known (and its elements are not all "
                            "allocated with one known size)");
      }
      int64_t C = Idx.I.getSExtValue();
      std::optional<Val> V = ElementVal(C);
      if (!V)
        return Val::unknown("'" + text(A) + "': no allocation of element " +
                            std::to_string(C) + " of host array '" +
                            AV->getNameAsString() + "' before the launch");
      return *V;
    }
  }
  if (const auto *M = dyn_cast<MemberExpr>(E))
    return Val::unknown("'" + text(M) + "' is a member of a structure; the "
                        "tool follows variables only");
  return Val::unknown("'" + text(E) + "' is not a pointer the tool can "
                      "follow to its allocation");
}

Val LaunchEvaluator::Impl::evalPointerVar(const VarDecl *VD, const Expr *Use,
                                          const Frame &Fr) {
  std::string Name = "'" + VD->getNameAsString() + "'";
  if (VD->getType()->isArrayType())
    return Val::unknown(Name + " is an array in host memory");
  if (VD->hasGlobalStorage() && !VD->isStaticLocal()) {
    // A global pointer: its allocation in whichever function makes it.
    for (const FunctionDecl *F : globalUsers(VD)) {
      std::vector<PtrDef> Defs;
      pointerDefs(F->getBody(), VD, Defs);
      if (Defs.empty())
        continue;
      auto Root = std::make_unique<Frame>();
      Root->F = F;
      Root->At = Defs.back().S;
      Extra.push_back(std::move(Root));
      const Frame &R = *Extra.back();
      const PtrDef &D = Defs.back();
      Val V = D.Call ? evalAllocCall(D.Call, D.Arg, R.at(D.S))
                     : evalPointer(D.Value, R.at(D.S));
      findHostInit(VD, F, nullptr, V, R);
      return V;
    }
    return Val::unknown(Name + " is a global pointer that no function in "
                        "the files given sets");
  }
  const Frame &Own = ownerFrame(VD, Use, Fr);
  const Stmt *At = Own.F == Fr.F ? Fr.At : Own.At;
  if (!Own.F)
    return Val::unknown(Name + " is not followed");
  Val V;
  if (const auto *P = dyn_cast<ParmVarDecl>(VD)) {
    unsigned I = P->getFunctionScopeIndex();
    std::string Why;
    if (!constantAt(VD, Own.F, At, Why)) {
      V = Val::unknown(Why);
    } else if ((!Own.Parent || !Own.Call) && Own.Ext) {
      const ExternalCall &X = *Own.Ext;
      if (Own.Step >= 0)
        St->MaxStep = std::max(St->MaxStep, Own.Step);
      V = I < X.Args.size() ? importValue(X.Args[I], X, QualType())
                            : Val::unknown(Name + " is not passed by the "
                                                  "call at " + X.Where);
    } else if (!Own.Parent || !Own.Call || I >= Own.Call->getNumArgs()) {
      if (!Own.Parent || !Own.Call)
        noteUnreached(Own.F);
      V = Val::unknown(Name + ": a pointer parameter of " +
                       Own.F->getNameAsString() +
                       "(), which no call in the files given reaches");
    } else {
      if (Own.Step >= 0)
        St->MaxStep = std::max(St->MaxStep, Own.Step);
      V = evalPointer(Own.Call->getArg(I), *Own.Parent);
    }
  } else {
    std::vector<PtrDef> Defs;
    if (const Expr *Init = VD->getInit())
      if (!Init->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull))
        Defs.push_back({Init, Init, nullptr, 0});
    pointerDefs(Own.F->getBody(), VD, Defs);
    const PtrDef *Last = nullptr;
    for (const PtrDef &D : Defs)
      if (!At || before(D.S, At))
        Last = &D;
    if (!Last)
      return Val::unknown(Name + " is not allocated before the launch (at " +
                          where(At ? At->getBeginLoc() : VD->getLocation()) +
                          ")");
    V = Last->Call ? evalAllocCall(Last->Call, Last->Arg, Own.at(Last->S))
                   : evalPointer(Last->Value, Own.at(Last->S));
  }
  findHostInit(VD, Own.F, At, V, Own);
  return V;
}

Val LaunchEvaluator::Impl::evalAllocCall(const CallExpr *C, unsigned K,
                                         const Frame &Fr) {
  StringRef N = calleeName(C);
  std::string At = " at " + where(C->getBeginLoc());
  if (isAllocation(N)) {
    if (K != 0 || C->getNumArgs() < 2)
      return Val::unknown("'" + text(C) + "' is not an allocation of it");
    PtrVal P;
    P.Bytes = convert(eval(C->getArg(1), Fr.at(C)), Ctx.getSizeType());
    if (P.Bytes.Kind == Val::Unknown && P.Bytes.Why.empty())
      P.Bytes.Why = "the size of " + N.str() + At + " is not known";
    P.Offset = Val::ofInt64(0);
    P.Alloc = N.str() + At;
    if (N == "cudaMallocManaged") {
      P.HostInit = true;
      P.HostInitHow = "managed memory (the host may have written it)";
    }
    return ptrOf(std::move(P));
  }
  if (isPitched(N))
    return Val::unknown(N.str() + At + ": its pitch is chosen at run time");
  const FunctionDecl *FD = C->getDirectCallee();
  const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
  if (!Def || inSystemHeader(SM, Def->getLocation()) ||
      K >= Def->getNumParams())
    return Val::unknown("set by '" + text(C) + "'" + At);
  for (const Frame *P = &Fr; P; P = P->Parent)
    if (P->F == Def)
      return Val::unknown("'" + N.str() + "' is recursive");
  // A wrapper: where its out-parameter gets the allocation.
  const ParmVarDecl *PV = Def->getParamDecl(K);
  Frame Callee;
  Callee.F = Def;
  Callee.Call = C;
  Callee.Parent = &Fr;
  std::vector<const CallExpr *> Calls;
  collectCalls(Def->getBody(), Calls);
  bool ByRef = PV->getType()->isReferenceType();
  for (const CallExpr *IC : Calls)
    for (unsigned J = 0; J < IC->getNumArgs(); ++J) {
      const Expr *A = IC->getArg(J);
      if ((ByRef ? addrOfVar(A) : refVar(A)) != PV)
        continue;
      Val V = evalAllocCall(IC, J, Callee.at(IC));
      if (V.Kind == Val::Ptr)
        V.P->Alloc += " (in " + Def->getNameAsString() + "() called" + At + ")";
      return V;
    }
  std::vector<const BinaryOperator *> Stores;
  outParamStores(Def->getBody(), PV, Stores);
  if (!Stores.empty())
    return evalPointer(Stores.back()->getRHS(), Callee.at(Stores.back()));
  return Val::unknown("set by '" + text(C) + "'" + At +
                      ", in which the tool finds no allocation");
}

void LaunchEvaluator::Impl::findHostInit(const VarDecl *VD,
                                         const FunctionDecl *F, const Stmt *At,
                                         Val &V, const Frame &Fr) {
  if (V.Kind != Val::Ptr || V.P->Null || !F)
    return;
  std::vector<const CallExpr *> Calls;
  collectCalls(F->getBody(), Calls);
  // A call before the launch (a kernel launch among them) that is given
  // the buffer may change it after the host's fill: the fill's value is
  // then not the launch's. \p From: only calls after this one count.
  auto PassedOn = [&](const CallExpr *From) {
    if (!At)
      return true;
    for (const CallExpr *O : Calls) {
      if (O == From || (From && !before(From, O)) || !before(O, At))
        continue;
      StringRef N = calleeName(O);
      if (N == "cudaFree" || N.starts_with("cudaMemPrefetch"))
        continue;
      for (unsigned I = 0; I < O->getNumArgs(); ++I)
        if (baseVar(O->getArg(I)) == VD &&
            !(N.starts_with("cudaMemcpy") && I != 0))
          return true;
    }
    return false;
  };
  if (V.P->HostInit) {
    // Filled in a caller: this function may pass the buffer on first.
    if ((V.P->HostFill || V.P->HostSetByte) && PassedOn(nullptr)) {
      auto P = std::make_shared<PtrVal>(*V.P);
      P->HostFill.reset();
      P->HostSetByte.reset();
      V.P = P;
    }
    return;
  }
  // A copy or set that fills VD's buffer before the launch (or in a loop
  // around it): the function it calls, "" for any other call.
  auto IsCopy = [](StringRef N) {
    return N == "cudaMemcpy" || N == "cudaMemcpyAsync";
  };
  auto Fills = [&](const CallExpr *C) -> StringRef {
    if (C->getNumArgs() == 0 || baseVar(C->getArg(0)) != VD)
      return "";
    if (At && !before(C, At) && !inLoopAround(C, At, F))
      return "";
    StringRef N = calleeName(C);
    bool Copy = IsCopy(N);
    bool Copy2D = N == "cudaMemcpy2D" || N == "cudaMemcpy2DAsync";
    bool Set = N.starts_with("cudaMemset");
    if (!Copy && !Copy2D && !Set)
      return "";
    unsigned KindArg = Copy ? 3 : 6;
    if (!Set && C->getNumArgs() > KindArg) {
      Expr::EvalResult R;
      // cudaMemcpyDeviceToHost (2) writes host memory; every other kind
      // (host-to-device 1, device-to-device 3, default 4) fills this one.
      if (C->getArg(KindArg)->EvaluateAsInt(R, Ctx) &&
          R.Val.getInt().getExtValue() == 2)
        return "";
    }
    return N;
  };
  for (const CallExpr *C : Calls) {
    StringRef N = Fills(C);
    if (N.empty())
      continue;
    bool Copy = IsCopy(N);
    auto P = std::make_shared<PtrVal>(*V.P);
    P->HostInit = true;
    P->HostInitHow = N.str() + " at " + where(C->getBeginLoc());
    // A copy of a whole constant host array to the buffer's start: its
    // values (at most 256), named in the note.
    if (Copy && C->getNumArgs() >= 3 && P->Offset.Kind == Val::Int &&
        P->Offset.I == 0 && isa<DeclRefExpr>(C->getArg(0)->IgnoreParenCasts()))
      if (const VarDecl *Src =
              constantHostArray(Ctx, C->getArg(1), P->HostValues)) {
        Expr::EvalResult R;
        uint64_t Elem = Ctx.getTypeSizeInChars(
                               Ctx.getAsArrayType(Src->getType())
                                   ->getElementType())
                            .getQuantity();
        if (C->getArg(2)->EvaluateAsInt(R, Ctx) &&
            R.Val.getInt().getZExtValue() == Elem * P->HostValues.size())
          P->HostInitHow += " from the constant array '" +
                            Src->getNameAsString() + "'";
        else
          P->HostValues.clear();
        // Only when nothing else fills the buffer before the launch.
        for (const CallExpr *O : Calls)
          if (O != C && !Fills(O).empty())
            P->HostValues.clear();
      }
    // One value in every element: a memset of the whole buffer to zero, or
    // a copy of a host vector or array of one value; only when nothing
    // else fills the buffer and nothing is given it before the launch.
    bool Whole = P->Offset.Kind == Val::Int && P->Offset.I == 0;
    std::optional<double> Fill;
    std::optional<unsigned> SetByte;
    std::string FillHow;
    if (Whole && N.starts_with("cudaMemset") && !N.contains("2D") &&
        !N.contains("3D") && C->getNumArgs() >= 3) {
      Expr::EvalResult R;
      if (C->getArg(1)->EvaluateAsInt(R, Ctx) &&
          sameBytes(convert(eval(C->getArg(2), Fr.at(C)), Ctx.getSizeType()),
                    P->Bytes)) {
        SetByte = unsigned(R.Val.getInt().getExtValue() & 0xff);
        Fill = 0; // stands for the byte below
        FillHow = formatv(" (every byte {0:x2})", *SetByte).str();
      }
    } else if (Whole && Copy && C->getNumArgs() >= 3 &&
               P->HostValues.empty()) {
      Fill = copiedFill(C, P->Bytes, F, Fr, FillHow);
    }
    if (Fill) {
      for (const CallExpr *O : Calls)
        if (O != C && !Fills(O).empty())
          Fill.reset();
      if (Fill && PassedOn(C))
        Fill.reset();
    }
    if (Fill) {
      if (SetByte)
        P->HostSetByte = SetByte;
      else
        P->HostFill = Fill;
      P->HostInitHow += FillHow;
    }
    V.P = P;
    return;
  }
}

std::optional<double>
LaunchEvaluator::Impl::copiedFill(const CallExpr *C, const Val &Bytes,
                                  const FunctionDecl *F, const Frame &Fr,
                                  std::string &How) {
  // The host object: `h.data()`, `&h[0]`, `h` (an array).
  const Expr *Src = C->getArg(1)->IgnoreParenCasts();
  if (const auto *M = dyn_cast<CXXMemberCallExpr>(Src)) {
    const CXXMethodDecl *MD = M->getMethodDecl();
    if (!MD || MD->getName() != "data" || M->getNumArgs() != 0)
      return std::nullopt;
    Src = M->getImplicitObjectArgument();
  }
  const VarDecl *H = hostObjectAtStart(Ctx, Src);
  if (!H || !H->isLocalVarDecl() || H->isStaticLocal() || !H->getInit())
    return std::nullopt;
  // Its one value and its bytes.
  std::optional<double> Fill;
  Val HostBytes;
  QualType Elem;
  const Expr *Init = H->getInit()->IgnoreImplicit();
  auto ValueOf = [&](const Expr *E) -> std::optional<double> {
    Expr::EvalResult R;
    if (E->isValueDependent() || !E->EvaluateAsRValue(R, Ctx))
      return std::nullopt;
    if (R.Val.isInt())
      return double(R.Val.getInt().getExtValue());
    if (R.Val.isFloat())
      return R.Val.getFloat().convertToDouble();
    return std::nullopt;
  };
  if (const ConstantArrayType *AT = Ctx.getAsConstantArrayType(H->getType())) {
    // `int h[N] = {0};`, `= {}`, `= {7, 7, 7}`: every element one value.
    const auto *IL = dyn_cast<InitListExpr>(Init);
    Elem = AT->getElementType();
    uint64_t N = AT->getSize().getZExtValue();
    if (!IL || !Elem->isArithmeticType() || N == 0)
      return std::nullopt;
    for (unsigned I = 0; I < IL->getNumInits(); ++I) {
      std::optional<double> X = ValueOf(IL->getInit(I));
      if (!X || (Fill && *Fill != *X))
        return std::nullopt;
      Fill = X;
    }
    if (IL->getNumInits() < N) {
      if (Fill && *Fill != 0)
        return std::nullopt;
      Fill = 0;
    }
    HostBytes = Val::ofInt64(int64_t(
        N * uint64_t(Ctx.getTypeSizeInChars(Elem).getQuantity())));
    How = " of the array '" + H->getNameAsString() + "'";
  } else if (const auto *RD = H->getType()->getAsCXXRecordDecl()) {
    // `std::vector<int> h(n, 0)`, `std::vector<float> h(n)` (zeros).
    const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
    const auto *CE = dyn_cast<CXXConstructExpr>(Init);
    if (!Spec || RD->getQualifiedNameAsString() != "std::vector" || !CE ||
        Spec->getTemplateArgs().size() < 1 ||
        Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
      return std::nullopt;
    Elem = Spec->getTemplateArgs()[0].getAsType();
    if (!Elem->isArithmeticType() || Elem->isBooleanType())
      return std::nullopt;
    std::vector<const Expr *> Args;
    for (const Expr *A : CE->arguments())
      if (!isa<CXXDefaultArgExpr>(A))
        Args.push_back(A);
    const CXXConstructorDecl *Ctor = CE->getConstructor();
    if (Args.empty() || Args.size() > 2 || !Ctor ||
        !Ctor->getParamDecl(0)->getType()->isIntegerType())
      return std::nullopt;
    if (Args.size() == 2) {
      QualType T = Ctor->getParamDecl(1)->getType().getNonReferenceType();
      if (!Ctx.hasSameUnqualifiedType(T, Elem))
        return std::nullopt;
      Fill = ValueOf(Args[1]);
    } else {
      Fill = 0;
    }
    if (!Fill)
      return std::nullopt;
    HostBytes = convert(eval(Args[0], Fr.at(C)), Ctx.getSizeType());
    if (HostBytes.Kind == Val::Int)
      HostBytes = Val::ofInt(llvm::APSInt(
          HostBytes.I.zextOrTrunc(64) *
              llvm::APInt(64, Ctx.getTypeSizeInChars(Elem).getQuantity()),
          true));
    else
      HostBytes = Val();
    How = " of the std::vector '" + H->getNameAsString() + "'";
  } else {
    return std::nullopt;
  }
  if (!Fill)
    return std::nullopt;
  // The copy covers the buffer (and no more than the host object holds).
  Val CopyBytes = convert(eval(C->getArg(2), Fr.at(C)), Ctx.getSizeType());
  if (!sameBytes(CopyBytes, Bytes) ||
      (HostBytes.Kind == Val::Int && CopyBytes.Kind == Val::Int &&
       HostBytes.I.getZExtValue() < CopyBytes.I.getZExtValue()))
    return std::nullopt;
  // Unchanged before the copy: no modification before it, none in a loop
  // around it (the copy's own `h.data()` aside).
  SourceRange CR = C->getSourceRange();
  for (const Stmt *M : mutations(H, F)) {
    SourceLocation L = SM.getExpansionLoc(M->getBeginLoc());
    if (!SM.isBeforeInTranslationUnit(L, SM.getExpansionLoc(CR.getBegin())) &&
        !SM.isBeforeInTranslationUnit(SM.getExpansionLoc(CR.getEnd()), L))
      continue;
    if (before(M, C) || inLoopAround(M, C, F))
      return std::nullopt;
  }
  std::string V = Elem->isIntegerType() ? std::to_string(int64_t(*Fill))
                                        : llvm::formatv("{0}", *Fill).str();
  How += " of " + V + "s";
  return Fill;
}

} // namespace cudal1
