//===- Curl.h - libcurl, loaded at run time ---------------------*- C++ -*-===//
//
// Private to lib/LLM. The easy interface of libcurl through dlopen: the tool
// has no link-time dependency on libcurl (the portable binary needs only
// libc, libz and libzstd), and says clearly when it is missing. Looked for as
// $CUDAL1_LIBCURL (a path), libcurl.so.4, libcurl-gnutls.so.4.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_LLM_CURL_H
#define CUDAL1_LIB_LLM_CURL_H

#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>

#include <string>

namespace cudal1 {

struct CurlApi {
  CURLcode (*GlobalInit)(long) = nullptr;
  CURL *(*EasyInit)() = nullptr;
  CURLcode (*EasySetopt)(CURL *, CURLoption, ...) = nullptr;
  CURLcode (*EasyPerform)(CURL *) = nullptr;
  CURLcode (*EasyGetinfo)(CURL *, CURLINFO, ...) = nullptr;
  void (*EasyCleanup)(CURL *) = nullptr;
  const char *(*EasyStrerror)(CURLcode) = nullptr;
  curl_slist *(*SlistAppend)(curl_slist *, const char *) = nullptr;
  void (*SlistFreeAll)(curl_slist *) = nullptr;
  std::string Library; ///< the file loaded
};

/// The loaded library, initialised once (curl_global_init); null with the
/// reason in \p Why when it cannot be loaded.
const CurlApi *loadCurl(std::string &Why);

} // namespace cudal1

#endif
