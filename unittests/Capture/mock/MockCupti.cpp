//===- MockCupti.cpp - a CPU stand-in for libcupti.so.13 (capture tests) --===//
//
// Keeps the subscriber's callback and the enabled callback ids;
// mockcupti_fire() delivers a callback as CUPTI would.
//
//===----------------------------------------------------------------------===//
#include <cupti.h>

#include <set>
#include <utility>

namespace {
CUpti_CallbackFunc Callback = nullptr;
void *UserData = nullptr;
std::set<std::pair<int, unsigned>> &enabled() {
  static std::set<std::pair<int, unsigned>> E;
  return E;
}
} // namespace

extern "C" {

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *Sub, CUpti_CallbackFunc F,
                                    void *Data) {
  if (Callback)
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  Callback = F;
  UserData = Data;
  *Sub = reinterpret_cast<CUpti_SubscriberHandle>(0x1);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t Enable, CUpti_SubscriberHandle,
                                         CUpti_CallbackDomain Domain, CUpti_CallbackId Id) {
  if (Enable)
    enabled().insert({Domain, Id});
  else
    enabled().erase({Domain, Id});
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult, const char **Str) {
  *Str = "CUPTI_ERROR_MOCK";
  return CUPTI_SUCCESS;
}

/// 1 when the callback was enabled and delivered.
__attribute__((visibility("default"))) int mockcupti_fire(int Domain, unsigned Id,
                                                          const void *Data) {
  if (!Callback || !enabled().count({Domain, Id}))
    return 0;
  Callback(UserData, static_cast<CUpti_CallbackDomain>(Domain), Id, Data);
  return 1;
}

} // extern "C"
