#include "qbt_fetch.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static void global_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

/// A transfer with what every one of qbtd's sets: the URL, the error buffer (`message`, CURL_ERROR_SIZE bytes), no
/// signals, the protocols allowed. NULL, with the reason in `error`, when libcurl cannot start one.
static CURL *start_transfer(const char *url, const char *protocols, char *message, char *error, size_t error_size) {
    pthread_once(&global_once, global_init);
    CURL *curl = curl_easy_init();
    if (!curl) {
        snprintf(error, error_size, "libcurl could not start a transfer");
        return NULL;
    }
    message[0] = 0;
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, message);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, protocols);
    return curl;
}

/// libcurl's own words for a failure, else its code's.
static void describe_failure(CURLcode code, const char *message, char *error, size_t error_size) {
    snprintf(error, error_size, "%s", message[0] ? message : curl_easy_strerror(code));
}

typedef struct {
    qbt_fetch_sink sink;
    void *context;
} sink_box;

static size_t write_body(char *data, size_t size, size_t count, void *user) {
    sink_box *box = user;
    return box->sink(box->context, data, size * count);
}

long qbt_fetch(const qbt_fetch_request *request, qbt_fetch_sink sink, qbt_fetch_sink header_sink, void *context,
               char *error, size_t error_size) {
    char message[CURL_ERROR_SIZE];
    CURL *curl = start_transfer(request->url, "http,https", message, error, error_size);
    if (!curl) return -1;
    sink_box box = {sink, context};
    sink_box head = {header_sink, context};
    struct curl_slist *headers = NULL;
    for (size_t i = 0; request->headers && i < request->header_count; i++) {
        struct curl_slist *next = curl_slist_append(headers, request->headers[i]);
        if (!next) break;
        headers = next;
    }
    if (headers) curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    if (header_sink) {
        curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, write_body);
        curl_easy_setopt(curl, CURLOPT_HEADERDATA, &head);
    }
    curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, request->timeout_seconds);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, request->timeout_seconds);
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
    if (request->user_agent) curl_easy_setopt(curl, CURLOPT_USERAGENT, request->user_agent);
    curl_easy_setopt(curl, CURLOPT_PROXY, request->proxy ? request->proxy : "");
    if (request->proxy_username) {
        curl_easy_setopt(curl, CURLOPT_PROXYUSERNAME, request->proxy_username);
        curl_easy_setopt(curl, CURLOPT_PROXYPASSWORD, request->proxy_password ? request->proxy_password : "");
    }
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &box);
    CURLcode code = curl_easy_perform(curl);
    long status = -1;
    if (code == CURLE_OK) {
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    } else {
        describe_failure(code, message, error, error_size);
    }
    curl_easy_cleanup(curl);
    curl_slist_free_all(headers);
    return status;
}

long qbt_exchange(const qbt_exchange_request *request, qbt_fetch_sink header_sink, qbt_fetch_sink body_sink,
                  void *context, char *error, size_t error_size, int *timed_out) {
    *timed_out = 0;
    char message[CURL_ERROR_SIZE];
    CURL *curl = start_transfer(request->url, "http,https", message, error, error_size);
    if (!curl) return -1;
    struct curl_slist *headers = NULL;
    for (size_t i = 0; i < request->header_count; i++) headers = curl_slist_append(headers, request->headers[i]);
    headers = curl_slist_append(headers, "Expect:");  // send bodies at once, without waiting for 100-continue
    sink_box body = {body_sink, context};
    sink_box head = {header_sink, context};  // header lines go to a sink like body bytes
    // An idle timeout, as URLSession's: a long upload or download that keeps moving is never cut off.
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, request->timeout_seconds);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, request->timeout_seconds);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    if (request->ca_file) curl_easy_setopt(curl, CURLOPT_CAINFO, request->ca_file);
    // GET and HEAD never carry a body; every other method sends its body (perhaps empty) with a Content-Length.
    if (strcmp(request->method, "HEAD") == 0) {
        curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    } else if (strcmp(request->method, "GET") != 0) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(request->body ? request->body_length : 0));
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request->body ? (const char *)request->body : "");
        if (strcmp(request->method, "POST") != 0) curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request->method);
    }
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, write_body);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &head);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    CURLcode code = curl_easy_perform(curl);
    long status = -1;
    if (code == CURLE_OK) {
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    } else {
        *timed_out = code == CURLE_OPERATION_TIMEDOUT;
        describe_failure(code, message, error, error_size);
    }
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return status;
}

typedef struct {
    const char *data;
    size_t left;
} mail_box;

static size_t read_mail(char *buffer, size_t size, size_t count, void *user) {
    mail_box *box = user;
    size_t n = size * count < box->left ? size * count : box->left;
    memcpy(buffer, box->data, n);
    box->data += n;
    box->left -= n;
    return n;
}

int qbt_send_mail(const qbt_mail_request *request, char *error, size_t error_size) {
    char message[CURL_ERROR_SIZE];
    CURL *curl = start_transfer(request->url, "smtp,smtps", message, error, error_size);
    if (!curl) return -1;
    mail_box box = {request->message, request->message_length};
    struct curl_slist *recipients = curl_slist_append(NULL, request->to);
    curl_easy_setopt(curl, CURLOPT_USE_SSL, (long)CURLUSESSL_TRY);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, request->timeout_seconds);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, request->timeout_seconds);
    curl_easy_setopt(curl, CURLOPT_PROXY, "");
    if (request->username) {
        curl_easy_setopt(curl, CURLOPT_USERNAME, request->username);
        curl_easy_setopt(curl, CURLOPT_PASSWORD, request->password ? request->password : "");
    }
    curl_easy_setopt(curl, CURLOPT_MAIL_FROM, request->from);
    curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, recipients);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, read_mail);
    curl_easy_setopt(curl, CURLOPT_READDATA, &box);
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    CURLcode code = curl_easy_perform(curl);
    if (code != CURLE_OK) describe_failure(code, message, error, error_size);
    curl_slist_free_all(recipients);
    curl_easy_cleanup(curl);
    return code == CURLE_OK ? 0 : -1;
}
