//===- SafeWrite.cpp - replacing a file's contents safely -----------------===//
#include "cudal1/Support/SafeWrite.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace cudal1 {

namespace {

/// The mode a new file gets: read and write for all, less the umask (as
/// any editor or compiler would create it).
sys::fs::perms newFileMode() {
  static const unsigned Mask = [] {
    mode_t M = ::umask(0);
    ::umask(M);
    return static_cast<unsigned>(M);
  }();
  return static_cast<sys::fs::perms>(0666 & ~Mask);
}

/// Follows a symbolic link: the file to write, or an error.
bool resolveTarget(StringRef Path, SafeWriteResult &R) {
  R.WrittenPath = Path.str();
  if (!sys::fs::is_symlink_file(Path))
    return true;
  SmallString<256> Real;
  if (std::error_code EC = sys::fs::real_path(Path, Real)) {
    R.Error = "is a symbolic link whose target cannot be resolved (" +
              EC.message() + "); not written";
    return false;
  }
  R.WrittenPath = std::string(Real);
  R.Note = Path.str() + " is a symbolic link: wrote its target " +
           R.WrittenPath;
  return true;
}

/// Refuses files the rename would wrongly replace.
bool checkExisting(const std::string &Target, SafeWriteResult &R,
                   sys::fs::perms &Mode) {
  sys::fs::file_status St;
  if (sys::fs::status(Target, St)) {
    Mode = newFileMode();
    return true; // a new file
  }
  if (sys::fs::is_directory(St)) {
    R.Error = "is a directory; not written";
    return false;
  }
  // The write bits, not only access(2): root may write anything, but a file
  // marked read-only is still one the user did not mean to have rewritten.
  using namespace sys::fs;
  if (::access(Target.c_str(), W_OK) != 0 ||
      (St.permissions() & (owner_write | group_write | others_write)) == 0) {
    R.Error = "is read-only; not written (make it writable to let cuda-l1 "
              "rewrite it)";
    return false;
  }
  if (St.getLinkCount() > 1) {
    R.Error = "has " + std::to_string(St.getLinkCount()) +
              " hard links; not written (replacing it would separate them)";
    return false;
  }
  Mode = St.permissions();
  return true;
}

} // namespace

SafeWriteResult writeFileSafely(StringRef Path, StringRef Contents) {
  SafeWriteResult R;
  sys::fs::perms Mode;
  if (!resolveTarget(Path, R) || !checkExisting(R.WrittenPath, R, Mode))
    return R;
  SmallString<256> Dir(sys::path::parent_path(R.WrittenPath));
  if (Dir.empty())
    Dir = ".";
  if (std::error_code EC = sys::fs::create_directories(Dir)) {
    R.Error = "cannot create folder " + std::string(Dir) + ": " + EC.message();
    return R;
  }
  SmallString<256> Model(Dir);
  sys::path::append(Model, "." + sys::path::filename(R.WrittenPath).str() +
                               ".cuda-l1-%%%%%%.tmp");
  // TempFile removes itself on SIGINT/SIGTERM until kept or discarded.
  Expected<sys::fs::TempFile> Tmp = sys::fs::TempFile::create(Model);
  if (!Tmp) {
    R.Error = "cannot create a temporary file in " + std::string(Dir) + ": " +
              toString(Tmp.takeError());
    return R;
  }
  // LLVM's handlers (installed by TempFile) treat SIGXFSZ as a crash; a file
  // size limit is a full disk like any other: the write fails with EFBIG and
  // is reported, the old file kept.
  ::signal(SIGXFSZ, SIG_IGN);
  auto Fail = [&](std::string Why) {
    R.Error = std::move(Why);
    consumeError(Tmp->discard());
    return R;
  };
  {
    raw_fd_ostream OS(Tmp->FD, /*shouldClose=*/false);
    OS << Contents;
    OS.flush();
    if (OS.has_error()) {
      std::string Why = "cannot write the new contents (" +
                        OS.error().message() + "); the file is unchanged";
      OS.clear_error();
      return Fail(Why);
    }
  }
  if (::fsync(Tmp->FD) != 0)
    return Fail("cannot flush the new contents to disk (" +
                std::string(std::strerror(errno)) + "); the file is unchanged");
  if (std::error_code EC = sys::fs::setPermissions(Tmp->FD, Mode))
    return Fail("cannot set the permissions of the new contents: " +
                EC.message());
  if (Error E = Tmp->keep(R.WrittenPath)) {
    R.Error = "cannot replace the file: " + toString(std::move(E));
    return R;
  }
  R.Ok = true;
  return R;
}

} // namespace cudal1
