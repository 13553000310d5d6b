#include "daemon/fatal_exit.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <thread>

namespace hpa::daemon {
namespace {

// A connected pair of TCP sockets on the loopback interface.
struct Connection {
  Connection() {
    listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    EXPECT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), len), 0);
    EXPECT_EQ(listen(listener, 1), 0);
    EXPECT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    client = socket(AF_INET, SOCK_STREAM, 0);
    EXPECT_EQ(connect(client, reinterpret_cast<sockaddr*>(&addr), len), 0);
    server = accept(listener, nullptr, nullptr);
  }
  ~Connection() {
    for (int fd : {listener, client, server}) {
      if (fd >= 0) close(fd);
    }
  }
  int listener = -1;
  int client = -1;
  int server = -1;
};

TEST(FatalExit, ConnectionsCloseWithAResetThatDiscardsWhatIsQueued) {
  Connection c;
  ASSERT_GE(c.server, 0);
  // Before: an orderly close, the peer reads the end of the stream.
  {
    Connection orderly;
    close(orderly.client);
    orderly.client = -1;
    char byte = 0;
    EXPECT_EQ(recv(orderly.server, &byte, 1, 0), 0);
  }
  EXPECT_GE(resetConnectionsOnClose(), 3);  // the listener and both ends of c
  linger l{};
  socklen_t len = sizeof l;
  ASSERT_EQ(getsockopt(c.client, SOL_SOCKET, SO_LINGER, &l, &len), 0);
  EXPECT_EQ(l.l_onoff, 1);
  EXPECT_EQ(l.l_linger, 0);
  close(c.client);
  c.client = -1;
  char byte = 0;
  EXPECT_EQ(recv(c.server, &byte, 1, 0), -1);
  EXPECT_EQ(errno, ECONNRESET);
}

TEST(FatalExit, LeavesOtherDescriptorsAlone) {
  int pipeFds[2];
  ASSERT_EQ(pipe(pipeFds), 0);
  const int local = socket(AF_UNIX, SOCK_STREAM, 0);
  EXPECT_EQ(resetConnectionsOnClose(), 0);
  close(local);
  close(pipeFds[0]);
  close(pipeFds[1]);
}

TEST(FatalExitDeathTest, ExitsAtOnceWithTheCode) {
  EXPECT_EXIT(exitAtOnce(1), ::testing::ExitedWithCode(1), "");
}

// A stop that does not finish in time ends the process; one that finishes disarms the deadline.
TEST(StopDeadline, CallsItsExpiryWhenTheStopOutlastsIt) {
  std::atomic<bool> expired{false};
  {
    StopDeadline deadline(std::chrono::milliseconds(20), [&] { expired = true; });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_TRUE(expired);
}

TEST(StopDeadline, AStopThatFinishesInTimeCallsNothing) {
  std::atomic<bool> expired{false};
  {
    StopDeadline deadline(std::chrono::seconds(30), [&] { expired = true; });
  }
  EXPECT_FALSE(expired);
}

}  // namespace
}  // namespace hpa::daemon
