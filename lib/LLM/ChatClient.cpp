//===- ChatClient.cpp - an OpenAI-compatible chat-completions client ------===//
#include "cudal1/LLM/ChatClient.h"
#include "Curl.h"
#include "cudal1/Config.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <thread>

using namespace llvm;

namespace cudal1 {

namespace {
double secondsSince(std::chrono::steady_clock::time_point T0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
      .count();
}

size_t onBody(char *Data, size_t Size, size_t N, void *User) {
  static_cast<std::string *>(User)->append(Data, Size * N);
  return Size * N;
}

/// The longest wait a Retry-After may ask for.
constexpr double MaxWaitSeconds = 300;

/// A readable message from an error body: OpenAI's error.message, Ollama's
/// error string, a message field, or the start of the text.
std::string errorMessageOf(StringRef Body) {
  if (Expected<json::Value> V = json::parse(Body)) {
    if (const json::Object *O = V->getAsObject()) {
      if (const json::Object *E = O->getObject("error"))
        if (auto M = E->getString("message"))
          return M->str();
      if (auto E = O->getString("error"))
        return E->str();
      if (auto M = O->getString("message"))
        return M->str();
    }
  } else {
    consumeError(V.takeError());
  }
  std::string S = Body.take_front(300).str();
  for (char &C : S)
    if (C == '\n' || C == '\r')
      C = ' ';
  return S + (Body.size() > 300 ? "..." : "");
}
} // namespace

struct ChatClient::Attempt {
  bool Transport = false; ///< no HTTP answer
  bool TransportRetryable = false;
  std::string TransportError;
  long Status = 0;
  std::string Body;
  std::string RetryAfter; ///< header value ("" = none)
};

static size_t onHeader(char *Data, size_t Size, size_t N, void *User) {
  StringRef Line(Data, Size * N);
  auto [Name, Value] = Line.split(':');
  if (Name.trim().equals_insensitive("retry-after"))
    static_cast<std::string *>(User)->assign(Value.trim().str());
  return Size * N;
}

ChatClient::ChatClient(const LlmSettings &Settings) : S(Settings) {
  if (!S.ApiKeyEnv.empty())
    if (std::optional<std::string> K = sys::Process::GetEnv(S.ApiKeyEnv))
      Key = StringRef(*K).trim().str();
  StringRef E = StringRef(S.Endpoint).rtrim('/');
  Url = E.str() + "/chat/completions";
  Sleep = [](double Seconds) {
    std::this_thread::sleep_for(std::chrono::duration<double>(Seconds));
  };
}

ChatClient::~ChatClient() = default;

bool ChatClient::usable(std::string &Why) const {
  StringRef E = S.Endpoint;
  if (E.empty()) {
    Why = "no endpoint (--llm-endpoint or LLM: Endpoint)";
    return false;
  }
  if (!E.starts_with("http://") && !E.starts_with("https://")) {
    Why = "--llm-endpoint='" + redact(E) +
          "': expected an http:// or https:// URL, e.g. "
          "http://localhost:8000/v1";
    return false;
  }
  return loadCurl(Why) != nullptr;
}

std::string ChatClient::redact(StringRef Text) const {
  if (Key.empty())
    return Text.str();
  std::string Out;
  size_t From = 0;
  while (true) {
    size_t At = Text.find(Key, From);
    if (At == StringRef::npos)
      break;
    Out += Text.slice(From, At).str() + "[redacted]";
    From = At + Key.size();
  }
  return Out + Text.substr(From).str();
}

json::Value ChatClient::body(const ChatRequest &R) const {
  json::Array Msgs;
  for (const ChatMessage &M : R.Messages)
    Msgs.push_back(json::Object{{"role", M.Role}, {"content", M.Content}});
  json::Object B{{"model", S.Model},
                 {"messages", std::move(Msgs)},
                 {"temperature", S.Temperature},
                 {"max_tokens", int64_t(S.MaxTokens)},
                 {"stream", false}};
  if (R.Seed)
    B["seed"] = *R.Seed;
  return json::Value(std::move(B));
}

ChatClient::Attempt ChatClient::send(const std::string &Body) {
  Attempt A;
  std::string Why;
  const CurlApi *C = loadCurl(Why);
  if (!C) {
    A.Transport = true;
    A.TransportError = Why;
    return A;
  }
  CURL *H = C->EasyInit();
  if (!H) {
    A.Transport = true;
    A.TransportError = "curl_easy_init failed";
    return A;
  }
  curl_slist *Headers = C->SlistAppend(nullptr, "Content-Type: application/json");
  Headers = C->SlistAppend(Headers, "Accept: application/json");
  if (!Key.empty())
    Headers = C->SlistAppend(Headers, ("Authorization: Bearer " + Key).c_str());
  char ErrBuf[CURL_ERROR_SIZE] = {0};
  long TimeoutMs = long(S.TimeoutSeconds) * 1000;
  C->EasySetopt(H, CURLOPT_URL, Url.c_str());
  C->EasySetopt(H, CURLOPT_POST, 1L);
  C->EasySetopt(H, CURLOPT_POSTFIELDS, Body.c_str());
  C->EasySetopt(H, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(Body.size()));
  C->EasySetopt(H, CURLOPT_HTTPHEADER, Headers);
  C->EasySetopt(H, CURLOPT_WRITEFUNCTION, &onBody);
  C->EasySetopt(H, CURLOPT_WRITEDATA, &A.Body);
  C->EasySetopt(H, CURLOPT_HEADERFUNCTION, &onHeader);
  C->EasySetopt(H, CURLOPT_HEADERDATA, &A.RetryAfter);
  C->EasySetopt(H, CURLOPT_TIMEOUT_MS, TimeoutMs);
  C->EasySetopt(H, CURLOPT_CONNECTTIMEOUT_MS, std::min(TimeoutMs, 30000L));
  C->EasySetopt(H, CURLOPT_NOSIGNAL, 1L);
  C->EasySetopt(H, CURLOPT_ERRORBUFFER, ErrBuf);
  // A redirect is an error, never followed (the key must not travel on).
  C->EasySetopt(H, CURLOPT_FOLLOWLOCATION, 0L);
  C->EasySetopt(H, CURLOPT_USERAGENT, "cuda-l1/" CUDAL1_VERSION);
  CURLcode R = C->EasyPerform(H);
  if (R != CURLE_OK) {
    A.Transport = true;
    std::string Detail = ErrBuf[0] ? ErrBuf : C->EasyStrerror(R);
    if (R == CURLE_OPERATION_TIMEDOUT)
      A.TransportError = formatv("no reply within {0} s ({1})",
                                 S.TimeoutSeconds, Detail)
                             .str();
    else
      A.TransportError = "cannot reach " + Url + ": " + Detail;
    A.TransportRetryable =
        R == CURLE_OPERATION_TIMEDOUT || R == CURLE_COULDNT_CONNECT ||
        R == CURLE_COULDNT_RESOLVE_HOST || R == CURLE_COULDNT_RESOLVE_PROXY ||
        R == CURLE_RECV_ERROR || R == CURLE_SEND_ERROR ||
        R == CURLE_GOT_NOTHING || R == CURLE_PARTIAL_FILE ||
        R == CURLE_SSL_CONNECT_ERROR;
  } else {
    C->EasyGetinfo(H, CURLINFO_RESPONSE_CODE, &A.Status);
  }
  C->SlistFreeAll(Headers);
  C->EasyCleanup(H);
  return A;
}

void ChatClient::acquire() {
  std::unique_lock<std::mutex> L(M);
  CV.wait(L, [&] { return InFlight < std::max(1u, S.Concurrency); });
  ++InFlight;
}

void ChatClient::release() {
  {
    std::lock_guard<std::mutex> L(M);
    --InFlight;
  }
  CV.notify_one();
}

ChatReply ChatClient::complete(const ChatRequest &Req) {
  auto T0 = std::chrono::steady_clock::now();
  ChatReply R;
  std::string Body = formatv("{0}", body(Req)).str();
  for (unsigned I = 0;; ++I) {
    acquire();
    Attempt A = send(Body);
    release();
    ++R.Attempts;
    R.HttpStatus = A.Status;
    bool Retry = false;
    std::string Problem;
    double Wait = S.BackoffSeconds * std::pow(2.0, double(I));
    std::string WaitWhy = "backoff";
    if (A.Transport) {
      Problem = A.TransportError;
      Retry = A.TransportRetryable;
    } else if (A.Status >= 200 && A.Status < 300) {
      std::string Why;
      if (parseChatResponse(A.Body, R, Why)) {
        R.Ok = true;
        break;
      }
      Problem = "the reply of " + Url + " " + Why;
    } else {
      Problem = formatv("HTTP {0} from {1}: {2}", A.Status, Url,
                        errorMessageOf(A.Body))
                    .str();
      if (A.Status == 401 || A.Status == 403)
        Problem += Key.empty() ? " (no API key: $" + S.ApiKeyEnv +
                                     " is not set)"
                               : " (the key in $" + S.ApiKeyEnv +
                                     " was refused)";
      Retry = A.Status == 408 || A.Status == 429 || A.Status >= 500;
      double Now = double(std::time(nullptr));
      if (std::optional<double> RA = parseRetryAfter(A.RetryAfter, Now)) {
        Wait = std::min(*RA, MaxWaitSeconds);
        WaitWhy = "Retry-After";
      }
    }
    if (!Retry || I >= S.Retries) {
      R.Error = redact(Problem);
      if (R.Attempts > 1)
        R.Error += formatv(" (after {0} attempts)", R.Attempts).str();
      break;
    }
    R.Retries.push_back(redact(formatv("attempt {0}: {1}; waited {2:f1} s ({3})",
                                       I + 1, Problem, Wait, WaitWhy)
                                   .str()));
    Sleep(Wait);
  }
  R.Seconds = secondsSince(T0);
  return R;
}

bool parseChatResponse(StringRef Body, ChatReply &Out, std::string &Why) {
  Expected<json::Value> V = json::parse(Body);
  if (!V) {
    std::string E = toString(V.takeError());
    std::string Start = Body.take_front(80).str();
    for (char &C : Start)
      if (C == '\n' || C == '\r')
        C = ' ';
    Why = "is not valid JSON (" + E + "); it begins '" + Start + "'";
    return false;
  }
  const json::Object *O = V->getAsObject();
  const json::Array *Choices = O ? O->getArray("choices") : nullptr;
  if (!Choices || Choices->empty() || !(*Choices)[0].getAsObject()) {
    Why = "has no choices (not a chat-completions response)";
    return false;
  }
  const json::Object &C0 = *(*Choices)[0].getAsObject();
  const json::Object *Msg = C0.getObject("message");
  std::optional<StringRef> Content = Msg ? Msg->getString("content") : std::nullopt;
  if (!Content) {
    Why = "has no choices[0].message.content";
    return false;
  }
  Out.Content = Content->str();
  if (auto F = C0.getString("finish_reason"))
    Out.FinishReason = F->str();
  if (const json::Object *U = O->getObject("usage")) {
    Out.Usage.PromptTokens = U->getInteger("prompt_tokens").value_or(0);
    Out.Usage.CompletionTokens = U->getInteger("completion_tokens").value_or(0);
    Out.Usage.TotalTokens =
        U->getInteger("total_tokens")
            .value_or(Out.Usage.PromptTokens + Out.Usage.CompletionTokens);
  }
  return true;
}

std::optional<double> parseRetryAfter(StringRef Value, double Now) {
  Value = Value.trim();
  if (Value.empty())
    return std::nullopt;
  double D;
  if (!Value.getAsDouble(D))
    return D < 0 ? 0 : D;
  // An HTTP date: "Wed, 21 Oct 2015 07:28:00 GMT".
  std::tm T = {};
  std::string Text = Value.str();
  if (!strptime(Text.c_str(), "%a, %d %b %Y %H:%M:%S", &T))
    return std::nullopt;
  double At = double(timegm(&T));
  return std::max(0.0, At - Now);
}

bool curlAvailable(std::string *Where) {
  std::string Why;
  const CurlApi *C = loadCurl(Why);
  if (Where)
    *Where = C ? C->Library : Why;
  return C != nullptr;
}

} // namespace cudal1
