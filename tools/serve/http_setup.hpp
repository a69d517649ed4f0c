// What flakeid-serve's HTTP server (http.cpp) sets up before its loops run: the listening
// socket and the TLS context.
#pragma once

#include <openssl/ssl.h>

#include <string>

namespace flakeid_serve::http::detail {

/// A non-blocking socket listening on `host`:`port` (0: a free port); `bound` becomes the port
/// it listens on. Throws server_error: "cannot listen on HOST:PORT (why)".
int listen_on(const std::string& host, int port, int& bound);

/// A TLS server context (TLS 1.2 at least) over the PEM files `cert` and `key`, or null when
/// both are empty. Throws server_error naming both files and OpenSSL's reason.
SSL_CTX* tls_context(const std::string& cert, const std::string& key);

}  // namespace flakeid_serve::http::detail
