#include "trainers/config/config_schema.h"

#include <algorithm>
#include <sstream>
#include <type_traits>
#include <variant>

#include <fmt/core.h>

#include "models/interleaved_position.h"
#include "models/position_encoding.h"
#include "trainers/config/objective_table.h"

namespace rotor {
namespace {

template <class T>
std::string type_name() {
  if constexpr (std::is_same_v<T, bool>)
    return "boolean";
  else if constexpr (std::is_integral_v<T>)
    return "integer";
  else if constexpr (std::is_floating_point_v<T>)
    return "number";
  else if constexpr (std::is_same_v<T, std::string> || std::is_enum_v<T>)
    return "string";
  else if constexpr (std::is_same_v<T, std::vector<int64_t>>)
    return "list of integers";
  else
    return "list of strings";
}

// An option bound to the field that `field(config)` returns by reference.
// Enum fields take their choices from the enum's name table (engine/option_names.h).
template <class F>
ConfigOption option(std::string key, F field, std::string help) {
  using T = std::remove_reference_t<decltype(field(std::declval<Config&>()))>;
  ConfigOption o;
  o.key = std::move(key);
  o.type = type_name<T>();
  o.help = std::move(help);
  if constexpr (std::is_enum_v<T>) o.choices = option_names<T>();
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
    const T& v = field(const_cast<Config&>(c));
    // Numbers in their shortest round-trip form: 1e-05, not 1.0000000000000001e-05.
    if constexpr (std::is_enum_v<T>)
      return YAML::Node(std::string(option_name(v)));
    else if constexpr (std::is_floating_point_v<T>)
      return YAML::Node(fmt::format("{}", v));
    else
      return YAML::Node(v);
  };
  return o;
}

// "" (the key's "not set" value) followed by `names`.
std::vector<std::string> with_empty(std::vector<std::string> names) {
  names.insert(names.begin(), "");
  return names;
}

#define OPT(key, member, ...) \
  option(                     \
      key, [](Config & c) -> auto& { return c.member; }, __VA_ARGS__)

std::vector<ConfigOption> rows();

const std::string kInterleaved = "model.interleaved_position.";

// model.position, or with `interleaved` model.interleaved_position's encoding.
template <class C>
auto& position_block(C& c, bool interleaved) {
  return interleaved ? c.model.interleaved_position.position : c.model.position;
}

// A model.position.* key as the encodings that read it declare it (models/position_option.h), under
// model.position or (`interleaved`) model.interleaved_position.
ConfigOption position_option(const PositionOption& declared, bool interleaved) {
  ConfigOption o;
  o.key = (interleaved ? kInterleaved : "model.position.") + declared.key;
  o.type = declared.type_name();
  o.help = (interleaved ? "Interleaved encoding, " : "") + position_option_owners(declared.key) + ": " + declared.help;
  o.choices = declared.choices;
  o.range = declared.range;
  o.position_key = declared.key;
  o.interleaved = interleaved;
  o.set = [key = declared.key, type = declared.default_value.index(), interleaved](Config& c, const YAML::Node& v) {
    static_assert(std::is_same_v<std::variant_alternative_t<3, PositionValue>, std::string>);
    static_assert(std::is_same_v<std::variant_alternative_t<4, PositionValue>, std::vector<double>>);
    PositionConfig& p = position_block(c, interleaved);
    if (type == 4) return p.set(key, v.as<std::vector<double>>());  // throws on a scalar
    if (!v.IsScalar()) throw YAML::BadConversion(v.Mark());
    if (type == 0) p.set(key, v.as<bool>());
    if (type == 1) p.set(key, v.as<int64_t>());
    if (type == 2) p.set(key, v.as<double>());
    if (type == 3) p.set(key, v.Scalar());
  };
  o.get = [key = declared.key, interleaved](const Config& c) {
    const PositionValue v = position_block(c, interleaved).value(key);
    if (const bool* b = std::get_if<bool>(&v)) return YAML::Node(*b);
    if (const int64_t* i = std::get_if<int64_t>(&v)) return YAML::Node(*i);
    if (const auto* list = std::get_if<std::vector<double>>(&v)) {
      YAML::Node numbers(YAML::NodeType::Sequence);
      for (double x : *list) numbers.push_back(position_value_text(x));
      numbers.SetStyle(YAML::EmitterStyle::Flow);
      return numbers;
    }
    return YAML::Node(position_value_text(v));  // numbers in their shortest round-trip form
  };
  return o;
}

// After the row named `after`, a row per declared position key; the interleaved encoding has no rows for the keys
// that belong to the whole model (models/interleaved_position.h).
void insert_position_rows(std::vector<ConfigOption>& options, const std::string& after, bool interleaved) {
  const auto at = std::find_if(options.begin(), options.end(), [&](const ConfigOption& o) { return o.key == after; });
  const std::vector<std::string> model_wide = model_wide_position_keys();
  std::vector<ConfigOption> rows;
  for (const PositionOption& p : position_options())
    if (!interleaved || std::find(model_wide.begin(), model_wide.end(), p.key) == model_wide.end())
      rows.push_back(position_option(p, interleaved));
  options.insert(at + 1, rows.begin(), rows.end());
}

std::vector<ConfigOption> build() {
  std::vector<ConfigOption> options = rows();
  insert_position_rows(options, "model.position.type", false);
  insert_position_rows(options, kInterleaved + "type", true);
  return options;
}

// Every key but the encodings' own, in reference order.
std::vector<ConfigOption> rows() {
  return {
      // run
      OPT("run.name", run.name, "Run name; the run directory is out_dir/name").on_resume(),
      OPT("run.out_dir", run.out_dir, "Parent directory of run directories").path().on_resume(),
      OPT("run.seed", run.seed, "Seed of parameter initialisation and dropout"),
      OPT("run.threads", run.threads, "OpenMP threads (0: all cores); bit-exact resume needs the same count")
          .at_least(0),
      OPT("run.precision", run.precision,
          "Matrix-product inputs: fp32, or bf16 (rounded to bfloat16, fp32 accumulation; weights, optimizer state, "
          "softmax, norms, losses and rotations stay fp32)"),
      OPT("run.progress", run.progress, "Progress display: a bar on terminals, plain lines otherwise").on_resume(),
      OPT("run.log_every", run.log_every, "Steps between training log events in metrics.jsonl").at_least(1).on_resume(),
      OPT("run.mpi_overlap", run.mpi_overlap,
          "MPI ranks: start each gradient bucket's sum during the backward pass (false: after it); same results")
          .on_resume(),
      OPT("run.mpi_bucket_bytes", run.mpi_bucket_bytes,
          "MPI ranks: bytes of whole parameters summed per gradient bucket; same results")
          .at_least(1)
          .at_most(static_cast<double>(int64_t{1} << 32))
          .on_resume(),
      // model
      OPT("model.d_model", model.d_model, "Width of the residual stream"),
      OPT("model.layers", model.layers, "Transformer blocks"),
      OPT("model.heads", model.heads, "Attention heads (d_model must divide evenly)"),
      OPT("model.d_ff", model.d_ff, "Hidden width of the MLP"),
      OPT("model.dropout", model.dropout, "Dropout on embeddings, residual branches and the pooled vector"),
      OPT("model.attention_dropout", model.attention_dropout, "Dropout on attention probabilities"),
      OPT("model.norm", model.norm,
          "Layer norm before (pre, with a final norm) or after (post, BERT/RoFormer: no final norm) each residual"),
      OPT("model.pooling", model.pooling, "Sequence pooling for the classifier").classification(),
      OPT("model.attention", model.attention, "softmax, or linear attention with the elu(x)+1 feature map"),
      OPT("model.attention_kernel", model.attention_kernel,
          "softmax attention: fused (O(N) memory, tiles recomputed in the backward) or composed (the reference "
          "built from matmul/softmax/dropout ops, O(N^2) memory)"),
      OPT("model.linear_rotation", model.linear_rotation,
          "linear attention with a rotating encoding: rotate phi(q), phi(k) in the numerator only "
          "(after_feature_map: RoFormer eq. 19, the paper's text) or q and k before phi (before_feature_map: as "
          "the released code)"),
      OPT("model.activation", model.activation, "MLP activation"),
      OPT("model.norm_eps", model.norm_eps, "Layer-norm epsilon"),
      OPT("model.init_std", model.init_std, "Standard deviation of the normal weight initialisation"),
      OPT("model.embedding_scale", model.embedding_scale,
          "Token embeddings: 1 = drawn N(0, init_std), used as they are (BERT); sqrt_d = drawn N(0, d_model^-1/2) "
          "and multiplied by sqrt(d_model), unit RMS (Vaswani)"),
      OPT("model.position.type", model.position.type, "Position encoding").one_of(position_encoding_names()),
      OPT("model.interleaved_position.every", model.interleaved_position.every,
          "Interleave a second encoding: every this many layers (0: off; Llama 4's iRoPE: 4)")
          .at_least(0),
      OPT("model.interleaved_position.first", model.interleaved_position.first,
          "Interleaved encoding: the first (0-based) layer that takes it, then every `every` layers (Llama 4: 3)")
          .at_least(0)
          .interleaving(),
      OPT("model.interleaved_position.type", model.interleaved_position.position.type,
          "Interleaved encoding: its name, from the same table as model.position.type; its keys follow")
          .one_of(position_encoding_names())
          .interleaving(),
      OPT("model.init_from", init_from.checkpoint,
          "Fine-tune: a checkpoint or run directory (its best checkpoint) whose encoder (embeddings, blocks, norms, "
          "position parameters) and tokenizer this run starts from, with a new head; read when a run starts, never "
          "on resume (empty: from scratch)")
          .path()
          .on_resume(),
      OPT("model.init_from_checksum", init_from.checksum,
          "Fine-tune: the source checkpoint's content checksum (fnv1a64:<16 hex digits>, its content_fnv1a64); "
          "empty: recorded when the run starts; set: the source must have it")
          .on_resume(),
      // data
      OPT("data.task", data.task, "Built-in task; empty: read the files below")
          .one_of(with_empty(builtin_task_names())),
      OPT("data.data_dir", data.data_dir, "Where fetch scripts put corpora (empty: $ROTOR_DATA, else data)").path(),
      OPT("data.format", data.format,
          "Input format (empty: from the extension; .txt and, for a language model, a folder are text)"),
      OPT("data.train_path", data.train_path, "Training file or folder").path(),
      OPT("data.val_path", data.val_path, "Validation source (empty: split from train by hash)").path(),
      OPT("data.test_path", data.test_path, "Test source (empty: split from train by hash)").path(),
      OPT("data.source_path", data.source_path, "One source split by hash into train/val/test").path(),
      OPT("data.text_field", data.text_field, "JSONL field or CSV column holding the text"),
      OPT("data.label_field", data.label_field, "JSONL field or CSV column holding the label").classification(),
      OPT("data.key_field", data.key_field, "Field whose hash decides the split (empty: the text)"),
      OPT("data.positions_field", data.positions_field,
          "JSONL field of each token's position: a list of integers, one per token of the run's tokenizer "
          "(empty: a window's tokens at 0..N-1)")
          .classification(),
      OPT("data.val_fraction", data.val_fraction, "Hash split: share of validation").at_least(0).below(1),
      OPT("data.test_fraction", data.test_fraction, "Hash split: share of test").at_least(0).below(1),
      OPT("data.include_labels", data.include_labels, "Keep only documents with these labels").classification(),
      OPT("data.data_seed", data.data_seed, "Seed of generated data (ListOps, separation and sequence tasks)"),
      OPT("data.train_size", data.train_size, "Generated tasks: training examples (0: the preset's)")
          .at_most(kMaxGeneratedExamples),
      OPT("data.eval_size", data.eval_size, "Generated tasks: examples per val/test split (0: the preset's)")
          .at_most(kMaxGeneratedExamples),
      OPT("data.listops.max_depth", data.listops.max_depth, "ListOps (task listops): maximum tree depth"),
      OPT("data.listops.max_args", data.listops.max_args, "ListOps (task listops): maximum operator arguments"),
      OPT("data.generated.min_len", data.generated.min_len,
          "Separation and sequence tasks: shortest train/val/test sample (tokens; a sequence task's input symbols)")
          .at_least(1),
      OPT("data.generated.max_len", data.generated.max_len,
          "Separation and sequence tasks: longest train/val/test sample (tokens; a sequence task's input symbols)")
          .at_least(1)
          .at_most(kMaxGeneratedSampleLen),
      OPT("data.generated.test_lengths", data.generated.test_lengths,
          "Separation and sequence tasks: one extra split test_<L> per entry, lengths in (L/2, L] (sequence tasks: "
          "inputs of exactly L), L <= 1048576"),
      OPT("data.generated.alphabet", data.generated.alphabet, "Separation tasks: filler and value symbols (V)")
          .at_least(2)
          .below(27),
      OPT("data.generated.keys", data.generated.keys, "Separation task recall: key symbols (K)").at_least(1),
      OPT("data.generated.offset", data.generated.offset, "Separation task offset: distance k after the marker")
          .at_least(1),
      OPT("data.generated.positions", data.generated.positions,
          "Sequence tasks: the tokens' positions. index: token t at t. coupled (binary-addition, addition): digits "
          "of the same significance in both operands and the answer share a position, the operator and answer "
          "mark take 0 (position coupling, Cho et al. 2024; docs/guide/tasks-sequence.md)"),
      OPT("data.generated.position_offset", data.generated.position_offset,
          "Coupled positions: each training sample's count starts at a random offset in [0, this] (Cho et al. "
          "2024); 0: none")
          .at_least(0),
      OPT("data.generated.index_hints", data.generated.index_hints,
          "Addition in a decoder (task addition): each digit of the operands and the answer follows one of this "
          "many ordered hint symbols h0, h1, ... naming its significance, training samples from a random first "
          "hint, held-out ones from h0 (index hints, Zhou et al. 2024; docs/guide/tasks-sequence.md); 0: none")
          .at_least(0)
          .at_most(kMaxIndexHints),
      OPT("data.tokenizer", data.tokenizer,
          "Tokenizer (empty: vocab for generated tasks, byte otherwise). Natural-language text: vocab with lowercase "
          "and "
          "split_punctuation, whose tokens are words, where byte must learn words from letters within the same "
          "budget (held-out 9-way genre task: 87.7% for vocab against 61.5% for byte); sentencepiece for large "
          "vocabularies"),
      OPT("data.vocab_size", data.vocab_size, "sentencepiece: vocabulary to train; vocab: maximum size (0: no limit)"),
      OPT("data.min_freq", data.min_freq, "vocab: minimum count in the training split"),
      OPT("data.lowercase", data.lowercase, "vocab: lowercase ASCII letters first, so 'The' and 'the' are one token"),
      OPT("data.split_punctuation", data.split_punctuation,
          "vocab: ASCII punctuation becomes tokens of its own, so 'earth.' is 'earth' '.'"),
      OPT("data.spm_model_type", data.spm_model_type, "sentencepiece model"),
      OPT("data.max_len", data.max_len, "Tokens per training window").at_least(1),
      OPT("data.eval_max_len", data.eval_max_len, "Tokens per evaluation window (0: max_len)").at_least(0),
      OPT("data.lm_blocks", data.lm_blocks,
          "Language models: stream cuts the documents joined into one stream (each followed by SEP) into windows "
          "regardless of where documents end; document cuts each document on its own, so no window spans two and "
          "a document's last window is shorter (padded)")
          .only_for(ObjectiveKind::clm)
          .only_for(ObjectiveKind::mlm),
      OPT("data.truncation", data.truncation, "Which tokens a truncated document keeps").classification(),
      OPT("data.random_train_windows", data.random_train_windows,
          "Train on a random window of long documents, re-drawn every epoch")
          .classification(),
      OPT("data.eval_windows", data.eval_windows, "Evaluate the first window or all windows (logits averaged)")
          .classification(),
      OPT("data.shuffle_tokens", data.shuffle_tokens,
          "Order control: every window's tokens in a random order (per document and epoch; CLS and padding stay), "
          "in training and evaluation")
          .classification(),
      OPT("data.batch_size", data.batch_size, "Windows per batch (when batch_tokens is 0)").at_least(1),
      OPT("data.batch_tokens", data.batch_tokens, "Batch by a budget of padded tokens instead").at_least(0),
      OPT("data.bucket_pool", data.bucket_pool, "Windows sorted together by length (0 or 1: no bucketing)").at_least(0),
      OPT("data.seed", data.seed, "Seed of shuffling and random windows"),
      OPT("data.cache", data.cache, "Reuse tokenized data when sources and settings are unchanged"),
      OPT("data.cache_dir", data.cache_dir,
          "Token cache directory (empty: data_dir/cache when data_dir or $ROTOR_DATA is set or for a fetched corpus, "
          "else $XDG_CACHE_HOME/rotor/tokens or ~/.cache/rotor/tokens)")
          .path(),
      // train
      OPT("train.objective", train.objective,
          "classify: label documents; clm: causal language model (next-token loss on every position, output tied "
          "to the token embedding); mlm: masked language model (BERT's masking, loss on the selected tokens)"),
      OPT("train.optimizer", train.optimizer, "Optimizer"),
      OPT("train.lr", train.lr, "Peak learning rate").above(0),
      OPT("train.weight_decay", train.weight_decay, "adamw: decoupled decay; adam, sgd: L2 (biases, norms excluded)")
          .at_least(0),
      OPT("train.beta1", train.beta1, "adam(w) first-moment decay").at_least(0).below(1),
      OPT("train.beta2", train.beta2, "adam(w) second-moment decay").at_least(0).below(1),
      OPT("train.eps", train.eps, "adam(w) epsilon").above(0),
      OPT("train.momentum", train.momentum, "sgd momentum"),
      OPT("train.schedule", train.schedule, "Learning-rate schedule after linear warm-up"),
      OPT("train.warmup_steps", train.warmup_steps,
          "Linear warm-up steps (0: none); longer than the run is an error (the rate would never decay)")
          .at_least(0),
      OPT("train.min_lr", train.min_lr, "Floor of the linear and cosine decays").at_least(0),
      OPT("train.max_steps", train.max_steps, "Optimizer updates to run (0: use max_epochs)").at_least(0).on_resume(),
      OPT("train.max_epochs", train.max_epochs, "Epochs to run (0: use max_steps)").at_least(0).on_resume(),
      OPT("train.grad_accumulation", train.grad_accumulation, "Batches whose gradients add up to one update")
          .at_least(1),
      OPT("train.gradient_groups", train.gradient_groups,
          "Groups each batch is split into, summed in a fixed order; same value = same bits on any number of MPI "
          "ranks that divides it (0: one per rank)")
          .at_least(0),
      OPT("train.clip_norm", train.clip_norm, "Global gradient-norm clip (0: off)").at_least(0),
      OPT("train.label_smoothing", train.label_smoothing, "Cross-entropy label smoothing")
          .at_least(0)
          .below(1)
          .classification(),
      OPT("train.mask_probability", train.mask_probability,
          "mlm: chance that a token is selected (then 80% [MASK], 10% a random token, 10% kept)")
          .above(0)
          .below(1)
          .only_for(ObjectiveKind::mlm),
      OPT("train.eval_every", train.eval_every, "Steps between validations (0: every epoch)").at_least(0).on_resume(),
      OPT("train.checkpoint_every", train.checkpoint_every, "Steps between checkpoints (0: after each validation)")
          .at_least(0)
          .on_resume(),
      OPT("train.keep_last", train.keep_last, "Step checkpoints kept; the best one is always kept too")
          .at_least(1)
          .on_resume(),
      OPT("train.best_metric", train.best_metric, best_metric_help()).one_of(declared_metric_names()),
      OPT("train.early_stopping_patience", train.early_stopping_patience,
          "Validations without improvement before stopping (0: never)")
          .at_least(0),
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
  const ConfigOption* o = find_option(key);
  return o != nullptr && o->may_change_on_resume;
}

ConfigOption& ConfigOption::one_of(std::vector<std::string> values) {
  choices = std::move(values);
  return *this;
}
ConfigOption& ConfigOption::path() {
  is_path = true;
  return *this;
}
ConfigOption& ConfigOption::on_resume() {
  may_change_on_resume = true;
  return *this;
}
ConfigOption& ConfigOption::only_for(ObjectiveKind objective) {
  objectives.push_back(objective);
  return *this;
}

bool applies_to(const ConfigOption& o, ObjectiveKind objective) {
  return o.objectives.empty() || std::find(o.objectives.begin(), o.objectives.end(), objective) != o.objectives.end();
}

bool is_read_by(const ConfigOption& o, const Config& config) {
  if (!applies_to(o, config.train.objective)) return false;
  if (o.interleaved && !config.model.interleaved_position.active()) return false;
  return o.position_key.empty() ||
         position_encoding(position_block(config, o.interleaved).type).declares(o.position_key);
}

std::string applicable_objectives(const ConfigOption& o) {
  std::string names;
  for (size_t i = 0; i < o.objectives.size(); ++i)
    names += (i == 0 ? "" : i + 1 == o.objectives.size() ? " or " : ", ") + std::string(option_name(o.objectives[i]));
  return names;
}

std::string config_reference(bool markdown) {
  const Config defaults;
  std::ostringstream out;
  std::string section;
  for (const ConfigOption& o : config_options()) {
    YAML::Emitter e;
    e.SetDoublePrecision(17);
    e << YAML::Flow << o.get(defaults);
    std::string def = e.c_str();
    if (def.empty() || def == "~") def = "\"\"";
    std::string type = o.type;
    if (!o.choices.empty()) {
      type.clear();
      for (const std::string& c : o.choices)
        type += (type.empty() ? "" : markdown ? " \\| " : " | ") + (c.empty() ? "\"\"" : c);
    }
    if (o.range.bounded()) type += ", " + o.range.text();
    std::string help = o.help;
    if (o.is_path) help += " (relative: to the config file's folder; with --set: to the working directory)";
    if (o.may_change_on_resume) help += "; may change on resume";
    const std::string top = o.key.substr(0, o.key.find('.'));
    if (markdown) {
      if (top != section)
        out << (section.empty() ? "" : "\n") << "| `" << top
            << "` key | type | default | meaning |\n|---|---|---|---|\n";
      out << "| `" << o.key << "` | " << type << " | `" << def << "` | " << help << " |\n";
    } else {
      if (top != section) out << (section.empty() ? "" : "\n") << top << ":\n";
      out << "  " << o.key << " (" << type << ", default " << def << ")\n      " << help << "\n";
    }
    section = top;
  }
  return out.str();
}

}  // namespace rotor
