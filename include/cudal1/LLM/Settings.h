//===- Settings.h - how model proposals are asked for ------------*- C++ -*-===//
//
// Plain data: the settings of the model-proposal search (docs/llm.md), with
// their defaults, and the same settings as optional values: what the command
// line (--llm-*) or the `LLM:` key of .cuda-l1.yaml gives. The command line
// wins over the configuration, which wins over the defaults.
//
// The API key is never a setting: only the name of the environment variable
// that holds it (ApiKeyEnv) is. Nothing here may hold the key.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LLM_SETTINGS_H
#define CUDAL1_LLM_SETTINGS_H

#include <cstdint>
#include <optional>
#include <string>

namespace cudal1 {

struct LlmSettings {
  /// OpenAI-compatible base URL ("http://localhost:8000/v1"); the client posts
  /// to <Endpoint>/chat/completions. Empty: model proposals are off.
  std::string Endpoint;
  std::string Model;
  /// The environment variable holding the API key (none needed for local
  /// servers: an unset or empty variable sends no Authorization header).
  std::string ApiKeyEnv = "OPENAI_API_KEY";
  double Temperature = 0.7;
  unsigned MaxTokens = 8192;     ///< per reply
  unsigned TimeoutSeconds = 300; ///< per request
  unsigned Retries = 4;          ///< on 429, 5xx and connection errors
  double BackoffSeconds = 2;     ///< first wait; doubles with each retry
  unsigned Concurrency = 4;      ///< requests in flight at once

  unsigned Rounds = 3;     ///< per kernel
  unsigned Candidates = 4; ///< replies asked for per round
  /// Budgets: tokens over all exchanges (prompt + completion) and wall time
  /// of the whole search; 0 = no limit. When one is spent no new request is
  /// started; the candidates already received are still verified.
  uint64_t TokenBudget = 0;
  unsigned TimeBudgetSeconds = 0;

  unsigned Exemplars = 4;           ///< earlier variants shown per prompt
  double ExemplarTemperature = 0.5; ///< of the softmax over their scores
  unsigned Failures = 3;            ///< failures shown per prompt

  std::string PromptDir; ///< "" = the templates shipped with the tool
  std::string StoreDir;  ///< "" = .cuda-l1 beside the configuration
};

/// Settings given explicitly (unset = not given).
struct LlmOverrides {
  std::optional<std::string> Endpoint, Model, ApiKeyEnv, PromptDir, StoreDir;
  std::optional<double> Temperature, BackoffSeconds, ExemplarTemperature;
  std::optional<unsigned> MaxTokens, TimeoutSeconds, Retries, Concurrency,
      Rounds, Candidates, TimeBudgetSeconds, Exemplars, Failures;
  std::optional<uint64_t> TokenBudget;

  /// Copies every given value into \p S.
  void applyTo(LlmSettings &S) const;
  /// Takes every value \p Over gives (the command line over a
  /// configuration).
  void overlay(const LlmOverrides &Over);
  /// True when anything is given.
  bool any() const;
};

} // namespace cudal1

#endif
