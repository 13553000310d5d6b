#include "forecast/spectrum.h"

namespace hpa::forecast {

Spectrum::~Spectrum() {
  // Destroying a plan is a planner call too.
  const std::lock_guard lock(mutex_);
  plans_.clear();
}

std::size_t Spectrum::paddedSize(std::size_t n) {
  std::size_t size = 1;
  while (size < n) size *= 2;
  return size;
}

fftw_plan_s* Spectrum::planFor(std::size_t size) {
  const std::lock_guard lock(mutex_);
  auto it = plans_.find(size);
  if (it != plans_.end()) return it->second.get();
  // FFTW_ESTIMATE plans without running transforms, so it neither touches these arrays nor takes
  // time measuring; the plan then runs on other arrays of the same size and alignment.
  FftwBuffer<double> in(size);
  FftwBuffer<fftw_complex> out(size / 2 + 1);
  fftw_plan_s* plan = fftw_plan_dft_r2c_1d(static_cast<int>(size), in.data(), out.data(),
                                           FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
  if (plan == nullptr) throw std::bad_alloc();
  plans_.emplace(size, FftwPlan(plan));
  return plan;
}

std::vector<double> Spectrum::periodogram(std::span<const double> series) {
  if (series.empty()) return {};
  const std::size_t size = paddedSize(series.size());
  fftw_plan_s* plan = planFor(size);
  FftwBuffer<double> in(size);
  FftwBuffer<fftw_complex> out(size / 2 + 1);
  for (std::size_t i = 0; i < size; ++i) in[i] = i < series.size() ? series[i] : 0.0;
  fftw_execute_dft_r2c(plan, in.data(), out.data());
  std::vector<double> power(size / 2 + 1);
  for (std::size_t k = 0; k < power.size(); ++k) {
    const double re = out[k][0];
    const double im = out[k][1];
    power[k] = (re * re + im * im) / static_cast<double>(size);
  }
  return power;
}

}  // namespace hpa::forecast
