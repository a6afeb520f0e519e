#include "domain/charge/resolution_json.hpp"

#include <rapidjson/stringbuffer.h>

#include "domain/events/json_writer.hpp"
#include "domain/evm/address.hpp"
#include "domain/hex.hpp"

namespace duepay::domain::charge {

std::string actor_display(const events::Actor& actor) {
    if (actor.kind == events::ActorKind::wallet) {
        if (auto bytes = from_hex_fixed<20>(actor.id)) return evm::to_checksum(Address{*bytes});
    }
    return actor.id;
}

std::string resolution_json(const Resolution& r) {
    rapidjson::StringBuffer b;
    json::Writer w(b);
    w.StartObject();
    json::str(w, "exception", events::to_string(r.issue.exception));
    json::opt_str(w, "refundId",
                  r.issue.refund_id.empty() ? std::nullopt : std::optional(r.issue.refund_id));
    json::str(w, "note", r.note);
    w.Key("resolvedBy");
    w.StartObject();
    json::str(w, "kind", events::to_string(r.resolved_by.kind));
    json::str(w, "id", actor_display(r.resolved_by));
    w.EndObject();
    json::str(w, "resolvedAt", r.at);
    w.EndObject();
    return {b.GetString(), b.GetSize()};
}

}  // namespace duepay::domain::charge
