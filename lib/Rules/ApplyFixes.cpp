//===- ApplyFixes.cpp - --fix, -o, --diff, --export-fixes -----------------===//
#include "cudal1/Rules/ApplyFixes.h"
#include "cudal1/Compile/Nvrtc.h"
#include "cudal1/Extract/Extract.h"
#include "cudal1/Frontend/Frontend.h"
#include "cudal1/Frontend/Directory.h"
#include "cudal1/Rules/RuleSupport.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Core/Diagnostic.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/DiagnosticsYaml.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"
#include "cudal1/Support/SafeWrite.h"

#include <cctype>
#include <chrono>
#include <map>
#include <set>

using namespace clang;
using namespace llvm;

namespace cudal1 {

// The time the process started: a file modified later than this (and with no
// recorded parse) changed while we were working on it.
static const auto ProcessStart = std::chrono::system_clock::now();

static int exactRank(Exactness E) {
  switch (E) {
  case Exactness::Bitwise:
    return 0;
  case Exactness::Ulp:
    return 1;
  case Exactness::Reassociating:
    return 2;
  case Exactness::FastMath:
    return 3;
  case Exactness::None:
    return 4;
  }
  return 4;
}

static std::string where(const Finding &F) {
  return F.Loc.File + ":" + std::to_string(F.Loc.Line) + ":" +
         std::to_string(F.Loc.Column);
}

static std::string label(const Finding &F) {
  return where(F) + ": [" + F.RuleId + "]";
}

// --- diff -------------------------------------------------------------------

static std::vector<StringRef> splitLines(StringRef S) {
  std::vector<StringRef> L;
  while (!S.empty()) {
    size_t N = S.find('\n');
    if (N == StringRef::npos) {
      L.push_back(S);
      break;
    }
    L.push_back(S.take_front(N + 1));
    S = S.drop_front(N + 1);
  }
  return L;
}

std::string unifiedDiff(const std::string &Path, const std::string &Old,
                        const std::string &New) {
  if (Old == New)
    return "";
  std::vector<StringRef> A = splitLines(Old), B = splitLines(New);
  // Trim the common prefix/suffix, then an LCS over what is left (the edits
  // of one run are local, so this stays small).
  size_t Pre = 0;
  while (Pre < A.size() && Pre < B.size() && A[Pre] == B[Pre])
    ++Pre;
  size_t Suf = 0;
  while (Suf < A.size() - Pre && Suf < B.size() - Pre &&
         A[A.size() - 1 - Suf] == B[B.size() - 1 - Suf])
    ++Suf;
  size_t N = A.size() - Pre - Suf, M = B.size() - Pre - Suf;
  // ops: ' ' keep, '-' delete, '+' insert over the middle part.
  std::vector<std::pair<char, StringRef>> Ops;
  for (size_t I = 0; I < Pre; ++I)
    Ops.push_back({' ', A[I]});
  if (N * M <= 4000000) {
    std::vector<std::vector<uint32_t>> L(N + 1, std::vector<uint32_t>(M + 1));
    for (size_t I = N; I-- > 0;)
      for (size_t J = M; J-- > 0;)
        L[I][J] = A[Pre + I] == B[Pre + J]
                      ? L[I + 1][J + 1] + 1
                      : std::max(L[I + 1][J], L[I][J + 1]);
    size_t I = 0, J = 0;
    while (I < N || J < M) {
      if (I < N && J < M && A[Pre + I] == B[Pre + J]) {
        Ops.push_back({' ', A[Pre + I]});
        ++I, ++J;
      } else if (J < M && (I == N || L[I][J + 1] > L[I + 1][J])) {
        Ops.push_back({'+', B[Pre + J++]});
      } else {
        Ops.push_back({'-', A[Pre + I++]});
      }
    }
  } else {
    for (size_t I = 0; I < N; ++I)
      Ops.push_back({'-', A[Pre + I]});
    for (size_t J = 0; J < M; ++J)
      Ops.push_back({'+', B[Pre + J]});
  }
  for (size_t I = A.size() - Suf; I < A.size(); ++I)
    Ops.push_back({' ', A[I]});

  std::string Out;
  raw_string_ostream OS(Out);
  // Relative to the current folder (git style, for patch -p1) when the file
  // is under it; absolute otherwise.
  std::string Shown = Path;
  {
    SmallString<256> Cwd;
    sys::fs::current_path(Cwd);
    StringRef P = Path;
    if (!Cwd.empty() && P.starts_with(Cwd) && P.size() > Cwd.size() &&
        sys::path::is_separator(P[Cwd.size()]))
      Shown = P.drop_front(Cwd.size() + 1).str();
  }
  if (sys::path::is_absolute(Shown))
    OS << "--- " << Shown << "\n+++ " << Shown << "\n";
  else
    OS << "--- a/" << Shown << "\n+++ b/" << Shown << "\n";
  const size_t Ctx = 3;
  size_t K = 0;
  while (K < Ops.size()) {
    // Next change.
    size_t C = K;
    while (C < Ops.size() && Ops[C].first == ' ')
      ++C;
    if (C == Ops.size())
      break;
    size_t Start = C >= Ctx ? C - Ctx : 0;
    if (Start < K)
      Start = K;
    // Extend while changes are within 2*Ctx of each other.
    size_t End = C;
    size_t Last = C;
    while (End < Ops.size()) {
      if (Ops[End].first != ' ')
        Last = End;
      else if (End - Last > 2 * Ctx)
        break;
      ++End;
    }
    End = std::min(Ops.size(), Last + 1 + Ctx);
    // Line numbers.
    size_t OldLine = 1, NewLine = 1;
    for (size_t I = 0; I < Start; ++I) {
      if (Ops[I].first != '+')
        ++OldLine;
      if (Ops[I].first != '-')
        ++NewLine;
    }
    size_t OldN = 0, NewN = 0;
    for (size_t I = Start; I < End; ++I) {
      if (Ops[I].first != '+')
        ++OldN;
      if (Ops[I].first != '-')
        ++NewN;
    }
    OS << "@@ -" << (OldN ? OldLine : OldLine - 1) << "," << OldN << " +"
       << (NewN ? NewLine : NewLine - 1) << "," << NewN << " @@\n";
    for (size_t I = Start; I < End; ++I) {
      OS << Ops[I].first << Ops[I].second;
      if (!Ops[I].second.ends_with("\n"))
        OS << "\n\\ No newline at end of file\n";
    }
    K = End;
  }
  OS.flush();
  return Out;
}

std::string outputPathFor(const std::string &Dir, const std::string &File) {
  SmallString<256> Abs(File), Cwd;
  sys::fs::make_absolute(Abs);
  sys::path::remove_dots(Abs, true);
  sys::fs::current_path(Cwd);
  SmallString<256> Out(Dir);
  StringRef Rel = Abs;
  if (!Cwd.empty() && Rel.starts_with(Cwd) &&
      (Rel.size() == Cwd.size() || sys::path::is_separator(Rel[Cwd.size()]))) {
    Rel = Rel.drop_front(Cwd.size());
  }
  Rel = sys::path::relative_path(Rel); // drop the root
  while (!Rel.empty() && sys::path::is_separator(Rel.front()))
    Rel = Rel.drop_front();
  sys::path::append(Out, Rel);
  return std::string(Out);
}

// --- composition ----------------------------------------------------------------

void composeEdit(std::vector<ComposedEdit> &Done, const std::string &Original,
                 const TextEdit &E, const std::string &Kernel) {
  // The current region [CS, CE) of each done edit, and the shift before it.
  struct Span {
    size_t CS, CE;
    long Before;
  };
  std::vector<Span> Spans;
  long Delta = 0;
  for (const ComposedEdit &D : Done) {
    size_t CS = D.Edit.Offset + Delta;
    Spans.push_back({CS, CS + D.Edit.Replacement.size(), Delta});
    Delta += long(D.Edit.Replacement.size()) - long(D.Edit.Length);
  }
  size_t S = E.Offset, En = E.Offset + E.Length;
  // The done edits this one touches (overlapping or adjacent).
  size_t First = Done.size(), Last = 0;
  for (size_t I = 0; I < Done.size(); ++I)
    if (Spans[I].CS <= En && S <= Spans[I].CE) {
      First = std::min(First, I);
      Last = I;
    }
  if (First == Done.size()) {
    long Before = 0;
    size_t At = 0;
    while (At < Done.size() && Spans[At].CE <= S) {
      Before = Spans[At].Before + long(Done[At].Edit.Replacement.size()) -
               long(Done[At].Edit.Length);
      ++At;
    }
    ComposedEdit C{E, {Kernel}};
    C.Edit.Offset = unsigned(long(S) - Before);
    Done.insert(Done.begin() + At, std::move(C));
    return;
  }
  std::string Cur = applyComposed(Done, Original);
  size_t U = std::min(S, Spans[First].CS), V = std::max(En, Spans[Last].CE);
  size_t OS = U == Spans[First].CS ? Done[First].Edit.Offset
                                   : size_t(long(S) - Spans[First].Before);
  long AfterLast = Spans[Last].Before +
                   long(Done[Last].Edit.Replacement.size()) -
                   long(Done[Last].Edit.Length);
  size_t OE = V == Spans[Last].CE
                  ? Done[Last].Edit.Offset + Done[Last].Edit.Length
                  : size_t(long(En) - AfterLast);
  ComposedEdit M;
  M.Edit.File = E.File;
  M.Edit.Offset = unsigned(OS);
  M.Edit.Length = unsigned(OE - OS);
  M.Edit.Replacement = Cur.substr(U, S - U) + E.Replacement +
                       Cur.substr(En, V - En);
  M.Kernels.insert(Kernel);
  for (size_t I = First; I <= Last; ++I)
    M.Kernels.insert(Done[I].Kernels.begin(), Done[I].Kernels.end());
  Done.erase(Done.begin() + First, Done.begin() + Last + 1);
  Done.insert(Done.begin() + First, std::move(M));
}

std::string applyComposed(const std::vector<ComposedEdit> &Done,
                          const std::string &Original) {
  std::string Out;
  size_t At = 0;
  for (const ComposedEdit &D : Done) {
    Out.append(Original, At, D.Edit.Offset - At);
    Out += D.Edit.Replacement;
    At = D.Edit.Offset + D.Edit.Length;
  }
  Out.append(Original, std::min(At, Original.size()), std::string::npos);
  return Out;
}

// --- compile check ------------------------------------------------------------

namespace {
class OneCommandDatabase : public tooling::CompilationDatabase {
public:
  OneCommandDatabase(std::string File, std::vector<std::string> Args)
      : File(std::move(File)), Args(std::move(Args)) {}
  std::vector<tooling::CompileCommand>
  getCompileCommands(StringRef) const override {
    tooling::CompileCommand C;
    C.Directory = existingDirectory(sys::path::parent_path(File));
    C.Filename = File;
    C.CommandLine = Args;
    return {C};
  }

private:
  std::string File;
  std::vector<std::string> Args;
};
} // namespace

/// Runs \p Action on \p MainFile with \p Args (with \p Overlay's contents in
/// place of the files on disk). Returns "" when it compiles, else the first
/// error.
static std::string
checkParse(const std::string &MainFile, const std::vector<std::string> &Args,
           const std::map<std::string, std::string> &Overlay,
           tooling::FrontendActionFactory &Action) {
  OneCommandDatabase DB(MainFile, Args);
  tooling::ClangTool Tool(DB, {MainFile});
  quietDiagnosticStats(Tool);
  for (const auto &KV : Overlay)
    Tool.mapVirtualFile(KV.first, KV.second);
  std::string Text;
  raw_string_ostream OS(Text);
  DiagnosticOptions DO;
  TextDiagnosticPrinter Printer(OS, DO);
  Tool.setDiagnosticConsumer(&Printer);
  Tool.setPrintErrorMessage(false);
  int RC = Tool.run(&Action);
  OS.flush();
  if (RC == 0)
    return "";
  // The first "error:" line.
  for (StringRef L : splitLines(Text))
    if (L.contains("error:"))
      return L.trim().str();
  return Text.empty() ? "clang could not parse the file" : StringRef(Text).trim().str();
}

/// Parses \p MainFile (with \p Overlay's contents in place of the files on
/// disk) on one side: "device" or "host". Returns "" when it compiles, else
/// the first error.
static std::string syntaxCheck(const std::string &MainFile,
                               std::vector<std::string> Args, bool Host,
                               const std::map<std::string, std::string> &Overlay) {
  for (auto &A : Args)
    if (Host && A == "--cuda-device-only")
      A = "--cuda-host-only";
  bool HasSide = llvm::is_contained(Args, std::string("--cuda-device-only")) ||
                 llvm::is_contained(Args, std::string("--cuda-host-only"));
  if (Host && !HasSide)
    return ""; // not CUDA: one side only, checked as "device"
  return checkParse(MainFile, Args, Overlay,
                    *tooling::newFrontendActionFactory<SyntaxOnlyAction>());
}

namespace {
/// Parses a file (device side) and extracts every kernel with its context.
class ExtractConsumer : public ASTConsumer {
public:
  ExtractConsumer(CompilerInstance &CI, std::vector<ExtractedKernel> &Out)
      : CI(CI), Out(Out) {}
  void HandleTranslationUnit(ASTContext &Ctx) override {
    if (CI.getDiagnostics().hasErrorOccurred())
      return;
    Out = extractKernels(Ctx, CI.getPreprocessor(), "all");
  }

private:
  CompilerInstance &CI;
  std::vector<ExtractedKernel> &Out;
};
class ExtractAction : public ASTFrontendAction {
public:
  explicit ExtractAction(std::vector<ExtractedKernel> &Out) : Out(Out) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    return std::make_unique<ExtractConsumer>(CI, Out);
  }

private:
  std::vector<ExtractedKernel> &Out;
};
class ExtractFactory : public tooling::FrontendActionFactory {
public:
  explicit ExtractFactory(std::vector<ExtractedKernel> &Out) : Out(Out) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<ExtractAction>(Out);
  }

private:
  std::vector<ExtractedKernel> &Out;
};
} // namespace

static std::vector<ExtractedKernel>
extractAll(const std::string &MainFile, const std::vector<std::string> &Args,
           const std::map<std::string, std::string> &Overlay) {
  std::vector<ExtractedKernel> Out;
  OneCommandDatabase DB(MainFile, Args);
  tooling::ClangTool Tool(DB, {MainFile});
  quietDiagnosticStats(Tool);
  for (const auto &KV : Overlay)
    Tool.mapVirtualFile(KV.first, KV.second);
  IgnoringDiagConsumer Ignore;
  Tool.setDiagnosticConsumer(&Ignore);
  Tool.setPrintErrorMessage(false);
  ExtractFactory F(Out);
  Tool.run(&F);
  return Out;
}

/// The device-side check and the extraction of every kernel in one parse
/// (they parse the same rewritten text with the same command): "" when the
/// device side compiles, with the kernels in \p Out; else the first error.
static std::string
deviceCheckAndExtract(const std::string &MainFile,
                      const std::vector<std::string> &Args,
                      const std::map<std::string, std::string> &Overlay,
                      std::vector<ExtractedKernel> &Out) {
  ExtractFactory F(Out);
  std::string E = checkParse(MainFile, Args, Overlay, F);
  if (!E.empty())
    Out.clear();
  return E;
}

/// Lines (1-based, per file) of the rewritten files that the edits touch.
using TouchedLines = std::map<std::string, std::vector<std::pair<unsigned, unsigned>>>;

/// Compiles with NVRTC every kernel of \p MainFile whose definition holds a
/// touched line. "" when all compile (or NVRTC is not available).
static std::string nvrtcCheck(const std::string &MainFile,
                              const std::vector<std::string> &Args,
                              const std::map<std::string, std::string> &New,
                              const TouchedLines &Touched,
                              const ApplyOptions &Opts,
                              const std::vector<ExtractedKernel> *Extracted) {
  if (!nvrtcAvailable(Opts.CudaPath))
    return "";
  NvrtcOptions NO;
  NO.CudaPath = Opts.CudaPath;
  NO.GpuArch = Opts.GpuArch.empty() ? "sm_90" : Opts.GpuArch;
  std::vector<ExtractedKernel> Orig;
  bool OrigDone = false;
  std::vector<ExtractedKernel> Own;
  if (!Extracted)
    Own = extractAll(MainFile, Args, New);
  for (const ExtractedKernel &K : Extracted ? *Extracted : Own) {
    auto It = Touched.find(K.KernelRange.Begin.File);
    if (It == Touched.end())
      continue;
    bool Hit = false;
    for (auto &L : It->second)
      if (L.first <= K.KernelRange.End.Line &&
          L.second >= K.KernelRange.Begin.Line)
        Hit = true;
    if (!Hit)
      continue;
    NvrtcResult R = compileWithNvrtc(K.Source, kernelFileStem(K.Kernel) + ".cu",
                                     K.NameExprs, NO);
    if (R.Ok)
      continue;
    // Blame the rewrite only when the original kernel compiles.
    if (!OrigDone) {
      Orig = extractAll(MainFile, Args, {});
      OrigDone = true;
    }
    bool OrigOk = false;
    for (const ExtractedKernel &O : Orig)
      if (O.Kernel == K.Kernel)
        OrigOk = compileWithNvrtc(O.Source, kernelFileStem(O.Kernel) + ".cu",
                                  O.NameExprs, NO)
                     .Ok;
    if (!OrigOk)
      continue;
    std::string Log = R.Error.empty() ? R.Log : R.Error;
    for (StringRef L : splitLines(Log))
      if (L.contains("error"))
        return "kernel '" + K.Kernel + "' no longer compiles with NVRTC: " +
               L.trim().str();
    return "kernel '" + K.Kernel + "' no longer compiles with NVRTC";
  }
  return "";
}

// --- application --------------------------------------------------------------

namespace {

struct Candidate {
  const Finding *F;
  size_t Index; ///< in Findings (stable order)
  bool Dropped = false;
  std::string Why;
  FixOutcome::Status State = FixOutcome::Applied;
};

bool overlaps(const TextEdit &A, const TextEdit &B) {
  if (A.File != B.File || A == B)
    return false;
  unsigned AE = A.Offset + A.Length, BE = B.Offset + B.Length;
  if (A.Length == 0 && B.Length == 0)
    return A.Offset == B.Offset && A.Replacement != B.Replacement;
  if (A.Length == 0)
    return A.Offset > B.Offset && A.Offset < BE;
  if (B.Length == 0)
    return B.Offset > A.Offset && B.Offset < AE;
  return A.Offset < BE && B.Offset < AE;
}

bool sameEdits(const FixIt &A, const FixIt &B) {
  if (A.Edits.size() != B.Edits.size())
    return false;
  auto EA = A.Edits, EB = B.Edits;
  std::sort(EA.begin(), EA.end());
  std::sort(EB.begin(), EB.end());
  return EA == EB;
}

} // namespace

static bool readFile(const std::string &Path, std::string &Out,
                     std::string &Why) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf) {
    Why = Buf.getError().message();
    return false;
  }
  Out = (*Buf)->getBuffer().str();
  return true;
}

/// Writes \p Contents to \p Path (lib/Support/SafeWrite); a note when a
/// symbolic link's target was written.
static bool writeAtomically(const std::string &Path, StringRef Contents,
                            std::string &Why) {
  SafeWriteResult R = writeFileSafely(Path, Contents);
  if (!R.Ok) {
    Why = R.Error;
    return false;
  }
  if (!R.Note.empty())
    reportNote(R.Note);
  return true;
}

static bool isHeaderName(StringRef P) {
  return !P.ends_with(".cu") && !P.ends_with(".cpp") && !P.ends_with(".cc") &&
         !P.ends_with(".cxx") && !P.ends_with(".c");
}

bool hostProvenFix(const FixIt &X) {
  return X.HostOnly && X.Proven && X.Exact == Exactness::Bitwise &&
         !X.NeedsMeasurement;
}

int applyFixes(const std::vector<Finding> &Findings, const ApplyOptions &Opts,
               std::vector<FixOutcome> *Outcomes) {
  int Exit = 0;
  std::vector<Candidate> Cands;
  std::vector<FixOutcome> Local;
  std::vector<FixOutcome> &Out = Outcomes ? *Outcomes : Local;
  auto Note = [&](const Finding &F, FixOutcome::Status S,
                  const std::string &Why) {
    Out.push_back({&F, S, Why});
    if (!Opts.Quiet || S != FixOutcome::NotEligible)
      reportNote(label(F) + " fix not applied: " + Why);
  };
  // The options' own reasons (exactness, proof, measurement) are the same
  // for every fix of a rule: one note per rule and reason, at its first
  // fix, with the places of the others (a file's sixteen powf squares).
  using NoteKey = std::pair<std::string, std::string>; // rule, reason
  llvm::MapVector<NoteKey, std::vector<const Finding *>,
                  std::map<NoteKey, unsigned>>
      PolicyNotes;
  auto PolicyNote = [&](const Finding &F, const std::string &Why) {
    Out.push_back({&F, FixOutcome::NotEligible, Why});
    PolicyNotes[{F.RuleId, Why}].push_back(&F);
  };

  // 1. Eligibility.
  for (size_t I = 0; I < Findings.size(); ++I) {
    const Finding &F = Findings[I];
    if (!F.Fix || F.Fix->Edits.empty())
      continue;
    const FixIt &X = *F.Fix;
    if (X.Exact == Exactness::None)
      continue;
    if (Opts.Decided) {
      Cands.push_back({&F, I});
      continue;
    }
    if (Opts.VerifiedLater) {
      // A later round under --verify=run (docs/fixes.md, "Composition"):
      // the composed kernel is measured against the original and against
      // its round-1 fixes at the end, which is the measurement a fix that
      // is not faster everywhere needs.
      if (X.Proven &&
          (X.Exact != Exactness::FastMath || Opts.AllowFastMath))
        Cands.push_back({&F, I});
      continue;
    }
    if (!X.Proven) {
      PolicyNote(F,
           "offered only: its legality is not proven statically, so it is "
           "never applied automatically");
      continue;
    }
    if (X.NeedsMeasurement && !Opts.Verify) {
      PolicyNote(F,
           "offered for GPU verification only: it is not faster everywhere; "
           "--verify=run applies it where it measures faster");
      continue;
    }
    if (X.Exact == Exactness::FastMath && !Opts.AllowFastMath) {
      PolicyNote(F,
           "it changes results like fast math; needs --allow-fast-math");
      continue;
    }
    if (X.Exact != Exactness::Bitwise ||
        (Opts.Verify && (Opts.VerifyBitwise || X.NeedsMeasurement))) {
      std::string Why;
      if (Opts.Verify) {
        if (!Opts.Verify(F, Why)) {
          Note(F, FixOutcome::NotEligible, "--verify=run: " + Why);
          continue;
        }
      } else if (!Opts.AllowUnverified) {
        PolicyNote(F,
             std::string("its exactness is '") + toString(X.Exact) +
                 "', not bitwise; needs --verify=run or --allow-unverified");
        continue;
      }
    }
    Cands.push_back({&F, I});
  }
  if (!Opts.Quiet)
    for (const auto &[Key, Fs] : PolicyNotes) {
      std::string Others;
      for (size_t J = 1; J < Fs.size() && J <= 8; ++J) {
        const SourceLoc &L = Fs[J]->Loc, &P = Fs[J - 1]->Loc;
        Others += (J > 1 ? ", " : "") +
                  (L.File == P.File ? std::string()
                                    : sys::path::filename(L.File).str() + ":") +
                  std::to_string(L.Line) + ":" + std::to_string(L.Column);
      }
      if (Fs.size() > 9)
        Others += " and " + std::to_string(Fs.size() - 9) + " more";
      reportNote(label(*Fs.front()) + " fix not applied: " + Key.second +
                 (Fs.size() > 1 ? " (nor the rule's " +
                                      std::to_string(Fs.size() - 1) +
                                      " other fix" +
                                      (Fs.size() > 2 ? "es" : "") + " at " +
                                      Others + ")"
                                : std::string()));
    }

  // 2. Priority: fixes that move code other fixes would edit first; then
  // host-code rewrites proven exact (a host loop rewritten whole:
  // launch-copy-back-pingpong removing a copy kernel wins over
  // launch-coarsen-rows reshaping a launch in that loop, which is tried
  // again in the next round); then bitwise first, then ulp,
  // reassociating, fast-math; then the order of the findings (file, line).
  std::stable_sort(Cands.begin(), Cands.end(),
                   [](const Candidate &A, const Candidate &B) {
                     if (A.F->Fix->FirstInRound != B.F->Fix->FirstInRound)
                       return A.F->Fix->FirstInRound;
                     bool HA = hostProvenFix(*A.F->Fix),
                          HB = hostProvenFix(*B.F->Fix);
                     if (HA != HB)
                       return HA;
                     int RA = exactRank(A.F->Fix->Exact),
                         RB = exactRank(B.F->Fix->Exact);
                     if (RA != RB)
                       return RA < RB;
                     return A.Index < B.Index;
                   });

  // 3. Conflicts.
  std::vector<Candidate *> Kept;
  for (Candidate &C : Cands) {
    const FixIt &X = *C.F->Fix;
    bool Dup = false;
    for (Candidate *K : Kept) {
      if (sameEdits(*K->F->Fix, X)) {
        Dup = true;
        break;
      }
      for (const TextEdit &A : K->F->Fix->Edits) {
        for (const TextEdit &B : X.Edits)
          if (overlaps(A, B)) {
            C.Dropped = true;
            C.State = FixOutcome::Conflict;
            C.Why = "its edit overlaps the fix of " + label(*K->F) +
                    ", which has priority; the next round applies it if it still matches (--compose-rounds; with 1 round, run again)";
            break;
          }
        if (C.Dropped)
          break;
      }
      if (C.Dropped)
        break;
    }
    if (Dup) {
      C.Dropped = true;
      C.State = FixOutcome::Applied; // same edits as a kept fix
      continue;
    }
    if (C.Dropped) {
      Note(*C.F, C.State, C.Why);
      continue;
    }
    Kept.push_back(&C);
  }
  // Then a fix that copies code another kept fix of this round edits
  // waits for the next round (FixIt::Copies), where it copies the edited
  // code: the copy, which is what runs, would otherwise drop the other fix.
  auto CopiesEditsOf = [](const FixIt &X, const FixIt &Y) {
    for (const TextEdit &E : Y.Edits) {
      if (llvm::is_contained(X.Edits, E))
        continue; // an edit both make
      for (const TextEdit &R : X.Copies)
        if (overlaps(E, R))
          return true;
    }
    return false;
  };
  for (auto It = Kept.begin(); It != Kept.end();) {
    Candidate &C = **It;
    const FixIt &X = *C.F->Fix;
    const Candidate *By = nullptr;
    if (!X.Copies.empty())
      for (const Candidate *D : Kept)
        if (D != &C && CopiesEditsOf(X, *D->F->Fix)) {
          By = D;
          break;
        }
    if (!By) {
      ++It;
      continue;
    }
    C.Dropped = true;
    C.State = FixOutcome::Conflict;
    C.Why = "it copies code that the fix of " + label(*By->F) +
            " edits; the next round copies the edited code if it still "
            "matches (--compose-rounds; with 1 round, run again)";
    Note(*C.F, C.State, C.Why);
    It = Kept.erase(It);
  }

  // 4. Files: read, check they did not change since parsing.
  std::map<std::string, std::string> Original;
  std::set<std::string> Refused;
  for (Candidate *C : Kept)
    for (const TextEdit &E : C->F->Fix->Edits) {
      if (Original.count(E.File) || Refused.count(E.File))
        continue;
      if (auto B = Opts.Base.find(E.File); B != Opts.Base.end()) {
        Original[E.File] = B->second; // a composition round's input
        continue;
      }
      std::string Text, Why;
      if (!readFile(E.File, Text, Why)) {
        reportError(E.File + ": cannot read: " + Why);
        Refused.insert(E.File);
        Exit = 2;
        continue;
      }
      std::string Recorded = parsedFileHash(E.File);
      bool Changed = false;
      if (!Recorded.empty()) {
        Changed = Recorded != contentHash(Text);
      } else {
        sys::fs::file_status St;
        if (!sys::fs::status(E.File, St))
          Changed = St.getLastModificationTime() > ProcessStart;
      }
      if (Changed) {
        reportError(E.File + ": changed since it was parsed; not rewritten "
                             "(run the tool again)");
        Refused.insert(E.File);
        Exit = 2;
        continue;
      }
      Original[E.File] = Text;
    }
  std::vector<Candidate *> Live;
  for (Candidate *C : Kept) {
    bool Bad = false;
    for (const TextEdit &E : C->F->Fix->Edits)
      if (Refused.count(E.File) || E.Offset + E.Length > Original[E.File].size())
        Bad = true;
    if (Bad) {
      C->State = FixOutcome::FileRefused;
      Note(*C->F, C->State, "its file could not be rewritten");
      continue;
    }
    Live.push_back(C);
  }

  // 5. Apply + compile check.
  TouchedLines LastTouched;
  auto Build = [&](const std::vector<Candidate *> &Set,
                   std::map<std::string, std::string> &New) -> bool {
    std::map<std::string, tooling::Replacements> Reps;
    std::set<TextEdit> Done;
    for (Candidate *C : Set)
      for (const TextEdit &E : C->F->Fix->Edits) {
        if (!Done.insert(E).second)
          continue; // the same edit from two fixes
        tooling::Replacement R(E.File, E.Offset, E.Length, E.Replacement);
        if (auto Err = Reps[E.File].add(R)) {
          consumeError(std::move(Err));
          return false;
        }
      }
    New.clear();
    LastTouched.clear();
    for (auto &KV : Reps) {
      auto Res = tooling::applyAllReplacements(Original[KV.first], KV.second);
      if (!Res) {
        consumeError(Res.takeError());
        return false;
      }
      New[KV.first] = *Res;
      StringRef Text = *Res;
      for (const tooling::Replacement &R : KV.second) {
        unsigned B = KV.second.getShiftedCodePosition(R.getOffset());
        unsigned E = B + R.getReplacementText().size();
        unsigned LB = 1 + Text.take_front(std::min<size_t>(B, Text.size())).count('\n');
        unsigned LE = 1 + Text.take_front(std::min<size_t>(E, Text.size())).count('\n');
        LastTouched[KV.first].push_back({LB, LE});
      }
    }
    return true;
  };
  auto MainFilesFor = [&](const std::map<std::string, std::string> &New) {
    std::set<std::string> Mains;
    for (const auto &KV : New) {
      bool IsMain = false;
      for (const std::string &M : Opts.MainFiles) {
        SmallString<256> A(M);
        sys::fs::make_absolute(A);
        sys::path::remove_dots(A, true);
        if (std::string(A) == KV.first) {
          Mains.insert(M);
          IsMain = true;
        }
      }
      // A rewritten file that is not a main file was reached through the
      // main files (a header, or a .cu another .cu includes): checked
      // through them. Alone it may not compile at all (it uses what its
      // includer declared first), which would leave its fixes unchecked.
      if (!IsMain || isHeaderName(KV.first)) {
        for (const std::string &M : Opts.MainFiles)
          Mains.insert(M);
        if (Opts.MainFiles.empty() && !isHeaderName(KV.first))
          Mains.insert(KV.first);
      }
    }
    return Mains;
  };
  std::map<std::string, std::string> OrigHostFails; // main -> error
  auto Compiles = [&](const std::map<std::string, std::string> &New,
                      std::string &Why) -> bool {
    if (!Opts.CheckCompiles || !Opts.CommandFor)
      return true;
    for (const std::string &M : MainFilesFor(New)) {
      std::vector<std::string> Args = Opts.CommandFor(M);
      if (Args.empty())
        continue;
      SmallString<256> Abs(M);
      sys::fs::make_absolute(Abs);
      // The device side's parse also extracts the kernels NVRTC compiles.
      std::vector<ExtractedKernel> Extracted;
      bool HaveExtracted = false;
      for (bool Host : {false, true}) {
        std::string E;
        if (!Host && Opts.CheckNvrtc && nvrtcAvailable(Opts.CudaPath)) {
          E = deviceCheckAndExtract(std::string(Abs), Args, New, Extracted);
          HaveExtracted = E.empty();
        } else {
          E = syntaxCheck(std::string(Abs), Args, Host, New);
        }
        if (E.empty())
          continue;
        // The original must compile on that side, else it proves nothing.
        std::string Key = std::string(Abs) + (Host ? "#host" : "#device");
        if (!OrigHostFails.count(Key)) {
          OrigHostFails[Key] = syntaxCheck(std::string(Abs), Args, Host, {});
          if (!OrigHostFails[Key].empty())
            reportNote(std::string("the ") + (Host ? "host" : "device") +
                       " side of " + M +
                       " does not compile before the fixes either (" +
                       OrigHostFails[Key] +
                       "); that side is not used to check them");
        }
        if (!OrigHostFails[Key].empty())
          continue;
        Why = std::string("the rewritten file no longer compiles (") +
              (Host ? "host" : "device") + " side): " + E;
        return false;
      }
      if (Opts.CheckNvrtc) {
        std::string E = nvrtcCheck(std::string(Abs), Args, New, LastTouched,
                                   Opts, HaveExtracted ? &Extracted : nullptr);
        if (!E.empty()) {
          Why = E;
          return false;
        }
      }
    }
    return true;
  };

  std::map<std::string, std::string> NewContents;
  std::vector<Candidate *> Final = Live;
  if (!Final.empty()) {
    std::string Why;
    bool Ok = Build(Final, NewContents) && Compiles(NewContents, Why);
    if (!Ok) {
      // Find the fixes that break compilation: each one alone.
      std::vector<Candidate *> Good;
      for (Candidate *C : Final) {
        std::map<std::string, std::string> One;
        std::string W;
        if (Build({C}, One) && Compiles(One, W)) {
          Good.push_back(C);
        } else {
          C->State = FixOutcome::BrokeCompile;
          Note(*C->F, C->State, W.empty() ? "its edits cannot be applied" : W);
        }
      }
      Final = Good;
      std::string W;
      if (!Final.empty() && !(Build(Final, NewContents) && Compiles(NewContents, W))) {
        for (Candidate *C : Final) {
          C->State = FixOutcome::BrokeCompile;
          Note(*C->F, C->State,
               "together with the other fixes the file no longer compiles: " +
                   W);
        }
        Final.clear();
        NewContents.clear();
      }
      if (Final.empty())
        NewContents.clear();
    }
  }

  // 6. Outputs (none for a composition round: its texts go to Result).
  std::set<std::string> WriteFailed;
  if (Opts.Result) {
    *Opts.Result = NewContents;
    for (Candidate *C : Final)
      Out.push_back({C->F, FixOutcome::Applied, ""});
    return Exit;
  }
  for (const auto &KV : NewContents) {
    if (Opts.Diff) {
      raw_ostream &OS = Opts.DiffOut ? *Opts.DiffOut : outs();
      OS << unifiedDiff(KV.first, Original[KV.first], KV.second);
    }
    if (Opts.InPlace) {
      // Re-check just before writing: nothing may have changed meanwhile.
      std::string Now, Why;
      if (!readFile(KV.first, Now, Why) || Now != Original[KV.first]) {
        reportError(KV.first + ": changed while it was being rewritten; not "
                               "written");
        WriteFailed.insert(KV.first);
        Exit = 2;
        continue;
      }
      if (!writeAtomically(KV.first, KV.second, Why)) {
        reportError(KV.first + ": " + Why);
        WriteFailed.insert(KV.first);
        Exit = 2;
      }
    }
    if (!Opts.OutputDir.empty()) {
      std::string Why;
      std::string P = outputPathFor(Opts.OutputDir, KV.first);
      if (!writeAtomically(P, KV.second, Why)) {
        reportError(P + ": " + Why);
        WriteFailed.insert(KV.first); // its fixes are not counted as written
        Exit = 2;
      }
    }
  }
  if (Opts.Diff)
    (Opts.DiffOut ? *Opts.DiffOut : outs()).flush();

  if (!Opts.ExportFixes.empty()) {
    tooling::TranslationUnitDiagnostics TUD;
    TUD.MainSourceFile = Opts.MainFiles.empty() ? "" : Opts.MainFiles.front();
    if (!TUD.MainSourceFile.empty()) {
      SmallString<256> A(TUD.MainSourceFile);
      sys::fs::make_absolute(A);
      TUD.MainSourceFile = std::string(A);
    }
    for (Candidate *C : Final) {
      const Finding &F = *C->F;
      tooling::DiagnosticMessage Msg(F.Message);
      Msg.FilePath = F.Loc.File;
      Msg.FileOffset = F.Offset;
      for (const TextEdit &E : F.Fix->Edits) {
        auto Err = Msg.Fix[E.File].add(
            tooling::Replacement(E.File, E.Offset, E.Length, E.Replacement));
        if (Err)
          consumeError(std::move(Err));
      }
      SmallString<256> Dir(Opts.BuildDirectory);
      if (Dir.empty())
        sys::fs::current_path(Dir);
      TUD.Diagnostics.emplace_back(F.RuleId, Msg,
                                   SmallVector<tooling::DiagnosticMessage, 1>(),
                                   tooling::Diagnostic::Warning,
                                   std::string(Dir));
    }
    std::string Y;
    raw_string_ostream YS(Y);
    yaml::Output YO(YS);
    YO << TUD;
    YS.flush();
    std::string Why;
    if (!writeAtomically(Opts.ExportFixes, Y, Why)) {
      reportError(Opts.ExportFixes + ": " + Why);
      Exit = 2;
    }
  }

  unsigned Applied = 0;
  std::set<std::string> Files;
  for (Candidate *C : Final) {
    bool Failed = false;
    for (const TextEdit &E : C->F->Fix->Edits)
      if (WriteFailed.count(E.File))
        Failed = true;
    if (Failed)
      continue;
    Out.push_back({C->F, FixOutcome::Applied, ""});
    size_t Index = C->F - Findings.data();
    Applied += Index < Opts.FixCounts.size() ? Opts.FixCounts[Index] : 1;
    for (const TextEdit &E : C->F->Fix->Edits)
      Files.insert(E.File);
  }
  if (!Opts.Quiet) {
    const char *Verb = Opts.InPlace ? "applied"
                       : !Opts.OutputDir.empty() ? "wrote"
                                                 : "would apply";
    reportNote(std::string(Verb) + " " + std::to_string(Applied) + " fix" +
               (Applied == 1 ? "" : "es") + " in " +
               std::to_string(Files.size()) + " file" +
               (Files.size() == 1 ? "" : "s"));
  }
  return Exit;
}

namespace {
/// A launch `Name<<<grid, block ...>>>` in a text: the offsets and lengths
/// of its grid and block arguments.
struct LaunchArgs {
  size_t GridAt, GridLen, BlockAt, BlockLen;
};
/// The launches of kernel \p Name (its last name, without template
/// arguments) in \p Text. When \p Strict: false when a `<<<` cannot be told
/// to be a launch of \p Name or not (no name before it, as in `(k)<<<`), or
/// a launch's grid and block cannot be read (no `>>>`, angle brackets in
/// them); otherwise such text is skipped.
bool launchesIn(const std::string &Text, const std::string &Name,
                std::vector<LaunchArgs> &Out, bool Strict = true) {
  for (size_t At = Text.find("<<<"); At != std::string::npos;
       At = Text.find("<<<", At + 3)) {
    size_t E = At;
    auto SkipSpace = [&] {
      while (E > 0 && std::isspace((unsigned char)Text[E - 1]))
        --E;
    };
    SkipSpace();
    if (E > 0 && Text[E - 1] == '>') { // template arguments: k<float><<<
      int Depth = 0;
      while (E > 0) {
        char C = Text[--E];
        Depth += C == '>' ? 1 : C == '<' ? -1 : 0;
        if (Depth == 0)
          break;
      }
      if (Depth != 0) {
        if (Strict)
          return false;
        continue;
      }
      SkipSpace();
    }
    size_t B = E;
    while (B > 0 && (std::isalnum((unsigned char)Text[B - 1]) ||
                     Text[B - 1] == '_'))
      --B;
    if (B == E) { // not a name: cannot tell whose launch it is
      if (Strict)
        return false;
      continue;
    }
    if (Text.compare(B, E - B, Name) != 0 || E - B != Name.size())
      continue;
    // Top-level commas up to ">>>".
    std::vector<size_t> Cuts{At + 3};
    int Depth = 0;
    size_t I = At + 3;
    for (; I < Text.size(); ++I) {
      char C = Text[I];
      if (Depth == 0 && Text.compare(I, 3, ">>>") == 0)
        break;
      if (C == '(' || C == '[' || C == '{')
        ++Depth;
      else if (C == ')' || C == ']' || C == '}')
        --Depth;
      else if (C == ',' && Depth == 0)
        Cuts.push_back(I + 1);
    }
    if (I >= Text.size() || Cuts.size() < 2) {
      if (Strict)
        return false;
      continue;
    }
    Cuts.push_back(I + 1); // as if a comma stood before ">>>"
    // Angle brackets in the grid or block (`Cfg<1, 2>::b`; a bare `n > 1`
    // too, but not `<=`, `>=`, shifts): the commas may not be the
    // arguments' own.
    std::string Args = Text.substr(Cuts[0], Cuts[2] - 1 - Cuts[0]);
    for (const char *Op : {"<=", ">=", "<<", ">>"})
      for (size_t P = Args.find(Op); P != std::string::npos; P = Args.find(Op))
        Args.replace(P, 2, "  ");
    if (Args.find_first_of("<>") != std::string::npos) {
      if (Strict)
        return false;
      continue;
    }
    auto Trim = [&](size_t From, size_t To, size_t &Off, size_t &Len) {
      while (From < To && std::isspace((unsigned char)Text[From]))
        ++From;
      while (To > From && std::isspace((unsigned char)Text[To - 1]))
        --To;
      Off = From;
      Len = To - From;
    };
    LaunchArgs L;
    Trim(Cuts[0], Cuts[1] - 1, L.GridAt, L.GridLen);
    Trim(Cuts[1], Cuts[2] - 1, L.BlockAt, L.BlockLen);
    Out.push_back(L);
  }
  return true;
}

std::string spaceless(const std::string &S) {
  std::string O;
  for (char C : S)
    if (!std::isspace((unsigned char)C))
      O += C;
  return O;
}
} // namespace

bool hostLaunchEdits(const TextEdit &E, const std::string &Original,
                     const std::string &Name, std::vector<TextEdit> &Out) {
  if (E.Offset + E.Length > Original.size())
    return false;
  std::string Region = Original.substr(E.Offset, E.Length);
  std::vector<LaunchArgs> OL, RL;
  if (!launchesIn(Region, Name, OL) || !launchesIn(E.Replacement, Name, RL))
    return false;
  if (RL.empty())
    return OL.empty();
  if (OL.empty())
    return false;
  auto Texts = [](const std::string &T, const LaunchArgs &L) {
    return std::make_pair(spaceless(T.substr(L.GridAt, L.GridLen)),
                          spaceless(T.substr(L.BlockAt, L.BlockLen)));
  };
  auto New = Texts(E.Replacement, RL[0]), Old = Texts(Region, OL[0]);
  for (const LaunchArgs &L : RL)
    if (Texts(E.Replacement, L) != New)
      return false;
  for (const LaunchArgs &L : OL)
    if (Texts(Region, L) != Old)
      return false;
  for (const LaunchArgs &L : OL) {
    if (New.first != Old.first)
      Out.push_back({E.File, unsigned(E.Offset + L.GridAt), unsigned(L.GridLen),
                     E.Replacement.substr(RL[0].GridAt, RL[0].GridLen)});
    if (New.second != Old.second)
      Out.push_back({E.File, unsigned(E.Offset + L.BlockAt),
                     unsigned(L.BlockLen),
                     E.Replacement.substr(RL[0].BlockAt, RL[0].BlockLen)});
  }
  return true;
}

bool isLaunchShapeEdit(const std::string &Text, const TextEdit &E,
                       const std::string &Name) {
  // Text it cannot read is skipped: it can only leave an edit untagged.
  std::vector<LaunchArgs> L;
  launchesIn(Text, Name, L, /*Strict=*/false);
  for (const LaunchArgs &A : L)
    if ((A.GridAt == E.Offset && A.GridLen == E.Length) ||
        (A.BlockAt == E.Offset && A.BlockLen == E.Length))
      return true;
  return false;
}

} // namespace cudal1
