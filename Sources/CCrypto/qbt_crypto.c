// The OpenSSL (libcrypto) calls qbtd makes, in C: swift-crypto has no PBKDF2-SHA512, no copyable running digest and
// no PEM parsing, and libcrypto is linked anyway (libtorrent uses it).
#include "qbt_crypto.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

bool qbt_aes128_cbc_encrypt(const uint8_t key[16], const uint8_t iv[16], const uint8_t *in, size_t len,
                            uint8_t *out, size_t *out_len) {
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx) return false;
    int n = 0, tail = 0;
    bool ok = EVP_EncryptInit_ex(ctx, EVP_aes_128_cbc(), NULL, key, iv) == 1 &&
              EVP_EncryptUpdate(ctx, out, &n, in, (int)len) == 1 && EVP_EncryptFinal_ex(ctx, out + n, &tail) == 1;
    EVP_CIPHER_CTX_free(ctx);
    *out_len = (size_t)(n + tail);
    return ok;
}

struct qbt_digest {
    EVP_MD_CTX *ctx;
};

qbt_digest *qbt_digest_new(const char *algorithm) {
    const EVP_MD *md = NULL;
    if (!algorithm) return NULL;
    if (!strcmp(algorithm, "sha1")) md = EVP_sha1();
    else if (!strcmp(algorithm, "sha256")) md = EVP_sha256();
    else if (!strcmp(algorithm, "md5")) md = EVP_md5();
    if (!md) return NULL;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    qbt_digest *digest = malloc(sizeof *digest);
    if (!ctx || !digest || EVP_DigestInit_ex(ctx, md, NULL) != 1) {
        EVP_MD_CTX_free(ctx);
        free(digest);
        return NULL;
    }
    digest->ctx = ctx;
    return digest;
}

void qbt_digest_update(qbt_digest *digest, const uint8_t *data, size_t len) { EVP_DigestUpdate(digest->ctx, data, len); }

size_t qbt_digest_peek(const qbt_digest *digest, uint8_t out[64]) {
    EVP_MD_CTX *copy = EVP_MD_CTX_new();
    unsigned int size = 0;
    if (copy && EVP_MD_CTX_copy_ex(copy, digest->ctx) == 1) EVP_DigestFinal_ex(copy, out, &size);
    EVP_MD_CTX_free(copy);
    return size;
}

void qbt_digest_free(qbt_digest *digest) {
    if (!digest) return;
    EVP_MD_CTX_free(digest->ctx);
    free(digest);
}

bool qbt_pbkdf2_sha512(const char *password, size_t password_len, const uint8_t *salt, size_t salt_len,
                       int32_t iterations, uint8_t *out, size_t out_len) {
    return PKCS5_PBKDF2_HMAC(password, (int)password_len, salt, (int)salt_len, iterations, EVP_sha512(), (int)out_len,
                             out) == 1;
}

bool qbt_random_bytes(uint8_t *out, size_t len) { return RAND_bytes(out, (int)len) == 1; }

bool qbt_sha256(const uint8_t *data, size_t len, uint8_t out[32]) {
    unsigned int size = 0;
    return EVP_Digest(data, len, out, &size, EVP_sha256(), NULL) == 1 && size == 32;
}

bool qbt_pem_certificate_valid(const char *pem) {
    BIO *bio = BIO_new_mem_buf(pem, -1);
    if (!bio) return false;
    X509 *certificate = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    bool valid = certificate != NULL;
    BIO_free(bio);
    X509_free(certificate);
    return valid;
}

bool qbt_pem_private_key_valid(const char *pem) {
    BIO *bio = BIO_new_mem_buf(pem, -1);
    if (!bio) return false;
    EVP_PKEY *key = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
    bool valid = key != NULL;
    BIO_free(bio);
    EVP_PKEY_free(key);
    return valid;
}

// "OpenSSL 3.0.17 1 Jul 2025" -> "3.0.17"
static char version[64];
static pthread_once_t version_once = PTHREAD_ONCE_INIT;

static void read_version(void) {
    const char *full = OpenSSL_version(OPENSSL_VERSION);
    const char *start = strchr(full, ' ');
    start = start ? start + 1 : full;
    size_t length = strcspn(start, " ");
    if (length >= sizeof version) length = sizeof version - 1;
    memcpy(version, start, length);
    version[length] = 0;
}

const char *qbt_openssl_version(void) {
    pthread_once(&version_once, read_version);
    return version;
}
