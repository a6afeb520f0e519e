// The process's shared LISTEN on the charges channel (infra/postgres/charges_channel.hpp) against
// the stack's Postgres, in a database of its own (label integration): two subscribers of one URL
// hold one connection between them, each hears every notification until it is dropped, the last
// one dropped closes the connection, and PgChargeChanges hands its subscriber one id at a time.
#include "infra/postgres/charges_channel.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <pqxx/pqxx>
#include <string>
#include <thread>
#include <vector>

#include "infra/postgres/charge_changes.hpp"
#include "infra/postgres/charge_store.hpp"
#include "tests/integration/pipeline/pipeline_support.hpp"

namespace duepay::tests {
namespace {

using infra::postgres::ChargesChannel;
using namespace std::chrono_literals;

// What one subscriber heard, from the channel's thread.
struct Heard {
    std::mutex mutex;
    std::vector<std::string> items;
    void add(const std::string& item) {
        std::lock_guard lock(mutex);
        items.push_back(item);
    }
    std::vector<std::string> now() {
        std::lock_guard lock(mutex);
        return items;
    }
};

// Polls `done` for up to 5 s.
template <typename F>
bool eventually(F done) {
    for (auto until = std::chrono::steady_clock::now() + 5s;
         std::chrono::steady_clock::now() < until; std::this_thread::sleep_for(20ms)) {
        if (done()) return true;
    }
    return done();
}

TEST(ChargesChannel, SubscribersOfOneUrlShareOneListenConnection) {
    DUEPAY_REQUIRE_STACK(env);
    const ScopedDatabase db(env, "duepay_charges_channel_" + std::to_string(getpid()));
    const auto& url = db.url;
    const auto& name = db.name;
    pqxx::connection c(url);
    const auto listeners = [&] {
        pqxx::nontransaction tx(c);
        return tx
            .exec_params1(
                "select count(*) from pg_stat_activity where datname = $1 and "
                "query ilike 'listen%' and pid <> pg_backend_pid()",
                name)[0]
            .as<int>();
    };
    const auto notify = [&](const std::string& payload) {
        pqxx::nontransaction tx(c);
        tx.exec_params("select pg_notify($1, $2)", infra::postgres::kChargesChannel, payload);
    };

    Heard one, two;
    auto first = ChargesChannel::subscribe(
        url, [&](const std::string& p) { one.add(p); }, [] {});
    auto second = ChargesChannel::subscribe(
        url, [&](const std::string& p) { two.add(p); }, [] {});
    ASSERT_TRUE(eventually([&] { return first->listening() && second->listening(); }));
    ASSERT_TRUE(eventually([&] { return listeners() == 1; }));
    std::this_thread::sleep_for(200ms);
    EXPECT_EQ(listeners(), 1) << "two subscribers, one connection";

    notify("inv_a,inv_b");
    ASSERT_TRUE(eventually([&] { return one.now().size() == 1 && two.now().size() == 1; }));
    EXPECT_EQ(one.now()[0], "inv_a,inv_b");
    EXPECT_EQ(two.now()[0], "inv_a,inv_b");

    first.reset();
    notify("inv_c");
    ASSERT_TRUE(eventually([&] { return two.now().size() == 2; }));
    EXPECT_EQ(two.now()[1], "inv_c");
    EXPECT_EQ(one.now().size(), 1u) << "a dropped subscriber hears nothing more";
    EXPECT_EQ(listeners(), 1) << "the connection stays while a subscriber is left";

    second.reset();
    EXPECT_TRUE(eventually([&] { return listeners() == 0; })) << "the last one closes it";

    // The port's adapter subscribes the same way, one id per call.
    infra::postgres::PgChargeChanges changes(url);
    Heard ids;
    auto sub = changes.subscribe([&](const std::string& id) { ids.add(id); }, [] {});
    ASSERT_TRUE(eventually([&] { return listeners() == 1; }));
    notify("inv_x,inv_y");
    ASSERT_TRUE(eventually([&] { return ids.now().size() == 2; }));
    EXPECT_EQ(ids.now(), (std::vector<std::string>{"inv_x", "inv_y"}));
}

}  // namespace
}  // namespace duepay::tests
