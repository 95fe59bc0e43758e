#include "models/position_encoding.h"

namespace rotor {

// Each defined in the encoding's own file.
PositionEncodingSpec rope_encoding_spec();
PositionEncodingSpec sinusoidal_encoding_spec();
PositionEncodingSpec learned_encoding_spec();
PositionEncodingSpec t5_bias_encoding_spec();
PositionEncodingSpec alibi_encoding_spec();
PositionEncodingSpec fire_encoding_spec();
PositionEncodingSpec no_position_encoding_spec();

namespace {

std::vector<PositionEncodingSpec>& table() {
  static std::vector<PositionEncodingSpec> rows{
      rope_encoding_spec(),  sinusoidal_encoding_spec(), learned_encoding_spec(),     t5_bias_encoding_spec(),
      alibi_encoding_spec(), fire_encoding_spec(),       no_position_encoding_spec(),
  };
  return rows;
}

}  // namespace

const std::vector<PositionEncodingSpec>& position_encodings() { return table(); }

std::vector<std::string> position_encoding_names() {
  std::vector<std::string> names;
  for (const PositionEncodingSpec& s : table()) names.push_back(s.name);
  return names;
}

const PositionEncodingSpec& position_encoding(const std::string& name) {
  std::string list;
  for (const PositionEncodingSpec& s : table()) {
    if (s.name == name) return s;
    list += (list.empty() ? "" : ", ") + s.name;
  }
  throw ModelConfigError("model.position.type: unknown value '" + name + "' (expected one of: " + list + ")");
}

void register_position_encoding(PositionEncodingSpec spec) {
  for (const PositionEncodingSpec& s : table())
    if (s.name == spec.name) throw ModelConfigError("model.position.type: '" + spec.name + "' is already registered");
  table().push_back(std::move(spec));
}

std::unique_ptr<PositionEncoding> make_position_encoding(ParameterStore& store, const ModelConfig& config) {
  return position_encoding(config.position.type).make(store, config);
}

}  // namespace rotor
