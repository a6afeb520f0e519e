#include "infra/webhooks/http_sender.hpp"

#include <curl/curl.h>
#include <sys/socket.h>

#include "infra/curl/curl_error.hpp"
#include "infra/webhooks/address_guard.hpp"

namespace duepay::infra::webhooks {

struct HttpSender::Transfer {
    curl::Easy easy;
    curl::Headers headers;
    HttpRequest request;
    std::string body;
    std::size_t max_body = 0;
    bool truncated = false;
    bool refused_address = false;
    bool allow_insecure = false;
    std::chrono::steady_clock::time_point started;
};

namespace {

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
    auto* t = static_cast<HttpSender::Transfer*>(user);
    const std::size_t bytes = size * n;
    const std::size_t room = t->max_body - std::min(t->max_body, t->body.size());
    if (bytes > room) {
        t->body.append(data, room);
        t->truncated = true;
        return 0;  // stop reading: CURLE_WRITE_ERROR, the status is kept
    }
    t->body.append(data, bytes);
    return bytes;
}

curl_socket_t on_open_socket(void* user, curlsocktype purpose, curl_sockaddr* address) {
    auto* t = static_cast<HttpSender::Transfer*>(user);
    if (purpose != CURLSOCKTYPE_IPCXN ||
        !may_connect(reinterpret_cast<const sockaddr*>(&address->addr), t->allow_insecure)) {
        t->refused_address = true;
        return CURL_SOCKET_BAD;
    }
    return ::socket(address->family, address->socktype, address->protocol);
}

void check(CURLcode code, const char* what) {
    if (code != CURLE_OK)
        throw curl::CurlError(std::string(what) + ": " + curl_easy_strerror(code));
}

}  // namespace

HttpSender::HttpSender(SenderSettings settings) : settings_(settings) {
    multi_ = curl::make_multi();
    if (!multi_) throw curl::CurlError("curl_multi_init failed");
}

HttpSender::~HttpSender() {
    for (auto& [easy, t] : transfers_) curl_multi_remove_handle(multi_.get(), easy);
    transfers_.clear();
}

void HttpSender::start(HttpRequest request) {
    auto t = std::make_unique<Transfer>();
    t->easy = curl::make_easy();
    if (!t->easy) throw curl::CurlError("curl_easy_init failed");
    t->request = std::move(request);
    t->max_body = settings_.max_response_bytes;
    t->allow_insecure = settings_.allow_insecure && t->request.test_mode;
    curl_slist* list = curl_slist_append(nullptr, "content-type: application/json");
    list = curl_slist_append(list, "user-agent: duepay-webhooks/1");
    list = curl_slist_append(list, "expect:");  // no 100-continue round trip
    for (const auto& [name, value] : t->request.headers) {
        std::string line = name;
        line.append(": ").append(value);
        list = curl_slist_append(list, line.c_str());
    }
    t->headers.reset(list);
    CURL* e = t->easy.get();
    check(curl_easy_setopt(e, CURLOPT_URL, t->request.url.c_str()), "CURLOPT_URL");
    check(curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, t->allow_insecure ? "http,https" : "https"),
          "protocols");
    check(curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers.get()), "CURLOPT_HTTPHEADER");
    check(curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->request.body.c_str()), "CURLOPT_POSTFIELDS");
    check(curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                           static_cast<curl_off_t>(t->request.body.size())),
          "CURLOPT_POSTFIELDSIZE");
    check(curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                           static_cast<long>(settings_.connect_timeout.count())),
          "connect timeout");
    check(
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(settings_.total_timeout.count())),
        "timeout");
    check(curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L), "CURLOPT_NOSIGNAL");
    check(curl_easy_setopt(e, CURLOPT_NOPROXY, "*"), "CURLOPT_NOPROXY");
    check(curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L), "CURLOPT_FOLLOWLOCATION");
    check(curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &on_body), "CURLOPT_WRITEFUNCTION");
    check(curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get()), "CURLOPT_WRITEDATA");
    check(curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, &on_open_socket),
          "CURLOPT_OPENSOCKETFUNCTION");
    check(curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, t.get()), "CURLOPT_OPENSOCKETDATA");
    t->started = std::chrono::steady_clock::now();
    if (curl_multi_add_handle(multi_.get(), e) != CURLM_OK) {
        throw curl::CurlError("curl_multi_add_handle failed");
    }
    transfers_.emplace(e, std::move(t));
}

std::vector<HttpResult> HttpSender::poll(std::chrono::milliseconds wait) {
    CURLM* multi = multi_.get();
    int running = 0;
    curl_multi_perform(multi, &running);
    if (!transfers_.empty()) {
        curl_multi_poll(multi, nullptr, 0, static_cast<int>(wait.count()), nullptr);
        curl_multi_perform(multi, &running);
    }
    std::vector<HttpResult> done;
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &queued)) {
        if (msg->msg != CURLMSG_DONE) continue;
        auto it = transfers_.find(msg->easy_handle);
        if (it == transfers_.end()) continue;
        auto& t = *it->second;
        HttpResult r;
        r.tag = t.request.tag;
        r.latency = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::steady_clock::now() - t.started);
        const CURLcode code = msg->data.result;
        long status = 0;
        curl_easy_getinfo(t.easy.get(), CURLINFO_RESPONSE_CODE, &status);
        if (code == CURLE_OK || (code == CURLE_WRITE_ERROR && t.truncated && status > 0)) {
            r.status = status;
        } else if (t.refused_address) {
            r.error = "refused: the endpoint's address is private, loopback or reserved";
        } else if (code == CURLE_UNSUPPORTED_PROTOCOL) {
            r.error =
                "refused: https:// only (http:// is for test-mode endpoints in the dev stack)";
        } else {
            r.error = curl_easy_strerror(code);
        }
        r.body = std::move(t.body);
        curl_multi_remove_handle(multi, msg->easy_handle);
        transfers_.erase(it);
        done.push_back(std::move(r));
    }
    return done;
}

}  // namespace duepay::infra::webhooks
