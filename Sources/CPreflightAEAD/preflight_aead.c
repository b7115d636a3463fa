#include "preflight_aead.h"

#if defined(__linux__)
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The few libcrypto entry points used, by their OpenSSL 3 signatures (the contexts are opaque).
 * Resolved once; libcrypto.so.3 is the runtime library every Debian and Ubuntu system carries
 * (libssl3), so no headers or development package are needed. */
typedef void *(*ctx_new_fn)(void);
typedef void (*ctx_free_fn)(void *ctx);
typedef const void *(*cipher_fn)(void);
typedef int (*init_fn)(void *ctx, const void *cipher, void *engine, const unsigned char *key, const unsigned char *iv, int enc);
typedef int (*update_fn)(void *ctx, unsigned char *out, int *out_length, const unsigned char *in, int in_length);
typedef int (*final_fn)(void *ctx, unsigned char *out, int *out_length);
typedef int (*ctrl_fn)(void *ctx, int type, int arg, void *ptr);

/* EVP_CTRL_AEAD_SET_IVLEN, _GET_TAG and _SET_TAG of OpenSSL's evp.h. */
enum { SET_IV_LENGTH = 0x9, GET_TAG = 0x10, SET_TAG = 0x11, IV_LENGTH = 12, TAG_LENGTH = 16 };

static struct {
	ctx_new_fn ctx_new;
	ctx_free_fn ctx_free;
	cipher_fn aes_128_gcm;
	init_fn init;
	update_fn update;
	final_fn final;
	ctrl_fn ctrl;
	int loaded;
} crypto;

static pthread_once_t loading = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
	if (library == NULL) return;
	crypto.ctx_new = (ctx_new_fn)dlsym(library, "EVP_CIPHER_CTX_new");
	crypto.ctx_free = (ctx_free_fn)dlsym(library, "EVP_CIPHER_CTX_free");
	crypto.aes_128_gcm = (cipher_fn)dlsym(library, "EVP_aes_128_gcm");
	crypto.init = (init_fn)dlsym(library, "EVP_CipherInit_ex");
	crypto.update = (update_fn)dlsym(library, "EVP_CipherUpdate");
	crypto.final = (final_fn)dlsym(library, "EVP_CipherFinal_ex");
	crypto.ctrl = (ctrl_fn)dlsym(library, "EVP_CIPHER_CTX_ctrl");
	crypto.loaded = crypto.ctx_new && crypto.ctx_free && crypto.aes_128_gcm && crypto.init && crypto.update && crypto.final && crypto.ctrl;
}

struct preflight_aead {
	pthread_mutex_t lock;
	uint8_t key[16];
	/* An encrypting context with the key set, made at the first seal, and a decrypting one made
	 * at the first open: an SRTP context is used one way, and an edge holds thousands. */
	void *seal;
	void *open;
};

static void *keyed_context(const uint8_t *key, int enc)
{
	void *ctx = crypto.ctx_new();
	if (ctx == NULL) return NULL;
	if (crypto.init(ctx, crypto.aes_128_gcm(), NULL, NULL, NULL, enc) != 1 || crypto.ctrl(ctx, SET_IV_LENGTH, IV_LENGTH, NULL) != 1 ||
	    crypto.init(ctx, NULL, NULL, key, NULL, enc) != 1) {
		crypto.ctx_free(ctx);
		return NULL;
	}
	return ctx;
}

preflight_aead *preflight_aead_create(const uint8_t *key, size_t key_length)
{
	if (key_length != 16 || pthread_once(&loading, load) != 0 || !crypto.loaded) return NULL;
	/* The key is tried once now, so that a refusal shows here and not at the first packet. */
	void *trial = keyed_context(key, 1);
	if (trial == NULL) return NULL;
	preflight_aead *aead = calloc(1, sizeof *aead);
	if (aead == NULL || pthread_mutex_init(&aead->lock, NULL) != 0) {
		crypto.ctx_free(trial);
		free(aead);
		return NULL;
	}
	crypto.ctx_free(trial);
	memcpy(aead->key, key, sizeof aead->key);
	return aead;
}

void preflight_aead_destroy(preflight_aead *aead)
{
	if (aead == NULL) return;
	if (aead->seal) crypto.ctx_free(aead->seal);
	if (aead->open) crypto.ctx_free(aead->open);
	pthread_mutex_destroy(&aead->lock);
	memset(aead->key, 0, sizeof aead->key);
	free(aead);
}

int preflight_aead_seal(preflight_aead *aead, const uint8_t *iv, const uint8_t *aad, size_t aad_length, uint8_t *data,
                        size_t length, uint8_t *tag)
{
	if (aead == NULL || iv == NULL || tag == NULL || aad_length > INT_MAX || length > INT_MAX) return -1;
	int written = 0, ok;
	uint8_t none[1]; /* GCM's final step writes nothing; it still wants somewhere to */
	pthread_mutex_lock(&aead->lock);
	ok = (aead->seal != NULL || (aead->seal = keyed_context(aead->key, 1)) != NULL) &&
	     crypto.init(aead->seal, NULL, NULL, NULL, iv, 1) == 1 &&
	     (aad_length == 0 || crypto.update(aead->seal, NULL, &written, aad, (int)aad_length) == 1) &&
	     (length == 0 || crypto.update(aead->seal, data, &written, data, (int)length) == 1) &&
	     crypto.final(aead->seal, none, &written) == 1 && crypto.ctrl(aead->seal, GET_TAG, TAG_LENGTH, tag) == 1;
	pthread_mutex_unlock(&aead->lock);
	return ok ? 0 : -1;
}

int preflight_aead_open(preflight_aead *aead, const uint8_t *iv, const uint8_t *aad, size_t aad_length, const uint8_t *input,
                        size_t length, const uint8_t *tag, uint8_t *output)
{
	if (aead == NULL || iv == NULL || tag == NULL || aad_length > INT_MAX || length > INT_MAX) return -1;
	int written = 0, ok;
	uint8_t none[1], expected[TAG_LENGTH];
	for (int i = 0; i < TAG_LENGTH; i++) expected[i] = tag[i]; /* SET_TAG takes a non-const pointer */
	pthread_mutex_lock(&aead->lock);
	ok = (aead->open != NULL || (aead->open = keyed_context(aead->key, 0)) != NULL) &&
	     crypto.init(aead->open, NULL, NULL, NULL, iv, 0) == 1 && crypto.ctrl(aead->open, SET_TAG, TAG_LENGTH, expected) == 1 &&
	     (aad_length == 0 || crypto.update(aead->open, NULL, &written, aad, (int)aad_length) == 1) &&
	     (length == 0 || crypto.update(aead->open, output, &written, input, (int)length) == 1) &&
	     crypto.final(aead->open, none, &written) == 1;
	pthread_mutex_unlock(&aead->lock);
	return ok ? 0 : -1;
}

#else

preflight_aead *preflight_aead_create(const uint8_t *key, size_t key_length)
{
	(void)key, (void)key_length;
	return NULL;
}

void preflight_aead_destroy(preflight_aead *aead) { (void)aead; }

int preflight_aead_seal(preflight_aead *aead, const uint8_t *iv, const uint8_t *aad, size_t aad_length, uint8_t *data,
                        size_t length, uint8_t *tag)
{
	(void)aead, (void)iv, (void)aad, (void)aad_length, (void)data, (void)length, (void)tag;
	return -1;
}

int preflight_aead_open(preflight_aead *aead, const uint8_t *iv, const uint8_t *aad, size_t aad_length, const uint8_t *input,
                        size_t length, const uint8_t *tag, uint8_t *output)
{
	(void)aead, (void)iv, (void)aad, (void)aad_length, (void)input, (void)length, (void)tag, (void)output;
	return -1;
}

#endif
