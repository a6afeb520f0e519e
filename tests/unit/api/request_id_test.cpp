#include "api/http/request_id.hpp"

#include <gtest/gtest.h>

#include "api/http/envelope.hpp"

namespace duepay::api {
namespace {

TEST(RequestId, EchoesWellFormedIdsAndReplacesOthers) {
    EXPECT_EQ(choose_request_id(std::string("abc-DEF_1.2")), "abc-DEF_1.2");
    EXPECT_EQ(choose_request_id(std::string(128, 'a')), std::string(128, 'a'));
    for (const std::string& bad : {std::string(""), std::string(129, 'a'), std::string("a b"),
                                   std::string("x\r\ny"), std::string("<script>")}) {
        const auto id = choose_request_id(bad);
        EXPECT_NE(id, bad);
        EXPECT_TRUE(is_valid_request_id(id));
        EXPECT_EQ(id.rfind("req_", 0), 0u);
    }
    EXPECT_NE(new_request_id(), new_request_id());
}

TEST(Envelope, SuccessAndErrorShapes) {
    EXPECT_EQ(success_response(200, R"({"a":1})").body,
              R"({"success":true,"data":{"a":1},"error":null})");
    auto e = error_response(503, "event_log_unavailable", "say \"hi\"", 1000);
    EXPECT_EQ(e.status, 503);
    EXPECT_EQ(
        e.body,
        R"({"success":false,"data":null,"error":"say \"hi\"","meta":{"code":"event_log_unavailable","retryAfterMs":1000}})");
}

}  // namespace
}  // namespace duepay::api
