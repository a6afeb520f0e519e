// The NOTIFY-coherent status cache.
#include "api/http/status_cache.hpp"

#include <gtest/gtest.h>

namespace duepay::api {
namespace {

class CountingReader final : public ChargeReader {
  public:
    std::optional<ChargeView> find(const std::string&) override { return std::nullopt; }
    std::optional<ChargeStatus> find_status(const std::string& id) override {
        ++reads;
        std::optional<ChargeStatus> out;
        if (auto it = statuses.find(id); it != statuses.end())
            out = ChargeStatus{ProjectId{"prj"}, it->second, Mode::test};
        if (during_read) during_read();  // what happens after the row was read, before we return
        return out;
    }
    std::map<std::string, Status> statuses;
    std::function<void()> during_read;
    int reads = 0;
};

TEST(StatusCache, ServesRepeatReadsFromMemoryUntilInvalidated) {
    CountingReader db;
    db.statuses["a"] = Status::pending;
    StatusCache cache(db);
    EXPECT_EQ(cache.find_status("a")->status, Status::pending);
    EXPECT_EQ(cache.find_status("a")->status, Status::pending);
    EXPECT_EQ(db.reads, 1);
    db.statuses["a"] = Status::paid;
    cache.invalidate("a");
    EXPECT_EQ(cache.find_status("a")->status, Status::paid);
    EXPECT_EQ(db.reads, 2);
}

TEST(StatusCache, UnknownIdsAreNotCached) {
    CountingReader db;
    StatusCache cache(db);
    EXPECT_FALSE(cache.find_status("x").has_value());
    db.statuses["x"] =
        Status::pending;  // projected a moment later, before any notification arrives here
    EXPECT_EQ(cache.find_status("x")->status, Status::pending);
}

TEST(StatusCache, AReadThatRacedWithAnInvalidationIsNotCached) {
    CountingReader db;
    db.statuses["a"] = Status::pending;
    StatusCache cache(db);
    // The projector commits "paid" and notifies while this read still holds the old value.
    db.during_read = [&] {
        db.during_read = nullptr;
        db.statuses["a"] = Status::paid;
        cache.invalidate("a");
    };
    EXPECT_EQ(cache.find_status("a")->status,
              Status::pending);                               // what the database said at read time
    EXPECT_EQ(cache.find_status("a")->status, Status::paid);  // but it was not cached
}

TEST(StatusCache, ClearDropsEverything) {
    CountingReader db;
    db.statuses["a"] = Status::pending;
    StatusCache cache(db);
    (void)cache.find_status("a");
    cache.clear();
    db.statuses["a"] = Status::expired;
    EXPECT_EQ(cache.find_status("a")->status, Status::expired);
    EXPECT_EQ(cache.hits(), 0u);
    EXPECT_EQ(cache.misses(), 2u);
}

}  // namespace
}  // namespace duepay::api
