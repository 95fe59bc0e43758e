// The report's per-split columns and sweep metric come from the objective's row
// (report_metrics.h): its table metrics, their labels and units.
#include <catch2/catch.hpp>

#include "trainers/study/report_metrics.h"

using namespace rotor;

namespace {

std::vector<std::string> headers(const ObjectiveSpec& objective) {
  std::vector<std::string> out;
  for (const ReportColumn& c : split_columns(objective)) out.push_back(c.key + ": " + c.header);
  return out;
}

}  // namespace

TEST_CASE("report columns: a language model's perplexity and loss, others their study metrics", "[study]") {
  for (ObjectiveKind kind : {ObjectiveKind::clm, ObjectiveKind::mlm}) {
    CHECK(headers(objective_spec(kind)) ==
          std::vector<std::string>{"val_perplexity: Val perplexity", "val_loss: Val loss (nats/token)",
                                   "test_perplexity: Test perplexity", "test_loss: Test loss (nats/token)"});
    CHECK(sweep_metric(objective_spec(kind)) == "perplexity");
  }
  CHECK(headers(objective_spec(ObjectiveKind::classify)) ==
        std::vector<std::string>{"val_accuracy: Val accuracy", "val_macro_f1: Val macro-F1",
                                 "test_accuracy: Test accuracy", "test_macro_f1: Test macro-F1"});
  CHECK(sweep_metric(objective_spec(ObjectiveKind::classify)) == "accuracy");
  CHECK(sweep_metric(objective_spec(ObjectiveKind::completion)) == "token_accuracy");
}

TEST_CASE("report columns follow the row's table metrics, not the unit of evidence", "[study]") {
  ObjectiveSpec row = objective_spec(ObjectiveKind::mlm);
  row.table_metrics = {"bits_per_token"};
  CHECK(headers(row) ==
        std::vector<std::string>{"val_bits_per_token: Val bits/token", "test_bits_per_token: Test bits/token"});
  CHECK(sweep_metric(row) == "bits_per_token");
}
