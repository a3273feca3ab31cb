//===- DiagnosticsTest.cpp - findings as LSP diagnostics and actions ------===//
#include "cudal1/LSP/Diagnostics.h"
#include "cudal1/LSP/Protocol.h"

#include "gtest/gtest.h"

using namespace cudal1;
using namespace cudal1::lsp;
using llvm::json::Object;
using llvm::json::Value;

namespace {

const char *Src = "__global__ void k(float *o) {\n"
                  "  o[0] = o[1] * 0.5;\n"
                  "#define TWICE(x) \\\n"
                  "  ((x) * 2.0)\n"
                  "  o[2] = 1; // NOLINT(memory-restrict)\n"
                  "}\n";

TextDocument doc() {
  TextDocument D;
  D.Uri = "file:///p/k.cu";
  D.Path = "/p/k.cu";
  D.Text = Src;
  D.Version = 7;
  return D;
}

Finding literal(bool Proven = true, Exactness E = Exactness::Bitwise) {
  Finding F;
  F.RuleId = "algebraic-float-literal";
  F.Loc = {"/p/k.cu", 2, 17};
  F.Offset = 46; // "0.5"
  F.Message = "double literal";
  FixIt Fix;
  Fix.Description = "use 0.5f";
  Fix.Edits = {{"/p/k.cu", 46, 3, "0.5f"}};
  Fix.Proven = Proven;
  Fix.Exact = E;
  F.Fix = Fix;
  return F;
}

std::string str(const Value &V) { return llvm::formatv("{0}", V).str(); }

TEST(LspDiagnostics, RangesFromRangeEndFixOrToken) {
  std::string T = Src;
  ASSERT_EQ(T.substr(46, 3), "0.5");
  Finding F = literal();
  Range R = findingRange(F, T);
  EXPECT_EQ(R.Start, (Position{1, 16}));
  EXPECT_EQ(R.End, (Position{1, 19})); // the fix's replaced text
  F.Fix.reset();
  EXPECT_EQ(findingRange(F, T).End, (Position{1, 19})); // the number token
  F.RangeEnd = {"/p/k.cu", 2, 20};                      // through ';'
  EXPECT_EQ(findingRange(F, T).End, (Position{1, 20}));
  F.RangeEnd = {};
  F.Offset = 32; // "o" of "o[0]": an identifier
  EXPECT_EQ(findingRange(F, T).End, (Position{1, 3}));
  F.Offset = 33; // "[": one character
  EXPECT_EQ(findingRange(F, T).End, (Position{1, 4}));
}

TEST(LspDiagnostics, DiagnosticShape) {
  TextDocument D = doc();
  Finding F = literal();
  F.Notes.push_back({{"/p/k.cu", 1, 26}, "the pointer"});
  F.Notes.push_back({{}, "a note without a place"});
  F.WhyNoFix = "";
  Value V = findingDiagnostic(F, 3, D, nullptr, "https://x/rules/");
  const Object &O = *V.getAsObject();
  EXPECT_EQ(*O.getString("code"), "algebraic-float-literal");
  EXPECT_EQ(*O.getString("source"), "cuda-l1");
  EXPECT_EQ(*O.getInteger("severity"), 2);
  EXPECT_EQ(*O.getObject("codeDescription")->getString("href"),
            "https://x/rules/algebraic-float-literal.md");
  EXPECT_EQ(*O.getString("message"), "double literal\na note without a place");
  const auto *Rel = O.getArray("relatedInformation");
  ASSERT_EQ(Rel->size(), 1u);
  EXPECT_EQ(
      str((*Rel)[0]),
      R"({"location":{"range":{"end":{"character":26,"line":0},"start":{"character":25,"line":0}},"uri":"file:///p/k.cu"},"message":"the pointer"})");
  EXPECT_EQ(
      str(*O.get("data")),
      R"({"fix":"apply","index":3,"offset":46,"rule":"algebraic-float-literal","version":7})");
  // No docs base: no link. Errors are severity 1, notes 3.
  F.Severity = "error";
  Value E = findingDiagnostic(F, 0, D, nullptr, "");
  EXPECT_FALSE(E.getAsObject()->get("codeDescription"));
  EXPECT_EQ(*E.getAsObject()->getInteger("severity"), 1);
}

TEST(LspDiagnostics, FixOffers) {
  EXPECT_EQ(fixOffer(literal()), FixOffer::Apply);
  EXPECT_EQ(fixOffer(literal(false)), FixOffer::Verify);
  EXPECT_EQ(fixOffer(literal(true, Exactness::Ulp)), FixOffer::Verify);
  Finding M = literal();
  M.Fix->NeedsMeasurement = true;
  EXPECT_EQ(fixOffer(M), FixOffer::Verify);
  M.Fix.reset();
  EXPECT_EQ(fixOffer(M), FixOffer::None);
}

TEST(LspDiagnostics, NolintEdits) {
  std::string T = Src;
  auto E = nolintEdit(T, 2, "algebraic-float-literal", "/p/k.cu");
  ASSERT_TRUE(E);
  EXPECT_EQ(E->Offset, 50u); // the end of line 2
  EXPECT_EQ(E->Replacement, " // NOLINT(algebraic-float-literal)");
  auto N = nolintNextLineEdit(T, 2, "algebraic-float-literal", "/p/k.cu");
  ASSERT_TRUE(N);
  EXPECT_EQ(N->Offset, 30u); // the start of line 2, indented like it
  EXPECT_EQ(N->Replacement, "  // NOLINTNEXTLINE(algebraic-float-literal)\n");
  // A macro's continued line: neither would keep the macro intact.
  EXPECT_FALSE(nolintEdit(T, 3, "r", "/p/k.cu"));
  EXPECT_FALSE(nolintNextLineEdit(T, 4, "r", "/p/k.cu"));
  // A NOLINT(...) already there: the rule is added to its list.
  auto L = nolintEdit(T, 5, "algebraic-float-literal", "/p/k.cu");
  ASSERT_TRUE(L);
  EXPECT_EQ(T.substr(L->Offset, 1), ")");
  EXPECT_EQ(L->Replacement, ", algebraic-float-literal");
  // CRLF files get a CRLF line.
  auto C = nolintNextLineEdit("a\r\n  b\r\n", 2, "r", "f");
  ASSERT_TRUE(C);
  EXPECT_EQ(C->Replacement, "  // NOLINTNEXTLINE(r)\r\n");
}

TEST(LspDiagnostics, WorkspaceEdits) {
  TextDocument D = doc();
  ActionContext C;
  C.Doc = &D;
  C.Lookup = [](const std::string &P) -> std::optional<std::string> {
    if (P == "/p/other.cuh")
      return std::string("x\ny\n");
    return std::nullopt;
  };
  C.OpenVersions["/p/k.cu"] = 7;
  std::string Err;
  auto W = workspaceEdit(
      {{"/p/k.cu", 46, 3, "0.5f"}, {"/p/other.cuh", 2, 1, "z"}}, C, Err);
  ASSERT_TRUE(W);
  EXPECT_EQ(
      str(*W),
      R"({"changes":{"file:///p/k.cu":[{"newText":"0.5f","range":{"end":{"character":19,"line":1},"start":{"character":16,"line":1}}}],"file:///p/other.cuh":[{"newText":"z","range":{"end":{"character":1,"line":1},"start":{"character":0,"line":1}}}]}})");
  C.DocumentChanges = true;
  W = workspaceEdit({{"/p/k.cu", 46, 3, "0.5f"}, {"/p/other.cuh", 2, 1, "z"}},
                    C, Err);
  ASSERT_TRUE(W);
  const auto *DC = W->getAsObject()->getArray("documentChanges");
  ASSERT_EQ(DC->size(), 2u);
  EXPECT_EQ(str(*(*DC)[0].getAsObject()->get("textDocument")),
            R"({"uri":"file:///p/k.cu","version":7})");
  EXPECT_EQ(str(*(*DC)[1].getAsObject()->get("textDocument")),
            R"({"uri":"file:///p/other.cuh","version":null})");
  // An unreadable file or an edit outside the text: no edit, a reason.
  EXPECT_FALSE(workspaceEdit({{"/p/gone.cu", 0, 0, "x"}}, C, Err));
  EXPECT_EQ(Err, "/p/gone.cu: cannot be read");
  EXPECT_FALSE(workspaceEdit({{"/p/k.cu", 500, 1, "x"}}, C, Err));
  EXPECT_NE(Err.find("lies outside"), std::string::npos);
  // New text that is not UTF-8 (an LSP edit cannot carry it unchanged).
  EXPECT_FALSE(workspaceEdit({{"/p/k.cu", 46, 3, "\"caf\xe9\""}}, C, Err));
  EXPECT_NE(Err.find("is not UTF-8 text"), std::string::npos);
}

TEST(LspDiagnostics, JsonTextIsUtf8) {
  EXPECT_EQ(jsonText("plain"), "plain");
  EXPECT_EQ(jsonText("caf\xc3\xa9"), "caf\xc3\xa9"); // UTF-8 kept as is
  EXPECT_EQ(jsonText("h\xb6" "ader"), "h\xef\xbf\xbd" "ader"); // U+FFFD
  // An error response quoting such bytes is valid JSON text.
  std::string S = str(errorResponse(nullptr, ErrorCode::ParseError, "x\xff"));
  EXPECT_NE(S.find("x\xef\xbf\xbd"), std::string::npos);
}

TEST(LspDiagnostics, CodeActions) {
  TextDocument D = doc();
  ActionContext C;
  C.Doc = &D;
  Finding F = literal();
  Value Diag = findingDiagnostic(F, 0, D, nullptr, "");
  auto A = codeActions(F, Diag, C);
  ASSERT_EQ(A.size(), 3u);
  EXPECT_EQ(*A[0].getAsObject()->getString("title"),
            "use 0.5f (algebraic-float-literal)");
  EXPECT_EQ(*A[0].getAsObject()->getBoolean("isPreferred"), true);
  EXPECT_TRUE(A[0].getAsObject()->get("edit"));
  EXPECT_EQ(*A[1].getAsObject()->getString("kind"), "quickfix");
  // Not proven: a command, disabled (with its reason) where the client can
  // show that and no GPU is configured.
  Finding U = literal(false);
  C.DisabledSupport = true;
  A = codeActions(U, Diag, C);
  const Object &V = *A[0].getAsObject();
  EXPECT_FALSE(V.get("edit"));
  EXPECT_EQ(*V.getObject("command")->getString("command"), "cuda-l1.verifyFix");
  EXPECT_EQ(
      str(*V.getObject("command")->get("arguments")),
      R"([{"offset":46,"rule":"algebraic-float-literal","uri":"file:///p/k.cu","version":7}])");
  EXPECT_NE(V.getObject("disabled")->getString("reason")->find("not proven"),
            llvm::StringRef::npos);
  C.GpuConfigured = true;
  A = codeActions(U, Diag, C);
  EXPECT_FALSE(A[0].getAsObject()->get("disabled"));
  // New text that is not UTF-8: neither the edit nor the GPU verification
  // is offered (only the suppressions remain).
  size_t WithFix = A.size();
  U.Fix->Edits[0].Replacement = "0.5f /* \xe9 */";
  EXPECT_EQ(codeActions(U, Diag, C).size(), WithFix - 1);
  F.Fix->Edits[0].Replacement = "0.5f /* \xe9 */";
  EXPECT_EQ(codeActions(F, Diag, C).size(), 2u);
}

TEST(LspDiagnostics, ParseFailure) {
  TextDocument D = doc();
  std::vector<ParseProblem> Ps = {
      {"/p/k.cu", "/p/inc.h", 3, 1, "unknown type name 'foo'"},
      {"/p/k.cu", "/p/k.cu", 2, 17, "expected ';'"}};
  Value V = parseFailureDiagnostic(Ps, D, nullptr);
  const Object &O = *V.getAsObject();
  EXPECT_EQ(*O.getString("code"), "parse-error");
  // At the first error in the document itself; both listed where readable.
  EXPECT_EQ(
      str(*O.get("range")),
      R"({"end":{"character":19,"line":1},"start":{"character":16,"line":1}})");
  EXPECT_EQ(*O.getString("message"),
            "not analysed by cuda-l1: the file does not parse (2 errors): "
            "expected ';'");
  EXPECT_EQ(O.getArray("relatedInformation")->size(), 1u);
  // No error in the document (an unreadable header, say): the file's start.
  Value H = parseFailureDiagnostic({Ps[0]}, D, nullptr);
  EXPECT_EQ(
      str(*H.getAsObject()->get("range")),
      R"({"end":{"character":0,"line":0},"start":{"character":0,"line":0}})");
  EXPECT_NE(H.getAsObject()->getString("message")->find("(in /p/inc.h:3)"),
            llvm::StringRef::npos);
}

} // namespace
