#include "models/interleaved_position.h"

#include <algorithm>

#include "models/logn_query_scaling.h"
#include "models/position_encoding.h"
#include "models/positions.h"

namespace rotor {
namespace {

const std::string kPrefix = "model.interleaved_position.";

[[noreturn]] void fail(const std::string& key, const std::string& what) {
  throw ModelConfigError(kPrefix + key + ": " + what);
}

// The interleaved encoding's own checks name model.position.<key>; they are about this block's key.
void validate_as_interleaved(const ModelConfig& alternate) {
  try {
    alternate.validate();
  } catch (const ModelConfigError& e) {
    std::string what = e.what();
    const std::string from = "model.position.";
    for (size_t at = what.find(from); at != std::string::npos; at = what.find(from, at + kPrefix.size()))
      what.replace(at, from.size(), kPrefix);
    throw ModelConfigError(what);
  }
}

// Builds both encodings into a scratch store: a name declared twice, or a module per layer, is refused.
void check_parameters(const ModelConfig& config, const ModelConfig& alternate) {
  ParameterStore scratch;
  make_position_encoding(scratch, config);
  const size_t main_count = scratch.infos().size();
  try {
    make_position_encoding(scratch, alternate);
  } catch (const ValueError&) {
    fail("type", alternate.position.type + " declares the same parameters as model.position.type " +
                     config.position.type + "; interleave two different encodings, or two without parameters");
  }
  for (size_t i = 0; i < scratch.infos().size(); ++i) {
    const std::string& name = scratch.infos()[i].name;
    if (name.rfind("layers.", 0) != 0) continue;
    const std::string& type = i < main_count ? config.position.type : alternate.position.type;
    fail("type", type + " has parameters of its own in every layer (" + name +
                     "), which interleaving would leave unused on the layers the other encoding serves; use an "
                     "encoding whose parameters are shared over layers");
  }
}

}  // namespace

std::vector<std::string> model_wide_position_keys() {
  std::vector<std::string> keys;
  for (const PositionOption& o : randomized_position_options()) keys.push_back(o.key);
  for (const PositionOption& o : logn_scaling_options())
    if (!o.defaults_to_train_length) keys.push_back(o.key);  // original_max_len is also RoPE's scalings' own
  return keys;
}

void validate_interleaved_position(const ModelConfig& config) {
  const InterleavedPosition& in = config.interleaved_position;
  if (!in.active()) {
    if (in.every < 0) fail("every", "must be 0 (off) or at least 2, got " + std::to_string(in.every));
    const bool keys_set = std::any_of(in.position.values.begin(), in.position.values.end(),
                                      [&](const auto& entry) { return in.position.is_set(entry.first); });
    if (in.position.type != "none" || keys_set || in.first != 0)
      fail("every", "set it (at least 2) to interleave model.interleaved_position.type; it is 0 (off)");
    return;
  }
  if (in.every == 1) fail("every", "1 gives every layer this encoding: set model.position instead");
  if (in.first < 0 || in.first >= in.every)
    fail("first", "must be in [0, every = " + std::to_string(in.every) + "), got " + std::to_string(in.first));
  if (in.first >= config.layers)
    fail("first", "layer " + std::to_string(in.first) + " is past the model's " + std::to_string(config.layers) +
                      " layers (0-based): no layer would take this encoding");
  for (const std::string& key : model_wide_position_keys())
    if (in.position.is_set(key))
      fail(key, "belongs to the whole model (the window's positions, the query scaling): set model.position." + key);
  const ModelConfig alternate = config.with_position(in.position);
  validate_as_interleaved(alternate);
  for (const ModelConfig* c : {&config, &alternate})
    if (position_encoding(c->position.type).adds_to_embeddings)
      fail("type", c->position.type + (c == &config ? " (model.position.type)" : "") +
                       " adds its signal to the embeddings, which every layer sees; interleave encodings that act "
                       "in attention");
  check_parameters(config, alternate);
}

}  // namespace rotor
