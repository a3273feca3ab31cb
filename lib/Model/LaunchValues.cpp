//===- LaunchValues.cpp - scalars and launch shapes of a launch, from the AST -===//
//
// See cudal1/Model/LaunchValues.h. Pointers and allocations are in
// LaunchPointers.cpp; call paths and tuples in LaunchPaths.cpp.
//
//===----------------------------------------------------------------------===//
#include "LaunchEval.h"
#include "cudal1/Model/KernelModel.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <optional>

using namespace clang;
using namespace llvm;

namespace cudal1 {

using launcheval::CallStep;
using launcheval::scalarType;
using launcheval::skipWrappers;
using launcheval::Frame;
using launcheval::Val;

const Expr *launcheval::skipWrappers(const Expr *E) {
  for (;;) {
    E = E->IgnoreParens();
    if (const auto *C = dyn_cast<ConstantExpr>(E))
      E = C->getSubExpr();
    else if (const auto *W = dyn_cast<ExprWithCleanups>(E))
      E = W->getSubExpr();
    else if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
      E = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
      E = B->getSubExpr();
    else if (const auto *S = dyn_cast<SubstNonTypeTemplateParmExpr>(E))
      E = S->getReplacement();
    else
      return E;
  }
}

bool launcheval::scalarType(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  return T->isIntegralOrEnumerationType() || T->isRealFloatingType();
}

namespace {
/// Deepest nesting of expressions, variables and helper calls followed.
constexpr unsigned kMaxDepth = 48;

bool isDim3(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  if (const auto *RD = T->getAsCXXRecordDecl())
    return RD->getName() == "dim3" || RD->getName() == "uint3";
  return false;
}

/// Names the spec syntax reserves (functions).
bool reservedName(StringRef N) {
  return N == "cdiv" || N == "ceil_div" || N == "min" || N == "max" ||
         N == "ceil" || N == "floor" || N == "int" || N == "float";
}

std::string intText(const APSInt &I) { return toString(I, 10); }

/// The parenthesis opened at \p Open in \p T closes at T's last character.
bool closesAtEnd(StringRef T, size_t Open) {
  int Depth = 0;
  for (size_t I = Open; I < T.size(); ++I) {
    if (T[I] == '(')
      ++Depth;
    else if (T[I] == ')' && --Depth == 0)
      return I + 1 == T.size();
  }
  return false;
}

/// "(a op b)".
std::string wrap(const std::string &A, StringRef Op, const std::string &B) {
  return "(" + A + " " + Op.str() + " " + B + ")";
}

/// The integer expression X op C, simplified: X + 0 and X * 1 are X, a
/// negative C after + reads X - |C|.
Val affine(const std::string &X, char Op, int64_t C) {
  if (Op == '-') {
    Op = '+';
    C = -C;
  }
  if ((Op == '+' && C == 0) || ((Op == '*' || Op == '/') && C == 1))
    return Val::sym(X, false);
  std::string T = Op == '+' && C < 0
                      ? wrap(X, "-", std::to_string(-C))
                      : wrap(X, StringRef(&Op, 1), std::to_string(C));
  Val V = Val::sym(T, false);
  V.SymX = X;
  V.SymOp = Op;
  V.SymC = C;
  return V;
}

/// Folds an integer constant into an integer expression over unknown names
/// when the result is the same for every value of the names:
/// (X + a) + b, (X * a) * b, (X * a) / b with b dividing a, b * X.
std::optional<Val> fold(BinaryOperatorKind Op, const Val &L, const Val &R) {
  const Val *S = &L, *K = &R;
  if (L.Kind == Val::Int && (Op == BO_Add || Op == BO_Mul))
    std::swap(S, K); // b + X, b * X
  if (S->Kind != Val::Sym || S->SymFloat || K->Kind != Val::Int ||
      K->I.getSignificantBits() > 62)
    return std::nullopt;
  int64_t C = K->I.getSExtValue();
  char O = Op == BO_Add ? '+' : Op == BO_Sub ? '-' : Op == BO_Mul ? '*'
         : Op == BO_Div ? '/' : 0;
  if (!O)
    return std::nullopt;
  if (S->SymOp == '+' && (O == '+' || O == '-'))
    return affine(S->SymX, '+', S->SymC + (O == '+' ? C : -C));
  if (S->SymOp == '*' && O == '*')
    return affine(S->SymX, '*', S->SymC * C);
  if (S->SymOp == '*' && O == '/' && C > 0 && S->SymC % C == 0)
    return affine(S->SymX, '*', S->SymC / C);
  return affine(S->Text, O, C);
}
} // namespace

bool inSystemHeader(const SourceManager &SM, SourceLocation L) {
  return L.isValid() && SM.isInSystemHeader(SM.getExpansionLoc(L));
}

std::string floatText(double D) {
  if (std::isnan(D) || std::isinf(D))
    return "0.0";
  std::string S = formatv("{0}", D).str();
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "%.9g", D);
  S = Buf;
  if (std::stod(S) != D) {
    std::snprintf(Buf, sizeof(Buf), "%.17g", D);
    S = Buf;
  }
  if (S.find_first_of(".eE") == std::string::npos)
    S += ".0";
  return S;
}

std::string Val::text() const {
  switch (Kind) {
  case Int:
    return intText(I);
  case Float:
    return floatText(F);
  case Sym:
    return Text;
  default:
    return "";
  }
}

// ---- small facts ------------------------------------------------------------

std::string LaunchEvaluator::Impl::where(SourceLocation L) const {
  SourceLoc S = makeSourceLoc(SM, L);
  return S.File.empty() ? "?" : S.brief();
}

std::string LaunchEvaluator::Impl::text(const Stmt *S) const {
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(S->getSourceRange()), SM,
      Ctx.getLangOpts());
  std::string T;
  if (R.isValid()) {
    bool Invalid = false;
    T = Lexer::getSourceText(R, SM, Ctx.getLangOpts(), &Invalid).str();
    if (Invalid)
      T.clear();
  }
  std::string Out;
  for (char C : T) {
    if (C == '\n' || C == '\t' || C == '\r')
      C = ' ';
    if (C == ' ' && !Out.empty() && Out.back() == ' ')
      continue;
    Out += C;
  }
  if (Out.size() > 60)
    Out = Out.substr(0, 57) + "...";
  return Out;
}

bool LaunchEvaluator::Impl::before(const Stmt *A, const Stmt *B) const {
  SourceLocation LA = SM.getExpansionLoc(A->getBeginLoc());
  SourceLocation LB = SM.getExpansionLoc(B->getBeginLoc());
  return LA != LB && SM.isBeforeInTranslationUnit(LA, LB);
}

namespace {
/// Collects the loops of a body that contain a statement.
bool findLoops(const Stmt *S, const Stmt *Target,
               std::vector<const Stmt *> &Out) {
  if (!S)
    return false;
  if (S == Target)
    return true;
  bool IsLoop = isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) ||
                isa<CXXForRangeStmt>(S);
  if (IsLoop)
    Out.push_back(S);
  for (const Stmt *C : S->children())
    if (findLoops(C, Target, Out))
      return true;
  if (IsLoop)
    Out.pop_back();
  return false;
}

/// The references to \p VD in \p S that may modify it. A reference whose
/// value is only read — under an lvalue-to-rvalue conversion or a binding
/// to a const lvalue, through parentheses, `.field` accesses and const
/// member calls — cannot, and is left out: asking
/// ExprMutationAnalyzer about each of those (several matcher passes over the
/// whole body per reference) was most of the analysis time on files with a
/// long main() (docs/PERFORMANCE.md).
void collectRefs(const Stmt *S, const VarDecl *VD,
                 std::vector<const DeclRefExpr *> &Out, bool OnlyRead = false) {
  if (!S)
    return;
  if (const auto *D = dyn_cast<DeclRefExpr>(S))
    if (D->getDecl()->getCanonicalDecl() == VD->getCanonicalDecl() &&
        !OnlyRead)
      Out.push_back(D);
  bool ChildRead = false;
  if (const auto *ICE = dyn_cast<ImplicitCastExpr>(S))
    // a value read, or a binding to a const lvalue (`const dim3 &`)
    ChildRead = ICE->getCastKind() == CK_LValueToRValue ||
                (ICE->getCastKind() == CK_NoOp && ICE->isGLValue() &&
                 ICE->getType().isConstQualified());
  else if (isa<ParenExpr>(S))
    ChildRead = OnlyRead;
  else if (const auto *ME = dyn_cast<MemberExpr>(S)) {
    const auto *MD = dyn_cast<CXXMethodDecl>(ME->getMemberDecl());
    ChildRead = !ME->isArrow() &&
                ((OnlyRead && isa<FieldDecl>(ME->getMemberDecl())) ||
                 (MD && MD->isConst() && !MD->isStatic()));
  }
  for (const Stmt *C : S->children())
    collectRefs(C, VD, Out, ChildRead);
}
} // namespace

std::vector<const DeclRefExpr *> launcheval::refsTo(const Stmt *S,
                                                   const VarDecl *VD) {
  std::vector<const DeclRefExpr *> Out;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *X) {
    if (!X)
      return;
    if (const auto *D = dyn_cast<DeclRefExpr>(X))
      if (D->getDecl()->getCanonicalDecl() == VD->getCanonicalDecl())
        Out.push_back(D);
    for (const Stmt *C : X->children())
      Walk(C);
  };
  Walk(S);
  return Out;
}

const std::vector<const Stmt *> &
LaunchEvaluator::Impl::loopsAround(const Stmt *At, const FunctionDecl *F) {
  auto Key = std::make_pair(At, F);
  auto It = Loops.find(Key);
  if (It != Loops.end())
    return It->second;
  std::vector<const Stmt *> Out;
  if (!findLoops(F->getBody(), At, Out))
    Out.clear();
  return Loops[Key] = std::move(Out);
}

bool LaunchEvaluator::Impl::inLoopAround(const Stmt *S, const Stmt *At,
                                         const FunctionDecl *F) {
  SourceLocation L = SM.getExpansionLoc(S->getBeginLoc());
  for (const Stmt *Loop : loopsAround(At, F)) {
    SourceLocation B = SM.getExpansionLoc(Loop->getBeginLoc());
    SourceLocation E = SM.getExpansionLoc(Loop->getEndLoc());
    if (!SM.isBeforeInTranslationUnit(L, B) &&
        !SM.isBeforeInTranslationUnit(E, L))
      return true;
  }
  return false;
}

bool LaunchEvaluator::Impl::afterFirstRun(const Stmt *M, const Stmt *At,
                                          const FunctionDecl *F) {
  SourceLocation L = SM.getExpansionLoc(M->getBeginLoc());
  auto Within = [&](const Stmt *S) {
    return S && !SM.isBeforeInTranslationUnit(
                    L, SM.getExpansionLoc(S->getBeginLoc())) &&
           !SM.isBeforeInTranslationUnit(SM.getExpansionLoc(S->getEndLoc()),
                                         L);
  };
  for (const Stmt *Loop : loopsAround(At, F)) {
    if (!Within(Loop))
      continue;
    if (!before(M, At))
      return true; // later in the body: not run before the first launch
    if (const auto *For = dyn_cast<ForStmt>(Loop))
      if (Within(For->getInc()))
        return true; // the increment runs after the first iteration
  }
  return false;
}

namespace {
/// Calls \p Fn for every lambda expression in \p S (nested ones too).
void forEachLambda(const Stmt *S,
                   const std::function<void(const LambdaExpr *)> &Fn) {
  if (!S)
    return;
  if (const auto *LE = dyn_cast<LambdaExpr>(S))
    Fn(LE);
  for (const Stmt *C : S->children())
    forEachLambda(C, Fn);
}
} // namespace

const std::vector<const Stmt *> &
LaunchEvaluator::Impl::mutations(const VarDecl *VD, const FunctionDecl *F) {
  auto Key = std::make_pair(VD, F);
  auto It = Mutations.find(Key);
  if (It != Mutations.end())
    return It->second;
  std::vector<const Stmt *> Out;
  // A const number or array of numbers is never modified (doing so through
  // a pointer is undefined): `f(&nrow)` with `const int64_t nrow` modifies
  // nothing, whatever the callee's parameter type says.
  QualType Base = Ctx.getBaseElementType(VD->getType());
  bool Constant = !VD->getType()->isReferenceType() &&
                  VD->getType().isConstant(Ctx) && Base->isScalarType();
  if (const Stmt *Body = F && !Constant ? F->getBody() : nullptr) {
    std::vector<const DeclRefExpr *> Refs;
    collectRefs(Body, VD, Refs);
    auto &A = Analyzers[Body];
    if (!A)
      A = std::make_unique<ExprMutationAnalyzer>(*Body, Ctx);
    // A capture by reference binds a non-const reference, which the
    // mutation analysis counts as a modification: a comparator `[&](int a,
    // int b) { return g.deg[a] > g.deg[b]; }` modifies nothing. Such a
    // capture modifies VD only when the lambda's body does. The captures
    // are gathered once, when a modification is first found.
    std::optional<std::map<const Expr *, const LambdaExpr *>> CaptureOf;
    for (const DeclRefExpr *R : Refs) {
      if (!A->findMutation(R))
        continue;
      if (!CaptureOf) {
        CaptureOf.emplace();
        forEachLambda(Body, [&](const LambdaExpr *LE) {
          for (const Expr *CI : LE->capture_inits())
            if (CI)
              (*CaptureOf)[CI->IgnoreImplicit()] = LE;
        });
      }
      auto C = CaptureOf->find(R);
      if (C != CaptureOf->end() && C->second->getBody() &&
          !ExprMutationAnalyzer(*C->second->getBody(), Ctx).isMutated(VD))
        continue;
      Out.push_back(R);
    }
    std::stable_sort(Out.begin(), Out.end(),
                     [&](const Stmt *X, const Stmt *Y) { return before(X, Y); });
  }
  return Mutations[Key] = std::move(Out);
}

bool LaunchEvaluator::Impl::constantAt(const VarDecl *VD,
                                       const FunctionDecl *F, const Stmt *At,
                                       std::string &Why) {
  for (const Stmt *M : mutations(VD, F)) {
    if (At && afterFirstRun(M, At, F))
      continue;
    bool Before = !At || before(M, At);
    if (Before || inLoopAround(M, At, F)) {
      Why = "'" + VD->getNameAsString() + "' is modified at " +
            where(M->getBeginLoc()) +
            (Before ? "" : ", in a loop around the launch");
      return false;
    }
  }
  return true;
}

// ---- the translation unit's calls ----------------------------------------------

namespace {
class CallIndexer : public RecursiveASTVisitor<CallIndexer> {
  using Base = RecursiveASTVisitor<CallIndexer>;

public:
  CallIndexer(const SourceManager &SM,
              std::map<const FunctionDecl *, std::vector<CallStep>> &Callers,
              std::map<const VarDecl *, std::set<const FunctionDecl *>> &Users)
      : SM(SM), Callers(Callers), Users(Users) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseDecl(Decl *D) {
    if (!D)
      return true;
    if (!isa<TranslationUnitDecl>(D) && inSystemHeader(SM, D->getLocation()))
      return true;
    auto *FD = dyn_cast<FunctionDecl>(D);
    if (FD && FD->hasAttr<CUDAGlobalAttr>())
      return true; // device code: no host calls, no host variables
    if (FD)
      Stack.push_back(FD);
    bool R = Base::TraverseDecl(D);
    if (FD)
      Stack.pop_back();
    return R;
  }
  bool VisitCallExpr(CallExpr *CE) {
    if (Stack.empty() || isa<CUDAKernelCallExpr>(CE))
      return true;
    if (const FunctionDecl *FD = CE->getDirectCallee())
      Callers[FD->getCanonicalDecl()].push_back({CE, Stack.back()});
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (Stack.empty())
      return true;
    if (const auto *VD = dyn_cast<VarDecl>(E->getDecl()))
      if (VD->hasGlobalStorage() && !VD->isStaticLocal())
        Users[VD->getCanonicalDecl()].insert(Stack.back());
    return true;
  }

private:
  const SourceManager &SM;
  std::map<const FunctionDecl *, std::vector<CallStep>> &Callers;
  std::map<const VarDecl *, std::set<const FunctionDecl *>> &Users;
  std::vector<const FunctionDecl *> Stack;
};
} // namespace

void LaunchEvaluator::Impl::buildIndex() {
  if (IndexBuilt)
    return;
  IndexBuilt = true;
  CallIndexer I(SM, Callers, GlobalUsers);
  I.TraverseDecl(Ctx.getTranslationUnitDecl());
}

const std::vector<CallStep> &
LaunchEvaluator::Impl::callers(const FunctionDecl *F) {
  buildIndex();
  static const std::vector<CallStep> None;
  auto It = Callers.find(F->getCanonicalDecl());
  return It == Callers.end() ? None : It->second;
}

const std::set<const FunctionDecl *> &
LaunchEvaluator::Impl::globalUsers(const VarDecl *VD) {
  buildIndex();
  return GlobalUsers[VD->getCanonicalDecl()];
}

// ---- values -------------------------------------------------------------------

Val LaunchEvaluator::Impl::evalClang(const Expr *E) {
  if (E->isValueDependent() || E->isTypeDependent() ||
      !scalarType(E->getType()))
    return Val();
  Expr::EvalResult R;
  if (!E->EvaluateAsRValue(R, Ctx) || R.HasSideEffects)
    return Val();
  if (R.Val.isInt())
    return Val::ofInt(R.Val.getInt());
  if (R.Val.isFloat()) {
    bool LosesInfo = false;
    APFloat F = R.Val.getFloat();
    bool Single = &F.getSemantics() == &APFloat::IEEEsingle();
    F.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &LosesInfo);
    return Val::ofFloat(F.convertToDouble(), Single);
  }
  return Val();
}

Val LaunchEvaluator::Impl::convert(Val V, QualType To) {
  To = To.getNonReferenceType().getCanonicalType();
  if (To->isBooleanType() || To->isIntegralOrEnumerationType()) {
    unsigned W = Ctx.getIntWidth(To);
    bool Uns = To->isUnsignedIntegerOrEnumerationType() || To->isBooleanType();
    if (V.Kind == Val::Int) {
      APSInt I = To->isBooleanType()
                     ? APSInt(APInt(1, V.I.getBoolValue() ? 1 : 0), true)
                     : V.I.extOrTrunc(W);
      I.setIsUnsigned(Uns);
      V.I = I;
      return V;
    }
    if (V.Kind == Val::Float) {
      if (To->isBooleanType())
        return Val::ofInt(APSInt(APInt(1, V.F != 0 ? 1 : 0), true));
      double T = std::trunc(V.F);
      if (std::isnan(T) || T < -9.2e18 || T > (Uns ? 1.8e19 : 9.2e18) ||
          (Uns && T < 0))
        return Val::unknown("a floating value out of the range of '" +
                            To.getAsString() + "'");
      APSInt I64(APInt(64, Uns ? uint64_t(T) : uint64_t(int64_t(T))), Uns);
      Val R = Val::ofInt(I64.extOrTrunc(W));
      R.How = V.How;
      return R;
    }
    if (V.Kind == Val::Sym && V.SymFloat) {
      StringRef T(V.Text);
      // int(float(x)) of an integer x is x.
      if (T.starts_with("float(") && closesAtEnd(T, 5))
        return Val::sym(T.drop_front(6).drop_back().str(), false);
      return Val::sym("int(" + V.Text + ")", false);
    }
    return V;
  }
  if (To->isRealFloatingType()) {
    bool Single = To->isSpecificBuiltinType(BuiltinType::Float) ||
                  Ctx.getTypeSize(To) < 32;
    if (V.Kind == Val::Int) {
      double D = V.I.isSigned() ? double(V.I.getSExtValue())
                                : double(V.I.getZExtValue());
      Val R = Val::ofFloat(D, Single);
      R.How = V.How;
      return R;
    }
    if (V.Kind == Val::Float) {
      V.Single = Single;
      if (Single)
        V.F = double(float(V.F));
      return V;
    }
    if (V.Kind == Val::Sym && !V.SymFloat)
      return Val::sym("float(" + V.Text + ")", true);
  }
  return V;
}

Val LaunchEvaluator::Impl::eval(const Expr *E, const Frame &Fr) {
  if (!E)
    return Val::unknown("no expression");
  if (E->isValueDependent() || E->isTypeDependent())
    return Val::unknown("depends on a template parameter");
  if (St->Depth > kMaxDepth)
    return Val::unknown("too deeply nested to follow");
  ++St->Depth;
  Val V = evalInner(E, Fr);
  --St->Depth;
  return V;
}

Val LaunchEvaluator::Impl::evalInner(const Expr *E, const Frame &Fr) {
  QualType T = E->getType();
  if (T->isPointerType() || T->isArrayType())
    return evalPointer(E, Fr);
  if (Val C = evalClang(E); C.Kind != Val::Unknown)
    return C;
  const Expr *S = skipWrappers(E);
  if (S != E)
    return eval(S, Fr);
  if (const auto *C = dyn_cast<CastExpr>(S)) {
    if (isDim3(T) || isa<CXXConstructExpr>(C->getSubExpr()->IgnoreParens()))
      return eval(C->getSubExpr(), Fr);
    return convert(eval(C->getSubExpr(), Fr), T);
  }
  if (const auto *D = dyn_cast<DeclRefExpr>(S))
    return evalDeclRef(D, Fr);
  if (const auto *U = dyn_cast<UnaryOperator>(S))
    return evalUnary(U, Fr);
  if (const auto *B = dyn_cast<BinaryOperator>(S))
    return evalBinary(B, Fr);
  if (const auto *C = dyn_cast<AbstractConditionalOperator>(S))
    return evalConditional(C, Fr);
  if (const auto *C = dyn_cast<CXXConstructExpr>(S))
    return evalConstruct(C, Fr);
  if (const auto *C = dyn_cast<CallExpr>(S))
    return evalCall(C, Fr);
  if (const auto *M = dyn_cast<MemberExpr>(S))
    return evalMember(M, Fr);
  if (const auto *A = dyn_cast<ArraySubscriptExpr>(S))
    return evalSubscript(A, Fr);
  if (const auto *D = dyn_cast<CXXDefaultArgExpr>(S))
    return eval(D->getExpr(), Fr);
  if (const auto *D = dyn_cast<CXXDefaultInitExpr>(S))
    return eval(D->getExpr(), Fr);
  if (const auto *IL = dyn_cast<InitListExpr>(S)) {
    if (IL->getNumInits() == 1 && scalarType(T))
      return convert(eval(IL->getInit(0), Fr), T);
  }
  return Val::unknown("'" + text(S) + "' is not a value the tool can follow");
}

Val LaunchEvaluator::Impl::evalUnary(const UnaryOperator *U, const Frame &Fr) {
  Val V = eval(U->getSubExpr(), Fr);
  switch (U->getOpcode()) {
  case UO_Plus:
    return V;
  case UO_Minus:
    if (V.Kind == Val::Int)
      return Val::ofInt(-V.I);
    if (V.Kind == Val::Float)
      return Val::ofFloat(-V.F, V.Single);
    if (V.Kind == Val::Sym)
      return Val::sym("(-" + V.Text + ")", V.SymFloat);
    return V;
  case UO_Not:
    if (V.Kind == Val::Int)
      return Val::ofInt(APSInt(~V.I, V.I.isUnsigned()));
    break;
  case UO_LNot:
    if (V.isNum()) {
      bool Zero = V.Kind == Val::Int ? V.I == 0 : V.F == 0;
      return convert(Val::ofInt64(Zero ? 1 : 0), U->getType());
    }
    break;
  default:
    break;
  }
  if (V.Kind == Val::Unknown)
    return V;
  return Val::unknown("'" + text(U) + "' on values not known");
}

Val LaunchEvaluator::Impl::arith(BinaryOperatorKind Op, Val L, Val R,
                                 QualType T, QualType LT) {
  bool Cmp = BinaryOperator::isComparisonOp(Op);
  bool Shift = BinaryOperator::isShiftOp(Op);
  QualType OpT = Cmp || Shift ? LT : T;
  L = convert(L, OpT);
  if (!Shift)
    R = convert(R, OpT);
  if (L.Kind == Val::Float || R.Kind == Val::Float) {
    if (!L.isNum() || !R.isNum())
      return Val::unknown("");
    double A = L.Kind == Val::Float ? L.F : double(L.I.getSExtValue());
    double B = R.Kind == Val::Float ? R.F : double(R.I.getSExtValue());
    bool Single = L.Single;
    switch (Op) {
    case BO_Add: return Val::ofFloat(A + B, Single);
    case BO_Sub: return Val::ofFloat(A - B, Single);
    case BO_Mul: return Val::ofFloat(A * B, Single);
    case BO_Div:
      if (B == 0)
        return Val::unknown("division by zero");
      return Val::ofFloat(A / B, Single);
    case BO_LT: return convert(Val::ofInt64(A < B), T);
    case BO_GT: return convert(Val::ofInt64(A > B), T);
    case BO_LE: return convert(Val::ofInt64(A <= B), T);
    case BO_GE: return convert(Val::ofInt64(A >= B), T);
    case BO_EQ: return convert(Val::ofInt64(A == B), T);
    case BO_NE: return convert(Val::ofInt64(A != B), T);
    default: return Val::unknown("");
    }
  }
  if (L.Kind != Val::Int || R.Kind != Val::Int)
    return Val::unknown("");
  const APSInt &A = L.I;
  APSInt B = Shift ? R.I : R.I.extOrTrunc(A.getBitWidth());
  if (!Shift)
    B.setIsUnsigned(A.isUnsigned());
  switch (Op) {
  case BO_Add: return Val::ofInt(A + B);
  case BO_Sub: return Val::ofInt(A - B);
  case BO_Mul: return Val::ofInt(A * B);
  case BO_Div:
  case BO_Rem:
    if (B == 0)
      return Val::unknown("division by zero");
    // The most negative value divided by -1 overflows.
    if (A.isSigned() && B.isAllOnes() && A.isMinSignedValue())
      return Val::unknown("an integer division that overflows");
    return Val::ofInt(Op == BO_Div ? A / B : A % B);
  case BO_Shl:
  case BO_Shr: {
    uint64_t N = B.getLimitedValue();
    if (N >= A.getBitWidth())
      return Val::unknown("a shift by " + std::to_string(N));
    return Val::ofInt(Op == BO_Shl ? A << unsigned(N) : A >> unsigned(N));
  }
  case BO_And: return Val::ofInt(A & B);
  case BO_Or: return Val::ofInt(A | B);
  case BO_Xor: return Val::ofInt(A ^ B);
  case BO_LT: return convert(Val::ofInt64(A < B), T);
  case BO_GT: return convert(Val::ofInt64(A > B), T);
  case BO_LE: return convert(Val::ofInt64(A <= B), T);
  case BO_GE: return convert(Val::ofInt64(A >= B), T);
  case BO_EQ: return convert(Val::ofInt64(A == B), T);
  case BO_NE: return convert(Val::ofInt64(A != B), T);
  default: return Val::unknown("");
  }
}

Val LaunchEvaluator::Impl::evalBinary(const BinaryOperator *B,
                                      const Frame &Fr) {
  BinaryOperatorKind Op = B->getOpcode();
  if (Op == BO_Comma)
    return eval(B->getRHS(), Fr);
  if (B->isAssignmentOp())
    return Val::unknown("'" + text(B) + "' assigns");
  Val L = eval(B->getLHS(), Fr);
  if (Op == BO_LAnd || Op == BO_LOr) {
    Val LB = convert(L, Ctx.BoolTy);
    if (LB.Kind != Val::Int)
      return Val::unknown("'" + text(B) + "' tests values not known");
    bool LV = LB.I != 0;
    if ((Op == BO_LAnd && !LV) || (Op == BO_LOr && LV))
      return convert(Val::ofInt64(LV), B->getType());
    Val RB = convert(eval(B->getRHS(), Fr), Ctx.BoolTy);
    if (RB.Kind != Val::Int)
      return Val::unknown("'" + text(B) + "' tests values not known");
    return convert(Val::ofInt64(RB.I != 0), B->getType());
  }
  Val R = eval(B->getRHS(), Fr);
  return combine(Op, L, R, B->getType(), B->getLHS()->getType(), B);
}

Val LaunchEvaluator::Impl::combine(BinaryOperatorKind Op, Val L, Val R,
                                   QualType T, QualType LT, const Stmt *S) {
  if (L.Kind == Val::Unknown)
    return L;
  if (R.Kind == Val::Unknown)
    return R;
  if (L.isNum() && R.isNum()) {
    Val V = arith(Op, L, R, T, LT);
    if (V.Kind == Val::Unknown && V.Why.empty())
      V.Why = "'" + text(S) + "' cannot be evaluated";
    return V;
  }
  // An expression over unknown names, when the spec syntax has the operator.
  static const std::map<BinaryOperatorKind, StringRef> Ops = {
      {BO_Add, "+"}, {BO_Sub, "-"}, {BO_Mul, "*"}, {BO_Div, "/"},
      {BO_Rem, "%"}, {BO_Shl, "<<"}, {BO_Shr, ">>"}};
  auto It = Ops.find(Op);
  if (It == Ops.end() || !L.isScalar() || !R.isScalar())
    return Val::unknown("'" + text(S) + "' on values not known");
  bool IsFloat = T->isRealFloatingType();
  if (!BinaryOperator::isShiftOp(Op)) {
    L = convert(L, T);
    R = convert(R, T);
  }
  if (!IsFloat)
    if (std::optional<Val> F = fold(Op, L, R))
      return *F;
  return Val::sym(wrap(L.text(), It->second, R.text()), IsFloat);
}

Val LaunchEvaluator::Impl::evalConditional(const AbstractConditionalOperator *C,
                                           const Frame &Fr) {
  Val Cond = convert(eval(C->getCond(), Fr), Ctx.BoolTy);
  if (Cond.Kind == Val::Int)
    return eval(Cond.I != 0 ? C->getTrueExpr() : C->getFalseExpr(), Fr);
  Val A = eval(C->getTrueExpr(), Fr), B = eval(C->getFalseExpr(), Fr);
  if (A.Kind == Val::Int && B.Kind == Val::Int && A.I == B.I)
    return A;
  return Val::unknown("'" + text(C->getCond()) +
                      "' decides the value and is not known" +
                      (Cond.Why.empty() ? "" : " (" + Cond.Why + ")"));
}

Val LaunchEvaluator::Impl::evalConstruct(const CXXConstructExpr *C,
                                         const Frame &Fr) {
  if (!isDim3(C->getType()))
    return Val::unknown("'" + text(C) + "' builds a '" +
                        C->getType().getAsString() + "'");
  unsigned N = C->getNumArgs();
  if (N == 1 && isDim3(C->getArg(0)->getType()))
    return eval(C->getArg(0), Fr); // copy
  Val V;
  V.Kind = Val::Dim;
  V.D.assign(3, Val::ofInt64(1));
  if (N > 3)
    return Val::unknown("a dim3 with " + std::to_string(N) + " arguments");
  for (unsigned I = 0; I < N; ++I) {
    Val A = convert(eval(C->getArg(I), Fr), Ctx.UnsignedIntTy);
    if (!A.isScalar() || A.Kind == Val::Float)
      return Val::unknown(A.Why.empty() ? "'" + text(C->getArg(I)) +
                                              "' is not known"
                                        : A.Why);
    V.D[I] = A;
  }
  return V;
}

Val LaunchEvaluator::Impl::evalMember(const MemberExpr *M, const Frame &Fr) {
  if (!isDim3(M->getBase()->getType()) || M->isArrow())
    return evalFieldAccess(M, Fr);
  Val B = eval(M->getBase(), Fr);
  if (B.Kind != Val::Dim)
    return B.Kind == Val::Unknown ? B : Val::unknown("'" + text(M) + "'");
  StringRef N = M->getMemberDecl()->getName();
  unsigned I = N == "x" ? 0 : N == "y" ? 1 : N == "z" ? 2 : 3;
  if (I == 3)
    return Val::unknown("'" + text(M) + "'");
  return B.D[I];
}

// ---- calls ------------------------------------------------------------------------

Val LaunchEvaluator::Impl::evalMath(StringRef Name, const CallExpr *C,
                                    const std::function<Val(unsigned)> &Arg,
                                    bool &Handled) {
  Handled = true;
  unsigned N = C->getNumArgs();
  bool Single = C->getType()->isSpecificBuiltinType(BuiltinType::Float);
  auto AsDouble = [](const Val &V) {
    return V.Kind == Val::Float ? V.F
           : V.I.isSigned()     ? double(V.I.getSExtValue())
                                : double(V.I.getZExtValue());
  };
  static const std::map<std::string, double (*)(double)> Unary = {
      {"ceil", [](double X) { return std::ceil(X); }},
      {"floor", [](double X) { return std::floor(X); }},
      {"sqrt", [](double X) { return std::sqrt(X); }},
      // CUDA's host math (attention's scale factor, `rsqrtf(head_dim)`).
      {"rsqrt", [](double X) { return 1.0 / std::sqrt(X); }},
      {"exp10", [](double X) { return std::pow(10.0, X); }},
      {"fabs", [](double X) { return std::fabs(X); }},
      {"round", [](double X) { return std::round(X); }},
      {"trunc", [](double X) { return std::trunc(X); }},
      {"log2", [](double X) { return std::log2(X); }},
      {"exp2", [](double X) { return std::exp2(X); }},
      {"exp", [](double X) { return std::exp(X); }},
      {"expm1", [](double X) { return std::expm1(X); }},
      {"log", [](double X) { return std::log(X); }},
      {"log10", [](double X) { return std::log10(X); }},
      {"log1p", [](double X) { return std::log1p(X); }},
      {"cbrt", [](double X) { return std::cbrt(X); }},
      {"sin", [](double X) { return std::sin(X); }},
      {"cos", [](double X) { return std::cos(X); }},
      {"tan", [](double X) { return std::tan(X); }},
      {"asin", [](double X) { return std::asin(X); }},
      {"acos", [](double X) { return std::acos(X); }},
      {"atan", [](double X) { return std::atan(X); }},
      {"sinh", [](double X) { return std::sinh(X); }},
      {"cosh", [](double X) { return std::cosh(X); }},
      {"tanh", [](double X) { return std::tanh(X); }}};
  static const std::map<std::string, double (*)(double, double)> Binary = {
      {"atan2", [](double Y, double X) { return std::atan2(Y, X); }},
      {"fmod", [](double X, double Y) { return std::fmod(X, Y); }},
      {"hypot", [](double X, double Y) { return std::hypot(X, Y); }}};
  // sinf, hypotf ...: the float forms of the same functions.
  std::string Base = Name.str();
  if (Base.size() > 1 && Base.back() == 'f' &&
      (Unary.count(Base.substr(0, Base.size() - 1)) ||
       Binary.count(Base.substr(0, Base.size() - 1))))
    Base.pop_back();
  if (N == 1 && Unary.count(Base)) {
    Val A = Arg(0);
    if (A.isNum())
      return convert(Val::ofFloat(Unary.at(Base)(AsDouble(A)), Single),
                     C->getType());
    if (A.Kind == Val::Sym && (Base == "ceil" || Base == "floor"))
      return convert(Val::sym(Base + "(" + A.Text + ")", false), C->getType());
    return A.Kind == Val::Unknown ? A : Val::unknown("'" + text(C) + "'");
  }
  if (N == 2 && (Name == "min" || Name == "max" || Name == "fmin" ||
                 Name == "fmax" || Name == "fminf" || Name == "fmaxf")) {
    Val A = convert(Arg(0), C->getType()), B = convert(Arg(1), C->getType());
    bool Min = Name.contains("min");
    if (A.isNum() && B.isNum()) {
      bool Less = AsDouble(A) < AsDouble(B);
      return Min == Less ? A : B;
    }
    if (A.isScalar() && B.isScalar())
      return Val::sym(std::string(Min ? "min(" : "max(") + A.text() + ", " +
                          B.text() + ")",
                      A.SymFloat || B.SymFloat);
    return A.Kind == Val::Unknown ? A : B;
  }
  if (N == 1 && (Name == "abs" || Name == "labs" || Name == "llabs")) {
    Val A = Arg(0);
    if (A.Kind == Val::Int)
      return Val::ofInt(A.I.isNegative() ? -A.I : A.I);
    if (A.Kind == Val::Float)
      return Val::ofFloat(std::fabs(A.F), A.Single);
    return A.Kind == Val::Unknown ? A : Val::unknown("'" + text(C) + "'");
  }
  if (N == 2 && Binary.count(Base)) {
    Val A = Arg(0), B = Arg(1);
    if (A.isNum() && B.isNum())
      return convert(Val::ofFloat(Binary.at(Base)(AsDouble(A), AsDouble(B)),
                                  Single),
                     C->getType());
    return A.Kind == Val::Unknown ? A : Val::unknown("'" + text(C) + "'");
  }
  if (N == 2 && (Name == "pow" || Name == "powf")) {
    Val A = Arg(0), B = Arg(1);
    if (A.isNum() && B.isNum())
      return convert(Val::ofFloat(std::pow(AsDouble(A), AsDouble(B)), Single),
                     C->getType());
    return A.Kind == Val::Unknown ? A : Val::unknown("'" + text(C) + "'");
  }
  Handled = false;
  return Val();
}

Val LaunchEvaluator::Impl::inlineCall(const CallExpr *C, const FunctionDecl *FD,
                                      const Frame &Fr, const Expr *Object) {
  // Small helpers (iDivUp, ceil_div, getSize): declarations of constants
  // and one `return expr;`.
  for (const Frame *P = &Fr; P; P = P->Parent)
    if (P->F == FD)
      return Val::unknown("'" + FD->getNameAsString() + "' is recursive");
  const auto *Body = dyn_cast_or_null<CompoundStmt>(FD->getBody());
  const auto *Ret = Body && Body->size()
                        ? dyn_cast<ReturnStmt>(Body->body_back())
                        : nullptr;
  if (!Body || !Ret || !Ret->getRetValue() ||
      std::any_of(Body->body_begin(), Body->body_end() - 1,
                  [](const Stmt *S) { return !isa<DeclStmt>(S); })) {
    if (Object)
      return Val::unknown("the result of '" + text(C) + "'");
    // Loops and branches (`PowTwoDivider(n)`, `isPowerOf2(n)`): run with the
    // arguments when they are known numbers.
    std::vector<Val> Args;
    PathMark M = mark();
    for (unsigned K = 0; K < C->getNumArgs() && K < FD->getNumParams(); ++K) {
      if (FD->getParamDecl(K)->getType()->isPointerType() &&
          ProgramArgs && isArgv(C->getArg(K), Fr)) {
        Args.push_back(Val()); // main's argv: read through the frame
        continue;
      }
      Val A = eval(C->getArg(K), Fr);
      if (!A.isNum()) {
        restore(M);
        std::string Arg = "'" + text(C->getArg(K)) + "'";
        return Val::unknown(
            "the result of '" + text(C) + "' (" +
            (A.Kind == Val::Sym && "'" + A.text() + "'" == Arg
                 ? Arg + " is not known"
             : A.Kind == Val::Sym ? Arg + " is '" + A.text() + "', not known"
             : A.Why.empty()    ? Arg + " is not known"
                                : Arg + ": " + A.Why) +
            ")");
      }
      Args.push_back(A);
    }
    Val V = interpretCall(FD, Args, 0, nullptr, C, &Fr);
    if (V.Kind == Val::Unknown)
      return Val::unknown("the result of '" + text(C) + "' (" + V.Why + ")");
    V.How = "the result of '" + text(C) + "', run with its arguments";
    return V;
  }
  Frame Callee;
  Callee.F = FD;
  Callee.Call = C;
  Callee.Parent = &Fr;
  Callee.At = Ret;
  Callee.Object = Object;
  return convert(eval(Ret->getRetValue(), Callee), C->getType());
}

Val LaunchEvaluator::Impl::evalCall(const CallExpr *C, const Frame &Fr) {
  const FunctionDecl *FD = C->getDirectCallee();
  if (!FD)
    return Val::unknown("the result of '" + text(C) + "'");
  if (FD->getIdentifier()) {
    bool Handled = false;
    Val V = evalMath(
        FD->getName(), C,
        [&](unsigned I) { return eval(C->getArg(I), Fr); }, Handled);
    if (Handled)
      return V;
    V = evalArgConversion(FD->getName(), C, Fr, Handled);
    if (Handled)
      return V;
  }
  const FunctionDecl *Def = FD->getDefinition();
  if (Def && !inSystemHeader(SM, Def->getLocation())) {
    const auto *MD = dyn_cast<CXXMethodDecl>(Def);
    if (!MD || MD->isStatic())
      return inlineCall(C, Def, Fr);
    // A getter (`img.width()`, `p->rows()`, `count()` in a method): its
    // members are those of the object it is called on.
    const auto *MC = dyn_cast<CXXMemberCallExpr>(C);
    if (MC && MC->getImplicitObjectArgument() && !MD->isVirtual() &&
        !isa<CXXConstructorDecl>(MD) && !isa<CXXConversionDecl>(MD))
      return inlineCall(C, Def, Fr, MC->getImplicitObjectArgument());
  }
  return Val::unknown("the result of '" + text(C) + "'");
}

// ---- variables ----------------------------------------------------------------------

Val LaunchEvaluator::Impl::root(const ValueDecl *D, const std::string &Why) {
  QualType T = D->getType().getNonReferenceType();
  if (!scalarType(T))
    return Val::unknown(Why);
  bool IsFloat = T->isRealFloatingType();
  auto It = St->Names.find(D);
  if (It != St->Names.end())
    return Val::sym(It->second, IsFloat);
  std::string Base = D->getNameAsString();
  if (Base.empty())
    Base = "value";
  std::string Name = Base;
  for (unsigned K = 2; St->Used.count(Name) || reservedName(Name); ++K)
    Name = Base + "_" + std::to_string(K);
  St->Used.insert(Name);
  St->Names[D] = Name;
  UnknownValue U;
  U.Name = Name;
  U.Where = where(D->getLocation());
  U.Why = Why;
  St->Unknowns.push_back(U);
  return Val::sym(Name, IsFloat);
}

const Frame &LaunchEvaluator::Impl::ownerFrame(const VarDecl *VD,
                                               const Expr *Use,
                                               const Frame &Fr) {
  const auto *Owner = dyn_cast<FunctionDecl>(VD->getDeclContext());
  for (const Frame *P = &Fr; P; P = P->Parent)
    if (P->F == Owner || (Owner && P->F &&
                          P->F->getCanonicalDecl() == Owner->getCanonicalDecl()))
      return *P;
  // A variable of an enclosing function used in a lambda: its function as
  // the outermost frame, at the use.
  auto F = std::make_unique<Frame>();
  F->F = Owner;
  F->At = Use;
  F->RootWhy = "a parameter of the function around a lambda";
  Extra.push_back(std::move(F));
  return *Extra.back();
}

Val LaunchEvaluator::Impl::evalDeclRef(const DeclRefExpr *D, const Frame &Fr) {
  const ValueDecl *VD = D->getDecl();
  if (const auto *EC = dyn_cast<EnumConstantDecl>(VD))
    return Val::ofInt(EC->getInitVal());
  const auto *Var = dyn_cast<VarDecl>(VD);
  if (!Var)
    return Val::unknown("'" + text(D) + "' is not a variable");
  return evalVar(Var, D, Fr);
}

Val LaunchEvaluator::Impl::evalParam(const ParmVarDecl *P, const Frame &Fr) {
  if ((!Fr.Parent || !Fr.Call) && Fr.Ext)
    return externalArg(P, Fr);
  if (Fr.Parent && Fr.Construct) {
    unsigned I = P->getFunctionScopeIndex();
    if (I >= Fr.Construct->getNumArgs())
      return root(P, "not passed to the constructor at " +
                         where(Fr.Construct->getBeginLoc()));
    Val V = eval(Fr.Construct->getArg(I), *Fr.Parent);
    if (V.Kind == Val::Unknown)
      return root(P, V.Why);
    return V;
  }
  if (!Fr.Parent || !Fr.Call) {
    bool Argc = false;
    Val V = evalArgc(P, Fr, Argc);
    if (Argc)
      return V;
    if (Fr.RootWhy.empty())
      noteUnreached(Fr.F);
    std::string Fn = Fr.F ? Fr.F->getNameAsString() + "()" : "its function";
    return root(P, Fr.RootWhy.empty()
                       ? "a parameter of " + Fn +
                             ", which no call in the files given reaches"
                       : Fr.RootWhy);
  }
  unsigned I = P->getFunctionScopeIndex();
  if (isa<CXXOperatorCallExpr>(Fr.Call) && isa<CXXMethodDecl>(Fr.F) &&
      !cast<CXXMethodDecl>(Fr.F)->isStatic())
    ++I; // the object is argument 0
  if (I >= Fr.Call->getNumArgs())
    return root(P, "not passed by the call at " +
                       where(Fr.Call->getBeginLoc()));
  if (Fr.Step >= 0)
    St->MaxStep = std::max(St->MaxStep, Fr.Step);
  Val V = eval(Fr.Call->getArg(I), *Fr.Parent);
  if (V.Kind == Val::Unknown)
    return root(P, V.Why.empty() ? "not known at the call at " +
                                       where(Fr.Call->getBeginLoc())
                                 : V.Why);
  return V;
}

namespace {
/// Whether a namespace-scope variable's initialiser mentions \p VD while
/// it can hold its address (a pointer, a reference, an array or a class):
/// writes through it are not references the index of function bodies sees.
bool aliasedIn(const DeclContext *DC, const VarDecl *VD, const SourceManager &SM) {
  for (const Decl *D : DC->decls()) {
    if (const auto *NS = dyn_cast<NamespaceDecl>(D)) {
      if (aliasedIn(NS, VD, SM))
        return true;
    } else if (const auto *LS = dyn_cast<LinkageSpecDecl>(D)) {
      if (aliasedIn(LS, VD, SM))
        return true;
    } else if (const auto *V = dyn_cast<VarDecl>(D)) {
      if (V == VD || !V->getInit() ||
          inSystemHeader(SM, V->getLocation()))
        continue;
      QualType T = V->getType();
      if ((T->isPointerType() || T->isReferenceType() || T->isArrayType() ||
           T->isRecordType()) &&
          !launcheval::refsTo(V->getInit(), VD).empty())
        return true;
    }
  }
  return false;
}
} // namespace

bool LaunchEvaluator::Impl::escapesAtFileScope(const VarDecl *VD) {
  auto It = Escapes.find(VD->getCanonicalDecl());
  if (It != Escapes.end())
    return It->second;
  return Escapes[VD->getCanonicalDecl()] =
             aliasedIn(Ctx.getTranslationUnitDecl(), VD, SM);
}

Val LaunchEvaluator::Impl::evalGlobal(const VarDecl *VD, const Frame *Fr) {
  if (VD->getType().isVolatileQualified())
    return root(VD, "'" + VD->getNameAsString() + "' is volatile");
  if (!VD->getType().isConstQualified()) {
    const FunctionDecl *Modifier = nullptr;
    const Stmt *FirstMod = nullptr;
    bool Several = false;
    for (const FunctionDecl *F : globalUsers(VD)) {
      const std::vector<const Stmt *> &Ms = mutations(VD, F);
      if (Ms.empty())
        continue;
      if (!FirstMod || before(Ms.front(), FirstMod))
        FirstMod = Ms.front();
      if (Modifier && Modifier->getCanonicalDecl() != F->getCanonicalDecl())
        Several = true;
      Modifier = F;
    }
    if (FirstMod) {
      std::string Mod = "'" + VD->getNameAsString() + "' is modified at " +
                        where(FirstMod->getBeginLoc());
      // `int n = 1024; int main(int argc, char **argv) { n = atoi(argv[1]);
      // run(); }` with the launch in run(): the path passes through main,
      // the only function that modifies n; n's value is the one it has
      // where main calls run() (the call on the path), found as for a
      // local of main. main runs once and nothing it calls modifies n, so
      // that value reaches the launch. Not for another modifier (it may
      // run several times, or recursively, each run starting from what
      // the last one left), a static data member (`obj.n` is not a
      // reference the index sees) or a variable whose address or a
      // reference to it is taken at namespace scope (writes through it).
      const Frame *Own = nullptr;
      const Stmt *At = nullptr;
      if (Fr && !Several && Modifier->isMain() &&
          VD->getDeclContext()->isFileContext() && !escapesAtFileScope(VD)) {
        const Frame *Child = nullptr;
        for (const Frame *X = Fr; X; Child = X, X = X->Parent)
          if (X->F &&
              X->F->getCanonicalDecl() == Modifier->getCanonicalDecl()) {
            Own = X;
            At = Child ? static_cast<const Stmt *>(Child->Call) : X->At;
            break;
          }
      }
      if (!Own || !At)
        return root(VD, Mod);
      bool Earlier = false;
      for (const Stmt *M : mutations(VD, Own->F)) {
        if (encloses(At, M, Own->F))
          return root(VD, Mod); // `run(n = 5)`: written by the call itself
        Earlier |= before(M, At);
      }
      if (Earlier) {
        Val V = valueAt(VD, *Own, At);
        if (V.Kind == Val::Unknown)
          return root(VD, V.Why.empty() ? Mod : V.Why);
        return V;
      }
      // Modified only after the call (also in a loop around it: the value
      // at its first run, as for locals): the initialiser's value (below).
    }
  }
  const Expr *Init = VD->getAnyInitializer();
  if (!Init)
    return root(VD, "'" + VD->getNameAsString() + "' has no initialiser here");
  Frame G; // file scope: no function, no parameters
  G.At = Init;
  Val V = convert(eval(Init, G), VD->getType());
  if (V.Kind == Val::Unknown)
    return root(VD, V.Why);
  return V;
}

Val LaunchEvaluator::Impl::evalVar(const VarDecl *VD, const Expr *Use,
                                   const Frame &Fr) {
  if (VD->getType()->isPointerType() || VD->getType()->isArrayType())
    return evalPointerVar(VD, Use, Fr);
  if (VD->getType()->isReferenceType())
    return root(VD, "'" + VD->getNameAsString() + "' is a reference");
  Val V;
  if (VD->hasGlobalStorage() && !VD->isStaticLocal()) {
    V = evalGlobal(VD, &Fr);
  } else {
    if (VD->isStaticLocal() && !VD->getType().isConstQualified())
      return root(VD, "'" + VD->getNameAsString() + "' is a static local");
    const Frame &Own = ownerFrame(VD, Use, Fr);
    // Where the value is needed in the variable's own function.
    const Stmt *At = Own.F == Fr.F ? Fr.At : Own.At;
    if (!Own.F)
      return root(VD, "not followed");
    V = valueAt(VD, Own, At);
  }
  if (V.How.empty() && V.Kind != Val::Unknown)
    V.How = "'" + VD->getNameAsString() + "' (" + where(VD->getLocation()) +
            ")";
  return V;
}

} // namespace cudal1
