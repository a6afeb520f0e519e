// Keeps the error codes in sync: every code the API sources pass to error_response(...) or
// bad_request(...) must be listed in the ErrorCode enum of schemas/openapi.yaml and in
// docs/api-errors.md, and every code of the enum must be documented there too. Reads the
// working tree (DUEPAY_SOURCE_DIR), so a new code without its docs fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#ifndef DUEPAY_SOURCE_DIR
#define DUEPAY_SOURCE_DIR "."
#endif

namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

const fs::path kRoot{DUEPAY_SOURCE_DIR};

// Codes passed as string literals by the API sources.
std::set<std::string> codes_in_sources() {
    static const std::regex call(
        R"re((?:error_response\(\s*\d{3}\s*,|json_error\(\s*\d{3}\s*,|bad_request\()\s*"([a-z0-9_]+)")re");
    std::set<std::string> out;
    // The REST API, the hosted checkout and the dashboard's JSON answers.
    for (const char* folder : {"http", "checkout", "dashboard"}) {
        if (!fs::exists(kRoot / "api" / folder)) continue;
        for (const auto& entry : fs::directory_iterator(kRoot / "api" / folder)) {
            if (entry.path().extension() != ".cpp") continue;
            const auto text = read(entry.path());
            for (std::sregex_iterator it(text.begin(), text.end(), call), end; it != end; ++it)
                out.insert((*it)[1]);
        }
    }
    return out;
}

// The `enum:` list of components.schemas.ErrorCode.
std::set<std::string> codes_in_openapi() {
    const auto text = read(kRoot / "schemas" / "openapi.yaml");
    std::set<std::string> out;
    const auto at = text.find("\n    ErrorCode:\n");
    if (at == std::string::npos) return out;
    const auto list = text.find("enum:\n", at);
    std::istringstream lines(text.substr(list + 6));
    std::string line;
    static const std::regex item(R"(^\s+- ([a-z0-9_]+)\s*$)");
    std::smatch m;
    while (std::getline(lines, line) && std::regex_match(line, m, item)) out.insert(m[1]);
    return out;
}

// Codes written as `code` in docs/api-errors.md.
std::set<std::string> codes_in_docs() {
    const auto text = read(kRoot / "docs" / "api-errors.md");
    static const std::regex code("`([a-z0-9_]+)`");
    std::set<std::string> out;
    for (std::sregex_iterator it(text.begin(), text.end(), code), end; it != end; ++it)
        out.insert((*it)[1]);
    return out;
}

TEST(ApiErrorCodes, TheExtractionFindsTheKnownCodes) {
    const auto sources = codes_in_sources();
    for (const char* known : {"invalid_api_key", "route_not_found", "invalid_json",
                              "payload_too_large", "unsupported_media_type", "internal_error"}) {
        EXPECT_EQ(sources.count(known), 1u)
            << known << " not found in api/http/*.cpp: is the regex stale?";
    }
    EXPECT_GE(codes_in_openapi().size(), 25u) << "ErrorCode enum not found in schemas/openapi.yaml";
}

TEST(ApiErrorCodes, EveryCodeOfTheSourcesIsInTheOpenApiEnum) {
    const auto documented = codes_in_openapi();
    for (const auto& c : codes_in_sources()) {
        EXPECT_EQ(documented.count(c), 1u)
            << "meta.code `" << c << "` is produced by api/http but missing from "
            << "the ErrorCode enum of schemas/openapi.yaml";
    }
}

TEST(ApiErrorCodes, EveryCodeOfTheSourcesAndOfTheEnumIsInTheDocs) {
    const auto docs = codes_in_docs();
    for (const auto& c : codes_in_sources()) {
        EXPECT_EQ(docs.count(c), 1u)
            << "meta.code `" << c << "` is produced by api/http but missing from "
            << "docs/api-errors.md";
    }
    for (const auto& c : codes_in_openapi()) {
        EXPECT_EQ(docs.count(c), 1u)
            << "meta.code `" << c << "` is in the OpenAPI enum but missing from "
            << "docs/api-errors.md";
    }
}

}  // namespace
