// The OpenSSL (libcrypto) calls qbtd makes: HLS's AES-128, incremental digests, PBKDF2, random bytes, PEM checks.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// AES-128-CBC with PKCS#7 padding (HLS's whole-segment encryption); out needs len + 16 bytes.
bool qbt_aes128_cbc_encrypt(const uint8_t key[16], const uint8_t iv[16], const uint8_t *in, size_t len,
                            uint8_t *out, size_t *out_len);

/// An incremental digest: "sha1", "sha256" or "md5" (NULL for anything else).
typedef struct qbt_digest qbt_digest;
qbt_digest *qbt_digest_new(const char *algorithm);
void qbt_digest_update(qbt_digest *digest, const uint8_t *data, size_t len);
/// The digest of everything so far (the object can go on being updated); returns its length (≤ 64).
size_t qbt_digest_peek(const qbt_digest *digest, uint8_t out[64]);
void qbt_digest_free(qbt_digest *digest);

bool qbt_pbkdf2_sha512(const char *password, size_t password_len, const uint8_t *salt, size_t salt_len,
                       int32_t iterations, uint8_t *out, size_t out_len);
bool qbt_random_bytes(uint8_t *out, size_t len);
bool qbt_sha256(const uint8_t *data, size_t len, uint8_t out[32]);

/// Whether the text holds a PEM certificate / a PEM private key OpenSSL can read.
bool qbt_pem_certificate_valid(const char *pem);
bool qbt_pem_private_key_valid(const char *pem);

/// OpenSSL's version number, e.g. "3.0.17".
const char *qbt_openssl_version(void);

#ifdef __cplusplus
}
#endif
