//===- ExtractDataTest.cpp - manifest, replaceKernel, file names ----------===//
#include "cudal1/Extract/Extract.h"
#include "gtest/gtest.h"

using namespace cudal1;

TEST(ExtractData, ReplaceKernelSwapsOnlyTheKernel) {
  ExtractedKernel K;
  K.Source = "#include <x>\nstruct S {};\n__global__ void k() {}\n// tail\n";
  K.KernelBegin = K.Source.find("__global__");
  K.KernelEnd = K.Source.find("\n// tail");
  std::string R = replaceKernel(K, "__global__ void k() { int a; }");
  EXPECT_EQ(R, "#include <x>\nstruct S {};\n__global__ void k() { int a; }\n"
               "// tail\n");
}

TEST(ExtractData, ReplaceKernelClampsBadOffsets) {
  ExtractedKernel K;
  K.Source = "abc";
  K.KernelBegin = 10;
  K.KernelEnd = 2;
  EXPECT_EQ(replaceKernel(K, "X"), "abcX");
}

TEST(ExtractData, FileStems) {
  EXPECT_EQ(kernelFileStem("saxpy"), "saxpy");
  EXPECT_EQ(kernelFileStem("ns::inner::k"), "ns__inner__k");
  EXPECT_EQ(kernelFileStem("op<float>"), "op_float_");
  EXPECT_EQ(kernelFileStem(""), "kernel");
}

TEST(ExtractData, ManifestHasEveryField) {
  ExtractedKernel K;
  K.Kernel = "ns::k";
  K.NameExprs = {"ns::k<float>", "ns::k<double>"};
  K.NameExpr = K.NameExprs.front();
  K.IsTemplate = true;
  ParamInfo P;
  P.Name = "x";
  P.Type = "float *";
  P.IsPointer = true;
  P.SizeBytes = 8;
  K.Params.push_back(P);
  CopiedPiece Piece;
  Piece.What = "struct ns::S";
  Piece.Begin = {"/src/a.cu", 3, 1};
  Piece.End = {"/src/a.cu", 5, 2};
  K.Pieces.push_back(Piece);
  CopiedPiece Inc;
  Inc.What = "include <cuda_fp16.h>";
  K.Pieces.push_back(Inc);
  llvm::json::Value V = extractManifest(K, "ns__k.cu");
  const llvm::json::Object *O = V.getAsObject();
  ASSERT_TRUE(O);
  EXPECT_EQ(O->getString("kernel"), "ns::k");
  EXPECT_EQ(O->getString("source"), "ns__k.cu");
  EXPECT_EQ(O->getString("name_expression"), "ns::k<float>");
  EXPECT_EQ(O->getArray("name_expressions")->size(), 2u);
  const llvm::json::Array *Params = O->getArray("parameters");
  ASSERT_TRUE(Params && Params->size() == 1);
  EXPECT_EQ((*Params)[0].getAsObject()->getInteger("size"), 8);
  const llvm::json::Array *Pieces = O->getArray("pieces");
  ASSERT_TRUE(Pieces && Pieces->size() == 2);
  const llvm::json::Object *P0 = (*Pieces)[0].getAsObject();
  EXPECT_EQ(P0->getString("file"), "/src/a.cu");
  EXPECT_EQ(P0->getObject("begin")->getInteger("line"), 3);
  EXPECT_EQ(P0->getObject("end")->getInteger("column"), 2);
  EXPECT_EQ((*Pieces)[1].getAsObject()->getBoolean("synthesized"), true);
  EXPECT_EQ(O->getArray("problems")->size(), 0u);
}
