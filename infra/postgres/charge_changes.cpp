#include "infra/postgres/charge_changes.hpp"

#include <sstream>

#include "infra/postgres/charge_store.hpp"
#include "infra/postgres/notify_listener.hpp"

namespace duepay::infra::postgres {
namespace {

struct ListenerSubscription final : ports::ChargeChanges::Subscription {
    template <typename... Args>
    explicit ListenerSubscription(Args&&... args) : listener(std::forward<Args>(args)...) {}
    NotifyListener listener;  // its destructor stops and joins the thread
};

}  // namespace

std::unique_ptr<ports::ChargeChanges::Subscription> PgChargeChanges::subscribe(
    OnChanged changed, std::function<void()> missed) {
    return std::make_unique<ListenerSubscription>(
        url_, std::string(kChargesChannel),
        [changed = std::move(changed)](const std::string& payload) {
            std::stringstream ids(payload);
            for (std::string id; std::getline(ids, id, ',');) changed(id);
        },
        std::move(missed));
}

}  // namespace duepay::infra::postgres
