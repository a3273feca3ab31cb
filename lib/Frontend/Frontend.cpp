//===- Frontend.cpp - parse CUDA translation units with Clang ------------===//
#include "cudal1/Frontend/Frontend.h"
#include "cudal1/Frontend/Directory.h"
#include "cudal1/Config.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "clang/Serialization/PCHContainerOperations.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <set>

using namespace clang;
using namespace llvm;

namespace cudal1 {

TUHandler::~TUHandler() = default;

static std::mutex OutputMutex;

static void report(StringRef Kind, raw_ostream::Colors C, StringRef Msg) {
  std::lock_guard<std::mutex> Lock(OutputMutex);
  raw_ostream &OS = errs();
  bool Color = OS.has_colors();
  if (Color)
    OS.changeColor(raw_ostream::WHITE, true);
  OS << "cuda-l1-rewrite: ";
  if (Color)
    OS.changeColor(C, true);
  OS << Kind << ": ";
  if (Color)
    OS.resetColor();
  OS << Msg << "\n";
}
void reportError(StringRef Msg) { report("error", raw_ostream::RED, Msg); }
void reportWarning(StringRef Msg) {
  report("warning", raw_ostream::MAGENTA, Msg);
}
void reportNote(StringRef Msg) { report("note", raw_ostream::BLACK, Msg); }

std::string existingDirectory(StringRef Dir) {
  if (!Dir.empty() && sys::fs::is_directory(Dir))
    return Dir.str();
  SmallString<256> Cwd;
  if (!sys::fs::current_path(Cwd))
    return std::string(Cwd);
  return "/";
}

void quietDiagnosticStats(tooling::ClangTool &Tool) {
  // clang prints its closing count ("2 errors generated when compiling for
  // sm_90.") straight to stderr, past any diagnostic consumer, unless caret
  // diagnostics are off in the invocation. Our consumers keep their own
  // options (carets included); the callers report what a parse found.
  Tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
      "-fno-caret-diagnostics", tooling::ArgumentInsertPosition::BEGIN));
  addCudaHostCompat(Tool);
}

void addCudaHostCompat(tooling::ClangTool &Tool) {
  Tool.mapVirtualFile(cudaHostCompatPath(), cudaHostCompatSource());
  Tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
      {"-include", cudaHostCompatPath().str()},
      tooling::ArgumentInsertPosition::BEGIN));
}

std::string findResourceDir(const char *Argv0, void *MainAddr) {
  std::string Exe = sys::fs::getMainExecutable(Argv0, MainAddr);
  if (!Exe.empty()) {
    SmallString<256> Dir(sys::path::parent_path(sys::path::parent_path(Exe)));
    // Portable release layout: <prefix>/bin/cuda-l1-rewrite and
    // <prefix>/lib/cuda-l1/clang/include/...
    for (const char *Sub : {"lib/cuda-l1/clang", "lib/clang/22"}) {
      SmallString<256> Cand(Dir);
      sys::path::append(Cand, Sub);
      SmallString<256> Probe(Cand);
      sys::path::append(Probe, "include", "__clang_cuda_runtime_wrapper.h");
      if (sys::fs::exists(Probe))
        return std::string(Cand);
    }
  }
  return CUDAL1_CLANG_RESOURCE_DIR;
}

std::string findCudaPath(StringRef FromOption) {
  if (!FromOption.empty())
    return FromOption.str();
  if (auto Env = sys::Process::GetEnv("CUDA_PATH"))
    if (!Env->empty())
      return *Env;
  if (sys::fs::exists("/usr/local/cuda/include/cuda_runtime.h"))
    return "/usr/local/cuda";
  return CUDAL1_DEFAULT_CUDA_PATH;
}

namespace {

/// Wraps the user's database (if any): every file gets the translated command
/// from the database, or the CUDA defaults.
class CudaCompilationDatabase : public tooling::CompilationDatabase {
public:
  CudaCompilationDatabase(std::unique_ptr<tooling::CompilationDatabase> Base,
                          ParseOptions Opts)
      : Base(std::move(Base)), Opts(std::move(Opts)) {}

  std::vector<tooling::CompileCommand>
  getCompileCommands(StringRef FilePath) const override {
    SmallString<256> Abs(FilePath);
    sys::fs::make_absolute(Abs);
    std::vector<tooling::CompileCommand> Result;
    if (Base) {
      auto Cmds = Base->getCompileCommands(Abs);
      if (!Cmds.empty()) {
        // A file compiled several times (several targets): the first command.
        auto &C = Cmds.front();
        C.CommandLine =
            makeParseArgs(C.CommandLine, C.Filename, Opts, C.Directory);
        C.Directory = existingDirectory(C.Directory);
        Result.push_back(std::move(C));
        return Result;
      }
    }
    tooling::CompileCommand C;
    C.Directory = existingDirectory(sys::path::parent_path(Abs));
    C.Filename = std::string(Abs);
    C.CommandLine = makeParseArgs({}, Abs, Opts);
    Result.push_back(std::move(C));
    return Result;
  }

private:
  std::unique_ptr<tooling::CompilationDatabase> Base;
  ParseOptions Opts;
};

class HandlerConsumer : public ASTConsumer {
public:
  HandlerConsumer(TUHandler &H, CompilerInstance &CI, std::string File,
                  std::mutex &M)
      : H(H), CI(CI), File(std::move(File)), M(M) {}
  void HandleTranslationUnit(ASTContext &Ctx) override {
    if (CI.getDiagnostics().hasErrorOccurred())
      return;
    std::lock_guard<std::mutex> Lock(M);
    H.handleTranslationUnit(Ctx, CI, File);
    Handled = true;
  }
  bool Handled = false;

private:
  TUHandler &H;
  CompilerInstance &CI;
  std::string File;
  std::mutex &M;
};

class HandlerAction : public ASTFrontendAction {
public:
  HandlerAction(TUHandler &H, std::mutex &M) : H(H), M(M) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef File) override {
    return std::make_unique<HandlerConsumer>(H, CI, File.str(), M);
  }

private:
  TUHandler &H;
  std::mutex &M;
};

class HandlerActionFactory : public tooling::FrontendActionFactory {
public:
  HandlerActionFactory(TUHandler &H, std::mutex &M) : H(H), M(M) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<HandlerAction>(H, M);
  }

private:
  TUHandler &H;
  std::mutex &M;
};

/// Forwards every diagnostic to the printer and keeps the errors as data.
class CollectingConsumer : public DiagnosticConsumer {
public:
  CollectingConsumer(DiagnosticConsumer &Next, std::string MainFile,
                     std::vector<ParseProblem> &Out)
      : Next(Next), MainFile(std::move(MainFile)), Out(Out) {}
  void BeginSourceFile(const LangOptions &LO, const Preprocessor *PP) override {
    Next.BeginSourceFile(LO, PP);
  }
  void EndSourceFile() override { Next.EndSourceFile(); }
  void finish() override { Next.finish(); }
  void HandleDiagnostic(DiagnosticsEngine::Level L,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(L, Info);
    Next.HandleDiagnostic(L, Info);
    if (L < DiagnosticsEngine::Error)
      return;
    ParseProblem P;
    P.MainFile = MainFile;
    SmallString<256> Msg;
    Info.FormatDiagnostic(Msg);
    P.Message = std::string(Msg);
    if (Info.hasSourceManager() && Info.getLocation().isValid()) {
      const SourceManager &SM = Info.getSourceManager();
      PresumedLoc PL =
          SM.getPresumedLoc(SM.getExpansionLoc(Info.getLocation()), false);
      if (PL.isValid() && SM.getFileEntryRefForID(PL.getFileID())) {
        SmallString<256> Path(PL.getFilename());
        sys::fs::make_absolute(Path);
        sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
        P.File = std::string(Path);
        P.Line = PL.getLine();
        P.Column = PL.getColumn();
      }
    }
    Out.push_back(std::move(P));
  }

private:
  DiagnosticConsumer &Next;
  std::string MainFile;
  std::vector<ParseProblem> &Out;
};

/// Checks that \p File exists, is a regular file and can be read.
bool checkReadable(StringRef File, std::string &Why) {
  sys::fs::file_status St;
  if (std::error_code EC = sys::fs::status(File, St)) {
    Why = EC.message();
    return false;
  }
  if (sys::fs::is_directory(St)) {
    Why = "is a directory";
    return false;
  }
  auto Buf = MemoryBuffer::getFile(File);
  if (!Buf) {
    Why = Buf.getError().message();
    return false;
  }
  return true;
}

} // namespace

Frontend::~Frontend() = default;

std::unique_ptr<Frontend> Frontend::create(const FrontendConfig &Config,
                                           std::string &Error) {
  std::unique_ptr<Frontend> F(new Frontend());
  F->Config = Config;
  // Paths after `--` are relative to the folder the tool runs in, as
  // clang-tidy's are; each file is parsed in its command's folder.
  SmallString<256> Cwd;
  if (!sys::fs::current_path(Cwd))
    F->Config.Parse.ExtraArgs = resolveArgPaths(Config.Parse.ExtraArgs, Cwd);
  std::unique_ptr<tooling::CompilationDatabase> Base;
  if (!Config.BuildPath.empty()) {
    SmallString<256> Json(Config.BuildPath);
    if (!sys::fs::is_directory(Config.BuildPath) &&
        sys::path::filename(Config.BuildPath) == "compile_commands.json")
      Json = Config.BuildPath;
    else
      sys::path::append(Json, "compile_commands.json");
    if (!sys::fs::exists(Json)) {
      Error = (Twine(Json) + ": no compilation database (compile_commands.json)"
                             " found; generate one with "
                             "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON")
                  .str();
    } else {
      std::string Msg;
      Base = tooling::JSONCompilationDatabase::loadFromFile(
          Json, Msg, tooling::JSONCommandLineSyntax::AutoDetect);
      if (!Base)
        Error = (Twine(Json) + ": invalid compilation database: " + Msg).str();
      else
        Base = tooling::inferMissingCompileCommands(std::move(Base));
    }
  }
  F->DB = std::make_unique<CudaCompilationDatabase>(std::move(Base),
                                                    F->Config.Parse);
  return F;
}

std::vector<std::string> Frontend::commandFor(StringRef File) const {
  auto Cmds = DB->getCompileCommands(File);
  return Cmds.empty() ? std::vector<std::string>() : Cmds.front().CommandLine;
}

/// The text of \p Path: an editor's unsaved buffer when \p Overlay has
/// one, else the file on disk ("" when it cannot be read).
static std::string textOf(const std::string &Path,
                          const std::map<std::string, std::string> &Overlay) {
  if (auto It = Overlay.find(Path); It != Overlay.end())
    return It->second;
  auto Buf = MemoryBuffer::getFile(Path);
  return Buf ? (*Buf)->getBuffer().str() : std::string();
}

std::string absolutePath(StringRef Path) {
  SmallString<256> A(Path);
  sys::fs::make_absolute(A);
  sys::path::remove_dots(A, /*remove_dot_dot=*/true);
  return std::string(A);
}

/// Whether \p Text (the text of a file in folder \p Dir) has an `#include
/// "..."` line naming \p File, resolved relative to \p Dir.
static bool includesFile(StringRef Text, StringRef Dir, StringRef File) {
  SmallVector<StringRef, 0> Lines;
  Text.split(Lines, '\n');
  for (StringRef L : Lines) {
    L = L.trim();
    if (!L.consume_front("#"))
      continue;
    L = L.ltrim();
    if (!L.consume_front("include"))
      continue;
    L = L.ltrim();
    if (!L.consume_front("\""))
      continue;
    StringRef Name = L.take_until([](char C) { return C == '"'; });
    SmallString<256> Path(Dir);
    sys::path::append(Path, Name);
    sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
    if (Path == File)
      return true;
  }
  return false;
}

/// The given file (other than \p File) whose text has an `#include "..."`
/// line naming \p File (relative to the includer's folder): a unity build,
/// where `main.cu` includes `kernels.cu` and only `main.cu` is compiled.
/// "" when none.
static std::string
includerOf(const std::string &File, ArrayRef<std::string> Files,
           const std::map<std::string, std::string> &Overlay) {
  for (const std::string &G : Files) {
    std::string Other = absolutePath(G);
    if (Other != File &&
        includesFile(textOf(Other, Overlay), sys::path::parent_path(Other),
                     File))
      return Other;
  }
  return "";
}

static bool hasExtension(StringRef Path, ArrayRef<StringRef> Exts) {
  StringRef E = sys::path::extension(Path);
  return llvm::any_of(Exts,
                      [&](StringRef X) { return E.equals_insensitive(X); });
}
static bool isHeaderPath(StringRef Path) {
  return hasExtension(Path, {".h", ".hh", ".hpp", ".hxx", ".cuh", ".inc",
                             ".inl", ".tcc"});
}
static bool isSourcePath(StringRef Path) {
  return hasExtension(Path, {".cu", ".cpp", ".cc", ".cxx", ".c", ".c++"});
}

/// The files on disk that #include \p File, directly or through others, up
/// to one that nothing includes: a unity build's `main.cu` for a
/// `kernels.cu` it includes (HeCBench's myocyte: `kernel_cam.cu` through
/// `work.cu`). Searched among the sources and headers of each file's folder
/// and the one above it, in `#include "..."` lines resolved against the
/// includer's folder; at most 6 levels. Each result is the chain from the
/// top file (a source file, not a header) down to \p File's direct
/// includer; nearest tops first, then by name.
static std::vector<std::vector<std::string>>
includerChainsOnDisk(const std::string &File,
                     const std::map<std::string, std::string> &Overlay) {
  std::map<std::string, std::vector<std::string>> Listed; // folder -> files
  auto FilesIn =
      [&](const std::string &Dir) -> const std::vector<std::string> & {
    auto [It, New] = Listed.try_emplace(Dir);
    if (!New)
      return It->second;
    std::error_code EC;
    unsigned N = 0;
    for (sys::fs::directory_iterator D(Dir, EC), E; D != E && !EC && N < 1000;
         D.increment(EC), ++N) {
      const std::string &P = D->path();
      if ((isSourcePath(P) || isHeaderPath(P)) &&
          D->type() != sys::fs::file_type::directory_file) {
        uint64_t Size = 0;
        if (!sys::fs::file_size(P, Size) && Size < (8u << 20))
          It->second.push_back(absolutePath(P));
      }
    }
    llvm::sort(It->second);
    return It->second;
  };
  std::map<std::string, std::string> Texts;
  auto Includes = [&](const std::string &By, const std::string &X) {
    auto [It, New] = Texts.try_emplace(By);
    if (New)
      It->second = textOf(By, Overlay);
    return includesFile(It->second, sys::path::parent_path(By), X);
  };
  std::map<std::string, std::string> Down; // includer -> the file it includes
  std::set<std::string> Seen{File};
  std::vector<std::string> Frontier{File}, Tops;
  for (unsigned Depth = 0; Depth < 6 && !Frontier.empty(); ++Depth) {
    std::vector<std::string> Next;
    for (const std::string &X : Frontier) {
      bool Included = false;
      std::string Dir = std::string(sys::path::parent_path(X));
      for (const std::string &Folder :
           {Dir, std::string(sys::path::parent_path(Dir))}) {
        if (Folder.empty())
          continue;
        for (const std::string &C : FilesIn(Folder)) {
          if (C == X || !Includes(C, X))
            continue;
          Included = true;
          if (Seen.insert(C).second) {
            Down[C] = X;
            Next.push_back(C);
          }
        }
      }
      if (!Included && X != File && isSourcePath(X))
        Tops.push_back(X);
    }
    Frontier = std::move(Next);
  }
  std::vector<std::vector<std::string>> Chains;
  for (const std::string &T : Tops) {
    std::vector<std::string> Chain;
    for (std::string X = T; X != File; X = Down[X])
      Chain.push_back(X);
    Chains.push_back(std::move(Chain));
  }
  return Chains;
}

FrontendStatus Frontend::run(ArrayRef<std::string> Files, TUHandler &Handler,
                             unsigned Jobs) {
  FrontendStatus Status;
  std::mutex HandlerMutex, StatusMutex;
  // Files that failed but that a given file, or a file on disk, #includes:
  // decided once every file is parsed (only an includer that parsed
  // analysed them).
  struct Deferred {
    std::string Given, File;
    std::string By; ///< a given includer ("" = none)
    /// Includers on disk, from the top file down (when By is "").
    std::vector<std::vector<std::string>> Chains;
    std::string DiagText;
    std::vector<ParseProblem> Problems;
    unsigned NErr = 0;
  };
  std::vector<Deferred> Later;
  std::set<std::string> ParsedFiles, GivenFiles;
  for (const std::string &G : Files)
    GivenFiles.insert(absolutePath(G));
  auto ParseError = [&](const std::string &GivenFile, unsigned NErr) {
    reportError(GivenFile + ": could not be parsed" +
                (NErr ? " (" + std::to_string(NErr) + " error" +
                            (NErr == 1 ? "" : "s") + ")"
                      : std::string()) +
                "; skipped");
  };

  struct Parse {
    int RC = 0;
    std::string DiagText;
    std::vector<ParseProblem> Problems;
    unsigned NErr = 0;
  };
  // Parses \p File (absolute) and hands its AST to the handler.
  auto ParseOne = [&](const std::string &File) {
    Parse P;
    // Buffer clang's diagnostics per file so parallel parses do not
    // interleave their output.
    raw_string_ostream DiagOS(P.DiagText);
    DiagnosticOptions DiagOpts;
    DiagOpts.ShowColors = errs().has_colors();
    TextDiagnosticPrinter Printer(DiagOS, DiagOpts);

    // A private physical file system per parse: ClangTool changes the
    // working directory to each command's "directory", and the shared real
    // file system would change the whole process's (racing with -j).
    tooling::ClangTool Tool(*DB, {File},
                            std::make_shared<PCHContainerOperations>(),
                            vfs::createPhysicalFileSystem());
    quietDiagnosticStats(Tool);
    for (const auto &KV : Config.Overlay)
      Tool.mapVirtualFile(KV.first, KV.second);
    CollectingConsumer Collector(Printer, File, P.Problems);
    Tool.setDiagnosticConsumer(&Collector);
    Tool.setPrintErrorMessage(false);
    HandlerActionFactory Factory(Handler, HandlerMutex);
    P.RC = Tool.run(&Factory);
    DiagOS.flush();
    P.NErr = Printer.getNumErrors();
    return P;
  };

  auto ProcessOne = [&](const std::string &GivenFile) {
    std::string File = absolutePath(GivenFile);
    std::string Why;
    if (!Config.Overlay.count(File) && !checkReadable(File, Why)) {
      reportError(GivenFile + ": " + Why);
      std::lock_guard<std::mutex> L(StatusMutex);
      ++Status.Failed;
      Status.Problems.push_back({File, "", 0, 0, Why});
      return;
    }
    Parse P = ParseOne(File);
    // Not self-contained, but included by another file given, or by a file
    // on disk that parses: its code is analysed (and fixed) there;
    // decided at the end.
    if (P.RC != 0) {
      Deferred D{GivenFile, File, includerOf(File, Files, Config.Overlay),
                 {}, P.DiagText, P.Problems, P.NErr};
      if (D.By.empty()) {
        D.Chains = includerChainsOnDisk(File, Config.Overlay);
        // A given file at the top (through files not given) covers it.
        for (const std::vector<std::string> &C : D.Chains)
          if (GivenFiles.count(C.front())) {
            D.By = C.front();
            break;
          }
      }
      if (!D.By.empty() || !D.Chains.empty()) {
        std::lock_guard<std::mutex> L(StatusMutex);
        Later.push_back(std::move(D));
        return;
      }
    }
    {
      std::lock_guard<std::mutex> L(OutputMutex);
      errs() << P.DiagText;
    }
    std::lock_guard<std::mutex> L(StatusMutex);
    if (P.RC != 0) {
      ++Status.Failed;
      Status.Problems.insert(Status.Problems.end(), P.Problems.begin(),
                             P.Problems.end());
      ParseError(GivenFile, P.NErr);
    } else {
      ++Status.Parsed;
      ParsedFiles.insert(File);
    }
  };

  if (Jobs <= 1 || Files.size() <= 1) {
    for (const auto &F : Files)
      ProcessOne(F);
  } else {
    DefaultThreadPool Pool(hardware_concurrency(Jobs));
    for (const auto &F : Files)
      Pool.async([&, F] { ProcessOne(F); });
    Pool.wait();
  }
  // The file names of a chain below its top, for a note.
  auto Through = [](ArrayRef<std::string> Chain) {
    std::string T;
    for (size_t I = 1; I < Chain.size(); ++I)
      T += (T.empty() ? "" : ", ") + sys::path::filename(Chain[I]).str();
    return T.empty() ? T : " (through " + T + ")";
  };
  // Includers on disk parsed for given files: whether each parsed. One
  // parse serves every given file it includes.
  std::map<std::string, bool> OnDisk;
  for (const Deferred &D : Later) {
    if (!D.By.empty() && ParsedFiles.count(D.By)) {
      if (!Config.Quiet)
        reportNote(D.Given +
                   ": does not parse on its own; it is #included by " + D.By +
                   ", where its code is analysed");
      ++Status.Included;
      continue;
    }
    const std::vector<std::string> *Used = nullptr;
    if (D.By.empty())
      for (const std::vector<std::string> &C : D.Chains) {
        auto It = OnDisk.find(C.front());
        if (It == OnDisk.end()) {
          Parse P = ParseOne(C.front());
          It = OnDisk.emplace(C.front(), P.RC == 0).first;
        }
        if (It->second) {
          Used = &C;
          break;
        }
      }
    if (Used) {
      if (!Config.Quiet)
        reportNote(D.Given + ": does not parse on its own; parsed as part of " +
                   Used->front() + ", which #includes it" + Through(*Used) +
                   "; only its own code is reported and changed");
      ++Status.Included;
      Status.ParsedFor[Used->front()].insert(D.File);
      continue;
    }
    {
      std::lock_guard<std::mutex> L(OutputMutex);
      errs() << D.DiagText;
    }
    ++Status.Failed;
    Status.Problems.insert(Status.Problems.end(), D.Problems.begin(),
                           D.Problems.end());
    ParseError(D.Given, D.NErr);
    if (D.By.empty() && !D.Chains.empty()) {
      std::string Tops;
      for (const std::vector<std::string> &C : D.Chains)
        Tops += (Tops.empty() ? "" : ", ") + C.front();
      reportNote(D.Given + ": the files on disk that #include it (" + Tops +
                 ") do not parse either");
    }
  }
  return Status;
}

} // namespace cudal1
