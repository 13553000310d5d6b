// cpprest is included last: its U macro breaks headers parsed after it.
#include "daemon/http_endpoints.h"

#include <fmt/format.h>

#include <cpprest/http_listener.h>
#undef U

namespace hpa::daemon {
namespace {

namespace http = web::http;

class CpprestEndpoints final : public HttpEndpoints {
 public:
  CpprestEndpoints(std::unique_ptr<http::experimental::listener::http_listener> listener, int port)
      : listener_(std::move(listener)), port_(port) {}
  ~CpprestEndpoints() override {
    try {
      listener_->close().wait();
    } catch (const std::exception&) {
      // Shutting down: nothing useful to do with a close failure.
    }
  }
  int port() const override { return port_; }

 private:
  std::unique_ptr<http::experimental::listener::http_listener> listener_;
  int port_;
};

}  // namespace

Result<std::unique_ptr<HttpEndpoints>> startHttpEndpoints(const std::string& bindAddress, int port,
                                                          EndpointHandlers handlers) {
  try {
    auto listener = std::make_unique<http::experimental::listener::http_listener>(
        utility::conversions::to_string_t(fmt::format("http://{}:{}/", bindAddress, port)));
    listener->support(http::methods::GET, [handlers](http::http_request req) {
      const std::string path = req.relative_uri().path();
      try {
        if (path == "/healthz") {
          bool ok = handlers.healthy();
          req.reply(ok ? http::status_codes::OK : http::status_codes::InternalError, ok ? "ok" : "unhealthy");
        } else if (path == "/readyz") {
          auto [ok, detail] = handlers.ready();
          req.reply(ok ? http::status_codes::OK : http::status_codes::ServiceUnavailable, detail);
        } else if (path == "/metrics") {
          req.reply(http::status_codes::OK, handlers.metrics(), "text/plain; version=0.0.4; charset=utf-8");
        } else {
          req.reply(http::status_codes::NotFound, "not found");
        }
      } catch (const std::exception& e) {
        req.reply(http::status_codes::InternalError, e.what());
      }
    });
    listener->open().wait();
    return std::unique_ptr<HttpEndpoints>(std::make_unique<CpprestEndpoints>(std::move(listener), port));
  } catch (const std::exception& e) {
    return Error::format("cannot serve HTTP endpoints on {}:{}: {}", bindAddress, port, e.what());
  }
}

}  // namespace hpa::daemon
