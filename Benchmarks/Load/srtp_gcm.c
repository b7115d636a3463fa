/* srtp_gcm: SRTP with AEAD_AES_128_GCM (RFC 7714), RTP only; see srtp_gcm.h. */
#include "srtp_gcm.h"

#include <string.h>

static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }

int srtp_kdf(const uint8_t key[SRTP_KEY_LEN], const uint8_t *salt, size_t salt_len, uint8_t label, uint8_t *out, size_t len)
{
	/* x = key_id XOR master salt, right-aligned in 112 bits: the 8-bit label lands on byte 7
	 * (key_id = label ‖ r, r = 0 at rate 0). A 96-bit salt is padded on the right to 112 bits,
	 * as libsrtp and rtpengine do (the RFC 7714 erratum), so the label stays on byte 7. The
	 * keystream is AES_k(x ‖ block counter): AES-128-ECB over those blocks. */
	uint8_t block[16] = { 0 }, stream[16];
	if (salt_len > 14 || len > 16 * 256) return -1;
	memcpy(block, salt, salt_len);
	block[7] ^= label;
	EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new();
	int ok = e && EVP_EncryptInit_ex(e, EVP_aes_128_ecb(), NULL, key, NULL) && EVP_CIPHER_CTX_set_padding(e, 0);
	for (size_t done = 0, j = 0; ok && done < len; done += 16, j++) {
		int n;
		block[14] = (uint8_t)(j >> 8), block[15] = (uint8_t)j;
		ok = EVP_EncryptUpdate(e, stream, &n, block, 16) && n == 16;
		memcpy(out + done, stream, len - done < 16 ? len - done : 16);
	}
	EVP_CIPHER_CTX_free(e);
	return ok ? 0 : -1;
}

int srtp_init_session(struct srtp_ctx *c, const uint8_t key[SRTP_KEY_LEN], const uint8_t salt[SRTP_SALT_LEN], int encrypt)
{
	memset(c, 0, sizeof *c);
	memcpy(c->salt, salt, SRTP_SALT_LEN);
	c->encrypt = encrypt;
	/* Keyed once here: per packet only the IV is set, which allocates nothing. */
	if (!(c->evp = EVP_CIPHER_CTX_new())) return -1;
	if (EVP_CipherInit_ex(c->evp, EVP_aes_128_gcm(), NULL, key, NULL, encrypt) != 1) return srtp_free(c), -1;
	return 0;
}

int srtp_init(struct srtp_ctx *c, const uint8_t master[SRTP_MASTER_LEN], int encrypt)
{
	uint8_t key[SRTP_KEY_LEN], salt[SRTP_SALT_LEN];
	if (srtp_kdf(master, master + SRTP_KEY_LEN, SRTP_SALT_LEN, 0x00, key, sizeof key) ||
	    srtp_kdf(master, master + SRTP_KEY_LEN, SRTP_SALT_LEN, 0x02, salt, sizeof salt))
		return -1;
	return srtp_init_session(c, key, salt, encrypt);
}

void srtp_free(struct srtp_ctx *c)
{
	EVP_CIPHER_CTX_free(c->evp);
	c->evp = NULL;
}

size_t srtp_header_len(const uint8_t *p, size_t len)
{
	if (len < 12 || (p[0] >> 6) != 2) return 0;
	size_t h = 12 + 4 * (size_t)(p[0] & 0x0f); /* CSRCs */
	if (p[0] & 0x10) { /* a header extension: its length is in its second 16 bits */
		if (h + 4 > len) return 0;
		h += 4 + 4 * (size_t)be16(p + h + 2);
	}
	return h <= len ? h : 0;
}

/* RFC 7714 §8.1: IV = (0x0000 ‖ SSRC ‖ ROC ‖ SEQ) XOR the session salt. */
static void make_iv(const struct srtp_ctx *c, const uint8_t *p, uint32_t roc, uint8_t iv[12])
{
	iv[0] = iv[1] = 0;
	memcpy(iv + 2, p + 8, 4);
	iv[6] = (uint8_t)(roc >> 24), iv[7] = (uint8_t)(roc >> 16), iv[8] = (uint8_t)(roc >> 8), iv[9] = (uint8_t)roc;
	iv[10] = p[2], iv[11] = p[3];
	for (int j = 0; j < 12; j++) iv[j] ^= c->salt[j];
}

size_t srtp_protect(struct srtp_ctx *c, uint8_t *p, size_t len, uint32_t roc)
{
	size_t h = srtp_header_len(p, len);
	uint8_t iv[12];
	int n, m;
	if (!h || !c->encrypt || len > (size_t)1 << 30) return 0;
	make_iv(c, p, roc, iv);
	if (EVP_EncryptInit_ex(c->evp, NULL, NULL, NULL, iv) != 1 || EVP_EncryptUpdate(c->evp, NULL, &n, p, (int)h) != 1 ||
	    EVP_EncryptUpdate(c->evp, p + h, &n, p + h, (int)(len - h)) != 1 || EVP_EncryptFinal_ex(c->evp, p + h + n, &m) != 1 ||
	    EVP_CIPHER_CTX_ctrl(c->evp, EVP_CTRL_AEAD_GET_TAG, SRTP_TAG_LEN, p + len) != 1)
		return 0;
	return len + SRTP_TAG_LEN;
}

uint64_t srtp_guess_index(const struct srtp_ctx *c, uint16_t seq)
{
	/* RFC 3711 Appendix A, with s_l and ROC taken from the highest index so far. A guess of
	 * ROC - 1 at ROC 0 would precede the stream's start: such a packet cannot authenticate. */
	if (!c->started) return seq;
	uint64_t roc = c->highest >> 16, v = roc;
	uint32_t s_l = (uint32_t)(c->highest & 0xffff);
	if (s_l < 32768 && seq > s_l + 32768) v = roc ? roc - 1 : 0;
	else if (s_l >= 32768 && seq < s_l - 32768) v = roc + 1;
	return v << 16 | seq;
}

int srtp_unprotect(struct srtp_ctx *c, uint8_t *p, size_t *len)
{
	size_t h = srtp_header_len(p, *len);
	if (!h || *len < h + SRTP_TAG_LEN || *len > (size_t)1 << 30 || c->encrypt) return SRTP_MALFORMED;
	size_t body = *len - h - SRTP_TAG_LEN;
	uint64_t index = srtp_guess_index(c, (uint16_t)be16(p + 2));
	uint8_t iv[12], tag[SRTP_TAG_LEN];
	int n, m;
	memcpy(tag, p + h + body, SRTP_TAG_LEN); /* a copy: the ctrl call takes a non-const pointer */
	make_iv(c, p, (uint32_t)(index >> 16), iv);
	if (EVP_DecryptInit_ex(c->evp, NULL, NULL, NULL, iv) != 1 || EVP_DecryptUpdate(c->evp, NULL, &n, p, (int)h) != 1 ||
	    EVP_DecryptUpdate(c->evp, p + h, &n, p + h, (int)body) != 1 ||
	    EVP_CIPHER_CTX_ctrl(c->evp, EVP_CTRL_AEAD_SET_TAG, SRTP_TAG_LEN, tag) != 1 ||
	    EVP_DecryptFinal_ex(c->evp, p + h + n, &m) != 1)
		return SRTP_AUTH_FAILED; /* the plaintext in p is garbage now; the caller drops it */
	/* Only an authenticated packet moves the index on: a forged one cannot shift the ROC. */
	if (!c->started || index > c->highest) c->highest = index, c->started = 1;
	*len = h + body;
	return SRTP_OK;
}
