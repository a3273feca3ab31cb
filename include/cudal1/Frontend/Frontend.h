//===- Frontend.h - parse CUDA translation units with Clang -----*- C++ -*-===//
//
// Turns the user's files (+ optional compilation database) into Clang ASTs and
// hands each translation unit to a TUHandler. One parse per file: the
// device-side compilation (see docs/usage.md, "How CUDA is parsed").
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_FRONTEND_FRONTEND_H
#define CUDAL1_FRONTEND_FRONTEND_H

#include "cudal1/Frontend/CompileFlags.h"
#include "llvm/ADT/StringRef.h"
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class CompilerInstance;
namespace tooling {
class ClangTool;
class CompilationDatabase;
}
} // namespace clang

namespace cudal1 {

/// Receives each successfully parsed translation unit.
class TUHandler {
public:
  virtual ~TUHandler();
  /// Called once per main file, after parsing without errors.
  virtual void handleTranslationUnit(clang::ASTContext &Ctx,
                                     clang::CompilerInstance &CI,
                                     llvm::StringRef MainFile) = 0;
};

/// What the frontend needs to know to build compile commands.
struct FrontendConfig {
  std::string BuildPath;    ///< -p: folder with compile_commands.json ("" = none)
  ParseOptions Parse;
  bool Quiet = false;
  /// Contents parsed instead of the files on disk, by absolute path: an
  /// editor's unsaved buffers (main files and headers alike). A file named
  /// here need not exist on disk.
  std::map<std::string, std::string> Overlay;
};

/// An error clang reported while parsing a file that then failed: what an
/// editor can still show for a file that does not parse.
struct ParseProblem {
  std::string MainFile; ///< the file being parsed (absolute)
  std::string File;     ///< where the error is ("" = no location)
  unsigned Line = 0, Column = 0; ///< 1-based; Column counts bytes
  std::string Message;
};

/// Outcome of processing a list of files.
struct FrontendStatus {
  unsigned Parsed = 0;
  unsigned Failed = 0; ///< unreadable, not parsed, or parse errors
  /// Files that do not parse on their own but that another given file
  /// #includes (a unity build): analysed there, not counted as failed.
  unsigned Included = 0;
  /// A file given alone that does not parse on its own, with no given file
  /// including it, is parsed as part of a file on disk that #includes it
  /// (directly or through others; searched in its folder and the one
  /// above): per such includer (absolute path), the given files (absolute)
  /// it was parsed for. Only their code is to be reported and changed.
  std::map<std::string, std::set<std::string>> ParsedFor;
  /// Clang's errors, in the order reported, for the files that failed to
  /// parse (and one without a location for a file that cannot be read).
  std::vector<ParseProblem> Problems;
};

class Frontend {
public:
  /// Creates the frontend; on a bad database returns null and sets \p Error
  /// to a message naming the path and the problem.
  static std::unique_ptr<Frontend> create(const FrontendConfig &Config,
                                          std::string &Error);
  ~Frontend();

  /// The final clang command line used for \p File (for --dump-commands and
  /// tests).
  std::vector<std::string> commandFor(llvm::StringRef File) const;

  /// Parses every file and calls \p Handler for each. Errors are printed to
  /// stderr as "cuda-l1-rewrite: error: <file>: <problem>" plus clang's own
  /// diagnostics; the remaining files are still processed.
  FrontendStatus run(llvm::ArrayRef<std::string> Files, TUHandler &Handler,
                     unsigned Jobs = 1);

private:
  Frontend() = default;
  FrontendConfig Config;
  std::unique_ptr<clang::tooling::CompilationDatabase> DB;
};

/// Keeps clang's closing "N errors generated [when compiling for X]." line,
/// which bypasses diagnostic consumers, off stderr for every parse \p Tool
/// runs (the caller says what a failed parse means).
void quietDiagnosticStats(clang::tooling::ClangTool &Tool);
/// Makes nvcc's host-side min/max helpers (int min(int, int), umin, llmin,
/// ullmin and the max ones) visible to host code in clang's device-side
/// parse, through a virtual header included first (quietDiagnosticStats
/// calls it).
void addCudaHostCompat(clang::tooling::ClangTool &Tool);

/// Locates clang's resource directory: next to the executable first
/// (<bin>/../lib/clang/<ver> or <bin>/../lib/cuda-l1/clang), then the one of
/// the Clang this tool was built with.
std::string findResourceDir(const char *Argv0, void *MainAddr);

/// CUDA toolkit root: --cuda-path, then $CUDA_PATH, then the configured one.
std::string findCudaPath(llvm::StringRef FromOption);

/// Prints "cuda-l1-rewrite: error: <msg>" in clang's colours when stderr is a
/// terminal.
void reportError(llvm::StringRef Msg);
void reportWarning(llvm::StringRef Msg);
void reportNote(llvm::StringRef Msg);

} // namespace cudal1

#endif
