//===- SafeWrite.h - replacing a file's contents safely ---------*- C++ -*-===//
//
// The one way cuda-l1 writes a file it hands back to the user (rewritten
// sources, --output-dir copies, extracted kernels, exported fixes, reports):
// the new contents go to a temporary file in the same folder, are flushed to
// disk, and replace the old file by a rename, so an interrupted or failed run
// leaves the old file or the new one, never a truncated one. The temporary
// file is removed on SIGINT/SIGTERM and on every error.
//
// Existing files keep their permissions. A file the user cannot write is
// refused (the rename would otherwise replace it silently); a symbolic link
// is followed and its target written (the link stays a link); a file with
// several hard links is refused (replacing it would separate the names).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_SUPPORT_SAFEWRITE_H
#define CUDAL1_SUPPORT_SAFEWRITE_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace cudal1 {

struct SafeWriteResult {
  bool Ok = false;
  /// Why nothing was written (the old file, if any, is unchanged).
  std::string Error;
  /// The file actually written: \p Path, or the target of the symbolic link
  /// \p Path names.
  std::string WrittenPath;
  /// A note for the user when the written file is not \p Path itself.
  std::string Note;
};

/// Replaces the contents of \p Path by \p Contents (creating the file and its
/// folders when missing), as described above.
SafeWriteResult writeFileSafely(llvm::StringRef Path, llvm::StringRef Contents);

} // namespace cudal1

#endif
