#include "models/order_blindness.h"

#include "models/position_encoding.h"

namespace rotor {

std::string order_blindness(const ModelConfig& config) {
  const PositionEncodingSpec& encoding = position_encoding(config.position.type);
  if (!encoding.reversal_symmetric || config.pooling == Pooling::cls) return "";
  std::string seeing;
  for (const PositionEncodingSpec& s : position_encodings())
    if (!s.reversal_symmetric) seeing += (seeing.empty() ? "" : ", ") + s.name;
  const std::string pooling = option_name(config.pooling);
  const std::string why = config.position.type == "none"
                              ? "it gives attention no position signal"
                              : "its attention bias depends on the distance |i - j| alone, not on direction";
  return "model.position.type " + config.position.type + " with model.pooling " + pooling +
         " cannot tell a sequence from its reverse: " + why + ", and " + pooling +
         " pooling does not see order, so a label that depends on direction cannot be learnt (use model.pooling: "
         "cls, or an encoding that sees direction: " +
         seeing + ")";
}

}  // namespace rotor
