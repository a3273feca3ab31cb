//===- TransportTest.cpp - Content-Length framing -------------------------===//
#include "cudal1/LSP/Transport.h"

#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <cstdio>

using namespace cudal1::lsp;

namespace {

/// Reads every result from \p Input with a body limit of \p Max.
std::vector<ReadResult> readAll(const std::string &Input, size_t Max = 1000) {
  std::FILE *F = fmemopen(const_cast<char *>(Input.data()), Input.size(), "r");
  EXPECT_NE(F, nullptr);
  MessageReader R(F, Max);
  std::vector<ReadResult> Out;
  for (int I = 0; I < 50; ++I) {
    Out.push_back(R.read());
    if (Out.back().K == ReadResult::End ||
        Out.back().K == ReadResult::Truncated)
      break;
  }
  std::fclose(F);
  return Out;
}

TEST(Transport, FramedMessagesInARow) {
  auto R = readAll(frame("{\"a\":1}") + frame("{}") +
                   "content-length: 2\r\nContent-Type: application/"
                   "vscode-jsonrpc; charset=utf-8\r\n\r\n[]");
  ASSERT_EQ(R.size(), 4u);
  EXPECT_EQ(R[0].K, ReadResult::Message);
  EXPECT_EQ(R[0].Body, "{\"a\":1}");
  EXPECT_EQ(R[1].Body, "{}");
  EXPECT_EQ(R[2].Body, "[]"); // header names are case-insensitive
  EXPECT_EQ(R[3].K, ReadResult::End);
}

TEST(Transport, BodiesAreBytesNotCharacters) {
  std::string Body = "{\"t\":\"\xC3\xA9\xF0\x9F\x98\x80\"}"; // é😀
  auto R = readAll(frame(Body) + frame("{}"));
  ASSERT_GE(R.size(), 2u);
  EXPECT_EQ(R[0].Body, Body);
  EXPECT_EQ(R[1].Body, "{}");
}

TEST(Transport, BareNewlinesAreAccepted) {
  auto R = readAll("Content-Length: 2\n\n{}");
  EXPECT_EQ(R[0].K, ReadResult::Message);
  EXPECT_EQ(R[0].Body, "{}");
}

TEST(Transport, HeaderWithoutLengthThenResync) {
  auto R = readAll("Content-Type: x\r\n\r\n" + frame("{}"));
  ASSERT_GE(R.size(), 2u);
  EXPECT_EQ(R[0].K, ReadResult::BadHeader);
  EXPECT_EQ(R[0].Error, "a header part without Content-Length");
  EXPECT_EQ(R[1].K, ReadResult::Message);
}

TEST(Transport, JunkLineKeepsTheHeaderRead) {
  // A junk line inside a header part is reported; the Content-Length read
  // before it still frames the message.
  auto R = readAll("Content-Length: 2\r\nnot a header\r\n\r\n{}");
  ASSERT_GE(R.size(), 2u);
  EXPECT_EQ(R[0].K, ReadResult::BadHeader);
  EXPECT_NE(R[0].Error.find("'not a header'"), std::string::npos);
  EXPECT_EQ(R[1].K, ReadResult::Message);
  EXPECT_EQ(R[1].Body, "{}");
}

TEST(Transport, JunkBeforeAHeaderOnTheSameLine) {
  auto R = readAll("xyz" + frame("{}"));
  ASSERT_GE(R.size(), 2u);
  EXPECT_EQ(R[0].K, ReadResult::BadHeader);
  EXPECT_EQ(R[0].Error,
            "skipped 3 bytes of junk before a Content-Length header");
  EXPECT_EQ(R[1].K, ReadResult::Message);
}

TEST(Transport, OversizedBodyIsSkipped) {
  std::string Big(5000, 'x');
  auto R = readAll(frame(Big) + frame("{}"));
  ASSERT_GE(R.size(), 2u);
  EXPECT_EQ(R[0].K, ReadResult::TooLarge);
  EXPECT_TRUE(R[0].Body.empty());
  EXPECT_EQ(R[1].K, ReadResult::Message);
  EXPECT_EQ(R[1].Body, "{}");
}

TEST(Transport, OverlongHeaderLine) {
  std::string Long(MessageReader::MaxHeaderLine + 10, 'a');
  auto R = readAll(Long + "\r\n" + frame("{}"));
  ASSERT_GE(R.size(), 2u);
  EXPECT_EQ(R[0].K, ReadResult::BadHeader);
  EXPECT_EQ(R[1].K, ReadResult::Message);
}

TEST(Transport, TruncatedInput) {
  auto R = readAll("Content-Length: 10\r\n\r\n{}");
  ASSERT_EQ(R.size(), 1u);
  EXPECT_EQ(R[0].K, ReadResult::Truncated);
  EXPECT_EQ(R[0].Error, "the input ended after 2 of 10 bytes of a message");
  R = readAll("Content-Length: 10\r\n");
  EXPECT_EQ(R[0].K, ReadResult::Truncated);
}

TEST(Transport, WriterFramesCompactJson) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  MessageWriter W(OS);
  W.send(llvm::json::Object{{"a", "é"}});
  EXPECT_EQ(S, "Content-Length: 10\r\n\r\n{\"a\":\"é\"}");
}

} // namespace
