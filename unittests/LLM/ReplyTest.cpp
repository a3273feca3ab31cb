//===- ReplyTest.cpp - code block, analysis and launch line of a reply ----===//
#include "cudal1/LLM/Reply.h"

#include "gtest/gtest.h"

using namespace cudal1;

TEST(Reply, TakesTheOneCodeBlockAndTheAnalysis) {
  ParsedReply R;
  std::string Problem;
  ASSERT_TRUE(parseReply("Analysis: the writes are strided.\n"
                         "Plan: stage a tile in shared memory.\n"
                         "```cuda\n"
                         "__global__ void k(float *o) { o[0] = 1; }\n"
                         "```\n"
                         "That is all.\n",
                         R, Problem))
      << Problem;
  EXPECT_EQ(R.Code, "__global__ void k(float *o) { o[0] = 1; }\n");
  EXPECT_NE(R.Analysis.find("strided"), std::string::npos);
  EXPECT_NE(R.Analysis.find("That is all."), std::string::npos);
  EXPECT_FALSE(R.Grid);
  EXPECT_FALSE(R.Block);
  EXPECT_EQ(R.launchText(), "");
}

TEST(Reply, AcceptsTildesLongerFencesAndNoLanguage) {
  ParsedReply R;
  std::string Problem;
  ASSERT_TRUE(parseReply("~~~\nint x;\n~~~\n", R, Problem)) << Problem;
  EXPECT_EQ(R.Code, "int x;\n");
  // A fence of four backticks holds a line of three.
  ASSERT_TRUE(parseReply("````c++\na\n```\nb\n````\n", R, Problem)) << Problem;
  EXPECT_EQ(R.Code, "a\n```\nb\n");
}

TEST(Reply, NoCodeBlock) {
  ParsedReply R;
  std::string Problem;
  EXPECT_FALSE(parseReply("I would use shared memory.", R, Problem));
  EXPECT_EQ(Problem, "the reply has no fenced code block: put the complete "
                     "kernel (and any new __device__ helpers) in exactly one "
                     "```cuda block");
}

TEST(Reply, TwoCodeBlocks) {
  ParsedReply R;
  std::string Problem;
  EXPECT_FALSE(parseReply("x\n```cuda\na\n```\ny\n```cuda\nb\n```\n", R,
                          Problem));
  EXPECT_EQ(Problem, "the reply has 2 fenced code blocks (opening on lines 2, "
                     "6); exactly one is required, holding the complete "
                     "kernel and any new __device__ helpers");
}

TEST(Reply, UnclosedAndEmptyBlocks) {
  ParsedReply R;
  std::string Problem;
  EXPECT_FALSE(parseReply("plan\n```cuda\n__global__ void k(", R, Problem));
  EXPECT_NE(Problem.find("the code block opening on line 2 is never closed"),
            std::string::npos)
      << Problem;
  EXPECT_FALSE(parseReply("```cuda\n\n```\n", R, Problem));
  EXPECT_EQ(Problem, "the code block is empty: it must hold the complete "
                     "kernel");
}

TEST(Reply, LaunchChange) {
  ParsedReply R;
  std::string Problem;
  ASSERT_TRUE(parseReply("```cuda\nk\n```\n"
                         "LAUNCH: grid=dim3((grid.x + 1) / 2, grid.y); "
                         "block = dim3(block.x * 2, block.y)\n",
                         R, Problem))
      << Problem;
  ASSERT_TRUE(R.Grid && R.Block);
  EXPECT_EQ(*R.Grid, "dim3((grid.x + 1) / 2, grid.y)");
  EXPECT_EQ(*R.Block, "dim3(block.x * 2, block.y)");
  EXPECT_EQ(R.launchText(), "grid=dim3((grid.x + 1) / 2, grid.y); "
                            "block=dim3(block.x * 2, block.y)");
  // Markdown around it, one side only.
  ASSERT_TRUE(parseReply("```cuda\nk\n```\n**Launch:** `block=block.x * 4`\n",
                         R, Problem))
      << Problem;
  EXPECT_FALSE(R.Grid);
  EXPECT_EQ(*R.Block, "block.x * 4");
}

TEST(Reply, ABadLaunchLineIsAProblem) {
  ParsedReply R;
  std::string Problem;
  EXPECT_FALSE(parseReply("```cuda\nk\n```\nLAUNCH: twice as many threads\n",
                          R, Problem));
  EXPECT_NE(Problem.find("is not 'LAUNCH: grid=<expr>; block=<expr>'"),
            std::string::npos)
      << Problem;
  EXPECT_FALSE(parseReply("```cuda\nk\n```\nLAUNCH: grid=a; grid=b\n", R,
                          Problem));
}

TEST(Reply, NormalisedSourcesIgnoreLayoutAndComments) {
  std::string A = "__global__ void k(float *o) {\n"
                  "  // one\n"
                  "  o[threadIdx.x] = 2.0f; /* two */\n"
                  "}\n";
  std::string B = "__global__  void k( float* o ){ o[ threadIdx.x ]=2.0f; }";
  EXPECT_EQ(normalizeSource(A), normalizeSource(B));
  EXPECT_EQ(normalizeSource(B), "__global__ void k(float*o){o[threadIdx.x]=2.0f;}");
  // A different constant is a different variant; strings keep their text.
  EXPECT_NE(normalizeSource(A), normalizeSource("__global__ void k(float *o) "
                                                "{ o[threadIdx.x] = 3.0f; }"));
  EXPECT_EQ(normalizeSource("printf(\"a // b\");"), "printf(\"a // b\");");
  // A preprocessor line keeps its end.
  EXPECT_EQ(normalizeSource("#define T 32\nint a;"), "#define T 32\nint a;");
}

TEST(Reply, IncludesOfDeviceHeadersOnly) {
  std::vector<std::string> Inc;
  std::string Rest, Problem;
  ASSERT_TRUE(takeIncludes("#include <cuda_fp16.h>\n"
                           "#  include \"cooperative_groups.h\"\n"
                           "__global__ void k() {}\n",
                           Inc, Rest, Problem))
      << Problem;
  EXPECT_EQ(Inc, (std::vector<std::string>{"<cuda_fp16.h>",
                                           "<cooperative_groups.h>"}));
  EXPECT_EQ(Rest, "\n\n__global__ void k() {}\n"); // lines keep their numbers
  Inc.clear();
  EXPECT_FALSE(takeIncludes("int a;\n#include <stdio.h>\n", Inc, Rest,
                            Problem));
  EXPECT_EQ(Problem, "line 2 includes <stdio.h>: only CUDA device headers may "
                     "be included (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h, "
                     "cooperative_groups.h, mma.h, cuda_pipeline.h, "
                     "cuda/barrier, cuda/pipeline, cuda/std/...); the kernel "
                     "is compiled for the device alone");
  EXPECT_FALSE(takeIncludes("#include \"../secrets.h\"\n", Inc, Rest,
                            Problem));
  EXPECT_FALSE(takeIncludes("#include </etc/passwd>\n", Inc, Rest, Problem));
}

TEST(Reply, InlinePtxSubset) {
  std::string Problem;
  EXPECT_TRUE(checkInlinePtx("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];",
                             Problem))
      << Problem;
  EXPECT_TRUE(checkInlinePtx("{\n .reg .pred p;\n setp.ne.s32 p, %1, 0;\n"
                             " @p add.s32 %0, %0, 1;\n}",
                             Problem))
      << Problem;
  EXPECT_TRUE(checkInlinePtx("cp.async.cg.shared.global [%0], [%1], 16;\n"
                             "cp.async.wait_all; // done\n",
                             Problem))
      << Problem;
  EXPECT_TRUE(checkInlinePtx("L1: shfl.sync.bfly.b32 %0, %1, 1, 31, -1;",
                             Problem))
      << Problem;
  EXPECT_FALSE(checkInlinePtx("call.uni (%0), vprintf, (%1, %2);", Problem));
  EXPECT_NE(Problem.find("inline asm uses 'call.uni', which is not in the PTX "
                         "subset"),
            std::string::npos)
      << Problem;
  EXPECT_FALSE(checkInlinePtx("mov.u32 %0, 1;\n trap;", Problem));
  EXPECT_NE(Problem.find("'trap'"), std::string::npos);
  EXPECT_FALSE(checkInlinePtx(".global .u32 stash;", Problem));
  EXPECT_NE(Problem.find("declares '.global'"), std::string::npos);
}
