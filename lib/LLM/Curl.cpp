//===- Curl.cpp - libcurl, loaded at run time -----------------------------===//
#include "Curl.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace cudal1 {

namespace {
struct Loaded {
  CurlApi Api;
  bool Ok = false;
  std::string Why;
};

template <typename T> bool bind(void *H, const char *Name, T &Fn) {
  Fn = reinterpret_cast<T>(::dlsym(H, Name));
  return Fn != nullptr;
}

Loaded load() {
  Loaded L;
  std::string Tried;
  void *H = nullptr;
  const char *Env = std::getenv("CUDAL1_LIBCURL");
  for (const char *Name : {Env, "libcurl.so.4", "libcurl-gnutls.so.4"}) {
    if (!Name || !*Name)
      continue;
    H = ::dlopen(Name, RTLD_NOW | RTLD_LOCAL);
    if (H) {
      L.Api.Library = Name;
      break;
    }
    const char *E = ::dlerror();
    Tried += std::string(Tried.empty() ? "" : "; ") + (E ? E : Name);
  }
  if (!H) {
    L.Why = "libcurl is not installed (" + Tried +
            "): install libcurl4 (Debian/Ubuntu: apt-get install libcurl4), "
            "or point CUDAL1_LIBCURL at libcurl.so.4";
    return L;
  }
  CurlApi &A = L.Api;
  bool Ok = bind(H, "curl_global_init", A.GlobalInit) &&
            bind(H, "curl_easy_init", A.EasyInit) &&
            bind(H, "curl_easy_setopt", A.EasySetopt) &&
            bind(H, "curl_easy_perform", A.EasyPerform) &&
            bind(H, "curl_easy_getinfo", A.EasyGetinfo) &&
            bind(H, "curl_easy_cleanup", A.EasyCleanup) &&
            bind(H, "curl_easy_strerror", A.EasyStrerror) &&
            bind(H, "curl_slist_append", A.SlistAppend) &&
            bind(H, "curl_slist_free_all", A.SlistFreeAll);
  if (!Ok) {
    L.Why = A.Library + " lacks the libcurl easy interface";
    return L;
  }
  if (CURLcode C = A.GlobalInit(CURL_GLOBAL_DEFAULT)) {
    L.Why = A.Library + ": curl_global_init failed: " + A.EasyStrerror(C);
    return L;
  }
  L.Ok = true;
  return L;
}
} // namespace

const CurlApi *loadCurl(std::string &Why) {
  static std::once_flag Once;
  static Loaded L;
  std::call_once(Once, [] { L = load(); });
  if (!L.Ok) {
    Why = L.Why;
    return nullptr;
  }
  return &L.Api;
}

} // namespace cudal1
