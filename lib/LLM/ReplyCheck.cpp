//===- ReplyCheck.cpp - a reply's code parsed with Clang as device code ---===//
#include "cudal1/LLM/ReplyCheck.h"
#include "cudal1/LLM/Reply.h"
#include "cudal1/Model/KernelModel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

/// Clang's errors with their offsets in the main file (npos: elsewhere).
class ErrorCollector : public DiagnosticConsumer {
public:
  void HandleDiagnostic(DiagnosticsEngine::Level L,
                        const Diagnostic &D) override {
    DiagnosticConsumer::HandleDiagnostic(L, D);
    if (L < DiagnosticsEngine::Error)
      return;
    SmallString<256> Msg;
    D.FormatDiagnostic(Msg);
    size_t Off = StringRef::npos;
    if (D.hasSourceManager() && D.getLocation().isValid()) {
      const SourceManager &SM = D.getSourceManager();
      SourceLocation F = SM.getFileLoc(D.getLocation());
      if (SM.isInMainFile(F))
        Off = SM.getFileOffset(F);
    }
    Errors.push_back({Off, std::string(Msg)});
  }
  std::vector<std::pair<size_t, std::string>> Errors;
};

/// Parses \p Source (named \p Path) as CUDA device code.
std::unique_ptr<ASTUnit> parse(const std::string &Source,
                               const std::string &Path, const ParseOptions &PO,
                               ErrorCollector &Errs) {
  // nvcc's host helpers and scoped atomics, as in every other parse.
  std::vector<std::string> Args = {"-include", cudaHostCompatPath().str()};
  for (const std::string &A : makeParseArgs({}, Path, PO))
    if (A != Path && A != "clang++")
      Args.push_back(A);
  tooling::FileContentMappings Virtual = {
      {cudaHostCompatPath().str(), cudaHostCompatSource().str()}};
  return tooling::buildASTFromCodeWithArgs(
      Source, Args, Path, "clang++", std::make_shared<PCHContainerOperations>(),
      tooling::getClangStripDependencyFileAdjuster(), Virtual, &Errs);
}

std::optional<KernelInfo> findKernel(const ProjectModel &M,
                                     const std::string &Qualified) {
  for (const KernelInfo &KI : M.Kernels)
    if (KI.QualifiedName == Qualified)
      return KI;
  return std::nullopt;
}

/// Why \p C's signature is not \p O's ("" = the same).
std::string signatureDifference(const KernelInfo &O, const KernelInfo &C) {
  if (O.IsTemplate != C.IsTemplate)
    return O.IsTemplate ? "the kernel is a template; keep its template "
                          "parameters"
                        : "the kernel is not a template; do not make it one";
  if (O.TemplateParams.size() != C.TemplateParams.size())
    return formatv("it has {0} template parameters, the original {1}",
                   C.TemplateParams.size(), O.TemplateParams.size());
  for (size_t I = 0; I < O.TemplateParams.size(); ++I) {
    const TemplateParamInfo &A = O.TemplateParams[I], &B = C.TemplateParams[I];
    if (A.Kind != B.Kind || A.Name != B.Name || A.Type != B.Type)
      return formatv("template parameter {0} is '{1}', the original's is "
                     "'{2}'",
                     I + 1, B.Name, A.Name);
  }
  if (O.Params.size() != C.Params.size())
    return formatv("it has {0} parameters, the original {1}", C.Params.size(),
                   O.Params.size());
  for (size_t I = 0; I < O.Params.size(); ++I) {
    const ParamInfo &A = O.Params[I], &B = C.Params[I];
    if (A.IsPointer != B.IsPointer || A.IsReference != B.IsReference ||
        A.ElementType != B.ElementType || A.SizeBytes != B.SizeBytes)
      return formatv("parameter {0} is '{1}', the original's is '{2}'", I + 1,
                     B.Type, A.Type);
  }
  return "";
}

/// The contract checks on the reply's part of the candidate's AST.
class ContractVisitor : public RecursiveASTVisitor<ContractVisitor> {
public:
  ContractVisitor(ASTContext &Ctx, size_t Begin, size_t End,
                  std::string Kernel, std::string Source)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Begin(Begin), End(End),
        Kernel(std::move(Kernel)), Source(std::move(Source)) {}

  std::string Problem;

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!inReply(FD->getLocation()) || FD->isImplicit())
      return true;
    if (auto *M = dyn_cast<CXXMethodDecl>(FD))
      if (M->getParent()->isLambda())
        return true;
    std::string Name = FD->getQualifiedNameAsString();
    if (FD->hasAttr<CUDAGlobalAttr>()) {
      if (Name != Kernel)
        return fail(FD->getLocation(),
                    "defines another kernel '" + Name + "': give only the "
                    "kernel '" + Kernel + "' and __device__ helpers (a kernel "
                    "started from device code runs outside the timed one)");
      return true;
    }
    if (!FD->hasAttr<CUDADeviceAttr>())
      return fail(FD->getLocation(),
                  "defines the host function '" + Name +
                      "': only the kernel and __device__ helpers may be "
                      "given (no host code)");
    return true;
  }

  bool VisitVarDecl(VarDecl *VD) {
    if (!inReply(VD->getLocation()) || !VD->hasGlobalStorage() ||
        VD->isStaticLocal() || VD->isConstexpr() ||
        VD->getType().isConstQualified())
      return true;
    if (VD->hasAttr<CUDADeviceAttr>() || VD->hasAttr<CUDAConstantAttr>() ||
        VD->hasAttr<CUDASharedAttr>())
      return true;
    return fail(VD->getLocation(), "defines the host variable '" +
                                       VD->getQualifiedNameAsString() +
                                       "': only device code may be given");
  }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *E) {
    if (!inReply(E->getBeginLoc()))
      return true;
    return fail(E->getBeginLoc(),
                "launches a kernel from device code: work the kernel starts "
                "runs outside it (on another stream, outside the timed "
                "kernel); the kernel must do its work itself");
  }

  bool VisitCallExpr(CallExpr *E) {
    const FunctionDecl *F = E->getDirectCallee();
    if (!F || !inReply(E->getBeginLoc()) || !F->getIdentifier())
      return true;
    StringRef N = F->getName();
    for (const char *P : {"cudaLaunch", "cudaGetParameterBuffer", "cudaStream",
                          "cudaEvent", "cudaDeviceSynchronize", "cudaMalloc",
                          "cudaFree", "cudaMemcpy", "cudaMemset"})
      if (N.starts_with(P))
        return fail(E->getBeginLoc(),
                    "calls the device runtime (" + N.str() +
                        "): no launches, streams, events, allocations or "
                        "copies from device code; the kernel must do its "
                        "work itself");
    return true;
  }

  bool VisitGCCAsmStmt(GCCAsmStmt *S) {
    if (!inReply(S->getBeginLoc()))
      return true;
    std::string Why;
    if (!checkInlinePtx(S->getAsmString(), Why))
      return fail(S->getBeginLoc(), Why);
    return true;
  }

  bool VisitMSAsmStmt(MSAsmStmt *S) {
    return !inReply(S->getBeginLoc()) ||
           fail(S->getBeginLoc(), "uses Microsoft-style inline asm");
  }

  bool VisitFileScopeAsmDecl(FileScopeAsmDecl *D) {
    return !inReply(D->getLocation()) ||
           fail(D->getLocation(), "has file-scope asm: only inline PTX inside "
                                  "device functions is allowed");
  }

private:
  bool inReply(SourceLocation L) const {
    if (L.isInvalid())
      return false;
    SourceLocation F = SM.getFileLoc(L);
    if (!SM.isInMainFile(F))
      return false;
    size_t Off = SM.getFileOffset(F);
    return Off >= Begin && Off < End;
  }
  bool fail(SourceLocation L, const std::string &What) {
    size_t Off = SM.getFileOffset(SM.getFileLoc(L));
    unsigned Line = 1 + StringRef(Source).slice(Begin, Off).count('\n');
    Problem = formatv("line {0} of the code {1}", Line, What).str();
    return false; // stop at the first
  }

  ASTContext &Ctx;
  const SourceManager &SM;
  size_t Begin, End;
  std::string Kernel, Source;
};

/// \p R as a compile failure: Clang's first errors, located by the line of
/// the reply's code ([Begin, End) of the candidate) or of the context.
ReplyCheckResult
compileFailure(ReplyCheckResult &R,
               const std::vector<std::pair<size_t, std::string>> &Errors,
               size_t Begin, size_t End) {
  R.State = ReplyCheckResult::Compile;
  StringRef S = R.CandidateSource;
  for (size_t I = 0; I < Errors.size() && I < 10; ++I) {
    auto &[Off, Msg] = Errors[I];
    std::string Where;
    if (Off != StringRef::npos && Off >= Begin && Off < End)
      Where = formatv("line {0} of your code: ",
                      1 + S.slice(Begin, Off).count('\n'));
    else if (Off != StringRef::npos)
      Where = formatv("line {0} of the context: ",
                      1 + S.take_front(Off).count('\n'));
    R.Detail += Where + Msg + "\n";
  }
  R.Problem = Errors.empty()
                  ? "it does not parse"
                  : formatv("it does not compile ({0} error{1}; the first: "
                            "{2})",
                            Errors.size(), Errors.size() == 1 ? "" : "s",
                            StringRef(R.Detail).split('\n').first)
                        .str();
  return R;
}

std::string virtualPath(const ExtractedKernel &K, StringRef What) {
  return "/cuda-l1-reply/" + kernelFileStem(K.Kernel) + "-" + What.str() +
         ".cu";
}

} // namespace

ReplyChecker::ReplyChecker(const ExtractedKernel &K, ParseOptions PO)
    : K(K), PO(std::move(PO)) {}
ReplyChecker::~ReplyChecker() = default;

bool ReplyChecker::ready(std::string &Why) {
  if (Original)
    return true;
  ErrorCollector Errs;
  std::unique_ptr<ASTUnit> AST =
      parse(K.Source, virtualPath(K, "original"), PO, Errs);
  if (!AST || !Errs.Errors.empty()) {
    Why = "kernel '" + K.Kernel + "' does not parse on its own as extracted" +
          (Errs.Errors.empty() ? std::string()
                               : ": " + Errs.Errors.front().second);
    return false;
  }
  Original = findKernel(collectKernelModel(AST->getASTContext()), K.Kernel);
  if (!Original) {
    Why = "kernel '" + K.Kernel + "' is not found in its extracted source";
    return false;
  }
  return true;
}

ReplyCheckResult ReplyChecker::check(StringRef Code) {
  ReplyCheckResult R;
  auto Contract = [&](std::string P) {
    R.State = ReplyCheckResult::Contract;
    R.Problem = std::move(P);
    return R;
  };
  std::vector<std::string> Includes;
  std::string Problem;
  if (!takeIncludes(Code, Includes, R.Definition, Problem))
    return Contract("the code's " + Problem);
  std::string Prefix;
  for (const std::string &I : Includes)
    if (std::find(K.Includes.begin(), K.Includes.end(), I) == K.Includes.end()) {
      R.NewIncludes.push_back(I);
      Prefix += "#include " + I + "\n";
    }
  R.CandidateSource = Prefix + replaceKernel(K, R.Definition);
  size_t Begin = Prefix.size() + std::min(K.KernelBegin, K.Source.size());
  size_t End = Begin + R.Definition.size();
  std::string Why;
  if (!ready(Why))
    return Contract(Why);

  ErrorCollector Errs;
  std::unique_ptr<ASTUnit> AST =
      parse(R.CandidateSource, virtualPath(K, "candidate"), PO, Errs);
  std::optional<KernelInfo> C;
  if (AST) {
    ASTContext &Ctx = AST->getASTContext();
    C = findKernel(collectKernelModel(Ctx), K.Kernel);
    if (!C && Errs.Errors.empty())
      return Contract("the code does not define the kernel '" + K.Kernel +
                      "': keep its name");
    // What the code does that it may not is said before whether it
    // compiles (a launch from device code does not compile without -rdc).
    ContractVisitor V(Ctx, Begin, End, K.Kernel, R.CandidateSource);
    V.TraverseDecl(Ctx.getTranslationUnitDecl());
    if (!V.Problem.empty())
      return Contract(V.Problem);
  }
  if (!AST || !Errs.Errors.empty() || !C)
    return compileFailure(R, Errs.Errors, Begin, End);
  std::string Diff = signatureDifference(*Original, *C);
  if (!Diff.empty())
    return Contract("the kernel's signature changed: " + Diff +
                    "; keep the parameter list (names may change, const and "
                    "__restrict__ may be added)");
  return R;
}

} // namespace cudal1
