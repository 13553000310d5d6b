#include "kube/read_only_client.h"

namespace hpa::kube {

Result<std::unique_ptr<ReadOnlyClient>> ReadOnlyClient::connect(const RestConfig& config,
                                                                Clock& clock) {
  auto transport = RestClient::makeTransport(config);
  if (!transport.ok()) return transport.error();
  return std::make_unique<ReadOnlyClient>(config, std::move(*transport), clock);
}

ReadOnlyClient::ReadOnlyClient(const RestConfig& config, std::unique_ptr<Transport> transport,
                               Clock& clock) {
  auto readOnly = std::make_unique<ReadOnlyTransport>(std::move(transport));
  reads_ = readOnly.get();
  client_ = std::make_unique<RestClient>(config, std::move(readOnly), clock, Logger::discard());
}

}  // namespace hpa::kube
