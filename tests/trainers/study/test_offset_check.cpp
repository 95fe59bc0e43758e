// The study report's offset check on constructed attention-distance profiles:
// a spike at +k or -k of at least kOffsetSpikeRatio times the neighbouring
// masses shows the offset; local or uniform attention, or a spike elsewhere,
// does not; a profile that does not reach k + 1 cannot be checked.
#include <catch2/catch.hpp>

#include <functional>

#include "trainers/study/offset_check.h"

using namespace rotor;

namespace {

// One layer of heads over distances -6..6, each head's profile from a function of the distance.
template <typename... Fs>
OffsetProfileRecord profiles(Fs... heads) {
  OffsetProfileRecord r;
  r.available = true;
  r.max_offset = 6;
  r.layers.emplace_back();
  int64_t h = 0;
  for (const std::function<double(int64_t)>& f : {std::function<double(int64_t)>(heads)...}) {
    HeadOffsetProfile head{h++, {}, 0.0};
    for (int64_t d = -6; d <= 6; ++d) head.profile.push_back(f(d));
    r.layers.back().push_back(head);
  }
  return r;
}

double local(int64_t d) { return d == 0 ? 0.4 : d == -1 || d == 1 ? 0.2 : 0.02; }
double uniform(int64_t) { return 1.0 / 13; }

}  // namespace

TEST_CASE("offset check: a head spiking at +k shows the offset", "[study][offsets]") {
  const OffsetProfileRecord r = profiles(local, [](int64_t d) { return d == 4 ? 0.3 : d == 3 || d == 5 ? 0.1 : 0.02; });
  const OffsetSpike s = strongest_offset_spike(r, 4);
  CHECK(s.shown());
  CHECK(s.head == 1);
  CHECK(s.distance == 4);
  CHECK(s.neighbour == Approx(0.1));
  CHECK_THAT(offset_check_text(r, 4), Catch::StartsWith("**shows** the offset 4: layer 0 head 1 has mass 0.300 at +4"));
}

TEST_CASE("offset check: a spike at -k (back to the marker) shows it too", "[study][offsets]") {
  const OffsetProfileRecord r = profiles(uniform, [](int64_t d) { return d == -4 ? 0.5 : 0.0; });
  const OffsetSpike s = strongest_offset_spike(r, 4);
  CHECK(s.shown());
  CHECK(s.distance == -4);
  CHECK_THAT(offset_check_text(r, 4), Catch::Contains("with nothing at its neighbours"));
}

TEST_CASE("offset check: local, uniform, a spike elsewhere or one under the ratio do not show it", "[study][offsets]") {
  const auto elsewhere = [](int64_t d) { return d == 3 ? 0.5 : 0.02; };             // k - 1, not k: its neighbour
  const auto weak = [](int64_t d) { return d == 4 ? 0.19 : d == 5 ? 0.1 : 0.05; };  // 1.9x: under 2x
  const OffsetProfileRecord r = profiles(local, uniform, elsewhere, weak);
  const OffsetSpike s = strongest_offset_spike(r, 4);
  CHECK_FALSE(s.shown());
  CHECK(s.head == 3);  // the strongest, named in the text
  CHECK_THAT(offset_check_text(r, 4), Catch::StartsWith("does **not** show the offset 4") &&
                                          Catch::Contains("the strongest: layer 0 head 3 has mass 0.190 at +4"));
}

TEST_CASE("offset check: a profile that does not reach k + 1, or none, is not checked", "[study][offsets]") {
  CHECK(strongest_offset_spike(profiles(local), 6).layer == -1);
  CHECK_THAT(offset_check_text(profiles(local), 6), Catch::Contains("reaches distance 6 only, not 7"));
  OffsetProfileRecord missing;
  missing.reason = "not measured";
  CHECK_THAT(offset_check_text(missing, 4), Catch::Contains("not checked: no profile (not measured)"));
}
