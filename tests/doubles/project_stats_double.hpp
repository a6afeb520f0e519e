// An in-memory ProjectStats (domain/ports/project_stats.hpp) for the dashboard's unit tests: it
// answers the view a test sets, records the queries it was asked, and throws StoreUnavailable
// while `down`. Unit tests only: the Postgres adapter is tested against the real stack.
#pragma once

#include <vector>

#include "domain/ports/errors.hpp"
#include "domain/ports/project_stats.hpp"
#include "domain/reports/paid_time.hpp"

namespace duepay::doubles {

class ProjectStatsDouble final : public ports::ProjectStats {
  public:
    ProjectStatsDouble() { view.paid_time.assign(domain::reports::kPaidTimeBuckets, 0); }
    ports::ProjectStatsView read(const ports::StatsQuery& query) override {
        asked.push_back(query);
        if (down) throw ports::StoreUnavailable("stats store down");
        return view;
    }
    ports::ProjectStatsView view;
    std::vector<ports::StatsQuery> asked;
    bool down = false;
};

}  // namespace duepay::doubles
