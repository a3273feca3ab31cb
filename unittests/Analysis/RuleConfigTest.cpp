//===- RuleConfigTest.cpp - globs, options, config, NOLINT, output --------===//
#include "cudal1/Analysis/Config.h"
#include "cudal1/Analysis/FindingOutput.h"
#include "cudal1/Analysis/Rule.h"
#include "gtest/gtest.h"

using namespace cudal1;

TEST(GlobList, ClangTidySyntax) {
  GlobList G("algebraic-*,-algebraic-fast-*, memory-restrict");
  EXPECT_TRUE(G.contains("algebraic-pow-small-exponent"));
  EXPECT_FALSE(G.contains("algebraic-fast-rsqrt"));
  EXPECT_TRUE(G.contains("memory-restrict"));
  EXPECT_FALSE(G.contains("memory-hoist-invariant-load"));
  EXPECT_TRUE(GlobList("*").contains("launch-small-grid"));
  EXPECT_FALSE(GlobList("*,-launch-*").contains("launch-small-grid"));
  EXPECT_TRUE(GlobList("-*,launch-*").contains("launch-small-grid"));
  EXPECT_FALSE(GlobList("").contains("x"));
}

TEST(CheckOptions, TypedGetters) {
  CheckOptions O;
  O.Values["r.N"] = "16";
  O.Values["r.B"] = "false";
  O.Values["r.Bad"] = "x";
  EXPECT_EQ(O.getInt("r", "N", 3), 16);
  EXPECT_EQ(O.getInt("r", "Bad", 3), 3);
  EXPECT_EQ(O.getInt("r", "Missing", 7), 7);
  EXPECT_FALSE(O.getBool("r", "B", true));
  EXPECT_EQ(O.get("r", "Missing", "d"), "d");
}

TEST(Config, ParsesTheThreeKeys) {
  AnalysisConfig C;
  std::string Err;
  ASSERT_TRUE(parseConfig("Rules: 'coalescing-*,-memory-*'\n"
                          "WarningsAsErrors: coalescing-*\n"
                          "CheckOptions:\n"
                          "  unrolling-constant-trip.MaxTripCount: 8\n",
                          "/p/.cuda-l1.yaml", C, Err))
      << Err;
  EXPECT_EQ(*C.Rules, "coalescing-*,-memory-*");
  EXPECT_EQ(*C.WarningsAsErrors, "coalescing-*");
  EXPECT_EQ(C.Options.getInt("unrolling-constant-trip", "MaxTripCount", 0),
            8);
}

TEST(Config, ClangTidyListFormAndSequences) {
  AnalysisConfig C;
  std::string Err;
  ASSERT_TRUE(parseConfig("Rules: [coalescing-*, launch-*]\n"
                          "CheckOptions:\n"
                          "  - key: launch-small-grid.NumSMs\n"
                          "    value: 108\n",
                          "c.yaml", C, Err))
      << Err;
  EXPECT_EQ(*C.Rules, "coalescing-*,launch-*");
  EXPECT_EQ(C.Options.getInt("launch-small-grid", "NumSMs", 0), 108);
}

TEST(Config, ErrorsNameFileLineColumn) {
  AnalysisConfig C;
  std::string Err;
  EXPECT_FALSE(parseConfig("Rules: '*'\nChecks2: x\n", "/p/c.yaml", C, Err));
  EXPECT_EQ(Err.rfind("/p/c.yaml:2:1: error: unknown key 'Checks2'", 0), 0u)
      << Err;
  EXPECT_FALSE(parseConfig("Rules: [a\n", "/p/c.yaml", C, Err));
  EXPECT_NE(Err.find("/p/c.yaml:"), std::string::npos);
  EXPECT_NE(Err.find("error:"), std::string::npos) << Err;
}

TEST(Suppress, NolintForms) {
  const char *Text = "a(); // NOLINT\n"
                     "b(); // NOLINT(memory-*)\n"
                     "// NOLINTNEXTLINE(coalescing-uncoalesced-access)\n"
                     "c();\n"
                     "// NOLINTBEGIN(launch-*)\n"
                     "d();\n"
                     "// NOLINTEND(launch-*)\n"
                     "e();\n";
  EXPECT_TRUE(isSuppressed(Text, 1, "anything-x"));
  EXPECT_TRUE(isSuppressed(Text, 2, "memory-restrict"));
  EXPECT_FALSE(isSuppressed(Text, 2, "coalescing-strided-access"));
  EXPECT_TRUE(isSuppressed(Text, 4, "coalescing-uncoalesced-access"));
  EXPECT_FALSE(isSuppressed(Text, 4, "memory-restrict"));
  EXPECT_TRUE(isSuppressed(Text, 6, "launch-small-grid"));
  EXPECT_FALSE(isSuppressed(Text, 6, "memory-restrict"));
  EXPECT_FALSE(isSuppressed(Text, 8, "launch-small-grid"));
  // NOLINTNEXTLINE does not suppress its own line.
  EXPECT_FALSE(isSuppressed(Text, 3, "coalescing-uncoalesced-access"));
}

TEST(Findings, SortAndDedupKeepsOnePerPlace) {
  Finding A;
  A.RuleId = "memory-x";
  A.Loc = {"/f.cuh", 3, 1};
  A.Message = "m";
  Finding B = A;
  Finding C = A;
  C.Loc.Line = 1;
  std::vector<Finding> V{A, B, C};
  sortAndDedup(V);
  ASSERT_EQ(V.size(), 2u);
  EXPECT_EQ(V[0].Loc.Line, 1u);
  EXPECT_EQ(V[0].category(), "memory");
}

TEST(Findings, ExactnessSpellings) {
  for (Exactness E : {Exactness::None, Exactness::Bitwise, Exactness::Ulp,
                      Exactness::Reassociating, Exactness::FastMath})
    EXPECT_EQ(*exactnessFromString(toString(E)), E);
  EXPECT_FALSE(exactnessFromString("exact"));
}

TEST(Findings, SarifHasOneRunWithRuleMetadata) {
  Finding F;
  F.RuleId = "coalescing-strided-access";
  F.Loc = {"/src/k.cu", 10, 5};
  F.Message = "strided";
  F.Notes.push_back({{"/src/k.cu", 9, 3}, "index"});
  RuleInfo R;
  R.Id = F.RuleId;
  R.Category = "coalescing";
  R.Summary = "sum";
  R.Help = "help text";
  llvm::json::Value V = findingsSarif({F}, {R}, "0.1");
  auto *O = V.getAsObject();
  ASSERT_TRUE(O);
  EXPECT_EQ(*O->getString("version"), "2.1.0");
  auto *Runs = O->getArray("runs");
  ASSERT_EQ(Runs->size(), 1u);
  auto *Run = (*Runs)[0].getAsObject();
  auto *Rules = Run->getObject("tool")->getObject("driver")->getArray("rules");
  ASSERT_EQ(Rules->size(), 1u);
  EXPECT_EQ(*(*Rules)[0].getAsObject()->getObject("help")->getString("text"),
            "help text");
  auto *Res = (*Run->getArray("results"))[0].getAsObject();
  EXPECT_EQ(*Res->getString("ruleId"), F.RuleId);
  EXPECT_EQ(*Res->getInteger("ruleIndex"), 0);
  EXPECT_EQ(Res->getArray("relatedLocations")->size(), 1u);
}
