//===- MiniJson.cpp - JSON for the LLVM-free capture tools ----------------===//
#include "MiniJson.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace cudal1 {
namespace capjson {

void Value::setInt(long long I) {
  K = Number;
  IsInt = true;
  Negative = I < 0;
  Magnitude = Negative ? 0ULL - static_cast<unsigned long long>(I)
                       : static_cast<unsigned long long>(I);
  D = static_cast<double>(I);
}

void Value::setUInt(unsigned long long I) {
  K = Number;
  IsInt = true;
  Negative = false;
  Magnitude = I;
  D = static_cast<double>(I);
}

bool Value::getUInt(uint64_t &Out) const {
  if (K != Number || !IsInt || (Negative && Magnitude != 0))
    return false;
  Out = Magnitude;
  return true;
}

bool Value::getInt(int64_t &Out) const {
  if (K != Number || !IsInt)
    return false;
  if (!Negative) {
    if (Magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return false;
    Out = static_cast<int64_t>(Magnitude);
    return true;
  }
  if (Magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1)
    return false;
  Out = static_cast<int64_t>(0ULL - Magnitude);
  return true;
}

const Value *Value::get(const std::string &Key) const {
  if (K != Object)
    return nullptr;
  for (const auto &M : O)
    if (M.first == Key)
      return &M.second;
  return nullptr;
}

Value *Value::get(const std::string &Key) {
  return const_cast<Value *>(static_cast<const Value *>(this)->get(Key));
}

Value &Value::set(const std::string &Key, Value V) {
  K = Object;
  for (auto &M : O)
    if (M.first == Key) {
      M.second = std::move(V);
      return M.second;
    }
  O.emplace_back(Key, std::move(V));
  return O.back().second;
}

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

class Parser {
public:
  explicit Parser(const std::string &T) : T(T) {}

  bool parseDocument(Value &Out, std::string &Error) {
    skipSpace();
    if (!parseValue(Out, 0))
      return fail(Error);
    skipSpace();
    if (P != T.size()) {
      Problem = "unexpected text after the JSON value";
      return fail(Error);
    }
    return true;
  }

private:
  const std::string &T;
  size_t P = 0;
  std::string Problem;

  bool fail(std::string &Error) {
    size_t Line = 1, Col = 1;
    for (size_t I = 0; I < P && I < T.size(); ++I) {
      if (T[I] == '\n') {
        ++Line;
        Col = 1;
      } else {
        ++Col;
      }
    }
    Error = "line " + std::to_string(Line) + ", column " + std::to_string(Col) +
            ": " + Problem;
    return false;
  }

  bool error(const std::string &Msg) {
    if (Problem.empty())
      Problem = Msg;
    return false;
  }

  void skipSpace() {
    while (P < T.size() &&
           (T[P] == ' ' || T[P] == '\t' || T[P] == '\n' || T[P] == '\r'))
      ++P;
  }

  bool literal(const char *Word) {
    size_t N = std::char_traits<char>::length(Word);
    if (T.compare(P, N, Word) != 0)
      return error(std::string("invalid literal (expected '") + Word + "')");
    P += N;
    return true;
  }

  bool parseValue(Value &Out, int Depth) {
    if (Depth > 512)
      return error("nesting too deep");
    if (P >= T.size())
      return error("unexpected end of input");
    char C = T[P];
    switch (C) {
    case 'n':
      Out = Value();
      return literal("null");
    case 't':
      Out = Value(true);
      return literal("true");
    case 'f':
      Out = Value(false);
      return literal("false");
    case '"': {
      std::string S;
      if (!parseString(S))
        return false;
      Out = Value(std::move(S));
      return true;
    }
    case '[':
      return parseArray(Out, Depth);
    case '{':
      return parseObject(Out, Depth);
    default:
      if (C == '-' || (C >= '0' && C <= '9'))
        return parseNumber(Out);
      return error(std::string("unexpected character '") + C + "'");
    }
  }

  bool parseArray(Value &Out, int Depth) {
    Out = Value::array();
    ++P; // [
    skipSpace();
    if (P < T.size() && T[P] == ']') {
      ++P;
      return true;
    }
    for (;;) {
      Value E;
      skipSpace();
      if (!parseValue(E, Depth + 1))
        return false;
      Out.A.push_back(std::move(E));
      skipSpace();
      if (P >= T.size())
        return error("unexpected end of input in an array");
      if (T[P] == ',') {
        ++P;
        continue;
      }
      if (T[P] == ']') {
        ++P;
        return true;
      }
      return error("expected ',' or ']' in an array");
    }
  }

  bool parseObject(Value &Out, int Depth) {
    Out = Value::object();
    ++P; // {
    skipSpace();
    if (P < T.size() && T[P] == '}') {
      ++P;
      return true;
    }
    for (;;) {
      skipSpace();
      if (P >= T.size() || T[P] != '"')
        return error("expected a string key in an object");
      std::string Key;
      if (!parseString(Key))
        return false;
      skipSpace();
      if (P >= T.size() || T[P] != ':')
        return error("expected ':' after an object key");
      ++P;
      skipSpace();
      Value V;
      if (!parseValue(V, Depth + 1))
        return false;
      for (const auto &M : Out.O)
        if (M.first == Key)
          return error("duplicate key \"" + Key + "\"");
      Out.O.emplace_back(std::move(Key), std::move(V));
      skipSpace();
      if (P >= T.size())
        return error("unexpected end of input in an object");
      if (T[P] == ',') {
        ++P;
        continue;
      }
      if (T[P] == '}') {
        ++P;
        return true;
      }
      return error("expected ',' or '}' in an object");
    }
  }

  static void appendUtf8(std::string &S, uint32_t CP) {
    if (CP < 0x80) {
      S += static_cast<char>(CP);
    } else if (CP < 0x800) {
      S += static_cast<char>(0xC0 | (CP >> 6));
      S += static_cast<char>(0x80 | (CP & 0x3F));
    } else if (CP < 0x10000) {
      S += static_cast<char>(0xE0 | (CP >> 12));
      S += static_cast<char>(0x80 | ((CP >> 6) & 0x3F));
      S += static_cast<char>(0x80 | (CP & 0x3F));
    } else {
      S += static_cast<char>(0xF0 | (CP >> 18));
      S += static_cast<char>(0x80 | ((CP >> 12) & 0x3F));
      S += static_cast<char>(0x80 | ((CP >> 6) & 0x3F));
      S += static_cast<char>(0x80 | (CP & 0x3F));
    }
  }

  bool hex4(uint32_t &Out) {
    if (P + 4 > T.size())
      return error("truncated \\u escape");
    Out = 0;
    for (int I = 0; I < 4; ++I) {
      char C = T[P++];
      Out <<= 4;
      if (C >= '0' && C <= '9')
        Out |= C - '0';
      else if (C >= 'a' && C <= 'f')
        Out |= C - 'a' + 10;
      else if (C >= 'A' && C <= 'F')
        Out |= C - 'A' + 10;
      else
        return error("invalid \\u escape");
    }
    return true;
  }

  bool parseString(std::string &S) {
    ++P; // "
    while (P < T.size()) {
      unsigned char C = T[P];
      if (C == '"') {
        ++P;
        return true;
      }
      if (C < 0x20)
        return error("control character in a string");
      if (C != '\\') {
        S += static_cast<char>(C);
        ++P;
        continue;
      }
      if (++P >= T.size())
        break;
      char E = T[P++];
      switch (E) {
      case '"': S += '"'; break;
      case '\\': S += '\\'; break;
      case '/': S += '/'; break;
      case 'b': S += '\b'; break;
      case 'f': S += '\f'; break;
      case 'n': S += '\n'; break;
      case 'r': S += '\r'; break;
      case 't': S += '\t'; break;
      case 'u': {
        uint32_t CP;
        if (!hex4(CP))
          return false;
        if (CP >= 0xD800 && CP < 0xDC00) {
          uint32_t Lo;
          if (P + 2 > T.size() || T[P] != '\\' || T[P + 1] != 'u')
            return error("unpaired surrogate in a \\u escape");
          P += 2;
          if (!hex4(Lo))
            return false;
          if (Lo < 0xDC00 || Lo > 0xDFFF)
            return error("invalid surrogate pair in a \\u escape");
          CP = 0x10000 + ((CP - 0xD800) << 10) + (Lo - 0xDC00);
        }
        appendUtf8(S, CP);
        break;
      }
      default:
        return error(std::string("invalid escape '\\") + E + "'");
      }
    }
    return error("unterminated string");
  }

  bool parseNumber(Value &Out) {
    size_t Begin = P;
    bool Neg = false;
    if (T[P] == '-') {
      Neg = true;
      ++P;
    }
    if (P >= T.size() || T[P] < '0' || T[P] > '9')
      return error("invalid number");
    if (T[P] == '0' && P + 1 < T.size() && T[P + 1] >= '0' && T[P + 1] <= '9')
      return error("invalid number (leading zero)");
    bool IsInt = true;
    while (P < T.size() && T[P] >= '0' && T[P] <= '9')
      ++P;
    if (P < T.size() && T[P] == '.') {
      IsInt = false;
      ++P;
      if (P >= T.size() || T[P] < '0' || T[P] > '9')
        return error("invalid number (digit expected after '.')");
      while (P < T.size() && T[P] >= '0' && T[P] <= '9')
        ++P;
    }
    if (P < T.size() && (T[P] == 'e' || T[P] == 'E')) {
      IsInt = false;
      ++P;
      if (P < T.size() && (T[P] == '+' || T[P] == '-'))
        ++P;
      if (P >= T.size() || T[P] < '0' || T[P] > '9')
        return error("invalid number (digit expected in the exponent)");
      while (P < T.size() && T[P] >= '0' && T[P] <= '9')
        ++P;
    }
    std::string Text = T.substr(Begin, P - Begin);
    Out = Value(std::strtod(Text.c_str(), nullptr));
    if (IsInt) {
      // Exact 64-bit magnitude when it fits.
      uint64_t M = 0;
      bool Fits = true;
      for (size_t I = Neg ? 1 : 0; I < Text.size(); ++I) {
        unsigned Dg = Text[I] - '0';
        if (M > (std::numeric_limits<uint64_t>::max() - Dg) / 10) {
          Fits = false;
          break;
        }
        M = M * 10 + Dg;
      }
      if (Fits) {
        Out.IsInt = true;
        Out.Negative = Neg;
        Out.Magnitude = M;
      }
    }
    return true;
  }
};

bool parse(const std::string &Text, Value &Out, std::string &Error) {
  Parser P(Text);
  Value V;
  if (!P.parseDocument(V, Error))
    return false;
  Out = std::move(V);
  return true;
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

std::string quote(const std::string &S) {
  std::string Out = "\"";
  for (unsigned char C : S) {
    switch (C) {
    case '"': Out += "\\\""; break;
    case '\\': Out += "\\\\"; break;
    case '\n': Out += "\\n"; break;
    case '\r': Out += "\\r"; break;
    case '\t': Out += "\\t"; break;
    case '\b': Out += "\\b"; break;
    case '\f': Out += "\\f"; break;
    default:
      if (C < 0x20) {
        char Buf[8];
        std::snprintf(Buf, sizeof(Buf), "\\u%04x", C);
        Out += Buf;
      } else {
        Out += static_cast<char>(C);
      }
    }
  }
  Out += '"';
  return Out;
}

static void newline(std::string &Out, int Indent, int Level) {
  if (Indent <= 0)
    return;
  Out += '\n';
  Out.append(static_cast<size_t>(Indent) * Level, ' ');
}

void writeTo(const Value &V, std::string &Out, int Indent, int Level) {
  switch (V.K) {
  case Value::Null:
    Out += "null";
    return;
  case Value::Bool:
    Out += V.B ? "true" : "false";
    return;
  case Value::Number:
    if (V.IsInt) {
      if (V.Negative && V.Magnitude)
        Out += '-';
      Out += std::to_string(V.Magnitude);
    } else if (!std::isfinite(V.D)) {
      Out += "null"; // JSON has no NaN/Inf
    } else {
      char Buf[40];
      std::snprintf(Buf, sizeof(Buf), "%.17g", V.D);
      Out += Buf;
    }
    return;
  case Value::String:
    Out += quote(V.S);
    return;
  case Value::Array:
    if (V.A.empty()) {
      Out += "[]";
      return;
    }
    Out += '[';
    for (size_t I = 0; I < V.A.size(); ++I) {
      if (I)
        Out += ',';
      newline(Out, Indent, Level + 1);
      writeTo(V.A[I], Out, Indent, Level + 1);
    }
    newline(Out, Indent, Level);
    Out += ']';
    return;
  case Value::Object:
    if (V.O.empty()) {
      Out += "{}";
      return;
    }
    Out += '{';
    for (size_t I = 0; I < V.O.size(); ++I) {
      if (I)
        Out += ',';
      newline(Out, Indent, Level + 1);
      Out += quote(V.O[I].first);
      Out += Indent > 0 ? ": " : ":";
      writeTo(V.O[I].second, Out, Indent, Level + 1);
    }
    newline(Out, Indent, Level);
    Out += '}';
    return;
  }
}

std::string write(const Value &V, int Indent) {
  std::string Out;
  writeTo(V, Out, Indent, 0);
  if (Indent > 0)
    Out += '\n';
  return Out;
}

} // namespace capjson
} // namespace cudal1
