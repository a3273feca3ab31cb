//===- YamlRuleTest.cpp - rule files: parsing and located errors ----------===//
#include "cudal1/Rules/YamlRule.h"
#include "cudal1/Rules/YamlRuleCheck.h"

#include "gtest/gtest.h"

using namespace cudal1;

namespace {

std::optional<YamlRuleSpec> parse(llvm::StringRef Text,
                                  std::vector<RuleFileDiag> &D) {
  return parseYamlRule("r.yaml", Text, D);
}

const char *Good = R"yaml(rule: algebraic-powf-square
category: algebraic
message: "powf(x, 2)"
match: |
  callExpr(callee(functionDecl(hasName("powf"))),
           hasArgument(0, expr().bind("x"))).bind("root")
replace: root
with: "(${x}) * (${x})"
requires: [pure(x), device-code]
exactness: ulp
ulp: 2
)yaml";

TEST(YamlRule, ParsesAllFields) {
  std::vector<RuleFileDiag> D;
  auto R = parse(Good, D);
  ASSERT_TRUE(R) << (D.empty() ? "" : D.front().str());
  EXPECT_EQ(R->Id, "algebraic-powf-square");
  EXPECT_EQ(R->Category, "algebraic");
  EXPECT_EQ(R->Replace, "root");
  EXPECT_EQ(R->Exactness, "ulp");
  EXPECT_EQ(R->Ulp, 2u);
  ASSERT_EQ(R->Requires.size(), 2u);
  EXPECT_EQ(R->Requires[0].Name, "pure");
  EXPECT_EQ(R->Requires[0].Args, std::vector<std::string>{"x"});
  EXPECT_EQ(R->Requires[1].Name, "device-code");
  ASSERT_EQ(R->Template.size(), 5u);
  EXPECT_TRUE(R->Template[1].IsNode);
  EXPECT_EQ(R->Template[1].Text, "x");
  // Block scalar: the matcher starts on line 5, indented by 2.
  EXPECT_TRUE(R->MatchAt.Block);
  EXPECT_EQ(R->MatchAt.Start.Line, 5u);
  EXPECT_EQ(R->MatchAt.Indent, 2u);
  TextPos P = R->matchPos(2, 12);
  EXPECT_EQ(P.Line, 6u);
  EXPECT_EQ(P.Column, 14u);
}

TEST(YamlRule, CompilesAndBindsNodes) {
  std::vector<RuleFileDiag> D;
  auto R = parse(Good, D);
  ASSERT_TRUE(R);
  auto C = compileYamlRule(*R, D);
  EXPECT_TRUE(C) << (D.empty() ? "" : D.front().str());
  auto Check = makeYamlRuleCheck(C);
  EXPECT_EQ(Check->info().Id, "algebraic-powf-square");
  EXPECT_EQ(Check->info().Exactness, Exactness::Ulp);
}

TEST(YamlRule, MatcherErrorIsLocatedInTheFile) {
  std::string Text = Good;
  // Break the matcher on its second line.
  size_t P = Text.find("hasArgument(0");
  Text.replace(P, 11, "hasArgumentt");
  std::vector<RuleFileDiag> D;
  auto R = parse(Text, D);
  ASSERT_TRUE(R);
  EXPECT_FALSE(compileYamlRule(*R, D));
  ASSERT_FALSE(D.empty());
  EXPECT_EQ(D.front().Pos.Line, 6u) << D.front().str();
  EXPECT_EQ(D.front().Pos.Column, 12u) << D.front().str();
  EXPECT_NE(D.front().Message.find("hasArgumentt"), std::string::npos)
      << D.front().str();
}

TEST(YamlRule, ErrorsHaveLineAndColumn) {
  struct Case {
    const char *Text;
    unsigned Line, Col;
    const char *Msg;
  } Cases[] = {
      {"rule: algebraic-x\nmessage: m\nmatch: callExpr()\nbogus: 1\n", 4, 1,
       "unknown key 'bogus'"},
      {"rule: Algebraic-X\nmessage: m\nmatch: callExpr()\n", 1, 7,
       "must be '<category>-<name>'"},
      {"rule: algebraic-x\nmessage: m\nmatch: callExpr()\nrequires: [pure(a), "
       "sometimes]\nreplace: r\nwith: x\nexactness: bitwise\n",
       4, 21, "unknown guard 'sometimes'"},
      {"rule: algebraic-x\nmessage: m\nmatch: callExpr()\nreplace: r\nwith: "
       "\"${x\"\nexactness: bitwise\n",
       5, 8, "unterminated"},
      {"rule: algebraic-x\nmessage: m\nmatch: callExpr()\nreplace: r\nwith: "
       "x\nexactness: exact\n",
       6, 12, "exactness must be"},
      {"rule: algebraic-x\nmessage: m\nmatch: callExpr()\nreplace: r\nwith: "
       "x\n",
       1, 1, "must say its 'exactness:'"},
      {"rule: [a\n", 0, 0, ""},
      // Read with the mapping traits of Support/Yaml.h: type errors name
      // the key, located at the value.
      {"rule: algebraic-x\nmessage: [a]\nmatch: callExpr()\n", 2, 11,
       "'message' must be a string"},
      {"rule: algebraic-x\nmessage: m\nmatch: callExpr()\nrequires: "
       "pure(x)\n",
       4, 11, "'requires' must be a list"},
      {"rule: algebraic-x\nmessage: m\nmatch: callExpr()\ndoc:\n  detects: "
       "d\n  bogus: b\n",
       6, 3, "unknown key 'bogus' in 'doc'"},
      {"rule: algebraic-x\nmessage: m\nmatch: callExpr()\ndoc: text\n", 4, 6,
       "'doc' must be a mapping"},
      {"rule: algebraic-x\nrule: algebraic-y\n", 2, 1, "duplicated"},
      {"# nothing\n", 1, 1, "empty rule file"},
      {"- a\n- b\n", 1, 1, "holds one mapping"},
      {"rule: algebraic-x\nmessage: m\nmatch: callExpr()\nulp: many\n", 4, 6,
       "'ulp' must be a non-negative number"},
      {"rule: algebraic-x\nmessage: m\nmatch: callExpr()\nscale_rtol: -1\n",
       4, 13, "'scale_rtol' must be a non-negative number"},
      {"rule: algebraic-x\nmessage:\nmatch: callExpr()\n", 1, 1,
       "missing 'message:'"},
  };
  for (const Case &C : Cases) {
    std::vector<RuleFileDiag> D;
    EXPECT_FALSE(parse(C.Text, D)) << C.Text;
    ASSERT_FALSE(D.empty()) << C.Text;
    if (C.Line) {
      EXPECT_EQ(D.front().Pos.Line, C.Line) << D.front().str();
      EXPECT_EQ(D.front().Pos.Column, C.Col) << D.front().str();
      EXPECT_NE(D.front().Message.find(C.Msg), std::string::npos)
          << D.front().str();
    } else {
      EXPECT_GT(D.front().Pos.Line, 0u) << D.front().str();
    }
    EXPECT_EQ(D.front().str().rfind("r.yaml:", 0), 0u);
  }
}

TEST(YamlRule, UnboundNodesAreErrors) {
  std::vector<RuleFileDiag> D;
  auto R = parse("rule: algebraic-x\nmessage: m\nmatch: "
                 "callExpr().bind(\"root\")\nreplace: root\nwith: "
                 "\"${y}\"\nrequires: [pure(z)]\nexactness: bitwise\n",
                 D);
  ASSERT_TRUE(R);
  EXPECT_FALSE(compileYamlRule(*R, D));
  ASSERT_EQ(D.size(), 2u);
  EXPECT_NE(D[0].Message.find("'y' is not bound"), std::string::npos);
  EXPECT_NE(D[1].Message.find("'z' is not bound"), std::string::npos);
}

TEST(YamlRule, Template) {
  std::vector<TemplatePiece> P;
  std::string E;
  size_t Off;
  ASSERT_TRUE(parseRuleTemplate("a$$b${x}c", P, E, Off));
  ASSERT_EQ(P.size(), 3u);
  EXPECT_EQ(P[0].Text, "a$b");
  EXPECT_TRUE(P[1].IsNode);
  EXPECT_EQ(P[2].Text, "c");
  EXPECT_FALSE(parseRuleTemplate("ab$c", P, E, Off));
  EXPECT_EQ(Off, 2u);
}

TEST(YamlRule, ShippedRulesLoad) {
  std::string Dir = findShippedRulesDir();
  ASSERT_FALSE(Dir.empty());
  auto Files = findRuleFiles(Dir);
  EXPECT_GE(Files.size(), 6u);
  for (const std::string &F : Files) {
    std::vector<RuleFileDiag> D;
    EXPECT_TRUE(loadYamlRuleFile(F, D)) << (D.empty() ? F : D.front().str());
  }
}

} // namespace
