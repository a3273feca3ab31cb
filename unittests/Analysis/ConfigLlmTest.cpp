//===- ConfigLlmTest.cpp - the LLM: entry of .cuda-l1.yaml ----------------===//
#include "cudal1/Analysis/Config.h"

#include "gtest/gtest.h"

using namespace cudal1;

TEST(ConfigLlm, ReadsEverySetting) {
  std::string Text = "Rules: '*'\n"
                     "LLM:\n"
                     "  Endpoint: http://127.0.0.1:8000/v1\n"
                     "  Model: qwen2.5-coder-32b\n"
                     "  ApiKeyEnv: MY_KEY\n"
                     "  Temperature: 0.3\n"
                     "  MaxTokens: 2048\n"
                     "  Timeout: 60\n"
                     "  Retries: 2\n"
                     "  Backoff: 0.5\n"
                     "  Concurrency: 8\n"
                     "  Rounds: 5\n"
                     "  Candidates: 6\n"
                     "  TokenBudget: 1000000\n"
                     "  TimeBudget: 3600\n"
                     "  Exemplars: 3\n"
                     "  ExemplarTemperature: 2\n"
                     "  Failures: 1\n"
                     "  Prompts: my-prompts\n"
                     "  Store: /abs/store\n";
  AnalysisConfig C;
  std::string Err;
  ASSERT_TRUE(parseConfig(Text, "/proj/.cuda-l1.yaml", C, Err)) << Err;
  ASSERT_TRUE(C.Llm.has_value());
  LlmSettings S;
  C.Llm->applyTo(S);
  EXPECT_EQ(S.Endpoint, "http://127.0.0.1:8000/v1");
  EXPECT_EQ(S.Model, "qwen2.5-coder-32b");
  EXPECT_EQ(S.ApiKeyEnv, "MY_KEY");
  EXPECT_DOUBLE_EQ(S.Temperature, 0.3);
  EXPECT_EQ(S.MaxTokens, 2048u);
  EXPECT_EQ(S.TimeoutSeconds, 60u);
  EXPECT_EQ(S.Retries, 2u);
  EXPECT_DOUBLE_EQ(S.BackoffSeconds, 0.5);
  EXPECT_EQ(S.Concurrency, 8u);
  EXPECT_EQ(S.Rounds, 5u);
  EXPECT_EQ(S.Candidates, 6u);
  EXPECT_EQ(S.TokenBudget, 1000000u);
  EXPECT_EQ(S.TimeBudgetSeconds, 3600u);
  EXPECT_EQ(S.Exemplars, 3u);
  EXPECT_DOUBLE_EQ(S.ExemplarTemperature, 2.0);
  EXPECT_EQ(S.Failures, 1u);
  EXPECT_EQ(S.PromptDir, "/proj/my-prompts"); // relative to the configuration
  EXPECT_EQ(S.StoreDir, "/abs/store");
}

TEST(ConfigLlm, DefaultsStayWhereNothingIsGiven) {
  AnalysisConfig C;
  std::string Err;
  ASSERT_TRUE(parseConfig("LLM:\n  Model: m\n", "c.yaml", C, Err)) << Err;
  LlmSettings S;
  C.Llm->applyTo(S);
  EXPECT_EQ(S.Model, "m");
  EXPECT_EQ(S.Endpoint, "");
  EXPECT_EQ(S.ApiKeyEnv, "OPENAI_API_KEY");
  EXPECT_EQ(S.Rounds, 3u);
  EXPECT_EQ(S.Candidates, 4u);
}

TEST(ConfigLlm, RefusesAKeyWithoutRepeatingIt) {
  AnalysisConfig C;
  std::string Err;
  EXPECT_FALSE(parseConfig("LLM:\n  Model: m\n  ApiKey: sk-secret-123\n",
                           "/p/.cuda-l1.yaml", C, Err));
  EXPECT_NE(Err.find("/p/.cuda-l1.yaml:3:11: error: LLM: ApiKey: API keys are "
                     "never read from a configuration file"),
            std::string::npos)
      << Err;
  EXPECT_EQ(Err.find("sk-secret-123"), std::string::npos) << Err;
}

TEST(ConfigLlm, BadValuesAreLocated) {
  struct Case {
    const char *Text, *Expect;
  } Cases[] = {
      {"LLM:\n  Temperature: hot\n",
       "c.yaml:2:16: error: LLM: Temperature: expected a number from 0 to 2, "
       "got 'hot'"},
      {"LLM:\n  Temperature: 3\n", "LLM: Temperature: expected a number"},
      {"LLM:\n  Candidates: 0\n",
       "c.yaml:2:15: error: LLM: Candidates: expected a whole number of at "
       "least 1, got '0'"},
      {"LLM:\n  Rounds: -1\n", "LLM: Rounds: expected a whole number"},
      {"LLM:\n  Endpoint: localhost:8000\n",
       "c.yaml:2:13: error: LLM: Endpoint: expected an http:// or https:// "
       "URL"},
      {"LLM:\n  ApiKeyEnv: 'MY KEY'\n",
       "LLM: ApiKeyEnv: expected the name of an environment variable"},
      {"LLM:\n  Model: m\n  Modle: x\n",
       "c.yaml:3:10: error: LLM: unknown key 'Modle' (expected Endpoint, "
       "Model, ApiKeyEnv, Temperature"},
      {"LLMs:\n  Model: m\n", "(expected Rules, WarningsAsErrors, "
                              "CheckOptions, LLM, Harness)"},
  };
  for (const Case &K : Cases) {
    AnalysisConfig C;
    std::string Err;
    EXPECT_FALSE(parseConfig(K.Text, "c.yaml", C, Err)) << K.Text;
    EXPECT_NE(Err.find(K.Expect), std::string::npos)
        << K.Text << "\ngot: " << Err;
  }
}

TEST(ConfigLlm, DumpShowsTheSettingsAndNeverAKey) {
  AnalysisConfig C;
  std::string Err;
  ASSERT_TRUE(parseConfig("LLM:\n  Endpoint: http://h/v1\n  Model: m\n"
                          "  ApiKeyEnv: K_VAR\n  Temperature: 0.25\n",
                          "c.yaml", C, Err))
      << Err;
  std::string D = dumpConfig(C, {});
  EXPECT_NE(D.find("LLM:\n  Endpoint: 'http://h/v1'\n  Model: 'm'\n"
                   "  ApiKeyEnv: 'K_VAR'\n  Temperature: 0.25\n"),
            std::string::npos)
      << D;
  // The dump is valid configuration again.
  AnalysisConfig Again;
  ASSERT_TRUE(parseConfig(D, "dump.yaml", Again, Err)) << Err << "\n" << D;
  ASSERT_TRUE(Again.Llm.has_value());
  EXPECT_EQ(*Again.Llm->Model, "m");
}
