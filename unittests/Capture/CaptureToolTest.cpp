//===- CaptureToolTest.cpp - the LLVM-free pieces of cuda-l1-capture ------===//
//
// MiniJson, parameter layouts (demangled names, the kernel model), cubin
// symbols and kernel-name normalisation: what the injection library decides
// inside the user's process, tested without a GPU.
//
//===----------------------------------------------------------------------===//
#include "cudal1/Capture/CubinSymbols.h"
#include "Layout.h"
#include "MiniJson.h"
#include "cudal1/Capture/CaptureFormat.h"

#include "gtest/gtest.h"

#include <fstream>
#include <sstream>

using namespace cudal1;
using namespace cudal1::capture;
using capjson::Value;

namespace {

std::string inputPath(const std::string &Rel) {
  return std::string(CUDAL1_CAPTURE_TEST_INPUTS) + "/" + Rel;
}

std::string readAll(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

//===----------------------------------------------------------------------===//
// MiniJson
//===----------------------------------------------------------------------===//

TEST(CaptureMiniJson, ParsesAndWritesBack) {
  Value V;
  std::string Err;
  ASSERT_TRUE(capjson::parse(
      R"({"a": [1, -2, 3.5, true, null], "s": "x\"y\\n\u00e9\ud83d\ude00", "o": {}})", V,
      Err))
      << Err;
  ASSERT_EQ(V.kind(), Value::Object);
  const Value *A = V.get("a");
  ASSERT_TRUE(A && A->kind() == Value::Array);
  ASSERT_EQ(A->elements().size(), 5u);
  uint64_t U;
  int64_t I;
  EXPECT_TRUE(A->elements()[0].getUInt(U) && U == 1);
  EXPECT_FALSE(A->elements()[1].getUInt(U));
  EXPECT_TRUE(A->elements()[1].getInt(I) && I == -2);
  EXPECT_FALSE(A->elements()[2].getUInt(U)); // not an integer
  EXPECT_DOUBLE_EQ(A->elements()[2].asDouble(), 3.5);
  EXPECT_EQ(V.get("s")->str(), "x\"y\\n\xc3\xa9\xf0\x9f\x98\x80");
  // Round trip.
  Value W;
  ASSERT_TRUE(capjson::parse(capjson::write(V), W, Err)) << Err;
  EXPECT_EQ(capjson::write(W), capjson::write(V));
  EXPECT_EQ(capjson::write(V, 0),
            "{\"a\":[1,-2,3.5,true,null],\"s\":\"x\\\"y\\\\n\xc3\xa9\xf0\x9f\x98\x80\",\"o\":{}}");
}

TEST(CaptureMiniJson, KeepsSixtyFourBitIntegersExact) {
  Value V;
  std::string Err;
  ASSERT_TRUE(capjson::parse("[18446744073709551615, 9007199254740993, -9223372036854775808]",
                             V, Err));
  uint64_t U;
  int64_t I;
  ASSERT_TRUE(V.elements()[0].getUInt(U));
  EXPECT_EQ(U, 18446744073709551615ULL);
  ASSERT_TRUE(V.elements()[1].getUInt(U));
  EXPECT_EQ(U, 9007199254740993ULL); // not representable as a double
  ASSERT_TRUE(V.elements()[2].getInt(I));
  EXPECT_EQ(I, INT64_MIN);
  EXPECT_EQ(capjson::write(Value(18446744073709551615ULL), 0), "18446744073709551615");
}

TEST(CaptureMiniJson, ErrorsSayLineAndColumn) {
  Value V;
  std::string Err;
  EXPECT_FALSE(capjson::parse("{\n  \"a\": [1, 2,]\n}", V, Err));
  EXPECT_EQ(Err, "line 2, column 14: unexpected character ']'");
  EXPECT_FALSE(capjson::parse("{\"a\": 1, \"a\": 2}", V, Err));
  EXPECT_NE(Err.find("duplicate key \"a\""), std::string::npos) << Err;
  EXPECT_FALSE(capjson::parse("[1] x", V, Err));
  EXPECT_NE(Err.find("unexpected text after"), std::string::npos) << Err;
  EXPECT_FALSE(capjson::parse("\"abc", V, Err));
  EXPECT_NE(Err.find("unterminated string"), std::string::npos) << Err;
  EXPECT_FALSE(capjson::parse("01", V, Err));
  EXPECT_FALSE(capjson::parse("", V, Err));
  std::string Deep(1000, '[');
  EXPECT_FALSE(capjson::parse(Deep, V, Err));
  EXPECT_NE(Err.find("nesting too deep"), std::string::npos) << Err;
}

TEST(CaptureMiniJson, SetReplacesInPlace) {
  Value O = Value::object();
  O.set("a", 1);
  O.set("b", "x");
  O.set("a", 2);
  EXPECT_EQ(capjson::write(O, 0), "{\"a\":2,\"b\":\"x\"}");
}

//===----------------------------------------------------------------------===//
// Kernel names and paths
//===----------------------------------------------------------------------===//

TEST(CaptureFormat, NormalizesAnonymousNamespacesAndInternalLinkage) {
  // nvcc/NVRTC (EDG) and Clang spell the anonymous namespace differently.
  EXPECT_EQ(normalizeKernelName("_ZN36_GLOBAL__N__285e78fe_4_a_cu_8ccc0caa5anonkEPf"),
            "_ZN12_GLOBAL__N_15anonkEPf");
  EXPECT_EQ(normalizeKernelName("_ZN12_GLOBAL__N_15anonkEPf"), "_ZN12_GLOBAL__N_15anonkEPf");
  // Two different EDG hashes of the same kernel agree once normalised.
  EXPECT_EQ(normalizeKernelName("_ZN36_GLOBAL__N__11111111_4_a_cu_222222225anonkEPf"),
            normalizeKernelName("_ZN36_GLOBAL__N__285e78fe_4_a_cu_8ccc0caa5anonkEPf"));
  // Nested inside a named namespace whose name ends in digits.
  EXPECT_EQ(normalizeKernelName("_ZN3ns136_GLOBAL__N__285e78fe_4_a_cu_8ccc0caa1kEv"),
            "_ZN3ns112_GLOBAL__N_11kEv");
  // Internal linkage.
  EXPECT_EQ(normalizeKernelName("_ZL5skernPf"), "_Z5skernPf");
  // Everything else is left alone.
  EXPECT_EQ(normalizeKernelName("_Z6saxpyifPKfPf"), "_Z6saxpyifPKfPf");
  EXPECT_EQ(normalizeKernelName("_Z2tkIfEvPT_S0_"), "_Z2tkIfEvPT_S0_");
  EXPECT_EQ(normalizeKernelName("plain_c_kernel"), "plain_c_kernel");
  EXPECT_EQ(normalizeKernelName("_Z3fooP11_GLOBAL__N_x"), "_Z3fooP11_GLOBAL__N_x");
}

TEST(CaptureFormat, ContainedRelativePaths) {
  EXPECT_TRUE(isContainedRelativePath("launches/0/params.bin"));
  EXPECT_TRUE(isContainedRelativePath("a..b/c"));
  EXPECT_FALSE(isContainedRelativePath(""));
  EXPECT_FALSE(isContainedRelativePath("/etc/passwd"));
  EXPECT_FALSE(isContainedRelativePath("../x"));
  EXPECT_FALSE(isContainedRelativePath("launches/../../x"));
  EXPECT_FALSE(isContainedRelativePath("launches/.."));
}

//===----------------------------------------------------------------------===//
// Layouts from demangled names
//===----------------------------------------------------------------------===//

TEST(CaptureLayout, DemanglesRealKernelNames) {
  EXPECT_EQ(demangle("_Z11matvec_rowsPKfS0_Pfii"),
            "matvec_rows(float const*, float const*, float*, int, int)");
  EXPECT_EQ(demangle("_Z2tkIfEvPT_S0_"), "void tk<float>(float*, float)");
  EXPECT_EQ(demangle("not_mangled"), "");
}

TEST(CaptureLayout, SplitsParameterLists) {
  std::vector<std::string> T;
  ASSERT_TRUE(splitDemangledParams("void tk<float, 3>(float*, std::pair<int, int>, "
                                   "void (*)(int, int), int (*) [4])",
                                   T));
  ASSERT_EQ(T.size(), 4u);
  EXPECT_EQ(T[0], "float*");
  EXPECT_EQ(T[1], "std::pair<int, int>");
  EXPECT_EQ(T[2], "void (*)(int, int)");
  EXPECT_EQ(T[3], "int (*) [4]");
  ASSERT_TRUE(splitDemangledParams("(anonymous namespace)::k()", T));
  EXPECT_TRUE(T.empty());
  EXPECT_FALSE(splitDemangledParams("plain_c_kernel", T));
}

TEST(CaptureLayout, ClassifiesTypes) {
  uint64_t S, A;
  ParamKind K;
  ASSERT_TRUE(classifyType("float const*", S, A, K));
  EXPECT_EQ(K, ParamKind::Pointer);
  EXPECT_EQ(S, 8u);
  ASSERT_TRUE(classifyType("const float *__restrict", S, A, K));
  EXPECT_EQ(K, ParamKind::Pointer);
  ASSERT_TRUE(classifyType("unsigned long long", S, A, K));
  EXPECT_EQ(K, ParamKind::Scalar);
  EXPECT_EQ(S, 8u);
  ASSERT_TRUE(classifyType("const int", S, A, K));
  EXPECT_EQ(S, 4u);
  ASSERT_TRUE(classifyType("float4", S, A, K));
  EXPECT_EQ(S, 16u);
  EXPECT_EQ(A, 16u);
  ASSERT_TRUE(classifyType("float3", S, A, K));
  EXPECT_EQ(S, 12u);
  EXPECT_EQ(A, 4u);
  ASSERT_TRUE(classifyType("double4", S, A, K));
  EXPECT_EQ(S, 32u);
  EXPECT_EQ(A, 16u);
  ASSERT_TRUE(classifyType("double4_32a", S, A, K));
  EXPECT_EQ(A, 32u);
  ASSERT_TRUE(classifyType("__half", S, A, K));
  EXPECT_EQ(S, 2u);
  ASSERT_TRUE(classifyType("size_t", S, A, K));
  EXPECT_EQ(S, 8u);
  EXPECT_FALSE(classifyType("Params", S, A, K));
  EXPECT_FALSE(classifyType("struct Params", S, A, K));
  EXPECT_FALSE(classifyType("Mode", S, A, K)); // an enum: size unknown
  EXPECT_FALSE(classifyType("float&", S, A, K));
}

TEST(CaptureLayout, OffsetsFollowAlignment) {
  KernelLayout L;
  std::string Why;
  ASSERT_TRUE(layoutFromDemangled("k(char, double, int, float4, short, float*)", L, Why))
      << Why;
  EXPECT_EQ(L.Source, "demangled");
  ASSERT_EQ(L.Params.size(), 6u);
  EXPECT_EQ(L.Params[0].Offset, 0u);
  EXPECT_EQ(L.Params[1].Offset, 8u);
  EXPECT_EQ(L.Params[2].Offset, 16u);
  EXPECT_EQ(L.Params[3].Offset, 32u);
  EXPECT_EQ(L.Params[4].Offset, 48u);
  EXPECT_EQ(L.Params[5].Offset, 56u);
  EXPECT_EQ(L.Params[5].Kind, ParamKind::Pointer);
  EXPECT_EQ(L.Bytes, 64u);
  ASSERT_TRUE(layoutFromDemangled("void tk<int>(int*, int)", L, Why));
  EXPECT_EQ(L.Bytes, 12u);
  ASSERT_TRUE(layoutFromDemangled("noargs()", L, Why));
  EXPECT_EQ(L.Bytes, 0u);
}

TEST(CaptureLayout, StructParametersNeedTheModel) {
  KernelLayout L;
  std::string Why;
  EXPECT_FALSE(layoutFromDemangled("axpby(Problem, int)", L, Why));
  EXPECT_NE(Why.find("parameter 0 has type 'Problem'"), std::string::npos) << Why;
  EXPECT_NE(Why.find("--model"), std::string::npos) << Why;
}

TEST(CaptureLayout, ComparesWithTheDriver) {
  KernelLayout L;
  std::string Why;
  ASSERT_TRUE(layoutFromDemangled("k(float*, int, double)", L, Why));
  EXPECT_EQ(compareLayouts(L, {0, 8, 16}, {8, 4, 8}), "");
  EXPECT_EQ(compareLayouts(L, {0, 8}, {8, 4}),
            "the demangled layout has 3 parameters, the driver 2");
  EXPECT_EQ(compareLayouts(L, {0, 8, 12}, {8, 4, 8}),
            "parameter 2 ('double'): the demangled layout says offset 16 size 8, "
            "the driver offset 12 size 8");
}

//===----------------------------------------------------------------------===//
// The kernel model
//===----------------------------------------------------------------------===//

TEST(CaptureModel, ReadsListKernelsOutput) {
  KernelModel M;
  std::string Err;
  ASSERT_TRUE(M.load(inputPath("cubin/symbols.model.json"), Err)) << Err;
  // The template's instantiations are kernels of their own.
  const ModelKernel *TF = M.find("_Z2tkIfEvPT_S0_");
  ASSERT_TRUE(TF);
  ASSERT_EQ(TF->Params.size(), 2u);
  EXPECT_TRUE(TF->Params[0].IsPointer);
  EXPECT_EQ(TF->Params[1].Size, 4u);
  ASSERT_TRUE(M.find("_Z2tkIiEvPT_S0_"));
  // Found with nvcc's spelling of the static and anonymous-namespace names.
  const ModelKernel *S = M.find("_Z5skernPf");
  ASSERT_TRUE(S);
  ASSERT_EQ(S->Globals.size(), 2u);
  EXPECT_EQ(S->Globals[0].Symbol, "coef");
  EXPECT_EQ(S->Globals[0].Kind, "constant");
  const ModelKernel *A = M.find("_ZN36_GLOBAL__N__285e78fe_4_a_cu_8ccc0caa5anonkEPf");
  ASSERT_TRUE(A);
  ASSERT_EQ(A->Globals.size(), 1u);
  EXPECT_EQ(A->Globals[0].Symbol, "_ZN2ns6scale_E"); // as in the cubin
  EXPECT_FALSE(M.find("_Z7missingv"));
}

TEST(CaptureModel, StructParametersAreAggregates) {
  const char *Model = R"({"kernels": [{
    "mangledName": "_Z5axpby7Problemi", "file": "s.cu",
    "parameters": [
      {"name": "p", "type": "Problem", "isPointer": false, "sizeBytes": 32, "alignBytes": 8},
      {"name": "n", "type": "int", "isPointer": false, "sizeBytes": 4, "alignBytes": 4}],
    "instantiations": [], "variables": [
      {"name": "tbl", "qualifiedName": "tbl", "kind": "constant", "local": false},
      {"name": "s", "qualifiedName": "s", "kind": "shared", "local": false},
      {"name": "a", "qualifiedName": "(anonymous namespace)::a", "kind": "device", "local": false}]}]})";
  KernelModel M;
  std::string Err;
  ASSERT_TRUE(M.loadText(Model, "m.json", Err)) << Err;
  const ModelKernel *K = M.find("_Z5axpby7Problemi");
  ASSERT_TRUE(K);
  KernelLayout L;
  std::string Why;
  ASSERT_TRUE(layoutFromModel(*K, L, Why)) << Why;
  EXPECT_EQ(L.Source, "model");
  EXPECT_EQ(L.Params[0].Kind, ParamKind::Aggregate);
  EXPECT_EQ(L.Params[1].Kind, ParamKind::Scalar);
  EXPECT_EQ(L.Params[1].Offset, 32u);
  EXPECT_EQ(L.Bytes, 36u);
  // Shared variables are not module variables; an anonymous namespace's
  // symbol cannot be known.
  ASSERT_EQ(K->Globals.size(), 2u);
  EXPECT_EQ(K->Globals[0].Symbol, "tbl");
  EXPECT_EQ(K->Globals[1].Symbol, "");
}

TEST(CaptureModel, DependentSizesAreRefused) {
  const char *Model = R"({"kernels": [{"mangledName": "_Z1kv", "parameters": [
      {"name": "x", "type": "T", "isPointer": false, "sizeBytes": null, "alignBytes": null}]}]})";
  KernelModel M;
  std::string Err;
  ASSERT_TRUE(M.loadText(Model, "m.json", Err)) << Err;
  KernelLayout L;
  std::string Why;
  EXPECT_FALSE(layoutFromModel(*M.find("_Z1kv"), L, Why));
  EXPECT_EQ(Why, "the model gives no size for parameter 0 ('T x')");
}

TEST(CaptureModel, BadModelsNameTheFile) {
  KernelModel M;
  std::string Err;
  EXPECT_FALSE(M.loadText("{\"kernels\": 3}", "m.json", Err));
  EXPECT_EQ(Err, "m.json: no \"kernels\" array (expected the output of cuda-l1-rewrite "
                 "--list-kernels --format=json)");
  EXPECT_FALSE(M.loadText("{", "m.json", Err));
  EXPECT_EQ(Err.rfind("m.json: not JSON: line 1, column 2", 0), 0u) << Err;
  EXPECT_FALSE(M.load("/nonexistent/model.json", Err));
  EXPECT_EQ(Err, "/nonexistent/model.json: cannot read the kernel model");
}

TEST(CaptureModel, GlobalSymbolNames) {
  EXPECT_EQ(globalSymbolName("coef"), "coef");
  EXPECT_EQ(globalSymbolName("::coef"), "coef");
  EXPECT_EQ(globalSymbolName("ns::scale_"), "_ZN2ns6scale_E");
  EXPECT_EQ(globalSymbolName("a::bb::c"), "_ZN1a2bb1cE");
  EXPECT_EQ(globalSymbolName("(anonymous namespace)::x"), "");
  EXPECT_EQ(globalSymbolName("S<int>::x"), "");
}

//===----------------------------------------------------------------------===//
// Cubin symbols
//===----------------------------------------------------------------------===//

TEST(CaptureCubin, ListsKernelsAndVariables) {
  std::string Image = readAll(inputPath("cubin/symbols.cubin"));
  ASSERT_TRUE(looksLikeElf64(Image.data(), Image.size()));
  CubinSymbols S;
  std::string Err;
  ASSERT_TRUE(readCubinSymbols(Image.data(), Image.size(), S, Err)) << Err;
  auto Has = [](const std::vector<std::string> &V, const std::string &X) {
    return std::find(V.begin(), V.end(), X) != V.end();
  };
  EXPECT_TRUE(Has(S.Kernels, "_Z1kPfi"));
  EXPECT_TRUE(Has(S.Kernels, "_Z5skernPf"));
  EXPECT_TRUE(Has(S.Kernels, "_Z2tkIfEvPT_S0_"));
  EXPECT_TRUE(Has(S.Kernels, "_Z2tkIiEvPT_S0_"));
  EXPECT_EQ(S.Kernels.size(), 5u);
  std::map<std::string, CubinGlobal> G;
  for (const auto &V : S.Globals)
    G[V.Name] = V;
  ASSERT_EQ(G.size(), 4u);
  EXPECT_TRUE(G["coef"].isConstant());
  EXPECT_EQ(G["coef"].Size, 16u);
  EXPECT_FALSE(G["counter"].isConstant());
  EXPECT_EQ(G["counter"].Size, 4u);
  EXPECT_EQ(G["_ZN2ns6scale_E"].Section, ".nv.global.init");
  EXPECT_TRUE(G.count("hidden"));
  // Register counts as `ptxas -v` prints them for this image.
  EXPECT_EQ(S.Registers["_Z1kPfi"], 12u);
  EXPECT_EQ(S.Registers["_Z5skernPf"], 10u);
  EXPECT_EQ(S.Registers["_Z2tkIfEvPT_S0_"], 8u);
  EXPECT_EQ(S.Registers["_Z2tkIiEvPT_S0_"], 8u);
  // Machine code: each function's .text section (sizes as readelf -S
  // lists them; SASS instructions are 16 bytes).
  ASSERT_EQ(S.Code.size(), 5u);
  EXPECT_EQ(S.Code["_Z1kPfi"].size(), 0x180u);
  EXPECT_EQ(S.Code["_Z5skernPf"].size(), 0x180u);
  EXPECT_EQ(S.Code["_Z2tkIfEvPT_S0_"].size(), 0x100u);
  // tk<int> and tk<float> store 4 bytes alike: the same machine code; k
  // and skern differ.
  EXPECT_EQ(S.Code["_Z2tkIiEvPT_S0_"], S.Code["_Z2tkIfEvPT_S0_"]);
  EXPECT_NE(S.Code["_Z1kPfi"], S.Code["_Z5skernPf"]);
  EXPECT_EQ(S.Code["_Z1kPfi"],
            Image.substr(0x1580, 0x180)); // the bytes at the section's offset
}

TEST(CaptureCubin, MalformedImagesAreErrorsNotCrashes) {
  std::string Image = readAll(inputPath("cubin/symbols.cubin"));
  CubinSymbols S;
  std::string Err;
  EXPECT_FALSE(readCubinSymbols("not an elf", 10, S, Err));
  EXPECT_EQ(Err, "not an ELF64 image");
  // Every truncation of a real image either reads or fails cleanly.
  for (size_t N = 0; N < Image.size(); N += 97) {
    std::string Cut = Image.substr(0, N);
    readCubinSymbols(Cut.data(), Cut.size(), S, Err);
  }
  // Corrupt section offsets.
  std::string Bad = Image;
  for (size_t I = 0x28; I < 0x30; ++I)
    Bad[I] = '\xff'; // e_shoff
  EXPECT_FALSE(readCubinSymbols(Bad.data(), Bad.size(), S, Err));
}

} // namespace
