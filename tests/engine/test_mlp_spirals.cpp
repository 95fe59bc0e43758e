// End to end: a 2-64-64-2 tanh MLP trained with AdamW on two spirals must fit
// the training set. Exercises linear, tanh, cross_entropy, backward into the
// flat gradient buffer, AdamW and the warm-up + cosine schedule together.
#include <catch2/catch.hpp>

#include "examples/two_spirals.h"
#include "optim_fixtures.h"

TEST_CASE("an MLP trained with AdamW separates two spirals") {
  // One thread: the bits do not depend on the thread count (see
  // test_thread_determinism.cpp), and its many small ops would otherwise pay
  // an OpenMP barrier each, which costs seconds when other jobs share the cores.
  rotor::test::ThreadCountGuard threads(1);
  rotor::examples::SpiralsTraining training;
  while (!training.done()) training.step();
  CHECK(training.accuracy() >= 0.98);
}
