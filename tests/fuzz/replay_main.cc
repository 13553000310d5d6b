// Replays inputs through a fuzz target's LLVMFuzzerTestOneInput and times each one, so that
// "every input of up to 64 KB answers in well under 10 ms" is a measured figure rather than a
// hope. Built as <name>_replay next to each <name>_fuzz (make fuzz-replay).
//
//   <name>_replay [--repeat N] [--top K] [--max-len BYTES] PATH...
//
// PATHs are files or directories (a corpus). Each input runs N times (default 5); its time is
// the median of those runs, in CPU time of the calling thread (the machines this runs on are
// shared, and wall time there measures the neighbours). Prints the input count, the total, and
// the K slowest inputs.
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

namespace fs = std::filesystem;

double threadCpuMicros() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

struct Timing {
  std::string path;
  std::size_t size = 0;
  double micros = 0;
};

std::vector<char> readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void collect(const fs::path& p, std::vector<fs::path>& out) {
  if (fs::is_directory(p)) {
    for (const auto& entry : fs::recursive_directory_iterator(p)) {
      if (entry.is_regular_file()) out.push_back(entry.path());
    }
  } else {
    out.push_back(p);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 5;
  std::size_t top = 5;
  std::size_t maxLen = 65536;
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--top") == 0 && i + 1 < argc) {
      top = static_cast<std::size_t>(std::max(1, std::atoi(argv[++i])));
    } else if (std::strcmp(argv[i], "--max-len") == 0 && i + 1 < argc) {
      maxLen = static_cast<std::size_t>(std::atoll(argv[++i]));
    } else {
      collect(argv[i], inputs);
    }
  }
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);

  std::vector<Timing> timings;
  std::size_t skipped = 0;
  for (const auto& path : inputs) {
    std::vector<char> bytes = readFile(path);
    if (bytes.size() > maxLen) {
      ++skipped;
      continue;
    }
    std::vector<double> runs;
    for (int r = 0; r < repeat; ++r) {
      // A fresh copy each run, exactly sized, as libFuzzer hands inputs over.
      std::vector<std::uint8_t> input(bytes.begin(), bytes.end());
      const double start = threadCpuMicros();
      LLVMFuzzerTestOneInput(input.data(), input.size());
      runs.push_back(threadCpuMicros() - start);
    }
    std::nth_element(runs.begin(), runs.begin() + runs.size() / 2, runs.end());
    timings.push_back({path.string(), bytes.size(), runs[runs.size() / 2]});
  }
  std::sort(timings.begin(), timings.end(),
            [](const Timing& a, const Timing& b) { return a.micros > b.micros; });
  double total = 0;
  for (const auto& t : timings) total += t.micros;
  std::printf("inputs=%zu skipped_over_max_len=%zu repeat=%d total_ms=%.1f mean_us=%.1f\n",
              timings.size(), skipped, repeat, total / 1000,
              timings.empty() ? 0.0 : total / static_cast<double>(timings.size()));
  for (std::size_t i = 0; i < std::min(top, timings.size()); ++i) {
    std::printf("slowest[%zu] us=%.1f bytes=%zu %s\n", i, timings[i].micros, timings[i].size,
                timings[i].path.c_str());
  }
  return 0;
}
