//===- MiniJson.h - JSON for the LLVM-free capture tools ------*- C++ -*-===//
//
// The injection library is loaded into the user's process and the launcher
// and replay checker are built on GPU machines without LLVM, so they cannot
// use llvm::json (which lib/Capture, the verifier's reader, uses). This is
// the small JSON value, parser and writer they share: RFC 8259 syntax,
// objects keep their key order, integers are kept exact (64 bits), parse
// errors say line and column.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_TOOLS_CAPTURE_MINIJSON_H
#define CUDAL1_TOOLS_CAPTURE_MINIJSON_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cudal1 {
namespace capjson {

class Value {
public:
  enum Kind { Null, Bool, Number, String, Array, Object };
  using ObjectMembers = std::vector<std::pair<std::string, Value>>;

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool B) : K(Bool), B(B) {}
  Value(int I) { setInt(I); }
  Value(long I) { setInt(I); }
  Value(long long I) { setInt(I); }
  Value(unsigned I) { setUInt(I); }
  Value(unsigned long I) { setUInt(I); }
  Value(unsigned long long I) { setUInt(I); }
  Value(double D) : K(Number), D(D) {}
  Value(const char *S) : K(String), S(S) {}
  Value(std::string S) : K(String), S(std::move(S)) {}

  static Value array() {
    Value V;
    V.K = Array;
    return V;
  }
  static Value object() {
    Value V;
    V.K = Object;
    return V;
  }

  Kind kind() const { return K; }
  bool isNull() const { return K == Null; }
  bool asBool() const { return B; }
  const std::string &str() const { return S; }
  double asDouble() const { return D; }
  /// The number as a non-negative integer, if it is one (exactly).
  bool getUInt(uint64_t &Out) const;
  bool getInt(int64_t &Out) const;

  std::vector<Value> &elements() { return A; }
  const std::vector<Value> &elements() const { return A; }
  ObjectMembers &members() { return O; }
  const ObjectMembers &members() const { return O; }

  /// Object member, or null when absent (or when this is not an object).
  const Value *get(const std::string &Key) const;
  Value *get(const std::string &Key);
  /// Sets (replacing in place) or appends an object member.
  Value &set(const std::string &Key, Value V);
  void push(Value V) { A.push_back(std::move(V)); }

private:
  void setInt(long long I);
  void setUInt(unsigned long long I);

  Kind K = Null;
  bool B = false;
  bool IsInt = false, Negative = false;
  uint64_t Magnitude = 0; ///< |value| when IsInt
  double D = 0;
  std::string S;
  std::vector<Value> A;
  ObjectMembers O;

  friend bool parse(const std::string &, Value &, std::string &);
  friend class Parser;
  friend void writeTo(const Value &, std::string &, int, int);
};

/// Parses \p Text (one JSON value, surrounded by whitespace only). On error
/// returns false with "line L, column C: <problem>" in \p Error.
bool parse(const std::string &Text, Value &Out, std::string &Error);

/// Serialises with \p Indent spaces per level (0: one line).
std::string write(const Value &V, int Indent = 2);
void writeTo(const Value &V, std::string &Out, int Indent, int Level);

/// JSON string literal for \p S (with quotes), escaping as RFC 8259 needs.
std::string quote(const std::string &S);

} // namespace capjson
} // namespace cudal1

#endif
