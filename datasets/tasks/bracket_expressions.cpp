#include "datasets/tasks/bracket_expressions.h"

#include "datasets/data_error.h"
#include "datasets/tasks/symbol_strings.h"

namespace rotor {
namespace {

using Symbols = std::vector<std::string>;

const char* const kBracketOperators[] = {"+", "-", "*"};  // the authors' op 0, 1, 2

// A recursive-descent reader of one expression from symbols [at, end).
class ExpressionReader {
 public:
  ExpressionReader(const Symbols& symbols, size_t at, size_t end, int64_t x)
      : symbols_(symbols), at_(at), end_(end), x_(x) {}

  int64_t expression() {
    if (peek() == "-") {
      ++at_;
      return modulo(-operand(), kBracketModulus);
    }
    if (peek() != "(") return operand();
    ++at_;
    const int64_t left = expression();
    if (peek() == ")") {  // (d) or (-d)
      ++at_;
      return left;
    }
    const std::string op = take();
    const int64_t right = expression();
    expect(")");
    if (op == "+") return modulo(left + right, kBracketModulus);
    if (op == "-") return modulo(left - right, kBracketModulus);
    if (op == "*") return modulo(left * right, kBracketModulus);
    throw DataError("'" + op + "' is not an operator (+, -, *)");
  }

  bool done() const { return at_ == end_; }

 private:
  const std::string& peek() const {
    static const std::string kEnd;
    return at_ < end_ ? symbols_[at_] : kEnd;
  }
  std::string take() {
    if (at_ == end_) throw DataError("an expression ends early");
    return symbols_[at_++];
  }
  void expect(const std::string& symbol) {
    if (take() != symbol) throw DataError("an expression misses '" + symbol + "'");
  }
  // A digit, or "x" when it has a value.
  int64_t operand() {
    const std::string s = take();
    if (s == "x" && x_ >= 0) return x_;
    return digit_value(s, kBracketModulus);
  }

  const Symbols& symbols_;
  size_t at_;
  size_t end_;
  int64_t x_;
};

}  // namespace

std::vector<std::string> draw_bracket_expression(Draws& draws, int64_t length, bool multiply) {
  if (length <= 4) {
    const std::string d = number_symbol(draws.below(kBracketModulus));
    switch (length) {
      case 1:
        return {d};
      case 2:
        return {"-", d};
      case 3:
        return {"(", d, ")"};
      default:
        return {"(", "-", d, ")"};
    }
  }
  const int64_t left_length = draws.between(1, length - 4);
  Symbols out{"("};
  for (std::string& s : draw_bracket_expression(draws, left_length, multiply)) out.push_back(std::move(s));
  Symbols right = draw_bracket_expression(draws, length - 3 - left_length, multiply);
  out.emplace_back(kBracketOperators[draws.below(multiply ? 3 : 2)]);
  for (std::string& s : right) out.push_back(std::move(s));
  out.emplace_back(")");
  return out;
}

int64_t bracket_expression_value(const std::vector<std::string>& symbols, size_t begin, size_t end, int64_t x) {
  ExpressionReader reader(symbols, begin, end, x);
  const int64_t value = reader.expression();
  if (!reader.done()) throw DataError("symbols follow a complete expression");
  return value;
}

}  // namespace rotor
