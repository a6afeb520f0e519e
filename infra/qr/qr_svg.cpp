#include "infra/qr/qr_svg.hpp"

#include <qrencode.h>

#include <memory>
#include <string>

#include "domain/text.hpp"
#include "infra/error.hpp"

namespace duepay::infra::qr {
namespace {

struct QrFree {
    void operator()(QRcode* code) const { QRcode_free(code); }
};

}  // namespace

std::string qr_svg(std::string_view text, std::string_view title) {
    const std::string data(text);
    std::unique_ptr<QRcode, QrFree> code(
        QRcode_encodeData(static_cast<int>(data.size()),
                          reinterpret_cast<const unsigned char*>(data.data()), 0, QR_ECLEVEL_M));
    if (!code) throw InfraError("qr_svg: the text cannot be encoded as a QR code", false);
    constexpr int kQuiet = 4;
    const int width = code->width;
    const int size = width + 2 * kQuiet;
    std::string path;
    path.reserve(static_cast<std::size_t>(width * width) * 4);
    for (int y = 0; y < width; ++y) {
        for (int x = 0; x < width; ++x) {
            // Bit 0 of each byte is the module's colour (1 = dark); the rest is encoder metadata.
            if ((code->data[y * width + x] & 1) == 0) continue;
            path += 'M';
            path += std::to_string(x + kQuiet);
            path += ' ';
            path += std::to_string(y + kQuiet);
            path += "h1v1h-1z";
        }
    }
    const std::string n = std::to_string(size);
    return R"(<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 )" + n + " " + n +
           R"(" role="img" shape-rendering="crispEdges"><title>)" + domain::escape_html(title) +
           R"(</title><rect width=")" + n + R"(" height=")" + n + R"(" fill="#fff"/><path d=")" +
           path + R"(" fill="#000"/></svg>)";
}

}  // namespace duepay::infra::qr
