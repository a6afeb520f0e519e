// The two loops of the webhooks role (webhooks.hpp), each in its own file: the enqueuer
// (webhook_enqueuer.cpp) and the dispatcher (webhook_dispatcher.cpp). run_webhooks runs them.
#pragma once

#include <atomic>

#include "consumers/roles/webhooks.hpp"

namespace duepay::consumers::detail {

// Consumes the topic and enqueues until `stop`; throws when it cannot go on.
void run_webhook_enqueuer(const WebhooksSettings& s, const std::atomic<bool>& stop);

// Claims, sends and records deliveries until `stop` or `halt` (the enqueuer failed), finishing
// what is in flight first; throws when it cannot go on.
void run_webhook_dispatcher(const WebhooksSettings& s, const std::atomic<bool>& stop,
                            const std::atomic<bool>& halt);

}  // namespace duepay::consumers::detail
