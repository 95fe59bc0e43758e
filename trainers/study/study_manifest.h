#pragma once
// DIR/study.json: the parsed spec (variants with their resolved configs,
// seeds, evaluation) and the command line, written when a study starts.
// `rotor compare --report DIR` rebuilds the report from it and the run
// directories alone, without the spec or its base config.
#include <string>

#include "trainers/study/study_spec.h"

namespace rotor {

struct StudyManifest {
  StudySpec spec;
  std::string command;  // the command line that ran the study
};

void write_study_manifest(const std::string& study_dir, const StudyManifest& manifest);
// Throws ConfigError naming both specs when DIR/study.json was written for
// another spec file with other contents (the same file, edited, or a copy of
// it is the same study: each run's config is still checked on its own).
void require_same_spec(const std::string& study_dir, const StudySpec& spec);
// Throws ConfigError naming DIR/study.json when it is missing or malformed.
StudyManifest read_study_manifest(const std::string& study_dir);

}  // namespace rotor
