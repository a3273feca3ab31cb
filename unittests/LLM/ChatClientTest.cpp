//===- ChatClientTest.cpp - the chat client against the scripted server ---===//
#include "cudal1/LLM/ChatClient.h"
#include "ScriptedServer.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cstdlib>
#include <thread>

using namespace cudal1;
using namespace cudal1::test;
using namespace llvm;

namespace {

/// A client on \p Srv with fast settings; waits are recorded, not slept.
struct Client {
  Client(const ScriptedServer &Srv, LlmSettings S = {}) {
    S.Endpoint = Srv.endpoint();
    if (S.Model.empty())
      S.Model = "test-model";
    S.Retries = S.Retries == 4 ? 2 : S.Retries;
    S.TimeoutSeconds = S.TimeoutSeconds == 300 ? 20 : S.TimeoutSeconds;
    C = std::make_unique<ChatClient>(S);
    C->Sleep = [this](double W) { Waits.push_back(W); };
  }
  ChatReply ask(const std::string &Text, std::optional<int64_t> Seed = {}) {
    ChatRequest R;
    R.Messages = {{"system", "You are terse."}, {"user", Text}};
    R.Seed = Seed;
    return C->complete(R);
  }
  std::unique_ptr<ChatClient> C;
  std::vector<double> Waits;
};

const char *OkScript = R"({"rules": [
  {"name": "ok", "replies": [{"content": "hello from the model",
                              "usage": {"prompt_tokens": 11, "completion_tokens": 5}}]}]})";

} // namespace

TEST(ChatClient, SendsTheRequestAndReadsTheReply) {
  ::unsetenv("CUDAL1_TEST_NO_KEY");
  ScriptedServer Srv(OkScript);
  ASSERT_TRUE(Srv.ok()) << Srv.Error;
  LlmSettings S;
  S.Temperature = 0.25;
  S.MaxTokens = 321;
  S.ApiKeyEnv = "CUDAL1_TEST_NO_KEY";
  Client Cl(Srv, S);
  EXPECT_FALSE(Cl.C->hasKey());
  ChatReply R = Cl.ask("say hello", 1002);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(R.Content, "hello from the model");
  EXPECT_EQ(R.FinishReason, "stop");
  EXPECT_EQ(R.Usage.PromptTokens, 11u);
  EXPECT_EQ(R.Usage.CompletionTokens, 5u);
  EXPECT_EQ(R.Usage.TotalTokens, 16u);
  EXPECT_EQ(R.Attempts, 1u);
  auto Reqs = Srv.requests();
  ASSERT_EQ(Reqs.size(), 1u);
  const json::Object &E = *Reqs[0].getAsObject();
  EXPECT_EQ(*E.getString("path"), "/v1/chat/completions");
  EXPECT_EQ(*E.getString("auth"), "none"); // no key: no Authorization header
  const json::Object &B = *E.getObject("body");
  EXPECT_EQ(*B.getString("model"), "test-model");
  EXPECT_DOUBLE_EQ(*B.getNumber("temperature"), 0.25);
  EXPECT_EQ(*B.getInteger("max_tokens"), 321);
  EXPECT_EQ(*B.getInteger("seed"), 1002);
  EXPECT_EQ(*B.getBoolean("stream"), false);
  const json::Array &M = *B.getArray("messages");
  ASSERT_EQ(M.size(), 2u);
  EXPECT_EQ(*M[0].getAsObject()->getString("role"), "system");
  EXPECT_EQ(*M[1].getAsObject()->getString("content"), "say hello");
}

TEST(ChatClient, SendsTheKeyOnlyInTheHeader) {
  ::setenv("CUDAL1_TEST_KEY", "sk-test-0123456789", 1);
  ScriptedServer Srv(OkScript, "CUDAL1_TEST_KEY");
  ASSERT_TRUE(Srv.ok()) << Srv.Error;
  LlmSettings S;
  S.ApiKeyEnv = "CUDAL1_TEST_KEY";
  Client Cl(Srv, S);
  EXPECT_TRUE(Cl.C->hasKey());
  ChatReply R = Cl.ask("hi");
  ASSERT_TRUE(R.Ok) << R.Error;
  auto Reqs = Srv.requests();
  ASSERT_EQ(Reqs.size(), 1u);
  EXPECT_EQ(*Reqs[0].getAsObject()->getString("auth"), "bearer-key");
  std::string Body = formatv("{0}", Cl.C->body({})).str();
  EXPECT_EQ(Body.find("sk-test"), std::string::npos);
  ::unsetenv("CUDAL1_TEST_KEY");
}

TEST(ChatClient, RetriesA429AfterTheRetryAfterItWasGiven) {
  ScriptedServer Srv(R"({"rules": [{"name": "busy", "replies": [
      {"status": 429, "headers": {"Retry-After": "3"},
       "body": {"error": {"message": "rate limited"}}},
      {"content": "now it works"}]}]})");
  ASSERT_TRUE(Srv.ok()) << Srv.Error;
  Client Cl(Srv);
  ChatReply R = Cl.ask("x");
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(R.Content, "now it works");
  EXPECT_EQ(R.Attempts, 2u);
  ASSERT_EQ(Cl.Waits.size(), 1u);
  EXPECT_DOUBLE_EQ(Cl.Waits[0], 3.0);
  ASSERT_EQ(R.Retries.size(), 1u);
  EXPECT_NE(R.Retries[0].find("attempt 1: HTTP 429"), std::string::npos)
      << R.Retries[0];
  EXPECT_NE(R.Retries[0].find("rate limited; waited 3.0 s (Retry-After)"),
            std::string::npos)
      << R.Retries[0];
  EXPECT_EQ(Srv.requests().size(), 2u);
}

TEST(ChatClient, BacksOffExponentiallyOn5xx) {
  ScriptedServer Srv(R"({"rules": [{"name": "flaky", "replies": [
      {"status": 500, "body": {"error": {"message": "boom"}}},
      {"status": 503, "raw": "overloaded"},
      {"content": "fine"}]}]})");
  ASSERT_TRUE(Srv.ok()) << Srv.Error;
  LlmSettings S;
  S.BackoffSeconds = 0.25;
  S.Retries = 3;
  Client Cl(Srv, S);
  ChatReply R = Cl.ask("x");
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(R.Attempts, 3u);
  ASSERT_EQ(Cl.Waits.size(), 2u);
  EXPECT_DOUBLE_EQ(Cl.Waits[0], 0.25);
  EXPECT_DOUBLE_EQ(Cl.Waits[1], 0.5);
  EXPECT_NE(R.Retries[1].find("HTTP 503"), std::string::npos);
  EXPECT_NE(R.Retries[1].find("overloaded"), std::string::npos);
}

TEST(ChatClient, GivesUpAfterItsRetries) {
  ScriptedServer Srv(R"({"rules": [{"name": "down", "replies": [
      {"status": 503, "body": {"error": {"message": "down for maintenance"}}}]}]})");
  ASSERT_TRUE(Srv.ok()) << Srv.Error;
  LlmSettings S;
  S.Retries = 2;
  Client Cl(Srv, S);
  ChatReply R = Cl.ask("x");
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Attempts, 3u);
  EXPECT_EQ(R.HttpStatus, 503);
  EXPECT_NE(R.Error.find("HTTP 503 from " + Srv.endpoint() +
                         "/chat/completions: down for maintenance (after 3 "
                         "attempts)"),
            std::string::npos)
      << R.Error;
}

TEST(ChatClient, DoesNotRetryARefusal) {
  ScriptedServer Srv(R"({"rules": [{"name": "bad", "replies": [
      {"status": 400, "body": {"error": {"message": "unknown model"}}}]}]})");
  ASSERT_TRUE(Srv.ok()) << Srv.Error;
  Client Cl(Srv);
  ChatReply R = Cl.ask("x");
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Attempts, 1u);
  EXPECT_NE(R.Error.find("HTTP 400"), std::string::npos);
  EXPECT_NE(R.Error.find("unknown model"), std::string::npos);
}

TEST(ChatClient, AReplySlowerThanTheTimeoutIsRetriedThenGivenUp) {
  ScriptedServer Srv(R"({"rules": [{"name": "slow", "replies": [
      {"delay": 3, "content": "too late"}]}]})");
  ASSERT_TRUE(Srv.ok()) << Srv.Error;
  LlmSettings S;
  S.TimeoutSeconds = 1;
  S.Retries = 1;
  Client Cl(Srv, S);
  auto T0 = std::chrono::steady_clock::now();
  ChatReply R = Cl.ask("x");
  double Took = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              T0)
                    .count();
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Attempts, 2u);
  EXPECT_NE(R.Error.find("no reply within 1 s"), std::string::npos) << R.Error;
  EXPECT_NE(R.Error.find("(after 2 attempts)"), std::string::npos) << R.Error;
  EXPECT_LT(Took, 2.9); // each attempt gave up after about a second
  EXPECT_EQ(Cl.Waits.size(), 1u);
}

TEST(ChatClient, MalformedJsonIsAnErrorNotARetry) {
  ScriptedServer Srv(R"({"rules": [{"name": "garbled", "replies": [
      {"raw": "{\"choices\": [ {not json"}]}]})");
  ASSERT_TRUE(Srv.ok()) << Srv.Error;
  Client Cl(Srv);
  ChatReply R = Cl.ask("x");
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Attempts, 1u);
  EXPECT_NE(R.Error.find("/chat/completions is not valid JSON"),
            std::string::npos)
      << R.Error;
  EXPECT_NE(R.Error.find("it begins '{\"choices\": [ {not json'"),
            std::string::npos)
      << R.Error;
}

TEST(ChatClient, AnAnswerWithoutContentIsAnError) {
  ScriptedServer Srv(R"({"rules": [{"name": "empty", "replies": [
      {"body": {"object": "chat.completion", "choices": []}}]}]})");
  ASSERT_TRUE(Srv.ok()) << Srv.Error;
  Client Cl(Srv);
  ChatReply R = Cl.ask("x");
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find("has no choices"), std::string::npos) << R.Error;
}

TEST(ChatClient, AnEchoedKeyIsRedacted) {
  ::setenv("CUDAL1_TEST_KEY2", "sk-echo-abcdef987654", 1);
  ScriptedServer Srv(R"({"rules": [{"name": "echo", "replies": [
      {"status": 401, "echo_auth": true}]}]})");
  ASSERT_TRUE(Srv.ok()) << Srv.Error;
  LlmSettings S;
  S.ApiKeyEnv = "CUDAL1_TEST_KEY2";
  Client Cl(Srv, S);
  ChatReply R = Cl.ask("x");
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Error.find("sk-echo-abcdef987654"), std::string::npos)
      << R.Error;
  EXPECT_NE(R.Error.find("invalid credentials: Bearer [redacted]"),
            std::string::npos)
      << R.Error;
  EXPECT_NE(R.Error.find("(the key in $CUDAL1_TEST_KEY2 was refused)"),
            std::string::npos)
      << R.Error;
  ::unsetenv("CUDAL1_TEST_KEY2");
}

TEST(ChatClient, AnUnreachableServerIsRetriedAsAConnectionError) {
  int Port = 0;
  {
    ScriptedServer Srv(OkScript); // a port that was free, now closed
    ASSERT_TRUE(Srv.ok()) << Srv.Error;
    Port = std::stoi(Srv.endpoint().substr(17));
  }
  LlmSettings S;
  S.Endpoint = "http://127.0.0.1:" + std::to_string(Port) + "/v1";
  S.Model = "m";
  S.Retries = 1;
  S.BackoffSeconds = 0.5;
  ChatClient C(S);
  std::vector<double> Waits;
  C.Sleep = [&](double W) { Waits.push_back(W); };
  ChatReply R = C.complete({});
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Attempts, 2u);
  EXPECT_EQ(Waits, std::vector<double>{0.5});
  EXPECT_NE(R.Error.find("cannot reach http://127.0.0.1:"), std::string::npos)
      << R.Error;
}

TEST(ChatClient, KeepsToItsConcurrencyLimit) {
  ScriptedServer Srv(R"({"rules": [{"name": "slowish", "replies": [
      {"delay": 1.0, "content": "ok"}]}]})");
  ASSERT_TRUE(Srv.ok()) << Srv.Error;
  LlmSettings S;
  S.Concurrency = 2;
  Client Cl(Srv, S);
  std::vector<std::thread> Ts;
  std::atomic<int> Ok{0};
  for (int I = 0; I < 6; ++I)
    Ts.emplace_back([&, I] {
      if (Cl.ask("x", I).Ok)
        ++Ok;
    });
  for (auto &T : Ts)
    T.join();
  EXPECT_EQ(Ok, 6);
  int64_t Max = 0;
  auto Reqs = Srv.requests();
  ASSERT_EQ(Reqs.size(), 6u);
  for (auto &E : Reqs)
    Max = std::max(Max, *E.getAsObject()->getInteger("in_flight"));
  EXPECT_EQ(Max, 2); // two at once, never more
}

TEST(ChatClient, RetryAfterValues) {
  EXPECT_EQ(parseRetryAfter("3", 0), 3.0);
  EXPECT_EQ(parseRetryAfter(" 1.5 ", 0), 1.5);
  EXPECT_EQ(parseRetryAfter("", 0), std::nullopt);
  EXPECT_EQ(parseRetryAfter("soon", 0), std::nullopt);
  // Wed, 21 Oct 2015 07:28:00 GMT = 1445412480.
  EXPECT_EQ(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", 1445412470), 10.0);
  EXPECT_EQ(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", 1445412490), 0.0);
}

TEST(ChatClient, RedactsTheKeyEverywhere) {
  ::setenv("CUDAL1_TEST_KEY3", "secret42", 1);
  LlmSettings S;
  S.Endpoint = "http://127.0.0.1:1/v1";
  S.ApiKeyEnv = "CUDAL1_TEST_KEY3";
  ChatClient C(S);
  EXPECT_EQ(C.redact("a secret42 b secret42"), "a [redacted] b [redacted]");
  EXPECT_EQ(C.redact("nothing"), "nothing");
  ::unsetenv("CUDAL1_TEST_KEY3");
}

TEST(ChatClient, SaysWhyItCannotBeUsed) {
  LlmSettings S;
  ChatClient None(S);
  std::string Why;
  EXPECT_FALSE(None.usable(Why));
  EXPECT_NE(Why.find("no endpoint"), std::string::npos);
  S.Endpoint = "ftp://host/v1";
  ChatClient Ftp(S);
  EXPECT_FALSE(Ftp.usable(Why));
  EXPECT_NE(Why.find("expected an http:// or https:// URL"), std::string::npos);
  S.Endpoint = "http://127.0.0.1:9/v1/";
  ChatClient Ok(S);
  EXPECT_EQ(Ok.url(), "http://127.0.0.1:9/v1/chat/completions");
  EXPECT_TRUE(Ok.usable(Why)) << Why; // libcurl is installed here
}
