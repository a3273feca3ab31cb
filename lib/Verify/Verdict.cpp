//===- Verdict.cpp - results JSON, annotation, summary table --------------===//
#include "cudal1/Verify/Verdict.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"

#include <cmath>

using namespace llvm;

namespace cudal1 {

std::string archFromCc(int Major, int Minor) {
  return "sm_" + std::to_string(Major) + std::to_string(Minor);
}

std::string formatTime(double Us) {
  if (Us >= 1000.0)
    return formatv("{0:f2} ms", Us / 1000.0).str();
  if (Us < 1.0)
    return formatv("{0:f1} ns", Us * 1000.0).str();
  return formatv("{0:f1} us", Us).str();
}

json::Value toJson(const GpuInfo &G) {
  return json::Object{{"ok", G.Ok},
                      {"error", G.Error},
                      {"name", G.Name},
                      {"cc", formatv("{0}.{1}", G.CcMajor, G.CcMinor).str()},
                      {"cc_major", G.CcMajor},
                      {"cc_minor", G.CcMinor},
                      {"arch", G.Arch},
                      {"driver_version", G.DriverVersion},
                      {"driver", G.DriverVersionText},
                      {"sm_count", G.SmCount},
                      {"l2_bytes", G.L2Bytes},
                      {"memory_bytes", G.MemBytes},
                      {"sm_clock_max_mhz", G.SmClockMHzMax},
                      {"mem_clock_max_mhz", G.MemClockMHzMax},
                      {"bus_width_bits", G.BusWidthBits},
                      {"sm_clock_now_mhz", G.SmClockMHzNow},
                      {"mem_clock_now_mhz", G.MemClockMHzNow},
                      {"peak_bandwidth_gbs", G.PeakBandwidthGBs},
                      {"device_count", G.DeviceCount},
                      {"device", G.Device}};
}

bool fromJson(const json::Value &V, GpuInfo &G) {
  const json::Object *O = V.getAsObject();
  if (!O)
    return false;
  auto S = [&](const char *K) {
    auto X = O->getString(K);
    return X ? X->str() : std::string();
  };
  auto I = [&](const char *K) { return O->getInteger(K).value_or(0); };
  G.Ok = O->getBoolean("ok").value_or(false);
  G.Error = S("error");
  G.Name = S("name");
  G.CcMajor = I("cc_major");
  G.CcMinor = I("cc_minor");
  G.Arch = S("arch");
  G.DriverVersion = I("driver_version");
  G.DriverVersionText = S("driver");
  G.SmCount = I("sm_count");
  G.L2Bytes = I("l2_bytes");
  G.MemBytes = I("memory_bytes");
  G.SmClockMHzMax = I("sm_clock_max_mhz");
  G.MemClockMHzMax = I("mem_clock_max_mhz");
  G.BusWidthBits = I("bus_width_bits");
  G.SmClockMHzNow = I("sm_clock_now_mhz");
  G.MemClockMHzNow = I("mem_clock_now_mhz");
  G.PeakBandwidthGBs = O->getNumber("peak_bandwidth_gbs").value_or(0);
  G.DeviceCount = I("device_count");
  G.Device = I("device");
  return true;
}

static json::Array numbers(const std::vector<double> &V) {
  json::Array A;
  for (double X : V)
    A.push_back(std::round(X * 1000.0) / 1000.0);
  return A;
}

json::Value toJson(const TimingResult &T) {
  return json::Object{
      {"ok", T.Ok},
      {"samples", (int64_t)T.Samples},
      {"warmup", (int64_t)T.Warmup},
      {"original_median_us", T.OriginalMedianUs},
      {"candidate_median_us", T.CandidateMedianUs},
      {"speedup", T.Speedup},
      {"ci95_low", T.CiLow},
      {"ci95_high", T.CiHigh},
      {"original_kernels_per_sample", (int64_t)T.OriginalKernelsPerSample},
      {"candidate_kernels_per_sample", (int64_t)T.CandidateKernelsPerSample},
      {"original_window_us", T.OriginalWindowUs},
      {"candidate_window_us", T.CandidateWindowUs},
      {"floor_us", T.FloorUs},
      {"min_bytes", (int64_t)T.MinBytes},
      {"flagged", T.Flagged},
      {"sm_clock_after_mhz", T.SmClockAfterMHz},
      {"note", T.Note},
      {"original_us", numbers(T.OriginalUs)},
      {"candidate_us", numbers(T.CandidateUs)}};
}

static bool fromJsonTiming(const json::Object &O, TimingResult &T) {
  T.Ok = O.getBoolean("ok").value_or(false);
  T.Samples = O.getInteger("samples").value_or(0);
  T.Warmup = O.getInteger("warmup").value_or(0);
  T.OriginalMedianUs = O.getNumber("original_median_us").value_or(0);
  T.CandidateMedianUs = O.getNumber("candidate_median_us").value_or(0);
  T.Speedup = O.getNumber("speedup").value_or(0);
  T.CiLow = O.getNumber("ci95_low").value_or(0);
  T.CiHigh = O.getNumber("ci95_high").value_or(0);
  T.OriginalKernelsPerSample =
      O.getInteger("original_kernels_per_sample").value_or(0);
  T.CandidateKernelsPerSample =
      O.getInteger("candidate_kernels_per_sample").value_or(0);
  T.OriginalWindowUs = O.getNumber("original_window_us").value_or(0);
  T.CandidateWindowUs = O.getNumber("candidate_window_us").value_or(0);
  T.FloorUs = O.getNumber("floor_us").value_or(0);
  T.MinBytes = O.getInteger("min_bytes").value_or(0);
  T.Flagged = O.getBoolean("flagged").value_or(false);
  T.SmClockAfterMHz = O.getInteger("sm_clock_after_mhz").value_or(0);
  if (auto N = O.getString("note"))
    T.Note = N->str();
  auto Arr = [](const json::Array *A, std::vector<double> &To) {
    if (A)
      for (auto &X : *A)
        To.push_back(X.getAsNumber().value_or(0));
  };
  Arr(O.getArray("original_us"), T.OriginalUs);
  Arr(O.getArray("candidate_us"), T.CandidateUs);
  return true;
}

static json::Value toJson(const BufferDiff &D) {
  return json::Object{{"buffer", D.Buffer},
                      {"elements", (int64_t)D.Elements},
                      {"mismatches", (int64_t)D.Mismatches},
                      {"bytes_differing", (int64_t)D.BytesDiffering},
                      {"unwritten", (int64_t)D.Unwritten},
                      {"first_bad", (int64_t)D.FirstBad},
                      {"first_bad_text", D.FirstBadText},
                      {"max_abs_err", std::isfinite(D.MaxAbsErr) ? D.MaxAbsErr : 1e300},
                      {"max_rel_err", D.MaxRelErr},
                      {"max_abs_ref", D.MaxAbsRef},
                      {"max_ulp", (int64_t)std::min<uint64_t>(D.MaxUlp, INT64_MAX)}};
}

static json::Array strings(const std::vector<std::string> &V) {
  json::Array A;
  for (auto &S : V)
    A.push_back(S);
  return A;
}

json::Value toJson(const CandidateVerdict &V) {
  json::Array Sets;
  for (const auto &S : V.InputSets) {
    json::Array Diffs;
    for (const auto &D : S.Diffs)
      Diffs.push_back(toJson(D));
    Sets.push_back(json::Object{{"index", (int64_t)S.Index},
                                {"description", S.Description},
                                {"ok", S.Ok},
                                {"buffers", std::move(Diffs)},
                                {"problems", strings(S.Problems)}});
  }
  json::Object O{{"name", V.Name},
                 {"origin", V.Origin},
                 {"exactness", toString(V.Exact)},
                 {"compiled", V.Compiled},
                 {"compile_log", V.CompileLog},
                 {"input_sets", std::move(Sets)},
                 {"correct", V.Correct},
                 {"accepted", V.Accepted},
                 {"reject_kind", V.RejectKind},
                 {"reason", V.Reason},
                 {"notes", strings(V.Notes)},
                 {"seconds", V.Seconds}};
  if (V.Timing)
    O["timing"] = toJson(*V.Timing);
  return O;
}

bool fromJson(const json::Value &Val, CandidateVerdict &V) {
  const json::Object *O = Val.getAsObject();
  if (!O)
    return false;
  auto S = [&](const json::Object &Ob, const char *K) {
    auto X = Ob.getString(K);
    return X ? X->str() : std::string();
  };
  V.Name = S(*O, "name");
  V.Origin = S(*O, "origin");
  if (auto E = exactnessFromString(S(*O, "exactness")))
    V.Exact = *E;
  V.Compiled = O->getBoolean("compiled").value_or(false);
  V.CompileLog = S(*O, "compile_log");
  V.Correct = O->getBoolean("correct").value_or(false);
  V.Accepted = O->getBoolean("accepted").value_or(false);
  V.RejectKind = S(*O, "reject_kind");
  V.Reason = S(*O, "reason");
  V.Seconds = O->getNumber("seconds").value_or(0);
  if (auto *N = O->getArray("notes"))
    for (auto &X : *N)
      if (auto Str = X.getAsString())
        V.Notes.push_back(Str->str());
  if (auto *Sets = O->getArray("input_sets"))
    for (auto &SV : *Sets) {
      const json::Object *SO = SV.getAsObject();
      if (!SO)
        continue;
      InputSetResult R;
      R.Index = SO->getInteger("index").value_or(0);
      R.Description = S(*SO, "description");
      R.Ok = SO->getBoolean("ok").value_or(false);
      if (auto *P = SO->getArray("problems"))
        for (auto &X : *P)
          if (auto Str = X.getAsString())
            R.Problems.push_back(Str->str());
      if (auto *B = SO->getArray("buffers"))
        for (auto &BV : *B) {
          const json::Object *BO = BV.getAsObject();
          if (!BO)
            continue;
          BufferDiff D;
          D.Buffer = S(*BO, "buffer");
          D.Elements = BO->getInteger("elements").value_or(0);
          D.Mismatches = BO->getInteger("mismatches").value_or(0);
          D.BytesDiffering = BO->getInteger("bytes_differing").value_or(0);
          D.Unwritten = BO->getInteger("unwritten").value_or(0);
          D.FirstBad = BO->getInteger("first_bad").value_or(0);
          D.FirstBadText = S(*BO, "first_bad_text");
          D.MaxAbsErr = BO->getNumber("max_abs_err").value_or(0);
          D.MaxRelErr = BO->getNumber("max_rel_err").value_or(0);
          D.MaxAbsRef = BO->getNumber("max_abs_ref").value_or(0);
          D.MaxUlp = BO->getInteger("max_ulp").value_or(0);
          R.Diffs.push_back(D);
        }
      V.InputSets.push_back(R);
    }
  if (auto *T = O->getObject("timing")) {
    TimingResult TR;
    fromJsonTiming(*T, TR);
    V.Timing = TR;
  }
  return true;
}

json::Value toJson(const VerifyReport &R) {
  json::Array Ks;
  for (const auto &K : R.Kernels) {
    json::Array Cs;
    for (const auto &C : K.Candidates)
      Cs.push_back(toJson(C));
    Ks.push_back(json::Object{{"kernel", K.Kernel},
                              {"file", K.File},
                              {"harness", K.HarnessSource},
                              {"original_deterministic", K.OriginalDeterministic},
                              {"original_spread", K.OriginalSpread},
                              {"candidates", std::move(Cs)}});
  }
  return json::Object{{"tool", R.ToolVersion},
                      {"date", R.Date},
                      {"gpu", toJson(R.Gpu)},
                      {"min_speedup", R.MinSpeedup},
                      {"kernels", std::move(Ks)}};
}

static std::string verifiedText(Exactness E) {
  switch (E) {
  case Exactness::Bitwise: return "bitwise";
  case Exactness::Ulp: return "within ulp tolerance";
  case Exactness::Reassociating: return "within tolerance";
  case Exactness::FastMath: return "within tolerance (fast-math)";
  case Exactness::None: break;
  }
  return "?";
}

std::string formatAnnotation(const GpuInfo &G, const TimingResult &T,
                             const std::string &Applied, Exactness E,
                             unsigned InputSets) {
  std::string L1 =
      formatv("// cuda-l1: {0:f2}x faster on {1} ({2}): {3:f1} us -> {4:f1} "
              "us, median of {5} (95% CI {6:f2}x-{7:f2}x)",
              T.Speedup, G.Name, G.Arch, T.OriginalMedianUs,
              T.CandidateMedianUs, T.Samples, T.CiLow, T.CiHigh)
          .str();
  std::string L2 = formatv("// cuda-l1: applied {0}; verified {1} on {2} "
                           "input sets",
                           Applied, verifiedText(E), InputSets)
                       .str();
  return L1 + "\n" + L2 + "\n";
}

bool parseAnnotation(const std::string &Text, ParsedAnnotation &Out) {
  Regex L1("^// cuda-l1: ([0-9.]+)x faster on (.+) \\((sm_[0-9a-z]+)\\): "
           "([0-9.]+) us -> ([0-9.]+) us, median of ([0-9]+) \\(95% CI "
           "([0-9.]+)x-([0-9.]+)x\\)$");
  Regex L2("^// cuda-l1: applied (.+); verified (.+) on ([0-9]+) input sets$");
  SmallVector<StringRef, 2> Lines;
  StringRef(Text).trim().split(Lines, '\n');
  if (Lines.size() != 2)
    return false;
  SmallVector<StringRef, 10> M1, M2;
  if (!L1.match(Lines[0].trim(), &M1) || !L2.match(Lines[1].trim(), &M2))
    return false;
  auto D = [](StringRef S) {
    double V = 0;
    S.getAsDouble(V);
    return V;
  };
  Out.Speedup = D(M1[1]);
  Out.Gpu = M1[2].str();
  Out.Arch = M1[3].str();
  Out.OriginalUs = D(M1[4]);
  Out.CandidateUs = D(M1[5]);
  M1[6].getAsInteger(10, Out.Samples);
  Out.CiLow = D(M1[7]);
  Out.CiHigh = D(M1[8]);
  Out.Applied = M2[1].str();
  Out.Exactness = M2[2].str();
  M2[3].getAsInteger(10, Out.InputSets);
  return true;
}

void decideAcceptance(CandidateVerdict &V, double MinSpeedup) {
  V.Accepted = false;
  if (!V.RejectKind.empty() || !V.Correct)
    return;
  if (!V.Timing || !V.Timing->Ok) {
    V.RejectKind = "timing";
    V.Reason = V.Timing ? "timing failed: " + V.Timing->Note
                        : "not timed";
    return;
  }
  const TimingResult &T = *V.Timing;
  if (T.FloorUs > 0 && T.CandidateMedianUs < T.FloorUs) {
    V.RejectKind = "too-fast";
    V.Reason = formatv("measured {0} but writing the {1} bytes of its outputs "
                       "takes at least {2} at this GPU's memory bandwidth: "
                       "the measurement does not cover the work",
                       formatTime(T.CandidateMedianUs), T.MinBytes,
                       formatTime(T.FloorUs))
                   .str();
    return;
  }
  if (T.Speedup > MinSpeedup && T.CiLow > 1.0) {
    V.Accepted = true;
    V.Reason = formatv("{0:f2}x faster (95% CI {1:f2}x-{2:f2}x)", T.Speedup,
                       T.CiLow, T.CiHigh)
                   .str();
    if (T.Speedup > 10.0)
      V.Notes.push_back("flagged for review: more than 10x faster");
    return;
  }
  V.RejectKind = "not-faster";
  V.Reason = formatv("{0:f2}x (95% CI {1:f2}x-{2:f2}x): needs > {3:f2}x with "
                     "the CI's lower bound above 1",
                     T.Speedup, T.CiLow, T.CiHigh, MinSpeedup)
                 .str();
}

void printSummaryTable(const VerifyReport &R, raw_ostream &OS) {
  OS << formatv("GPU: {0} ({1}), driver {2}, SM clock {3} MHz at start (max "
                "{4}), memory clock {5} MHz\n",
                R.Gpu.Name, R.Gpu.Arch,
                R.Gpu.DriverVersionText.empty()
                    ? std::to_string(R.Gpu.DriverVersion)
                    : R.Gpu.DriverVersionText,
                R.Gpu.SmClockMHzNow, R.Gpu.SmClockMHzMax,
                R.Gpu.MemClockMHzNow);
  OS << formatv("{0,-24} {1,-28} {2,-9} {3,11} {4,11} {5,8} {6,-15}  {7}\n",
                "kernel", "candidate", "verdict", "original", "candidate",
                "speedup", "95% CI", "reason");
  for (const auto &K : R.Kernels)
    for (const auto &C : K.Candidates) {
      std::string Orig = "-", Cand = "-", Sp = "-", Ci = "-";
      if (C.Timing && C.Timing->Ok) {
        Orig = formatTime(C.Timing->OriginalMedianUs);
        Cand = formatTime(C.Timing->CandidateMedianUs);
        Sp = formatv("{0:f2}x", C.Timing->Speedup).str();
        Ci = formatv("{0:f2}-{1:f2}x", C.Timing->CiLow, C.Timing->CiHigh).str();
      }
      std::string Name = C.Name;
      if (Name.size() > 28)
        Name = "..." + Name.substr(Name.size() - 25);
      OS << formatv("{0,-24} {1,-28} {2,-9} {3,11} {4,11} {5,8} {6,-15}  {7}\n",
                    K.Kernel, Name, C.Accepted ? "ACCEPTED" : "rejected",
                    Orig, Cand, Sp, Ci,
                    C.Accepted ? C.Reason
                               : "[" + C.RejectKind + "] " + C.Reason);
      if (C.Timing && C.Timing->Ok && C.Timing->SmClockAfterMHz)
        OS << formatv("{0,-24} {1,-28} SM clock right after its samples: {2} "
                      "MHz\n",
                      "", "", C.Timing->SmClockAfterMHz);
    }
}

} // namespace cudal1
