#include "trainers/config/config_schema.h"

#include <type_traits>

#include "models/position_encoding.h"

namespace rotor {
namespace {

template <class T>
std::string type_name() {
  if constexpr (std::is_same_v<T, bool>) return "boolean";
  else if constexpr (std::is_integral_v<T>) return "integer";
  else if constexpr (std::is_floating_point_v<T>) return "number";
  else if constexpr (std::is_same_v<T, std::string> || std::is_enum_v<T>) return "string";
  else return "list of strings";
}

// An option bound to the field that `field(config)` returns by reference.
// Enum fields take their choices from the enum's name table (models/model_options.h).
template <class F>
ConfigOption option(std::string key, F field, std::string help, std::vector<std::string> choices = {}) {
  using T = std::remove_reference_t<decltype(field(std::declval<Config&>()))>;
  ConfigOption o;
  o.key = std::move(key);
  o.type = type_name<T>();
  o.help = std::move(help);
  if constexpr (std::is_enum_v<T>) choices = option_names<T>();
  o.choices = std::move(choices);
  o.set = [field](Config& c, const YAML::Node& v) {
    if constexpr (std::is_same_v<T, std::string> || std::is_enum_v<T>) {
      if (!v.IsScalar()) throw YAML::BadConversion(v.Mark());
    }
    if constexpr (std::is_enum_v<T>) {
      const std::optional<T> e = parse_option<T>(v.Scalar());
      if (!e) throw YAML::BadConversion(v.Mark());  // the loader checks choices first and names them
      field(c) = *e;
    } else {
      field(c) = v.as<T>();
    }
  };
  o.get = [field](const Config& c) {
    if constexpr (std::is_enum_v<T>) return YAML::Node(std::string(option_name(field(const_cast<Config&>(c)))));
    else return YAML::Node(field(const_cast<Config&>(c)));
  };
  return o;
}

#define OPT(key, member, ...) option(key, [](Config& c) -> auto& { return c.member; }, __VA_ARGS__)

std::vector<ConfigOption> build() {
  return {
      // run
      OPT("run.name", run.name, "Run name; the run directory is out_dir/name"),
      OPT("run.out_dir", run.out_dir, "Parent directory of run directories"),
      OPT("run.seed", run.seed, "Seed of parameter initialisation and dropout"),
      OPT("run.threads", run.threads, "OpenMP threads (0: all cores); bit-exact resume needs the same count"),
      OPT("run.progress", run.progress, "Progress display: a bar on terminals, plain lines otherwise",
          {"auto", "bar", "lines", "none"}),
      OPT("run.log_every", run.log_every, "Steps between training log events in metrics.jsonl"),
      // model
      OPT("model.vocab_size", model.vocab_size, "Embedding rows; set automatically from the tokenizer"),
      OPT("model.d_model", model.d_model, "Width of the residual stream"),
      OPT("model.layers", model.layers, "Transformer blocks"),
      OPT("model.heads", model.heads, "Attention heads (d_model must divide evenly)"),
      OPT("model.d_ff", model.d_ff, "Hidden width of the MLP"),
      OPT("model.dropout", model.dropout, "Dropout on embeddings, residual branches and the pooled vector"),
      OPT("model.attention_dropout", model.attention_dropout, "Dropout on attention probabilities"),
      OPT("model.norm", model.norm,
          "Layer norm before (pre, with a final norm) or after (post, BERT/RoFormer: no final norm) each residual"),
      OPT("model.pooling", model.pooling, "Sequence pooling for the classifier"),
      OPT("model.attention", model.attention, "softmax, or linear attention with the elu(x)+1 feature map"),
      OPT("model.attention_kernel", model.attention_kernel,
          "softmax attention: fused (O(N) memory, tiles recomputed in the backward) or composed (the reference "
          "built from matmul/softmax/dropout ops, O(N^2) memory)"),
      OPT("model.activation", model.activation, "MLP activation"),
      OPT("model.norm_eps", model.norm_eps, "Layer-norm epsilon"),
      OPT("model.init_std", model.init_std, "Standard deviation of the normal weight initialisation"),
      OPT("model.num_classes", model.num_classes, "Output classes; set automatically from the training labels"),
      OPT("model.position.type", model.position.type, "Position encoding", position_encoding_names()),
      OPT("model.position.layout", model.position.layout,
          "rope pairs: interleaved (2i, 2i+1) as in RoFormer, or half (i, i+r/2) as in GPT-NeoX/LLaMA"),
      OPT("model.position.base", model.position.base, "rope: theta_i = base^(-2i/r)"),
      OPT("model.position.fraction", model.position.fraction, "rope: share of each head's dims that rotate"),
      OPT("model.position.rotary_value", model.position.rotary_value, "rope: also rotate the values"),
      OPT("model.position.scaling", model.position.scaling, "rope: frequency scaling for lengths beyond training"),
      OPT("model.position.scaling_factor", model.position.scaling_factor, "rope scaling: target / training length"),
      OPT("model.position.original_max_len", model.position.original_max_len, "rope yarn: the training length (unset: data.max_len)"),
      OPT("model.position.max_len", model.position.max_len, "learned: rows of the position table (max_len + 1 with cls pooling)"),
      OPT("model.position.num_buckets", model.position.num_buckets, "t5_bias: relative-position buckets"),
      OPT("model.position.max_distance", model.position.max_distance, "t5_bias: distance of the last bucket"),
      OPT("model.position.per_layer", model.position.per_layer, "t5_bias: one table per layer instead of shared"),
      // data
      OPT("data.task", data.task, "Built-in task; empty: read the files below",
          {"", "listops-easy", "listops-512", "listops-2k", "listops-extrap", "listops", "brown", "brown-4", "sotu"}),
      OPT("data.data_dir", data.data_dir, "Where fetch scripts put corpora (empty: $ROTOR_DATA, else data)"),
      OPT("data.format", data.format, "Input format (empty: from the file extension)", {"", "jsonl", "csv", "tsv", "folder"}),
      OPT("data.train_path", data.train_path, "Training file or folder"),
      OPT("data.val_path", data.val_path, "Validation source (empty: split from train by hash)"),
      OPT("data.test_path", data.test_path, "Test source (empty: split from train by hash)"),
      OPT("data.source_path", data.source_path, "One source split by hash into train/val/test"),
      OPT("data.text_field", data.text_field, "JSONL field or CSV column holding the text"),
      OPT("data.label_field", data.label_field, "JSONL field or CSV column holding the label"),
      OPT("data.key_field", data.key_field, "Field whose hash decides the split (empty: the text)"),
      OPT("data.val_fraction", data.val_fraction, "Hash split: share of validation"),
      OPT("data.test_fraction", data.test_fraction, "Hash split: share of test"),
      OPT("data.include_labels", data.include_labels, "Keep only documents with these labels"),
      OPT("data.data_seed", data.data_seed, "Seed of generated data (ListOps)"),
      OPT("data.train_size", data.train_size, "Generated tasks: training examples (0: the preset's)"),
      OPT("data.eval_size", data.eval_size, "Generated tasks: examples per val/test split (0: the preset's)"),
      OPT("data.listops.max_depth", data.listops.max_depth, "ListOps (task listops): maximum tree depth"),
      OPT("data.listops.max_args", data.listops.max_args, "ListOps (task listops): maximum operator arguments"),
      OPT("data.tokenizer", data.tokenizer, "Tokenizer (empty: vocab for ListOps, byte otherwise)",
          {"", "byte", "vocab", "sentencepiece"}),
      OPT("data.vocab_size", data.vocab_size, "sentencepiece: vocabulary to train; vocab: maximum size (0: no limit)"),
      OPT("data.min_freq", data.min_freq, "vocab: minimum count in the training split"),
      OPT("data.spm_model_type", data.spm_model_type, "sentencepiece model", {"unigram", "bpe"}),
      OPT("data.max_len", data.max_len, "Tokens per training window"),
      OPT("data.eval_max_len", data.eval_max_len, "Tokens per evaluation window (0: max_len)"),
      OPT("data.truncation", data.truncation, "Which tokens a truncated document keeps", {"head", "tail", "head_tail"}),
      OPT("data.random_train_windows", data.random_train_windows,
          "Train on a random window of long documents, re-drawn every epoch"),
      OPT("data.eval_windows", data.eval_windows, "Evaluate the first window or all windows (logits averaged)",
          {"first", "all"}),
      OPT("data.batch_size", data.batch_size, "Windows per batch (when batch_tokens is 0)"),
      OPT("data.batch_tokens", data.batch_tokens, "Batch by a budget of padded tokens instead"),
      OPT("data.bucket_pool", data.bucket_pool, "Windows sorted together by length (0 or 1: no bucketing)"),
      OPT("data.seed", data.seed, "Seed of shuffling and random windows"),
      OPT("data.cache", data.cache, "Reuse tokenized data when sources and settings are unchanged"),
      OPT("data.cache_dir", data.cache_dir, "Token cache directory (empty: data_dir/cache)"),
      // train
      OPT("train.optimizer", train.optimizer, "Optimizer", {"adamw", "adam", "sgd"}),
      OPT("train.lr", train.lr, "Peak learning rate"),
      OPT("train.weight_decay", train.weight_decay, "adamw: decoupled decay; adam, sgd: L2 (biases, norms excluded)"),
      OPT("train.beta1", train.beta1, "adam(w) first-moment decay"),
      OPT("train.beta2", train.beta2, "adam(w) second-moment decay"),
      OPT("train.eps", train.eps, "adam(w) epsilon"),
      OPT("train.momentum", train.momentum, "sgd momentum"),
      OPT("train.schedule", train.schedule, "Learning-rate schedule after linear warm-up",
          {"constant", "linear", "cosine", "inverse_sqrt"}),
      OPT("train.warmup_steps", train.warmup_steps, "Linear warm-up steps"),
      OPT("train.min_lr", train.min_lr, "Floor of the linear and cosine decays"),
      OPT("train.max_steps", train.max_steps, "Optimizer updates to run (0: use max_epochs)"),
      OPT("train.max_epochs", train.max_epochs, "Epochs to run (0: use max_steps)"),
      OPT("train.grad_accumulation", train.grad_accumulation, "Batches whose gradients add up to one update"),
      OPT("train.clip_norm", train.clip_norm, "Global gradient-norm clip (0: off)"),
      OPT("train.label_smoothing", train.label_smoothing, "Cross-entropy label smoothing"),
      OPT("train.eval_every", train.eval_every, "Steps between validations (0: every epoch)"),
      OPT("train.checkpoint_every", train.checkpoint_every, "Steps between checkpoints (0: after each validation)"),
      OPT("train.keep_last", train.keep_last, "Step checkpoints kept; the best one is always kept too"),
      OPT("train.best_metric", train.best_metric, "Validation metric that picks the best checkpoint",
          {"accuracy", "macro_f1", "loss"}),
      OPT("train.early_stopping_patience", train.early_stopping_patience,
          "Validations without improvement before stopping (0: never)"),
  };
}

}  // namespace

const std::vector<ConfigOption>& config_options() {
  static const std::vector<ConfigOption> options = build();
  return options;
}

const ConfigOption* find_option(const std::string& key) {
  for (const ConfigOption& o : config_options())
    if (o.key == key) return &o;
  return nullptr;
}

bool resumable_change(const std::string& key) {
  static const char* keys[] = {"train.max_steps", "train.max_epochs", "train.eval_every", "train.checkpoint_every",
                               "train.keep_last", "run.progress", "run.log_every", "run.name", "run.out_dir"};
  for (const char* k : keys)
    if (key == k) return true;
  return false;
}

}  // namespace rotor
