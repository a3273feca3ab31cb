//===- VariantStore.h - .cuda-l1/: variants, responses, transcripts -*- C++ -*-===//
//
// The project's memory of model proposals (docs/llm.md, "The variant
// store"), a folder (default .cuda-l1/ beside the configuration):
//
//   variants/<kernel>/<original>/<variant>.json  every variant of a kernel
//   variants/<kernel>/<original>/<variant>.cu    ... and its source
//       <original>: the first 16 hex digits of the original definition's
//       hash, <variant>: of the variant's normalised source
//   cache/<key>.json       one response per request (key: hash of the
//                          request body: model, messages, sampling settings,
//                          seed; not the URL, which may change, e.g. a local
//                          server's port), so a rerun is reproducible and
//                          costs nothing
//   transcripts/<date>-<pid>.jsonl   every exchange of one run
//
// Nothing written here holds an API key: requests are stored as their body
// (never their headers) and every text passes through the client's redact().
// Files are written whole (a temporary file renamed); transcripts are
// appended line by line.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LLM_VARIANTSTORE_H
#define CUDAL1_LLM_VARIANTSTORE_H

#include "cudal1/LLM/ChatClient.h"
#include "cudal1/LLM/Variant.h"

#include "llvm/Support/JSON.h"

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_fd_ostream;
}

namespace cudal1 {

/// Applied to every text before it is written.
using Redactor = std::function<std::string(llvm::StringRef)>;

class VariantStore {
public:
  explicit VariantStore(std::string Dir, Redactor R = nullptr)
      : Dir(std::move(Dir)), Redact(std::move(R)) {}
  const std::string &dir() const { return Dir; }

  /// The folder of the variants of \p Kernel whose original has hash
  /// \p OriginalHash.
  std::string variantDir(llvm::StringRef Kernel,
                         llvm::StringRef OriginalHash) const;
  /// Every variant stored for that kernel and original, in a stable order
  /// (round, index, hash). Unreadable files are skipped and named in
  /// \p Problems.
  std::vector<Variant> load(llvm::StringRef Kernel,
                            llvm::StringRef OriginalHash,
                            std::vector<std::string> &Problems) const;
  /// Writes \p V (JSON and source); false with "<path>: <problem>".
  bool save(const Variant &V, std::string &Error) const;

private:
  std::string Dir;
  Redactor Redact;
};

class ResponseCache {
public:
  explicit ResponseCache(std::string Dir, Redactor R = nullptr)
      : Dir(std::move(Dir)), Redact(std::move(R)) {}
  /// The key of a request: SHA-256 of the body's JSON text.
  static std::string keyOf(const llvm::json::Value &Body);
  /// The reply cached under \p Key (FromCache set), if any.
  std::optional<ChatReply> get(llvm::StringRef Key) const;
  /// Stores a successful reply with the request it answers.
  bool put(llvm::StringRef Key, llvm::StringRef Url,
           const llvm::json::Value &Body, const ChatReply &R,
           std::string &Error) const;
  std::string pathOf(llvm::StringRef Key) const;

private:
  std::string Dir;
  Redactor Redact;
};

/// A JSON-lines file, one object per exchange; safe to append to from
/// several threads.
class Transcript {
public:
  explicit Transcript(Redactor R = nullptr);
  ~Transcript();
  /// Creates \p Path (and its folder); false with the problem.
  bool open(const std::string &Path, std::string &Error);
  const std::string &path() const { return Path; }
  void append(const llvm::json::Value &Entry);

private:
  std::string Path;
  std::unique_ptr<llvm::raw_fd_ostream> OS;
  std::mutex M;
  Redactor Redact;
};

} // namespace cudal1

#endif
