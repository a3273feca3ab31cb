//===- ChatClient.h - an OpenAI-compatible chat-completions client -*- C++ -*-===//
//
// POST <endpoint>/chat/completions over libcurl (DESIGN.md, "LLM proposals"),
// for hosted APIs and local servers alike (vLLM, llama.cpp server, Ollama).
// JSON through llvm::json only. libcurl is loaded at run time (dlopen, like
// the CUDA driver and NVRTC), so the tool starts where it is missing; the
// client then says so.
//
// Retries: on 408, 429, 5xx, connection errors and timeouts, up to
// Settings.Retries more attempts, waiting Retry-After when the server sends
// it and Backoff * 2^attempt otherwise. At most Settings.Concurrency requests
// are in flight at once, over all threads.
//
// The API key is read from the environment variable Settings.ApiKeyEnv when
// the client is made, sent only in the Authorization header, and removed
// from every text the client returns (errors, notes) even if a server echoes
// it back.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LLM_CHATCLIENT_H
#define CUDAL1_LLM_CHATCLIENT_H

#include "cudal1/LLM/Settings.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace cudal1 {

struct ChatMessage {
  std::string Role; ///< "system", "user", "assistant"
  std::string Content;
};

struct ChatRequest {
  std::vector<ChatMessage> Messages;
  /// Sent as "seed": distinct requests for the candidates of one round, the
  /// same on a rerun (reproducible, and the response cache's key).
  std::optional<int64_t> Seed;
};

struct ChatUsage {
  uint64_t PromptTokens = 0, CompletionTokens = 0, TotalTokens = 0;
};

struct ChatReply {
  bool Ok = false;
  std::string Content;      ///< choices[0].message.content
  std::string FinishReason; ///< "stop", "length", ...
  ChatUsage Usage;
  /// When !Ok: one readable sentence (no key in it).
  std::string Error;
  long HttpStatus = 0; ///< of the last attempt (0: no HTTP answer)
  unsigned Attempts = 0;
  /// One line per retried attempt: "attempt 1: HTTP 429; waited 1.0 s
  /// (Retry-After)".
  std::vector<std::string> Retries;
  double Seconds = 0; ///< wall time, waits included
  bool FromCache = false;
};

class ChatClient {
public:
  /// Reads the key from the environment variable S.ApiKeyEnv.
  explicit ChatClient(const LlmSettings &S);
  ~ChatClient();

  /// False with the reason when no request can be made: no endpoint, an
  /// endpoint that is not http(s), libcurl not loadable.
  bool usable(std::string &Why) const;
  /// <endpoint>/chat/completions.
  const std::string &url() const { return Url; }
  /// Whether a key was found (an Authorization header is sent).
  bool hasKey() const { return !Key.empty(); }

  /// The JSON body sent for \p R (model, messages, temperature, max_tokens,
  /// seed, stream: false). The response cache keys on it.
  llvm::json::Value body(const ChatRequest &R) const;

  /// Sends \p R, retrying as the settings say; blocks while Concurrency
  /// requests are in flight. Thread-safe.
  ChatReply complete(const ChatRequest &R);

  /// \p Text with every occurrence of the key replaced by "[redacted]".
  std::string redact(llvm::StringRef Text) const;

  /// How the client waits between attempts (tests replace it).
  std::function<void(double Seconds)> Sleep;

private:
  struct Attempt;
  Attempt send(const std::string &Body);
  void acquire();
  void release();

  LlmSettings S;
  std::string Key, Url;
  std::mutex M;
  std::condition_variable CV;
  unsigned InFlight = 0;
};

/// Parses a chat-completions response body into \p Out (Content,
/// FinishReason, Usage); false with the problem in \p Why.
bool parseChatResponse(llvm::StringRef Body, ChatReply &Out, std::string &Why);

/// Seconds to wait from a Retry-After header value: delta-seconds ("3",
/// "1.5") or an HTTP date (relative to \p Now, seconds since the epoch).
std::optional<double> parseRetryAfter(llvm::StringRef Value, double Now);

/// True when libcurl can be loaded; \p Where gets its name or why not.
bool curlAvailable(std::string *Where = nullptr);

} // namespace cudal1

#endif
