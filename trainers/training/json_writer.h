#pragma once
// A flat JSON object built field by field, for metrics.jsonl lines and
// summary.json. Numbers are written with full precision (17 significant
// digits) so logged values compare bit for bit.
#include <cstdint>
#include <string>
#include <string_view>

namespace rotor {

class JsonBuilder {
 public:
  JsonBuilder& add(std::string_view key, std::string_view value);
  JsonBuilder& add(std::string_view key, const char* value) { return add(key, std::string_view(value)); }
  // 17 significant digits by default: logged values compare bit for bit.
  JsonBuilder& add(std::string_view key, double value, int significant_digits = 17);
  JsonBuilder& add(std::string_view key, int64_t value);
  JsonBuilder& add(std::string_view key, int value) { return add(key, static_cast<int64_t>(value)); }
  JsonBuilder& add(std::string_view key, bool value);
  JsonBuilder& add_raw(std::string_view key, std::string_view json);  // an already-encoded value
  std::string str() const { return "{" + body_ + "}"; }

 private:
  void key(std::string_view k);
  std::string body_;
};

std::string json_quote(std::string_view text);

}  // namespace rotor
