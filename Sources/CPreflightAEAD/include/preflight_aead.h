#ifndef PREFLIGHT_AEAD_H
#define PREFLIGHT_AEAD_H

#include <stddef.h>
#include <stdint.h>

/* AES-128-GCM with a key set up once (RFC 7714's AEAD_AES_128_GCM for SRTP): the system's
 * OpenSSL 3 libcrypto, loaded at run time, so that nothing is needed to build and a machine
 * without it still works (the caller falls back to swift-crypto). Each way's context is made at
 * its first operation; from then on an operation sets only the 12-byte IV, works on the caller's
 * buffers and allocates nothing. Thread-safe: an object's operations are serialised by a lock of
 * its own. Linux only; elsewhere `create` returns NULL. */
typedef struct preflight_aead preflight_aead;

/* An object for a 16-byte key; NULL when libcrypto cannot be loaded or refuses the key. */
preflight_aead *preflight_aead_create(const uint8_t *key, size_t key_length);
void preflight_aead_destroy(preflight_aead *aead);

/* Encrypts `length` bytes at `data` in place, authenticating `aad` with them, and writes the
 * 16-byte tag to `tag`. Returns 0, or -1 when libcrypto refused (nothing to send). */
int preflight_aead_seal(preflight_aead *aead, const uint8_t *iv, const uint8_t *aad, size_t aad_length, uint8_t *data,
                        size_t length, uint8_t *tag);

/* Decrypts `length` bytes of `input` into `output` (the same buffer, or one that does not
 * overlap it) and checks the 16-byte `tag` over `aad` and the ciphertext. Returns 0 when the
 * tag matches; -1 otherwise, and then `output` holds bytes that must not be used. */
int preflight_aead_open(preflight_aead *aead, const uint8_t *iv, const uint8_t *aad, size_t aad_length, const uint8_t *input,
                        size_t length, const uint8_t *tag, uint8_t *output);

#endif
