//===- FixCandidateTest.cpp - fixes as candidates; harness selection ------===//
#include "cudal1/Verify/FixCandidate.h"
#include "cudal1/Verify/HarnessSelect.h"

#include "gtest/gtest.h"

using namespace cudal1;

namespace {
TextEdit edit(unsigned Off, unsigned Len, std::string R) {
  return {"/f.cu", Off, Len, std::move(R)};
}
} // namespace

TEST(FixCandidate, OffsetOfLineColumn) {
  std::string T = "ab\ncde\n\nf";
  EXPECT_EQ(offsetOfLineColumn(T, 1, 1), 0u);
  EXPECT_EQ(offsetOfLineColumn(T, 2, 2), 4u);
  EXPECT_EQ(offsetOfLineColumn(T, 4, 1), 8u);
  EXPECT_EQ(offsetOfLineColumn(T, 9, 1), T.size());
}

TEST(FixCandidate, LocateKernelTextNearestOccurrence) {
  std::string K = "__global__ void k() {}";
  std::string F = K + "\n#if 0\n" + K + "\n#endif\n";
  EXPECT_EQ(*locateKernelText(F, K, 0), 0u);
  EXPECT_EQ(*locateKernelText(F, K, F.size()), F.find(K, 1));
  EXPECT_FALSE(locateKernelText(F, "__global__ void other() {}", 0));
  EXPECT_FALSE(locateKernelText(F, "", 0));
}

TEST(FixCandidate, EditsAppliedInsideTheKernel) {
  std::string F = "int a;\n__global__ void k(float *p) { p[0] = powf(p[1], 2); }\n";
  std::string K = "__global__ void k(float *p) { p[0] = powf(p[1], 2); }";
  size_t B = F.find(K);
  size_t P = F.find("powf(p[1], 2)");
  std::string Out, Why;
  ASSERT_TRUE(applyEditsToKernel(
      K, B, {edit(P, 13, "(p[1]) * (p[1])"), edit(F.find("float"), 0, "const ")},
      Out, Why))
      << Why;
  EXPECT_EQ(Out, "__global__ void k(const float *p) { p[0] = (p[1]) * (p[1]); }");
}

TEST(FixCandidate, EditsOutsideTheKernelOrOverlappingAreRefused) {
  std::string F = "int a;\n__global__ void k() { }\nvoid h() { k<<<1, 1>>>(); }\n";
  std::string K = "__global__ void k() { }";
  size_t B = F.find(K);
  std::string Out, Why;
  EXPECT_FALSE(applyEditsToKernel(K, B, {edit(F.find("1, 1"), 1, "2")}, Out,
                                  Why));
  EXPECT_NE(Why.find("outside the kernel"), std::string::npos);
  EXPECT_FALSE(applyEditsToKernel(K, B,
                                  {edit(B + 2, 4, "x"), edit(B + 3, 4, "y")},
                                  Out, Why));
  EXPECT_NE(Why.find("overlap"), std::string::npos);
}

TEST(FixCandidate, EditsOverlap) {
  EXPECT_TRUE(editsOverlap({edit(10, 5, "")}, {edit(12, 1, "")}));
  EXPECT_FALSE(editsOverlap({edit(10, 5, "")}, {edit(15, 1, "")}));
  EXPECT_TRUE(editsOverlap({edit(10, 0, "a")}, {edit(10, 0, "b")}));
  EXPECT_FALSE(editsOverlap({edit(10, 0, "a")}, {edit(10, 3, "b")}));
  EXPECT_TRUE(editsOverlap({edit(11, 0, "a")}, {edit(10, 3, "b")}));
  TextEdit Other = edit(10, 5, "");
  Other.File = "/g.cu";
  EXPECT_FALSE(editsOverlap({edit(10, 5, "")}, {Other}));
}

TEST(FixCandidate, AnnotationInsertedAboveTheKernelLine) {
  std::string F = "#include <x>\n\n__global__ void k() {}\n";
  size_t K = F.find("__global__");
  TextEdit E = annotationEdit(F, "/f.cu", K + 5, "// cuda-l1: a\n// cuda-l1: b\n");
  std::string Out = F;
  Out.replace(E.Offset, E.Length, E.Replacement);
  EXPECT_EQ(Out, "#include <x>\n\n// cuda-l1: a\n// cuda-l1: b\n"
                 "__global__ void k() {}\n");
  // The edit does not start at the declaration: a fix inserting there does
  // not collide with it.
  EXPECT_LT(E.Offset + E.Length, K + 1);
  EXPECT_FALSE(editsOverlap({E}, {edit(K, 0, "__launch_bounds__(256) ")}));

  // Running again replaces the annotation instead of stacking a second one.
  size_t K2 = Out.find("__global__");
  TextEdit E2 = annotationEdit(Out, "/f.cu", K2, "// cuda-l1: c\n// cuda-l1: d\n");
  std::string Out2 = Out;
  Out2.replace(E2.Offset, E2.Length, E2.Replacement);
  EXPECT_EQ(Out2, "#include <x>\n\n// cuda-l1: c\n// cuda-l1: d\n"
                  "__global__ void k() {}\n");
  // The same annotation again: no change at all (idempotent).
  TextEdit E3 = annotationEdit(Out2, "/f.cu", Out2.find("__global__"),
                               "// cuda-l1: c\n// cuda-l1: d\n");
  std::string Out3 = Out2;
  Out3.replace(E3.Offset, E3.Length, E3.Replacement);
  EXPECT_EQ(Out3, Out2);
}

TEST(FixCandidate, AnnotationAtTheTopOfTheFileAndOtherComments) {
  std::string F = "__global__ void k() {}\n";
  TextEdit E = annotationEdit(F, "/f.cu", 0, "// cuda-l1: a\n");
  std::string Out = F;
  Out.replace(E.Offset, E.Length, E.Replacement);
  EXPECT_EQ(Out, "// cuda-l1: a\n__global__ void k() {}\n");
  TextEdit E2 = annotationEdit(Out, "/f.cu", Out.find("__global__"), "// cuda-l1: b\n");
  Out.replace(E2.Offset, E2.Length, E2.Replacement);
  EXPECT_EQ(Out, "// cuda-l1: b\n__global__ void k() {}\n");
  // Ordinary comments above the kernel stay; only annotation lines go.
  std::string G = "// doc\n// cuda-l1: old\ntemplate <int N>\n__global__ void k() {}\n";
  TextEdit E3 = annotationEdit(G, "/f.cu", G.find("template"), "// cuda-l1: new\n");
  G.replace(E3.Offset, E3.Length, E3.Replacement);
  EXPECT_EQ(G, "// doc\n// cuda-l1: new\ntemplate <int N>\n__global__ void k() {}\n");
  EXPECT_TRUE(isAnnotationLine("  // cuda-l1: x"));
  EXPECT_FALSE(isAnnotationLine("// cuda-l1 x"));
  EXPECT_FALSE(isAnnotationLine("int a; // cuda-l1: x"));
}

TEST(HarnessSelect, EntryForAKernel) {
  std::string Many = "kernels:\n  scale: { grid: 1, block: 1 }\n"
                     "  ns::other: { grid: 1, block: 1 }\n";
  EXPECT_EQ(harnessSpecEntry(Many, "scale"), "scale");
  EXPECT_EQ(harnessSpecEntry(Many, "app::scale"), "scale");
  EXPECT_EQ(harnessSpecEntry(Many, "ns::other"), "ns::other");
  EXPECT_FALSE(harnessSpecEntry(Many, "missing"));
  std::string One = "kernel: scale\ngrid: 1\nblock: 1\n";
  EXPECT_EQ(harnessSpecEntry(One, "scale"), "scale");
  EXPECT_FALSE(harnessSpecEntry(One, "saxpy"));
  // No name: a spec for whichever kernel is verified.
  EXPECT_EQ(harnessSpecEntry("grid: 1\nblock: 1\n", "ns::k"), "k");
  // Not YAML, or not a mapping: the spec parser reports it.
  EXPECT_EQ(harnessSpecEntry("grid: [1, \n", "k"), "k");
  EXPECT_EQ(harnessSpecEntry("- a\n", "k"), "k");
  // Blanked-out configuration text (only the Harness: value left).
  EXPECT_EQ(harnessSpecEntry("              \n  kernels:\n    k: {grid: 1}\n", "k"),
            "k");
  EXPECT_EQ(simpleKernelName("a::b::c"), "c");
  EXPECT_EQ(simpleKernelName("c"), "c");
}

TEST(HarnessSelect, ConfigErrorsNameTheHarnessField) {
  EXPECT_EQ(configHarnessError("/p/.cuda-l1.yaml:7:9: kernels.k.params.z: no "
                               "such parameter",
                               "/p/.cuda-l1.yaml"),
            "/p/.cuda-l1.yaml:7:9: Harness.kernels.k.params.z: no such "
            "parameter");
  EXPECT_EQ(configHarnessError("/p/c.yaml:3:1: expected a mapping (kernel:, x)",
                               "/p/c.yaml"),
            "/p/c.yaml:3:1: Harness: expected a mapping (kernel:, x)");
  EXPECT_EQ(configHarnessError("other: x", "/p/c.yaml"), "Harness: other: x");
}
