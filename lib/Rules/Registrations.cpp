//===- Registrations.cpp - the YAML rule loader in the rule registry ------===//
#include "cudal1/Rules/YamlRuleCheck.h"

namespace cudal1 {
CUDAL1_REGISTER_RULE_LOADER(YamlRules, loadYamlRules);
} // namespace cudal1
