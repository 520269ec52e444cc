#pragma once
// One HTTP(S) GET through libcurl, with qBittorrent's proxy kinds. C, not C++: libcurl's setters are variadic,
// which Swift cannot call, so this file is the whole of qbtd's contact with libcurl.
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *url;
    const char *user_agent;
    long timeout_seconds;
    /// libcurl's proxy URL (`http://h:p`, `socks5h://h:p`, `socks4a://h:p`…), "" for a direct connection (the
    /// environment's proxy variables are ignored either way).
    const char *proxy;
    /// NULL for none.
    const char *proxy_username;
    const char *proxy_password;
} qbt_fetch_request;

/// Receives the body as it arrives; returning anything but `length` aborts the transfer.
typedef size_t (*qbt_fetch_sink)(void *context, const char *data, size_t length);

/// Performs the GET (blocking: call it off the concurrency pool). Returns the HTTP status, or -1 with a message
/// in `error` (at least 256 bytes).
long qbt_fetch(const qbt_fetch_request *request, qbt_fetch_sink sink, void *context, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif
