//===- CaptureManifestTest.cpp - reading capture directories --------------===//
//
// lib/Capture (the verifier's reader) and the launcher's LLVM-free check
// (ManifestCheck) on capture directories the tests write: a valid one,
// then one broken field at a time; both readers must accept the first and
// name the file and the problem for each of the others.
//
//===----------------------------------------------------------------------===//
#include "ManifestCheck.h"
#include "cudal1/Capture/CaptureManifest.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <functional>

using namespace cudal1;
using namespace llvm;

namespace {

void writeFile(const std::string &Path, const std::string &Bytes) {
  std::error_code EC;
  sys::fs::create_directories(sys::path::parent_path(Path));
  raw_fd_ostream OS(Path, EC);
  ASSERT_FALSE(EC) << Path << ": " << EC.message();
  OS << Bytes;
}

std::string bytesOf(std::initializer_list<uint8_t> B) {
  return std::string(B.begin(), B.end());
}

std::string le64(uint64_t V) {
  std::string S(8, '\0');
  for (int I = 0; I < 8; ++I)
    S[I] = static_cast<char>((V >> (8 * I)) & 0xff);
  return S;
}

/// A capture directory: one captured launch of saxpy with two pointers into
/// one allocation and a __constant__ variable, one skipped launch.
class CaptureDir : public ::testing::Test {
protected:
  void SetUp() override {
    SmallString<128> D;
    ASSERT_FALSE(sys::fs::createUniqueDirectory("cudal1-capture-test", D));
    Dir = std::string(D);
    // Parameters: int n (0), float a (4), const float *x (8), float *y (16).
    Params = bytesOf({4, 0, 0, 0, 0, 0, 0x80, 0x3f}) + le64(0x7f0000000000) +
             le64(0x7f0000000010);
    writeFile(Dir + "/launches/0/params.bin", Params);
    writeFile(Dir + "/launches/0/alloc-0.before.bin", std::string(32, '\1'));
    writeFile(Dir + "/launches/0/alloc-0.after.bin", std::string(32, '\2'));
    writeFile(Dir + "/launches/0/global-0.before.bin", std::string(16, '\3'));
    writeFile(Dir + "/launches/0/global-0.after.bin", std::string(16, '\3'));
    Root = json::Object{
        {"format", "cuda-l1-capture"},
        {"version", 1},
        {"tool", "cuda-l1-capture 0.1.0"},
        {"created", "2026-12-01T00:00:00Z"},
        {"process", json::Object{{"pid", 1}, {"complete", true}}},
        {"command", json::Array{"./app", "--n", "4"}},
        {"devices", json::Array{json::Object{{"name", "NVIDIA H200"},
                                             {"computeCapability", "9.0"}}}},
        {"driver", json::Object{{"version", "580.65.06"}, {"cudaVersion", 13000}}},
        {"problems", json::Array{}},
        {"launches",
         json::Array{
             json::Object{
                 {"index", 0},
                 {"status", "captured"},
                 {"kernel", "_Z5saxpyifPKfPf"},
                 {"demangled", "saxpy(int, float, float const*, float*)"},
                 {"api", "cuLaunchKernel"},
                 {"kernelLaunchOrdinal", 0},
                 {"grid", json::Array{1, 1, 1}},
                 {"block", json::Array{4, 1, 1}},
                 {"sharedMemBytes", 0},
                 {"cooperative", false},
                 {"clusterDim", nullptr},
                 {"layout",
                  json::Object{
                      {"source", "demangled"},
                      {"checkedByDriver", true},
                      {"bytes", 24},
                      {"parameters",
                       json::Array{
                           json::Object{{"index", 0}, {"type", "int"}, {"kind", "scalar"},
                                        {"offset", 0}, {"size", 4}, {"align", 4}},
                           json::Object{{"index", 1}, {"type", "float"}, {"kind", "scalar"},
                                        {"offset", 4}, {"size", 4}, {"align", 4}},
                           json::Object{{"index", 2}, {"type", "float const*"},
                                        {"kind", "pointer"}, {"offset", 8}, {"size", 8},
                                        {"align", 8}},
                           json::Object{{"index", 3}, {"type", "float*"},
                                        {"kind", "pointer"}, {"offset", 16}, {"size", 8},
                                        {"align", 8}}}}}},
                 {"params", "launches/0/params.bin"},
                 {"paramsBytes", 24},
                 {"allocations",
                  json::Array{json::Object{{"index", 0},
                                           {"base", "0x7f0000000000"},
                                           {"size", 32},
                                           {"memory", "device"},
                                           {"before", "launches/0/alloc-0.before.bin"},
                                           {"after", "launches/0/alloc-0.after.bin"},
                                           {"changed", true}}}},
                 {"pointers",
                  json::Array{
                      json::Object{{"parameter", 2}, {"paramOffset", 8}, {"allocation", 0},
                                   {"offset", 0}},
                      json::Object{{"parameter", 3}, {"paramOffset", 16}, {"allocation", 0},
                                   {"offset", 16}}}},
                 {"globals",
                  json::Object{
                      {"status", "captured"},
                      {"source", "module image"},
                      {"variables",
                       json::Array{json::Object{{"name", "coef"},
                                                {"kind", "constant"},
                                                {"address", "0x7f0000100000"},
                                                {"size", 16},
                                                {"before", "launches/0/global-0.before.bin"},
                                                {"after", "launches/0/global-0.after.bin"},
                                                {"changed", false}}}}}},
                 {"module", json::Object{{"id", 3}, {"image", "modules/module-3.cubin"}}},
             },
             json::Object{{"index", 1},
                          {"status", "skipped"},
                          {"kernel", "_Z5axpby7Problemi"},
                          {"reason", "parameter layout unknown: ..."}}}}};
    writeManifest();
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }

  void writeManifest() {
    std::string S;
    raw_string_ostream OS(S);
    OS << formatv("{0:2}", json::Value(json::Object(Root)));
    OS.flush();
    writeFile(Dir + "/manifest.json", S);
  }
  json::Object &launch0() { return *(*Root.getArray("launches"))[0].getAsObject(); }

  /// Both readers must reject the directory; lib/Capture's message must
  /// equal \p Want (after the manifest path) and the tool's list must
  /// hold a problem containing \p ToolFragment.
  void expectRejected(const std::string &Want, const std::string &ToolFragment) {
    writeManifest();
    Expected<CaptureManifest> M = readCaptureManifest(Dir);
    ASSERT_FALSE(static_cast<bool>(M)) << "lib/Capture accepted a bad manifest";
    EXPECT_EQ(toString(M.takeError()), Dir + "/manifest.json: " + Want);
    capture::ManifestSummary Sum;
    std::vector<std::string> Problems;
    capjson::Value V;
    bool Read = capture::readManifest(Dir, V, Problems);
    bool Ok = Read && capture::checkManifest(Dir, V, Problems, Sum);
    EXPECT_FALSE(Ok) << "the launcher's check accepted a bad manifest";
    bool Found = false;
    for (const auto &P : Problems)
      Found |= P.find(ToolFragment) != std::string::npos &&
               P.rfind(Dir + "/manifest.json: ", 0) == 0;
    EXPECT_TRUE(Found) << "no problem mentions '" << ToolFragment << "'; got: "
                       << (Problems.empty() ? "" : Problems.front());
  }

  std::string Dir;
  std::string Params;
  json::Object Root;
};

TEST_F(CaptureDir, ReadsAValidCapture) {
  Expected<CaptureManifest> M = readCaptureManifest(Dir);
  ASSERT_TRUE(static_cast<bool>(M)) << toString(M.takeError());
  EXPECT_EQ(M->Version, 1u);
  EXPECT_EQ(M->DeviceName, "NVIDIA H200");
  EXPECT_EQ(M->DriverVersion, "580.65.06");
  EXPECT_TRUE(M->Complete);
  ASSERT_EQ(M->Command.size(), 3u);
  ASSERT_EQ(M->Launches.size(), 2u);
  const CaptureLaunch &L = M->Launches[0];
  EXPECT_TRUE(L.captured());
  EXPECT_EQ(L.Block[0], 4u);
  EXPECT_EQ(L.LayoutSource, "demangled");
  EXPECT_TRUE(L.LayoutCheckedByDriver);
  ASSERT_EQ(L.Params.size(), 4u);
  EXPECT_EQ(L.Params[3].Kind, "pointer");
  ASSERT_EQ(L.Allocations.size(), 1u);
  EXPECT_EQ(L.Allocations[0].OriginalAddress, 0x7f0000000000u);
  ASSERT_EQ(L.Pointers.size(), 2u);
  EXPECT_EQ(L.Pointers[1].Offset, 16u);
  ASSERT_EQ(L.Globals.size(), 1u);
  EXPECT_EQ(L.Globals[0].Name, "coef");
  EXPECT_EQ(L.Globals[0].Memory, "constant");
  EXPECT_EQ(L.ModuleImage, Dir + "/modules/module-3.cubin");
  EXPECT_FALSE(M->Launches[1].captured());
  EXPECT_EQ(M->Launches[1].Reason, "parameter layout unknown: ...");

  capture::ManifestSummary Sum;
  std::vector<std::string> Problems;
  capjson::Value V;
  ASSERT_TRUE(capture::readManifest(Dir, V, Problems));
  EXPECT_TRUE(capture::checkManifest(Dir, V, Problems, Sum))
      << (Problems.empty() ? "" : Problems.front());
  EXPECT_EQ(Sum.Captured, 1u);
  EXPECT_EQ(Sum.Skipped, 1u);
  EXPECT_EQ(Sum.CapturedBytes, 48u);
}

TEST_F(CaptureDir, ReplayDescriptionPlacesPointers) {
  Expected<CaptureManifest> M = readCaptureManifest(Dir);
  ASSERT_TRUE(static_cast<bool>(M)) << toString(M.takeError());
  Expected<ReplayLaunch> R = loadReplayLaunch(*M, M->Launches[0]);
  ASSERT_TRUE(static_cast<bool>(R)) << toString(R.takeError());
  EXPECT_EQ(R->Kernel, "_Z5saxpyifPKfPf");
  EXPECT_EQ(R->ParamBuffer.size(), 24u);
  ASSERT_EQ(R->Allocations.size(), 1u);
  EXPECT_EQ(R->Allocations[0].Before, std::vector<uint8_t>(32, 1));
  EXPECT_EQ(R->Allocations[0].After, std::vector<uint8_t>(32, 2));
  EXPECT_TRUE(R->Allocations[0].Changed);
  ASSERT_EQ(R->Globals.size(), 1u);
  EXPECT_EQ(R->Globals[0].Kind, "constant");
  EXPECT_EQ(R->bytes(), 48u);
  std::vector<uint8_t> P = R->patchedParams({0x5000});
  uint64_t X, Y;
  std::memcpy(&X, P.data() + 8, 8);
  std::memcpy(&Y, P.data() + 16, 8);
  EXPECT_EQ(X, 0x5000u);
  EXPECT_EQ(Y, 0x5010u);
  // Scalars are untouched.
  EXPECT_EQ(std::vector<uint8_t>(P.begin(), P.begin() + 8),
            std::vector<uint8_t>(R->ParamBuffer.begin(), R->ParamBuffer.begin() + 8));
  // A skipped launch has nothing to replay.
  Expected<ReplayLaunch> S = loadReplayLaunch(*M, M->Launches[1]);
  ASSERT_FALSE(static_cast<bool>(S));
  EXPECT_NE(toString(S.takeError()).find("launch 1 (_Z5axpby7Problemi) was not captured"),
            std::string::npos);
}

TEST_F(CaptureDir, LoadsTheLaunchesOfOneKernel) {
  auto Rs = loadCapturedLaunches(Dir, "_Z5saxpyifPKfPf");
  ASSERT_TRUE(static_cast<bool>(Rs)) << toString(Rs.takeError());
  EXPECT_EQ(Rs->size(), 1u);
  auto None = loadCapturedLaunches(Dir, "_Z5axpby7Problemi"); // skipped only
  ASSERT_TRUE(static_cast<bool>(None));
  EXPECT_TRUE(None->empty());
  auto Missing = loadCapturedLaunches(Dir + "/nope", "_Z1kv");
  ASSERT_FALSE(static_cast<bool>(Missing));
  EXPECT_EQ(toString(Missing.takeError()),
            Dir + "/nope: not a capture directory (no such directory)");
}

TEST(CaptureMatch, KernelNames) {
  CaptureLaunch L;
  L.Kernel = "_ZN36_GLOBAL__N__285e78fe_4_a_cu_8ccc0caa5anonkEPf";
  EXPECT_TRUE(matchesKernel(L, "_ZN36_GLOBAL__N__285e78fe_4_a_cu_8ccc0caa5anonkEPf"));
  EXPECT_TRUE(matchesKernel(L, "_ZN12_GLOBAL__N_15anonkEPf")); // Clang's model
  EXPECT_FALSE(matchesKernel(L, "_ZN12_GLOBAL__N_15anonkEPi"));
  L.Kernel = "_Z5skernPf";
  EXPECT_TRUE(matchesKernel(L, "_ZL5skernPf"));
  L.Kernel = "_Z5saxpyifPKfPf";
  EXPECT_FALSE(matchesKernel(L, "_Z5saxpyifPfS_"));
}

TEST_F(CaptureDir, RejectsAnotherFormat) {
  Root["format"] = "something-else";
  expectRejected("\"format\": is 'something-else', not \"cuda-l1-capture\" (not a "
                 "cuda-l1-capture manifest)",
                 "not a cuda-l1-capture manifest");
}

TEST_F(CaptureDir, RejectsAnotherVersion) {
  Root["version"] = 2;
  expectRejected("\"version\": is 2; this build reads version 1", "this tool reads version 1");
}

TEST_F(CaptureDir, RejectsAMissingDataFile) {
  sys::fs::remove(Dir + "/launches/0/alloc-0.after.bin");
  expectRejected("launch 0 (_Z5saxpyifPKfPf): allocation 0: data file "
                 "launches/0/alloc-0.after.bin is missing",
                 "data file launches/0/alloc-0.after.bin is missing");
}

TEST_F(CaptureDir, RejectsADataFileOfTheWrongSize) {
  writeFile(Dir + "/launches/0/params.bin", Params + "x");
  expectRejected("launch 0 (_Z5saxpyifPKfPf): data file launches/0/params.bin has 25 "
                 "bytes, the manifest says 24",
                 "has 25 bytes, the manifest says 24");
}

TEST_F(CaptureDir, RejectsPathsOutsideTheDirectory) {
  (*launch0().getArray("allocations"))[0].getAsObject()->operator[]("before") =
      "../../etc/passwd";
  expectRejected("launch 0 (_Z5saxpyifPKfPf): allocation 0: \"before\" is "
                 "'../../etc/passwd', not a path inside the capture directory",
                 "not a path inside the capture directory");
}

TEST_F(CaptureDir, RejectsAPointerToAMissingAllocation) {
  (*launch0().getArray("pointers"))[1].getAsObject()->operator[]("allocation") = 4;
  expectRejected("launch 0 (_Z5saxpyifPKfPf): pointer 1: \"allocation\" 4 does not exist "
                 "(the launch has 1)",
                 "\"allocation\" 4 does not exist");
}

TEST_F(CaptureDir, RejectsAPointerPastItsAllocation) {
  (*launch0().getArray("pointers"))[0].getAsObject()->operator[]("offset") = 33;
  expectRejected("launch 0 (_Z5saxpyifPKfPf): pointer 0: \"offset\" 33 is past the end of "
                 "allocation 0",
                 "is past the end of allocation 0");
}

TEST_F(CaptureDir, RejectsAPointerOutsideTheParameters) {
  (*launch0().getArray("pointers"))[0].getAsObject()->operator[]("paramOffset") = 20;
  expectRejected("launch 0 (_Z5saxpyifPKfPf): pointer 0: \"paramOffset\" 20 is outside the "
                 "24-byte parameter buffer",
                 "is outside the parameter buffer");
}

TEST_F(CaptureDir, RejectsABadGrid) {
  launch0()["grid"] = json::Array{1, 0, 1};
  expectRejected("launch 0 (_Z5saxpyifPKfPf): \"grid\" is not [x, y, z] of positive integers",
                 "\"grid\" is not [x, y, z]");
}

TEST_F(CaptureDir, RejectsASkippedLaunchWithoutAReason) {
  (*Root.getArray("launches"))[1].getAsObject()->erase("reason");
  expectRejected("launch 1 (_Z5axpby7Problemi): \"reason\" is missing",
                 "a skipped launch has no \"reason\"");
}

TEST_F(CaptureDir, RejectsAnUnknownStatus) {
  launch0()["status"] = "pending";
  expectRejected("launch 0 (_Z5saxpyifPKfPf): \"status\" is 'pending' (expected "
                 "\"captured\" or \"skipped\")",
                 "\"status\" is 'pending'");
}

TEST_F(CaptureDir, RejectsALayoutPastItsBuffer) {
  (*launch0().getObject("layout")->getArray("parameters"))[3].getAsObject()->operator[](
      "offset") = 24;
  expectRejected("launch 0 (_Z5saxpyifPKfPf): layout parameter 3: ends at byte 32, past "
                 "the layout's 24 bytes",
                 "ends past the parameter buffer");
}

TEST(CaptureRead, NotJsonNamesTheFile) {
  SmallString<128> D;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("cudal1-capture-test", D));
  std::string Dir(D);
  writeFile(Dir + "/manifest.json", "{\"format\": ");
  Expected<CaptureManifest> M = readCaptureManifest(Dir);
  ASSERT_FALSE(static_cast<bool>(M));
  std::string E = toString(M.takeError());
  EXPECT_EQ(E.rfind(Dir + "/manifest.json: not valid JSON: ", 0), 0u) << E;
  sys::fs::remove(Dir + "/manifest.json");
  M = readCaptureManifest(Dir);
  ASSERT_FALSE(static_cast<bool>(M));
  E = toString(M.takeError());
  EXPECT_EQ(E.rfind(Dir + "/manifest.json: cannot read the capture manifest", 0), 0u) << E;
  sys::fs::remove_directories(Dir);
}

/// Captures from a GPU machine (utils/gpu-capture-check.sh) read by the
/// verifier's reader: CUDAL1_CAPTURE_DIRS=<dir>:<dir>... Skipped without.
TEST(CaptureRead, RealCaptures) {
  const char *Dirs = std::getenv("CUDAL1_CAPTURE_DIRS");
  if (!Dirs || !*Dirs)
    GTEST_SKIP() << "CUDAL1_CAPTURE_DIRS not set (capture directories from a GPU run)";
  SmallVector<StringRef, 8> Parts;
  StringRef(Dirs).split(Parts, ':', -1, false);
  for (StringRef D : Parts) {
    Expected<CaptureManifest> M = readCaptureManifest(D);
    ASSERT_TRUE(static_cast<bool>(M)) << toString(M.takeError());
    unsigned Loaded = 0;
    for (const auto &L : M->Launches) {
      if (!L.captured())
        continue;
      Expected<ReplayLaunch> R = loadReplayLaunch(*M, L);
      ASSERT_TRUE(static_cast<bool>(R)) << toString(R.takeError());
      ++Loaded;
    }
    std::printf("%s: %zu launches, %u loaded for replay\n", D.str().c_str(),
                M->Launches.size(), Loaded);
  }
}

} // namespace
