//===- LlmAsk.cpp - one candidate: request, reply, re-ask -----------------===//
//
// A request goes to the response cache first (keyed by the URL and the body:
// a rerun is reproducible and free), else to the model; every exchange is
// written to the transcript (the body, never the headers; redacted). A reply
// whose format or contract is wrong is asked again once, with the precise
// problem (docs/llm.md, "The reply").
//
//===----------------------------------------------------------------------===//
#include "LlmSearch.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace cudal1 {

ChatReply LlmSearch::exchange(const LlmKernel &K, const ChatRequest &R,
                              unsigned Round, unsigned Index,
                              unsigned Attempt) {
  json::Value Body = Client->body(R);
  std::string Key = ResponseCache::keyOf(Body);
  ChatReply A;
  if (std::optional<ChatReply> C = Cache->get(Key)) {
    A = std::move(*C);
    ++FromCache;
  } else {
    A = Client->complete(R);
    ++Requests;
    Tokens += A.Usage.TotalTokens;
    std::string Err;
    if (A.Ok && !Cache->put(Key, Client->url(), Body, A, Err))
      reportWarning("the response cache: " + Err);
  }
  json::Object E{{"time", utcNow()},
                 {"kernel", K.Name},
                 {"round", int64_t(Round)},
                 {"index", int64_t(Index)},
                 {"attempt", int64_t(Attempt)},
                 {"url", Client->url()},
                 {"cache_key", Key},
                 {"from_cache", A.FromCache},
                 {"request", std::move(Body)},
                 {"ok", A.Ok},
                 {"http_status", int64_t(A.HttpStatus)},
                 {"attempts", int64_t(A.Attempts)},
                 {"seconds", A.Seconds}};
  if (A.Ok)
    E["reply"] = json::Object{{"content", A.Content},
                              {"finish_reason", A.FinishReason},
                              {"prompt_tokens", int64_t(A.Usage.PromptTokens)},
                              {"completion_tokens",
                               int64_t(A.Usage.CompletionTokens)}};
  else
    E["error"] = A.Error;
  if (!A.Retries.empty()) {
    json::Array Rs;
    for (const std::string &L : A.Retries)
      Rs.push_back(L);
    E["retries"] = std::move(Rs);
  }
  Log->append(json::Value(std::move(E)));
  for (const std::string &L : A.Retries)
    say(K, formatv("round {0} #{1}", Round, Index).str(), "retried: " + L);
  return A;
}

Proposal LlmSearch::ask(LlmKernel &K, unsigned Round, unsigned Index,
                        const Prompt &Pr) {
  Proposal P;
  P.Round = Round;
  P.Index = Index;
  std::vector<ChatMessage> Msgs = {{"system", Pr.System}, {"user", Pr.User}};
  for (unsigned Attempt = 1; Attempt <= 2; ++Attempt) {
    std::string Why;
    if (budgetSpent(Why)) {
      P.RequestError = "not asked: " + Why;
      return P;
    }
    ChatRequest R;
    R.Messages = Msgs;
    R.Seed = int64_t(Round) * 1000 + Index;
    ChatReply A = exchange(K, R, Round, Index, Attempt);
    if (!A.Ok) {
      P.RequestError = A.Error;
      return P;
    }
    ParsedReply PR;
    std::string Problem;
    bool Ok = parseReply(A.Content, PR, Problem);
    if (!Ok && A.FinishReason == "length")
      Problem += " (the reply stopped at the token limit: --llm-max-tokens)";
    if (Ok) {
      // A duplicate (of a known variant, or of another reply of this round)
      // is not checked or verified again.
      std::string Hash =
          hashText(normalizeSource(PR.Code) + "\n" + PR.launchText());
      {
        std::lock_guard<std::mutex> L(K.ClaimM);
        auto Seen = K.Seen.find(Hash);
        auto Claim = K.Claimed.emplace(Hash, P.label());
        bool Own = Claim.first->second == P.label(); // its own first reply
        if (Seen != K.Seen.end() || !Own) {
          P.SameAs = Seen != K.Seen.end() ? Seen->second
                                          : Claim.first->second;
          P.Reply = std::move(PR);
          P.Problem.clear();
          return P;
        }
      }
      P.Check = K.Checker->check(PR.Code);
      if (P.Check.State == ReplyCheckResult::Contract) {
        Ok = false;
        Problem = P.Check.Problem;
      }
    }
    P.Reply = std::move(PR);
    P.Problem = Ok ? "" : Problem;
    if (Ok || Attempt == 2)
      return P;
    std::string Reask, Err;
    if (!buildReask(Templates, Problem, Reask, Err)) {
      reportError(Err);
      return P;
    }
    P.Reasked = Problem;
    say(K, P.label(), "re-asked: " + Problem);
    Msgs.push_back({"assistant", A.Content});
    Msgs.push_back({"user", Reask});
  }
  return P;
}

} // namespace cudal1
