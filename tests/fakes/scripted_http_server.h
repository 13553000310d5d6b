#pragma once

// A plain-HTTP server on 127.0.0.1 whose answers are scripts of raw bytes, pauses and hang-ups:
// what a broken proxy or a hostile metrics adapter sends, which no well-behaved server library
// lets a test send (a body shorter than its Content-Length, a body that never ends, silence).

#include <sys/socket.h>

#include <atomic>
#include <boost/asio.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace hpa::testing {

class ScriptedHttpServer {
 public:
  // One accepted connection, handed to the script with each request it carries.
  class Connection {
   public:
    Connection(boost::asio::ip::tcp::socket& socket, ScriptedHttpServer& server)
        : socket_(socket), server_(server) {}
    // False once the peer is gone or the server stops.
    bool write(std::string_view bytes) {
      boost::system::error_code ec;
      boost::asio::write(socket_, boost::asio::buffer(bytes.data(), bytes.size()), ec);
      return !ec && !server_.stopping_;
    }
    // A complete answer with its Content-Length: the connection stays usable.
    bool respond(int status, std::string_view body, std::string_view extraHeaders = "") {
      return write(
          "HTTP/1.1 " + std::to_string(status) +
          " X\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
          "\r\n" + std::string(extraHeaders) + "\r\n" + std::string(body));
    }
    // Waits, unless the server stops first; false then.
    bool pause(std::chrono::milliseconds d) {
      std::unique_lock<std::mutex> lock(server_.mu_);
      return !server_.stopped_.wait_for(lock, d, [this] { return server_.stopping_.load(); });
    }
    // Ends the connection after this script.
    void hangUp() { hungUp_ = true; }
    bool hungUp() const { return hungUp_; }

   private:
    boost::asio::ip::tcp::socket& socket_;
    ScriptedHttpServer& server_;
    bool hungUp_ = false;
  };

  // Runs on the connection's own thread with the request line and headers of one request.
  using Script = std::function<void(const std::string& head, Connection& connection)>;

  explicit ScriptedHttpServer(Script script)
      : script_(std::move(script)),
        acceptor_(io_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {
    port_ = acceptor_.local_endpoint().port();
    acceptThread_ = std::thread([this] { acceptLoop(); });
  }

  ~ScriptedHttpServer() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      for (int fd : openSockets_) ::shutdown(fd, SHUT_RDWR);
    }
    stopped_.notify_all();
    // Wakes the blocking accept.
    boost::system::error_code ec;
    boost::asio::ip::tcp::socket wake(io_);
    wake.connect({boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port_)},
                 ec);
    acceptThread_.join();
    for (auto& t : connectionThreads_) t.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int requests() const { return requests_; }

 private:
  void acceptLoop() {
    while (!stopping_) {
      auto socket = std::make_shared<boost::asio::ip::tcp::socket>(io_);
      boost::system::error_code ec;
      acceptor_.accept(*socket, ec);
      if (ec || stopping_) return;
      std::lock_guard<std::mutex> lock(mu_);
      openSockets_.push_back(socket->native_handle());
      connectionThreads_.emplace_back([this, socket] {
        serve(*socket);
        // Forgotten before the descriptor closes, so the destructor never shuts a reused one.
        std::lock_guard<std::mutex> forget(mu_);
        std::erase(openSockets_, socket->native_handle());
      });
    }
  }

  void serve(boost::asio::ip::tcp::socket& socket) {
    Connection connection(socket, *this);
    std::string pending;
    while (!stopping_ && !connection.hungUp()) {
      auto end = pending.find("\r\n\r\n");
      while (end == std::string::npos) {
        char buf[4096];
        boost::system::error_code ec;
        size_t n = socket.read_some(boost::asio::buffer(buf), ec);
        if (ec || stopping_) return;
        pending.append(buf, n);
        end = pending.find("\r\n\r\n");
      }
      std::string head = pending.substr(0, end);
      pending.erase(0, end + 4);  // the clients under test send bodyless requests
      ++requests_;
      script_(head, connection);
    }
    boost::system::error_code ec;
    socket.shutdown(boost::asio::ip::tcp::socket::shutdown_both, ec);
  }

  Script script_;
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  int port_ = 0;
  std::atomic<int> requests_{0};
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::condition_variable stopped_;
  std::vector<int> openSockets_;
  std::vector<std::thread> connectionThreads_;
  std::thread acceptThread_;
};

}  // namespace hpa::testing
