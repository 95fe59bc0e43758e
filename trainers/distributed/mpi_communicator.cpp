#include "trainers/distributed/mpi_communicator.h"

#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <limits>
#include <thread>

#include "engine/error.h"
#include "trainers/distributed/ordered_sum.h"

namespace rotor {
namespace {

void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(std::string("MPI ") + what + " failed: " + std::string(text, static_cast<size_t>(length)));
}

int as_count(int64_t n) {
  if (n > std::numeric_limits<int>::max())
    throw Error("MPI: a message of " + std::to_string(n) + " elements is too long");
  return static_cast<int>(n);
}

// Reduce-scatter then all-gather, by hand: rank s receives every rank's copy of
// slice s, sums them with ordered_sum in rank order, and sends the total back.
// Same volume as a ring all-reduce, 2 (N-1)/N of the buffer per rank, and one
// fixed order whatever algorithm the MPI library would have chosen.
//
// MPI needs every rank to start collectives on a communicator in the same
// order. The scatters start in bucket order; a gather starts when its scatter
// completes, which differs between ranks, so gathers have a communicator of
// their own, and callers finish sums in start order (so gathers start in it too).
class OrderedSum : public PendingSum {
 public:
  OrderedSum(Tensor buffer, int rank, int size, MPI_Comm scatter, MPI_Comm gather)
      : buffer_(std::move(buffer)), rank_(rank), size_(size), gather_(gather) {
    const int64_t n = buffer_.numel();
    element_ = buffer_.dtype() == DType::F64 ? MPI_DOUBLE : MPI_FLOAT;
    counts_.resize(static_cast<size_t>(size_));
    offsets_.resize(static_cast<size_t>(size_));
    for (int r = 0; r < size_; ++r) {
      offsets_[r] = as_count(n * r / size_);
      counts_[r] = as_count(n * (r + 1) / size_) - offsets_[r];
    }
    const int mine = counts_[rank_];
    received_ = Tensor::empty({static_cast<int64_t>(mine) * size_}, buffer_.dtype());
    recv_counts_.assign(static_cast<size_t>(size_), mine);
    for (int r = 0; r < size_; ++r) recv_offsets_.push_back(r * mine);
    check(MPI_Ialltoallv(base(buffer_), counts_.data(), offsets_.data(), element_, base(received_), recv_counts_.data(),
                         recv_offsets_.data(), element_, scatter, &request_),
          "Ialltoallv");
  }
  ~OrderedSum() override {
    if (request_ != MPI_REQUEST_NULL) MPI_Wait(&request_, MPI_STATUS_IGNORE);
  }

  bool done() override {
    while (phase_ < 2) {
      int finished = 0;
      check(MPI_Test(&request_, &finished, MPI_STATUS_IGNORE), "Test");
      if (!finished) return false;
      advance();
    }
    return true;
  }
  void wait() override {
    while (phase_ < 2) {
      check(MPI_Wait(&request_, MPI_STATUS_IGNORE), "Wait");
      advance();
    }
  }

 private:
  static void* base(Tensor& t) {
    return t.dtype() == DType::F64 ? static_cast<void*>(t.data<double>()) : t.data<float>();
  }

  void advance() {
    if (phase_ == 0) {
      dispatch(buffer_.dtype(), [&](auto tag) {
        using T = decltype(tag);
        const int64_t mine = counts_[rank_];
        std::vector<const T*> parts;
        for (int r = 0; r < size_; ++r) parts.push_back(received_.data<T>() + r * mine);
        ordered_sum(parts, buffer_.data<T>() + offsets_[rank_], mine);
      });
      check(MPI_Iallgatherv(MPI_IN_PLACE, 0, element_, base(buffer_), counts_.data(), offsets_.data(), element_,
                            gather_, &request_),
            "Iallgatherv");
    }
    ++phase_;
  }

  Tensor buffer_, received_;
  int rank_, size_;
  MPI_Comm gather_;
  MPI_Datatype element_;
  std::vector<int> counts_, offsets_, recv_counts_, recv_offsets_;
  MPI_Request request_ = MPI_REQUEST_NULL;
  int phase_ = 0;  // 0: slices travelling to their owners, 1: totals travelling back, 2: done
};

}  // namespace

MpiCommunicator::MpiCommunicator() {
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "Init_thread");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  // Errors are returned and raised as rotor errors, whose handler aborts the job.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  check(MPI_Comm_dup(MPI_COMM_WORLD, &scatter_), "Comm_dup");
  check(MPI_Comm_dup(MPI_COMM_WORLD, &gather_), "Comm_dup");
}

MpiCommunicator::~MpiCommunicator() {
  MPI_Comm_free(&scatter_);
  MPI_Comm_free(&gather_);
  MPI_Finalize();
}

void MpiCommunicator::barrier() { check(MPI_Barrier(MPI_COMM_WORLD), "Barrier"); }

void MpiCommunicator::idle_barrier() {
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Ibarrier(MPI_COMM_WORLD, &request), "Ibarrier");
  for (int done = 0; !done;) {
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "Test");
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void MpiCommunicator::broadcast(void* data, size_t bytes, int root) {
  auto* p = static_cast<char*>(data);
  // MPI counts are ints: send large buffers in pieces.
  for (size_t done = 0; done < bytes;) {
    const size_t piece = std::min<size_t>(bytes - done, size_t{1} << 30);
    check(MPI_Bcast(p + done, static_cast<int>(piece), MPI_BYTE, root, MPI_COMM_WORLD), "Bcast");
    done += piece;
  }
}

std::vector<std::vector<double>> MpiCommunicator::allgather(const std::vector<double>& mine) {
  const int length = as_count(static_cast<int64_t>(mine.size()));
  std::vector<int> lengths(static_cast<size_t>(size_)), offsets(static_cast<size_t>(size_));
  check(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD), "Allgather");
  int64_t total = 0;
  for (int r = 0; r < size_; ++r) {
    offsets[r] = as_count(total);
    total += lengths[r];
  }
  std::vector<double> all(static_cast<size_t>(total));
  check(MPI_Allgatherv(mine.data(), length, MPI_DOUBLE, all.data(), lengths.data(), offsets.data(), MPI_DOUBLE,
                       MPI_COMM_WORLD),
        "Allgatherv");
  std::vector<std::vector<double>> out;
  for (int r = 0; r < size_; ++r) out.emplace_back(all.begin() + offsets[r], all.begin() + offsets[r] + lengths[r]);
  return out;
}

std::unique_ptr<PendingSum> MpiCommunicator::start_sum(Tensor buffer) {
  if (buffer.dtype() != DType::F32 && buffer.dtype() != DType::F64)
    throw Error("MPI sum: only F32 and F64 buffers can be summed");
  const int64_t bytes = buffer.numel() * (buffer.dtype() == DType::F64 ? 8 : 4);
  bytes_sent_ += 2 * bytes * (size_ - 1) / size_;
  return std::make_unique<OrderedSum>(std::move(buffer), rank_, size_, scatter_, gather_);
}

void MpiCommunicator::abort_all(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

}  // namespace rotor
