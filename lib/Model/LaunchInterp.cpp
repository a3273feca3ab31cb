//===- LaunchInterp.cpp - host code run with known values ------------------===//
//
// The evaluator follows values symbolically; this file runs host code with
// concrete numbers where that is the only way to know a value:
//   - helper functions with loops and branches, called with known
//     arguments (`PowTwoDivider(height)`, `roundToPowerOf2(n)`,
//     `isPowerOf2(len)`);
//   - a loop before the launch that modifies a value the launch needs
//     (`while ((nnodes & 31) != 0) nnodes++;`), run from the values its
//     variables have before it.
//   - an option loop over getopt/getopt_long with the program arguments
//     given (`while ((c = getopt(argc, argv, "n:")) != -1) switch (c) ...`).
// Only scalar locals and the number members of local structures
// (`cfg.n = atoi(argv[++i]);`), arithmetic, comparisons, assignments,
// if/while/do/for/switch, break/continue/return and calls of such helpers
// (or of library math and min/max/abs, and getopt; strcpy/strncpy into a
// local character array, which holds no number) are run; anything else
// (memory, pointers, library calls with effects) stops the run and the
// value stays unknown, as before. At most kMaxSteps expression evaluations
// per run.
//
//===----------------------------------------------------------------------===//
#include "LaunchEval.h"

#include "clang/AST/Expr.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

#include <functional>

using namespace clang;
using namespace llvm;

namespace cudal1 {

using launcheval::Frame;
using launcheval::Val;

namespace {

constexpr unsigned kMaxSteps = 200000;
constexpr unsigned kMaxCallDepth = 8;

bool scalar(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  return T->isIntegralOrEnumerationType() || T->isRealFloatingType() ||
         T->isBooleanType();
}

struct HostInterp {
  LaunchEvaluator::Impl &I;
  /// The value of a variable the code reads but does not declare.
  std::function<Val(const VarDecl *)> Outside;
  /// The frame of the function the code is in (loops before a launch):
  /// program arguments read there (`atoi(argv[1])`) are known through it.
  const Frame *Fr = nullptr;
  std::map<const VarDecl *, Val> Env;
  std::set<const VarDecl *> Declared; ///< declared here (maybe no value yet)
  /// A number member of a local structure variable: the variable and the
  /// members from it (`cfg.grid.n`), and what it holds in the run.
  using Slot = std::pair<const VarDecl *, std::vector<const FieldDecl *>>;
  std::map<Slot, Val> Members;
  /// The value of such a member when the code starts (read on first use).
  std::function<Val(const VarDecl *, const std::vector<const FieldDecl *> &)>
      OutsideMember;
  /// A constructor's body is run: `m` / `this->m` are slots too (with a
  /// null variable).
  bool ThisSlots = false;
  unsigned *Steps;
  unsigned Depth = 0;
  /// A helper's run: it may store only to its own parameters and locals
  /// (a store to a global would be lost when the run ends).
  bool OwnStoresOnly = false;
  bool Failed = false;
  std::string Why;
  Val Ret;
  enum class Flow { Next, Return, Break, Continue, Fail };
  /// getopt's state over the program arguments: the index in argv of the
  /// next element (`optind`), the position of the next option letter in a
  /// group (`-ab`; 0: at the start of an element), and `optarg`.
  int64_t OptInd = 1;
  size_t OptNext = 0;
  std::optional<std::string> OptArg;

  HostInterp(LaunchEvaluator::Impl &I, unsigned *Steps) : I(I), Steps(Steps) {}

  Val fail(const std::string &W) {
    if (!Failed) {
      Failed = true;
      Why = W;
    }
    return Val::unknown(Why);
  }
  bool truth(const Val &V, bool &Ok) {
    Val B = I.convert(V, I.Ctx.BoolTy);
    Ok = B.Kind == Val::Int;
    return Ok && B.I != 0;
  }
  Val number(Val V, const Expr *E) {
    if (V.Kind == Val::Sym)
      return fail("'" + I.text(E) + "' is '" + V.text() +
                  "', which is not known");
    if (!V.isNum())
      return fail("'" + I.text(E) + "'" +
                  (V.Why.empty() ? " is not a known number" : ": " + V.Why));
    return V;
  }

  const VarDecl *target(const Expr *LHS) {
    const auto *D = dyn_cast<DeclRefExpr>(LHS->IgnoreParenImpCasts());
    const auto *VD = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
    if (!VD || !scalar(VD->getType()) || VD->getType()->isReferenceType())
      return nullptr;
    return VD;
  }
  /// \p VD is the C library's `optind`, `optarg` or `opterr` (\p Name):
  /// declared, never defined, in the program.
  static bool libcGlobal(const VarDecl *VD, StringRef Name) {
    return VD && VD->hasGlobalStorage() && VD->getIdentifier() &&
           VD->getName() == Name && !VD->getDefinition();
  }
  /// The current value of \p VD (read from outside on first use).
  Val read(const VarDecl *VD, const Expr *Use) {
    if (libcGlobal(VD, "optind"))
      return I.convert(Val::ofInt64(OptInd), VD->getType());
    auto It = Env.find(VD);
    if (It != Env.end())
      return It->second;
    if (Declared.count(VD))
      return fail("'" + VD->getNameAsString() + "' is read before a value");
    Val V = Outside ? Outside(VD) : Val::unknown("");
    if (!V.isNum())
      return fail("'" + I.text(Use) + "'" +
                  (V.Why.empty() ? " is not known" : ": " + V.Why));
    Env[VD] = V;
    return V;
  }
  Val store(const VarDecl *VD, Val V) {
    if (OwnStoresOnly && !Declared.count(VD))
      return fail("it modifies '" + VD->getNameAsString() +
                  "', which is not its own");
    V = I.convert(V, VD->getType());
    if (!V.isNum())
      return fail("a value stored to '" + VD->getNameAsString() +
                  "' is not a number");
    if (libcGlobal(VD, "optind") && V.Kind == Val::Int) {
      // `optind = 1;` starts getopt over.
      OptInd = V.I.getSExtValue();
      OptNext = 0;
    }
    Env[VD] = V;
    return V;
  }

  /// The array \p A indexes is declared in the code being run.
  bool declaredArray(const ArraySubscriptExpr *A) const {
    const Expr *B = A;
    while (const auto *S =
               dyn_cast<ArraySubscriptExpr>(B->IgnoreParenImpCasts()))
      B = S->getBase();
    const auto *D = dyn_cast<DeclRefExpr>(B->IgnoreParenImpCasts());
    return D && Declared.count(dyn_cast<VarDecl>(D->getDecl()));
  }

  /// `v.a.b` with `v` a local structure variable (not a reference, nothing
  /// through a pointer) and `b` a number member that is not a bit-field.
  bool memberSlot(const Expr *E, Slot &S) const {
    E = E->IgnoreParenImpCasts();
    std::vector<const FieldDecl *> Rev;
    while (const auto *ME = dyn_cast<MemberExpr>(E)) {
      const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
      if (!FD)
        return false;
      if (ME->isArrow()) {
        // `m` / `this->m` in a constructor being run.
        if (!ThisSlots ||
            !isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
          return false;
        Rev.push_back(FD);
        if (!scalar(Rev.front()->getType()) ||
            Rev.front()->getType()->isReferenceType() ||
            Rev.front()->isBitField())
          return false;
        S = {nullptr, {Rev.rbegin(), Rev.rend()}};
        return true;
      }
      Rev.push_back(FD);
      E = ME->getBase()->IgnoreParens();
    }
    const auto *D = dyn_cast<DeclRefExpr>(E);
    const auto *VD = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
    if (Rev.empty() || !VD || VD->getType()->isReferenceType() ||
        VD->hasGlobalStorage() || !scalar(Rev.front()->getType()) ||
        Rev.front()->getType()->isReferenceType() || Rev.front()->isBitField())
      return false;
    S = {VD, {Rev.rbegin(), Rev.rend()}};
    return true;
  }
  Val readMember(const Slot &S, const Expr *Use) {
    auto It = Members.find(S);
    if (It != Members.end())
      return It->second;
    Val V = OutsideMember && (!S.first || !Declared.count(S.first))
                ? OutsideMember(S.first, S.second)
                : Val::unknown("");
    if (!V.isNum())
      return fail("'" + I.text(Use) + "'" +
                  (V.Why.empty() ? " is not known" : ": " + V.Why));
    Members[S] = V;
    return V;
  }
  Val storeMember(const Slot &S, Val V) {
    std::string Owner = S.first ? S.first->getNameAsString() : "this";
    if (OwnStoresOnly)
      return fail("it modifies '" + Owner + "', which is not its own");
    V = I.convert(V, S.second.back()->getType());
    if (!V.isNum())
      return fail("a value stored to a member of '" + Owner +
                  "' is not a number");
    Members[S] = V;
    return V;
  }
  /// What an assignment or increment changes: a scalar variable or a
  /// member slot.
  struct Place {
    const VarDecl *Var = nullptr;
    Slot Member;
    QualType Type;
  };
  bool place(const Expr *E, Place &P) {
    if ((P.Var = target(E))) {
      P.Type = P.Var->getType();
      return true;
    }
    if (!memberSlot(E, P.Member))
      return false;
    P.Type = P.Member.second.back()->getType();
    return true;
  }
  Val load(const Place &P, const Expr *Use) {
    return P.Var ? read(P.Var, Use) : readMember(P.Member, Use);
  }
  Val save(const Place &P, Val V) {
    return P.Var ? store(P.Var, V) : storeMember(P.Member, V);
  }

  Val value(const Expr *E) {
    if (Failed)
      return Val::unknown(Why);
    if (++*Steps > kMaxSteps)
      return fail("more than " + std::to_string(kMaxSteps) +
                  " steps to run");
    E = E->IgnoreParens();
    if (const auto *C = dyn_cast<ConstantExpr>(E))
      return value(C->getSubExpr());
    if (const auto *W = dyn_cast<ExprWithCleanups>(E))
      return value(W->getSubExpr());
    if (isa<IntegerLiteral>(E) || isa<CharacterLiteral>(E) ||
        isa<FloatingLiteral>(E) || isa<CXXBoolLiteralExpr>(E) ||
        isa<UnaryExprOrTypeTraitExpr>(E))
      return number(I.evalClang(E), E);
    if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *VD = dyn_cast<VarDecl>(D->getDecl()))
        if (scalar(VD->getType()))
          return read(VD, E);
      return number(I.evalClang(E), E);
    }
    if (isa<MemberExpr>(E)) {
      Slot S;
      if (memberSlot(E, S))
        return readMember(S, E);
    }
    // An element of an array declared outside the code run (`numel *=
    // sizes[i]` over `const int64_t sizes[2] = {nrow, ncol};`): its value
    // where the run starts. The run stores to no array, so it is still that.
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
      if (scalar(A->getType()) && Fr && !declaredArray(A)) {
        Val V = I.evalSubscript(A, *Fr,
                                [&](const Expr *X) { return value(X); });
        if (Failed)
          return Val::unknown(Why);
        return number(V, E);
      }
    }
    if (const auto *C = dyn_cast<CastExpr>(E)) {
      if (!scalar(E->getType()) || !scalar(C->getSubExpr()->getType()))
        return fail("'" + I.text(E) + "' is not a number");
      return number(I.convert(value(C->getSubExpr()), E->getType()), E);
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E))
      return unary(U);
    if (const auto *B = dyn_cast<BinaryOperator>(E))
      return binary(B);
    if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
      bool Ok = false;
      bool T = truth(value(C->getCond()), Ok);
      if (!Ok)
        return fail("the condition of '" + I.text(E) + "'");
      return I.convert(value(T ? C->getTrueExpr() : C->getFalseExpr()),
                       E->getType());
    }
    if (const auto *C = dyn_cast<CallExpr>(E))
      return call(C);
    if (const auto *D = dyn_cast<CXXDefaultArgExpr>(E))
      return value(D->getExpr());
    // A constant the compiler folds (enumerators, constexpr).
    Val K = I.evalClang(E);
    if (K.isNum())
      return K;
    return fail("'" + I.text(E) + "' is not run by the tool");
  }

  Val unary(const UnaryOperator *U) {
    UnaryOperatorKind Op = U->getOpcode();
    if (U->isIncrementDecrementOp()) {
      Place P;
      if (!place(U->getSubExpr(), P))
        return fail("'" + I.text(U) + "' modifies memory");
      Val Old = load(P, U);
      if (Failed)
        return Val::unknown(Why);
      QualType T = P.Type;
      Val New = I.arith(U->isIncrementOp() ? BO_Add : BO_Sub, Old,
                        Val::ofInt64(1), T, T);
      New = save(P, New);
      return U->isPrefix() ? New : Old;
    }
    Val V = value(U->getSubExpr());
    if (Failed)
      return V;
    switch (Op) {
    case UO_Plus:
      return I.convert(V, U->getType());
    case UO_Minus:
      return I.arith(BO_Sub, Val::ofInt64(0), V, U->getType(), U->getType());
    case UO_Not:
      V = I.convert(V, U->getType());
      if (V.Kind == Val::Int)
        return Val::ofInt(APSInt(~V.I, V.I.isUnsigned()));
      break;
    case UO_LNot: {
      bool Ok = false;
      bool T = truth(V, Ok);
      if (Ok)
        return I.convert(Val::ofInt64(T ? 0 : 1), U->getType());
      break;
    }
    default:
      break;
    }
    return fail("'" + I.text(U) + "' is not run by the tool");
  }

  Val binary(const BinaryOperator *B) {
    BinaryOperatorKind Op = B->getOpcode();
    if (Op == BO_Comma) {
      value(B->getLHS());
      return value(B->getRHS());
    }
    if (Op == BO_LAnd || Op == BO_LOr) {
      bool Ok = false;
      bool L = truth(value(B->getLHS()), Ok);
      if (!Ok)
        return fail("'" + I.text(B->getLHS()) + "' is not known");
      if (L == (Op == BO_LOr))
        return I.convert(Val::ofInt64(L), B->getType());
      bool R = truth(value(B->getRHS()), Ok);
      if (!Ok)
        return fail("'" + I.text(B->getRHS()) + "' is not known");
      return I.convert(Val::ofInt64(R), B->getType());
    }
    if (B->isAssignmentOp()) {
      Place P;
      if (!place(B->getLHS(), P))
        return fail("'" + I.text(B) + "' stores to memory");
      Val R = value(B->getRHS());
      if (Failed)
        return R;
      if (Op == BO_Assign)
        return save(P, R);
      const auto *CA = cast<CompoundAssignOperator>(B);
      Val L = load(P, B->getLHS());
      if (Failed)
        return L;
      Val N = I.arith(BinaryOperator::getOpForCompoundAssignment(Op),
                      I.convert(L, CA->getComputationLHSType()), R,
                      CA->getComputationResultType(),
                      CA->getComputationLHSType());
      return save(P, number(N, B));
    }
    Val L = value(B->getLHS());
    Val R = value(B->getRHS());
    if (Failed)
      return Val::unknown(Why);
    return number(I.arith(Op, L, R, B->getType(), B->getLHS()->getType()), B);
  }

  /// A string the code being run names: a string literal, or a program
  /// argument `argv[k]` (main's argv, with --program-args) whose index it
  /// computes. Nothing otherwise.
  std::optional<std::string> argString(const Expr *E) {
    if (const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
      if (libcGlobal(dyn_cast<VarDecl>(D->getDecl()), "optarg"))
        return OptArg;
    if (const auto *SL =
            dyn_cast<clang::StringLiteral>(E->IgnoreParenImpCasts()))
      return SL->isOrdinary() ? std::optional<std::string>(SL->getString().str())
                              : std::nullopt;
    if (!Fr)
      return std::nullopt;
    std::string Unused;
    std::function<Val(const Expr *)> Index = [&](const Expr *X) {
      return value(X);
    };
    return I.programArg(E, *Fr, Unused, &Index);
  }

  Val call(const CallExpr *C) {
    const FunctionDecl *FD = C->getDirectCallee();
    if (!FD || isa<CXXMethodDecl>(FD))
      return fail("the result of '" + I.text(C) + "'");
    StringRef Name = FD->getIdentifier() ? FD->getName() : "";
    // Library math, min/max/abs: as the evaluator does, on values run here.
    if (!Name.empty()) {
      bool Handled = false;
      Val V = I.evalMath(
          Name, C, [&](unsigned K) { return value(C->getArg(K)); }, Handled);
      if (Handled)
        return Failed ? Val::unknown(Why) : number(V, C);
    }
    // Program arguments indexed by the code being run (`for (i = 1; i <
    // argc; ++i) if (!strcmp(argv[i], "--grid")) n = atoi(argv[++i]);`):
    // strcmp/strncmp of them and string literals, and the conversions.
    // Each argument is read once: an index may have effects (argv[++i]).
    if (Fr && !Name.empty() && I.ProgramArgs && C->getNumArgs() >= 1) {
      auto ArgVal = [&](unsigned K) { return value(C->getArg(K)); };
      std::optional<std::string> A = argString(C->getArg(0));
      std::optional<std::string> B;
      if (A && C->getNumArgs() >= 2)
        B = argString(C->getArg(1));
      if (Failed)
        return Val::unknown(Why);
      bool Handled = false;
      if (A && B) {
        std::optional<int64_t> R =
            I.compareStrings(Name, C, *A, *B, ArgVal, Handled);
        if (Handled)
          return R ? number(Val::ofInt64(*R), C)
                   : fail("the result of '" + I.text(C) + "'");
      }
      if (A) {
        Val V = I.convertArgString(Name, C, *A, ArgVal, Handled);
        if (Handled)
          return V.isNum() ? number(V, C)
                           : fail(V.Why.empty() ? "the result of '" +
                                                      I.text(C) + "'"
                                                : V.Why);
      }
    }
    if (Name == "exit" || Name == "_Exit" || Name == "abort")
      return fail("the program ends at " + I.where(C->getBeginLoc()) + " ('" +
                  I.text(C) + "')");
    if (Name == "getopt" || Name == "getopt_long" ||
        Name == "getopt_long_only") {
      const FunctionDecl *Def = FD->getDefinition();
      if (!Def || inSystemHeader(I.SM, Def->getLocation()))
        return getopt(C, Name != "getopt", Name == "getopt_long_only");
    }
    std::vector<Val> Args;
    for (const Expr *A : C->arguments()) {
      if (!scalar(A->getType()))
        return fail("'" + I.text(C) + "' takes a value that is not a number");
      Args.push_back(value(A));
      if (Failed)
        return Val::unknown(Why);
    }
    const FunctionDecl *Def = FD->getDefinition();
    if (!Def || !Def->hasBody() || inSystemHeader(I.SM, Def->getLocation()))
      return fail("the result of '" + I.text(C) + "'");
    Val V = I.interpretCall(Def, Args, Depth + 1, Steps);
    if (!V.isNum())
      return fail(V.Why.empty() ? "the result of '" + I.text(C) + "'"
                                : V.Why);
    return V;
  }

  /// One entry of getopt_long's option table.
  struct LongOpt {
    std::string Name;
    int64_t HasArg = 0, Val = 0;
    bool Flag = false; ///< sets `*flag` instead of returning Val
  };
  /// The table \p E names: an array variable with an initialiser list of
  /// `{name, has_arg, flag, val}`, up to the entry with a null name.
  bool longOptions(const Expr *E, std::vector<LongOpt> &Out) {
    const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    const auto *VD = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
    const auto *IL = VD && VD->getInit()
                         ? dyn_cast<InitListExpr>(VD->getInit()->IgnoreImplicit())
                         : nullptr;
    if (!IL)
      return false;
    for (const Expr *El : IL->inits()) {
      const auto *R = dyn_cast<InitListExpr>(El->IgnoreImplicit());
      if (!R || R->getNumInits() < 4)
        return false;
      const Expr *N = R->getInit(0)->IgnoreParenImpCasts();
      if (N->isNullPointerConstant(I.Ctx, Expr::NPC_ValueDependentIsNotNull))
        break;
      const auto *SL = dyn_cast<clang::StringLiteral>(N);
      Val H = I.evalClang(R->getInit(1)), V = I.evalClang(R->getInit(3));
      if (!SL || !SL->isOrdinary() || H.Kind != Val::Int || V.Kind != Val::Int)
        return false;
      LongOpt O;
      O.Name = SL->getString().str();
      O.HasArg = H.I.getSExtValue();
      O.Val = V.I.getSExtValue();
      O.Flag = !R->getInit(2)->IgnoreParenImpCasts()->isNullPointerConstant(
          I.Ctx, Expr::NPC_ValueDependentIsNotNull);
      Out.push_back(O);
    }
    return true;
  }
  /// getopt / getopt_long(_only) (\p Long, \p LongOnly) over the program
  /// arguments given with --program-args, as glibc parses them when every
  /// option comes before the operands: the option's letter (or a long
  /// option's value), '?' for an unknown option or a missing argument
  /// (':' with an option string starting with ':'), -1 at the first
  /// operand, at `--` or at the end; `optarg` and `optind` as glibc sets
  /// them. Operands before an option (which glibc moves to the end) stop
  /// the run.
  Val getopt(const CallExpr *C, bool Long, bool LongOnly) {
    std::string Call = "'" + I.text(C) + "'";
    if (!I.ProgramArgs || !Fr)
      return fail(Call + " reads the program's arguments: give them with "
                         "--program-args");
    const std::vector<std::string> &A = I.ProgramArgs->Args;
    const int64_t Argc = int64_t(A.size()) + 1;
    if (C->getNumArgs() < (Long ? 5u : 3u))
      return fail(Call + " is not run by the tool");
    Val N = value(C->getArg(0));
    if (Failed)
      return Val::unknown(Why);
    if (N.Kind != Val::Int || N.I.getSExtValue() != Argc ||
        !I.isArgv(C->getArg(1), *Fr))
      return fail(Call + ": not main's argc and argv");
    std::optional<std::string> Opts = argString(C->getArg(2));
    std::vector<LongOpt> LongOpts;
    if (!Opts || (Long && !longOptions(C->getArg(3), LongOpts)))
      return fail(Call + ": its options are not a string literal and a "
                         "table the tool reads");
    StringRef O(*Opts);
    if (O.starts_with("-"))
      return fail(Call + ": options in order with operands ('-') are not "
                         "run by the tool");
    O.consume_front("+");
    bool ColonMode = O.starts_with(":");
    O = O.ltrim(':');
    auto Ret = [&](int64_t X) { return I.convert(Val::ofInt64(X), C->getType()); };
    auto Arg = [&](int64_t K) -> const std::string & { return A[size_t(K - 1)]; };
    OptArg.reset();
    if (OptNext == 0) {
      if (OptInd < 1 || OptInd >= Argc)
        return Ret(-1);
      const std::string &S = Arg(OptInd);
      if (S == "--") {
        ++OptInd;
        return Ret(-1);
      }
      if (S.size() < 2 || S[0] != '-') {
        // An operand: glibc moves it after the options that follow.
        for (int64_t K = OptInd + 1; K < Argc; ++K)
          if (Arg(K).size() > 1 && Arg(K)[0] == '-')
            return fail(Call + ": the operand '" + S +
                        "' comes before an option; glibc's reordering is "
                        "not run by the tool");
        return Ret(-1);
      }
      bool DoubleDash = S[1] == '-';
      if (Long && (DoubleDash || LongOnly)) {
        StringRef Body = StringRef(S).drop_front(DoubleDash ? 2 : 1);
        StringRef Nm = Body.take_until([](char X) { return X == '='; });
        bool HasEq = Nm.size() < Body.size();
        const LongOpt *Hit = nullptr;
        unsigned Prefixed = 0;
        for (const LongOpt &L : LongOpts) {
          if (L.Name == Nm) {
            Hit = &L;
            Prefixed = 1;
            break;
          }
          if (StringRef(L.Name).starts_with(Nm)) {
            Hit = &L;
            ++Prefixed;
          }
        }
        if (Hit && Prefixed == 1) {
          if (Hit->Flag)
            return fail(Call + ": the option '" + Hit->Name +
                        "' sets a flag variable, which the tool does not "
                        "follow");
          ++OptInd;
          if (HasEq) {
            if (Hit->HasArg == 0)
              return Ret('?');
            OptArg = Body.drop_front(Nm.size() + 1).str();
          } else if (Hit->HasArg == 1) {
            if (OptInd >= Argc)
              return Ret(ColonMode ? ':' : '?');
            OptArg = Arg(OptInd++);
          }
          return Ret(Hit->Val);
        }
        if (DoubleDash || Prefixed > 1) {
          ++OptInd;
          return Ret('?');
        }
        // getopt_long_only: not a long option, so short ones.
      }
      OptNext = 1;
    }
    const std::string &S = Arg(OptInd);
    char X = S[OptNext++];
    bool AtEnd = OptNext >= S.size();
    auto NextElement = [&] {
      ++OptInd;
      OptNext = 0;
    };
    size_t P = X == ':' ? StringRef::npos : O.find(X);
    if (P == StringRef::npos) {
      if (AtEnd)
        NextElement();
      return Ret('?');
    }
    bool Takes = P + 1 < O.size() && O[P + 1] == ':';
    bool Optional = Takes && P + 2 < O.size() && O[P + 2] == ':';
    if (!Takes) {
      if (AtEnd)
        NextElement();
      return Ret(X);
    }
    if (!AtEnd) {
      OptArg = S.substr(OptNext);
      NextElement();
      return Ret(X);
    }
    NextElement();
    if (Optional)
      return Ret(X);
    if (OptInd >= Argc)
      return Ret(ColonMode ? ':' : '?');
    OptArg = Arg(OptInd++);
    return Ret(X);
  }

  /// `printf(...);`, `fprintf(stderr, ...);`, `puts(...);` as a statement
  /// (a usage message before `exit(1)`, a progress line): output only,
  /// when no argument has an effect and the format has no `%n`.
  bool outputOnly(const CallExpr *C) {
    const FunctionDecl *FD = C->getDirectCallee();
    StringRef Name = FD && FD->getIdentifier() ? FD->getName() : "";
    unsigned Fmt = Name == "printf" || Name == "puts" ? 0
                   : Name == "fprintf" || Name == "fputs" ? 1
                                                          : ~0u;
    if (Fmt == ~0u || C->getNumArgs() <= Fmt ||
        !inSystemHeader(I.SM, FD->getLocation()))
      return false;
    const auto *SL =
        dyn_cast<clang::StringLiteral>(C->getArg(Name == "fputs" ? 0 : Fmt)
                                           ->IgnoreParenImpCasts());
    if (!SL || !SL->isOrdinary() ||
        (Name.ends_with("printf") && SL->getString().contains("%n")))
      return false;
    for (const Expr *A : C->arguments())
      if (A->HasSideEffects(I.Ctx))
        return false;
    return true;
  }

  /// `strcpy(dst, src);` / `strncpy(dst, src, n);` as a statement, `dst` a
  /// local character array or such a member of a local structure
  /// (`strncpy(cfg.op, argv[++i], 31)`): it holds no number the run follows,
  /// so only the source (a known string, whose index may have effects) and
  /// the bound are run, and the copy must fit the array. Handled: \p C is
  /// one of them.
  Flow stringCopy(const CallExpr *C, bool &Handled) {
    Handled = false;
    const FunctionDecl *FD = C->getDirectCallee();
    StringRef Name = FD && FD->getIdentifier() ? FD->getName() : "";
    bool Bounded = Name == "strncpy";
    if (!(Bounded || Name == "strcpy") ||
        C->getNumArgs() != (Bounded ? 3u : 2u))
      return Flow::Next;
    Handled = true;
    const Expr *Dst = C->getArg(0)->IgnoreParenImpCasts();
    const ConstantArrayType *AT = I.Ctx.getAsConstantArrayType(Dst->getType());
    const Expr *Base = Dst;
    while (const auto *ME = dyn_cast<MemberExpr>(Base)) {
      if (ME->isArrow())
        break;
      Base = ME->getBase()->IgnoreParens();
    }
    const auto *D = dyn_cast<DeclRefExpr>(Base);
    const auto *VD = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
    if (!AT || !AT->getElementType()->isCharType() || !VD ||
        VD->hasGlobalStorage() || VD->getType()->isReferenceType()) {
      fail("'" + I.text(C) + "' copies into memory the tool does not follow");
      return Flow::Fail;
    }
    std::optional<std::string> Src = argString(C->getArg(1));
    if (Failed)
      return Flow::Fail;
    if (!Src) {
      fail("'" + I.text(C) + "': its source is not a known string");
      return Flow::Fail;
    }
    uint64_t Size = AT->getSize().getZExtValue(), Copied = Src->size() + 1;
    if (Bounded) {
      Val B = I.convert(value(C->getArg(2)), I.Ctx.getSizeType());
      if (Failed)
        return Flow::Fail;
      if (B.Kind != Val::Int) {
        fail("'" + I.text(C) + "': its bound is not known");
        return Flow::Fail;
      }
      Copied = B.I.getZExtValue();
    }
    if (Copied > Size) {
      fail("'" + I.text(C) + "' may write past its array");
      return Flow::Fail;
    }
    return Flow::Next;
  }

  /// A `switch` whose labels are statements of its body's block (no label
  /// nested deeper): from the matching label (or `default`) to a `break`.
  Flow runSwitch(const SwitchStmt *SW) {
    if (SW->getConditionVariable() ||
        (SW->getInit() && run(SW->getInit()) == Flow::Fail))
      return failFlow(SW);
    Val V = I.convert(value(SW->getCond()), SW->getCond()->getType());
    if (Failed)
      return Flow::Fail;
    if (V.Kind != Val::Int) {
      fail("the condition '" + I.text(SW->getCond()) + "' is not known");
      return Flow::Fail;
    }
    const auto *Body = dyn_cast<CompoundStmt>(SW->getBody());
    if (!Body)
      return failFlow(SW);
    // The statement a label (or a chain of them) labels.
    auto Labelled = [](const Stmt *S) {
      while (const auto *L = dyn_cast<SwitchCase>(S))
        S = L->getSubStmt();
      return S;
    };
    // Whether the chain of labels at \p S has the condition's value.
    bool Ok = true;
    auto Matches = [&](const Stmt *S, bool Default) {
      while (const auto *L = dyn_cast<SwitchCase>(S)) {
        S = L->getSubStmt();
        if (isa<DefaultStmt>(L)) {
          if (Default)
            return true;
          continue;
        }
        const auto *CS = cast<CaseStmt>(L);
        Val K = I.evalClang(CS->getLHS());
        if (K.Kind != Val::Int || CS->getRHS()) {
          Ok = false;
          return false;
        }
        if (!Default && K.I.getSExtValue() == V.I.getSExtValue())
          return true;
      }
      return false;
    };
    // Every label of this switch must be in those chains (none inside a
    // nested block or loop, Duff's device).
    unsigned TopLabels = 0, AllLabels = 0;
    for (const Stmt *S : Body->body())
      while (const auto *L = dyn_cast<SwitchCase>(S)) {
        S = L->getSubStmt();
        ++TopLabels;
      }
    std::function<void(const Stmt *)> Count = [&](const Stmt *S) {
      if (!S || (S != SW && isa<SwitchStmt>(S)))
        return;
      if (isa<SwitchCase>(S))
        ++AllLabels;
      for (const Stmt *Ch : S->children())
        Count(Ch);
    };
    Count(Body);
    if (TopLabels != AllLabels)
      return failFlow(SW);
    int Start = -1;
    for (bool Default : {false, true}) {
      for (unsigned K = 0; K < Body->size() && Start < 0; ++K)
        if (Matches(Body->body_begin()[K], Default))
          Start = int(K);
      if (!Ok)
        return failFlow(SW);
      if (Start >= 0)
        break;
    }
    if (Start < 0)
      return Flow::Next;
    for (unsigned K = unsigned(Start); K < Body->size(); ++K) {
      Flow F = run(Labelled(Body->body_begin()[K]));
      if (F == Flow::Break)
        return Flow::Next;
      if (F != Flow::Next)
        return F;
    }
    return Flow::Next;
  }

  Flow run(const Stmt *S) {
    if (Failed)
      return Flow::Fail;
    if (!S)
      return Flow::Next;
    if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
      for (const Stmt *B : CS->body()) {
        Flow F = run(B);
        if (F != Flow::Next)
          return F;
      }
      return Flow::Next;
    }
    if (isa<NullStmt>(S))
      return Flow::Next;
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls()) {
        const auto *VD = dyn_cast<VarDecl>(D);
        if (!VD || !scalar(VD->getType()) || VD->getType()->isReferenceType() ||
            VD->isStaticLocal()) {
          fail("a declaration the tool does not run at " +
               I.where(D->getLocation()));
          return Flow::Fail;
        }
        Declared.insert(VD);
        Env.erase(VD);
        if (const Expr *Init = VD->getInit()) {
          store(VD, value(Init));
          if (Failed)
            return Flow::Fail;
        }
      }
      return Flow::Next;
    }
    if (const auto *E = dyn_cast<Expr>(S)) {
      if (const auto *C = dyn_cast<CallExpr>(E->IgnoreParenImpCasts())) {
        bool Handled = false;
        Flow F = stringCopy(C, Handled);
        if (Handled)
          return F;
        if (outputOnly(C))
          return Flow::Next;
      }
      value(E);
      return Failed ? Flow::Fail : Flow::Next;
    }
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      if (If->getConditionVariable() || If->isConsteval())
        return failFlow(S);
      if (If->getInit() && run(If->getInit()) == Flow::Fail)
        return Flow::Fail;
      bool Ok = false;
      bool T = truth(value(If->getCond()), Ok);
      if (!Ok) {
        fail("the condition '" + I.text(If->getCond()) + "' is not known");
        return Flow::Fail;
      }
      return run(T ? If->getThen() : If->getElse());
    }
    if (const auto *W = dyn_cast<WhileStmt>(S)) {
      if (W->getConditionVariable())
        return failFlow(S);
      return loop(nullptr, W->getCond(), nullptr, W->getBody(), false);
    }
    if (const auto *D = dyn_cast<DoStmt>(S))
      return loop(nullptr, D->getCond(), nullptr, D->getBody(), true);
    if (const auto *F = dyn_cast<ForStmt>(S)) {
      if (F->getConditionVariable())
        return failFlow(S);
      return loop(F->getInit(), F->getCond(), F->getInc(), F->getBody(), false);
    }
    if (const auto *R = dyn_cast<ReturnStmt>(S)) {
      if (!R->getRetValue() || !scalar(R->getRetValue()->getType()))
        return failFlow(S);
      Ret = value(R->getRetValue());
      return Failed ? Flow::Fail : Flow::Return;
    }
    if (const auto *SW = dyn_cast<SwitchStmt>(S))
      return runSwitch(SW);
    if (isa<BreakStmt>(S))
      return Flow::Break;
    if (isa<ContinueStmt>(S))
      return Flow::Continue;
    return failFlow(S);
  }
  Flow failFlow(const Stmt *S) {
    fail("'" + std::string(S->getStmtClassName()) + "' at " +
         I.where(S->getBeginLoc()) + " is not run by the tool");
    return Flow::Fail;
  }
  Flow loop(const Stmt *Init, const Expr *Cond, const Expr *Inc,
            const Stmt *Body, bool BodyFirst) {
    if (Init && run(Init) == Flow::Fail)
      return Flow::Fail;
    for (bool First = true;; First = false) {
      if (!(BodyFirst && First) && Cond) {
        bool Ok = false;
        bool T = truth(value(Cond), Ok);
        if (!Ok) {
          fail("the loop condition '" + I.text(Cond) + "' is not known");
          return Flow::Fail;
        }
        if (!T)
          return Flow::Next;
      }
      Flow F = run(Body);
      if (F == Flow::Fail || F == Flow::Return)
        return F;
      if (F == Flow::Break)
        return Flow::Next;
      if (Inc) {
        value(Inc);
        if (Failed)
          return Flow::Fail;
      }
      if (Failed)
        return Flow::Fail;
    }
  }
};

} // namespace

Val LaunchEvaluator::Impl::interpretCall(const FunctionDecl *FD,
                                         const std::vector<Val> &Args,
                                         unsigned Depth, unsigned *Steps,
                                         const CallExpr *Call,
                                         const Frame *Caller) {
  unsigned Local = 0;
  if (!Steps)
    Steps = &Local;
  if (Depth > kMaxCallDepth)
    return Val::unknown("calls nested more than " +
                        std::to_string(kMaxCallDepth) + " deep");
  if (!scalar(FD->getReturnType()) || Args.size() != FD->getNumParams())
    return Val::unknown("the result of " + FD->getNameAsString() + "()");
  HostInterp H(*this, Steps);
  H.Depth = Depth;
  H.OwnStoresOnly = true;
  // Called from the evaluator with main's argv among the arguments
  // (`parse(argc, argv)`): the program arguments are read through this frame.
  Frame Callee;
  if (Call && Caller) {
    Callee.F = FD;
    Callee.Call = Call;
    Callee.Parent = Caller;
    H.Fr = &Callee;
  }
  for (unsigned K = 0; K < Args.size(); ++K) {
    const ParmVarDecl *P = FD->getParamDecl(K);
    if (H.Fr && K < Call->getNumArgs() && P->getType()->isPointerType() &&
        isArgv(Call->getArg(K), *Caller))
      continue;
    if (!scalar(P->getType()) || P->getType()->isReferenceType())
      return Val::unknown("a parameter of " + FD->getNameAsString() +
                          "() is not a number");
    H.Declared.insert(P);
    H.store(P, Args[K]);
  }
  // Globals it reads: their constant values.
  H.Outside = [this](const VarDecl *VD) {
    if (!VD->hasGlobalStorage() || VD->isStaticLocal())
      return Val::unknown("");
    PathMark M = mark();
    Val V = evalGlobal(VD);
    if (!V.isNum())
      restore(M);
    return V;
  };
  HostInterp::Flow F = H.run(FD->getBody());
  if (F == HostInterp::Flow::Return && H.Ret.isNum())
    return convert(H.Ret, FD->getReturnType());
  std::string Why = H.Failed ? H.Why : "it ends without returning a value";
  return Val::unknown(FD->getNameAsString() + "() run with the values given: " +
                      Why);
}

namespace {
/// \p Get's value when it is a number; else the names it registered on the
/// way are taken back.
Val tentatively(LaunchEvaluator::Impl &I, const std::function<Val()> &Get) {
  LaunchEvaluator::Impl::PathMark M = I.mark();
  Val R = Get();
  if (!R.isNum())
    I.restore(M);
  return R;
}

/// \p H set to run \p Loop of \p Own's function (\p Here: the frame at the
/// loop, kept by the caller): variables declared before it and members of
/// local structures have their values where the loop starts.
void prepareLoopRun(LaunchEvaluator::Impl &I, HostInterp &H,
                    const Stmt *Loop, const Frame &Own, const Frame &Here) {
  H.Fr = &Here;
  H.Outside = [&I, &Own, Loop](const VarDecl *V) {
    return tentatively(I, [&] {
      return V->hasGlobalStorage() && !V->isStaticLocal()
                 ? I.evalGlobal(V)
                 : I.valueAt(V, Own, Loop);
    });
  };
  H.OutsideMember = [&I, &Own, Loop](const VarDecl *V,
                                     const std::vector<const FieldDecl *> &P) {
    return tentatively(I, [&] { return I.fieldAt(V, P, Own, Loop); });
  };
}
} // namespace

Val LaunchEvaluator::Impl::interpretLoop(
    const Stmt *Loop, const VarDecl *VD, const Frame &Own,
    const std::vector<const FieldDecl *> *Path) {
  unsigned Steps = 0;
  HostInterp H(*this, &Steps);
  Frame Here = Own.at(Loop);
  prepareLoopRun(*this, H, Loop, Own, Here);
  HostInterp::Flow F = H.run(Loop);
  if (F != HostInterp::Flow::Next)
    return Val::unknown(H.Failed ? H.Why : "the loop leaves its function");
  if (Path) {
    auto MIt = H.Members.find({VD, *Path});
    return MIt != H.Members.end() ? MIt->second : H.OutsideMember(VD, *Path);
  }
  // A dim3 whose components the loop sets (`for (grid.x = 1; grid.x <
  // target; grid.x *= 2);`): its value before, with those components. Any
  // other structure the loop touches is not assembled here.
  bool Touched = false;
  for (const auto &KV : H.Members)
    Touched |= KV.first.first == VD;
  if (Touched) {
    const auto *RD = VD->getType()->getAsCXXRecordDecl();
    if (!RD || RD->getName() != "dim3")
      return Val::unknown("the loop modifies members of '" +
                          VD->getNameAsString() + "'");
    Val Before = H.Outside(VD);
    if (Before.Kind != Val::Dim)
      return Before;
    for (const auto &KV : H.Members) {
      if (KV.first.first != VD)
        continue;
      StringRef N = KV.first.second.size() == 1
                        ? KV.first.second.front()->getName()
                        : StringRef();
      int K = N == "x" ? 0 : N == "y" ? 1 : N == "z" ? 2 : -1;
      if (K < 0)
        return Val::unknown("the loop modifies members of '" +
                            VD->getNameAsString() + "'");
      Before.D[K] = KV.second;
    }
    return Before;
  }
  auto It = H.Env.find(VD);
  if (It != H.Env.end())
    return It->second;
  return H.Outside(VD);
}

Val LaunchEvaluator::Impl::interpretCtorLoop(
    const Stmt *Loop, const CXXConstructExpr *C, const Frame &CF,
    const Frame &Fr, const std::vector<const FieldDecl *> &Path) {
  unsigned Steps = 0;
  HostInterp H(*this, &Steps);
  Frame Here = CF.at(Loop);
  prepareLoopRun(*this, H, Loop, CF, Here);
  // The object's members (a null variable): their values when the loop
  // starts.
  H.ThisSlots = true;
  auto Locals = H.OutsideMember;
  H.OutsideMember = [&](const VarDecl *V,
                        const std::vector<const FieldDecl *> &P) {
    if (V)
      return Locals(V, P);
    return tentatively(*this,
                       [&] { return fieldOfConstruct(C, P, Fr, Loop); });
  };
  HostInterp::Flow F = H.run(Loop);
  if (F != HostInterp::Flow::Next)
    return Val::unknown(H.Failed ? H.Why : "the loop leaves the constructor");
  auto It = H.Members.find({nullptr, Path});
  return It != H.Members.end() ? It->second : H.OutsideMember(nullptr, Path);
}

LaunchEvaluator::Impl::PathMark LaunchEvaluator::Impl::mark() const {
  PathMark M;
  if (St) {
    M.Unknowns = St->Unknowns.size();
    M.Names = St->Names;
    M.Used = St->Used;
  }
  return M;
}

void LaunchEvaluator::Impl::restore(const PathMark &M) {
  if (!St)
    return;
  St->Unknowns.resize(M.Unknowns);
  St->Names = M.Names;
  St->Used = M.Used;
}

} // namespace cudal1
