// Consumer offsets against the real Postgres of the dev stack (DATABASE_URL): store_next_offsets
// writes every (topic, partition) of a batch, several topics and partitions in one call, and a
// later call moves only the partitions it names.
#include "infra/postgres/offset_store.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <pqxx/pqxx>
#include <random>
#include <string>

namespace duepay::tests {
namespace {

using infra::postgres::load_next_offsets;
using infra::postgres::NextOffsets;
using infra::postgres::store_next_offsets;

class OffsetStore : public ::testing::Test {
  protected:
    void SetUp() override {
        const char* url = std::getenv("DATABASE_URL");
        if (url == nullptr || *url == '\0')
            GTEST_SKIP() << "integration stack not configured: DATABASE_URL";
        conn_ = std::make_unique<pqxx::connection>(url);
        group_ = "offset-store-test-" + std::to_string(std::random_device{}());
    }
    void TearDown() override {
        if (!conn_) return;
        pqxx::work tx(*conn_);
        tx.exec_params("delete from consumer_offsets where group_id = $1", group_);
        tx.commit();
    }
    void store(const NextOffsets& offsets) {
        pqxx::work tx(*conn_);
        store_next_offsets(tx, group_, offsets);
        tx.commit();
    }
    std::map<std::int32_t, std::int64_t> load(const std::string& topic) {
        pqxx::read_transaction tx(*conn_);
        return load_next_offsets(tx, group_, topic, {0, 1, 2, 3, 4, 5});
    }
    std::unique_ptr<pqxx::connection> conn_;
    std::string group_;
};

TEST_F(OffsetStore, StoresEveryPartitionOfEveryTopicInOneCall) {
    store({{{"topic.a", 0}, 5}, {{"topic.a", 3}, 9}, {{"topic.a", 5}, 1}, {{"topic.b", 1}, 2}});
    EXPECT_EQ(load("topic.a"), (std::map<std::int32_t, std::int64_t>{{0, 5}, {3, 9}, {5, 1}}));
    EXPECT_EQ(load("topic.b"), (std::map<std::int32_t, std::int64_t>{{1, 2}}));
}

TEST_F(OffsetStore, ALaterCallMovesOnlyThePartitionsItNames) {
    store({{{"topic.a", 0}, 5}, {{"topic.a", 3}, 9}});
    store({{{"topic.a", 3}, 12}, {{"topic.a", 4}, 1}});
    EXPECT_EQ(load("topic.a"), (std::map<std::int32_t, std::int64_t>{{0, 5}, {3, 12}, {4, 1}}));
}

}  // namespace
}  // namespace duepay::tests
