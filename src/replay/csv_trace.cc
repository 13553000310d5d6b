#include "replay/csv_trace.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <map>
#include <variant>

#include "api/quantity.h"
#include "common/quote.h"

namespace hpa::replay {
namespace {

struct Field {
  std::string text;
  int column = 1;  // 1-based character position where the field starts
};

struct Line {
  int number = 0;
  std::vector<Field> fields;
};

// Splits one CSV record (RFC 4180 quoting within the line; records never span lines here).
Result<std::vector<Field>> splitRecord(std::string_view line) {
  std::vector<Field> fields;
  size_t i = 0;
  while (true) {
    Field f;
    while (i < line.size() && line[i] == ' ') ++i;
    f.column = static_cast<int>(i) + 1;
    if (i < line.size() && line[i] == '"') {
      ++i;
      while (true) {
        if (i >= line.size()) return Error::format("{}: unterminated quoted field", f.column);
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            f.text += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        f.text += line[i++];
      }
      while (i < line.size() && line[i] == ' ') ++i;
      if (i < line.size() && line[i] != ',') {
        return Error::format("{}: unexpected text after a quoted field", static_cast<int>(i) + 1);
      }
    } else {
      while (i < line.size() && line[i] != ',') f.text += line[i++];
      while (!f.text.empty() && f.text.back() == ' ') f.text.pop_back();
    }
    fields.push_back(std::move(f));
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return fields;
}

// Every non-blank, non-comment line with its fields.
Result<std::vector<Line>> records(std::string_view name, std::string_view text) {
  std::vector<Line> out;
  int number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    auto first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') continue;
    auto fields = splitRecord(line);
    if (!fields.ok()) return Error::format("{}:{}:{}", name, number, fields.error().message);
    out.push_back({number, std::move(*fields)});
  }
  return out;
}

// A time field: an offset (seconds or a Go duration) or an absolute RFC 3339 instant.
using TimeValue = std::variant<Duration, Time>;

Result<TimeValue> parseTimeField(const std::string& text) {
  if (text.empty()) return Error::of("empty");
  double seconds = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (ec == std::errc() && end == text.data() + text.size()) {
    if (!std::isfinite(seconds) || seconds < 0 || seconds > 1e9) {
      return Error::format("{}: expected a non-negative number of seconds", quote(text));
    }
    return TimeValue{std::chrono::duration_cast<Duration>(std::chrono::duration<double>(seconds))};
  }
  if (auto d = parseGoDuration(text); d.ok()) {
    if (d->count() < 0) return Error::format("{}: must not be negative", quote(text));
    return TimeValue{*d};
  }
  if (auto t = parseRFC3339(text); t.ok()) return TimeValue{*t};
  return Error::format("{}: expected seconds (15, 15.5), a duration (1m30s) or an RFC 3339 time",
                       quote(text));
}

Result<std::int64_t> parseValueField(const std::string& text) {
  auto q = api::Quantity::parse(text);
  if (!q.ok()) return Error::format("{}: expected a quantity (0.8, 800m, 12, 1.5Gi)", quote(text));
  return q->milliValue();
}

class CsvError {
 public:
  explicit CsvError(std::string_view file) : file_(file) {}
  Error at(const Line& line, const Field& field, std::string_view column,
           const std::string& message) const {
    return Error::format("{}:{}:{}: {}: {}", file_, line.number, field.column, column, message);
  }
  Error atLine(const Line& line, const std::string& message) const {
    return Error::format("{}:{}: {}", file_, line.number, message);
  }

 private:
  std::string_view file_;
};

// Column positions by header name.
struct Header {
  std::map<std::string, size_t> index;
  size_t columns = 0;
  std::optional<size_t> find(const std::string& name) const {
    auto it = index.find(name);
    return it == index.end() ? std::nullopt : std::optional<size_t>(it->second);
  }
};

constexpr const char* kDemoHeader = "seconds,load_milli,utilization,current,desired";

bool isDemoHeader(const Line& line) {
  std::string joined;
  for (const auto& f : line.fields) joined += (joined.empty() ? "" : ",") + f.text;
  return joined == kDemoHeader;
}

Result<const Field*> field(const CsvError& err, const Line& line, size_t index,
                           std::string_view column) {
  if (index >= line.fields.size()) {
    return err.atLine(line, fmt::format("{} fields, the header has more: {} is missing",
                                        line.fields.size(), column));
  }
  return &line.fields[index];
}

Result<Trace> readDemoTrajectory(std::string_view name, const std::vector<Line>& lines) {
  CsvError err(name);
  Series load{"cpu", SeriesKind::Total, {}, std::string(name)};
  Trace trace;
  for (size_t i = 1; i < lines.size(); ++i) {
    const Line& line = lines[i];
    if (line.fields.size() != 5)
      return err.atLine(line, fmt::format("expected 5 fields, got {}", line.fields.size()));
    auto at = parseTimeField(line.fields[0].text);
    if (!at.ok()) return err.at(line, line.fields[0], "seconds", at.error().message);
    if (!std::holds_alternative<Duration>(*at)) {
      return err.at(line, line.fields[0], "seconds", "expected seconds from the start of the demo");
    }
    const Duration offset = std::get<Duration>(*at);
    if (!load.samples.empty() && offset < load.samples.back().at) {
      return err.at(line, line.fields[0], "seconds", "goes back in time");
    }
    std::int64_t milli = 0;
    const auto& l = line.fields[1].text;
    if (auto [end, ec] = std::from_chars(l.data(), l.data() + l.size(), milli);
        ec != std::errc() || end != l.data() + l.size() || milli < 0) {
      return err.at(line, line.fields[1], "load_milli",
                    fmt::format("{}: expected whole millicores", quote(l)));
    }
    RecordedReplicas r;
    r.at = offset;
    for (auto [index, target] : {std::pair{3, &r.current}, std::pair{4, &r.desired}}) {
      const auto& t = line.fields[index].text;
      if (auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), *target);
          ec != std::errc() || end != t.data() + t.size() || *target < 0) {
        return err.at(line, line.fields[index], index == 3 ? "current" : "desired",
                      fmt::format("{}: expected a replica count", quote(t)));
      }
    }
    load.samples.push_back({offset, milli});
    trace.recorded.push_back(r);
  }
  if (load.samples.empty()) return Error::format("{}: no samples after the header", name);
  trace.series.push_back(std::move(load));
  return trace;
}

Result<Header> readHeader(const CsvError& err, const Line& headerLine) {
  Header header;
  for (size_t i = 0; i < headerLine.fields.size(); ++i) {
    const auto& f = headerLine.fields[i];
    if (f.text != "time" && f.text != "metric" && f.text != "kind" && f.text != "value") {
      return err.at(
          headerLine, f, "header",
          fmt::format(
              "unknown column {}; a trace has the columns time,metric,kind,value (or is the demo's "
              "trajectory.csv: {})",
              quote(f.text), kDemoHeader));
    }
    if (!header.index.emplace(f.text, i).second) {
      return err.at(headerLine, f, "header", fmt::format("column {} appears twice", quote(f.text)));
    }
  }
  for (const char* required : {"time", "metric", "value"}) {
    if (!header.find(required))
      return err.atLine(headerLine, fmt::format("header: the {} column is missing", required));
  }
  header.columns = headerLine.fields.size();
  return header;
}

// One sample of a time,metric,kind,value file, with the fields errors point at.
struct Record {
  TimeValue at;
  SeriesKind kind = SeriesKind::Total;
  std::int64_t milli = 0;
  const Line* line = nullptr;
  const Field* timeField = nullptr;
  const Field* metricField = nullptr;
  const std::string& metric() const { return metricField->text; }
};

Result<Record> readRecord(const CsvError& err, const Header& header, const Line& line) {
  if (line.fields.size() > header.columns) {
    return err.atLine(
        line, fmt::format("{} fields, the header has {}", line.fields.size(), header.columns));
  }
  auto timeF = field(err, line, *header.find("time"), "time");
  auto metricF = field(err, line, *header.find("metric"), "metric");
  auto valueF = field(err, line, *header.find("value"), "value");
  for (const auto* r : {&timeF, &metricF, &valueF}) {
    if (!r->ok()) return r->error();
  }
  auto at = parseTimeField((*timeF)->text);
  if (!at.ok()) return err.at(line, **timeF, "time", at.error().message);
  if ((*metricF)->text.empty()) return err.at(line, **metricF, "metric", "empty");
  Record r{*at, SeriesKind::Total, 0, &line, *timeF, *metricF};
  if (auto k = header.find("kind")) {
    auto kindF = field(err, line, *k, "kind");
    if (!kindF.ok()) return kindF.error();
    auto parsed = parseSeriesKind((*kindF)->text);
    if (!parsed.ok()) return err.at(line, **kindF, "kind", parsed.error().message);
    r.kind = *parsed;
  }
  auto value = parseValueField((*valueF)->text);
  if (!value.ok()) return err.at(line, **valueF, "value", value.error().message);
  r.milli = *value;
  return r;
}

// The series of a file as read, each sample with its record (times not yet made offsets).
struct ReadSeries {
  std::vector<Series> series;
  std::vector<std::vector<Record>> records;  // per series

  Status add(const CsvError& err, std::string_view name, Record r) {
    size_t s = 0;
    while (s < series.size() && series[s].metric != r.metric()) ++s;
    if (s == series.size()) {
      series.push_back({r.metric(), r.kind, {}, std::string(name)});
      records.emplace_back();
    } else if (series[s].kind != r.kind) {
      return err.at(*r.line, *r.metricField, "kind",
                    fmt::format("metric {} was {} on line {}", r.metric(),
                                seriesKindName(series[s].kind), records[s].front().line->number));
    }
    if (!records[s].empty() && records[s].back().at.index() != r.at.index()) {
      return err.at(*r.line, *r.timeField, "time", "mixes offsets and RFC 3339 times");
    }
    if (!records[s].empty() && r.at < records[s].back().at) {
      return err.at(*r.line, *r.timeField, "time",
                    fmt::format("goes back in time (metric {} was at a later time on line {})",
                                r.metric(), records[s].back().line->number));
    }
    series[s].samples.push_back({Duration{0}, r.milli});
    records[s].push_back(r);
    return Status();
  }
};

// The series with their samples' offsets: from the earliest absolute time, if the file has any
// (the trace's origin); a file is all one way.
Result<Trace> alignTimes(const CsvError& err, ReadSeries read) {
  Trace trace;
  const Record* firstAbsolute = nullptr;
  const Record* firstRelative = nullptr;
  for (const auto& rs : read.records) {
    for (const auto& r : rs) {
      if (std::holds_alternative<Time>(r.at)) {
        if (!firstAbsolute || std::get<Time>(r.at) < std::get<Time>(firstAbsolute->at))
          firstAbsolute = &r;
      } else if (!firstRelative) {
        firstRelative = &r;
      }
    }
  }
  if (firstAbsolute && firstRelative) {
    const Record& later =
        firstAbsolute->line->number > firstRelative->line->number ? *firstAbsolute : *firstRelative;
    return err.at(*later.line, *later.timeField, "time", "mixes offsets and RFC 3339 times");
  }
  if (firstAbsolute) trace.origin = std::get<Time>(firstAbsolute->at);
  for (size_t s = 0; s < read.series.size(); ++s) {
    for (size_t i = 0; i < read.records[s].size(); ++i) {
      const auto& at = read.records[s][i].at;
      read.series[s].samples[i].at = std::holds_alternative<Time>(at)
                                         ? std::get<Time>(at) - *trace.origin
                                         : std::get<Duration>(at);
    }
  }
  trace.series = std::move(read.series);
  return trace;
}

Result<Trace> readSeriesCsv(std::string_view name, const std::vector<Line>& lines) {
  CsvError err(name);
  auto header = readHeader(err, lines.front());
  if (!header.ok()) return header.error();
  ReadSeries read;
  for (size_t i = 1; i < lines.size(); ++i) {
    auto record = readRecord(err, *header, lines[i]);
    if (!record.ok()) return record.error();
    if (auto added = read.add(err, name, *record); !added.ok()) return added.error();
  }
  if (read.series.empty()) return Error::format("{}: no samples after the header", name);
  return alignTimes(err, std::move(read));
}

}  // namespace

Result<Trace> readCsvTrace(std::string_view name, std::string_view text) {
  auto lines = records(name, text);
  if (!lines.ok()) return lines.error();
  if (lines->empty())
    return Error::format("{}: empty trace (expected a header: time,metric,kind,value)", name);
  if (isDemoHeader(lines->front())) return readDemoTrajectory(name, *lines);
  return readSeriesCsv(name, *lines);
}

}  // namespace hpa::replay
