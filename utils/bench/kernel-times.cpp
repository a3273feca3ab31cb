// kernel-times: a CUPTI injection library that records the GPU time of every
// kernel a program runs, for utils/bench-corpus.py.
//
//   CUDA_INJECTION64_PATH=/path/libkernel-times.so KT_OUT=/tmp/kt-%p.json ./program
//
// The CUDA driver loads the library at cuInit and calls InitializeInjection.
// It enables CUPTI activity records of kind CONCURRENT_KERNEL (KT_KIND=kernel:
// the serialized KERNEL kind instead) and, at exit, writes per kernel name the
// launch count and total/min/max duration in ns as JSON to $KT_OUT ("%p" is
// replaced by the process id; default kernel-times-<pid>.json):
//   {"kind": "concurrent", "pid": 123, "dropped": 0, "records": 42,
//    "first_start_ns": ..., "last_end_ns": ...,
//    "kernels": [{"name": mangled, "demangled": ..., "count": n, "total_ns": t,
//                 "min_ns": a, "max_ns": b}, ...]}
// Buffers are flushed at exit (atexit, registered when CUDA initialises, so it
// runs before the CUDA runtime's own teardown) and when a context is about to
// be destroyed (cudaDeviceReset), so no record is lost to either.
//
// Build (utils/bench-corpus-gpu.sh does it):
//   g++ -std=c++17 -O2 -shared -fPIC -I$CUDA/include -I$CUDA/extras/CUPTI/include
//       kernel-times.cpp -o libkernel-times.so -L$CUDA/lib64 -L$CUDA/extras/CUPTI/lib64
//       -lcupti -Wl,-rpath,$CUDA/lib64 -Wl,-rpath,$CUDA/extras/CUPTI/lib64
// With -DKT_SELFTEST it is a program that feeds made-up records through the
// same aggregation and JSON writer (a CPU test of those parts).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <map>
#include <mutex>
#include <string>
#include <unistd.h>

namespace {

struct Stat {
  unsigned long long count = 0, total = 0, min = ~0ull, max = 0;
};

std::mutex g_mu;
std::map<std::string, Stat> g_stats; // by (mangled) name
unsigned long long g_first = ~0ull, g_last = 0, g_records = 0;
size_t g_dropped = 0;
bool g_written = false;
const char *g_kind = "concurrent";

void record(const char *name, unsigned long long start, unsigned long long end) {
  if (end < start)
    return;
  Stat &s = g_stats[name ? name : "?"];
  unsigned long long d = end - start;
  s.count++;
  s.total += d;
  if (d < s.min)
    s.min = d;
  if (d > s.max)
    s.max = d;
  if (start < g_first)
    g_first = start;
  if (end > g_last)
    g_last = end;
  g_records++;
}

std::string json_string(const std::string &s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += (char)c;
    } else if (c < 0x20) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
    } else {
      o += (char)c;
    }
  }
  return o + "\"";
}

std::string demangle(const std::string &name) {
  int status = 0;
  char *d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = (status == 0 && d) ? d : name;
  free(d);
  return out;
}

std::string out_path() {
  const char *p = getenv("KT_OUT");
  std::string t = (p && *p) ? p : "kernel-times-%p.json";
  std::string pid = std::to_string((long)getpid());
  for (size_t i; (i = t.find("%p")) != std::string::npos;)
    t.replace(i, 2, pid);
  return t;
}

void write_json() {
  std::lock_guard<std::mutex> lk(g_mu);
  if (g_written)
    return;
  g_written = true;
  std::string path = out_path(), tmp = path + ".tmp";
  FILE *f = fopen(tmp.c_str(), "w");
  if (!f) {
    fprintf(stderr, "kernel-times: cannot write %s\n", tmp.c_str());
    return;
  }
  fprintf(f, "{\"kind\": \"%s\", \"pid\": %ld, \"dropped\": %zu, \"records\": %llu,\n", g_kind,
          (long)getpid(), g_dropped, g_records);
  fprintf(f, " \"first_start_ns\": %llu, \"last_end_ns\": %llu,\n \"kernels\": [",
          g_records ? g_first : 0ull, g_last);
  bool first = true;
  for (auto &kv : g_stats) {
    fprintf(f, "%s\n  {\"name\": %s, \"demangled\": %s, \"count\": %llu, \"total_ns\": %llu, "
               "\"min_ns\": %llu, \"max_ns\": %llu}",
            first ? "" : ",", json_string(kv.first).c_str(), json_string(demangle(kv.first)).c_str(),
            kv.second.count, kv.second.total, kv.second.min, kv.second.max);
    first = false;
  }
  fprintf(f, "\n]}\n");
  fclose(f);
  rename(tmp.c_str(), path.c_str());
}

} // namespace

#ifndef KT_SELFTEST
#include <cupti.h>

namespace {

#if defined(CUPTI_API_VERSION) && CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 KernelRecord;
#elif defined(CUPTI_API_VERSION) && CUPTI_API_VERSION >= 18
typedef CUpti_ActivityKernel9 KernelRecord;
#else
typedef CUpti_ActivityKernel4 KernelRecord;
#endif

const size_t kBufferSize = 8u << 20;

void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
  *buffer = (uint8_t *)aligned_alloc(8, kBufferSize);
  *size = *buffer ? kBufferSize : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                               size_t valid) {
  (void)size;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    CUpti_Activity *rec = nullptr;
    while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
      if (rec->kind == CUPTI_ACTIVITY_KIND_KERNEL ||
          rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
        const KernelRecord *k = (const KernelRecord *)rec;
        record(k->name, k->start, k->end);
      }
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
      g_dropped += dropped;
  }
  free(buffer);
}

void CUPTIAPI on_callback(void *, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                          const void *) {
  // cudaDeviceReset / cuCtxDestroy: hand back this context's records first
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
    cuptiActivityFlushAll(0);
}

void at_exit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  write_json();
}

bool g_initialised = false;

} // namespace

extern "C" int InitializeInjection(void) {
  if (g_initialised)
    return 1;
  g_initialised = true;
  const char *kind = getenv("KT_KIND");
  CUpti_ActivityKind k = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  if (kind && strcmp(kind, "kernel") == 0) {
    k = CUPTI_ACTIVITY_KIND_KERNEL;
    g_kind = "kernel";
  }
  if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
      cuptiActivityEnable(k) != CUPTI_SUCCESS) {
    fprintf(stderr, "kernel-times: CUPTI activity API not available; no kernel times\n");
    return 1;
  }
  CUpti_SubscriberHandle sub;
  if (cuptiSubscribe(&sub, (CUpti_CallbackFunc)on_callback, nullptr) == CUPTI_SUCCESS)
    cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  atexit(at_exit);
  return 1;
}

// Backup for a program that leaves without running atexit handlers of
// libraries loaded later (the destructor runs at dlclose / normal exit).
__attribute__((destructor)) static void kt_fini() {
  if (g_initialised && !g_written) {
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    write_json();
  }
}

#else // KT_SELFTEST: made-up records through record() and write_json()

int main() {
  record("_Z6kernelPfi", 1000, 3000);
  record("_Z6kernelPfi", 5000, 6000);
  record("_Z5otherv", 2000, 2500);
  record("plain_c_name", 7000, 7100);
  record("quote\"and\\backslash", 8000, 8001);
  write_json();
  write_json(); // a second call writes nothing more
  return 0;
}
#endif
