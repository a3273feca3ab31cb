//===- KernelModel.h - build the kernel model from a Clang AST --*- C++ -*-===//
#ifndef CUDAL1_MODEL_KERNELMODEL_H
#define CUDAL1_MODEL_KERNELMODEL_H

#include "cudal1/Model/KernelInfo.h"
#include <functional>
#include <string>

namespace clang {
class ASTContext;
class FunctionDecl;
class SourceManager;
class SourceLocation;
} // namespace clang

namespace cudal1 {

/// Decides whether declarations in a file belong to the user (reported) or
/// to a library (system headers are never reported).
using FileFilter = std::function<bool(const std::string &AbsPath)>;

/// Collects every __global__ function defined in user code and every launch
/// site of the translation unit. \p Calls: the calls of the other files of
/// the program (ProjectModel::CallsOut of their models), which give the
/// parameters of host functions no call of this unit reaches; with
/// \p RecordCalls, the model's CallsOut holds the calls this unit makes of
/// functions it does not define (LaunchValues.h, "across files").
/// \p ProgramArgs: the arguments the program runs with (--program-args:
/// argc and argv[k] are known); null when not given.
ProjectModel collectKernelModel(
    clang::ASTContext &Ctx, const FileFilter &Filter = nullptr,
    const ExternalCalls *Calls = nullptr, bool RecordCalls = false,
    const ProgramCommandLine *ProgramArgs = nullptr);

/// The name the compiler gives \p FD in the object code: its Itanium
/// mangling (`_Z5scalePfi`), or the plain name of an `extern "C"` kernel.
std::string mangledName(clang::ASTContext &Ctx, const clang::FunctionDecl *FD);

/// Absolute, normalised location (spelling location of macro expansions is
/// resolved to the expansion site).
SourceLoc makeSourceLoc(const clang::SourceManager &SM,
                        clang::SourceLocation L);

} // namespace cudal1

#endif
