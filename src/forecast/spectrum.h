#pragma once

#include <fftw3.h>

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <vector>

namespace hpa::forecast {

// An FFTW-allocated array: fftw_malloc aligns it for SIMD, so every buffer of a size has the
// alignment the plan of that size was made for, and the plan can run on it (new-array execute).
template <typename T>
class FftwBuffer {
 public:
  explicit FftwBuffer(std::size_t n)
      : data_(static_cast<T*>(fftw_malloc(sizeof(T) * n))), size_(n) {
    if (data_ == nullptr) throw std::bad_alloc();
  }
  ~FftwBuffer() { fftw_free(data_); }
  FftwBuffer(const FftwBuffer&) = delete;
  FftwBuffer& operator=(const FftwBuffer&) = delete;

  T* data() { return data_; }
  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return data_[i]; }

 private:
  T* data_;
  std::size_t size_;
};

struct PlanDeleter {
  void operator()(fftw_plan_s* plan) const { fftw_destroy_plan(plan); }
};
using FftwPlan = std::unique_ptr<fftw_plan_s, PlanDeleter>;

// The power spectrum of real series by FFTW (double precision, real to complex).
//
// FFTW's planner is process-wide state of the library: plans may be made and destroyed by one
// thread at a time, while executing a finished plan on new arrays is safe from any thread. So
// this object makes every plan under its mutex, keeps them (one per padded size: powers of two,
// so a handful) until it is destroyed, and runs them outside the lock. A process has one
// Spectrum (the forecaster that owns it); nothing else in the project calls FFTW's planner.
class Spectrum {
 public:
  Spectrum() = default;
  ~Spectrum();
  Spectrum(const Spectrum&) = delete;
  Spectrum& operator=(const Spectrum&) = delete;

  // The periodogram of `series` zero-padded to `paddedSize(series.size())` = M points:
  // |X_k|^2 / M for k = 0..M/2, where bin k is the frequency k / (M * step). Empty for an empty
  // series. The caller removes the mean (and trend) first: bin 0 is their power otherwise.
  std::vector<double> periodogram(std::span<const double> series);

  static std::size_t paddedSize(std::size_t n);

 private:
  fftw_plan_s* planFor(std::size_t size);

  std::mutex mutex_;
  std::map<std::size_t, FftwPlan> plans_;
};

}  // namespace hpa::forecast
