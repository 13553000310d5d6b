#include "replay/plot.h"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "api/quantity.h"
#include "common/quote.h"

extern char** environ;

namespace hpa::replay {
namespace {

// A gnuplot string literal (double-quoted; backslash escapes).
std::string gnuplotString(const std::string& s) {
  std::string out;
  appendDoubleQuoted(out, s);
  return out;
}

double secondsOf(Duration d) { return std::chrono::duration<double>(d).count(); }

// Plain numbers in the metric's unit (cpu: cores), as the trace gave them.
std::string unitValue(std::int64_t milli) {
  return fmt::format("{:g}", static_cast<double>(milli) / 1000.0);
}

}  // namespace

std::string gnuplotScript(const std::vector<RenderedRun>& runs, const Trace& trace,
                          const std::string& pngFile) {
  std::string title = "hpa-controller replay";
  if (!runs.empty()) title += ": " + runs.front().run->hpaKey;
  std::string s;
  s += "set terminal pngcairo size 1000,560 noenhanced\n";
  s += "set output " + gnuplotString(pngFile) + "\n";
  s += "set title " + gnuplotString(title) + "\n";
  s += "set xlabel \"seconds\"\nset ylabel \"replicas\"\nset y2tics\nset ytics nomirror\nset key "
       "below\n";
  s += "set datafile missing \"-\"\n";

  // One block per run (time, replicas, desired) and one per series (time, value) and the
  // recorded replicas: each plotted with its own time points.
  std::vector<std::string> plots;
  std::int32_t peak = 1;
  double end = 1;
  for (size_t r = 0; r < runs.size(); ++r) {
    const auto& run = *runs[r].run;
    s += fmt::format("$run{} << EOD\n", r);
    // The replicas before the first sync, so that a scale at 0 s shows as a step.
    s += fmt::format("0 {} {}\n", run.initialReplicas, run.initialReplicas);
    for (const auto& t : run.ticks) {
      s += fmt::format("{:g} {} {}\n", secondsOf(t.at), t.replicas, t.desiredReplicas);
      end = std::max(end, secondsOf(t.at));
    }
    s += "EOD\n";
    std::string label = "replicas (replay)";
    if (runs.size() > 1) {
      label = fmt::format("replicas, {}{}", run.label,
                          run.description.empty() ? "" : ": " + run.description);
    }
    peak = std::max(peak, run.peakReplicas);
    plots.push_back(
        fmt::format("$run{} using 1:2 with steps lw 2 title {}", r, gnuplotString(label)));
  }
  if (!trace.recorded.empty()) {
    s += "$recorded << EOD\n";
    for (const auto& rec : trace.recorded) {
      s += fmt::format("{:g} {}\n", secondsOf(rec.at), rec.replicas());
      peak = std::max(peak, rec.replicas());
    }
    s += "EOD\n";
    plots.push_back("$recorded using 1:2 with steps dt 2 lw 2 title \"replicas (recorded)\"");
  }
  std::vector<std::string> axisNames;
  std::int64_t highest = 1;
  for (size_t i = 0; i < trace.series.size(); ++i) {
    const auto& series = trace.series[i];
    s += fmt::format("$series{} << EOD\n", i);
    for (const auto& sample : series.samples) {
      s += fmt::format("{:g} {}\n", secondsOf(sample.at), unitValue(sample.milli));
      highest = std::max(highest, sample.milli);
    }
    s += "EOD\n";
    const std::string name = fmt::format("{} ({})", series.metric, seriesKindName(series.kind));
    axisNames.push_back(name);
    plots.push_back(
        fmt::format("$series{} using 1:2 axes x1y2 with steps title {}", i, gnuplotString(name)));
  }
  if (!axisNames.empty())
    s += "set y2label " + gnuplotString(fmt::format("{}", fmt::join(axisNames, ", "))) + "\n";
  // Room above the highest step, so it does not run along the frame.
  s += fmt::format("set xrange [0:{:g}]\nset yrange [0:{}]\nset y2range [0:{:g}]\n", end, peak + 1,
                   static_cast<double>(highest) * 1.1 / 1000.0);
  s += fmt::format("plot {}\n", fmt::join(plots, ", \\\n     "));
  return s;
}

std::string temporaryDirectory(const char* tmpdir) {
  std::string dir = tmpdir && *tmpdir ? tmpdir : "/tmp";
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

Status runGnuplot(const std::string& script) {
  // The script goes through a file: gnuplot may exit early, and a pipe would then raise SIGPIPE.
  const std::string dir = temporaryDirectory(std::getenv("TMPDIR"));
  std::string pathText = dir + "/hpa-replay-plot-XXXXXX";
  char* path = pathText.data();
  const int fd = mkstemp(path);
  if (fd < 0)
    return Error::format("cannot create a temporary file in {} for gnuplot: {}", dir,
                         std::strerror(errno));
  const bool written =
      write(fd, script.data(), script.size()) == static_cast<ssize_t>(script.size());
  close(fd);
  Status result;
  if (!written) {
    result = Error::of("cannot write the gnuplot script");
  } else {
    char* argv[] = {const_cast<char*>("gnuplot"), path, nullptr};
    pid_t pid = 0;
    const int spawned = posix_spawnp(&pid, "gnuplot", nullptr, nullptr, argv, environ);
    int status = 0;
    if (spawned == ENOENT) {
      result = Error::of("gnuplot not found (apt-get install gnuplot-nox)");
    } else if (spawned != 0) {
      result = Error::format("cannot start gnuplot: {}", std::strerror(spawned));
    } else if (waitpid(pid, &status, 0) != pid) {
      result = Error::format("gnuplot: {}", std::strerror(errno));
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      result = Error::format("gnuplot failed (exit status {})",
                             WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
  }
  unlink(path);
  return result;
}

}  // namespace hpa::replay
