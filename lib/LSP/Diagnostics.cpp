//===- Diagnostics.cpp - findings as LSP diagnostics and code actions -----===//
#include "cudal1/LSP/Diagnostics.h"
#include "cudal1/LSP/Protocol.h"
#include "cudal1/Analysis/FindingOutput.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace cudal1 {
namespace lsp {

namespace {

int severityCode(StringRef S) {
  if (S == "error")
    return 1;
  if (S == "note")
    return 3;
  return 2;
}

/// The URI of \p Path: the document's own (as the client wrote it) or one
/// made from the path.
std::string uriOf(const std::string &Path, const TextDocument &Doc) {
  if (Path == Doc.Path)
    return Doc.Uri;
  return fileUri(Path);
}

std::optional<std::string> textOf(const std::string &Path,
                                  const TextDocument &Doc,
                                  const TextLookup &Lookup) {
  if (Path == Doc.Path)
    return Doc.Text;
  return Lookup ? Lookup(Path) : std::nullopt;
}

/// A range over the character at byte \p Offset (empty at a line's end).
Range charRange(StringRef Text, size_t Offset) {
  Range R;
  R.Start = positionAt(Text, Offset);
  size_t N = charLength(Text, Offset);
  if (N && (Text[Offset] == '\n' || Text[Offset] == '\r'))
    N = 0;
  R.End = positionAt(Text, Offset + N);
  return R;
}

/// Byte bounds of 1-based \p Line: [Begin, End) without its line end.
void lineBytes(StringRef Text, unsigned Line, size_t &Begin, size_t &End) {
  Begin = offsetOfLineColumn(Text, Line, 1);
  End = Text.find('\n', Begin);
  if (End == StringRef::npos)
    End = Text.size();
  if (End > Begin && Text[End - 1] == '\r')
    --End;
}

/// Where to add ", <rule>" to a "<Marker>(...)" list on \p LineText (an
/// offset within it), or npos.
size_t markerListEnd(StringRef LineText, StringRef Marker) {
  size_t Pos = 0;
  while ((Pos = LineText.find(Marker, Pos)) != StringRef::npos) {
    Pos += Marker.size();
    if (Pos < LineText.size() && LineText[Pos] == '(') {
      size_t Close = LineText.find(')', Pos);
      if (Close != StringRef::npos)
        return Close;
    }
  }
  return StringRef::npos;
}

} // namespace

Range findingRange(const Finding &F, StringRef Text) {
  size_t Begin = std::min<size_t>(F.Offset, Text.size());
  size_t End = Begin;
  if (F.RangeEnd.File == F.Loc.File && F.RangeEnd.Line) {
    size_t Last = offsetOfLineColumn(Text, F.RangeEnd.Line, F.RangeEnd.Column);
    if (Last >= Begin)
      End = Last + std::max<size_t>(1, charLength(Text, Last));
  }
  // No range given: the text the fix replaces when it starts at the caret,
  // else the token there (a number with its dots and suffix).
  if (End == Begin && F.Fix)
    for (const TextEdit &E : F.Fix->Edits)
      if (E.File == F.Loc.File && E.Offset == Begin && E.Length)
        End = Begin + E.Length;
  if (End == Begin) {
    bool Number = Begin < Text.size() && isDigit(Text[Begin]);
    while (End < Text.size() &&
           (isAlnum(Text[End]) || Text[End] == '_' ||
            (Number && (Text[End] == '.' || Text[End] == '\''))))
      ++End;
    if (End == Begin && End < Text.size() && Text[End] != '\n' &&
        Text[End] != '\r')
      End += charLength(Text, End);
  }
  End = std::min(End, Text.size());
  return Range{positionAt(Text, Begin), positionAt(Text, End)};
}

json::Value findingDiagnostic(const Finding &F, size_t Index,
                              const TextDocument &Doc, const TextLookup &Lookup,
                              StringRef DocsBase) {
  json::Object D{{"range", toJSON(findingRange(F, Doc.Text))},
                 {"severity", severityCode(F.Severity)},
                 {"code", F.RuleId},
                 {"source", "cuda-l1"}};
  if (!DocsBase.empty())
    D["codeDescription"] =
        json::Object{{"href", ruleDocUrl(DocsBase, F.RuleId)}};
  std::string Message = F.Message;
  json::Array Related;
  // (json::Value keeps a StringRef by reference: the message is copied.)
  auto AddRelated = [&](const SourceLoc &L, StringRef Text, std::string Msg) {
    size_t Off = offsetOfLineColumn(Text, L.Line, L.Column);
    Related.push_back(json::Object{
        {"location", json::Object{{"uri", uriOf(L.File, Doc)},
                                  {"range", toJSON(charRange(Text, Off))}}},
        {"message", jsonText(Msg)}});
  };
  for (const FindingNote &N : F.Notes) {
    std::optional<std::string> Text;
    if (!N.Loc.File.empty())
      Text = textOf(N.Loc.File, Doc, Lookup);
    if (Text)
      AddRelated(N.Loc, *Text, N.Message);
    else
      Message += "\n" + N.Message;
  }
  if (!F.WhyNoFix.empty())
    AddRelated(F.Loc, Doc.Text, "no automatic fix: " + F.WhyNoFix);
  D["message"] = jsonText(Message);
  if (!Related.empty())
    D["relatedInformation"] = std::move(Related);
  FixOffer O = fixOffer(F);
  D["data"] = json::Object{{"rule", F.RuleId},
                           {"offset", F.Offset},
                           {"index", int64_t(Index)},
                           {"version", Doc.Version},
                           {"fix", O == FixOffer::Apply    ? "apply"
                                   : O == FixOffer::Verify ? "verify-on-gpu"
                                                           : "none"}};
  return D;
}

json::Value parseFailureDiagnostic(const std::vector<ParseProblem> &Ps,
                                   const TextDocument &Doc,
                                   const TextLookup &Lookup) {
  const ParseProblem *Anchor = nullptr;
  for (const ParseProblem &P : Ps)
    if (P.File == Doc.Path && P.Line) {
      Anchor = &P;
      break;
    }
  Range R; // the start of the file when no error is in it
  if (Anchor) {
    Finding F;
    F.Offset = offsetOfLineColumn(Doc.Text, Anchor->Line, Anchor->Column);
    R = findingRange(F, Doc.Text);
  }
  const ParseProblem *First = Anchor ? Anchor : Ps.empty() ? nullptr : &Ps[0];
  std::string Message = "not analysed by cuda-l1: the file does not parse";
  if (!Ps.empty())
    Message += " (" + std::to_string(Ps.size()) + " error" +
               (Ps.size() == 1 ? "" : "s") + ")";
  if (First) {
    Message += ": " + First->Message;
    if (!First->File.empty() && First->File != Doc.Path)
      Message +=
          " (in " + First->File + ":" + std::to_string(First->Line) + ")";
  }
  json::Array Related;
  for (const ParseProblem &P : Ps) {
    if (P.File.empty() || Related.size() >= 20)
      continue;
    std::optional<std::string> Text = textOf(P.File, Doc, Lookup);
    if (!Text)
      continue;
    Related.push_back(json::Object{
        {"location",
         json::Object{{"uri", uriOf(P.File, Doc)},
                      {"range", toJSON(charRange(
                                    *Text, offsetOfLineColumn(*Text, P.Line,
                                                              P.Column)))}}},
        {"message", jsonText(P.Message)}});
  }
  json::Object D{{"range", toJSON(R)},
                 {"severity", 2},
                 {"code", "parse-error"},
                 {"source", "cuda-l1"},
                 {"message", jsonText(Message)},
                 {"data", json::Object{{"version", Doc.Version}}}};
  if (!Related.empty())
    D["relatedInformation"] = std::move(Related);
  return D;
}

FixOffer fixOffer(const Finding &F) {
  if (!F.Fix || F.Fix->Edits.empty())
    return FixOffer::None;
  if (F.Fix->Exact == Exactness::Bitwise && F.Fix->Proven &&
      !F.Fix->NeedsMeasurement)
    return FixOffer::Apply;
  return FixOffer::Verify;
}

std::optional<json::Value> workspaceEdit(const std::vector<TextEdit> &Edits,
                                         const ActionContext &C,
                                         std::string &Error) {
  std::map<std::string, std::vector<const TextEdit *>> ByFile;
  for (const TextEdit &E : Edits)
    ByFile[E.File].push_back(&E);
  json::Object Changes;
  json::Array DocChanges;
  for (auto &KV : ByFile) {
    std::optional<std::string> Text = textOf(KV.first, *C.Doc, C.Lookup);
    if (!Text) {
      Error = KV.first + ": cannot be read";
      return std::nullopt;
    }
    json::Array LspEdits;
    for (const TextEdit *E : KV.second) {
      if (size_t(E->Offset) + E->Length > Text->size()) {
        Error = KV.first + ": an edit at byte " + std::to_string(E->Offset) +
                " lies outside the file's " + std::to_string(Text->size()) +
                " bytes";
        return std::nullopt;
      }
      if (!json::isUTF8(E->Replacement)) {
        // An LSP edit carries UTF-8 only; replacing the bytes would change
        // what the fix writes. The command-line tool applies it as it is.
        Error = KV.first + ": the edit at byte " + std::to_string(E->Offset) +
                " is not UTF-8 text (an editor edit cannot carry it; "
                "cuda-l1-rewrite --fix applies it)";
        return std::nullopt;
      }
      Range R{positionAt(*Text, E->Offset),
              positionAt(*Text, E->Offset + E->Length)};
      LspEdits.push_back(
          json::Object{{"range", toJSON(R)}, {"newText", E->Replacement}});
    }
    std::string Uri = uriOf(KV.first, *C.Doc);
    if (C.DocumentChanges) {
      auto V = C.OpenVersions.find(KV.first);
      json::Value Version = nullptr;
      if (V != C.OpenVersions.end())
        Version = V->second;
      DocChanges.push_back(json::Object{
          {"textDocument",
           json::Object{{"uri", Uri}, {"version", std::move(Version)}}},
          {"edits", std::move(LspEdits)}});
    } else {
      Changes[Uri] = std::move(LspEdits);
    }
  }
  if (C.DocumentChanges)
    return json::Value(
        json::Object{{"documentChanges", std::move(DocChanges)}});
  return json::Value(json::Object{{"changes", std::move(Changes)}});
}

std::optional<TextEdit> nolintEdit(StringRef Text, unsigned Line,
                                   StringRef Rule, const std::string &File) {
  size_t Begin, End;
  lineBytes(Text, Line, Begin, End);
  StringRef L = Text.slice(Begin, End);
  if (L.rtrim().ends_with("\\"))
    return std::nullopt; // a comment here would swallow the continuation
  size_t Close = markerListEnd(L, "NOLINT");
  if (Close != StringRef::npos)
    return TextEdit{File, unsigned(Begin + Close), 0, ", " + Rule.str()};
  return TextEdit{File, unsigned(End), 0, " // NOLINT(" + Rule.str() + ")"};
}

std::optional<TextEdit> nolintNextLineEdit(StringRef Text, unsigned Line,
                                           StringRef Rule,
                                           const std::string &File) {
  size_t Begin, End;
  lineBytes(Text, Line, Begin, End);
  if (Line > 1) {
    size_t PBegin, PEnd;
    lineBytes(Text, Line - 1, PBegin, PEnd);
    StringRef Prev = Text.slice(PBegin, PEnd);
    if (Prev.rtrim().ends_with("\\"))
      return std::nullopt; // inside a macro definition
    size_t Close = markerListEnd(Prev, "NOLINTNEXTLINE");
    if (Close != StringRef::npos)
      return TextEdit{File, unsigned(PBegin + Close), 0, ", " + Rule.str()};
  }
  StringRef L = Text.slice(Begin, End);
  StringRef Indent = L.take_while([](char C) { return C == ' ' || C == '\t'; });
  bool CRLF = End < Text.size() && Text[End] == '\r';
  return TextEdit{File, unsigned(Begin), 0,
                  Indent.str() + "// NOLINTNEXTLINE(" + Rule.str() + ")" +
                      (CRLF ? "\r\n" : "\n")};
}

std::vector<json::Value> codeActions(const Finding &F,
                                     const json::Value &Diagnostic,
                                     const ActionContext &C) {
  std::vector<json::Value> Out;
  auto Action = [&](std::string Title) {
    return json::Object{{"title", jsonText(Title)},
                        {"kind", "quickfix"},
                        {"diagnostics", json::Array{Diagnostic}}};
  };
  std::string Error;
  switch (fixOffer(F)) {
  case FixOffer::Apply:
    if (auto E = workspaceEdit(F.Fix->Edits, C, Error)) {
      json::Object A = Action(F.Fix->Description + " (" + F.RuleId + ")");
      A["isPreferred"] = true;
      A["edit"] = std::move(*E);
      Out.push_back(std::move(A));
    }
    break;
  case FixOffer::Verify: {
    // An edit an LSP client cannot receive (see workspaceEdit) is not worth
    // a GPU verification: no action, as for Apply.
    bool Utf8 = true;
    for (const TextEdit &E : F.Fix->Edits)
      Utf8 &= json::isUTF8(E.Replacement);
    if (!Utf8)
      break;
    std::string Title = "Verify on the GPU, then apply: " + F.Fix->Description +
                        " (" + F.RuleId + ")";
    json::Object A = Action(Title);
    A["command"] = json::Object{
        {"title", jsonText(Title)},
        {"command", verifyFixCommand()},
        {"arguments", json::Array{json::Object{{"uri", C.Doc->Uri},
                                               {"version", C.Doc->Version},
                                               {"rule", F.RuleId},
                                               {"offset", F.Offset}}}}};
    if (!C.GpuConfigured && C.DisabledSupport)
      A["disabled"] = json::Object{
          {"reason", "needs verification on a GPU (" +
                         std::string(toString(F.Fix->Exact)) +
                         (F.Fix->Proven ? "" : ", not proven") +
                         (F.Fix->NeedsMeasurement ? ", faster only where "
                                                    "measured"
                                                  : "") +
                         "): start cuda-l1-lsp with --verify-on-gpu"}};
    Out.push_back(std::move(A));
    break;
  }
  case FixOffer::None:
    break;
  }
  const std::string &File = C.Doc->Path;
  if (auto E = nolintEdit(C.Doc->Text, F.Loc.Line, F.RuleId, File))
    if (auto W = workspaceEdit({*E}, C, Error)) {
      json::Object A =
          Action("Suppress " + F.RuleId + " on this line (NOLINT)");
      A["edit"] = std::move(*W);
      Out.push_back(std::move(A));
    }
  if (auto E = nolintNextLineEdit(C.Doc->Text, F.Loc.Line, F.RuleId, File))
    if (auto W = workspaceEdit({*E}, C, Error)) {
      json::Object A =
          Action("Suppress " + F.RuleId + " with NOLINTNEXTLINE above");
      A["edit"] = std::move(*W);
      Out.push_back(std::move(A));
    }
  return Out;
}

} // namespace lsp
} // namespace cudal1
