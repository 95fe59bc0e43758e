// position.type none: every hook is the default no-op (a bag-of-tokens baseline).
#include "models/position_encoding.h"

namespace rotor {

PositionEncodingSpec no_position_encoding_spec() {
  PositionEncodingSpec s;
  s.name = "none";
  s.validate = [](const ModelConfig&) {};
  s.make = [](ParameterStore&, const ModelConfig&) { return std::make_unique<PositionEncoding>(); };
  s.reversal_symmetric = true;
  s.position_free = true;
  return s;
}

}  // namespace rotor
