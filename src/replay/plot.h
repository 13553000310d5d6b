#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "replay/render.h"
#include "replay/trace.h"

namespace hpa::replay {

// A gnuplot script drawing replicas over time (one step line per run, the recorded replicas
// when the trace has them) over the trace's metric values (second axis), like the demo's plot.
// The data is inline, so the script is all gnuplot needs.
std::string gnuplotScript(const std::vector<RenderedRun>& runs, const Trace& trace,
                          const std::string& pngFile);

// Runs `gnuplot` on the script, which goes through a file in temporaryDirectory(getenv("TMPDIR")).
// Errors: no such file can be written, gnuplot missing or failing.
Status runGnuplot(const std::string& script);

// The directory for temporary files: `tmpdir` (the TMPDIR variable's value) when set and not
// empty, else /tmp.
std::string temporaryDirectory(const char* tmpdir);

}  // namespace hpa::replay
