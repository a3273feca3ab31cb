//===- CompileFlags.h - nvcc -> clang command-line translation -*- C++ -*-===//
//
// Compilation databases written by CMake for CUDA projects hold nvcc command
// lines. Clang cannot use most nvcc-only flags, so every command is rewritten
// into an equivalent clang CUDA command before parsing. This file has no Clang
// dependency so it can be unit-tested cheaply.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_FRONTEND_COMPILEFLAGS_H
#define CUDAL1_FRONTEND_COMPILEFLAGS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace cudal1 {

/// The result of translating one nvcc (or clang) command line.
struct TranslatedCommand {
  /// Clang arguments, argv[0] first. Input files keep their position.
  std::vector<std::string> Args;
  /// GPU architectures named by -arch/-gencode/--cuda-gpu-arch etc., in the
  /// order seen, normalised to sm_XX.
  std::vector<std::string> GpuArchs;
  /// Flags that were dropped because clang has no use for them (for --verbose
  /// style reporting and for tests).
  std::vector<std::string> Dropped;
  /// True when the command line looked like an nvcc invocation.
  bool WasNvcc = false;
};

/// Translates an nvcc command line (argv[0] = the compiler) into clang's
/// syntax. Clang command lines pass through mostly unchanged. \p Directory is
/// used to resolve `--options-file` response files written by CMake.
TranslatedCommand translateCompileCommand(llvm::ArrayRef<std::string> Argv,
                                          llvm::StringRef Directory = "");

/// Options that decide the final clang command for every parsed file.
struct ParseOptions {
  std::string CudaPath;        ///< CUDA toolkit root.
  std::string GpuArch;         ///< e.g. sm_90.
  bool GpuArchExplicit = false; ///< --cuda-gpu-arch given on our command line.
  std::string ResourceDir;     ///< clang resource directory.
  std::vector<std::string> ExtraArgs; ///< arguments after `--`.
  bool ShowWarnings = false;   ///< keep clang's warnings (default: errors only).
};

/// Builds the final clang argument vector for \p File from a (translated)
/// database command, or from nothing when \p DbArgs is empty (defaults).
std::vector<std::string> makeParseArgs(llvm::ArrayRef<std::string> DbArgs,
                                       llvm::StringRef File,
                                       const ParseOptions &Opts,
                                       llvm::StringRef Directory = "");

/// Makes the relative paths in compiler arguments given on the tool's own
/// command line (after `--`, --extra-arg) absolute against \p WorkingDir, the
/// folder the tool was started in: each file is parsed in its compile
/// command's folder (the database's "directory", else the file's folder), so
/// `cuda-l1-rewrite dir/k.cu -- -I inc` would otherwise look for dir/inc.
/// clang-tidy resolves them from the working folder too. Directories (-I,
/// -isystem, -iquote, -idirafter, -F, --sysroot, --cuda-path, ...) are
/// resolved always; files (-include, -imacros, -include-pch) only when they
/// exist there, since clang also searches the include path for them.
/// Sysroot-relative values ("=dir", "$SYSROOT/dir") are left alone.
std::vector<std::string> resolveArgPaths(llvm::ArrayRef<std::string> Args,
                                         llvm::StringRef WorkingDir);

/// Normalises an nvcc architecture name (sm_80, compute_90a, 90) to sm_XX;
/// returns "" for names without a concrete architecture (native, all, ...).
std::string normalizeGpuArch(llvm::StringRef Arch);

/// True for file names the tool parses as CUDA (.cu, .cuh).
bool isCudaSourceName(llvm::StringRef File);

/// A header every clang parse of CUDA includes first (in memory, at this
/// path): nvcc's host min/max overloads and its CUDA 12.8 scoped-atomic
/// built-ins, which clang lacks (docs/usage.md). Frontend's
/// addCudaHostCompat maps it into a ClangTool; other parses map it
/// themselves and pass `-include` the path.
llvm::StringRef cudaHostCompatPath();
llvm::StringRef cudaHostCompatSource();

} // namespace cudal1

#endif
