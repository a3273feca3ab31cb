//===- UserCode.h - the one "is this user code?" predicate ------*- C++ -*-===//
//
// Rules, the access analysis, the kernel model and extraction all need to
// know whether a declaration or statement belongs to the user (reported,
// rewritten) or to the toolkit (CUDA headers, the compiler's own headers,
// <built-in>). They all ask here:
//   - the location's expansion must be in a real file (not <built-in>, not
//     the command line, not a scratch buffer);
//   - that file is not a system header (-isystem, the CUDA and Clang
//     resource headers);
//   - and, when the driver gives a predicate on absolute paths (e.g. "not
//     under the CUDA toolkit"), the predicate accepts the file.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_FRONTEND_USERCODE_H
#define CUDAL1_FRONTEND_USERCODE_H

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/DenseMap.h"
#include <functional>
#include <string>

namespace clang {
class SourceManager;
} // namespace clang

namespace cudal1 {

/// A predicate on absolute, normalised file paths: true for files whose
/// code is the user's (the driver's choice; may be empty = every file).
using UserFilePredicate = std::function<bool(const std::string &AbsPath)>;

/// The absolute path, with "." and ".." removed, of the file that holds the
/// expansion location of \p L (symbolic links resolved when the file system
/// knows the real path); "" for locations that are in no file.
std::string expansionFilePath(const clang::SourceManager &SM,
                              clang::SourceLocation L);

/// Is \p L user code? See the file comment.
bool isUserCode(const clang::SourceManager &SM, clang::SourceLocation L,
                const UserFilePredicate &IsUserFile);

/// isUserCode with the answer cached per file: for callers asking about
/// many locations of one translation unit.
class UserCodeFilter {
public:
  UserCodeFilter(const clang::SourceManager &SM, UserFilePredicate IsUserFile)
      : SM(SM), IsUserFile(std::move(IsUserFile)) {}
  bool contains(clang::SourceLocation L) const;

private:
  const clang::SourceManager &SM;
  UserFilePredicate IsUserFile;
  mutable llvm::DenseMap<clang::FileID, bool> Cache;
};

} // namespace cudal1

#endif
