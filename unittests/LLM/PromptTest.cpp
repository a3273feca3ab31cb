//===- PromptTest.cpp - templates, exemplars, failures --------------------===//
#include "cudal1/LLM/Exemplars.h"
#include "cudal1/LLM/Prompt.h"

#include "gtest/gtest.h"

#include <map>

using namespace cudal1;

namespace {
Variant measured(unsigned Round, unsigned Index, double Speedup,
                 VariantStatus S = VariantStatus::NotFaster) {
  Variant V;
  V.Kernel = "k";
  V.Round = Round;
  V.Index = Index;
  V.Status = S;
  V.Speedup = Speedup;
  V.Source = "// variant " + std::to_string(Round) + "." +
             std::to_string(Index) + "\n";
  V.SourceHash = hashText(V.Source);
  return V;
}

Variant failure(unsigned Round, unsigned Index, VariantStatus S,
                std::string Kind, std::string Reason) {
  Variant V = measured(Round, Index, 0, S);
  V.Speedup.reset();
  V.RejectKind = std::move(Kind);
  V.Reason = std::move(Reason);
  return V;
}

std::vector<const Variant *> ptrs(const std::vector<Variant> &Vs) {
  std::vector<const Variant *> P;
  for (const Variant &V : Vs)
    P.push_back(&V);
  return P;
}
} // namespace

TEST(Template, ReplacesPlaceholdersAndDropsComments) {
  std::string Out, Err;
  ASSERT_TRUE(renderTemplate("%% a comment {{nothing}}\nA {{x}} B {{ y }}.\n"
                             "{{x}}{{x}}",
                             "t.txt", {{"x", "1"}, {"y", "two"}}, Out, Err))
      << Err;
  EXPECT_EQ(Out, "A 1 B two.\n11");
}

TEST(Template, UnknownPlaceholderNamesFileLineColumn) {
  std::string Out, Err;
  EXPECT_FALSE(renderTemplate("ok\n  {{kernal}}\n", "/p/user.txt",
                              {{"kernel", ""}, {"gpu", ""}}, Out, Err));
  EXPECT_EQ(Err, "/p/user.txt:2:3: unknown placeholder '{{kernal}}' (this "
                 "template knows: gpu, kernel)");
  EXPECT_FALSE(renderTemplate("a {{b\n", "t.txt", {}, Out, Err));
  EXPECT_EQ(Err, "t.txt:1:3: '{{' without '}}': write placeholders as "
                 "{{name}}");
}

TEST(Templates, TheShippedOnesLoadAndRender) {
  PromptTemplates T;
  std::string Err;
  ASSERT_TRUE(T.load(findPromptDir("", nullptr), Err)) << Err;
  PromptFacts F;
  F.KernelName = "ns::scale";
  F.File = "scale.cu";
  F.Kernel = "__global__ void scale(float *x) {}";
  F.Context = "namespace ns {\n__global__ void scale(float *x) {}\n}";
  F.Launch = "grid (4, 1, 1), block (256, 1, 1)";
  F.Gpu = "NVIDIA H200 (sm_90)";
  F.Findings = "- scale.cu:3:5: [memory-x] a finding";
  F.RuleFixes = "- [memory-x]: 1.20x faster";
  F.Exactness = "within rtol 1e-4";
  F.Round = 2;
  F.Rounds = 3;
  std::vector<Variant> Vs = {measured(1, 1, 0.8), measured(1, 2, 1.6)};
  std::vector<Variant> Fs = {failure(1, 3, VariantStatus::Rejected,
                                     "hidden-work",
                                     "rejected: work on another stream")};
  Fs[0].Detail = "2 kernels ran outside the timed one";
  Prompt P;
  ASSERT_TRUE(buildPrompt(T, F, ptrs(Vs), ptrs(Fs), P, Err)) << Err;
  EXPECT_EQ(P.System.find("%%"), std::string::npos);
  EXPECT_NE(P.System.find("CUPTI"), std::string::npos);
  for (const char *S :
       {"`ns::scale` (from scale.cu)", "NVIDIA H200 (sm_90)",
        "__global__ void scale(float *x) {}", "grid (4, 1, 1)",
        "[memory-x] a finding", "1.20x faster", "within rtol 1e-4",
        "round 2 of 3", "## Variant 1 (round 1 #1): 0.80x",
        "## Variant 2 (round 1 #2): 1.60x", "// variant 1.2",
        "## Failure 1 (round 1 #3): hidden-work",
        "Why: rejected: work on another stream",
        "Details: 2 kernels ran outside the timed one", "LAUNCH: grid="})
    EXPECT_NE(P.User.find(S), std::string::npos) << S << "\n" << P.User;
  EXPECT_LT(P.User.find("Variant 1"), P.User.find("Variant 2"));
  EXPECT_EQ(P.User.find("{{"), std::string::npos);
  EXPECT_EQ(P.User.find("%%"), std::string::npos);
  // Nothing measured yet.
  ASSERT_TRUE(buildPrompt(T, F, {}, {}, P, Err)) << Err;
  EXPECT_NE(P.User.find("(none yet: no variant of this kernel has been "
                        "measured)"),
            std::string::npos);
  std::string Re;
  ASSERT_TRUE(buildReask(T, "the reply has no fenced code block", Re, Err));
  EXPECT_NE(Re.find("Your reply could not be used: the reply has no fenced "
                    "code block."),
            std::string::npos)
      << Re;
}

TEST(Templates, AMissingFileIsNamed) {
  PromptTemplates T;
  std::string Err;
  EXPECT_FALSE(T.load("/nonexistent/prompts", Err));
  EXPECT_NE(Err.find("/nonexistent/prompts/system.txt: cannot read the prompt "
                     "template"),
            std::string::npos)
      << Err;
}

TEST(Exemplars, OnePerLevelBestAlwaysSlowestFirst) {
  std::vector<Variant> Vs = {
      measured(1, 1, 0.50), measured(1, 2, 1.00), measured(1, 3, 1.02),
      measured(1, 4, 2.00), measured(2, 1, 3.10), measured(2, 2, 1.40)};
  Vs.push_back(failure(2, 3, VariantStatus::CompileFailed, "compile", "x"));
  auto P = ptrs(Vs);
  auto E = chooseExemplars(P, 10, 1.0, 7);
  // 1.00 and 1.02 are one level: the better one stands for it.
  ASSERT_EQ(E.size(), 5u);
  std::vector<double> S;
  for (const Variant *V : E)
    S.push_back(*V->Speedup);
  EXPECT_EQ(S, (std::vector<double>{0.50, 1.02, 1.40, 2.00, 3.10}));
  // Fewer than levels: the best is always one of them.
  for (uint64_t Seed = 0; Seed < 20; ++Seed) {
    auto Two = chooseExemplars(P, 2, 1.0, Seed);
    ASSERT_EQ(Two.size(), 2u);
    EXPECT_EQ(*Two[1]->Speedup, 3.10);
    EXPECT_LT(*Two[0]->Speedup, 3.10);
  }
  EXPECT_TRUE(chooseExemplars(P, 0, 1.0, 1).empty());
}

TEST(Exemplars, TheDrawIsSeededAndFollowsTheTemperature) {
  std::vector<Variant> Vs;
  for (int I = 0; I < 8; ++I)
    Vs.push_back(measured(1, I + 1, 0.5 * (I + 1))); // 0.5x .. 4x
  auto P = ptrs(Vs);
  EXPECT_EQ(chooseExemplars(P, 3, 0.5, 42), chooseExemplars(P, 3, 0.5, 42));
  // Cold: the second pick is nearly always the second best level.
  std::map<double, int> Cold, Hot;
  for (uint64_t Seed = 0; Seed < 400; ++Seed) {
    ++Cold[*chooseExemplars(P, 2, 0.05, Seed)[0]->Speedup];
    ++Hot[*chooseExemplars(P, 2, 100, Seed)[0]->Speedup];
  }
  EXPECT_GT(Cold[3.5], 390);
  // Hot: spread over the other levels (7 levels, ~57 each).
  EXPECT_EQ(Hot.size(), 7u);
  for (auto &KV : Hot)
    EXPECT_GT(KV.second, 25) << KV.first;
}

TEST(Failures, MostInformativeFirstOnePerKind) {
  std::vector<Variant> Vs = {
      failure(1, 1, VariantStatus::Invalid, "reply", "no code block"),
      failure(1, 2, VariantStatus::CompileFailed, "compile", "old error"),
      failure(2, 1, VariantStatus::CompileFailed, "compile", "new error"),
      failure(2, 2, VariantStatus::Rejected, "mismatch", "out differs"),
      failure(2, 3, VariantStatus::Rejected, "timeout", "hung"),
      failure(1, 3, VariantStatus::Rejected, "hidden-work", "side stream"),
      measured(2, 4, 1.3)};
  auto F = chooseFailures(ptrs(Vs), 4);
  ASSERT_EQ(F.size(), 4u);
  EXPECT_EQ(F[0]->Reason, "side stream");
  EXPECT_EQ(F[1]->Reason, "out differs");
  EXPECT_EQ(F[2]->Reason, "new error"); // the latest compile error
  EXPECT_EQ(F[3]->Reason, "no code block");
  EXPECT_EQ(chooseFailures(ptrs(Vs), 1).size(), 1u);
}
