//===- Extract.cpp - the context closure of a kernel, from the AST --------===//
//
// For one kernel: walk its definition (the template pattern and every
// instantiation), collect every declaration it references, map each to the
// top-level declaration that holds its text (namespace-scope decl, class,
// template), and walk those in turn until nothing new is found. Declarations
// in system headers are not copied: they become #includes of headers NVRTC
// can provide, or problems. Macros are found by lexing the copied text and
// asking the preprocessor which definition was active there.
//
//===----------------------------------------------------------------------===//
#include "cudal1/Extract/Extract.h"
#include "cudal1/Model/KernelModel.h"
#include "cudal1/Model/RecordMembers.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/QualTypeNames.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <algorithm>

#include <map>
#include <set>

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

//===----------------------------------------------------------------------===//
// Headers: what NVRTC provides
//===----------------------------------------------------------------------===//

enum class HeaderKind {
  User,        ///< the user's code: copied
  Builtin,     ///< NVRTC has it without any #include (cuda_runtime.h world)
  Providable,  ///< NVRTC compiles the header: #include it
  Unavailable, ///< host library headers: cannot be used
};

struct HeaderClass {
  HeaderKind Kind = HeaderKind::User;
  std::string Include; ///< "<cuda_fp16.h>" for Providable
  std::string Header;  ///< the header named in messages
  std::string Path;    ///< the declaring file
};

/// Name of a header file relative to its include directory
/// (".../include/cccl/cub/block/x.cuh" -> "cub/block/x.cuh").
std::string relativeHeaderName(StringRef Path) {
  size_t P = Path.rfind("/include/cccl/");
  if (P != StringRef::npos)
    return Path.substr(P + strlen("/include/cccl/")).str();
  P = Path.rfind("/include/");
  if (P != StringRef::npos)
    return Path.substr(P + strlen("/include/")).str();
  return sys::path::filename(Path).str();
}

bool isProvidableHeader(StringRef R) {
  static const char *const Prefixes[] = {"cuda_fp16.h",
                                         "cuda_fp16.hpp",
                                         "cuda_bf16.h",
                                         "cuda_bf16.hpp",
                                         "cuda_fp8.h",
                                         "cuda_fp8.hpp",
                                         "cuda_fp6.h",
                                         "cuda_fp4.h",
                                         "cooperative_groups.h",
                                         "cooperative_groups/",
                                         "mma.h",
                                         "cuda_pipeline.h",
                                         "cuda_pipeline_primitives.h",
                                         "cuda_awbarrier.h",
                                         "cuda_awbarrier_primitives.h",
                                         "math_constants.h",
                                         "curand_kernel.h",
                                         "curand.h",
                                         "curand_",
                                         "cuda/",
                                         "cub/block/",
                                         "cub/warp/",
                                         "cub/thread/"};
  for (const char *P : Prefixes)
    if (R.starts_with(P))
      return true;
  return false;
}

bool isBuiltinHeader(StringRef R) {
  static const char *const Names[] = {"cuda_runtime.h",
                                      "cuda_runtime_api.h",
                                      "cuda.h",
                                      "device_launch_parameters.h",
                                      "vector_types.h",
                                      "vector_functions.h",
                                      "vector_functions.hpp",
                                      "device_functions.h",
                                      "math_functions.h",
                                      "driver_types.h",
                                      "cuda_device_runtime_api.h",
                                      "texture_types.h",
                                      "surface_types.h",
                                      "texture_fetch_functions.h",
                                      "surface_indirect_functions.h",
                                      "texture_indirect_functions.h",
                                      "surface_functions.h",
                                      "device_types.h",
                                      "host_defines.h",
                                      "builtin_types.h",
                                      "channel_descriptor.h",
                                      "library_types.h",
                                      "device_atomic_functions.h",
                                      "sm_20_atomic_functions.h",
                                      "sm_20_intrinsics.h",
                                      "sm_30_intrinsics.h",
                                      "sm_32_intrinsics.h",
                                      "sm_35_intrinsics.h",
                                      "sm_60_atomic_functions.h",
                                      "sm_61_intrinsics.h",
                                      "cuda_texture_types.h",
                                      "cuda_surface_types.h"};
  if (R.starts_with("crt/") || R.starts_with("__clang_cuda"))
    return true;
  for (const char *N : Names)
    if (R == N)
      return true;
  return false;
}

/// Well-known typedefs NVRTC does not predefine, and where to get them.
const char *includeForStdTypedef(StringRef Name) {
  static const char *const IntTypes[] = {
      "int8_t",        "int16_t",        "int32_t",        "int64_t",
      "uint8_t",       "uint16_t",       "uint32_t",       "uint64_t",
      "intptr_t",      "uintptr_t",      "intmax_t",       "uintmax_t",
      "int_fast8_t",   "int_fast16_t",   "int_fast32_t",   "int_fast64_t",
      "uint_fast8_t",  "uint_fast16_t",  "uint_fast32_t",  "uint_fast64_t",
      "int_least8_t",  "int_least16_t",  "int_least32_t",  "int_least64_t",
      "uint_least8_t", "uint_least16_t", "uint_least32_t", "uint_least64_t"};
  for (const char *T : IntTypes)
    if (Name == T)
      return "<cuda/std/cstdint>";
  if (Name == "ptrdiff_t" || Name == "max_align_t")
    return "<cuda/std/cstddef>";
  return nullptr;
}

/// C library functions NVRTC provides in device code without a header.
bool isBuiltinCFunction(StringRef Name) {
  return Name == "printf" || Name == "malloc" || Name == "free" ||
         Name == "memcpy" || Name == "memset" || Name == "__assert_fail" ||
         Name == "__assertfail" || Name == "size_t";
}

/// Replacement definitions for libc macros whose glibc definitions NVRTC
/// cannot compile.
const char *macroOverride(StringRef Name) {
  if (Name == "INFINITY" || Name == "HUGE_VALF")
    return "__int_as_float(0x7f800000)";
  if (Name == "NAN")
    return "__int_as_float(0x7fffffff)";
  if (Name == "HUGE_VAL")
    return "__longlong_as_double(0x7ff0000000000000LL)";
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Per translation unit
//===----------------------------------------------------------------------===//

struct TopLevel {
  const Decl *D;
  FileID FID;
  unsigned Begin, End; ///< byte offsets [Begin, End) in FID
};

class TUInfo {
public:
  TUInfo(ASTContext &Ctx, const Preprocessor *PP)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), PP(PP) {}

  ASTContext &Ctx;
  SourceManager &SM;
  const Preprocessor *PP;

  bool isUserLoc(SourceLocation L) {
    if (L.isInvalid())
      return false;
    L = SM.getExpansionLoc(L);
    if (SM.isInSystemHeader(L) || SM.isWrittenInBuiltinFile(L) ||
        SM.isWrittenInCommandLineFile(L) || SM.isWrittenInScratchSpace(L))
      return false;
    return SM.getFileEntryRefForID(SM.getFileID(L)).has_value();
  }

  SourceLoc loc(SourceLocation L) { return makeSourceLoc(SM, L); }
  std::string where(SourceLocation L) { return loc(L).str(); }

  /// Classifies the file declaring \p L.
  HeaderClass classifyLoc(SourceLocation L) {
    HeaderClass C;
    if (isUserLoc(L))
      return C;
    L = SM.getExpansionLoc(L);
    if (L.isInvalid() || SM.isWrittenInBuiltinFile(L) ||
        SM.isWrittenInCommandLineFile(L)) {
      C.Kind = HeaderKind::Builtin;
      return C;
    }
    FileID F = SM.getFileID(L);
    auto It = Cache.find(F);
    if (It != Cache.end())
      return It->second;
    // The include chain, from the declaring file up to the file the user's
    // code included (or up to an implicit include: the CUDA wrapper).
    std::vector<FileID> Chain;
    bool Implicit = true;
    for (FileID Cur = F; Cur.isValid();) {
      Chain.push_back(Cur);
      SourceLocation Inc = SM.getIncludeLoc(Cur);
      if (Inc.isInvalid() || SM.isWrittenInBuiltinFile(Inc) ||
          SM.isWrittenInCommandLineFile(Inc))
        break;
      if (isUserLoc(Inc)) {
        Implicit = false;
        break;
      }
      Cur = SM.getFileID(SM.getExpansionLoc(Inc));
    }
    auto Name = [&](FileID Id) -> std::string {
      if (auto FE = SM.getFileEntryRefForID(Id))
        return std::string(FE->getName());
      return "";
    };
    C.Path = Name(F);
    C.Header = relativeHeaderName(Name(Chain.back()));
    C.Kind = Implicit ? HeaderKind::Builtin : HeaderKind::Unavailable;
    if (!Implicit && isBuiltinHeader(C.Header))
      C.Kind = HeaderKind::Builtin;
    // The outermost header of the chain that NVRTC compiles.
    for (auto I = Chain.rbegin(); I != Chain.rend(); ++I) {
      std::string R = relativeHeaderName(Name(*I));
      if (isProvidableHeader(R)) {
        C.Kind = HeaderKind::Providable;
        C.Include = "<" + R + ">";
        C.Header = R;
        break;
      }
      if (isBuiltinHeader(R) && !Implicit) {
        C.Kind = HeaderKind::Builtin;
        break;
      }
    }
    if (C.Kind == HeaderKind::Unavailable && Implicit)
      C.Kind = HeaderKind::Builtin;
    Cache[F] = C;
    return C;
  }

  /// Classifies the file defining a macro. Unlike declarations, macros seen
  /// through clang's implicit CUDA wrapper may come from host headers
  /// (<cmath>, <climits>) that NVRTC lacks: only CUDA's own headers count as
  /// builtin here.
  HeaderClass classifyMacro(SourceLocation DL) {
    HeaderClass C = classifyLoc(DL);
    if (C.Kind != HeaderKind::Builtin)
      return C;
    {
      std::pair<FileID, unsigned> D =
          SM.getDecomposedLoc(SM.getExpansionLoc(DL));
      auto FE = SM.getFileEntryRefForID(D.first);
      if (!FE)
        return C;
      std::string R = relativeHeaderName(FE->getName());
      if (isBuiltinHeader(R))
        return C;
      C.Kind = HeaderKind::Unavailable;
      C.Header = R;
      C.Path = std::string(FE->getName());
    }
    return C;
  }

  /// Every top-level declaration of user files with its byte range.
  const std::vector<TopLevel> &topLevels() {
    if (!TopsBuilt) {
      TopsBuilt = true;
      collectTops(Ctx.getTranslationUnitDecl());
    }
    return Tops;
  }

  /// Byte range of a top-level declaration's text (template header,
  /// attributes, leading doc comment and trailing ';' included).
  bool rangeOf(const Decl *D, FileID &FID, unsigned &B, unsigned &E) {
    SourceRange R = D->getSourceRange();
    if (R.isInvalid())
      return false;
    const LangOptions &LO = Ctx.getLangOpts();
    CharSourceRange CR =
        Lexer::makeFileCharRange(CharSourceRange::getTokenRange(R), SM, LO);
    if (CR.isInvalid()) {
      SourceLocation Bg = SM.getExpansionRange(R.getBegin()).getBegin();
      SourceLocation En = SM.getExpansionRange(R.getEnd()).getEnd();
      CR = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(Bg, En), SM,
                                    LO);
      if (CR.isInvalid())
        return false;
    }
    std::pair<FileID, unsigned> BD = SM.getDecomposedLoc(CR.getBegin());
    std::pair<FileID, unsigned> ED = SM.getDecomposedLoc(CR.getEnd());
    if (BD.first != ED.first)
      return false;
    FID = BD.first;
    B = BD.second;
    E = ED.second;
    StringRef Buf = SM.getBufferData(FID);
    // Up to the terminating ';' (classes, variables, aliases, declarations):
    // source ranges stop short of it, and of trailing qualifiers such as
    // `T *__restrict__` in an alias.
    bool IsDefinition = false;
    if (const FunctionDecl *FD = D->getAsFunction())
      IsDefinition = FD->doesThisDeclarationHaveABody();
    if (!IsDefinition && !isa<NamespaceDecl>(D) && !isa<LinkageSpecDecl>(D)) {
      Lexer L(SM.getLocForStartOfFile(FID), LO, Buf.begin(), Buf.begin() + E,
              Buf.end());
      Token T;
      int Depth = 0;
      // `constexpr int N(1024);`: a scalar's direct initialiser ends the
      // declaration's range before its ')'.
      int OpenInit = 0;
      const auto *VD = dyn_cast<VarDecl>(D);
      if (const auto *VT = dyn_cast<VarTemplateDecl>(D))
        VD = VT->getTemplatedDecl();
      if (VD)
        OpenInit = VD->getInitStyle() == VarDecl::CallInit;
      unsigned PrevEnd = E;
      for (int N = 0; N < 256; ++N) {
        L.LexFromRawLexer(T);
        if (T.is(tok::eof))
          break;
        unsigned TokOff = SM.getFileOffset(T.getLocation());
        if (T.isOneOf(tok::l_paren, tok::l_square, tok::l_brace))
          ++Depth;
        else if (T.isOneOf(tok::r_paren, tok::r_square, tok::r_brace)) {
          if (--Depth < 0 && T.is(tok::r_paren) && OpenInit) {
            OpenInit = 0;
            Depth = 0;
          } else if (Depth < 0) {
            break;
          }
        } else if (T.is(tok::semi) && Depth == 0) {
          E = SM.getFileOffset(T.getLocation()) + 1;
          break;
        } else if (Depth == 0 &&
                   Buf.slice(PrevEnd, SM.getFileOffset(T.getLocation()))
                           .count('\n') > 0) {
          // The next declaration (a macro-made declaration without ';').
          break;
        }
        PrevEnd = TokOff + T.getLength();
      }
    }
    // Leading doc comment.
    if (const RawComment *RC = Ctx.getRawCommentForDeclNoCache(D)) {
      std::pair<FileID, unsigned> CB =
          SM.getDecomposedLoc(SM.getExpansionLoc(RC->getBeginLoc()));
      if (CB.first == FID && CB.second < B) {
        StringRef Between = Buf.slice(CB.second, B);
        (void)Between;
        B = CB.second;
      }
    }
    return true;
  }

  const Preprocessor *pp() const { return PP; }

private:
  void collectTops(const DeclContext *DC) {
    for (const Decl *D : DC->decls()) {
      if (isa<NamespaceDecl>(D) || isa<LinkageSpecDecl>(D) ||
          isa<ExportDecl>(D)) {
        collectTops(cast<DeclContext>(D));
        continue;
      }
      if (D->isImplicit() || !isUserLoc(D->getLocation()))
        continue;
      TopLevel T;
      T.D = D;
      if (!rangeOf(D, T.FID, T.Begin, T.End))
        continue;
      Tops.push_back(T);
    }
  }

  std::map<FileID, HeaderClass> Cache;
  std::vector<TopLevel> Tops;
  bool TopsBuilt = false;
};

//===----------------------------------------------------------------------===//
// Helpers on declarations
//===----------------------------------------------------------------------===//

bool isNamespaceLike(const DeclContext *DC) {
  return DC->isTranslationUnit() || isa<NamespaceDecl>(DC) ||
         isa<LinkageSpecDecl>(DC) || isa<ExportDecl>(DC);
}

/// Template instantiations -> the declaration written in the source.
const Decl *patternOf(const Decl *D) {
  for (int Guard = 0; Guard < 16; ++Guard) {
    const Decl *N = nullptr;
    if (const auto *FD = dyn_cast<FunctionDecl>(D)) {
      if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
        if (P != FD)
          N = P;
    } else if (const auto *CTS = dyn_cast<ClassTemplateSpecializationDecl>(D)) {
      if (CTS->getSpecializationKind() != TSK_ExplicitSpecialization) {
        auto P = CTS->getSpecializedTemplateOrPartial();
        if (auto *CT = dyn_cast<ClassTemplateDecl *>(P))
          N = CT;
        else
          N = cast<ClassTemplatePartialSpecializationDecl *>(P);
      }
    } else if (const auto *RD = dyn_cast<CXXRecordDecl>(D)) {
      if (const CXXRecordDecl *P = RD->getTemplateInstantiationPattern())
        if (P != RD)
          N = P;
    } else if (const auto *VD = dyn_cast<VarDecl>(D)) {
      if (const VarDecl *P = VD->getTemplateInstantiationPattern())
        if (P != VD)
          N = P;
    } else if (const auto *ED = dyn_cast<EnumDecl>(D)) {
      if (const EnumDecl *P = ED->getTemplateInstantiationPattern())
        if (P != ED)
          N = P;
    }
    if (!N)
      return D;
    D = N;
  }
  return D;
}

/// The declaration at namespace scope whose text contains \p D.
const Decl *topLevelOf(const Decl *D) {
  for (int Guard = 0; D && Guard < 64; ++Guard) {
    D = patternOf(D);
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      if (const FunctionTemplateDecl *FT = FD->getDescribedFunctionTemplate())
        D = FT;
    if (const auto *RD = dyn_cast<CXXRecordDecl>(D))
      if (const ClassTemplateDecl *CT = RD->getDescribedClassTemplate())
        D = CT;
    if (const auto *VD = dyn_cast<VarDecl>(D))
      if (const VarTemplateDecl *VT = VD->getDescribedVarTemplate())
        D = VT;
    if (const auto *TA = dyn_cast<TypeAliasDecl>(D))
      if (const TypeAliasTemplateDecl *AT = TA->getDescribedAliasTemplate())
        D = AT;
    const DeclContext *LDC = D->getLexicalDeclContext();
    if (!LDC || isNamespaceLike(LDC))
      return D;
    D = cast<Decl>(LDC);
  }
  return D;
}

/// The innermost function whose body holds \p D (local declarations).
const FunctionDecl *enclosingFunction(const Decl *D) {
  for (const DeclContext *DC = D->getLexicalDeclContext(); DC;
       DC = cast<Decl>(DC)->getLexicalDeclContext()) {
    if (const auto *FD = dyn_cast<FunctionDecl>(DC))
      return FD;
    if (isNamespaceLike(DC))
      return nullptr;
  }
  return nullptr;
}

bool isDeviceCallable(const FunctionDecl *FD) {
  return FD->hasAttr<CUDADeviceAttr>() || FD->hasAttr<CUDAGlobalAttr>() ||
         FD->isConstexpr() || FD->isImplicit() || FD->isDefaulted();
}

bool isHostOnly(const FunctionDecl *FD) { return !isDeviceCallable(FD); }

/// The memory space the user wrote (clang adds implicit __constant__ to
/// constexpr variables: those are host values here).
const char *cudaVarKind(const VarDecl *VD) {
  auto Written = [&](const Attr *A) { return A && !A->isImplicit(); };
  if (Written(VD->getAttr<CUDASharedAttr>()))
    return "shared memory";
  if (Written(VD->getAttr<CUDAConstantAttr>()))
    return "constant memory";
  if (Written(VD->getAttr<HIPManagedAttr>()))
    return "managed variable";
  if (Written(VD->getAttr<CUDADeviceAttr>()))
    return "device variable";
  return nullptr;
}

std::string describe(const Decl *D) {
  std::string Name;
  if (const auto *ND = dyn_cast<NamedDecl>(D))
    Name = ND->getQualifiedNameAsString();
  if (const auto *FT = dyn_cast<FunctionTemplateDecl>(D))
    D = FT->getTemplatedDecl();
  if (const auto *CT = dyn_cast<ClassTemplateDecl>(D))
    return "class template " + Name;
  if (isa<ClassTemplatePartialSpecializationDecl>(D))
    return "partial specialization of " + Name;
  if (const auto *FD = dyn_cast<FunctionDecl>(D)) {
    if (FD->hasAttr<CUDAGlobalAttr>())
      return "kernel " + Name;
    if (isa<CXXMethodDecl>(FD))
      return "member function " + Name;
    return (FD->hasAttr<CUDADeviceAttr>() ? "device function "
                                          : "constexpr function ") +
           Name;
  }
  if (const auto *VD = dyn_cast<VarDecl>(D)) {
    if (const char *K = cudaVarKind(VD))
      return std::string(K) + " " + Name;
    return (VD->isConstexpr() ? "constexpr value " : "constant ") + Name;
  }
  if (isa<VarTemplateDecl>(D))
    return "variable template " + Name;
  if (const auto *RD = dyn_cast<RecordDecl>(D))
    return std::string(RD->isUnion()   ? "union "
                       : RD->isClass() ? "class "
                                       : "struct ") +
           Name;
  if (isa<EnumDecl>(D))
    return "enum " + Name;
  if (isa<TypedefNameDecl>(D) || isa<TypeAliasTemplateDecl>(D))
    return "type alias " + Name;
  if (isa<NamespaceAliasDecl>(D))
    return "namespace alias " + Name;
  if (isa<UsingDecl>(D))
    return "using-declaration " + Name;
  if (isa<UsingDirectiveDecl>(D))
    return "using-directive";
  if (isa<StaticAssertDecl>(D))
    return "static_assert";
  return std::string(D->getDeclKindName()) + " " + Name;
}

PrintingPolicy namePolicy(const ASTContext &Ctx) {
  PrintingPolicy P = Ctx.getPrintingPolicy();
  P.SuppressTagKeyword = true;
  P.SuppressUnwrittenScope = true;
  P.FullyQualifiedName = true;
  P.SuppressScope = false;
  return P;
}

ParamInfo makeParam(const ASTContext &Ctx, const ParmVarDecl *P, unsigned I,
                    const std::map<const Type *, std::string> &Renames) {
  ParamInfo R;
  R.Index = I;
  R.Name = P->getNameAsString();
  QualType T = P->getType();
  PrintingPolicy Pol = Ctx.getPrintingPolicy();
  Pol.SuppressTagKeyword = true;
  Pol.SuppressUnwrittenScope = true;
  auto Print = [&](QualType Q) {
    auto It =
        Renames.find(Q.getCanonicalType().getUnqualifiedType().getTypePtr());
    if (It != Renames.end())
      return It->second;
    return Q.getAsString(Pol);
  };
  R.Type = Print(T);
  R.IsConst = T.isConstQualified();
  R.Restrict = T.isRestrictQualified();
  R.IsReference = T->isReferenceType();
  QualType Elem = T.getNonReferenceType();
  if (const auto *PT = T->getAs<PointerType>()) {
    R.IsPointer = true;
    Elem = PT->getPointeeType();
    R.PointeeConst = Elem.isConstQualified();
  }
  R.ElementType = Print(Elem.getUnqualifiedType());
  if (!T->isDependentType() && !T->isIncompleteType()) {
    R.SizeBytes = Ctx.getTypeSizeInChars(T).getQuantity();
    R.AlignBytes = Ctx.getTypeAlignInChars(T).getQuantity();
  }
  if (!Elem->isDependentType() && !Elem->isIncompleteType() &&
      !Elem->isVoidType() && !Elem->isFunctionType())
    R.ElementSizeBytes = Ctx.getTypeSizeInChars(Elem).getQuantity();
  if (!Elem->isDependentType()) {
    QualType C = Elem.getCanonicalType().getUnqualifiedType();
    if (const auto *ET = C->getAs<EnumType>())
      C = ET->getDecl()->getIntegerType().getCanonicalType();
    if (!C.isNull())
      R.ScalarType = C.getUnqualifiedType().getAsString(Pol);
  }
  setRecordMembers(Ctx, Elem, Pol, R);
  return R;
}

//===----------------------------------------------------------------------===//
// One kernel
//===----------------------------------------------------------------------===//

class Extraction;

/// Visits the code of one declaration and reports every declaration it
/// references to the Extraction.
class RefWalker : public RecursiveASTVisitor<RefWalker> {
public:
  explicit RefWalker(Extraction &X) : X(X) {}
  bool shouldVisitImplicitCode() const { return true; }
  bool shouldVisitLambdaBodies() const { return true; }
  bool shouldVisitTemplateInstantiations() const { return false; }

  bool TraverseCXXMethodDecl(CXXMethodDecl *MD);
  bool TraverseCXXConstructorDecl(CXXConstructorDecl *MD);
  bool TraverseCXXDestructorDecl(CXXDestructorDecl *MD);
  bool TraverseCXXConversionDecl(CXXConversionDecl *MD);
  bool TraverseFunctionTemplateDecl(FunctionTemplateDecl *FT);

  bool VisitDeclRefExpr(DeclRefExpr *E);
  bool VisitMemberExpr(MemberExpr *E);
  bool VisitCXXConstructExpr(CXXConstructExpr *E);
  bool VisitOverloadExpr(OverloadExpr *E);
  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *E);
  bool VisitExpr(Expr *E);
  bool VisitValueDecl(ValueDecl *D);
  bool VisitTypedefType(TypedefType *T);
  bool VisitUsingType(UsingType *T);
  bool VisitTagType(TagType *T);
  bool VisitTemplateSpecializationType(TemplateSpecializationType *T);
  bool VisitSubstTemplateTypeParmType(SubstTemplateTypeParmType *T);
  bool
  VisitDeducedTemplateSpecializationType(DeducedTemplateSpecializationType *T);
  bool TraverseNestedNameSpecifier(NestedNameSpecifier NNS);
  bool TraverseNestedNameSpecifierLoc(NestedNameSpecifierLoc NNS);
  bool TraverseTemplateName(TemplateName N);
  bool VisitCXXRecordDecl(CXXRecordDecl *RD);

  /// The declaration whose code is being walked (for messages).
  const Decl *Current = nullptr;
  /// Where the type being visited is written (for messages).
  SourceLocation LastLoc;
  bool VisitTypeLoc(TypeLoc TL) {
    if (TL.getBeginLoc().isValid())
      LastLoc = TL.getBeginLoc();
    return true;
  }

private:
  bool skipHostMember(CXXMethodDecl *MD);
  Extraction &X;
  unsigned TypeDepth = 0;
};

/// Top-level declarations whose text overlaps, copied as one piece.
struct Group {
  FileID FID;
  unsigned Begin = 0, End = 0;
  std::vector<const Decl *> Decls;
};

class Extraction {
public:
  Extraction(TUInfo &TU, const FunctionDecl *Kernel, const ExtractOptions &O)
      : TU(TU), Ctx(TU.Ctx), SM(TU.SM), Kernel(Kernel), Opts(O) {}

  ExtractedKernel run();

  /// \p D is referenced from the code being walked at \p Use.
  void need(const Decl *D, SourceLocation Use);
  void needType(QualType T, SourceLocation Use);
  bool needLocal(const Decl *&D, const FunctionDecl *Encl, SourceLocation Use);
  void needFunction(const FunctionDecl *FD, SourceLocation Use);
  void needVariable(const VarDecl *VD, SourceLocation Use);
  void needRecord(const CXXRecordDecl *RD, SourceLocation Use);
  /// \p Target found through a using-declaration.
  void needThroughUsing(const UsingShadowDecl *USD, const Decl *Target,
                        SourceLocation Use) {
    if (TU.isUserLoc(USD->getLocation())) {
      need(USD->getIntroducer(), Use);
      need(Target, Use);
      return;
    }
    // `using std::sqrt;` in a host C++ header (<cmath>, <math.h>): the user
    // named the global math function, which NVRTC's CUDA math library has.
    if (isa<FunctionDecl>(Target) &&
        TU.classifyLoc(Target->getLocation()).Kind == HeaderKind::Builtin)
      return;
    need(Target, Use);
  }
  /// A host-only member function defined inside a copied class: omitted.
  void hostMember(const CXXMethodDecl *MD) { HostMembers.insert(MD); }
  void problem(SourceLocation L, const Twine &Msg) {
    std::string S = (TU.where(L) + ": " + Msg).str();
    if (ProblemSet.insert(S).second)
      Problems.push_back(S);
  }
  bool isInsideKernel(const Decl *D) const {
    return topLevelOf(D) == KernelTop;
  }

  TUInfo &TU;
  ASTContext &Ctx;
  SourceManager &SM;

private:
  void addTop(const Decl *Top);
  void walk(const Decl *D);
  void walkRecordInstantiation(const CXXRecordDecl *RD);
  void external(const Decl *D, SourceLocation Use);
  void lambdaType(const CXXRecordDecl *RD, SourceLocation Use);
  std::string nameExpr(const FunctionDecl *Spec, bool &Ok);
  std::string typeName(QualType T, bool &Ok);
  void collectMacros(FileID FID, unsigned B, unsigned E,
                     std::vector<const MacroInfo *> &Out);
  struct TextMacro {
    std::string Name, Text;
    SourceLocation Loc; ///< start of the #define line
  };
  /// Without a preprocessor: the macros expanded in [B, E) (nested ones
  /// too), read back from the SourceManager's expansion records. Macros
  /// that expand to nothing leave no record and are missed.
  std::vector<TextMacro> expandedMacros(FileID FID, unsigned B, unsigned E);
  void macroDeps(const MacroInfo *MI, SourceLocation UseLoc,
                 std::vector<const MacroInfo *> &Out,
                 SmallPtrSetImpl<const MacroInfo *> &Seen);
  std::string macroText(const MacroInfo *MI, std::string *Name);
  std::string assemble(ExtractedKernel &K);

  /// What assemble() writes and what is open while it writes.
  struct Output {
    std::string Text;
    raw_string_ostream OS{Text};
    std::map<std::string, const MacroInfo *> Defined; ///< name -> active def
    std::map<std::string, std::string> TextDefined;   ///< without preprocessor
    std::vector<const DeclContext *> Open;            ///< namespaces, extern
  };
  /// The copied top-level declarations, grouped where their text overlaps,
  /// in translation-unit order.
  std::vector<Group> groupTops();
  /// The macros each group uses (and the includes NVRTC provides for them).
  void groupMacros(const std::vector<Group> &Merged,
                   std::vector<std::vector<const MacroInfo *>> &Macros,
                   std::vector<std::vector<TextMacro>> &TextMacros);
  void emitIncludes(ExtractedKernel &K, Output &O);
  void emitMacros(const std::vector<const MacroInfo *> &Ms, ExtractedKernel &K,
                  Output &O);
  void emitUnavailableMacro(const MacroInfo *MI, const std::string &Name,
                            const std::string &Text, const HeaderClass &C,
                            Output &O);
  void emitTextMacros(const std::vector<TextMacro> &Ms, ExtractedKernel &K,
                      Output &O);
  void reopen(std::vector<const DeclContext *> Want, Output &O);
  void emitGroup(const Group &G, ExtractedKernel &K, Output &O);
  void emitLambda(const CXXRecordDecl *RD, const std::string &Name,
                  ExtractedKernel &K, Output &O);

  const FunctionDecl *Kernel;
  const Decl *KernelTop = nullptr;
  const ExtractOptions &Opts;
  SetVector<const Decl *> Tops;
  DenseSet<const Decl *> Walked;
  std::vector<const Decl *> Worklist;
  std::set<std::string> Includes;
  /// Typedefs of arithmetic types from system headers NVRTC lacks (glibc's
  /// `uint`, `ulong`): name -> (the type, the header), written out.
  std::map<std::string, std::pair<std::string, std::string>> SystemTypedefs;
  std::vector<std::string> Problems;
  std::set<std::string> ProblemSet;
  std::set<std::string> StdReported;
  DenseSet<const CXXMethodDecl *> HostMembers;
  /// Lambda closure types used as template arguments of the kernel (lambdas
  /// written in host code): emitted as named functor structs.
  MapVector<const CXXRecordDecl *, std::string> Lambdas;
  std::map<const Type *, std::string> TypeRenames;
  std::vector<std::string> Notes;
  std::map<std::string, const MacroInfo *> MacroByName;
  DenseMap<const MacroInfo *, std::string> MacroNames;
};

//===----------------------------------------------------------------------===//
// RefWalker
//===----------------------------------------------------------------------===//

bool RefWalker::skipHostMember(CXXMethodDecl *MD) {
  if (MD->isImplicit() || !isHostOnly(MD) || MD->getParent()->isLambda())
    return false;
  if (MD->doesThisDeclarationHaveABody() &&
      isNamespaceLike(MD->getLexicalDeclContext()) == false)
    X.hostMember(MD);
  return true;
}
bool RefWalker::TraverseCXXMethodDecl(CXXMethodDecl *MD) {
  if (skipHostMember(MD))
    return true;
  return RecursiveASTVisitor::TraverseCXXMethodDecl(MD);
}
bool RefWalker::TraverseCXXConstructorDecl(CXXConstructorDecl *MD) {
  if (skipHostMember(MD))
    return true;
  return RecursiveASTVisitor::TraverseCXXConstructorDecl(MD);
}
bool RefWalker::TraverseCXXDestructorDecl(CXXDestructorDecl *MD) {
  if (skipHostMember(MD))
    return true;
  return RecursiveASTVisitor::TraverseCXXDestructorDecl(MD);
}
bool RefWalker::TraverseCXXConversionDecl(CXXConversionDecl *MD) {
  if (skipHostMember(MD))
    return true;
  return RecursiveASTVisitor::TraverseCXXConversionDecl(MD);
}
bool RefWalker::TraverseFunctionTemplateDecl(FunctionTemplateDecl *FT) {
  if (auto *MD = dyn_cast<CXXMethodDecl>(FT->getTemplatedDecl()))
    if (!MD->getParent()->isLambda() && isHostOnly(MD)) {
      if (MD->doesThisDeclarationHaveABody() &&
          !isNamespaceLike(FT->getLexicalDeclContext()))
        X.hostMember(MD);
      return true;
    }
  return RecursiveASTVisitor::TraverseFunctionTemplateDecl(FT);
}

bool RefWalker::VisitDeclRefExpr(DeclRefExpr *E) {
  // Variables captured by a lambda: the capture is the lambda's field.
  if (E->refersToEnclosingVariableOrCapture())
    return true;
  if (auto *USD = dyn_cast<UsingShadowDecl>(E->getFoundDecl())) {
    X.needThroughUsing(USD, E->getDecl(), E->getLocation());
    return true;
  }
  X.need(E->getDecl(), E->getLocation());
  return true;
}
bool RefWalker::VisitMemberExpr(MemberExpr *E) {
  X.need(E->getMemberDecl(), E->getMemberLoc());
  return true;
}
bool RefWalker::VisitCXXConstructExpr(CXXConstructExpr *E) {
  X.need(E->getConstructor(), E->getBeginLoc());
  return true;
}
bool RefWalker::VisitOverloadExpr(OverloadExpr *E) {
  for (NamedDecl *D : E->decls())
    X.need(D->getUnderlyingDecl(), E->getNameLoc());
  return true;
}
bool RefWalker::VisitCUDAKernelCallExpr(CUDAKernelCallExpr *E) {
  X.problem(E->getBeginLoc(),
            "launches a kernel from device code (dynamic parallelism needs "
            "relocatable device code and the device runtime, which an "
            "extracted kernel does not have)");
  return true;
}
bool RefWalker::VisitExpr(Expr *E) {
  if (E->getExprLoc().isValid())
    LastLoc = E->getExprLoc();
  if (!E->isTypeDependent() && !E->getType().isNull())
    X.needType(E->getType(), E->getExprLoc());
  return true;
}
bool RefWalker::VisitValueDecl(ValueDecl *D) {
  if (!D->getType().isNull() && !D->getType()->isDependentType())
    X.needType(D->getType(), D->getLocation());
  return true;
}
bool RefWalker::VisitTypedefType(TypedefType *T) {
  X.need(T->getDecl(), LastLoc);
  return true;
}
bool RefWalker::VisitUsingType(UsingType *T) {
  X.need(T->getDecl()->getIntroducer(), LastLoc);
  return true;
}
bool RefWalker::VisitTagType(TagType *T) {
  X.need(T->getDecl(), LastLoc);
  return true;
}
bool RefWalker::VisitTemplateSpecializationType(TemplateSpecializationType *T) {
  if (TemplateDecl *TD = T->getTemplateName().getAsTemplateDecl())
    X.need(TD, LastLoc);
  if (!T->isDependentType())
    if (const CXXRecordDecl *RD = T->getAsCXXRecordDecl())
      X.need(RD, LastLoc);
  if (T->isTypeAlias() && TypeDepth < 8) {
    ++TypeDepth;
    TraverseType(T->getAliasedType());
    --TypeDepth;
  }
  return true;
}
bool RefWalker::VisitSubstTemplateTypeParmType(SubstTemplateTypeParmType *T) {
  if (TypeDepth < 8) {
    ++TypeDepth;
    TraverseType(T->getReplacementType());
    --TypeDepth;
  }
  return true;
}
bool RefWalker::VisitDeducedTemplateSpecializationType(
    DeducedTemplateSpecializationType *T) {
  if (TemplateDecl *TD = T->getTemplateName().getAsTemplateDecl())
    X.need(TD, SourceLocation());
  return true;
}
bool RefWalker::TraverseNestedNameSpecifier(NestedNameSpecifier NNS) {
  if (NNS.getKind() == NestedNameSpecifier::Kind::Namespace)
    if (const auto *NA = dyn_cast<NamespaceAliasDecl>(
            NNS.getAsNamespaceAndPrefix().Namespace))
      X.need(NA, SourceLocation());
  return RecursiveASTVisitor::TraverseNestedNameSpecifier(NNS);
}
bool RefWalker::TraverseNestedNameSpecifierLoc(NestedNameSpecifierLoc NNS) {
  if (NNS)
    TraverseNestedNameSpecifier(NNS.getNestedNameSpecifier());
  return RecursiveASTVisitor::TraverseNestedNameSpecifierLoc(NNS);
}
bool RefWalker::TraverseTemplateName(TemplateName N) {
  if (TemplateDecl *TD = N.getAsTemplateDecl())
    if (!isa<TemplateTemplateParmDecl>(TD))
      X.need(TD, SourceLocation());
  return RecursiveASTVisitor::TraverseTemplateName(N);
}
bool RefWalker::VisitCXXRecordDecl(CXXRecordDecl *RD) {
  // Out-of-line definitions of the class's device members.
  if (!RD->isThisDeclarationADefinition() || RD->isLambda())
    return true;
  for (const Decl *M : RD->decls()) {
    const FunctionDecl *FD = dyn_cast<FunctionDecl>(M);
    if (const auto *FT = dyn_cast<FunctionTemplateDecl>(M))
      FD = FT->getTemplatedDecl();
    if (!FD || FD->isImplicit() || isHostOnly(FD))
      continue;
    if (const FunctionDecl *Def = FD->getDefinition())
      if (Def != FD && isNamespaceLike(Def->getLexicalDeclContext()))
        X.need(Def, SourceLocation());
  }
  // Static data members defined out of line.
  for (const Decl *M : RD->decls())
    if (const auto *VD = dyn_cast<VarDecl>(M))
      if (const VarDecl *Def = VD->getDefinition())
        if (Def != VD && isNamespaceLike(Def->getLexicalDeclContext()))
          X.need(Def, SourceLocation());
  return true;
}

//===----------------------------------------------------------------------===//
// Extraction
//===----------------------------------------------------------------------===//

void Extraction::needType(QualType T, SourceLocation Use) {
  if (T.isNull())
    return;
  RefWalker W(*this);
  W.LastLoc = Use;
  W.TraverseType(T);
}

void Extraction::addTop(const Decl *Top) {
  if (Tops.insert(Top))
    Worklist.push_back(Top);
}

void Extraction::lambdaType(const CXXRecordDecl *RD, SourceLocation Use) {
  if (Lambdas.count(RD))
    return;
  std::string Name = "cudal1_lambda_" + std::to_string(Lambdas.size());
  Lambdas.insert({RD, Name});
  const FunctionDecl *Host = enclosingFunction(RD);
  std::string Ns;
  if (Host)
    for (const DeclContext *DC = Host->getDeclContext(); DC;
         DC = DC->getParent())
      if (const auto *N = dyn_cast<NamespaceDecl>(DC))
        if (!N->isAnonymousNamespace())
          Ns = N->getNameAsString() + "::" + Ns;
  TypeRenames[Ctx.getCanonicalType(Ctx.getCanonicalTagType(RD)).getTypePtr()] =
      Ns + Name;
  for (const LambdaCapture &C : RD->captures()) {
    if (C.capturesThis() || C.capturesVLAType())
      problem(C.getLocation(), "the lambda passed to the kernel captures "
                               "'this'; it cannot be rebuilt as a functor");
    else if (C.getCaptureKind() == LCK_ByRef)
      problem(C.getLocation(),
              "the lambda passed to the kernel captures '" +
                  C.getCapturedVar()->getName() +
                  "' by reference (a host address in device code)");
  }
  if (const CXXMethodDecl *Call = RD->getLambdaCallOperator()) {
    if (Call->getDescribedFunctionTemplate())
      problem(RD->getLocation(), "generic lambdas (auto parameters) passed to "
                                 "a kernel are not supported by extraction");
    Worklist.push_back(Call);
    Walked.insert(RD);
  }
  for (const FieldDecl *F : RD->fields())
    needType(F->getType(), F->getLocation());
}

void Extraction::external(const Decl *D, SourceLocation Use) {
  HeaderClass C = TU.classifyLoc(D->getLocation());
  if (C.Kind == HeaderKind::User)
    return;
  const auto *ND = dyn_cast<NamedDecl>(D);
  std::string Name = ND ? ND->getQualifiedNameAsString() : "";
  if (ND && ND->getIdentifier()) {
    if (const char *Inc = includeForStdTypedef(ND->getName())) {
      if (isa<TypedefNameDecl>(D)) {
        Includes.insert(Inc);
        return;
      }
    }
    if (isa<FunctionDecl>(D) && isBuiltinCFunction(ND->getName()))
      return;
  }
  // The C++ standard library (std::, not cuda::std::) is host-only.
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (DC->isStdNamespace()) {
      // clang's CUDA wrappers add device overloads of <cmath> to std::;
      // NVRTC has no std:: at all. One problem per std:: entity.
      const Decl *Top = topLevelOf(D);
      std::string TopName =
          isa<NamedDecl>(Top) ? cast<NamedDecl>(Top)->getQualifiedNameAsString()
                              : Name;
      if (!StdReported.insert(TopName).second)
        return;
      problem(Use.isValid() ? Use : D->getLocation(),
              "uses '" + Name + "' from the C++ standard library (<" +
                  sys::path::filename(C.Path) +
                  ">), which NVRTC does not provide; use the cuda::std:: "
                  "equivalent from <cuda/std/...>");
      return;
    }
  // A namespace-scope typedef of an arithmetic type from a header NVRTC
  // does not have (glibc's `typedef unsigned int uint;`): written out. A
  // typedef repeated with the same type is valid C++, so this is safe where
  // NVRTC has it too.
  if (const auto *TD = dyn_cast<TypedefNameDecl>(D))
    if (C.Kind != HeaderKind::Providable && TD->getIdentifier() &&
        TD->getDeclContext()->getRedeclContext()->isTranslationUnit()) {
      QualType T = TD->getUnderlyingType().getCanonicalType();
      if (T->isBuiltinType() && (T->isIntegerType() || T->isFloatingType()) &&
          !T.hasQualifiers()) {
        SystemTypedefs[TD->getName().str()] = {
            T.getAsString(Ctx.getPrintingPolicy()),
            C.Path.empty() ? C.Header : relativeHeaderName(C.Path)};
        return;
      }
    }
  switch (C.Kind) {
  case HeaderKind::Builtin:
  case HeaderKind::User:
    return;
  case HeaderKind::Providable:
    Includes.insert(C.Include);
    return;
  case HeaderKind::Unavailable:
    // Types and functions from host-only headers (libc/libstdc++) that
    // clang lets device code see.
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      if (FD->getBuiltinID())
        return;
    problem(
        Use.isValid() ? Use : D->getLocation(),
        "uses '" + Name + "' declared in <" + C.Header + "> (" + C.Path +
            "), a system header that extraction does not copy and that NVRTC "
            "is not known to compile");
    return;
  }
}

/// A declaration local to function \p Encl: part of the function that holds
/// it, except lambda closure types that come from host code (template
/// arguments). True when that settles it (\p D is not needed on its own).
bool Extraction::needLocal(const Decl *&D, const FunctionDecl *Encl,
                           SourceLocation Use) {
  const CXXRecordDecl *Closure = nullptr;
  for (const Decl *P = D; P; P = dyn_cast<Decl>(P->getLexicalDeclContext())) {
    if (const auto *RD = dyn_cast<CXXRecordDecl>(P))
      if (RD->isLambda()) {
        Closure = RD;
        break;
      }
    if (P == Encl)
      break;
  }
  const Decl *EnclTop = topLevelOf(Encl);
  if (!Tops.count(EnclTop)) {
    if (Closure) {
      lambdaType(Closure, Use);
      return true;
    }
    if (!isDeviceCallable(Encl)) {
      if (isa<VarDecl>(D) && cast<VarDecl>(D)->isLocalVarDecl()) {
        const VarDecl *VD = cast<VarDecl>(D);
        // A host local constant read inside a lambda of the kernel.
        problem(Use.isValid() ? Use : D->getLocation(),
                "uses '" + VD->getName() +
                    "', a local variable of host "
                    "function '" +
                    Encl->getQualifiedNameAsString() + "' (" +
                    TU.where(VD->getLocation()) + ")");
        return true;
      }
      // Report the outermost local declaration once (not each member).
      const Decl *Outer = D;
      while (Outer->getLexicalDeclContext() &&
             Outer->getLexicalDeclContext() != Encl &&
             isa<Decl>(Outer->getLexicalDeclContext()))
        Outer = cast<Decl>(Outer->getLexicalDeclContext());
      if (!Walked.insert(Outer).second)
        return true;
      D = Outer;
      problem(Use.isValid() ? Use : D->getLocation(),
              "uses " + describe(D) + ", declared inside host function '" +
                  Encl->getQualifiedNameAsString() + "' at " +
                  TU.where(D->getLocation()) +
                  "; a local type cannot be named in the extracted source");
      return true;
    }
  }
  if (Closure && Walked.insert(Closure).second)
    for (const FieldDecl *F : Closure->fields())
      needType(F->getType(), F->getLocation());
  if (const auto *VD = dyn_cast<VarDecl>(D))
    if (VD->isLocalVarDecl() || isa<ParmVarDecl>(VD))
      return true;
  if (!isa<CXXRecordDecl>(D) && !isa<FunctionDecl>(D))
    return true;
  return false;
}

void Extraction::needFunction(const FunctionDecl *FD, SourceLocation Use) {
  if (FD->hasAttr<CUDAGlobalAttr>()) {
    const FunctionDecl *P = dyn_cast<FunctionDecl>(patternOf(FD));
    if (P && P->getCanonicalDecl() != Kernel->getCanonicalDecl() &&
        Walked.insert(FD).second)
      problem(Use.isValid() ? Use : FD->getLocation(),
              "refers to another kernel, '" + FD->getQualifiedNameAsString() +
                  "' (device-side launch or kernel address)");
    return;
  }
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    if (MD->getParent()->isLambda()) {
      // A lambda's call operator: walked with the lambda.
      if (Walked.insert(FD).second && FD->hasBody())
        Worklist.push_back(FD);
      return;
    }
  if (isHostOnly(FD)) {
    if (Walked.insert(FD).second)
      problem(Use.isValid() ? Use : FD->getLocation(),
              "calls host function '" + FD->getQualifiedNameAsString() +
                  "' (" + TU.where(FD->getLocation()) +
                  "), which device code cannot call");
    return;
  }
  if (!Walked.insert(FD).second)
    return;
  if (const FunctionTemplateDecl *Primary = FD->getPrimaryTemplate())
    need(Primary, Use);
  const FunctionDecl *Def = FD->getDefinition();
  const FunctionDecl *Pattern = dyn_cast<FunctionDecl>(patternOf(FD));
  if (!Def && Pattern)
    Def = Pattern->getDefinition();
  if (!Def && !FD->isImplicit() && !FD->isDefaulted() &&
      !FD->isPureVirtual()) {
    problem(Use.isValid() ? Use : FD->getLocation(),
            "calls '" + FD->getQualifiedNameAsString() + "', declared at " +
                TU.where(FD->getLocation()) +
                " but not defined in this translation unit (relocatable "
                "device code: its definition is in another file)");
    return;
  }
  // Every declaration of it (forward declarations keep the order valid).
  for (const FunctionDecl *R : (Pattern ? Pattern : FD)->redecls())
    if (TU.isUserLoc(R->getLocation()))
      addTop(topLevelOf(R));
  if (Def) {
    addTop(topLevelOf(Def));
    if (Def->isTemplateInstantiation() || FD->isTemplateInstantiation())
      Worklist.push_back(Def);
  }
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    need(MD->getParent(), Use);
}

void Extraction::needVariable(const VarDecl *VD, SourceLocation Use) {
  if (!Walked.insert(VD).second)
    return;
  bool Cuda = cudaVarKind(VD) != nullptr;
  bool Const = VD->isConstexpr() ||
               (VD->getType().isConstQualified() && VD->getAnyInitializer());
  if (!Cuda && !Const && !VD->isStaticDataMember()) {
    problem(Use.isValid() ? Use : VD->getLocation(),
            "uses host variable '" + VD->getQualifiedNameAsString() + "' (" +
                TU.where(VD->getLocation()) +
                "), which does not exist on the device");
    return;
  }
  const VarDecl *Def = VD->getDefinition();
  if (!Def && Cuda && VD->hasExternalStorage() &&
      !(VD->hasAttr<CUDASharedAttr>() &&
        VD->getType()->isIncompleteArrayType())) {
    problem(Use.isValid() ? Use : VD->getLocation(),
            "uses '" + VD->getQualifiedNameAsString() +
                "', declared extern at " + TU.where(VD->getLocation()) +
                " but not defined in this translation unit (relocatable "
                "device code: its definition is in another file)");
    return;
  }
  for (const VarDecl *R : VD->redecls())
    if (TU.isUserLoc(R->getLocation()))
      addTop(topLevelOf(R));
  if (VD->isStaticDataMember())
    need(cast<Decl>(VD->getDeclContext()), Use);
  if (VD->getTemplateInstantiationPattern())
    Worklist.push_back(VD);
}

void Extraction::needRecord(const CXXRecordDecl *RD, SourceLocation Use) {
  if (RD->isLambda()) {
    if (Walked.insert(RD).second)
      for (const FieldDecl *F : RD->fields())
        needType(F->getType(), F->getLocation());
    return;
  }
  addTop(topLevelOf(RD));
  if (const auto *CTS = dyn_cast<ClassTemplateSpecializationDecl>(RD)) {
    if (CTS->getSpecializationKind() != TSK_ExplicitSpecialization)
      need(CTS->getSpecializedTemplate(), Use);
    if (Walked.insert(RD).second)
      walkRecordInstantiation(RD);
  } else if (RD->getTemplateInstantiationPattern()) {
    if (Walked.insert(RD).second)
      walkRecordInstantiation(RD);
  }
}

void Extraction::need(const Decl *D, SourceLocation Use) {
  if (!D)
    return;
  if (isa<TemplateTypeParmDecl>(D) || isa<NonTypeTemplateParmDecl>(D) ||
      isa<TemplateTemplateParmDecl>(D) || isa<ParmVarDecl>(D) ||
      isa<BindingDecl>(D) || isa<ImplicitParamDecl>(D) ||
      isa<TranslationUnitDecl>(D) || isa<NamespaceDecl>(D) ||
      isa<BuiltinTemplateDecl>(D))
    return;
  if (const auto *FD = dyn_cast<FunctionDecl>(D))
    if (FD->getBuiltinID())
      return;
  if (const auto *EC = dyn_cast<EnumConstantDecl>(D))
    D = cast<Decl>(EC->getDeclContext());
  if (const auto *FD = dyn_cast<FieldDecl>(D))
    D = cast<Decl>(FD->getDeclContext());
  if (const auto *IF = dyn_cast<IndirectFieldDecl>(D))
    D = cast<Decl>(IF->getDeclContext());
  if (const auto *TD = dyn_cast<TagDecl>(D))
    if (TagDecl *Def = TD->getDefinition())
      D = Def;

  if (!TU.isUserLoc(D->getLocation())) {
    if (Walked.insert(D).second)
      external(D, Use);
    return;
  }

  if (const FunctionDecl *Encl = enclosingFunction(D))
    if (needLocal(D, Encl, Use))
      return;
  if (const auto *FD = dyn_cast<FunctionDecl>(D))
    return needFunction(FD, Use);
  if (const auto *VD = dyn_cast<VarDecl>(D))
    return needVariable(VD, Use);
  if (const auto *RD = dyn_cast<CXXRecordDecl>(D))
    return needRecord(RD, Use);
  if (const auto *USD = dyn_cast<UsingShadowDecl>(D)) {
    need(USD->getIntroducer(), Use);
    need(USD->getTargetDecl(), Use);
    return;
  }
  addTop(topLevelOf(D));
}


void Extraction::walkRecordInstantiation(const CXXRecordDecl *RD) {
  RefWalker W(*this);
  for (const CXXBaseSpecifier &B : RD->bases())
    needType(B.getType(), RD->getLocation());
  for (const Decl *M : RD->decls()) {
    if (const auto *F = dyn_cast<FieldDecl>(M))
      needType(F->getType(), F->getLocation());
    else if (const auto *FD = dyn_cast<FunctionDecl>(M)) {
      if (!FD->isImplicit() && !isHostOnly(FD) && FD->hasBody() &&
          FD->isTemplateInstantiation())
        Worklist.push_back(FD);
    } else if (const auto *VD = dyn_cast<VarDecl>(M))
      needType(VD->getType(), VD->getLocation());
    else if (const auto *TD = dyn_cast<TypedefNameDecl>(M))
      needType(TD->getUnderlyingType(), TD->getLocation());
  }
}

void Extraction::walk(const Decl *D) {
  RefWalker W(*this);
  W.Current = D;
  W.TraverseDecl(const_cast<Decl *>(D));
}

std::string Extraction::typeName(QualType T, bool &Ok) {
  auto It = TypeRenames.find(
      Ctx.getCanonicalType(T).getUnqualifiedType().getTypePtr());
  if (It != TypeRenames.end())
    return It->second;
  if (const CXXRecordDecl *RD = T->getAsCXXRecordDecl())
    if (RD->isLambda() || enclosingFunction(RD))
      Ok = false;
  return TypeName::getFullyQualifiedName(T, Ctx, namePolicy(Ctx));
}

std::string Extraction::nameExpr(const FunctionDecl *Spec, bool &Ok) {
  Ok = true;
  const FunctionDecl *Pattern = Kernel;
  std::string Name = Pattern->getQualifiedNameAsString();
  {
    std::string S;
    raw_string_ostream OS(S);
    PrintingPolicy P = namePolicy(Ctx);
    Pattern->printQualifiedName(OS, P);
    Name = S;
  }
  const TemplateArgumentList *Args = Spec->getTemplateSpecializationArgs();
  if (!Args) {
    // Overloaded kernels: name the one we mean.
    auto R = Pattern->getDeclContext()->lookup(Pattern->getDeclName());
    unsigned N = 0;
    for (auto I = R.begin(); I != R.end(); ++I)
      ++N;
    if (N <= 1)
      return Name;
    std::string Sig = "void(*)(";
    for (unsigned I = 0; I < Pattern->getNumParams(); ++I) {
      if (I)
        Sig += ", ";
      Sig += typeName(Pattern->getParamDecl(I)->getType(), Ok);
    }
    return "static_cast<" + Sig + ")>(" + Name + ")";
  }
  std::string S = Name + "<";
  PrintingPolicy P = namePolicy(Ctx);
  bool First = true;
  auto One = [&](const TemplateArgument &A) {
    if (!First)
      S += ", ";
    First = false;
    if (A.getKind() == TemplateArgument::Type) {
      S += typeName(A.getAsType(), Ok);
    } else {
      std::string T;
      raw_string_ostream OS(T);
      A.print(P, OS, /*IncludeType=*/true);
      S += T;
    }
  };
  for (const TemplateArgument &A : Args->asArray()) {
    if (A.getKind() == TemplateArgument::Pack) {
      for (const TemplateArgument &PA : A.pack_elements())
        One(PA);
      continue;
    }
    One(A);
  }
  if (S.back() == '>')
    S += " ";
  return S + ">";
}

//===----------------------------------------------------------------------===//
// Macros
//===----------------------------------------------------------------------===//

std::string Extraction::macroText(const MacroInfo *MI, std::string *Name) {
  SourceLocation DL = MI->getDefinitionLoc();
  std::pair<FileID, unsigned> B = SM.getDecomposedLoc(DL);
  StringRef Buf = SM.getBufferData(B.first);
  unsigned NameEnd = B.second;
  while (NameEnd < Buf.size() &&
         (isalnum(static_cast<unsigned char>(Buf[NameEnd])) ||
          Buf[NameEnd] == '_' || Buf[NameEnd] == '$'))
    ++NameEnd;
  if (Name)
    *Name = Buf.slice(B.second, NameEnd).str();
  unsigned Start = B.second;
  while (Start > 0 && Buf[Start - 1] != '\n')
    --Start;
  SourceLocation EL = MI->getDefinitionEndLoc();
  unsigned End = NameEnd;
  if (EL.isValid()) {
    std::pair<FileID, unsigned> E = SM.getDecomposedLoc(EL);
    if (E.first == B.first && E.second >= B.second)
      End = E.second + Lexer::MeasureTokenLength(EL, SM, Ctx.getLangOpts());
  }
  if (End < NameEnd)
    End = NameEnd;
  std::string T = Buf.slice(Start, End).str();
  StringRef TT = StringRef(T).ltrim();
  if (!TT.starts_with("#")) {
    // Defined from the command line (-D) without '#define' text.
    std::string N = Buf.slice(B.second, NameEnd).str();
    return "#define " + Buf.slice(B.second, End).str();
  }
  return TT.str();
}

void Extraction::macroDeps(const MacroInfo *MI, SourceLocation UseLoc,
                           std::vector<const MacroInfo *> &Out,
                           SmallPtrSetImpl<const MacroInfo *> &Seen) {
  if (!MI || !Seen.insert(MI).second)
    return;
  auto *PP = const_cast<Preprocessor *>(TU.pp());
  for (const Token &T : MI->tokens()) {
    const IdentifierInfo *II = T.getIdentifierInfo();
    if (!II || !II->hadMacroDefinition())
      continue;
    if (llvm::is_contained(MI->params(), II))
      continue;
    MacroDefinition MD = PP->getMacroDefinitionAtLoc(II, UseLoc);
    if (const MacroInfo *Dep = MD.getMacroInfo())
      macroDeps(Dep, UseLoc, Out, Seen);
  }
  Out.push_back(MI); // after its dependencies
}

void Extraction::collectMacros(FileID FID, unsigned B, unsigned E,
                               std::vector<const MacroInfo *> &Out) {
  auto *PP = const_cast<Preprocessor *>(TU.pp());
  if (!PP)
    return;
  StringRef Buf = SM.getBufferData(FID);
  Lexer L(SM.getLocForStartOfFile(FID), Ctx.getLangOpts(), Buf.begin(),
          Buf.begin() + B, Buf.end());
  SmallPtrSet<const MacroInfo *, 16> Seen;
  Token T;
  while (true) {
    L.LexFromRawLexer(T);
    if (T.is(tok::eof))
      break;
    unsigned Off = SM.getFileOffset(T.getLocation());
    if (Off >= E)
      break;
    if (!T.is(tok::raw_identifier))
      continue;
    IdentifierInfo *II = PP->getIdentifierInfo(T.getRawIdentifier());
    if (!II || !II->hadMacroDefinition())
      continue;
    MacroDefinition MD = PP->getMacroDefinitionAtLoc(II, T.getLocation());
    if (const MacroInfo *MI = MD.getMacroInfo()) {
      MacroNames[MI] = II->getName().str();
      macroDeps(MI, T.getLocation(), Out, Seen);
    }
  }
}

std::vector<Extraction::TextMacro>
Extraction::expandedMacros(FileID FID, unsigned B, unsigned E) {
  std::vector<TextMacro> Out;
  std::set<std::pair<std::string, std::string>> Seen;
  for (unsigned I = 1, N = SM.local_sloc_entry_size(); I < N; ++I) {
    const SrcMgr::SLocEntry &Entry = SM.getLocalSLocEntry(I);
    if (!Entry.isExpansion() || !Entry.getExpansion().isMacroBodyExpansion())
      continue;
    const SrcMgr::ExpansionInfo &X = Entry.getExpansion();
    std::pair<FileID, unsigned> At =
        SM.getDecomposedLoc(SM.getExpansionLoc(X.getExpansionLocStart()));
    if (At.first != FID || At.second < B || At.second >= E)
      continue;
    // The macro's name, where the expansion is spelled.
    SourceLocation NameLoc = SM.getSpellingLoc(X.getExpansionLocStart());
    std::pair<FileID, unsigned> NL = SM.getDecomposedLoc(NameLoc);
    StringRef NBuf = SM.getBufferData(NL.first);
    unsigned NEnd = NL.second;
    while (NEnd < NBuf.size() &&
           (isalnum((unsigned char)NBuf[NEnd]) || NBuf[NEnd] == '_'))
      ++NEnd;
    std::string Name = NBuf.slice(NL.second, NEnd).str();
    // Its #define: the logical line holding the first body token.
    std::pair<FileID, unsigned> DL =
        SM.getDecomposedLoc(SM.getSpellingLoc(X.getSpellingLoc()));
    StringRef Buf = SM.getBufferData(DL.first);
    unsigned Start = DL.second;
    auto LineStart = [&](unsigned P) {
      while (P > 0 && Buf[P - 1] != '\n')
        --P;
      return P;
    };
    Start = LineStart(Start);
    while (Start >= 2 &&
           (Buf[Start - 2] == '\\' ||
            (Start >= 3 && Buf[Start - 2] == '\r' && Buf[Start - 3] == '\\')))
      Start = LineStart(Start - 1);
    unsigned End = Start;
    while (End < Buf.size()) {
      size_t NLPos = Buf.find('\n', End);
      if (NLPos == StringRef::npos) {
        End = Buf.size();
        break;
      }
      StringRef Line = Buf.slice(End, NLPos).rtrim("\r");
      End = NLPos;
      if (!Line.ends_with("\\"))
        break;
      End = NLPos + 1;
    }
    std::string Text = Buf.slice(Start, End).str();
    StringRef T = StringRef(Text).ltrim();
    if (!T.consume_front("#"))
      continue;
    T = T.ltrim();
    if (!T.consume_front("define"))
      continue;
    T = T.ltrim();
    if (!T.starts_with(Name) || Name.empty())
      continue;
    if (!Seen.insert({Name, Text}).second)
      continue;
    Out.push_back({Name, StringRef(Text).ltrim().str(),
                   SM.getComposedLoc(DL.first, Start)});
  }
  std::stable_sort(Out.begin(), Out.end(),
                   [&](const TextMacro &A, const TextMacro &B) {
                     return SM.isBeforeInTranslationUnit(A.Loc, B.Loc);
                   });
  return Out;
}

//===----------------------------------------------------------------------===//
// Assembly
//===----------------------------------------------------------------------===//

std::vector<const DeclContext *> namespaceChain(const Decl *D) {
  std::vector<const DeclContext *> Chain;
  for (const DeclContext *DC = D->getLexicalDeclContext();
       DC && !DC->isTranslationUnit();
       DC = cast<Decl>(DC)->getLexicalDeclContext())
    if (isa<NamespaceDecl>(DC) || isa<LinkageSpecDecl>(DC))
      Chain.push_back(DC);
  std::reverse(Chain.begin(), Chain.end());
  return Chain;
}

std::string opener(const DeclContext *DC) {
  if (const auto *N = dyn_cast<NamespaceDecl>(DC)) {
    std::string S = N->isInline() ? "inline namespace" : "namespace";
    if (!N->isAnonymousNamespace())
      S += " " + N->getNameAsString();
    return S + " {";
  }
  if (const auto *L = dyn_cast<LinkageSpecDecl>(DC))
    return L->getLanguage() == LinkageSpecLanguageIDs::C ? "extern \"C\" {"
                                                         : "extern \"C++\" {";
  return "{";
}

/// A copied piece's text with its conditional directives balanced. A
/// declaration's range can begin inside an #if that closes within it
/// (`#if defined(__CUDACC__)` / `__constant__` / `#endif` / `static double
/// t[] = {...};`): the piece then holds an #endif (or #else/#elif) whose #if
/// is not copied. Such an #endif becomes an empty line; such an #else or
/// #elif becomes `#if 0`, which the original #endif closes (the piece began
/// in the taken branch, so the other one stays out, as it was). An #if left
/// open at the end is closed. The lines keep their count and order.
std::string balancedConditionals(StringRef Text) {
  std::string Out;
  Out.reserve(Text.size());
  int Depth = 0;
  StringRef Rest = Text;
  while (!Rest.empty()) {
    auto [Line, After] = Rest.split('\n');
    bool Newline = Line.size() < Rest.size();
    Rest = After;
    StringRef Name = Line.ltrim();
    std::optional<StringRef> Replaced;
    if (Name.consume_front("#")) {
      Name = Name.ltrim().take_while(
          [](char C) { return isalpha(static_cast<unsigned char>(C)); });
      if (Name == "if" || Name == "ifdef" || Name == "ifndef") {
        ++Depth;
      } else if (Name == "endif") {
        if (Depth == 0)
          Replaced = ""; // its #if is outside the piece
        else
          --Depth;
      } else if ((Name == "else" || Name == "elif" || Name == "elifdef" ||
                  Name == "elifndef") &&
                 Depth == 0) {
        Replaced = "#if 0";
        ++Depth;
      }
    }
    Out += Replaced ? *Replaced : Line;
    if (Newline)
      Out += '\n';
  }
  for (; Depth > 0; --Depth)
    Out += "\n#endif";
  return Out;
}

std::string closer(const DeclContext *DC) {
  if (const auto *N = dyn_cast<NamespaceDecl>(DC))
    return "} // namespace" + (N->isAnonymousNamespace()
                                   ? std::string()
                                   : " " + N->getNameAsString());
  return "} // extern";
}

std::vector<Group> Extraction::groupTops() {
  std::vector<Group> Groups;
  for (const Decl *D : Tops) {
    Group G;
    if (!TU.rangeOf(D, G.FID, G.Begin, G.End))
      continue;
    G.Decls.push_back(D);
    Groups.push_back(G);
  }
  std::stable_sort(
      Groups.begin(), Groups.end(), [&](const Group &A, const Group &B) {
        return SM.isBeforeInTranslationUnit(SM.getComposedLoc(A.FID, A.Begin),
                                            SM.getComposedLoc(B.FID, B.Begin));
      });
  std::vector<Group> Merged;
  for (Group &G : Groups) {
    if (!Merged.empty() && Merged.back().FID == G.FID &&
        G.Begin < Merged.back().End) {
      Merged.back().End = std::max(Merged.back().End, G.End);
      Merged.back().Decls.insert(Merged.back().Decls.end(), G.Decls.begin(),
                                 G.Decls.end());
      continue;
    }
    Merged.push_back(G);
  }
  return Merged;
}

/// Limits predefined by clang that <cfloat>/<climits> macros expand to
/// (FLT_MIN -> __FLT_MIN__); NVRTC may lack them.
static bool isPredefinedLimit(StringRef N) {
  return N.starts_with("__FLT_") || N.starts_with("__DBL_") ||
         N.starts_with("__INT_") || N.starts_with("__LONG_") ||
         N.starts_with("__SCHAR_") || N.starts_with("__SHRT_") ||
         N.starts_with("__LONG_LONG_");
}

void Extraction::groupMacros(
    const std::vector<Group> &Merged,
    std::vector<std::vector<const MacroInfo *>> &Macros,
    std::vector<std::vector<TextMacro>> &TextMacros) {
  Macros.assign(Merged.size(), {});
  TextMacros.assign(Merged.size(), {});
  if (!TU.pp())
    for (size_t I = 0; I < Merged.size(); ++I)
      for (TextMacro &M :
           expandedMacros(Merged[I].FID, Merged[I].Begin, Merged[I].End)) {
        if (SM.isWrittenInBuiltinFile(M.Loc)) {
          if (isPredefinedLimit(M.Name)) {
            M.Text = "#ifndef " + M.Name + "\n" + M.Text + "\n#endif";
            TextMacros[I].push_back(std::move(M));
          }
          continue;
        }
        HeaderClass C;
        if (!SM.isWrittenInCommandLineFile(M.Loc))
          C = TU.classifyMacro(M.Loc);
        if (C.Kind == HeaderKind::Builtin)
          continue;
        if (C.Kind == HeaderKind::Providable) {
          Includes.insert(C.Include);
          continue;
        }
        if (C.Kind == HeaderKind::Unavailable) {
          if (const char *Ov = macroOverride(M.Name))
            M.Text = "#define " + M.Name + " " + Ov;
          M.Text = "#ifndef " + M.Name + "\n" + M.Text + "\n#endif";
        }
        TextMacros[I].push_back(std::move(M));
      }
  for (size_t I = 0; I < Merged.size(); ++I) {
    collectMacros(Merged[I].FID, Merged[I].Begin, Merged[I].End, Macros[I]);
    for (const MacroInfo *MI : Macros[I]) {
      SourceLocation DL = MI->getDefinitionLoc();
      if (MI->isBuiltinMacro() || SM.isWrittenInBuiltinFile(DL) ||
          SM.isWrittenInCommandLineFile(DL))
        continue;
      HeaderClass C = TU.classifyMacro(DL);
      if (C.Kind == HeaderKind::Providable)
        Includes.insert(C.Include);
    }
  }
}

void Extraction::emitIncludes(ExtractedKernel &K, Output &O) {
  SourceLoc KL = TU.loc(Kernel->getLocation());
  O.OS << "// cuda-l1: kernel " << K.Kernel << " extracted from "
       << sys::path::filename(KL.File) << ":" << KL.Line
       << " with the context it needs (see the .json manifest)\n";
  for (const std::string &I : Includes) {
    O.OS << "#include " << I << "\n";
    K.Includes.push_back(I);
    CopiedPiece P;
    P.What = "include " + I;
    K.Pieces.push_back(P);
  }
  for (const auto &TD : SystemTypedefs) {
    O.OS << "typedef " << TD.second.first << " " << TD.first
         << "; // cuda-l1: as <" << TD.second.second << "> defines it\n";
    CopiedPiece P;
    P.What = "typedef " + TD.first + " (as <" + TD.second.second +
             "> defines it)";
    K.Pieces.push_back(P);
  }
  if (!Includes.empty() || !SystemTypedefs.empty())
    O.OS << "\n";
}

/// A macro from a header NVRTC lacks, kept only where NVRTC does not define
/// it, with the compiler-predefined macros its definition relies on
/// (FLT_MIN -> __FLT_MIN__), which NVRTC may not predefine either.
void Extraction::emitUnavailableMacro(const MacroInfo *MI,
                                      const std::string &Name,
                                      const std::string &Text,
                                      const HeaderClass &C, Output &O) {
  SourceLocation DL = MI->getDefinitionLoc();
  if (!macroOverride(Name))
    for (const Token &T : MI->tokens()) {
      const IdentifierInfo *II = T.getIdentifierInfo();
      auto *PP = const_cast<Preprocessor *>(TU.pp());
      if (!II || !PP || !II->hadMacroDefinition())
        continue;
      const MacroInfo *Dep = PP->getMacroDefinitionAtLoc(II, DL).getMacroInfo();
      if (!Dep || !SM.isWrittenInBuiltinFile(Dep->getDefinitionLoc()) ||
          O.Defined.count(II->getName().str()))
        continue;
      O.Defined[II->getName().str()] = Dep;
      O.OS << "#ifndef " << II->getName() << "\n"
           << macroText(Dep, nullptr) << "\n#endif\n";
    }
  O.OS << "#ifndef " << Name << "\n";
  if (const char *Ov = macroOverride(Name))
    O.OS << "#define " << Name << " " << Ov << "\n";
  else
    O.OS << Text << "\n";
  O.OS << "#endif\n";
}

void Extraction::emitMacros(const std::vector<const MacroInfo *> &Ms,
                            ExtractedKernel &K, Output &O) {
  for (const MacroInfo *MI : Ms) {
    std::string Name;
    std::string Text = macroText(MI, &Name);
    auto It = O.Defined.find(Name);
    if (It != O.Defined.end() && It->second == MI)
      continue;
    SourceLocation DL = MI->getDefinitionLoc();
    if (MI->isBuiltinMacro() || SM.isWrittenInBuiltinFile(DL))
      continue;
    bool FromCmdLine = SM.isWrittenInCommandLineFile(DL);
    HeaderClass C;
    if (!FromCmdLine)
      C = TU.classifyMacro(DL);
    if (C.Kind == HeaderKind::Builtin || C.Kind == HeaderKind::Providable)
      continue;
    if (It != O.Defined.end())
      O.OS << "#undef " << Name << "\n";
    O.Defined[Name] = MI;
    CopiedPiece P;
    P.What = "macro " + Name;
    if (C.Kind == HeaderKind::Unavailable) {
      emitUnavailableMacro(MI, Name, Text, C, O);
      P.What += " (from <" + C.Header + ">)";
    } else {
      O.OS << Text << "\n";
      if (FromCmdLine)
        P.What += " (from the command line)";
    }
    if (!FromCmdLine) {
      P.Begin = TU.loc(DL);
      P.End = TU.loc(MI->getDefinitionEndLoc().isValid()
                         ? MI->getDefinitionEndLoc()
                         : DL);
    }
    K.Pieces.push_back(P);
  }
}

void Extraction::emitTextMacros(const std::vector<TextMacro> &Ms,
                                ExtractedKernel &K, Output &O) {
  for (const TextMacro &M : Ms) {
    auto It = O.TextDefined.find(M.Name);
    if (It != O.TextDefined.end() && It->second == M.Text)
      continue;
    if (It != O.TextDefined.end())
      O.OS << "#undef " << M.Name << "\n";
    O.TextDefined[M.Name] = M.Text;
    O.OS << M.Text << "\n";
    CopiedPiece P;
    P.What = "macro " + M.Name;
    if (!SM.isWrittenInCommandLineFile(M.Loc)) {
      P.Begin = TU.loc(M.Loc);
      P.End = P.Begin;
    }
    K.Pieces.push_back(P);
  }
}

/// Closes and opens namespaces / extern blocks so that \p Want is open.
/// Reopened namespaces are other NamespaceDecls of one namespace: the one
/// already open is reused.
void Extraction::reopen(std::vector<const DeclContext *> Want, Output &O) {
  for (size_t I = 0; I < Want.size() && I < O.Open.size(); ++I) {
    const auto *A = dyn_cast<NamespaceDecl>(Want[I]);
    const auto *B = dyn_cast<NamespaceDecl>(O.Open[I]);
    if (A && B && A->getFirstDecl() == B->getFirstDecl())
      Want[I] = O.Open[I];
    else if (isa<LinkageSpecDecl>(Want[I]) && isa<LinkageSpecDecl>(O.Open[I]) &&
             cast<LinkageSpecDecl>(Want[I])->getLanguage() ==
                 cast<LinkageSpecDecl>(O.Open[I])->getLanguage())
      Want[I] = O.Open[I];
    else
      break;
  }
  size_t Common = 0;
  while (Common < O.Open.size() && Common < Want.size() &&
         O.Open[Common] == Want[Common])
    ++Common;
  while (O.Open.size() > Common) {
    O.OS << closer(O.Open.back()) << "\n";
    O.Open.pop_back();
  }
  for (size_t I = Common; I < Want.size(); ++I) {
    O.OS << opener(Want[I]) << "\n";
    O.Open.push_back(Want[I]);
  }
}

/// The text of one group, with holes where host-only members of copied
/// classes were.
void Extraction::emitGroup(const Group &G, ExtractedKernel &K, Output &O) {
  StringRef Buf = SM.getBufferData(G.FID);
  std::vector<std::pair<unsigned, unsigned>> Holes;
  for (const CXXMethodDecl *MD : HostMembers) {
    const Decl *HD = MD;
    if (const FunctionTemplateDecl *FT = MD->getDescribedFunctionTemplate())
      HD = FT;
    FileID F;
    unsigned B, E;
    if (!TU.rangeOf(HD, F, B, E) || F != G.FID || B < G.Begin || E > G.End)
      continue;
    Holes.push_back({B, E});
  }
  std::sort(Holes.begin(), Holes.end());
  reopen(namespaceChain(G.Decls.front()), O);
  bool IsKernel = llvm::is_contained(G.Decls, KernelTop);
  SourceLocation BL = SM.getComposedLoc(G.FID, G.Begin);
  SourceLoc BS = TU.loc(BL);
  if (Opts.OriginComments)
    O.OS << "// cuda-l1: from " << sys::path::filename(BS.File) << ":"
         << BS.Line << "\n";
  O.OS.flush();
  size_t Start = O.Text.size();
  unsigned Pos = G.Begin;
  std::string Text;
  for (auto &H : Holes) {
    if (H.first < Pos)
      continue;
    Text += Buf.slice(Pos, H.first);
    Text += "/* cuda-l1: host-only member omitted */";
    Pos = H.second;
  }
  Text += Buf.slice(Pos, G.End);
  O.OS << balancedConditionals(Text);
  O.OS.flush();
  if (IsKernel) {
    K.KernelBegin = Start;
    K.KernelEnd = O.Text.size();
  }
  O.OS << "\n";
  CopiedPiece P;
  for (const Decl *D : G.Decls)
    P.What += (P.What.empty() ? "" : ", ") + describe(D);
  P.Begin = BS;
  P.End = TU.loc(SM.getComposedLoc(G.FID, G.End > G.Begin ? G.End - 1 : G.End));
  K.Pieces.push_back(P);
}

/// A lambda from host code used by the kernel, rebuilt as a named functor.
void Extraction::emitLambda(const CXXRecordDecl *RD, const std::string &Name,
                            ExtractedKernel &K, Output &O) {
  const CXXMethodDecl *Call = RD->getLambdaCallOperator();
  if (!Call || !Call->getBody())
    return;
  std::vector<const DeclContext *> Want;
  if (const FunctionDecl *Host = enclosingFunction(RD))
    Want = namespaceChain(Host);
  reopen(Want, O);
  raw_ostream &OS = O.OS;
  SourceLoc LS = TU.loc(RD->getLocation());
  OS << "// cuda-l1: the lambda at " << sys::path::filename(LS.File) << ":"
     << LS.Line << ":" << LS.Column << ", as a named functor\n";
  OS << "struct " << Name << " {\n";
  auto FI = RD->field_begin();
  for (const LambdaCapture &C : RD->captures()) {
    if (FI == RD->field_end())
      break;
    std::string Field = C.capturesVariable()
                            ? C.getCapturedVar()->getNameAsString()
                            : "this_";
    bool Ok = true;
    OS << "  " << typeName(FI->getType(), Ok) << " " << Field << ";\n";
    ++FI;
  }
  OS << "  ";
  if (Call->hasAttr<CUDAHostAttr>() &&
      !Call->getAttr<CUDAHostAttr>()->isImplicit())
    OS << "__host__ ";
  OS << "__device__ ";
  bool Ok = true;
  if (Call->getDeclaredReturnType()->getContainedAutoType())
    OS << "auto";
  else
    OS << typeName(Call->getReturnType(), Ok);
  OS << " operator()(";
  for (unsigned I = 0; I < Call->getNumParams(); ++I) {
    const ParmVarDecl *PV = Call->getParamDecl(I);
    OS << (I ? ", " : "") << typeName(PV->getType(), Ok) << " "
       << PV->getName();
  }
  OS << ")" << (Call->isConst() ? " const " : " ");
  CharSourceRange BR = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Call->getBody()->getSourceRange()), SM,
      Ctx.getLangOpts());
  OS << Lexer::getSourceText(BR, SM, Ctx.getLangOpts()) << "\n};\n";
  CopiedPiece P;
  P.What = "lambda as functor " + Name;
  P.Begin = TU.loc(RD->getLocation());
  P.End = TU.loc(BR.getEnd().getLocWithOffset(-1));
  K.Pieces.push_back(P);
}

std::string Extraction::assemble(ExtractedKernel &K) {
  std::vector<Group> Merged = groupTops();
  std::vector<std::vector<const MacroInfo *>> Macros;
  std::vector<std::vector<TextMacro>> TextMacros;
  groupMacros(Merged, Macros, TextMacros);
  Output O;
  emitIncludes(K, O);
  for (size_t GI = 0; GI < Merged.size(); ++GI) {
    if (!Macros[GI].empty())
      emitMacros(Macros[GI], K, O);
    emitTextMacros(TextMacros[GI], K, O);
    emitGroup(Merged[GI], K, O);
  }
  reopen({}, O);
  for (auto &L : Lambdas)
    emitLambda(L.first, L.second, K, O);
  reopen({}, O);
  O.OS.flush();
  return O.Text;
}

ExtractedKernel Extraction::run() {
  ExtractedKernel K;
  {
    std::string S;
    raw_string_ostream OS(S);
    Kernel->printQualifiedName(OS, namePolicy(Ctx));
    K.Kernel = S;
  }
  const FunctionTemplateDecl *FT = Kernel->getDescribedFunctionTemplate();
  K.IsTemplate = FT != nullptr;
  KernelTop = topLevelOf(Kernel);
  {
    FileID F;
    unsigned B, E;
    SourceRange R = KernelTop->getSourceRange();
    K.KernelRange.Begin = TU.loc(R.getBegin());
    K.KernelRange.End = TU.loc(R.getEnd());
    (void)F;
    (void)B;
    (void)E;
  }
  Walked.insert(Kernel);
  addTop(KernelTop);
  // Instantiations: their resolved code is walked too.
  std::vector<const FunctionDecl *> Specs;
  if (FT)
    for (const FunctionDecl *S : FT->specializations())
      if (S->isTemplateInstantiation() ||
          S->getTemplateSpecializationKind() == TSK_ExplicitSpecialization) {
        Specs.push_back(S);
        Worklist.push_back(S);
        if (S->getTemplateSpecializationKind() == TSK_ExplicitSpecialization)
          addTop(topLevelOf(S));
        RefWalker W(*this);
        for (const TemplateArgument &A :
             S->getTemplateSpecializationArgs()->asArray())
          if (A.getKind() == TemplateArgument::Type)
            needType(A.getAsType(), S->getPointOfInstantiation());
      }
  while (!Worklist.empty() || true) {
    while (!Worklist.empty()) {
      const Decl *D = Worklist.back();
      Worklist.pop_back();
      walk(D);
    }
    // Declarations sharing text with a copied one (int a = 1, b = 2;, macro
    // expansions that declare several things) are copied with it.
    bool Added = false;
    std::map<FileID, std::vector<std::pair<unsigned, unsigned>>> Ranges;
    for (const Decl *D : Tops) {
      FileID F;
      unsigned B, E;
      if (TU.rangeOf(D, F, B, E))
        Ranges[F].push_back({B, E});
    }
    for (const TopLevel &T : TU.topLevels()) {
      if (Tops.count(T.D) || isa<UsingDirectiveDecl>(T.D))
        continue;
      auto It = Ranges.find(T.FID);
      if (It == Ranges.end())
        continue;
      for (auto &R : It->second)
        if (T.Begin < R.second && R.first < T.End) {
          addTop(T.D);
          Added = true;
          break;
        }
    }
    if (!Added)
      break;
  }

  // Namespace-scope using-directives of user code that name a namespace
  // the copied code lives in or gets from an included header.
  std::set<const NamespaceDecl *> UsedNs;
  for (const Decl *D : Tops)
    for (const DeclContext *DC : namespaceChain(D))
      if (const auto *N = dyn_cast<NamespaceDecl>(DC))
        UsedNs.insert(N->getFirstDecl());
  for (const TopLevel &T : TU.topLevels())
    if (const auto *UD = dyn_cast<UsingDirectiveDecl>(T.D)) {
      const NamespaceDecl *N = UD->getNominatedNamespace();
      if (!N || N->isStdNamespace() ||
          SM.isBeforeInTranslationUnit(Kernel->getLocation(),
                                       UD->getLocation()))
        continue;
      HeaderClass C = TU.classifyLoc(N->getLocation());
      if ((C.Kind == HeaderKind::User && UsedNs.count(N->getFirstDecl())) ||
          (C.Kind == HeaderKind::Providable && Includes.count(C.Include)))
        Tops.insert(UD);
    }

  // Name expressions and parameter layout.
  bool AllOk = true;
  if (FT) {
    for (const FunctionDecl *S : Specs) {
      bool Ok = true;
      std::string E = nameExpr(S, Ok);
      if (!Ok) {
        AllOk = false;
        problem(S->getPointOfInstantiation(),
                "instantiation " + E +
                    " uses a type that cannot be named outside its function");
        continue;
      }
      if (!llvm::is_contained(K.NameExprs, E))
        K.NameExprs.push_back(E);
      if (K.Params.empty())
        for (unsigned I = 0; I < S->getNumParams(); ++I)
          K.Params.push_back(
              makeParam(Ctx, S->getParamDecl(I), I, TypeRenames));
    }
    if (Specs.empty()) {
      Notes.push_back("the kernel template is not instantiated in this "
                      "translation unit: no name expression; NVRTC can only "
                      "check its syntax");
      for (unsigned I = 0; I < Kernel->getNumParams(); ++I)
        K.Params.push_back(
            makeParam(Ctx, Kernel->getParamDecl(I), I, TypeRenames));
    }
  } else {
    bool Ok = true;
    K.NameExprs.push_back(nameExpr(Kernel, Ok));
    for (unsigned I = 0; I < Kernel->getNumParams(); ++I)
      K.Params.push_back(
          makeParam(Ctx, Kernel->getParamDecl(I), I, TypeRenames));
  }
  (void)AllOk;
  if (!K.NameExprs.empty())
    K.NameExpr = K.NameExprs.front();
  if (Kernel->getLocation().isMacroID())
    Notes.push_back("the kernel is defined by a macro expansion: the kernel "
                    "range is the macro invocation, and replacing the kernel "
                    "replaces that invocation");
  if (!TU.pp())
    Notes.push_back("no preprocessor given: macros were found from their "
                    "expansions only (a macro that expands to nothing is "
                    "missed)");
  K.Source = assemble(K);
  K.Problems = Problems;
  K.Notes = Notes;
  return K;
}

bool selects(const FunctionDecl *FD, StringRef Sel, const ASTContext &Ctx) {
  if (Sel == "all" || Sel.empty())
    return true;
  Sel.consume_front("::");
  if (FD->getName() == Sel)
    return true;
  std::string Q = FD->getQualifiedNameAsString();
  if (Q == Sel)
    return true;
  std::string S;
  raw_string_ostream OS(S);
  FD->printQualifiedName(OS, namePolicy(Ctx));
  return S == Sel;
}

/// Every user kernel definition of the TU (template patterns, not
/// instantiations), in source order.
class KernelFinder : public RecursiveASTVisitor<KernelFinder> {
public:
  explicit KernelFinder(TUInfo &TU) : TU(TU) {}
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->hasAttr<CUDAGlobalAttr>() || !FD->doesThisDeclarationHaveABody())
      return true;
    if (FD->isTemplateInstantiation() ||
        FD->getTemplateSpecializationKind() == TSK_ExplicitSpecialization)
      return true;
    if (!TU.isUserLoc(FD->getLocation()))
      return true;
    Kernels.push_back(FD);
    return true;
  }
  TUInfo &TU;
  std::vector<const FunctionDecl *> Kernels;
};

} // namespace

std::vector<ExtractedKernel> extractKernels(ASTContext &Ctx,
                                            StringRef KernelSelector,
                                            const ExtractOptions &Opts) {
  TUInfo TU(Ctx, Opts.PP);
  KernelFinder F(TU);
  F.TraverseDecl(Ctx.getTranslationUnitDecl());
  std::vector<ExtractedKernel> Out;
  SourceManager &SM = Ctx.getSourceManager();
  std::string Main;
  if (auto FE = SM.getFileEntryRefForID(SM.getMainFileID()))
    Main = makeSourceLoc(SM, SM.getLocForStartOfFile(SM.getMainFileID())).File;
  for (const FunctionDecl *K : F.Kernels) {
    if (!selects(K, KernelSelector, Ctx))
      continue;
    Extraction X(TU, K, Opts);
    ExtractedKernel E = X.run();
    E.TranslationUnit = Main;
    Out.push_back(std::move(E));
  }
  return Out;
}

std::vector<ExtractedKernel> extractKernels(ASTContext &Ctx, Preprocessor &PP,
                                            StringRef KernelSelector) {
  ExtractOptions O;
  O.PP = &PP;
  return extractKernels(Ctx, KernelSelector, O);
}

} // namespace cudal1
