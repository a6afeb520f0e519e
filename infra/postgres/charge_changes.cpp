#include "infra/postgres/charge_changes.hpp"

#include <sstream>

#include "infra/postgres/charges_channel.hpp"

namespace duepay::infra::postgres {

std::unique_ptr<ports::ChargeChanges::Subscription> PgChargeChanges::subscribe(
    OnChanged changed, std::function<void()> missed) {
    return ChargesChannel::subscribe(
        url_,
        [changed = std::move(changed)](const std::string& payload) {
            std::stringstream ids(payload);
            for (std::string id; std::getline(ids, id, ',');) changed(id);
        },
        std::move(missed));
}

}  // namespace duepay::infra::postgres
