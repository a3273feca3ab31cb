//===- Directory.h - a folder a parse can run in --------------------------===//
#ifndef CUDAL1_FRONTEND_DIRECTORY_H
#define CUDAL1_FRONTEND_DIRECTORY_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace cudal1 {

/// \p Dir when it is a folder on disk, else the current folder. ClangTool
/// changes into each command's folder and aborts the process when it cannot
/// (an editor's unsaved buffer in a folder not created yet, a compilation
/// database naming a folder since removed): such a parse runs from here.
std::string existingDirectory(llvm::StringRef Dir);

/// \p Path made absolute (against the current folder), without `.` and
/// `..` components.
std::string absolutePath(llvm::StringRef Path);

} // namespace cudal1

#endif
