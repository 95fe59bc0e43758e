#pragma once
// model.init_from: a fine-tune starts its encoder from a pre-trained model's
// (any objective: a masked or causal language model, or another classifier)
// and draws its own head. Only a new run reads the source: a resumed fine-tune
// continues from its own checkpoints, whatever became of the source since.
// The run tokenizes its data with the source's tokenizer, so token ids mean
// what the pre-trained embeddings learnt.
#include <string>

#include "models/model.h"
#include "storage/checkpoint.h"
#include "trainers/config/config.h"
#include "trainers/training/training_checkpoint.h"

namespace rotor {

struct PretrainedEncoder {
  std::string checkpoint;  // the file read (a run directory resolves to its best checkpoint, as `rotor eval`'s does)
  std::string checksum;    // "fnv1a64:<16 hex digits>": the content checksum the file stores (content_fnv1a64)
  CheckpointContents contents;
  CheckpointHeader header;
};

// Reads config.init_from.checkpoint and checks it against the run: a missing or
// damaged source is a CheckpointError naming the file; an encoder of another
// shape or kind (model.d_model, layers, heads, d_ff, position.type, attention,
// norm, activation, embedding_scale), a data.tokenizer other than the source's,
// or a model.init_from_checksum the source does not have is a ConfigError
// naming the key and both values.
PretrainedEncoder read_pretrained_encoder(const Config& config);

// Copies every encoder parameter (Model::encoder_parameters) of `source` into
// `model`, after model.initialize(): the heads keep their drawn values, and so
// does a [CLS] vector the source has none of. A parameter of another shape (a
// position table of another length) is a ConfigError naming the model.position
// keys that differ.
void load_pretrained_encoder(const PretrainedEncoder& source, const Config& config, Model& model);

// What the run records of its source (config.yaml, checkpoints, summary.json).
InitFromConfig source_record(const PretrainedEncoder& source);
// What a run started from `source` says on the console: the file, its step and objective.
std::string describe_start(const PretrainedEncoder& source);

}  // namespace rotor
