//===- ConfigHarnessTest.cpp - the Harness: entry of .cuda-l1.yaml --------===//
#include "cudal1/Analysis/Config.h"

#include "gtest/gtest.h"
#include <algorithm>

using namespace cudal1;

TEST(ConfigHarness, InlineSpecKeepsLinesAndColumns) {
  std::string Text = "Rules: 'algebraic-*'\n"
                     "Harness:\n"
                     "  kernels:\n"
                     "    scale: { grid: 4, block: 256 }\n"
                     "WarningsAsErrors: ''\n";
  AnalysisConfig C;
  std::string Err;
  ASSERT_TRUE(parseConfig(Text, "/p/.cuda-l1.yaml", C, Err)) << Err;
  ASSERT_TRUE(C.Harness.has_value());
  EXPECT_TRUE(C.Harness->SpecFile.empty());
  EXPECT_EQ(C.Harness->Line, 3u);
  EXPECT_EQ(C.Harness->Column, 3u);
  const std::string &S = C.Harness->SpecText;
  ASSERT_EQ(S.size(), Text.size());
  // Only the value is left, at the same offsets; the other keys are blank.
  EXPECT_EQ(S.find("Rules"), std::string::npos);
  EXPECT_EQ(S.find("Harness"), std::string::npos);
  EXPECT_EQ(S.find("WarningsAsErrors"), std::string::npos);
  EXPECT_EQ(S.find("kernels:"), Text.find("kernels:"));
  EXPECT_EQ(S.find("scale:"), Text.find("scale:"));
  EXPECT_EQ(std::count(S.begin(), S.end(), '\n'), 5);
  EXPECT_EQ(*C.Rules, "algebraic-*");
  EXPECT_EQ(*C.WarningsAsErrors, "");
}

TEST(ConfigHarness, FlowSpecOnTheKeyLine) {
  std::string Text = "Harness: { kernel: k, grid: 1, block: 32 }\n"
                     "Rules: '*'\n";
  AnalysisConfig C;
  std::string Err;
  ASSERT_TRUE(parseConfig(Text, "c.yaml", C, Err)) << Err;
  ASSERT_TRUE(C.Harness.has_value());
  EXPECT_EQ(C.Harness->Line, 1u);
  EXPECT_EQ(C.Harness->Column, 10u);
  EXPECT_EQ(C.Harness->SpecText.substr(0, 10), std::string(9, ' ') + "{");
  EXPECT_EQ(C.Harness->SpecText.find("Rules"), std::string::npos);
}

TEST(ConfigHarness, FileNameIsRelativeToTheConfiguration) {
  AnalysisConfig C;
  std::string Err;
  ASSERT_TRUE(parseConfig("Harness: specs/h.yaml\n", "/proj/sub/.cuda-l1.yaml",
                          C, Err))
      << Err;
  ASSERT_TRUE(C.Harness.has_value());
  EXPECT_EQ(C.Harness->SpecFile, "/proj/sub/specs/h.yaml");
  EXPECT_TRUE(C.Harness->SpecText.empty());
  ASSERT_TRUE(parseConfig("Harness: /abs/h.yaml\n", "/proj/.cuda-l1.yaml", C,
                          Err));
  EXPECT_EQ(C.Harness->SpecFile, "/abs/h.yaml");
}

TEST(ConfigHarness, ASequenceIsAnErrorNamingFileLineColumn) {
  AnalysisConfig C;
  std::string Err;
  EXPECT_FALSE(parseConfig("Rules: '*'\nHarness:\n  - a\n", "c.yaml", C, Err));
  EXPECT_EQ(Err.rfind("c.yaml:3:5: error: Harness must be a harness spec", 0),
            0u)
      << Err;
}

TEST(ConfigHarness, UnknownKeysListHarness) {
  AnalysisConfig C;
  std::string Err;
  EXPECT_FALSE(parseConfig("Harnesses: {}\n", "c.yaml", C, Err));
  EXPECT_NE(Err.find("Harness)"), std::string::npos) << Err;
}

TEST(ConfigHarness, NoEntryNoHarness) {
  AnalysisConfig C;
  std::string Err;
  ASSERT_TRUE(parseConfig("Rules: '*'\nHarness:\n", "c.yaml", C, Err)) << Err;
  EXPECT_FALSE(C.Harness.has_value());
}

TEST(ConfigHarness, BlankOutside) {
  EXPECT_EQ(blankOutside("ab\ncd\nef", 3, 5), "  \ncd\n  ");
  EXPECT_EQ(blankOutside("abc", 0, 3), "abc");
  EXPECT_EQ(blankOutside("abc", 3, 3), "   ");
}
