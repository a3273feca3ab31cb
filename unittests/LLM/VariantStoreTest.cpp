//===- VariantStoreTest.cpp - .cuda-l1/: variants, cache, transcript ------===//
#include "cudal1/LLM/VariantStore.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

using namespace cudal1;
using namespace llvm;

namespace {
struct TempDir {
  TempDir() { sys::fs::createUniqueDirectory("cudal1-store", Path); }
  ~TempDir() { sys::fs::remove_directories(Path); }
  std::string operator/(StringRef Name) const {
    SmallString<256> P(Path);
    sys::path::append(P, Name);
    return std::string(P);
  }
  SmallString<256> Path;
};

std::string readFile(const std::string &P) {
  auto B = MemoryBuffer::getFile(P);
  return B ? (*B)->getBuffer().str() : "";
}
} // namespace

TEST(VariantStore, SavesAndLoadsEveryField) {
  TempDir T;
  VariantStore S(T / ".cuda-l1");
  Variant V;
  V.Kernel = "ns::scale";
  V.File = "/p/scale.cu";
  V.OriginalHash = hashText("original");
  V.Source = "__global__ void scale(float *x) { x[0] = 2; }\n";
  V.SourceHash = hashText(V.Source);
  V.Launch = "block=block.x * 2";
  V.Model = "m";
  V.Round = 2;
  V.Index = 3;
  V.Status = VariantStatus::Accepted;
  V.Speedup = 1.5;
  V.CiLow = 1.4;
  V.CiHigh = 1.6;
  V.Exactness = "reassociating";
  V.Gpu = "NVIDIA H200";
  V.Arch = "sm_90";
  V.Commit = "abc123";
  V.Date = "2026-12-01T10:00:00Z";
  V.Verdict = json::Object{{"accepted", true}};
  std::string Err;
  ASSERT_TRUE(S.save(V, Err)) << Err;
  std::string Dir = S.variantDir(V.Kernel, V.OriginalHash);
  EXPECT_NE(Dir.find("variants/ns__scale/" + V.OriginalHash.substr(0, 16)),
            std::string::npos)
      << Dir;
  EXPECT_EQ(readFile(Dir + "/" + V.SourceHash.substr(0, 16) + ".cu"),
            V.Source);
  std::vector<std::string> Problems;
  auto L = S.load(V.Kernel, V.OriginalHash, Problems);
  EXPECT_TRUE(Problems.empty());
  ASSERT_EQ(L.size(), 1u);
  const Variant &W = L[0];
  EXPECT_EQ(W.Source, V.Source);
  EXPECT_EQ(W.Launch, V.Launch);
  EXPECT_EQ(W.Status, VariantStatus::Accepted);
  EXPECT_EQ(W.Round, 2u);
  EXPECT_EQ(W.Index, 3u);
  EXPECT_EQ(*W.Speedup, 1.5);
  EXPECT_EQ(*W.CiLow, 1.4);
  EXPECT_EQ(W.Gpu, "NVIDIA H200");
  EXPECT_EQ(W.Commit, "abc123");
  EXPECT_EQ(W.origin(), "llm:m round 2 #3");
  ASSERT_TRUE(W.Verdict.has_value());
  // Another original: nothing.
  EXPECT_TRUE(S.load(V.Kernel, hashText("edited"), Problems).empty());
}

TEST(VariantStore, BadFilesAreNamedAndSkipped) {
  TempDir T;
  VariantStore S(T / "store");
  std::string H = hashText("o");
  std::string Dir = S.variantDir("k", H);
  sys::fs::create_directories(Dir);
  {
    std::error_code EC;
    raw_fd_ostream(Dir + "/bad.json", EC) << "{ not json";
    raw_fd_ostream(Dir + "/partial.json", EC) << "{\"kernel\": \"k\"}";
  }
  std::vector<std::string> Problems;
  EXPECT_TRUE(S.load("k", H, Problems).empty());
  ASSERT_EQ(Problems.size(), 2u);
  std::sort(Problems.begin(), Problems.end());
  EXPECT_NE(Problems[0].find("bad.json: "), std::string::npos) << Problems[0];
  EXPECT_NE(Problems[1].find("partial.json: no string 'source'"),
            std::string::npos)
      << Problems[1];
}

TEST(ResponseCache, KeyedByTheRequest) {
  TempDir T;
  ResponseCache C(T / "cache");
  json::Value A = json::Object{{"model", "m"}, {"seed", 1}};
  json::Value B = json::Object{{"model", "m"}, {"seed", 2}};
  std::string KA = ResponseCache::keyOf(A);
  EXPECT_EQ(KA, ResponseCache::keyOf(json::Object{{"seed", 1}, {"model", "m"}}));
  EXPECT_NE(KA, ResponseCache::keyOf(B));
  EXPECT_FALSE(C.get(KA));
  ChatReply R;
  R.Ok = true;
  R.Content = "```cuda\nx\n```";
  R.FinishReason = "stop";
  R.Usage = {10, 4, 14};
  std::string Err;
  ASSERT_TRUE(C.put(KA, "http://h/v1/chat/completions", A, R, Err)) << Err;
  std::optional<ChatReply> G = C.get(KA);
  ASSERT_TRUE(G.has_value());
  EXPECT_TRUE(G->Ok);
  EXPECT_TRUE(G->FromCache);
  EXPECT_EQ(G->Content, R.Content);
  EXPECT_EQ(G->FinishReason, "stop");
  EXPECT_EQ(G->Usage.TotalTokens, 14u);
  std::string Text = readFile(C.pathOf(KA));
  EXPECT_NE(Text.find("\"request\""), std::string::npos);
  EXPECT_FALSE(C.get(ResponseCache::keyOf(B)));
}

TEST(Transcript, AppendsOneLinePerExchange) {
  TempDir T;
  Transcript Tr;
  std::string Err;
  ASSERT_TRUE(Tr.open(T / "transcripts/run.jsonl", Err)) << Err;
  Tr.append(json::Object{{"n", 1}});
  Tr.append(json::Object{{"n", 2}});
  EXPECT_EQ(readFile(T / "transcripts/run.jsonl"), "{\"n\":1}\n{\"n\":2}\n");
}

TEST(VariantStore, EverythingWrittenPassesTheRedactor) {
  TempDir T;
  Redactor R = [](StringRef S) {
    std::string Out = S.str();
    for (size_t At; (At = Out.find("sk-LEAK")) != std::string::npos;)
      Out.replace(At, 7, "[redacted]");
    return Out;
  };
  VariantStore S(T / "s", R);
  Variant V;
  V.Kernel = "k";
  V.OriginalHash = hashText("o");
  V.Source = "// sk-LEAK\n";
  V.SourceHash = hashText(V.Source);
  V.Reason = "echoed sk-LEAK";
  std::string Err;
  ASSERT_TRUE(S.save(V, Err)) << Err;
  std::string Base = S.variantDir("k", V.OriginalHash) + "/" +
                     V.SourceHash.substr(0, 16);
  EXPECT_EQ(readFile(Base + ".cu"), "// [redacted]\n");
  EXPECT_EQ(readFile(Base + ".json").find("sk-LEAK"), std::string::npos);
  ResponseCache C(T / "c", R);
  ChatReply Re;
  Re.Content = "sk-LEAK";
  ASSERT_TRUE(C.put("key", "u", json::Object{}, Re, Err)) << Err;
  EXPECT_EQ(readFile(C.pathOf("key")).find("sk-LEAK"), std::string::npos);
  Transcript Tr(R);
  ASSERT_TRUE(Tr.open(T / "t.jsonl", Err)) << Err;
  Tr.append(json::Object{{"e", "sk-LEAK"}});
  EXPECT_EQ(readFile(T / "t.jsonl"), "{\"e\":\"[redacted]\"}\n");
}
