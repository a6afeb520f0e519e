// The one owner of libcurl handles for every HTTP adapter (rpc, rates, webhooks): the process-wide
// curl_global_init, done once and thread-safely before the first handle is made, and RAII owners
// for easy handles, multi handles and header lists. A handle that cannot be made is nullptr:
// each adapter turns that into its own InfraError.
#pragma once

#include <curl/curl.h>

#include <memory>

namespace duepay::infra::curl {

struct EasyDeleter {
    void operator()(CURL* handle) const noexcept;
};
struct MultiDeleter {
    void operator()(CURLM* handle) const noexcept;
};
struct HeadersDeleter {
    void operator()(curl_slist* list) const noexcept;
};

using Easy = std::unique_ptr<CURL, EasyDeleter>;
using Multi = std::unique_ptr<CURLM, MultiDeleter>;
using Headers = std::unique_ptr<curl_slist, HeadersDeleter>;

// A new easy handle; nullptr when libcurl is not initialised or out of memory.
Easy make_easy();
// A new multi handle; nullptr likewise.
Multi make_multi();

}  // namespace duepay::infra::curl
