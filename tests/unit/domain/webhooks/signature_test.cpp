#include "domain/webhooks/signature.hpp"

#include <gtest/gtest.h>

namespace dw = duepay::domain::webhooks;

TEST(WebhookSignature, SignedStrings) {
    EXPECT_EQ(dw::stripe_signed_payload(1700000000, R"({"a":1})"), R"(1700000000.{"a":1})");
    EXPECT_EQ(dw::standard_signed_payload("evt_x", 1700000000, "{}"), "evt_x.1700000000.{}");
}

TEST(WebhookSignature, HeadersCarryOneEntryPerSecret) {
    EXPECT_EQ(dw::stripe_signature_header(1700000000, {"aa"}), "t=1700000000,v1=aa");
    EXPECT_EQ(dw::stripe_signature_header(1700000000, {"aa", "bb"}), "t=1700000000,v1=aa,v1=bb");
    EXPECT_EQ(dw::standard_signature_header({"Zm9v"}), "v1,Zm9v");
    EXPECT_EQ(dw::standard_signature_header({"Zm9v", "YmFy"}), "v1,Zm9v v1,YmFy");
}

TEST(WebhookSignature, StandardKeyIsTheTextAfterThePrefix) {
    EXPECT_EQ(dw::standard_key_text("whsec_Zm9vYmFy"), "Zm9vYmFy");
    EXPECT_EQ(dw::standard_key_text("Zm9vYmFy"), "");
}
