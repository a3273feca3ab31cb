//===- Expr.cpp - harness spec expressions --------------------------------===//
#include "cudal1/Verify/Expr.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace cudal1 {
namespace {
class Parser {
public:
  Parser(const std::string &T, const ExprEnv &E) : Text(T), Env(E) {}
  bool parse(ExprValue &Out, std::string &Err) {
    if (!parseCond(Out))
      return fail(Err);
    skipWs();
    if (Pos != Text.size()) {
      Error = "unexpected '" + Text.substr(Pos, 1) + "' at column " +
              std::to_string(Pos + 1);
      return fail(Err);
    }
    return true;
  }

private:
  const std::string &Text;
  const ExprEnv &Env;
  size_t Pos = 0;
  std::string Error;

  bool fail(std::string &Err) {
    Err = Error.empty() ? "malformed expression" : Error;
    return false;
  }
  void skipWs() {
    while (Pos < Text.size() && std::isspace((unsigned char)Text[Pos]))
      ++Pos;
  }
  bool eat(char C) {
    skipWs();
    if (Pos < Text.size() && Text[Pos] == C) {
      ++Pos;
      return true;
    }
    return false;
  }
  static ExprValue binop(char Op, const ExprValue &A, const ExprValue &B,
                         std::string &Err) {
    ExprValue R;
    if (A.IsFloat || B.IsFloat) {
      R.IsFloat = true;
      double X = A.asDouble(), Y = B.asDouble();
      switch (Op) {
      case '+': R.F = X + Y; break;
      case '-': R.F = X - Y; break;
      case '*': R.F = X * Y; break;
      case '/':
        if (Y == 0)
          Err = "division by zero";
        else
          R.F = X / Y;
        break;
      default: Err = "'%' needs integer operands";
      }
      return R;
    }
    int64_t X = A.I, Y = B.I;
    bool Over = false;
    switch (Op) {
    case '+': Over = __builtin_add_overflow(X, Y, &R.I); break;
    case '-': Over = __builtin_sub_overflow(X, Y, &R.I); break;
    case '*': Over = __builtin_mul_overflow(X, Y, &R.I); break;
    case '/':
    case '%':
      if (Y == 0)
        Err = "division by zero";
      else if (X == INT64_MIN && Y == -1)
        Over = true;
      else
        R.I = Op == '/' ? X / Y : X % Y;
      break;
    }
    if (Over)
      Err = "integer overflow (the value does not fit 64 bits)";
    return R;
  }
  /// c ? a : b (both branches parsed, one taken), as in C.
  bool parseCond(ExprValue &V) {
    if (!parseOr(V))
      return false;
    skipWs();
    if (!eat('?'))
      return true;
    ExprValue A, B;
    if (!parseCond(A))
      return false;
    if (!eat(':')) {
      Error = "missing ':' after '?'";
      return false;
    }
    if (!parseCond(B))
      return false;
    V = V.asDouble() != 0 ? A : B;
    return true;
  }
  /// a || b, a && b (both sides parsed, && binding tighter): 1 or 0.
  bool parseOr(ExprValue &V) {
    if (!parseAnd(V))
      return false;
    for (;;) {
      skipWs();
      if (Text.compare(Pos, 2, "||") != 0)
        return true;
      Pos += 2;
      ExprValue R;
      if (!parseAnd(R))
        return false;
      V = ExprValue{false, (V.asDouble() != 0 || R.asDouble() != 0) ? 1 : 0, 0};
    }
  }
  bool parseAnd(ExprValue &V) {
    if (!parseCmp(V))
      return false;
    for (;;) {
      skipWs();
      if (Text.compare(Pos, 2, "&&") != 0)
        return true;
      Pos += 2;
      ExprValue R;
      if (!parseCmp(R))
        return false;
      V = ExprValue{false, (V.asDouble() != 0 && R.asDouble() != 0) ? 1 : 0, 0};
    }
  }
  /// a < b, a <= b, a > b, a >= b, a == b, a != b: 1 or 0.
  bool parseCmp(ExprValue &V) {
    if (!parseShift(V))
      return false;
    skipWs();
    std::string Op;
    for (const char *O : {"<=", ">=", "==", "!=", "<", ">"})
      if (Text.compare(Pos, std::strlen(O), O) == 0) {
        Op = O;
        break;
      }
    if (Op.empty())
      return true;
    Pos += Op.size();
    ExprValue R;
    if (!parseShift(R))
      return false;
    double X = V.asDouble(), Y = R.asDouble();
    bool Res;
    if (!V.IsFloat && !R.IsFloat) {
      int64_t A = V.I, B = R.I;
      Res = Op == "<" ? A < B : Op == "<=" ? A <= B : Op == ">" ? A > B
            : Op == ">=" ? A >= B : Op == "==" ? A == B : A != B;
    } else {
      Res = Op == "<" ? X < Y : Op == "<=" ? X <= Y : Op == ">" ? X > Y
            : Op == ">=" ? X >= Y : Op == "==" ? X == Y : X != Y;
    }
    V = ExprValue{false, Res ? 1 : 0, 0};
    return true;
  }
  bool parseShift(ExprValue &V) {
    if (!parseAdd(V))
      return false;
    for (;;) {
      skipWs();
      if (Pos + 1 >= Text.size() ||
          !((Text[Pos] == '<' && Text[Pos + 1] == '<') ||
            (Text[Pos] == '>' && Text[Pos + 1] == '>')))
        return true;
      bool Left = Text[Pos] == '<';
      Pos += 2;
      ExprValue R;
      if (!parseAdd(R))
        return false;
      if (V.IsFloat || R.IsFloat || R.I < 0 || R.I > 62) {
        Error = "shifts need integers and a count in 0..62";
        return false;
      }
      if (Left && (V.I < 0 || V.I > (INT64_MAX >> R.I))) {
        Error = "integer overflow in '<<' (the value does not fit 64 bits)";
        return false;
      }
      V.I = Left ? V.I << R.I : V.I >> R.I;
    }
  }
  bool parseAdd(ExprValue &V) {
    if (!parseMul(V))
      return false;
    for (;;) {
      skipWs();
      if (Pos >= Text.size() || (Text[Pos] != '+' && Text[Pos] != '-'))
        return true;
      char Op = Text[Pos++];
      ExprValue R;
      if (!parseMul(R))
        return false;
      V = binop(Op, V, R, Error);
      if (!Error.empty())
        return false;
    }
  }
  bool parseMul(ExprValue &V) {
    if (!parseUnary(V))
      return false;
    for (;;) {
      skipWs();
      if (Pos >= Text.size() ||
          (Text[Pos] != '*' && Text[Pos] != '/' && Text[Pos] != '%'))
        return true;
      char Op = Text[Pos++];
      ExprValue R;
      if (!parseUnary(R))
        return false;
      V = binop(Op, V, R, Error);
      if (!Error.empty())
        return false;
    }
  }
  bool parseUnary(ExprValue &V) {
    if (eat('-')) {
      if (!parseUnary(V))
        return false;
      if (!V.IsFloat && V.I == INT64_MIN) {
        Error = "integer overflow (the value does not fit 64 bits)";
        return false;
      }
      V.I = -V.I;
      V.F = -V.F;
      return true;
    }
    if (eat('+'))
      return parseUnary(V);
    return parsePrimary(V);
  }
  bool parsePrimary(ExprValue &V) {
    skipWs();
    if (Pos >= Text.size()) {
      Error = "expression ends early";
      return false;
    }
    if (eat('(')) {
      if (!parseCond(V))
        return false;
      if (!eat(')')) {
        Error = "missing ')'";
        return false;
      }
      return true;
    }
    char C = Text[Pos];
    if (std::isdigit((unsigned char)C) || C == '.') {
      const char *B = Text.c_str() + Pos;
      char *E1 = nullptr, *E2 = nullptr;
      errno = 0;
      long long IV = std::strtoll(B, &E1, 0);
      bool Range = errno == ERANGE;
      double FV = std::strtod(B, &E2);
      if (E2 <= E1 && Range) {
        Error = "the number '" + std::string(B, size_t(E1 - B)) +
                "' does not fit 64 bits";
        return false;
      }
      if (E2 > E1) {
        V.IsFloat = true;
        V.F = FV;
        Pos += E2 - B;
      } else {
        V.IsFloat = false;
        V.I = IV;
        Pos += E1 - B;
      }
      // Optional C suffixes: 1.0f, 10u, 10ull.
      while (Pos < Text.size() && std::strchr("fFuUlL", Text[Pos]))
        ++Pos;
      return true;
    }
    if (std::isalpha((unsigned char)C) || C == '_') {
      size_t B = Pos;
      while (Pos < Text.size() &&
             (std::isalnum((unsigned char)Text[Pos]) || Text[Pos] == '_' ||
              Text[Pos] == '.'))
        ++Pos;
      std::string Name = Text.substr(B, Pos - B);
      if (eat('(')) {
        ExprValue A, Bv;
        if (!parseCond(A))
          return false;
        bool Unary = Name == "ceil" || Name == "floor" || Name == "int" ||
                     Name == "float";
        if (Unary) {
          if (!eat(')')) {
            Error = Name + "() takes one argument";
            return false;
          }
          return unary(Name, A, V);
        }
        if (!eat(',')) {
          Error = Name + "() takes two arguments";
          return false;
        }
        if (!parseCond(Bv))
          return false;
        if (!eat(')')) {
          Error = "missing ')' after " + Name + "(...";
          return false;
        }
        if (Name == "cdiv" || Name == "ceil_div") {
          if (A.IsFloat || Bv.IsFloat || Bv.I == 0) {
            Error = Name + "() needs integers and a non-zero divisor";
            return false;
          }
          int64_t Sum;
          if (__builtin_add_overflow(A.I, Bv.I - 1, &Sum) || Bv.I < 0) {
            Error = Name + "() overflows or has a negative divisor";
            return false;
          }
          V = ExprValue{false, Sum / Bv.I, 0};
        } else if (Name == "min" || Name == "max") {
          bool Less = A.asDouble() < Bv.asDouble();
          V = (Name == "min") == Less ? A : Bv;
        } else {
          Error = "unknown function '" + Name + "'";
          return false;
        }
        return true;
      }
      auto It = Env.find(Name);
      if (It == Env.end()) {
        Error = "unknown name '" + Name + "'";
        return false;
      }
      V = It->second;
      return true;
    }
    if (C == '?') {
      Error = "not known: the tool could not infer this value; replace '?' "
              "with it (or --define its name)";
      return false;
    }
    Error = "unexpected '" + std::string(1, C) + "' at column " +
            std::to_string(Pos + 1);
    return false;
  }
  /// ceil(x), floor(x) (integers), int(x) (truncates), float(x).
  bool unary(const std::string &Name, const ExprValue &A, ExprValue &V) {
    double D = A.asDouble();
    if (Name == "float") {
      V = ExprValue{true, 0, D};
      return true;
    }
    double R = Name == "ceil" ? std::ceil(D)
               : Name == "floor" ? std::floor(D)
                                 : std::trunc(D);
    if (!A.IsFloat) {
      V = A;
      return true;
    }
    if (!(std::fabs(R) < 9.2e18)) {
      Error = Name + "() of a value out of range";
      return false;
    }
    V = ExprValue{false, int64_t(R), 0};
    return true;
  }
};
} // namespace

bool evalExpr(const std::string &Text, const ExprEnv &Env, ExprValue &Out,
              std::string &Error) {
  Parser P(Text, Env);
  return P.parse(Out, Error);
}

} // namespace cudal1
