//===- ManifestCheck.h - validating a capture directory -------*- C++ -*-===//
//
// The LLVM-free check of a capture directory, for the launcher (after the
// application ran, and `cuda-l1-capture --check <dir>`) and the standalone
// replay checker. lib/Capture (CaptureManifest.h) is the verifier's reader
// of the same format, with llvm::json; both follow docs/capture.md.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_TOOLS_CAPTURE_MANIFESTCHECK_H
#define CUDAL1_TOOLS_CAPTURE_MANIFESTCHECK_H

#include "MiniJson.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cudal1 {
namespace capture {

struct ManifestSummary {
  unsigned Captured = 0, Skipped = 0;
  uint64_t CapturedBytes = 0;
  bool Complete = false;
};

/// Reads <Dir>/manifest.json into \p Root. False (with "<file>: <problem>"
/// in \p Problems) when it is missing or not JSON.
bool readManifest(const std::string &Dir, capjson::Value &Root,
                  std::vector<std::string> &Problems);

/// Validates \p Root (read from \p Dir): format and version, every launch's
/// fields, and for captured launches every data file (inside \p Dir, with
/// the size the manifest gives). Each problem names the file, the launch
/// and the field. True when there is none.
bool checkManifest(const std::string &Dir, const capjson::Value &Root,
                   std::vector<std::string> &Problems, ManifestSummary &Sum);

/// Size of a regular file, or -1.
int64_t fileSize(const std::string &Path);

/// Reads a whole file; false when it cannot.
bool readWholeFile(const std::string &Path, std::string &Out);

/// Unsigned integer member \p Key of \p V (false if absent or not one).
bool getU64(const capjson::Value &V, const char *Key, uint64_t &Out);
/// String member \p Key of \p V (false if absent or not a string).
bool getStr(const capjson::Value &V, const char *Key, std::string &Out);
/// [x, y, z] of positive integers.
bool getDim3(const capjson::Value &V, const char *Key, uint64_t Out[3]);

} // namespace capture
} // namespace cudal1

#endif
