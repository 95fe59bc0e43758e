#include "models/order_blindness.h"

#include "models/position_encoding.h"

namespace rotor {

namespace {

bool blind(const PositionEncodingSpec& encoding, Pooling pooling) {
  return encoding.position_free || (encoding.reversal_symmetric && pooling != Pooling::cls);
}

}  // namespace

std::string order_blindness(const ModelConfig& config) {
  const PositionEncodingSpec& encoding = position_encoding(config.position.type);
  if (!blind(encoding, config.pooling)) return "";
  // Interleaved layers that see direction give the whole model order.
  if (config.interleaved_position.active() &&
      !blind(position_encoding(config.interleaved_position.position.type), config.pooling))
    return "";
  std::string seeing;
  for (const PositionEncodingSpec& s : position_encodings())
    if (!s.reversal_symmetric) seeing += (seeing.empty() ? "" : ", ") + s.name;
  const std::string pooling = option_name(config.pooling);
  const std::string why =
      encoding.position_free
          ? "it gives attention no position signal, so the encoder sees a bag of tokens whatever the pooling"
          : "its attention bias depends on the distance |i - j| alone, not on direction, and " + pooling +
                " pooling does not see order";
  return "model.position.type " + config.position.type + " with model.pooling " + pooling +
         " cannot tell a sequence from its reverse: " + why + "; a label that depends on direction cannot be learnt (" +
         (encoding.position_free ? "" : "use model.pooling: cls, or ") +
         "use an encoding that sees direction: " + seeing + ")";
}

}  // namespace rotor
