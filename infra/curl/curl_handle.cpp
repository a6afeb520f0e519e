#include "infra/curl/curl_handle.hpp"

namespace duepay::infra::curl {
namespace {

// curl_global_init is not thread-safe and must run before any other libcurl call: a function
// static runs it exactly once, on the first handle, whichever thread asks first.
bool initialised() {
    static const bool ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    return ok;
}

}  // namespace

void EasyDeleter::operator()(CURL* handle) const noexcept { curl_easy_cleanup(handle); }
void MultiDeleter::operator()(CURLM* handle) const noexcept { curl_multi_cleanup(handle); }
void HeadersDeleter::operator()(curl_slist* list) const noexcept { curl_slist_free_all(list); }

Easy make_easy() { return Easy(initialised() ? curl_easy_init() : nullptr); }

Multi make_multi() { return Multi(initialised() ? curl_multi_init() : nullptr); }

}  // namespace duepay::infra::curl
