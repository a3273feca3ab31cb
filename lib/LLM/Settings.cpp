//===- Settings.cpp - model-proposal settings: overrides ------------------===//
#include "cudal1/LLM/Settings.h"

namespace cudal1 {

void LlmOverrides::applyTo(LlmSettings &S) const {
  auto Set = [](auto &To, const auto &From) {
    if (From)
      To = *From;
  };
  Set(S.Endpoint, Endpoint);
  Set(S.Model, Model);
  Set(S.ApiKeyEnv, ApiKeyEnv);
  Set(S.PromptDir, PromptDir);
  Set(S.StoreDir, StoreDir);
  Set(S.Temperature, Temperature);
  Set(S.BackoffSeconds, BackoffSeconds);
  Set(S.ExemplarTemperature, ExemplarTemperature);
  Set(S.MaxTokens, MaxTokens);
  Set(S.TimeoutSeconds, TimeoutSeconds);
  Set(S.Retries, Retries);
  Set(S.Concurrency, Concurrency);
  Set(S.Rounds, Rounds);
  Set(S.Candidates, Candidates);
  Set(S.TimeBudgetSeconds, TimeBudgetSeconds);
  Set(S.Exemplars, Exemplars);
  Set(S.Failures, Failures);
  Set(S.TokenBudget, TokenBudget);
}

void LlmOverrides::overlay(const LlmOverrides &O) {
  auto Set = [](auto &To, const auto &From) {
    if (From)
      To = From;
  };
  Set(Endpoint, O.Endpoint);
  Set(Model, O.Model);
  Set(ApiKeyEnv, O.ApiKeyEnv);
  Set(PromptDir, O.PromptDir);
  Set(StoreDir, O.StoreDir);
  Set(Temperature, O.Temperature);
  Set(BackoffSeconds, O.BackoffSeconds);
  Set(ExemplarTemperature, O.ExemplarTemperature);
  Set(MaxTokens, O.MaxTokens);
  Set(TimeoutSeconds, O.TimeoutSeconds);
  Set(Retries, O.Retries);
  Set(Concurrency, O.Concurrency);
  Set(Rounds, O.Rounds);
  Set(Candidates, O.Candidates);
  Set(TimeBudgetSeconds, O.TimeBudgetSeconds);
  Set(Exemplars, O.Exemplars);
  Set(Failures, O.Failures);
  Set(TokenBudget, O.TokenBudget);
}

bool LlmOverrides::any() const {
  return Endpoint || Model || ApiKeyEnv || PromptDir || StoreDir ||
         Temperature || BackoffSeconds || ExemplarTemperature || MaxTokens ||
         TimeoutSeconds || Retries || Concurrency || Rounds || Candidates ||
         TimeBudgetSeconds || Exemplars || Failures || TokenBudget;
}

} // namespace cudal1
