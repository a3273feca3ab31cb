//===- Protocol.cpp - the LSP messages cuda-l1-lsp reads and writes -------===//
#include "cudal1/LSP/Protocol.h"

using namespace llvm;

namespace cudal1 {
namespace lsp {

json::Value response(json::Value Id, json::Value Result) {
  return json::Object{
      {"jsonrpc", "2.0"}, {"id", std::move(Id)}, {"result", std::move(Result)}};
}

std::string jsonText(StringRef Text) {
  return json::isUTF8(Text) ? Text.str() : json::fixUTF8(Text);
}

json::Value errorResponse(json::Value Id, ErrorCode C, StringRef Message) {
  return json::Object{
      {"jsonrpc", "2.0"},
      {"id", std::move(Id)},
      {"error",
       json::Object{{"code", int(C)}, {"message", jsonText(Message)}}}};
}

json::Value notification(StringRef Method, json::Value Params) {
  return json::Object{{"jsonrpc", "2.0"},
                      {"method", Method.str()},
                      {"params", std::move(Params)}};
}

json::Value request(json::Value Id, StringRef Method, json::Value Params) {
  return json::Object{{"jsonrpc", "2.0"},
                      {"id", std::move(Id)},
                      {"method", Method.str()},
                      {"params", std::move(Params)}};
}

namespace {
/// Follows \p Keys through nested objects; null when any is missing.
const json::Value *dig(const json::Value &V,
                       std::initializer_list<StringRef> Keys) {
  const json::Value *Cur = &V;
  for (StringRef K : Keys) {
    const json::Object *O = Cur->getAsObject();
    if (!O || !(Cur = O->get(K)))
      return nullptr;
  }
  return Cur;
}
bool flag(const json::Value &V, std::initializer_list<StringRef> Keys) {
  const json::Value *F = dig(V, Keys);
  return F && F->getAsBoolean().value_or(false);
}
/// A "textDocument" member: its uri, and its version when \p Version.
struct DocumentId {
  std::string Uri;
  int64_t Version = 0;
  bool WantVersion = false;
};
bool fromJSON(const json::Value &V, DocumentId &D, json::Path Path) {
  json::ObjectMapper O(V, Path);
  return O && O.map("uri", D.Uri) &&
         (!D.WantVersion || O.map("version", D.Version));
}
bool mapDocument(json::ObjectMapper &O, std::string &Uri) {
  DocumentId D;
  if (!O.map("textDocument", D))
    return false;
  Uri = std::move(D.Uri);
  return true;
}
} // namespace

bool fromJSON(const json::Value &V, InitializeParams &P, json::Path Path) {
  json::ObjectMapper O(V, Path);
  if (!O)
    return false;
  P.DocumentChanges = flag(
      V, {"capabilities", "workspace", "workspaceEdit", "documentChanges"});
  P.DisabledSupport = flag(
      V, {"capabilities", "textDocument", "codeAction", "disabledSupport"});
  const json::Value *Init = dig(V, {"initializationOptions"});
  if (Init && Init->getAsObject()) {
    json::ObjectMapper I(*Init, Path.field("initializationOptions"));
    if (!I.mapOptional("compilationDatabasePath", P.CompilationDatabasePath) ||
        !I.mapOptional("fallbackFlags", P.FallbackFlags))
      return false;
  }
  return true;
}

bool fromJSON(const json::Value &V, TextDocumentItem &P, json::Path Path) {
  json::ObjectMapper O(V, Path);
  return O && O.map("uri", P.Uri) && O.map("text", P.Text) &&
         O.map("version", P.Version) &&
         O.mapOptional("languageId", P.LanguageId);
}

bool fromJSON(const json::Value &V, DidOpenParams &P, json::Path Path) {
  json::ObjectMapper O(V, Path);
  return O && O.map("textDocument", P.TextDocument);
}

static bool fromJSON(const json::Value &V, ContentChange &C, json::Path Path) {
  json::ObjectMapper O(V, Path);
  return O && O.map("text", C.Text) && O.mapOptional("range", C.R);
}

bool fromJSON(const json::Value &V, DidChangeParams &P, json::Path Path) {
  json::ObjectMapper O(V, Path);
  DocumentId D;
  D.WantVersion = true;
  if (!O || !O.map("textDocument", D) || !O.map("contentChanges", P.Changes))
    return false;
  P.Uri = std::move(D.Uri);
  P.Version = D.Version;
  return true;
}

bool fromJSON(const json::Value &V, DocumentParams &P, json::Path Path) {
  json::ObjectMapper O(V, Path);
  return O && mapDocument(O, P.Uri);
}

bool fromJSON(const json::Value &V, CodeActionParams &P, json::Path Path) {
  json::ObjectMapper O(V, Path);
  if (!O || !mapDocument(O, P.Uri) || !O.map("range", P.R))
    return false;
  const json::Value *Ctx = V.getAsObject()->get("context");
  if (!Ctx) {
    Path.field("context").report("missing value");
    return false;
  }
  json::ObjectMapper C(*Ctx, Path.field("context"));
  if (!C || !C.mapOptional("only", P.Only))
    return false;
  if (const json::Value *Ds = Ctx->getAsObject()->get("diagnostics")) {
    const json::Array *A = Ds->getAsArray();
    if (!A) {
      Path.field("context").field("diagnostics").report("expected array");
      return false;
    }
    P.Diagnostics.assign(A->begin(), A->end());
  }
  return true;
}

bool fromJSON(const json::Value &V, ExecuteCommandParams &P, json::Path Path) {
  json::ObjectMapper O(V, Path);
  if (!O || !O.map("command", P.Command))
    return false;
  if (const json::Value *As = V.getAsObject()->get("arguments")) {
    const json::Array *A = As->getAsArray();
    if (!A) {
      Path.field("arguments").report("expected array");
      return false;
    }
    P.Arguments.assign(A->begin(), A->end());
  }
  return true;
}

bool fromJSON(const json::Value &V, VerifyFixArgs &P, json::Path Path) {
  json::ObjectMapper O(V, Path);
  return O && O.map("uri", P.Uri) && O.map("rule", P.Rule) &&
         O.map("version", P.Version) && O.map("offset", P.Offset);
}

bool fromJSON(const json::Value &V, CancelParams &P, json::Path Path) {
  json::ObjectMapper O(V, Path);
  if (!O)
    return false;
  const json::Value *Id = V.getAsObject()->get("id");
  if (!Id) {
    Path.field("id").report("missing value");
    return false;
  }
  P.Id = *Id;
  if (P.Id.kind() != json::Value::Number &&
      P.Id.kind() != json::Value::String) {
    Path.field("id").report("expected a number or a string");
    return false;
  }
  return true;
}

} // namespace lsp
} // namespace cudal1
