//===- RuleSupport.cpp - helpers shared by rewrite rules ------------------===//
#include "cudal1/Rules/RuleSupport.h"
#include "cudal1/Rules/SpelledType.h"
#include "cudal1/Analysis/AstFacts.h"
#include "cudal1/Frontend/UserCode.h"
#include "cudal1/Model/KernelModel.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <mutex>

using namespace clang;
using namespace llvm;

namespace cudal1 {

// --- parsed-file registry ---------------------------------------------------

static std::mutex ParsedMutex;
static std::map<std::string, std::string> &parsedHashes() {
  static std::map<std::string, std::string> M;
  return M;
}

std::string contentHash(StringRef Contents) {
  auto H = SHA256::hash(arrayRefFromStringRef(Contents));
  return toHex(H, /*LowerCase=*/true);
}

void recordParsedFile(StringRef Path, StringRef Contents) {
  std::lock_guard<std::mutex> L(ParsedMutex);
  auto &M = parsedHashes();
  if (!M.count(Path.str()))
    M[Path.str()] = contentHash(Contents);
}

std::string parsedFileHash(StringRef Path) {
  std::lock_guard<std::mutex> L(ParsedMutex);
  auto &M = parsedHashes();
  auto It = M.find(Path.str());
  return It == M.end() ? "" : It->second;
}

// --- macros -------------------------------------------------------------------

/// A preprocessor for macro look-ups, set by the checks that have one.
static thread_local Preprocessor *CurrentPP = nullptr;
void setRulePreprocessor(const Preprocessor *PP) {
  CurrentPP = const_cast<Preprocessor *>(PP);
}

bool inMacro(SourceRange R) {
  return R.getBegin().isMacroID() || R.getEnd().isMacroID();
}

/// True when every parameter of the macro expanded at \p ArgLoc appears at
/// most once in its body and the body has no # or ## (so text written in an
/// argument is expanded exactly once, verbatim).
static bool macroArgsUsedOnce(const ASTContext &Ctx, SourceLocation ArgLoc,
                              std::string &MacroName) {
  const SourceManager &SM = Ctx.getSourceManager();
  MacroName =
      Lexer::getImmediateMacroName(ArgLoc, SM, Ctx.getLangOpts()).str();
  if (!CurrentPP || MacroName.empty())
    return false;
  const IdentifierInfo *II = CurrentPP->getIdentifierInfo(MacroName);
  MacroDefinition MD =
      CurrentPP->getMacroDefinitionAtLoc(II, SM.getExpansionLoc(ArgLoc));
  const MacroInfo *MI = MD.getMacroInfo();
  if (!MI)
    MI = CurrentPP->getMacroInfo(II);
  if (!MI || !MI->isFunctionLike())
    return false;
  std::map<const IdentifierInfo *, unsigned> Uses;
  for (const IdentifierInfo *P : MI->params())
    Uses[P] = 0;
  for (const Token &T : MI->tokens()) {
    if (T.is(tok::hash) || T.is(tok::hashhash) || T.is(tok::hashat))
      return false;
    if (const IdentifierInfo *TI = T.getIdentifierInfo()) {
      auto It = Uses.find(TI);
      if (It != Uses.end() && ++It->second > 1)
        return false;
    }
  }
  return true;
}

std::optional<CharSourceRange> editableRange(const ASTContext &Ctx,
                                             CharSourceRange R,
                                             std::string &Why) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation B = R.getBegin(), E = R.getEnd();
  if (B.isInvalid() || E.isInvalid()) {
    Why = "the code has no source location";
    return std::nullopt;
  }
  if (B.isMacroID() || E.isMacroID()) {
    std::string Name;
    if (!SM.isMacroArgExpansion(B) || !SM.isMacroArgExpansion(E)) {
      std::string N =
          Lexer::getImmediateMacroName(B.isMacroID() ? B : E, SM,
                                       Ctx.getLangOpts())
              .str();
      Why = "the code comes from the body of macro '" + N +
            "'; the macro's text is not changed";
      return std::nullopt;
    }
    if (!macroArgsUsedOnce(Ctx, B, Name)) {
      Why = "the code is an argument of macro '" + Name +
            "', which uses an argument more than once, stringifies or pastes "
            "it; the text is not changed";
      return std::nullopt;
    }
    SourceLocation SB = SM.getSpellingLoc(B), SE = SM.getSpellingLoc(E);
    if (SB.isMacroID() || SE.isMacroID() || !SM.isWrittenInSameFile(SB, SE)) {
      Why = "the code is spread over several macro expansions";
      return std::nullopt;
    }
  }
  CharSourceRange F = Lexer::makeFileCharRange(R, SM, Ctx.getLangOpts());
  if (F.isInvalid()) {
    Why = "the code cannot be mapped to one range of one file (macro "
          "expansion)";
    return std::nullopt;
  }
  if (SM.isInSystemHeader(F.getBegin())) {
    Why = "the code is in a system header";
    return std::nullopt;
  }
  if (SM.getFileID(F.getBegin()) != SM.getFileID(F.getEnd())) {
    Why = "the range spans several files";
    return std::nullopt;
  }
  return F;
}

static std::string filePathOf(const SourceManager &SM, SourceLocation L) {
  return makeSourceLoc(SM, L).File;
}

static void recordFileOf(const SourceManager &SM, SourceLocation L,
                         const std::string &Path) {
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(SM.getFileID(L), &Invalid);
  if (!Invalid)
    recordParsedFile(Path, Buf);
}

TextEdit makeTextEdit(const ASTContext &Ctx, CharSourceRange R,
                      StringRef Text) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange F =
      R.isTokenRange()
          ? CharSourceRange::getCharRange(
                R.getBegin(), Lexer::getLocForEndOfToken(R.getEnd(), 0, SM,
                                                         Ctx.getLangOpts()))
          : R;
  TextEdit T;
  T.File = filePathOf(SM, F.getBegin());
  unsigned B = SM.getFileOffset(F.getBegin());
  unsigned E = SM.getFileOffset(F.getEnd());
  T.Offset = B;
  T.Length = E >= B ? E - B : 0;
  T.Replacement = Text.str();
  recordFileOf(SM, F.getBegin(), T.File);
  return T;
}

TextEdit makeInsertion(const ASTContext &Ctx, SourceLocation L,
                       StringRef Text) {
  return makeTextEdit(Ctx, CharSourceRange::getCharRange(L, L), Text);
}

unsigned countReferences(const Stmt *S, const Decl *D) {
  unsigned N = 0;
  forEachStmt(S, [&](const Stmt *X) {
    if (const auto *R = dyn_cast<DeclRefExpr>(X))
      N += R->getDecl() == D;
  });
  return N;
}

std::string sourceText(const ASTContext &Ctx, SourceRange R) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange CR = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(R), SM, Ctx.getLangOpts());
  if (CR.isInvalid())
    return "";
  bool Invalid = false;
  StringRef T = Lexer::getSourceText(CR, SM, Ctx.getLangOpts(), &Invalid);
  return Invalid ? "" : T.str();
}

// --- types as written -----------------------------------------------------------

namespace {

/// The written type of a pointer's or array's element.
std::optional<TypeLoc> elementLoc(TypeLoc TL) {
  while (true) {
    TL = TL.getUnqualifiedLoc();
    if (auto P = TL.getAs<ParenTypeLoc>())
      TL = P.getInnerLoc();
    else if (auto A = TL.getAs<AttributedTypeLoc>())
      TL = A.getModifiedLoc();
    else
      break;
  }
  if (auto P = TL.getAs<PointerTypeLoc>())
    return P.getPointeeLoc();
  if (auto A = TL.getAs<ArrayTypeLoc>())
    return A.getElementLoc();
  return std::nullopt;
}

/// The written type of the value \p E reads: a variable, a field, an element
/// of one (p[i], *p).
std::optional<TypeLoc> writtenLoc(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  const ValueDecl *D = nullptr;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    D = DRE->getDecl();
  else if (const auto *ME = dyn_cast<MemberExpr>(E))
    D = ME->getMemberDecl();
  if (D) {
    const auto *DD = dyn_cast<DeclaratorDecl>(D);
    if (!DD || !DD->getTypeSourceInfo())
      return std::nullopt;
    TypeLoc TL = DD->getTypeSourceInfo()->getTypeLoc().getUnqualifiedLoc();
    if (auto R = TL.getAs<ReferenceTypeLoc>())
      return R.getPointeeLoc();
    return TL;
  }
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
    if (auto B = writtenLoc(AS->getBase()))
      return elementLoc(*B);
    return std::nullopt;
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_Deref) {
    if (auto B = writtenLoc(U->getSubExpr()))
      return elementLoc(*B);
  }
  return std::nullopt;
}

} // namespace

/// In a template instantiation, a type written as a template parameter
/// (`T`) carries the substitution as sugar: the parameter's name, which the
/// template's own text (what a fix edits) can use.
static std::string substitutedParameter(QualType Q) {
  if (const auto *ST = dyn_cast<SubstTemplateTypeParmType>(
          Q.getUnqualifiedType().getTypePtr()))
    if (const TemplateTypeParmDecl *P = ST->getReplacedParameter())
      if (P->getIdentifier())
        return P->getName().str();
  return "";
}

std::string spelledType(const ASTContext &Ctx, QualType T,
                        const TypeLoc *Written) {
  T = T.getUnqualifiedType();
  if (Written && !Written->isNull()) {
    TypeLoc TL = Written->getUnqualifiedLoc();
    if (Ctx.hasSameUnqualifiedType(TL.getType(), T)) {
      const SourceManager &SM = Ctx.getSourceManager();
      SourceRange R = TL.getSourceRange();
      SourceLocation B = R.getBegin(), E = R.getEnd();
      if (B.isMacroID() || E.isMacroID()) {
        // `#define DATA_TYPE float`: the macro's name, when the macro
        // expands to exactly this type.
        SourceLocation MB, ME;
        if (B.isMacroID() && E.isMacroID() &&
            Lexer::isAtStartOfMacroExpansion(B, SM, Ctx.getLangOpts(), &MB) &&
            Lexer::isAtEndOfMacroExpansion(E, SM, Ctx.getLangOpts(), &ME) &&
            SM.getFileID(MB) == SM.getFileID(ME)) {
          std::string Text = sourceText(Ctx, SourceRange(MB, ME));
          if (!Text.empty())
            return Text;
        }
      } else {
        // A typedef or template parameter: the type with the sugar it was
        // written with.
        std::string P = substitutedParameter(TL.getType());
        if (!P.empty())
          return P;
        return TL.getType().getUnqualifiedType().getAsString(
            Ctx.getPrintingPolicy());
      }
    }
  }
  std::string P = substitutedParameter(T);
  if (!P.empty())
    return P;
  return T.getAsString(Ctx.getPrintingPolicy());
}

std::string spelledType(const ASTContext &Ctx, QualType T, const Expr *From) {
  std::optional<TypeLoc> TL = From ? writtenLoc(From) : std::nullopt;
  return spelledType(Ctx, T, TL ? &*TL : nullptr);
}

std::string spelledType(const ASTContext &Ctx, const DeclaratorDecl *D) {
  if (!D->getTypeSourceInfo())
    return spelledType(Ctx, D->getType(), static_cast<const TypeLoc *>(nullptr));
  TypeLoc TL = D->getTypeSourceInfo()->getTypeLoc();
  return spelledType(Ctx, D->getType(), &TL);
}

// --- findings ---------------------------------------------------------------

static std::string kernelName(const FunctionDecl *FD) {
  if (!FD)
    return "";
  if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
    FD = P;
  if (FD->hasAttr<CUDAGlobalAttr>())
    return FD->getQualifiedNameAsString();
  return "";
}

Finding makeFinding(const ASTContext &Ctx, StringRef RuleId, SourceLocation L,
                    StringRef Message, const FunctionDecl *InFunction,
                    SourceRange Range) {
  const SourceManager &SM = Ctx.getSourceManager();
  Finding F;
  F.RuleId = RuleId.str();
  F.Loc = makeSourceLoc(SM, L);
  SourceLocation E = SM.getExpansionLoc(L);
  F.Offset = E.isValid() ? SM.getFileOffset(E) : 0;
  F.Message = Message.str();
  F.Kernel = kernelName(InFunction);
  if (Range.isInvalid() || E.isInvalid())
    return F;
  // The highlighted range: only when it starts at or before the caret and
  // ends after it, in the same file.
  CharSourceRange CR = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Range), SM, Ctx.getLangOpts());
  if (CR.isInvalid())
    return F;
  SourceLocation End = CR.getEnd();
  if (End.isValid() && SM.getFileID(End) == SM.getFileID(E) &&
      SM.getFileOffset(End) > SM.getFileOffset(CR.getBegin()))
    F.RangeEnd = makeSourceLoc(SM, End.getLocWithOffset(-1));
  if (CR.getBegin() != E && SM.getFileID(CR.getBegin()) == SM.getFileID(E) &&
      SM.getFileOffset(CR.getBegin()) > F.Offset)
    F.RangeEnd = SourceLoc();
  return F;
}

FindingNote makeNote(const ASTContext &Ctx, SourceLocation L,
                     StringRef Message) {
  FindingNote N;
  if (L.isValid())
    N.Loc = makeSourceLoc(Ctx.getSourceManager(), L);
  N.Message = Message.str();
  return N;
}

std::string factorText(double F) {
  char Buf[32];
  if (F >= 10 || F == (int)F)
    snprintf(Buf, sizeof(Buf), "%.0fx", F);
  else
    snprintf(Buf, sizeof(Buf), "%.1fx", F);
  return Buf;
}

// --- context ----------------------------------------------------------------

const FunctionDecl *enclosingFunction(ASTContext &Ctx, const DynTypedNode &N) {
  DynTypedNode Cur = N;
  for (unsigned Depth = 0; Depth < 512; ++Depth) {
    auto Parents = Ctx.getParents(Cur);
    if (Parents.empty())
      return nullptr;
    Cur = Parents[0];
    if (const auto *FD = Cur.get<FunctionDecl>())
      return FD;
    if (const auto *LE = Cur.get<LambdaExpr>())
      return LE->getCallOperator();
  }
  return nullptr;
}

const Stmt *enclosingLoop(ASTContext &Ctx, const Stmt &S) {
  DynTypedNode Child = DynTypedNode::create(S);
  for (unsigned Depth = 0; Depth < 512; ++Depth) {
    auto Parents = Ctx.getParents(Child);
    if (Parents.empty())
      return nullptr;
    const DynTypedNode &P = Parents[0];
    const Stmt *C = Child.get<Stmt>();
    if (const auto *F = P.get<ForStmt>()) {
      if (C != F->getInit())
        return F;
    } else if (const auto *W = P.get<WhileStmt>()) {
      return W;
    } else if (const auto *D = P.get<DoStmt>()) {
      return D;
    } else if (const auto *RF = P.get<CXXForRangeStmt>()) {
      if (C == RF->getBody())
        return RF;
    } else if (P.get<FunctionDecl>() || P.get<LambdaExpr>()) {
      return nullptr;
    }
    Child = P;
  }
  return nullptr;
}

static const Expr *parentExpr(ASTContext &Ctx, const Expr *E) {
  auto P = Ctx.getParents(*E);
  return P.empty() ? nullptr : P[0].get<Expr>();
}

const Expr *parentSkippingParens(ASTContext &Ctx, const Expr *E,
                                 const Expr **Child) {
  const Expr *C = E;
  const Expr *P = parentExpr(Ctx, E);
  while (P && isa<ParenExpr>(P)) {
    C = P;
    P = parentExpr(Ctx, P);
  }
  if (Child)
    *Child = C;
  return P;
}

bool hasLoopHint(ASTContext &Ctx, const Stmt *Loop) {
  auto P = Ctx.getParents(*Loop);
  if (P.empty())
    return false;
  if (const auto *AS = P[0].get<AttributedStmt>())
    for (const Attr *A : AS->getAttrs())
      if (isa<LoopHintAttr>(A))
        return true;
  return false;
}

bool isDeviceCode(const FunctionDecl *FD) {
  if (!FD)
    return false;
  if (FD->hasAttr<CUDAGlobalAttr>())
    return true;
  const auto *A = FD->getAttr<CUDADeviceAttr>();
  if (!A)
    return false;
  if (!A->isImplicit())
    return true;
  // Clang makes lambdas and constexpr functions implicitly __host__
  // __device__; nvcc compiles a lambda for the device only inside device code
  // (a lambda handed to std::thread in a host function is host code), and a
  // constexpr function the user wrote without __device__ is written for the
  // host.
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
      MD && MD->getParent()->isLambda())
    return isDeviceCode(dyn_cast_or_null<FunctionDecl>(
        MD->getParent()->getParentFunctionOrMethod()));
  return false;
}

bool isHostCode(const FunctionDecl *FD) {
  if (!FD)
    return true; // global initialisers
  if (FD->hasAttr<CUDAGlobalAttr>())
    return false;
  if (FD->hasAttr<CUDADeviceAttr>())
    return FD->hasAttr<CUDAHostAttr>();
  return true;
}

bool isInInstantiation(const FunctionDecl *FD) {
  for (const DeclContext *DC = FD; DC; DC = DC->getParent()) {
    if (const auto *F = dyn_cast<FunctionDecl>(DC))
      if (F->isTemplateInstantiation() ||
          F->getTemplateInstantiationPattern())
        return true;
    if (const auto *R = dyn_cast<CXXRecordDecl>(DC))
      if (isa<ClassTemplateSpecializationDecl>(R) ||
          R->getTemplateSpecializationKind() == TSK_ImplicitInstantiation)
        return true;
  }
  return false;
}

namespace {
class DeviceFnFinder : public RecursiveASTVisitor<DeviceFnFinder> {
public:
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitLambdaBodies() const { return false; }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (isDeviceCode(FD) && FD->doesThisDeclarationHaveABody() && !FD->isDependentContext() &&
        !FD->isInvalidDecl())
      Fns.push_back(FD);
    return true;
  }
  std::vector<const FunctionDecl *> Fns;
};

void walkStmt(const Stmt *S, const FunctionDecl *FD,
              std::vector<const Stmt *> &Loops,
              const std::function<void(const Stmt *, const FunctionDecl *,
                                       ArrayRef<const Stmt *>)> &Fn) {
  if (!S)
    return;
  Fn(S, FD, Loops);
  if (isLoop(S)) {
    // The init of a for loop runs once, outside the loop.
    if (const auto *FS = dyn_cast<ForStmt>(S))
      walkStmt(FS->getInit(), FD, Loops, Fn);
    Loops.push_back(S);
    for (const Stmt *C : S->children())
      if (!(isa<ForStmt>(S) && C == cast<ForStmt>(S)->getInit()))
        walkStmt(C, FD, Loops, Fn);
    Loops.pop_back();
    return;
  }
  if (isa<LambdaExpr>(S))
    return;
  for (const Stmt *C : S->children())
    walkStmt(C, FD, Loops, Fn);
}
} // namespace

void forEachDeviceStmt(
    ASTContext &Ctx, const CheckContext &CC,
    const std::function<void(const Stmt *, const FunctionDecl *,
                             ArrayRef<const Stmt *>)> &Fn) {
  DeviceFnFinder F;
  F.TraverseDecl(Ctx.getTranslationUnitDecl());
  for (const FunctionDecl *FD : F.Fns) {
    if (!isUserCode(Ctx.getSourceManager(), FD->getLocation(), CC.IsUserFile))
      continue;
    // Host-device functions are checked too: they run on the device.
    std::vector<const Stmt *> Loops;
    walkStmt(FD->getBody(), FD, Loops, Fn);
  }
}

// --- value facts --------------------------------------------------------------

/// threadIdx.x and friends: the variable name and the dimension.
static bool cudaBuiltin(const Expr *E, StringRef &Var, char &Dim) {
  static thread_local std::string Name;
  Name = builtinName(E);
  if (Name.empty())
    return false;
  Var = StringRef(Name).split('.').first;
  Dim = Name.back();
  return true;
}

static std::optional<uint64_t> builtinBound(StringRef Var, char Dim) {
  if (Var == "threadIdx")
    return Dim == 'z' ? 63 : 1023;
  if (Var == "blockDim")
    return Dim == 'z' ? 64 : 1024;
  if (Var == "blockIdx")
    return Dim == 'x' ? 2147483646ULL : 65534;
  if (Var == "gridDim")
    return Dim == 'x' ? 2147483647ULL : 65535;
  return std::nullopt;
}

namespace {
struct BoundFinder {
  ASTContext &Ctx;
  const FunctionDecl *FD;
  std::unique_ptr<ExprMutationAnalyzer> EMA;
  unsigned Depth = 0;

  /// Upper bound of a provably non-negative value; nullopt when it may be
  /// negative (or the bound is unknown for a signed value).
  std::optional<uint64_t> bound(const Expr *E) {
    if (!E || ++Depth > 64 || E->isValueDependent() || E->isTypeDependent())
      return std::nullopt;
    QualType T = E->getType();
    if (!T->isIntegralOrEnumerationType() && !T->isBooleanType())
      return std::nullopt;
    Expr::EvalResult R;
    if (E->EvaluateAsInt(R, Ctx)) {
      if (R.Val.getInt().isSigned() && R.Val.getInt().isNegative())
        return std::nullopt;
      return R.Val.getInt().getLimitedValue();
    }
    StringRef Var;
    char Dim;
    if (cudaBuiltin(E, Var, Dim))
      return builtinBound(Var, Dim);
    const Expr *S = E->IgnoreParens();
    if (const auto *C = dyn_cast<CastExpr>(S)) {
      QualType To = C->getType(), From = C->getSubExpr()->getType();
      if (To->isIntegerType() && From->isIntegerType()) {
        auto B = bound(C->getSubExpr());
        if (!B) {
          if (From->isUnsignedIntegerType() && To->isUnsignedIntegerType() &&
              Ctx.getTypeSize(To) >= Ctx.getTypeSize(From))
            return maxOf(From);
          return std::nullopt;
        }
        return fits(*B, To) ? B : std::nullopt;
      }
      if (C->getCastKind() == CK_LValueToRValue || C->getCastKind() == CK_NoOp)
        return bound(C->getSubExpr());
      return std::nullopt;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      auto L = bound(BO->getLHS());
      auto Rb = bound(BO->getRHS());
      std::optional<uint64_t> Out;
      switch (BO->getOpcode()) {
      case BO_Add:
        if (L && Rb && *L < (1ULL << 62) && *Rb < (1ULL << 62))
          Out = *L + *Rb;
        break;
      case BO_Mul:
        if (L && Rb && (*L == 0 || *Rb <= (UINT64_MAX >> 2) / std::max<uint64_t>(*L, 1)))
          Out = *L * *Rb;
        break;
      case BO_Div:
      case BO_Shr:
        if (L && Rb)
          Out = L;
        break;
      case BO_Rem:
        if (L && Rb)
          Out = *Rb ? std::min(*L, *Rb - 1) : *L;
        break;
      case BO_And:
        if (L && Rb)
          Out = std::min(*L, *Rb);
        else if (L && T->isUnsignedIntegerType())
          Out = L;
        else if (Rb && (L || T->isUnsignedIntegerType()))
          Out = Rb;
        break;
      case BO_Comma:
        Out = Rb;
        break;
      default:
        break;
      }
      if (Out && !fits(*Out, T)) {
        // Unsigned arithmetic wraps: still non-negative, bound = type max.
        if (T->isUnsignedIntegerType())
          return maxOf(T);
        return std::nullopt;
      }
      if (!Out && T->isUnsignedIntegerType())
        return maxOf(T);
      return Out;
    }
    if (const auto *CO = dyn_cast<ConditionalOperator>(S)) {
      auto A = bound(CO->getTrueExpr()), B = bound(CO->getFalseExpr());
      if (A && B)
        return std::max(*A, *B);
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
      const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
      if (VD && VD->isLocalVarDecl() && !isa<ParmVarDecl>(VD) &&
          VD->getInit() && !VD->getType()->isReferenceType() &&
          !VD->getType().isVolatileQualified() && unmodified(VD))
        if (auto B = bound(VD->getInit()))
          return fits(*B, VD->getType()) ? B : std::nullopt;
    }
    if (T->isUnsignedIntegerType() || T->isBooleanType())
      return maxOf(T);
    return std::nullopt;
  }

  uint64_t maxOf(QualType T) {
    if (T->isBooleanType())
      return 1;
    uint64_t Bits = Ctx.getTypeSize(T);
    bool Signed = T->isSignedIntegerType();
    if (Signed)
      --Bits;
    return Bits >= 64 ? UINT64_MAX : ((1ULL << Bits) - 1);
  }
  bool fits(uint64_t V, QualType T) { return V <= maxOf(T); }

  bool unmodified(const VarDecl *VD) {
    if (VD->getType().isConstQualified())
      return true;
    if (!FD || !FD->getBody())
      return false;
    if (!EMA)
      EMA = std::make_unique<ExprMutationAnalyzer>(*FD->getBody(), Ctx);
    return !EMA->isMutated(VD);
  }
};
} // namespace

bool isProvablyNonNegative(ASTContext &Ctx, const Expr *E) {
  if (!E)
    return false;
  if (E->getType()->isUnsignedIntegerType())
    return true;
  const FunctionDecl *FD = enclosingFunction(Ctx, DynTypedNode::create(*E));
  BoundFinder BF{Ctx, FD, nullptr};
  return BF.bound(E).has_value();
}

bool isPureMathName(StringRef N) {
  N.consume_front("std::");
  N.consume_front("__");
  static const char *const Names[] = {
      "sqrt",  "rsqrt", "cbrt",     "exp",   "exp2",     "exp10", "expm1",
      "log",   "log2",  "log10",    "log1p", "pow",      "sin",   "cos",
      "tan",   "asin",  "acos",     "atan",  "atan2",    "sinh",  "cosh",
      "tanh",  "fabs",  "abs",      "fmin",  "fmax",     "min",   "max",
      "floor", "ceil",  "round",    "trunc", "rint",     "fma",   "erf",
      "erfc",  "hypot", "fmod",     "copysign", "fdivide", "frcp_rn",
      "fsqrt_rn", "saturate"};
  for (const char *M : Names) {
    StringRef X(M);
    if (N == X ||
        (N.size() == X.size() + 1 && N.starts_with(X) && N.back() == 'f'))
      return true;
  }
  return false;
}

static bool isKnownPureFunction(const FunctionDecl *FD) {
  if (!FD)
    return false;
  if (FD->hasAttr<ConstAttr>() || FD->hasAttr<PureAttr>())
    return true;
  return FD->getIdentifier() && isPureMathName(FD->getName());
}

bool isPure(ASTContext &Ctx, const Expr *E) {
  if (!E)
    return false;
  E = E->IgnoreParens();
  // Dependent code (template patterns): not analysed.
  if (E->getType().isNull() || E->isTypeDependent() || E->isValueDependent() ||
      E->containsErrors())
    return false;
  if (const auto *CE = dyn_cast<CallExpr>(E)) {
    if (isa<CXXOperatorCallExpr>(CE) || isa<CUDAKernelCallExpr>(CE))
      return false;
    if (!isKnownPureFunction(CE->getDirectCallee()))
      return false;
    for (const Expr *A : CE->arguments())
      if (!isPure(Ctx, A))
        return false;
    return true;
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E))
    if (BO->isAssignmentOp())
      return false;
  if (const auto *UO = dyn_cast<UnaryOperator>(E))
    if (UO->isIncrementDecrementOp())
      return false;
  if (E->getType().isVolatileQualified())
    return false;
  if (isa<CXXNewExpr>(E) || isa<CXXDeleteExpr>(E) || isa<CXXThrowExpr>(E) ||
      isa<StmtExpr>(E) || isa<LambdaExpr>(E) || isa<CXXConstructExpr>(E) ||
      isa<BlockExpr>(E) || isa<AtomicExpr>(E) || isa<CXXMemberCallExpr>(E))
    return false;
  if (const auto *PO = dyn_cast<PseudoObjectExpr>(E)) {
    StringRef Var;
    char Dim;
    return cudaBuiltin(PO, Var, Dim);
  }
  for (const Stmt *C : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(C))
      if (!isPure(Ctx, CE))
        return false;
  return true;
}


} // namespace cudal1
