// cpprest is included last: its U macro breaks headers parsed after it.
#include "sim/servers.h"

#include <fmt/format.h>

#include <boost/asio/ssl.hpp>

#include "api/quantity.h"
#include "sim/metrics_api.h"

#include <cpprest/http_listener.h>
#undef U

namespace hpa::sim {
namespace {

namespace http = web::http;
using Listener = http::experimental::listener::http_listener;

class ListenerServer final : public Server {
 public:
  explicit ListenerServer(std::unique_ptr<Listener> l) : listener_(std::move(l)) {}
  ~ListenerServer() override {
    try {
      listener_->close().wait();
    } catch (const std::exception&) {
      // Shutting down anyway.
    }
  }

 private:
  std::unique_ptr<Listener> listener_;
};

std::map<std::string, std::string> queryOf(const http::http_request& req) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : web::uri::split_query(req.request_uri().query())) {
    out[web::uri::decode(k)] = web::uri::decode(v);
  }
  return out;
}

void reply(http::http_request& req, int status, const nlohmann::json& body) {
  req.reply(static_cast<http::status_code>(status), body.dump(), "application/json");
}

nlohmann::json state(const PodIndex& pods, LoadModel& model) {
  nlohmann::json s = model.state(pods.workloadCounts(model.workloadCount()));
  const WorkloadCount totals = pods.totals();
  s["pods"] = {{"total", totals.pods}, {"ready", totals.ready}};
  return s;
}

// One change of the /set body: {"workload": NAME, "cpu": Q, "memory": Q}, {"external": METRIC,
// "value": Q}, {"objectMetric": METRIC, "name": OBJECT, "value": Q} or {"workload": NAME,
// "podMetric": METRIC, "value": Q}.
Result<Step> stepOf(const nlohmann::json& body) {
  if (!body.is_object()) return Error::of("expected a JSON object (or an array of them)");
  Step step;
  step.workload = body.value("workload", "");
  step.external = body.value("external", "");
  step.objectMetric = body.value("objectMetric", "");
  step.podMetric = body.value("podMetric", "");
  step.objectName = body.value("name", "");
  auto milli = [&](const char* f) -> Result<std::optional<std::int64_t>> {
    if (!body.contains(f)) return std::optional<std::int64_t>();
    auto q = api::Quantity::parse(body[f].is_string() ? body[f].get<std::string>() : body[f].dump());
    if (!q.ok()) return Error::format("{}: {}", f, q.error().message);
    return std::optional<std::int64_t>(q->milliValue());
  };
  auto cpu = milli("cpu");
  auto memory = milli("memory");
  auto value = milli("value");
  for (auto* r : {&cpu, &memory, &value}) {
    if (!r->ok()) return r->error();
  }
  step.cpuMilli = *cpu;
  if (*memory) step.memoryBytes = **memory / 1000;
  step.valueMilli = *value;
  return step;
}

}  // namespace

Result<std::unique_ptr<Server>> startMetricsServer(int port, const TlsFiles& tls, const PodIndex& pods,
                                                   LoadModel& model, Clock& clock) {
  try {
    http::experimental::listener::http_listener_config config;
    config.set_ssl_context_callback([tls](boost::asio::ssl::context& ctx) {
      ctx.set_options(boost::asio::ssl::context::default_workarounds | boost::asio::ssl::context::no_sslv2 |
                      boost::asio::ssl::context::no_sslv3 | boost::asio::ssl::context::no_tlsv1 |
                      boost::asio::ssl::context::no_tlsv1_1);
      ctx.use_certificate_chain_file(tls.certFile);
      ctx.use_private_key_file(tls.keyFile, boost::asio::ssl::context::pem);
      if (!tls.clientCaFile.empty()) {
        ctx.load_verify_file(tls.clientCaFile);
        ctx.set_verify_mode(boost::asio::ssl::verify_peer | boost::asio::ssl::verify_fail_if_no_peer_cert);
      }
    });
    auto listener = std::make_unique<Listener>(utility::conversions::to_string_t(fmt::format("https://127.0.0.1:{}/", port)),
                                               config);
    listener->support(http::methods::GET, [&pods, &model, &clock](http::http_request req) {
      try {
        // The path arrives percent-encoded ("pods/%2A/metric"), as an API server forwards it.
        ApiResponse r = serveMetricsApi(web::uri::decode(req.relative_uri().path()), queryOf(req), pods, model, clock.now());
        reply(req, r.status, r.body);
      } catch (const std::exception& e) {
        reply(req, 500, {{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"}, {"message", e.what()}, {"code", 500}});
      }
    });
    listener->open().wait();
    return std::unique_ptr<Server>(std::make_unique<ListenerServer>(std::move(listener)));
  } catch (const std::exception& e) {
    return Error::format("cannot serve the metrics APIs on 127.0.0.1:{}: {}", port, e.what());
  }
}

Result<std::unique_ptr<Server>> startControlServer(int port, const PodIndex& pods, LoadModel& model) {
  try {
    auto listener = std::make_unique<Listener>(utility::conversions::to_string_t(fmt::format("http://127.0.0.1:{}/", port)));
    listener->support([&pods, &model](http::http_request req) {
      const std::string path = req.relative_uri().path();
      try {
        if (req.method() == http::methods::GET && path == "/state") {
          reply(req, 200, state(pods, model));
          return;
        }
        if (req.method() == http::methods::POST && path == "/set") {
          auto body = nlohmann::json::parse(req.extract_utf8string(true).get(), nullptr, false);
          if (body.is_discarded()) {
            reply(req, 400, {{"error", "expected a JSON object (or an array of them)"}});
            return;
          }
          // Every change is checked before any is applied, so a bad batch changes nothing.
          std::vector<Step> steps;
          for (const auto& item : body.is_array() ? body : nlohmann::json::array({body})) {
            auto step = stepOf(item);
            if (!step.ok()) {
              reply(req, 400, {{"error", step.error().message}});
              return;
            }
            steps.push_back(*step);
          }
          if (auto s = model.apply(steps); !s.ok()) {
            reply(req, 400, {{"error", s.error().message}});
            return;
          }
          reply(req, 200, state(pods, model));
          return;
        }
        reply(req, 404, {{"error", "GET /state or POST /set"}});
      } catch (const std::exception& e) {
        reply(req, 500, {{"error", e.what()}});
      }
    });
    listener->open().wait();
    return std::unique_ptr<Server>(std::make_unique<ListenerServer>(std::move(listener)));
  } catch (const std::exception& e) {
    return Error::format("cannot serve the control endpoint on 127.0.0.1:{}: {}", port, e.what());
  }
}

}  // namespace hpa::sim
