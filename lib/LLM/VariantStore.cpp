//===- VariantStore.cpp - .cuda-l1/: variants, responses, transcripts -----===//
#include "cudal1/LLM/VariantStore.h"
#include "cudal1/Support/SafeWrite.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;

namespace cudal1 {

namespace {
/// "ns::k<T>" -> "ns__k_T_": a file-name-safe stem.
std::string stem(StringRef Kernel) {
  std::string S;
  for (char C : Kernel)
    S += isalnum((unsigned char)C) || C == '_' || C == '-' ? C : '_';
  return S;
}

std::string join(StringRef A, std::initializer_list<StringRef> Parts) {
  SmallString<256> P(A);
  for (StringRef Part : Parts)
    sys::path::append(P, Part);
  return std::string(P);
}

bool writeWhole(const std::string &Path, StringRef Text, const Redactor &R,
                std::string &Why) {
  std::string Clean = R ? R(Text) : Text.str();
  SafeWriteResult W = writeFileSafely(Path, Clean);
  if (!W.Ok) {
    Why = Path + ": " + W.Error;
    return false;
  }
  return true;
}
} // namespace

std::string VariantStore::variantDir(StringRef Kernel,
                                     StringRef OriginalHash) const {
  return join(Dir, {"variants", stem(Kernel), OriginalHash.take_front(16)});
}

std::vector<Variant>
VariantStore::load(StringRef Kernel, StringRef OriginalHash,
                   std::vector<std::string> &Problems) const {
  std::vector<Variant> Out;
  std::string D = variantDir(Kernel, OriginalHash);
  std::error_code EC;
  for (sys::fs::directory_iterator I(D, EC), E; I != E && !EC;
       I.increment(EC)) {
    if (sys::path::extension(I->path()) != ".json")
      continue;
    auto Buf = MemoryBuffer::getFile(I->path());
    if (!Buf) {
      Problems.push_back(I->path() + ": " + Buf.getError().message());
      continue;
    }
    Expected<json::Value> J = json::parse((*Buf)->getBuffer());
    if (!J) {
      Problems.push_back(I->path() + ": " + toString(J.takeError()));
      continue;
    }
    Variant V;
    std::string Why;
    if (!fromJson(*J, V, Why)) {
      Problems.push_back(I->path() + ": " + Why);
      continue;
    }
    if (V.Kernel == Kernel && V.OriginalHash == OriginalHash)
      Out.push_back(std::move(V));
  }
  std::sort(Out.begin(), Out.end(), [](const Variant &A, const Variant &B) {
    return std::tie(A.Date, A.Round, A.Index, A.SourceHash) <
           std::tie(B.Date, B.Round, B.Index, B.SourceHash);
  });
  return Out;
}

bool VariantStore::save(const Variant &V, std::string &Error) const {
  std::string Base = join(variantDir(V.Kernel, V.OriginalHash),
                          {StringRef(V.SourceHash).take_front(16)});
  return writeWhole(Base + ".cu", V.Source, Redact, Error) &&
         writeWhole(Base + ".json", formatv("{0:2}", toJson(V)).str() + "\n",
                    Redact, Error);
}

std::string ResponseCache::keyOf(const json::Value &Body) {
  return hashText(formatv("{0}", Body).str());
}

std::string ResponseCache::pathOf(StringRef Key) const {
  return join(Dir, {Key.str() + ".json"});
}

std::optional<ChatReply> ResponseCache::get(StringRef Key) const {
  auto Buf = MemoryBuffer::getFile(pathOf(Key));
  if (!Buf)
    return std::nullopt;
  Expected<json::Value> J = json::parse((*Buf)->getBuffer());
  if (!J) {
    consumeError(J.takeError());
    return std::nullopt;
  }
  const json::Object *O = J->getAsObject();
  const json::Object *R = O ? O->getObject("reply") : nullptr;
  if (!R || !R->getString("content"))
    return std::nullopt;
  ChatReply C;
  C.Ok = true;
  C.FromCache = true;
  C.Content = R->getString("content")->str();
  if (auto F = R->getString("finish_reason"))
    C.FinishReason = F->str();
  C.Usage.PromptTokens = R->getInteger("prompt_tokens").value_or(0);
  C.Usage.CompletionTokens = R->getInteger("completion_tokens").value_or(0);
  C.Usage.TotalTokens = R->getInteger("total_tokens").value_or(0);
  return C;
}

bool ResponseCache::put(StringRef Key, StringRef Url, const json::Value &Body,
                        const ChatReply &R, std::string &Error) const {
  json::Object O{
      {"key", Key},
      {"url", Url},
      {"request", Body},
      {"reply", json::Object{{"content", R.Content},
                             {"finish_reason", R.FinishReason},
                             {"prompt_tokens", int64_t(R.Usage.PromptTokens)},
                             {"completion_tokens",
                              int64_t(R.Usage.CompletionTokens)},
                             {"total_tokens", int64_t(R.Usage.TotalTokens)}}}};
  return writeWhole(pathOf(Key),
                    formatv("{0:2}", json::Value(std::move(O))).str() + "\n",
                    Redact, Error);
}

Transcript::Transcript(Redactor R) : Redact(std::move(R)) {}
Transcript::~Transcript() = default;

bool Transcript::open(const std::string &P, std::string &Error) {
  Path = P;
  if (std::error_code EC =
          sys::fs::create_directories(sys::path::parent_path(P))) {
    Error = std::string(sys::path::parent_path(P)) + ": " + EC.message();
    return false;
  }
  std::error_code EC;
  OS = std::make_unique<raw_fd_ostream>(P, EC, sys::fs::OF_Append);
  if (EC) {
    Error = P + ": " + EC.message();
    OS.reset();
    return false;
  }
  return true;
}

void Transcript::append(const json::Value &Entry) {
  std::lock_guard<std::mutex> L(M);
  if (!OS)
    return;
  std::string Line = formatv("{0}", Entry).str();
  *OS << (Redact ? Redact(Line) : Line) << "\n";
  OS->flush();
}

} // namespace cudal1
