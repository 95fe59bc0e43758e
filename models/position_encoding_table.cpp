#include "models/position_encoding.h"

#include <algorithm>

#include "models/logn_query_scaling.h"

namespace rotor {

// Each defined in the encoding's own file.
PositionEncodingSpec rope_encoding_spec();
PositionEncodingSpec sinusoidal_encoding_spec();
PositionEncodingSpec learned_encoding_spec();
PositionEncodingSpec t5_bias_encoding_spec();
PositionEncodingSpec alibi_encoding_spec();
PositionEncodingSpec fire_encoding_spec();
PositionEncodingSpec alibi_directional_encoding_spec();
PositionEncodingSpec kerple_encoding_spec();
PositionEncodingSpec no_position_encoding_spec();
PositionEncodingSpec xpos_encoding_spec();
PositionEncodingSpec p_rope_encoding_spec();
PositionEncodingSpec proportional_encoding_spec();
PositionEncodingSpec sandwich_encoding_spec();
PositionEncodingSpec cope_encoding_spec();

namespace {

// A shared key means one thing: every declaration gives the same type, default, choices and range.
bool same_declaration(const PositionOption& a, const PositionOption& b) {
  return a.default_value == b.default_value && a.choices == b.choices && a.range.min == b.range.min &&
         a.range.max == b.range.max && a.range.min_exclusive == b.range.min_exclusive &&
         a.range.max_exclusive == b.range.max_exclusive && a.defaults_to_train_length == b.defaults_to_train_length;
}

void append(std::vector<PositionEncodingSpec>& rows, PositionEncodingSpec spec) {
  // Every encoding's queries pass attention's log-length scaling (models/logn_query_scaling.h).
  for (PositionOption& o : logn_scaling_options())
    if (!spec.declares(o.key)) spec.options.push_back(std::move(o));
  for (const PositionEncodingSpec& s : rows) {
    if (s.name == spec.name) throw ModelConfigError("model.position.type: '" + spec.name + "' is already registered");
    for (const PositionOption& mine : spec.options)
      for (const PositionOption& theirs : s.options)
        if (mine.key == theirs.key && !same_declaration(mine, theirs))
          throw ModelConfigError("model.position." + mine.key + ": " + spec.name + " declares it differently from " +
                                 s.name);
  }
  rows.push_back(std::move(spec));
}

std::vector<PositionEncodingSpec>& table() {
  static std::vector<PositionEncodingSpec> rows = [] {
    std::vector<PositionEncodingSpec> built;
    for (PositionEncodingSpec (*spec)() :
         {rope_encoding_spec, sinusoidal_encoding_spec, learned_encoding_spec, t5_bias_encoding_spec,
          alibi_encoding_spec, alibi_directional_encoding_spec, kerple_encoding_spec, fire_encoding_spec,
          no_position_encoding_spec, xpos_encoding_spec, p_rope_encoding_spec, proportional_encoding_spec,
          sandwich_encoding_spec, cope_encoding_spec})
      append(built, spec());
    return built;
  }();
  return rows;
}

}  // namespace

void clamp_parameter_below(ParameterStore& store, ParameterId id, double least) {
  Tensor value = store.value(id);
  std::vector<double> v = value.to_doubles();
  for (double& x : v) x = std::max(x, least);
  value.copy_from(Tensor::from_doubles(value.shape(), DType::F64, v));
}

bool PositionEncodingSpec::declares(const std::string& key) const {
  for (const PositionOption& o : options)
    if (o.key == key) return true;
  return false;
}

const std::vector<PositionEncodingSpec>& position_encodings() { return table(); }

std::vector<PositionOption> position_options() {
  std::vector<PositionOption> all;
  for (const PositionEncodingSpec& s : table())
    for (const PositionOption& o : s.options) {
      bool seen = false;
      for (const PositionOption& a : all) seen = seen || a.key == o.key;
      if (!seen) all.push_back(o);
    }
  return all;
}

const PositionOption* find_position_option(const std::string& key) {
  for (const PositionEncodingSpec& s : table())
    for (const PositionOption& o : s.options)
      if (o.key == key) return &o;
  return nullptr;
}

std::string position_option_owners(const std::string& key) {
  std::string owners;
  for (const PositionEncodingSpec& s : table())
    if (s.declares(key)) owners += (owners.empty() ? "" : " or ") + s.name;
  return owners;
}

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

void register_position_encoding(PositionEncodingSpec spec) { append(table(), std::move(spec)); }

std::unique_ptr<PositionEncoding> make_position_encoding(ParameterStore& store, const ModelConfig& config) {
  return position_encoding(config.position.type).make(store, config);
}

}  // namespace rotor
