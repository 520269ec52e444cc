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
    /// Extra request header lines ("Name: value"), `header_count` of them (a conditional GET's validators).
    const char *const *headers;
    size_t header_count;
} qbt_fetch_request;

/// Receives the body as it arrives; returning anything but `length` aborts the transfer.
typedef size_t (*qbt_fetch_sink)(void *context, const char *data, size_t length);

/// Performs the GET (blocking: call it off the concurrency pool). The answers' header lines (status lines included,
/// one set per redirect) go to `header_sink` when it is not NULL. Returns the HTTP status, or -1 with a message in
/// `error` (at least 256 bytes).
long qbt_fetch(const qbt_fetch_request *request, qbt_fetch_sink sink, qbt_fetch_sink header_sink, void *context,
               char *error, size_t error_size);

/// One request of any method, for qbt's client: headers in, status, headers and body out; no proxy but the
/// environment's (as curl), no redirects followed.
typedef struct {
    const char *method;
    const char *url;
    /// "Name: value" lines, `header_count` of them.
    const char *const *headers;
    size_t header_count;
    const unsigned char *body;
    size_t body_length;
    /// Seconds to connect, and seconds without a byte moving before the transfer is given up.
    long timeout_seconds;
    /// A PEM file of CA certificates to trust instead of the system's; NULL for the system's.
    const char *ca_file;
} qbt_exchange_request;

/// Performs the request (blocking: call it off the concurrency pool). Header lines go to `header_sink` as they
/// arrive (status lines included), the body to `body_sink`. Returns the HTTP status, or -1 with a message in
/// `error`; `*timed_out` says whether the failure was the timeout.
long qbt_exchange(const qbt_exchange_request *request, qbt_fetch_sink header_sink, qbt_fetch_sink body_sink,
                  void *context, char *error, size_t error_size, int *timed_out);

/// One e-mail through libcurl's SMTP: `smtps://` is TLS from the start, `smtp://` upgrades with STARTTLS when the
/// server offers it (as qBittorrent does).
typedef struct {
    const char *url;
    /// NULL for no authentication.
    const char *username;
    const char *password;
    const char *from;
    const char *to;
    /// The whole message: headers, a blank line, the body (CRLF line ends).
    const char *message;
    size_t message_length;
    long timeout_seconds;
} qbt_mail_request;

/// Sends it (blocking: call it off the concurrency pool). Returns 0, or -1 with a message in `error`.
int qbt_send_mail(const qbt_mail_request *request, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif
