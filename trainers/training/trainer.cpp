#include "trainers/training/trainer.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/core.h>

#include "datasets/dataset.h"
#include "engine/parallel.h"
#include "engine/precision.h"
#include "models/order_blindness.h"
#include "storage/checkpoint_directory.h"
#include "trainers/config/config_loader.h"
#include "trainers/distributed/communicator.h"
#include "trainers/distributed/run_agreement.h"
#include "trainers/run/metrics_log.h"
#include "trainers/run/run_directory.h"
#include "trainers/run/run_lock.h"
#include "trainers/training/data_dimensions.h"
#include "trainers/training/memory_estimate.h"
#include "trainers/training/objective.h"
#include "trainers/training/optimizer_factory.h"
#include "trainers/training/pretrained_encoder.h"
#include "trainers/training/progress.h"
#include "trainers/training/resume.h"
#include "trainers/training/run_compute_scope.h"
#include "trainers/training/run_length.h"
#include "trainers/training/signals.h"
#include "trainers/training/train_step.h"
#include "trainers/training/training_checkpoint.h"

namespace rotor {
namespace fs = std::filesystem;
namespace {

class TrainingSession {
 public:
  TrainingSession(Config config, fs::path run_dir, std::optional<std::string> resume_from, bool allow_data_change,
                  HeldOutScores held_out_scores);
  int run(int64_t stop_after);

 private:
  void load_data(const CheckpointHeader* header, const PretrainedEncoder* pretrained);
  void start_from(const PretrainedEncoder& pretrained, Model& model);  // model.init_from, said on the console
  // Refuses data changed since the checkpoint, then finishes a save a kill interrupted.
  void accept_resume(const CheckpointHeader& header, const std::string& checkpoint, bool allow_data_change);
  bool train_step();                                  // one optimizer update; returns true at the end of an epoch
  SplitScores final_score(const std::string& split);  // a held-out split's, by the best checkpoint
  RunSummary unscored_summary() const;
  void log_training(double lr, double grad_norm);
  // Why a checkpoint is written; every save goes through save_checkpoint().
  enum class SaveReason { signal, stop_after, best, evaluation, schedule };
  std::optional<SaveReason> save_due(bool evaluated, bool better) const;
  void save_checkpoint(SaveReason reason);
  void write_checkpoint_file(SaveReason reason);
  bool finished() const;
  int stop_for(int sig);
  void test_best();
  double elapsed() const;
  template <typename Event>
  void log(const Event& event) {
    if (log_) log_->write(event);
  }
  void note(const std::string& line) {
    if (root_) progress_->note(line);
  }

  Config config_;
  RunComputeScope compute_{config_.run};  // this thread's products and the thread count, for the whole session
  fs::path run_dir_;
  RunDirectory run_files_;
  Communicator& comm_ = world();
  bool root_ = comm_.is_root();  // rank 0 alone writes files and prints progress
  std::optional<RunLock> lock_;
  CheckpointDirectory checkpoints_;
  Dataset data_;
  std::unique_ptr<Objective> objective_;  // the model, its batches, loss and scores (objective.h)
  std::unique_ptr<Optimizer> optimizer_;
  std::optional<LrSchedule> schedule_;
  std::optional<Sampler> train_sampler_;
  std::optional<MetricsLog> log_;
  std::optional<TrainStep> step_;  // forward, backward, gradient sums and update (train_step.h)
  TrainingState state_;
  int64_t total_steps_ = 0;
  int64_t last_saved_step_ = -1;
  Progress::Style style_;
  std::unique_ptr<Progress> progress_;
  std::chrono::steady_clock::time_point session_start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_log_ = session_start_;
  int64_t tokens_since_log_ = 0;
  bool already_done_ = false;  // resumed a run whose summary is written: nothing to do
  HeldOutScores held_out_scores_;
};

TrainingSession::TrainingSession(Config config, fs::path run_dir, std::optional<std::string> resume_from,
                                 bool allow_data_change, HeldOutScores held_out_scores)
    : config_(std::move(config)),
      run_dir_(std::move(run_dir)),
      run_files_(run_dir_.string()),
      checkpoints_(run_files_.checkpoints()),
      style_(Progress::style(config_.run.progress)),
      held_out_scores_(std::move(held_out_scores)) {
  if (root_) lock_.emplace(run_dir_.string());
  std::optional<CheckpointContents> ckpt;
  std::optional<CheckpointHeader> header;
  if (resume_from) {
    ckpt = read_checkpoint(*resume_from);
    header = read_header(*ckpt, *resume_from);
  }
  // A fine-tune reads its source when it starts only; resumed, it keeps the record of that start.
  std::optional<PretrainedEncoder> pretrained;
  if (header) config_.init_from = header->config.init_from;
  if (!header && !config_.init_from.checkpoint.empty()) pretrained = read_pretrained_encoder(config_);
  // Fixed when a run starts and kept by its checkpoints (trainers/distributed/gradient_groups.h).
  config_.train.gradient_groups =
      resolve_gradient_groups(config_.train.gradient_groups, header ? &header->config.train.gradient_groups : nullptr,
                              comm_.size(), resume_from);
  if (header) {
    require_resumable_config(header->config, config_, *resume_from);
    if (root_ && header->threads != num_threads())
      fmt::print(stderr, "note: checkpoint was written with {} threads, resuming with {}\n", header->threads,
                 num_threads());
  }
  // Rank 0 builds the token cache first; the other ranks then read it.
  if (!root_) comm_.barrier();
  load_data(header ? &*header : nullptr, pretrained ? &*pretrained : nullptr);
  if (root_) comm_.barrier();
  if (header) accept_resume(*header, *resume_from, allow_data_change);
  // From the config: declaring the parameters of an absurd model takes minutes by itself.
  check_fits_in_memory(estimate_training_memory(config_, weight_count(config_.model), comm_.size()));
  objective_ = make_objective(config_, data_);
  Model& model = objective_->model();
  model.initialize(config_.run.seed);
  if (pretrained) start_from(*pretrained, model);
  optimizer_ = make_optimizer(config_.train, model.parameters());
  train_sampler_.emplace(objective_->training_sampler());
  total_steps_ = planned_steps(config_.train, train_sampler_->batches_in_epoch());
  schedule_.emplace(make_schedule(config_.train, total_steps_));
  if (ckpt) {
    load_parameters(*ckpt, *resume_from, model);
    load_optimizer(*ckpt, *resume_from, *optimizer_);
    state_ = header->state;
    train_sampler_->restore(state_.sampler);
    last_saved_step_ = state_.step;
    if (root_)
      fmt::print(stderr, "resumed from {} at step {} (epoch {}){}\n", *resume_from, state_.step, state_.sampler.epoch,
                 config_.init_from.checkpoint.empty() ? "" : "; a fine-tune of " + config_.init_from.checkpoint);
  }
  synchronize_parameters(comm_, model.parameters(), *optimizer_);
  step_.emplace(*objective_, *optimizer_, comm_, config_, reducer_options(config_.run), checkpoints_.dir());
  already_done_ = ckpt && finished() && run_files_.summarized_steps() == state_.step;
  if (already_done_ || !root_) return;  // a finished run writes nothing; rank 0 alone writes
  run_files_.write_config(dump_config(config_));
  log_.emplace(run_files_.metrics_path(), ckpt ? state_.step : -1);
}

void TrainingSession::load_data(const CheckpointHeader* header, const PretrainedEncoder* pretrained) {
  LoadOptions opt;
  if (header) {
    opt.tokenizer = header->tokenizer;
    opt.labels = header->labels;
  }
  if (pretrained) opt.tokenizer = pretrained->header.tokenizer;  // token ids as the encoder learnt them
  opt.warn = [this](const std::string& w) {
    if (root_) fmt::print(stderr, "warning: {}\n", w);
  };
  data_ = load_dataset(config_.data, opt);
  if (root_) fmt::print(stderr, "{}", data_.stats.report());
  // >= 2 classes and a non-empty vocabulary by the data layer; the rest was validated at load.
  set_data_dimensions(config_.model, *data_.tokenizer, data_.labels.size());
}

void TrainingSession::start_from(const PretrainedEncoder& pretrained, Model& model) {
  load_pretrained_encoder(pretrained, config_, model);
  config_.init_from = source_record(pretrained);
  if (root_) fmt::print(stderr, "{}\n", describe_start(pretrained));
}

void TrainingSession::accept_resume(const CheckpointHeader& header, const std::string& checkpoint,
                                    bool allow_data_change) {
  const std::string said = check_resumed_data(header.data_sources, data_.sources, checkpoint, allow_data_change);
  if (!root_) return;
  if (!said.empty()) fmt::print(stderr, "{}\n", said);
  repair_checkpoint_pointers(checkpoints_, checkpoint, header.state, static_cast<int>(config_.train.keep_last));
}

double TrainingSession::elapsed() const {
  return state_.elapsed_s + std::chrono::duration<double>(std::chrono::steady_clock::now() - session_start_).count();
}

bool TrainingSession::train_step() {
  // An update never straddles epochs: the last one of an epoch may use fewer batches.
  const int64_t remaining = train_sampler_->batches_in_epoch() - state_.sampler.cursor;
  const int64_t micro = std::min(config_.train.grad_accumulation, remaining);
  std::vector<Batch> micro_batches(static_cast<size_t>(micro));
  for (Batch& batch : micro_batches)
    if (!train_sampler_->next(batch)) throw TrainingError("internal: the sampler ran out of batches mid-epoch");
  const double lr = schedule_->lr_at(state_.step + 1);
  const uint64_t first_draw = static_cast<uint64_t>(state_.step * config_.train.grad_accumulation);
  const StepResult result = step_->run(micro_batches, first_draw, state_.step + 1, lr);
  if (result.unscored_batches > 0)
    note(fmt::format("warning: step {}: {} of its {} batches selected no token to mask and added no gradient",
                     state_.step + 1, result.unscored_batches, micro));
  for (const double loss_sum : result.totals.loss_sums) state_.loss_sum += loss_sum;
  state_.correct += result.totals.correct;
  state_.tokens += result.totals.tokens;
  tokens_since_log_ += result.totals.tokens;
  state_.seen += result.totals.examples;
  ++state_.step;
  bool epoch_end = false;
  if (state_.sampler.cursor + micro == train_sampler_->batches_in_epoch()) {
    Batch none;
    train_sampler_->next(none);  // returns false and moves to the next epoch
    epoch_end = true;
  }
  state_.sampler = train_sampler_->state();
  if (state_.step % config_.run.log_every == 0) log_training(lr, result.grad_norm);
  return epoch_end;
}

void TrainingSession::log_training(double lr, double grad_norm) {
  const auto now = std::chrono::steady_clock::now();
  const double dt = std::chrono::duration<double>(now - last_log_).count();
  const double rate = dt > 0 ? static_cast<double>(tokens_since_log_) / dt : 0.0;
  const double loss = state_.seen ? state_.loss_sum / static_cast<double>(state_.seen) : 0.0;
  const double acc = state_.seen ? static_cast<double>(state_.correct) / static_cast<double>(state_.seen) : 0.0;
  log(TrainEvent{state_.step, state_.sampler.epoch, lr, loss, acc, grad_norm, state_.tokens, rate, elapsed()});
  if (progress_)
    progress_->update(state_.step, fmt::format("loss {:.4f} acc {:.3f} lr {:.2e}", loss, acc, lr), rate, "tok/s");
  state_.loss_sum = 0;
  state_.seen = state_.correct = 0;
  tokens_since_log_ = 0;
  last_log_ = now;
}

// The caller's score of a held-out split from the best checkpoint (HeldOutScores) where it gives one.
SplitScores TrainingSession::final_score(const std::string& split) {
  std::optional<SplitScores> given;
  if (held_out_scores_ && comm_.size() == 1 && state_.best_step >= 0)
    given = held_out_scores_(split, checkpoints_.path_for_step(state_.best_step), data_);
  return given ? *given : objective_->evaluate(split);
}

// The run's record before its held-out splits are scored.
RunSummary TrainingSession::unscored_summary() const {
  return {config_.run.name,
          state_.step,
          state_.sampler.epoch,
          state_.best_step,
          config_.train.best_metric,
          state_.best_metric,
          objective_->model().parameters().total_size(),
          config_.model.position.type,
          elapsed(),
          elapsed() > 0 ? static_cast<double>(state_.tokens) / elapsed() : 0.0,
          {},
          config_.init_from};
}

std::optional<TrainingSession::SaveReason> TrainingSession::save_due(bool evaluated, bool better) const {
  const TrainConfig& t = config_.train;
  if (evaluated && better) return SaveReason::best;
  if (evaluated && t.checkpoint_every == 0) return SaveReason::evaluation;
  if ((t.checkpoint_every > 0 && state_.step % t.checkpoint_every == 0) || finished()) return SaveReason::schedule;
  return std::nullopt;
}

void TrainingSession::save_checkpoint(SaveReason reason) {
  if (last_saved_step_ == state_.step) return;
  // Every rank has finished this step; rank 0 writes the one checkpoint while
  // the others wait, so none exits (and has mpirun end the job) mid-write.
  comm_.barrier();
  last_saved_step_ = state_.step;
  if (root_) write_checkpoint_file(reason);
  comm_.barrier();
}

void TrainingSession::write_checkpoint_file(SaveReason reason) {
  TrainingState saved = state_;
  saved.elapsed_s = elapsed();
  const std::string path =
      checkpoints_.save(state_.step, snapshot(config_, data_, objective_->model(), *optimizer_, saved),
                        static_cast<int>(config_.train.keep_last), state_.best_step);
  static const char* const why[] = {"stop signal", "--stop-after", "best so far", "after evaluation", "scheduled"};
  if (style_ == Progress::Style::lines) fmt::print(stderr, "checkpoint {} ({})\n", path, why[static_cast<int>(reason)]);
}

bool TrainingSession::finished() const {
  const TrainConfig& t = config_.train;
  if (t.max_steps > 0 && state_.step >= t.max_steps) return true;
  if (t.max_epochs > 0 && state_.sampler.epoch >= t.max_epochs) return true;
  return t.early_stopping_patience > 0 && state_.stale_evals >= t.early_stopping_patience;
}

int TrainingSession::stop_for(int sig) {
  save_checkpoint(SaveReason::signal);
  note("stopped by " + signal_name(sig) + " at step " + std::to_string(state_.step) +
       "; checkpoint saved, resume with --resume auto");
  restore_default_handlers();
  return 128 + sig;
}

int TrainingSession::run(int64_t stop_after) {
  if (already_done_) {
    if (root_)
      fmt::print(stderr, "{}: this run already finished at step {} (see summary.json); nothing to do\n",
                 run_dir_.string(), state_.step);
    return 0;
  }
  install_stop_handlers();
  progress_ = std::make_unique<Progress>("train", total_steps_, root_ ? style_ : Progress::Style::none);
  if (root_)
    fmt::print(stderr, "model: {} parameters, {} position encoding, {}; training {} steps into {}{}\n",
               objective_->model().parameters().total_size(), config_.model.position.type,
               describe(config_.run.precision), total_steps_, run_dir_.string(),
               comm_.size() > 1 ? fmt::format(" on {} MPI ranks", comm_.size()) : "");
  const int64_t first_step = state_.step;
  while (!finished()) {
    // A signal to any rank stops every rank after the same step.
    if (const int sig = agree_on_stop(comm_, stop_requested())) return stop_for(sig);
    if (stop_after > 0 && state_.step >= stop_after) {
      save_checkpoint(SaveReason::stop_after);
      note("stopped after step " + std::to_string(state_.step) + " as asked; resume with --resume auto");
      restore_default_handlers();
      return 0;
    }
    const bool epoch_end = train_step();
    const TrainConfig& t = config_.train;
    const bool evaluated = (t.eval_every > 0 ? state_.step % t.eval_every == 0 : epoch_end) || finished();
    bool better = false;
    if (evaluated) {
      const SplitScores m = objective_->evaluate("val");
      const double value = m.get(t.best_metric);
      better = best_metric_declaration(t).improves(value, state_.best_metric);
      if (better) {
        state_.best_metric = value;
        state_.best_step = state_.step;
        state_.stale_evals = 0;
      } else {
        ++state_.stale_evals;
      }
      log(EvalEvent{"val", state_.step, state_.sampler.epoch, m, better, elapsed()});
      note(fmt::format("val step {}: {}{}", state_.step, describe_scores(objective_spec(t.objective), m),
                       better ? " (best)" : ""));
    }
    if (const std::optional<SaveReason> reason = save_due(evaluated, better)) save_checkpoint(*reason);
  }
  // A stop during the last step or its checkpoint counts like any other.
  if (const int sig = agree_on_stop(comm_, stop_requested())) return stop_for(sig);
  progress_->finish("done: " + std::to_string(state_.step) + " steps in " + format_duration(elapsed()));
  if (root_ && comm_.size() > 1) fmt::print(stderr, "{}\n", step_->communication_report(state_.step - first_step));
  restore_default_handlers();
  test_best();
  return 0;
}

void TrainingSession::test_best() {
  // Test metrics come from the best checkpoint's weights, reloaded (by every rank, once rank 0 has written it).
  comm_.barrier();
  if (state_.best_step >= 0) {
    const CheckpointContents best = read_checkpoint(checkpoints_.path_for_step(state_.best_step));
    load_parameters(best, checkpoints_.path_for_step(state_.best_step), objective_->model());
  }
  RunSummary summary = unscored_summary();
  std::string report = state_.best_step >= 0
                           ? "best checkpoint: step " + std::to_string(state_.best_step) + "\n"
                           : "no best checkpoint (no validation scored anything): the last step's weights\n";
  for (const TokenizedSplit& split : data_.splits) {
    if (split.name == "train") continue;
    const SplitScores m = final_score(split.name);
    log(FinalEvent{split.name, state_.best_step, m});
    summary.splits.emplace_back(split.name, m);
    report += fmt::format("  {:<10} {}  ({} documents)\n", split.name,
                          describe_scores(objective_spec(config_.train.objective), m), split.num_docs());
  }
  if (!root_) return;
  run_files_.write_summary(summary);
  fmt::print(stderr, "{}summary: {}\n", report, run_files_.summary_path());
}

int train_this_rank(const TrainRequest& request, const HeldOutScores& held_out_scores, Communicator& comm) {
  Config config = load_config(request.config_path, request.overrides);
  if (comm.is_root() && objective_spec(config.train.objective).data == ObjectiveData::labelled_documents)
    if (const std::string blind = order_blindness(config.model); !blind.empty())
      fmt::print(stderr, "warning: {}\n", blind);
  const fs::path run_dir =
      request.out_dir.empty() ? fs::path(config.run.out_dir) / config.run.name : fs::path(request.out_dir);
  std::optional<std::string> resume_from;
  if (comm.is_root()) {
    std::error_code ec;
    fs::create_directories(run_dir, ec);
    if (ec) throw Error("run directory " + run_dir.string() + ": cannot create it: " + ec.message());
    resume_from = checkpoint_to_resume(request.resume, run_dir.string());
  }
  // Every rank resumes rank 0's choice ("" for none): the run directory must be shared.
  if (comm.size() > 1) {
    const std::string chosen = broadcast_string(comm, resume_from.value_or(""));
    resume_from = chosen.empty() ? std::nullopt : std::optional<std::string>(chosen);
  }
  TrainingSession session(std::move(config), run_dir, resume_from, request.allow_data_change, held_out_scores);
  return session.run(request.stop_after);
}

}  // namespace

int train(const TrainRequest& request, const HeldOutScores& held_out_scores) {
  Communicator& comm = world();
  return run_or_abort_all(comm, [&] { return train_this_rank(request, held_out_scores, comm); });
}

}  // namespace rotor
