//===- Yaml.h - the one way the tool reads YAML files ------------*- C++ -*-===//
//
// Every YAML input (configuration, rule files, harness specs) is read with
// llvm::yaml::IO mapping traits through a YamlReader, which gives what the
// traits alone do not: located error messages ("<file>:<line>:<col>:
// <message>", the first error only), the position of the node being read
// (for messages a reader words itself), and AnyValue for values another
// reader parses later.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_SUPPORT_YAML_H
#define CUDAL1_SUPPORT_YAML_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/YAMLTraits.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace cudal1 {

/// 1-based line and column of \p Ptr in \p Text (clamped to the text).
std::pair<unsigned, unsigned> lineColumnOf(llvm::StringRef Text,
                                           const char *Ptr);

class YamlReader {
public:
  /// \p Context is what the traits get as IO::getContext() (and as the
  /// context argument of ScalarTraits::input).
  YamlReader(llvm::StringRef Text, std::string File, void *Context = nullptr);
  ~YamlReader();

  llvm::yaml::Input &input() { return *In; }
  llvm::StringRef text() const { return Text; }
  const std::string &file() const { return File; }

  /// Reads the first document into \p Value; false when an error was
  /// reported (see error()). An empty document leaves \p Value as it is.
  template <typename T> bool read(T &Value) {
    if (!In->setCurrentDocument())
      return finish();
    llvm::yaml::EmptyContext Ctx;
    llvm::yaml::yamlize(*In, Value, true, Ctx);
    return finish();
  }

  bool failed() const { return !Error.empty() || bool(In->error()); }
  /// !failed(); an error LLVM's reader reported without a message (found by
  /// fuzz/FuzzConfig) still gets a located one.
  bool finish();
  /// "<file>:<line>:<col>: <message>" of the first error ("" if none).
  const std::string &error() const { return Error; }
  /// Records an error at \p Line:\p Col unless one was recorded already.
  void fail(unsigned Line, unsigned Col, const llvm::Twine &Message);
  /// Records an error at the node being read (see IO::setError).
  void failHere(const llvm::Twine &Message);
  /// Position of the node being read.
  std::pair<unsigned, unsigned> here() const;
  std::pair<unsigned, unsigned> positionOf(const llvm::yaml::Node *N) const;

  /// The reader that \p IO belongs to (traits reach it through
  /// IO::getContext() when they were given a YamlReader::Scope).
  static YamlReader *of(llvm::yaml::IO &IO);

private:
  llvm::StringRef Text;
  std::string File;
  void *UserContext;
  std::string Error;
  std::unique_ptr<llvm::yaml::Input> In;
  friend struct YamlReaderAccess;

public:
  /// What IO::getContext() returns: the reader and the caller's context.
  struct Scope {
    YamlReader *Reader;
    void *User;
  } Ctx;
  template <typename T> static T *userContext(llvm::yaml::IO &IO) {
    auto *S = static_cast<Scope *>(IO.getContext());
    return S ? static_cast<T *>(S->User) : nullptr;
  }
};

/// A YAML document as a tree with the position of every node: for readers
/// whose messages name the key or value at fault and that evaluate fields in
/// an order of their own (harness specs: sizes before the expressions that
/// use them). Declarative files use mapping traits through YamlReader.
struct YamlTree {
  enum KindT { Null, Scalar, Map, Seq } Kind = Null;
  std::string Value;
  std::vector<std::pair<YamlTree, YamlTree>> Entries; ///< Map: key, value
  std::vector<YamlTree> Items;                        ///< Seq
  unsigned Line = 0, Col = 0;
  bool isMap() const { return Kind == Map; }
  bool isScalar() const { return Kind == Scalar; }
};

/// Reads the first document of \p Text; false with "<file>:<line>:<col>:
/// <message>" in \p Error on a YAML error. An empty text gives a Null tree.
bool readYamlTree(llvm::StringRef Text, llvm::StringRef File, YamlTree &Out,
                  std::string &Error);

/// A string value with the position it was read at (through a YamlReader).
struct LocatedString {
  std::string Value;
  unsigned Line = 0, Col = 0;
};

/// A list of strings.
struct StringList {
  std::vector<std::string> Items;
};

/// A string or a list of strings (joined with ","): glob lists.
struct CommaList {
  std::string Scalar;
  StringList List;
  /// A mapping where a string or list was expected: an error.
  struct NotAMap {
    std::string What;
  } Map;
  bool IsScalar = false; ///< given as a string (possibly empty)
  std::string joined() const;
  /// False for a key without a value ("Rules:").
  bool given() const { return IsScalar || !List.Items.empty(); }
};

/// Any YAML value: accepted and skipped. Used for the keys of a mapping whose
/// value another reader parses (harness specs inside a configuration).
struct AnyValue {
  std::string Scalar;
  std::vector<AnyValue> Items;
  std::map<std::string, AnyValue> Map;
};

} // namespace cudal1

namespace llvm {
namespace yaml {
template <> struct ScalarTraits<cudal1::LocatedString> {
  static void output(const cudal1::LocatedString &V, void *, raw_ostream &OS) {
    OS << V.Value;
  }
  static StringRef input(StringRef Scalar, void *Ctx, cudal1::LocatedString &V) {
    V.Value = Scalar.str();
    if (auto *S = static_cast<cudal1::YamlReader::Scope *>(Ctx)) {
      auto [L, C] = S->Reader->here();
      V.Line = L;
      V.Col = C;
    }
    return StringRef();
  }
  static QuotingType mustQuote(StringRef) { return QuotingType::Single; }
};
template <> struct SequenceTraits<cudal1::StringList> {
  static size_t size(IO &, cudal1::StringList &L) { return L.Items.size(); }
  static std::string &element(IO &, cudal1::StringList &L, size_t I) {
    if (I >= L.Items.size())
      L.Items.resize(I + 1);
    return L.Items[I];
  }
};
template <> struct CustomMappingTraits<cudal1::CommaList::NotAMap> {
  static void inputOne(IO &IO, StringRef, cudal1::CommaList::NotAMap &M) {
    IO.setError(M.What.empty() ? "expected a string of comma-separated globs "
                                 "or a list of globs"
                               : M.What);
  }
  static void output(IO &, cudal1::CommaList::NotAMap &) {}
};
template <> struct PolymorphicTraits<cudal1::CommaList> {
  static NodeKind getKind(const cudal1::CommaList &) { return NodeKind::Scalar; }
  static std::string &getAsScalar(cudal1::CommaList &V) {
    V.IsScalar = true;
    return V.Scalar;
  }
  static cudal1::StringList &getAsSequence(cudal1::CommaList &V) {
    return V.List;
  }
  static cudal1::CommaList::NotAMap &getAsMap(cudal1::CommaList &V) {
    return V.Map;
  }
};
template <> struct PolymorphicTraits<cudal1::AnyValue> {
  static NodeKind getKind(const cudal1::AnyValue &V) {
    return !V.Map.empty() ? NodeKind::Map
           : !V.Items.empty() ? NodeKind::Sequence
                              : NodeKind::Scalar;
  }
  static std::string &getAsScalar(cudal1::AnyValue &V) { return V.Scalar; }
  static std::vector<cudal1::AnyValue> &getAsSequence(cudal1::AnyValue &V) {
    return V.Items;
  }
  static std::map<std::string, cudal1::AnyValue> &
  getAsMap(cudal1::AnyValue &V) {
    return V.Map;
  }
};
template <> struct SequenceTraits<std::vector<cudal1::AnyValue>> {
  static size_t size(IO &, std::vector<cudal1::AnyValue> &V) {
    return V.size();
  }
  static cudal1::AnyValue &element(IO &, std::vector<cudal1::AnyValue> &V,
                                   size_t I) {
    if (I >= V.size())
      V.resize(I + 1);
    return V[I];
  }
};
template <> struct CustomMappingTraits<std::map<std::string, cudal1::AnyValue>> {
  static void inputOne(IO &IO, StringRef Key,
                       std::map<std::string, cudal1::AnyValue> &M) {
    IO.mapRequired(Key.str().c_str(), M[Key.str()]);
  }
  static void output(IO &, std::map<std::string, cudal1::AnyValue> &) {}
};
} // namespace yaml
} // namespace llvm

#endif
