#pragma once

namespace hpa::daemon {

// Sets every TCP socket of the process to close with a reset (SO_LINGER with a zero timeout):
// what the kernel still holds of a request (sent by the process, not yet acknowledged, e.g. while
// the API server is cut off and the packets are dropped) is then discarded when the socket closes,
// instead of being retransmitted, and delivered, once the network returns. Returns how many
// sockets it set.
int resetConnectionsOnClose();

// kube-controller-manager's way out when its leader election is lost (klog.Fatalf("leaderelection
// lost")): at once, without finishing the reconciles in flight (each could still write), and with
// every connection reset (resetConnectionsOnClose), so nothing this process asked for reaches the
// API server after a standby may have taken the Lease.
[[noreturn]] void exitAtOnce(int code);

}  // namespace hpa::daemon
