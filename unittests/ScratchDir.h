//===- ScratchDir.h - scratch folders removed when the tests end -*- C++ -*-===//
//
// A unique folder under the system's temporary directory for a test's
// files; every folder made here is removed (with its contents) when the
// test program exits, so test runs leave nothing behind in /tmp.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_UNITTESTS_SCRATCHDIR_H
#define CUDAL1_UNITTESTS_SCRATCHDIR_H

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"

#include <string>
#include <vector>

namespace cudal1_test {

/// Makes a unique folder named after \p Prefix; "" when that fails.
inline std::string scratchDir(llvm::StringRef Prefix) {
  struct Made {
    std::vector<std::string> Dirs;
    ~Made() {
      for (const std::string &D : Dirs)
        llvm::sys::fs::remove_directories(D);
    }
  };
  static Made All;
  llvm::SmallString<128> Dir;
  if (llvm::sys::fs::createUniqueDirectory(Prefix, Dir))
    return "";
  All.Dirs.push_back(std::string(Dir));
  return std::string(Dir);
}

} // namespace cudal1_test

#endif
