#pragma once
// Which build trained a run: the commit this binary was built from
// (`git describe --always --dirty`, "-dirty" when the tree had uncommitted
// changes; "unknown" outside a git checkout). Written into summary.json and
// printed by `rotor --version`, so a study whose runs were trained by
// different builds says so. The definition is generated at every build
// (cmake/build_id.cmake).

namespace rotor {

const char* build_id();

}  // namespace rotor
