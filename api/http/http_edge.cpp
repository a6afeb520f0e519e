#include "api/http/http_edge.hpp"

#include <pistache/listener.h>
#include <pistache/os.h>
#include <pistache/peer.h>
#include <pistache/reactor.h>
#include <pistache/tcp.h>
#include <pistache/transport.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "api/http/access_log.hpp"
#include "api/http/envelope.hpp"
#include "api/http/reactor_post.hpp"
#include "api/http/request_id.hpp"

namespace duepay::api {

using namespace Pistache;
using Clock = std::chrono::steady_clock;

struct HttpEdge::Shared {
    EdgeSettings settings;
    EdgeRequestHandler handler;
    std::mutex mutex;  // guards stopped; held while posting to a reactor
    bool stopped = false;
};

namespace {

constexpr const char* kConnectionKey = "duepay.edge";
constexpr auto kTick = std::chrono::milliseconds(250);
// A streamed body's parts written straight to a socket that takes them, one after the other,
// before the next one goes through Pistache's queue: the reactor then serves its other
// connections before this one produces again.
constexpr int kPartsPerTurn = 8;

// One record per answer (api/http/access_log.hpp); its role is the listener's name.
void access_log(const EdgeSettings& settings, const std::string& id, const std::string& method,
                const std::string& path, int status, Clock::duration latency) {
    observe_request(settings.log_name, path, status, latency);
    if (!settings.access_log) return;
    write_access_log(settings.log_name, id, method, path, status, latency);
}

void log_error(const EdgeSettings& settings, const std::string& id, const char* what) {
    infra::log::Record(settings.log_name, infra::log::Level::error).with("request_id", id)
        << "internal error: " << what;
}

// A streamed answer being written (ApiResponse::stream): the producer and how its parts go.
struct Streaming {
    BodyProducer produce;
    bool chunked = true;  // false for an HTTP/1.0 client: raw parts, then the connection closes
    bool close = false;   // close the connection after the body
    std::string id;       // the request id (logs)
};

// What the edge knows of one connection; touched only on its reactor thread.
struct Connection {
    std::string buffer;              // received, not yet consumed
    std::optional<ParsedHead> head;  // the head of the request in `buffer`, once complete
    Clock::time_point started;       // first byte of the request in `buffer`
    Clock::time_point last_byte;     // the idle clock: connected, last byte read, last answer
    bool busy = false;               // a request was handed over and is not answered yet
    bool closing = false;            // answered with connection: close; input is discarded
    int queued = 0;                  // writes in Pistache's write queue, not yet written
    bool processing = false;         // process() is on the stack (an answer came synchronously)
    bool again = false;              // ... and a request was answered meanwhile: read the next
    std::shared_ptr<Streaming> streaming;  // a streamed answer's body is being written
};

// The edge on Pistache's TCP layer: Tcp::Handler's onConnection and onInput are its public
// extension points, so Pistache's HTTP layer (Http::Handler, its parser, Http::Endpoint and its
// sweep) is not involved at all (ADR 0204). One clone per reactor thread (EdgeTransport::clone).
class EdgeHandler final : public Tcp::Handler {
  public:
    PROTOTYPE_OF(Tcp::Handler, EdgeHandler)

    explicit EdgeHandler(std::shared_ptr<HttpEdge::Shared> shared) : shared_(std::move(shared)) {}
    EdgeHandler(const EdgeHandler& other) : Tcp::Handler(other), shared_(other.shared_) {}

    void onConnection(const std::shared_ptr<Tcp::Peer>& peer) override {
        reactor_ = std::this_thread::get_id();
        auto conn = std::make_shared<Connection>();
        conn->last_byte = Clock::now();
        peer->putData(kConnectionKey, std::move(conn));
    }

    void onInput(const char* data, size_t len, const std::shared_ptr<Tcp::Peer>& peer) override {
        auto conn = connection(peer);
        if (!conn || conn->closing) return;
        const auto now = Clock::now();
        conn->last_byte = now;  // the idle clock restarts: bytes arrived
        const auto& limits = shared_->settings.limits;
        if (conn->buffer.empty() && !conn->busy) conn->started = now;
        // Never hold more than one bounded request: beyond, the parser has rejected it already
        // (or, behind a request in flight, the excess is dropped and the next parse fails).
        const std::size_t cap = limits.max_head_bytes + limits.max_body_bytes + 1;
        const std::size_t take = std::min(len, cap - std::min(cap, conn->buffer.size()));
        conn->buffer.append(data, take);
        if (!conn->busy) process(peer, *conn, std::string_view(data, take));
    }

    // On the reactor thread, every kTick, over the transport's peers: answers 408 to a request
    // that is too slow, and returns the connections to close: no request in progress (none
    // handed over and unanswered) and no byte for idle_timeout. That covers an idle keep-alive
    // connection, one that never sent a byte, and a refused or closed one whose client neither
    // reads nor closes (its clock stopped when it was answered).
    template <typename Peers>
    std::vector<std::shared_ptr<Tcp::Peer>> tick(const Peers& peers) {
        const auto now = Clock::now();
        const auto& settings = shared_->settings;
        std::vector<std::shared_ptr<Tcp::Peer>> idle;
        for (const auto& [fd, peer] : peers) {
            auto conn = connection(peer);
            if (!conn || conn->busy) continue;
            if (!conn->closing && !conn->buffer.empty() &&
                now - conn->started > settings.request_timeout) {
                reject(
                    peer, *conn,
                    error_response(408, "request_timeout", "the request did not arrive in time"));
            }
            if (now - conn->last_byte > settings.idle_timeout) idle.push_back(peer);
        }
        return idle;
    }

  private:
    static std::shared_ptr<Connection> connection(const std::shared_ptr<Tcp::Peer>& peer) {
        return std::static_pointer_cast<Connection>(peer->tryGetData(kConnectionKey));
    }

    // Whether the new bytes can change the parser's verdict on an unfinished head: a line end, a
    // byte it refuses, the first bytes (a method), or a size limit crossed. Keeps a request sent
    // one byte at a time from costing a full parse per byte.
    bool worth_parsing(std::size_t size, std::string_view fresh) const {
        const auto& limits = shared_->settings.limits;
        if (fresh.empty() || size <= 64) return true;
        const std::size_t before = size - fresh.size();
        if ((before <= limits.max_request_line && size > limits.max_request_line) ||
            (before <= limits.max_head_bytes && size > limits.max_head_bytes)) {
            return true;
        }
        return std::any_of(fresh.begin(), fresh.end(),
                           [](unsigned char c) { return c < 0x20 || c >= 0x7f; });
    }

    // Reads requests from conn.buffer while each is answered at once (a loop, not a recursion:
    // an answer given synchronously comes back here through answered()).
    void process(const std::shared_ptr<Tcp::Peer>& peer, Connection& conn, std::string_view fresh) {
        if (conn.processing) {
            conn.again = true;
            return;
        }
        conn.processing = true;
        do {
            conn.again = false;
            step(peer, conn, fresh);
            fresh = {};
        } while (conn.again && !conn.busy && !conn.closing);
        conn.processing = false;
    }

    // Reads the request at the start of conn.buffer: rejects it, waits for more, or hands it over.
    void step(const std::shared_ptr<Tcp::Peer>& peer, Connection& conn, std::string_view fresh) {
        if (conn.buffer.empty()) return;
        if (!conn.head) {
            if (!worth_parsing(conn.buffer.size(), fresh)) return;
            auto result = parse_request_head(conn.buffer, shared_->settings.limits);
            if (result.kind == HeadResult::Kind::incomplete) return;
            if (result.kind == HeadResult::Kind::rejected) {
                return reject(peer, conn, result.rejection,
                              result.head.request.header("x-request-id"));
            }
            conn.head = std::move(result.head);
            const std::size_t whole = conn.head->head_bytes + conn.head->content_length;
            if (conn.head->expect_continue && conn.head->content_length > 0 &&
                conn.buffer.size() < whole) {
                write(peer, conn, "HTTP/1.1 100 Continue\r\n\r\n", nullptr);
            }
        }
        const std::size_t whole = conn.head->head_bytes + conn.head->content_length;
        if (conn.buffer.size() < whole) return;
        ParsedHead head = std::move(*conn.head);
        conn.head.reset();
        head.request.body = conn.buffer.substr(head.head_bytes, head.content_length);
        conn.buffer.erase(0, whole);
        dispatch(peer, conn, std::move(head));
    }

    void dispatch(const std::shared_ptr<Tcp::Peer>& peer, Connection& conn, ParsedHead head) {
        conn.busy = true;
        ApiRequest request = std::move(head.request);
        request.request_id = choose_request_id(request.header("x-request-id"));
        request.remote = peer->address().host();
        const bool close = !head.keep_alive;
        const bool http10 = head.http10;
        const bool http10_keep_alive = head.http10 && head.keep_alive;
        const bool head_only = request.method == "HEAD";
        auto once = std::make_shared<std::atomic<bool>>(false);
        std::weak_ptr<Tcp::Peer> weak = peer;
        auto shared = shared_;
        Tcp::Transport* transport = this->transport();
        const auto reactor = reactor_;
        EdgeHandler* self = this;
        Responder respond = [once, weak, shared, transport, reactor, self, close, http10,
                             http10_keep_alive, head_only, id = request.request_id,
                             method = request.method, path = request.path,
                             started = Clock::now()](const ApiResponse& response) {
            if (once->exchange(true)) return;
            std::string bytes;
            std::shared_ptr<Streaming> streaming;
            bool closing = close;
            if (response.stream) {
                // A streamed body: the head now, then the body part by part (pump). An HTTP/1.0
                // client has no chunked encoding: its body ends when the connection closes.
                closing = close || http10;
                bytes = serialize_stream_head(response, id, closing, !http10);
                if (!head_only) {
                    streaming = std::make_shared<Streaming>(
                        Streaming{response.stream, !http10, closing, id});
                    bytes += streaming->chunked ? chunk_of(response.body) : response.body;
                }
            } else {
                bytes = serialize_response(response, id, close, http10_keep_alive, head_only);
            }
            access_log(shared->settings, id, method, path, response.status, Clock::now() - started);
            if (std::this_thread::get_id() == reactor)
                return self->deliver(weak, std::move(bytes), closing, std::move(streaming));
            std::lock_guard lock(shared->mutex);
            if (shared->stopped) return;
            post_to_reactor(transport, [self, weak, closing, bytes = std::move(bytes),
                                        streaming = std::move(streaming)]() mutable {
                self->deliver(weak, std::move(bytes), closing, std::move(streaming));
            });
        };
        const std::string id = request.request_id;
        try {
            shared_->handler(std::move(request), respond);
        } catch (const std::exception& e) {
            // The detail stays in the log; the client gets the envelope only.
            log_error(shared_->settings, id, e.what());
            respond(error_response(500, "internal_error", "internal server error"));
        } catch (...) {
            log_error(shared_->settings, id, "unknown exception");
            respond(error_response(500, "internal_error", "internal server error"));
        }
    }

    // On the reactor thread: writes an answer (or a streamed answer's head), then reads the next
    // request or closes (a streamed answer: once its body is written).
    void deliver(const std::weak_ptr<Tcp::Peer>& weak, std::string bytes, bool close,
                 std::shared_ptr<Streaming> streaming = nullptr) {
        auto peer = weak.lock();
        auto conn = peer ? connection(peer) : nullptr;
        if (!conn) return;
        if (streaming) {
            conn->streaming = std::move(streaming);
            write(peer, *conn, std::move(bytes), [this, weak] { pump(weak); });
            return;
        }
        write(peer, *conn, std::move(bytes), [this, weak, close] { answered(weak, close); });
    }

    // On the reactor thread, once everything written so far has left: produces the streamed
    // body's next parts and writes them, kPartsPerTurn at most while the socket takes them at
    // once; the last one of a turn, or one the socket cannot take whole, goes through Pistache's
    // queue and pump runs again when it is written. So one part at a time is held, whatever the
    // body's size, and a client that does not read stops the producing. A connection gone stops
    // it too (its Connection, and the producer with it, are dropped with the peer).
    void pump(const std::weak_ptr<Tcp::Peer>& weak) {
        auto peer = weak.lock();
        auto conn = peer ? connection(peer) : nullptr;
        if (!conn || !conn->streaming) return;
        const auto streaming = conn->streaming;
        for (int part = 1;; ++part) {
            std::string bytes;
            bool more = false;
            try {
                more = streaming->produce(bytes);
            } catch (const std::exception& e) {
                return abort_stream(peer, *conn, e.what());
            } catch (...) {
                return abort_stream(peer, *conn, "unknown exception");
            }
            if (streaming->chunked) bytes = chunk_of(bytes);
            if (!more) {
                if (streaming->chunked) bytes += kLastChunk;
                conn->streaming.reset();
                write(peer, *conn, std::move(bytes),
                      [this, weak, close = streaming->close] { answered(weak, close); });
                return;
            }
            if (bytes.empty()) continue;
            // Whether the write's completion ran before write() returned (sent whole at once).
            auto sent = std::make_shared<std::pair<bool, bool>>(true, false);  // {inside, sent}
            write(
                peer, *conn, std::move(bytes),
                [this, weak, sent] {
                    if (sent->first) {
                        sent->second = true;
                    } else {
                        pump(weak);
                    }
                },
                part < kPartsPerTurn);
            sent->first = false;
            if (!sent->second) return;  // queued: pump runs again when it is written
        }
    }

    // The producer threw: the body cannot end as it should. The connection is cut without the
    // last chunk (a client sees an incomplete body, never a short one that looks whole), the
    // error logged with the request id.
    void abort_stream(const std::shared_ptr<Tcp::Peer>& peer, Connection& conn, const char* what) {
        log_error(shared_->settings, conn.streaming->id, what);
        conn.streaming.reset();
        conn.busy = false;
        conn.closing = true;
        conn.buffer.clear();
        ::shutdown(peer->fd(), SHUT_RDWR);
    }

    void answered(const std::weak_ptr<Tcp::Peer>& weak, bool close) {
        auto peer = weak.lock();
        auto conn = peer ? connection(peer) : nullptr;
        if (!conn) return;
        conn->busy = false;
        if (close) return close_after_answer(peer, *conn);
        conn->last_byte = Clock::now();
        conn->started = conn->last_byte;
        process(peer, *conn, {});  // a pipelined request may be waiting
    }

    // An answer to a request the edge refuses (or that is too slow): always closes.
    void reject(const std::shared_ptr<Tcp::Peer>& peer, Connection& conn,
                const ApiResponse& response,
                const std::optional<std::string>& incoming_id = std::nullopt) {
        const std::string id = choose_request_id(incoming_id);
        access_log(shared_->settings, id, "-", "-", response.status, Clock::now() - conn.started);
        conn.closing = true;
        conn.buffer.clear();
        conn.head.reset();
        std::weak_ptr<Tcp::Peer> weak = peer;
        write(peer, conn, serialize_response(response, id, true, false, false), [weak] {
            if (auto p = weak.lock()) ::shutdown(p->fd(), SHUT_WR);
        });
    }

    // After the last answer: FIN to the client, input discarded; the idle sweep of tick() closes
    // the socket if the client does not (its clock is no longer restarted).
    static void close_after_answer(const std::shared_ptr<Tcp::Peer>& peer, Connection& conn) {
        conn.closing = true;
        conn.buffer.clear();
        ::shutdown(peer->fd(), SHUT_WR);
    }

    // Writes bytes on the connection, then runs `after` on this reactor thread. Sent directly
    // (unless `direct` is false) when nothing is queued (an answer is small, the socket buffer
    // empty): Pistache's reactor
    // only writes on an event that is writable and not readable, so a client that keeps sending
    // (the rest of a refused 1 MiB head) would starve a queued answer. The rest, if any, goes
    // through Pistache's queue.
    void write(const std::shared_ptr<Tcp::Peer>& peer, Connection& conn, std::string bytes,
               std::function<void()> after, bool direct = true) {
        if (direct && conn.queued == 0) {
            const auto n =
                ::send(peer->fd(), bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n == static_cast<ssize_t>(bytes.size())) {
                if (after) after();
                return;
            }
            if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return;  // the peer is gone
            bytes.erase(0, n > 0 ? static_cast<std::size_t>(n) : 0);
        }
        ++conn.queued;
        const std::size_t size = bytes.size();
        std::weak_ptr<Tcp::Peer> weak = peer;
        auto written = transport()->asyncWrite(peer->fd(), RawBuffer(std::move(bytes), size));
        written.then(
            [weak, after = std::move(after)](ssize_t) {
                auto p = weak.lock();
                if (auto c = p ? connection(p) : nullptr) --c->queued;
                if (after) after();
            },
            [](const std::exception_ptr&) {});
    }

    std::shared_ptr<HttpEdge::Shared> shared_;
    std::thread::id reactor_;
};

// Pistache's Tcp::Transport (one per reactor thread) with the edge's clock: a periodic timerfd on
// the same epoll runs EdgeHandler::tick every kTick on the reactor thread, and the connections it
// returns are closed with removePeer, the protected member Pistache gives subclasses for this (its
// own Http::Endpoint sweeps idle peers the same way).
class EdgeTransport final : public Tcp::Transport {
  public:
    explicit EdgeTransport(std::shared_ptr<EdgeHandler> handler)
        : Tcp::Transport(handler), handler_(std::move(handler)) {}
    ~EdgeTransport() override {
        if (tick_fd_ >= 0) ::close(tick_fd_);
    }
    EdgeTransport(const EdgeTransport&) = delete;
    EdgeTransport& operator=(const EdgeTransport&) = delete;

    void registerPoller(Polling::Epoll& poller) override {
        Tcp::Transport::registerPoller(poller);
        tick_fd_ = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        if (tick_fd_ < 0) throw std::system_error(errno, std::generic_category(), "timerfd_create");
        itimerspec spec{};
        spec.it_value.tv_nsec = std::chrono::nanoseconds(kTick).count();
        spec.it_interval = spec.it_value;
        if (::timerfd_settime(tick_fd_, 0, &spec, nullptr) != 0)
            throw std::system_error(errno, std::generic_category(), "timerfd_settime");
        poller.addFd(tick_fd_, Flags<Polling::NotifyOn>(Polling::NotifyOn::Read),
                     Polling::Tag(tick_fd_));
    }

    // The tick runs after Pistache has handled the batch, so no event of this batch can name a
    // connection the tick closed.
    void onReady(const Aio::FdSet& fds) override {
        bool tick = false;
        for (const auto& entry : fds) tick = tick || entry.getTag() == Polling::Tag(tick_fd_);
        Tcp::Transport::onReady(fds);
        if (!tick) return;
        std::uint64_t expirations = 0;
        if (::read(tick_fd_, &expirations, sizeof expirations) < 0 && errno != EAGAIN) return;
        for (const auto& peer : handler_->tick(peers)) removePeer(peer);
    }

    std::shared_ptr<Aio::Handler> clone() const override {
        return std::make_shared<EdgeTransport>(
            std::static_pointer_cast<EdgeHandler>(handler_->clone()));
    }

  private:
    std::shared_ptr<EdgeHandler> handler_;
    int tick_fd_ = -1;
};

}  // namespace

HttpEdge::HttpEdge(EdgeSettings settings, EdgeRequestHandler handler)
    : shared_(std::make_shared<Shared>()) {
    shared_->settings = std::move(settings);
    shared_->handler = std::move(handler);
}

HttpEdge::~HttpEdge() { shutdown(); }

void HttpEdge::start() {
    const auto& s = shared_->settings;
    listener_ = std::make_unique<Tcp::Listener>(Address(s.listen));
    listener_->init(static_cast<size_t>(s.threads), Flags<Tcp::Options>(Tcp::Options::ReuseAddr),
                    "", 1024);
    auto handler = std::make_shared<EdgeHandler>(shared_);
    listener_->setHandler(handler);
    listener_->setTransportFactory([handler] { return std::make_shared<EdgeTransport>(handler); });
    listener_->bind();
    listener_->runThreaded();
}

void HttpEdge::shutdown() {
    {
        std::lock_guard lock(shared_->mutex);
        shared_->stopped = true;
    }
    if (listener_) {
        listener_->shutdown();
        listener_.reset();
    }
}

}  // namespace duepay::api
