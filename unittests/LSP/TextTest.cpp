//===- TextTest.cpp - UTF-16 positions and document edits -----------------===//
#include "cudal1/LSP/Text.h"

#include "gtest/gtest.h"

using namespace cudal1::lsp;

namespace {

// "é" is 2 bytes / 1 UTF-16 unit, "😀" 4 bytes / 2 units, "€" 3 bytes / 1.
const std::string Text = "ab\n"
                         "\xC3\xA9x\xF0\x9F\x98\x80y\xE2\x82\xACz\r\n"
                         "last";

TEST(Text, PositionsCountUtf16Units) {
  EXPECT_EQ(offsetAt(Text, {1, 0}), 3u);
  EXPECT_EQ(offsetAt(Text, {1, 1}), 5u);  // after é
  EXPECT_EQ(offsetAt(Text, {1, 2}), 6u);  // after x
  EXPECT_EQ(offsetAt(Text, {1, 4}), 10u); // after 😀
  EXPECT_EQ(offsetAt(Text, {1, 5}), 11u); // after y
  EXPECT_EQ(offsetAt(Text, {1, 6}), 14u); // after €
  EXPECT_EQ(offsetAt(Text, {1, 7}), 15u); // after z, before \r\n
  EXPECT_EQ(offsetAt(Text, {2, 2}), 19u);
}

TEST(Text, PositionsAreClamped) {
  EXPECT_EQ(offsetAt(Text, {0, 99}), 2u);         // the line's end
  EXPECT_EQ(offsetAt(Text, {1, 99}), 15u);        // before "\r\n"
  EXPECT_EQ(offsetAt(Text, {9, 0}), Text.size()); // past the last line
  EXPECT_EQ(offsetAt(Text, {1, 3}), 6u); // inside the surrogate pair: its start
}

TEST(Text, OffsetsToPositions) {
  EXPECT_EQ(positionAt(Text, 0), (Position{0, 0}));
  EXPECT_EQ(positionAt(Text, 5), (Position{1, 1}));
  EXPECT_EQ(positionAt(Text, 10), (Position{1, 4}));
  EXPECT_EQ(positionAt(Text, 14), (Position{1, 6}));
  EXPECT_EQ(positionAt(Text, 8), (Position{1, 2})); // inside 😀: its start
  EXPECT_EQ(positionAt(Text, 1000), (Position{2, 4}));
  for (size_t Off : {0u, 3u, 5u, 6u, 10u, 11u, 14u, 15u, 17u, 21u})
    EXPECT_EQ(offsetAt(Text, positionAt(Text, Off)), Off) << Off;
}

TEST(Text, LineAndByteColumn) {
  EXPECT_EQ(offsetOfLineColumn(Text, 2, 1), 3u);
  EXPECT_EQ(offsetOfLineColumn(Text, 2, 4), 6u); // byte column 4: the emoji
  EXPECT_EQ(offsetOfLineColumn(Text, 3, 99), Text.size());
  EXPECT_EQ(offsetOfLineColumn(Text, 9, 1), Text.size());
}

TEST(Text, CharLength) {
  EXPECT_EQ(charLength(Text, 0), 1u);
  EXPECT_EQ(charLength(Text, 3), 2u);
  EXPECT_EQ(charLength(Text, 6), 4u);
  EXPECT_EQ(charLength(Text, 11), 3u);
  EXPECT_EQ(charLength("\xC3", 0), 1u); // truncated sequence
  EXPECT_EQ(charLength("\xFF", 0), 1u); // invalid byte
  EXPECT_EQ(charLength("a", 1), 0u);
}

TEST(Text, IncrementalAndFullChanges) {
  TextDocument D;
  D.Text = Text;
  std::string Err;
  // Replace "😀y" (units 2-5 of line 1) with "-".
  ASSERT_TRUE(D.applyChange(Range{{1, 2}, {1, 5}}, "-", Err));
  EXPECT_EQ(D.Text, "ab\n\xC3\xA9x-\xE2\x82\xACz\r\nlast");
  // Insert at the end (clamped position).
  ASSERT_TRUE(D.applyChange(Range{{7, 0}, {7, 0}}, "!", Err));
  EXPECT_EQ(D.Text.back(), '!');
  // A range across lines.
  ASSERT_TRUE(D.applyChange(Range{{0, 1}, {2, 1}}, "", Err));
  EXPECT_EQ(D.Text, "aast!");
  // End before start: refused, text unchanged.
  EXPECT_FALSE(D.applyChange(Range{{0, 3}, {0, 1}}, "x", Err));
  EXPECT_EQ(D.Text, "aast!");
  EXPECT_NE(Err.find("before its start"), std::string::npos);
  // No range: the whole text.
  ASSERT_TRUE(D.applyChange(std::nullopt, "new", Err));
  EXPECT_EQ(D.Text, "new");
}

TEST(Text, PositionJson) {
  Range R;
  llvm::json::Path::Root Root;
  EXPECT_TRUE(fromJSON(
      llvm::json::Object{
          {"start", llvm::json::Object{{"line", 1}, {"character", 2}}},
          {"end", llvm::json::Object{{"line", 3}, {"character", 4}}}},
      R, Root));
  EXPECT_EQ(R.End, (Position{3, 4}));
  Position P;
  llvm::json::Path::Root Bad;
  EXPECT_FALSE(
      fromJSON(llvm::json::Object{{"line", -1}, {"character", 0}}, P, Bad));
  EXPECT_FALSE(
      fromJSON(llvm::json::Object{{"line", "x"}, {"character", 0}}, P, Bad));
}

} // namespace
