//===- Yaml.cpp - located errors for llvm::yaml::Input --------------------===//
#include "cudal1/Support/Yaml.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

using namespace llvm;

namespace cudal1 {

std::pair<unsigned, unsigned> lineColumnOf(StringRef Text, const char *Ptr) {
  if (!Ptr || Ptr < Text.begin() || Ptr > Text.end())
    return {0, 0};
  size_t Off = Ptr - Text.begin();
  StringRef Before = Text.take_front(Off);
  unsigned Line = 1 + Before.count('\n');
  size_t LastNl = Before.rfind('\n');
  unsigned Col = LastNl == StringRef::npos ? Off + 1 : Off - LastNl;
  return {Line, Col};
}

static YamlTree toTree(yaml::Node *N, StringRef Text) {
  YamlTree Y;
  if (!N)
    return Y;
  auto [L, C] = lineColumnOf(Text, N->getSourceRange().Start.getPointer());
  Y.Line = L;
  Y.Col = C;
  if (auto *S = dyn_cast<yaml::ScalarNode>(N)) {
    SmallString<64> Buf;
    Y.Kind = YamlTree::Scalar;
    Y.Value = S->getValue(Buf).str();
  } else if (auto *B = dyn_cast<yaml::BlockScalarNode>(N)) {
    Y.Kind = YamlTree::Scalar;
    Y.Value = B->getValue().str();
  } else if (auto *M = dyn_cast<yaml::MappingNode>(N)) {
    Y.Kind = YamlTree::Map;
    for (auto &KV : *M) {
      YamlTree K = toTree(KV.getKey(), Text);
      YamlTree V = toTree(KV.getValue(), Text);
      Y.Entries.push_back({std::move(K), std::move(V)});
    }
  } else if (auto *Q = dyn_cast<yaml::SequenceNode>(N)) {
    Y.Kind = YamlTree::Seq;
    for (auto &I : *Q)
      Y.Items.push_back(toTree(&I, Text));
  }
  return Y;
}

bool readYamlTree(StringRef Text, StringRef File, YamlTree &Out,
                  std::string &Error) {
  SourceMgr SM;
  std::string Diag;
  SM.setDiagHandler(
      [](const SMDiagnostic &D, void *Ctx) {
        auto *S = static_cast<std::string *>(Ctx);
        if (S->empty())
          *S = std::to_string(D.getLineNo()) + ":" +
               std::to_string(D.getColumnNo() + 1) + ": " +
               D.getMessage().str();
      },
      &Diag);
  yaml::Stream Stream(Text, SM);
  Out = YamlTree();
  auto Doc = Stream.begin();
  if (Doc != Stream.end())
    Out = toTree(Doc->getRoot(), Text);
  if (!Diag.empty()) {
    Error = File.str() + ":" + Diag;
    return false;
  }
  return true;
}

std::string CommaList::joined() const {
  if (List.Items.empty())
    return Scalar;
  std::string S;
  for (const std::string &I : List.Items)
    S += (S.empty() ? "" : ",") + I;
  return S;
}

YamlReader::YamlReader(StringRef Text, std::string File, void *Context)
    : Text(Text), File(std::move(File)), UserContext(Context) {
  Ctx = {this, UserContext};
  In = std::make_unique<yaml::Input>(
      Text, &Ctx,
      [](const SMDiagnostic &D, void *R) {
        auto *Self = static_cast<YamlReader *>(R);
        Self->fail(D.getLineNo(), D.getColumnNo() + 1, D.getMessage());
      },
      this);
}

YamlReader::~YamlReader() = default;

void YamlReader::fail(unsigned Line, unsigned Col, const Twine &Message) {
  if (!Error.empty())
    return;
  Error = (File + ":" + Twine(Line) + ":" + Twine(Col) + ": " + Message).str();
}

void YamlReader::failHere(const Twine &Message) {
  auto [L, C] = here();
  fail(L, C, Message);
  static_cast<yaml::IO &>(*In).setError(Message); // stops the traits
}

bool YamlReader::finish() {
  if (!failed())
    return true;
  if (Error.empty()) {
    auto [L, C] = here();
    fail(L ? L : 1, C ? C : 1, "not a valid YAML document");
  }
  return false;
}

std::pair<unsigned, unsigned> YamlReader::positionOf(const yaml::Node *N) const {
  if (!N)
    return {0, 0};
  return lineColumnOf(Text, N->getSourceRange().Start.getPointer());
}

std::pair<unsigned, unsigned> YamlReader::here() const {
  return positionOf(In->getCurrentNode());
}

YamlReader *YamlReader::of(yaml::IO &IO) {
  auto *S = static_cast<Scope *>(IO.getContext());
  return S ? S->Reader : nullptr;
}

} // namespace cudal1
