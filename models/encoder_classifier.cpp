#include "models/encoder_classifier.h"

namespace rotor {

EncoderClassifier::EncoderClassifier(const ModelConfig& config, DType dtype)
    : Model(config, dtype, /*cls_slot=*/config.pooling == Pooling::cls) {
  head_ = Linear::declare(parameters(), "head", config.d_model, config.num_classes, config.init_std);
}

Var EncoderClassifier::pool(const Var& x, const std::vector<int32_t>& lengths) const {
  switch (config().pooling) {
    case Pooling::cls:
      return reshape(slice(x, 1, 0, 1), {x.size(0), x.size(2)});
    case Pooling::max:
      return masked_max_pool(x, lengths);
    case Pooling::mean:
      break;
  }
  return masked_mean_pool(x, lengths);
}

Var EncoderClassifier::logits(const ModelInput& in, ForwardContext& ctx) const {
  return logits(in, ctx, encoder().window_positions(encoder().slots(in.seq_len), ctx));
}

Var EncoderClassifier::logits(const ModelInput& in, ForwardContext& ctx, const Positions& positions) const {
  std::vector<int32_t> lengths = in.lengths;
  const Var x = encoder().encode(parameters(), in, ctx, positions, lengths);
  return head_(parameters(), ctx.dropout(pool(x, lengths), config().dropout));
}

Var EncoderClassifier::hidden_states(const ModelInput& in, ForwardContext& ctx) const {
  std::vector<int32_t> lengths = in.lengths;
  return encoder().encode(parameters(), in, ctx, encoder().window_positions(encoder().slots(in.seq_len), ctx), lengths);
}

Var EncoderClassifier::loss(const Var& logits, const std::vector<int32_t>& labels, double label_smoothing) const {
  CrossEntropyOptions opt;
  opt.label_smoothing = label_smoothing;
  return cross_entropy(logits, labels, opt);
}

}  // namespace rotor
