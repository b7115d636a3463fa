/* srtp_gcm: SRTP with AEAD_AES_128_GCM (RFC 7714) for the load generator's calls mode.
 *
 * RTP only (no SRTCP, no MKI, no replay window), key derivation rate 0: what a load generator
 * needs to talk to a relay that protects its legs, at 100,000+ packets/s on one core. Each
 * context is keyed once (OpenSSL EVP); a packet costs one IV set, no allocation. */
#ifndef SRTP_GCM_H
#define SRTP_GCM_H

#include <openssl/evp.h>
#include <stddef.h>
#include <stdint.h>

#define SRTP_KEY_LEN 16    /* AES-128 */
#define SRTP_SALT_LEN 12   /* RFC 7714 §12: a 96-bit salt */
#define SRTP_MASTER_LEN 28 /* master key ‖ master salt, as the calls file gives them */
#define SRTP_TAG_LEN 16

struct srtp_ctx {
	EVP_CIPHER_CTX *evp;          /* AES-128-GCM with the session key; only the IV changes */
	uint8_t salt[SRTP_SALT_LEN];  /* the session salt */
	uint64_t highest;             /* receiving: the highest authenticated index (RFC 3711 §3.3.1) */
	int started, encrypt;
};

enum { SRTP_OK = 0, SRTP_MALFORMED = -1, SRTP_AUTH_FAILED = -2 };

/* The AES-CM PRF of RFC 3711 §4.3.1/§4.3.3 with key derivation rate 0: len bytes for label.
 * salt_len 14 (RFC 3711) or 12 (RFC 7714, padded on the right with two zero bytes). */
int srtp_kdf(const uint8_t key[SRTP_KEY_LEN], const uint8_t *salt, size_t salt_len, uint8_t label, uint8_t *out, size_t len);

/* A context from a master key ‖ salt (session key: label 0, session salt: label 2), or from
 * session keys directly (RFC 7714's test vectors give those). 0 on success. */
int srtp_init(struct srtp_ctx *c, const uint8_t master[SRTP_MASTER_LEN], int encrypt);
int srtp_init_session(struct srtp_ctx *c, const uint8_t key[SRTP_KEY_LEN], const uint8_t salt[SRTP_SALT_LEN], int encrypt);
void srtp_free(struct srtp_ctx *c);

/* The RTP header's length (CSRCs and extension included), 0 when len cannot hold it. */
size_t srtp_header_len(const uint8_t *p, size_t len);

/* Protects an RTP packet in place (RFC 7714 §8: header as AAD, payload encrypted, tag appended);
 * p has room for SRTP_TAG_LEN more bytes. roc: the sender's rollover counter for the packet's
 * sequence number. Returns the new length, 0 for a packet that is not RTP. */
size_t srtp_protect(struct srtp_ctx *c, uint8_t *p, size_t len, uint32_t roc);

/* Authenticates and decrypts in place; *len becomes the plaintext's length. The index is
 * estimated from the sequence number and the highest index so far (RFC 3711 Appendix A), which
 * only an authenticated packet advances. SRTP_OK, SRTP_MALFORMED or SRTP_AUTH_FAILED. */
int srtp_unprotect(struct srtp_ctx *c, uint8_t *p, size_t *len);
uint64_t srtp_guess_index(const struct srtp_ctx *c, uint16_t seq);

#endif
