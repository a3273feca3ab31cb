//===- UserCode.cpp - the one "is this user code?" predicate --------------===//
#include "cudal1/Frontend/UserCode.h"

#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

std::string expansionFilePath(const SourceManager &SM, SourceLocation L) {
  if (L.isInvalid())
    return "";
  SourceLocation E = SM.getExpansionLoc(L);
  OptionalFileEntryRef FE = SM.getFileEntryRefForID(SM.getFileID(E));
  if (!FE)
    return "";
  SmallString<256> Path(FE->getName());
  StringRef Real = FE->getFileEntry().tryGetRealPathName();
  if (!Real.empty())
    Path = Real;
  sys::fs::make_absolute(Path);
  sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
  return std::string(Path);
}

/// The answer for the file \p FID (no predicate cache).
static bool isUserFile(const SourceManager &SM, FileID FID,
                       SourceLocation InFile,
                       const UserFilePredicate &IsUserFile) {
  if (FID.isInvalid() || !SM.getFileEntryRefForID(FID))
    return false; // <built-in>, <command line>, scratch space
  if (SM.isInSystemHeader(InFile))
    return false;
  return !IsUserFile || IsUserFile(expansionFilePath(SM, InFile));
}

bool isUserCode(const SourceManager &SM, SourceLocation L,
                const UserFilePredicate &IsUserFile) {
  if (L.isInvalid())
    return false;
  SourceLocation E = SM.getExpansionLoc(L);
  return isUserFile(SM, SM.getFileID(E), E, IsUserFile);
}

bool UserCodeFilter::contains(SourceLocation L) const {
  if (L.isInvalid())
    return false;
  SourceLocation E = SM.getExpansionLoc(L);
  FileID FID = SM.getFileID(E);
  auto It = Cache.find(FID);
  if (It != Cache.end())
    return It->second;
  bool R = isUserFile(SM, FID, E, IsUserFile);
  Cache[FID] = R;
  return R;
}

} // namespace cudal1
