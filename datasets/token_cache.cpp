#include "datasets/token_cache.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "datasets/data_error.h"

namespace fs = std::filesystem;

namespace rotor {
namespace {

// Bump when the file layout or the meaning of cached tokens changes.
constexpr std::string_view kTokenCacheMagic = "rotor-token-cache 3\n";  // 3: per-token positions

// Little-endian host layout; the cache is a local file, never shipped.
class Writer {
 public:
  explicit Writer(std::ofstream& out) : out_(out) {}
  void u64(uint64_t v) { out_.write(reinterpret_cast<const char*>(&v), sizeof v); }
  void str(std::string_view s) {
    u64(s.size());
    out_.write(s.data(), static_cast<std::streamsize>(s.size()));
  }
  template <typename T>
  void vec(const std::vector<T>& v) {
    u64(v.size());
    out_.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
  }

 private:
  std::ofstream& out_;
};

// Reads what Writer wrote; any short read or absurd size marks the file bad.
class Reader {
 public:
  Reader(std::ifstream& in, uint64_t file_size) : in_(in), remaining_(file_size) {}
  bool ok() const { return ok_; }
  bool at_end() const { return remaining_ == 0; }
  uint64_t u64() {
    uint64_t v = 0;
    take(&v, sizeof v);
    return v;
  }
  std::string str() {
    const uint64_t n = u64();
    if (!fits(n)) return {};
    std::string s(n, '\0');
    take(s.data(), n);
    return s;
  }
  template <typename T>
  std::vector<T> vec() {
    const uint64_t n = u64();
    if (!fits(n) || !fits(n * sizeof(T))) return {};
    std::vector<T> v(n);
    take(v.data(), n * sizeof(T));
    return v;
  }

 private:
  bool fits(uint64_t bytes) {
    if (bytes > remaining_) ok_ = false;
    return ok_;
  }
  void take(void* dst, uint64_t bytes) {
    if (!fits(bytes)) return;
    in_.read(static_cast<char*>(dst), static_cast<std::streamsize>(bytes));
    remaining_ -= bytes;
    ok_ = ok_ && static_cast<bool>(in_);
  }

  std::ifstream& in_;
  uint64_t remaining_;
  bool ok_ = true;
};

bool consistent(const TokenizedSplit& s) {
  if (s.offsets.empty() || s.offsets.front() != 0 || s.offsets.size() != s.labels.size() + 1) return false;
  if (s.offsets.back() != static_cast<int64_t>(s.tokens.size())) return false;
  if (s.has_targets() && s.targets.size() != s.tokens.size()) return false;
  if (s.has_positions() && s.positions.size() != s.tokens.size()) return false;
  for (size_t i = 1; i < s.offsets.size(); ++i) {
    if (s.offsets[i] < s.offsets[i - 1]) return false;
  }
  return true;
}

}  // namespace

void CacheKey::add(std::string_view name, std::string_view value) { add_hashed(name, sha1_hex(value)); }

void CacheKey::add_hashed(std::string_view name, std::string_view value_sha1) {
  sha_.update(sha1_hex(name));
  sha_.update(value_sha1);
}

std::string CacheKey::hex() { return sha_.hex_digest(); }

std::string token_cache_path(const std::string& dir, const std::string& name, const std::string& key) {
  return (fs::path(dir) / (name + "-" + key.substr(0, 16) + ".tokens")).string();
}

std::optional<CachedTokens> load_token_cache(const std::string& path, const std::string& key) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  Reader r(in, size);
  if (r.str() != kTokenCacheMagic || r.str() != key) return std::nullopt;
  CachedTokens t;
  t.tokenizer = r.str();
  const uint64_t num_labels = r.u64();
  for (uint64_t i = 0; r.ok() && i < num_labels; ++i) t.labels.push_back(r.str());
  t.invalid_utf8 = static_cast<int64_t>(r.u64());
  t.invalid_utf8_at = r.str();
  t.generated_attempts = static_cast<int64_t>(r.u64());
  const uint64_t num_splits = r.u64();
  for (uint64_t i = 0; r.ok() && i < num_splits; ++i) {
    TokenizedSplit s;
    s.name = r.str();
    s.tokens = r.vec<int32_t>();
    s.offsets = r.vec<int64_t>();
    s.labels = r.vec<int32_t>();
    s.targets = r.vec<int32_t>();
    s.positions = r.vec<int32_t>();
    if (!consistent(s)) return std::nullopt;
    t.splits.push_back(std::move(s));
  }
  // A file that does not end exactly after the last split is damaged too.
  if (!r.ok() || !r.at_end()) return std::nullopt;
  return t;
}

void save_token_cache(const std::string& path, const std::string& key, const CachedTokens& tokens) {
  const fs::path target(path);
  const std::string folder = target.has_parent_path() ? target.parent_path().string() : ".";
  const auto not_writable = [&](const std::string& why) {
    return DataError("token cache folder '" + folder + "' is not writable: " + why);
  };
  std::error_code ec;
  // Its error, not the open's below: under a read-only folder the open only says "No such file".
  if (fs::create_directories(folder, ec); ec) throw not_writable(ec.message());
  // One temporary per writer: runs sharing a cache folder never write the
  // same file, and each rename installs a complete file.
  static std::atomic<int> writers{0};
  const std::string temp =
      path + ".tmp-" + std::to_string(static_cast<long>(::getpid())) + "-" + std::to_string(++writers);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw not_writable(std::strerror(errno));
    Writer w(out);
    w.str(kTokenCacheMagic);
    w.str(key);
    w.str(tokens.tokenizer);
    w.u64(tokens.labels.size());
    for (const auto& l : tokens.labels) w.str(l);
    w.u64(static_cast<uint64_t>(tokens.invalid_utf8));
    w.str(tokens.invalid_utf8_at);
    w.u64(static_cast<uint64_t>(tokens.generated_attempts));
    w.u64(tokens.splits.size());
    for (const TokenizedSplit& s : tokens.splits) {
      w.str(s.name);
      w.vec(s.tokens);
      w.vec(s.offsets);
      w.vec(s.labels);
      w.vec(s.targets);
      w.vec(s.positions);
    }
    out.flush();
    if (!out) {
      fs::remove(temp, ec);
      throw DataError("cannot write token cache '" + temp + "' (disk full?)");
    }
  }
  fs::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw DataError("cannot rename '" + temp + "' to '" + path + "': " + ec.message());
  }
}

}  // namespace rotor
