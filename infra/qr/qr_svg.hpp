// QR codes as SVG, drawn on the server with libqrencode (Debian's libqrencode), so the checkout
// page needs no script and no third-party service to show one (docs/checkout.md).
#pragma once

#include <string>
#include <string_view>

namespace duepay::infra::qr {

// An <svg> element (no XML prolog) of the QR code of `text` in byte mode, error correction level
// M, with the 4-module quiet zone of ISO/IEC 18004; one <path> of unit squares, black on white,
// scalable (viewBox in modules). `title` becomes the accessible name (escaped). Throws
// InfraError (not retryable) when the text does not fit a QR code (over ~2.3 KB) or memory runs
// out.
std::string qr_svg(std::string_view text, std::string_view title);

}  // namespace duepay::infra::qr
