#include "infra/kafka/event_log.hpp"

#include <future>

namespace duepay::infra::kafka {

AppendResult EventLog::append(LogRecord record) {
    auto promise = std::make_shared<std::promise<AppendResult>>();
    auto future = promise->get_future();
    append_async(std::move(record), [promise](AppendResult result) { promise->set_value(std::move(result)); });
    AppendResult result = future.get();
    if (!result.ok()) {
        // Both failure kinds are retryable from the log's side: the broker may come back. A caller
        // that retries after possibly_persisted must tolerate a duplicate (same event id).
        throw EventLogError("event log append failed: " + result.error, result.status, true);
    }
    return result;
}

}  // namespace duepay::infra::kafka
