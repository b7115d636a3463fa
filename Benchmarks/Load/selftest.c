/* selftest: `loadgen --self-test`. The parsers against hand-made packets, SRTP against the
 * published vectors (RFC 3711 §B.3 key derivation, RFC 7714 §16.1 AEAD_AES_128_GCM), and calls
 * mode's receive path: a broken parser or cipher would otherwise read as a server losing every
 * packet. */
#define _GNU_SOURCE
#include "loadgen.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srtp_gcm.h"

static int failures;
static void expect(int ok, const char *what) { fprintf(stderr, "%s %s\n", ok ? "ok  " : "FAIL", what), failures += !ok; }

static int hex_is(const uint8_t *b, size_t n, const char *hex)
{
	uint8_t want[256];
	return n <= sizeof want && !unhex(hex, want, n) && !memcmp(b, want, n);
}

static void stun_answer(uint8_t *b, uint32_t type, const uint8_t *tid, int error_code)
{
	memset(b, 0, 28);
	put16(b, type), put16(b + 2, error_code ? 8 : 0), put32(b + 4, COOKIE), memcpy(b + 8, tid, 12);
	put16(b + 20, 0x0009), put16(b + 22, 4), b[26] = error_code / 100, b[27] = error_code % 100; /* ERROR-CODE */
	on_datagram(b, error_code ? 28 : 20, 0, -1);
}

static void test_edge_and_turn(void)
{
	cfg.mode = EDGE, nsess = 3, S = calloc(nsess, sizeof *S);
	const char *line = "127.0.0.1 40000 000100002112a44200000002aabbccddeeff0011"; /* Binding request, session 2 */
	expect(!parse_session_line(line, 2, &S[2]) && ntohs(S[2].dst.sin_port) == 40000 && S[2].check_len == 20,
	       "a sessions file line parses");
	expect(parse_session_line(line, 1, &S[1]) != NULL, "a transaction id of another index is refused");
	expect(parse_session_line("10.0.0.1 40000 000100002112a44200000002aabbccddeeff0011", 2, &S[0]) != NULL,
	       "a non-loopback edge is refused");
	uint8_t b[28], tid[12];
	memcpy(tid, S[2].check + 8, 12);
	S[2].state = PENDING_CHECK, tid[11] ^= 1;
	stun_answer(b, 0x0101, tid, 0);
	expect(S[2].state == PENDING_CHECK, "a Binding success with another transaction id is ignored");
	tid[11] ^= 1;
	stun_answer(b, 0x0101, tid, 0);
	expect(S[2].state == READY, "a matching Binding success makes the session ready");
	S[2].state = PENDING_CHECK;
	stun_answer(b, 0x0111, tid, 401);
	expect(S[2].state == FAILED && S[2].error == 401, "a Binding error fails the session with its code");

	/* The edge's echo: another SSRC and sequence, one CSRC and a 2-word header extension. */
	uint8_t rtp[12 + 4 + 4 + 8 + 160] = { 0x91 }, *pl = rtp + 28;
	S[1].win_first = 7, W.on = 1, W.k = 3, W.frames = 10, W.seen = calloc(3 * 2, 1);
	put16(rtp + 16, 0xbede), put16(rtp + 18, 2);
	put32(pl, MAGIC), put32(pl + 4, 1), put32(pl + 8, 9), put64(pl + 12, 1000000);
	on_datagram(rtp, sizeof rtp, 1250000, -1);
	expect(W.received == 1 && W.max_ns == 250000, "payload found behind CSRC and extension; latency 0.25 ms");
	on_datagram(rtp, sizeof rtp, 1250000, -1);
	expect(W.received == 1, "a duplicate is not counted twice");
	put32(pl + 8, 3), on_datagram(rtp, sizeof rtp, 2000000, -1);
	expect(W.received == 1, "a packet sent before the window is not counted");
	put32(pl, 0), on_datagram(rtp, sizeof rtp, 2000000, -1);
	expect(W.stray == 1, "a payload without the magic is stray");

	/* TURN: Allocate success, a late duplicate of it, ChannelBind success. */
	cfg.mode = TURN, S[0].state = PENDING_ALLOC, S[0].tries = 1;
	uint8_t req[40];
	memset(tid, 0, 12), tid[4] = PENDING_ALLOC;
	stun_answer(b, 0x0103, tid, 0);
	expect(S[0].state == PENDING_BIND, "Allocate success moves on to ChannelBind");
	stun_answer(b, 0x0103, tid, 0);
	expect(S[0].state == PENDING_BIND, "a late duplicate Allocate answer is ignored");
	expect(turn_request(0, req) == 40 && get16(req) == 0x0009 && get16(req + 2) == 20 && get32(req + 8) == 0,
	       "the ChannelBind request carries the session index");
	tid[4] = PENDING_BIND;
	stun_answer(b, 0x0109, tid, 0);
	expect(S[0].state == READY, "ChannelBind success makes the session ready");
}

static void test_srtp_vectors(void)
{
	/* RFC 3711 §B.3: the AES-CM PRF with a 112-bit salt, key derivation rate 0. */
	uint8_t mk[16], ms[14], out[20];
	unhex("E1F97A0D3E018BE0D64FA32C06DE4139", mk, 16), unhex("0EC675AD498AFEEBB6960B3AABE6", ms, 14);
	expect(!srtp_kdf(mk, ms, 14, 0x00, out, 16) && hex_is(out, 16, "C61E7A93744F39EE10734AFE3FF7A087"),
	       "RFC 3711 B.3: session encryption key");
	expect(!srtp_kdf(mk, ms, 14, 0x02, out, 14) && hex_is(out, 14, "30CBBC08863D8C85D49DB34A9AE1"), "RFC 3711 B.3: session salt");
	expect(!srtp_kdf(mk, ms, 14, 0x01, out, 20) && hex_is(out, 20, "CEBE321F6FF7716B6FD4AB49AF256A156D38BAA4"),
	       "RFC 3711 B.3: session authentication key (a second keystream block)");

	/* RFC 7714 §16.1: session key and salt given directly; SSRC 0x5501a0b2, seq 0xf17b, ROC 0. */
	static const char plain[] = "8040f17b8041f8d35501a0b2"
				    "47616c6c696120657374206f6d6e69732064697669736120696e207061727465732074726573";
	static const char sealed[] = "8040f17b8041f8d35501a0b2"
				     "f24de3a3fb34de6cacba861c9d7e4bcabe633bd50d294e6f42a5f47a51c7d19b36de3adf8833"
				     "899d7f27beb16a9152cf765ee4390cce";
	uint8_t key[16], salt[12], p[80];
	struct srtp_ctx tx, rx;
	unhex("000102030405060708090a0b0c0d0e0f", key, 16), unhex("517569642070726f2071756f", salt, 12);
	expect(!srtp_init_session(&tx, key, salt, 1) && !srtp_init_session(&rx, key, salt, 0), "AES-128-GCM contexts (OpenSSL)");
	unhex(plain, p, 50);
	expect(srtp_protect(&tx, p, 50, 0) == 66 && hex_is(p, 66, sealed), "RFC 7714 16.1.1: SRTP AEAD_AES_128_GCM encryption");
	size_t len = 66;
	unhex(sealed, p, 66);
	expect(srtp_unprotect(&rx, p, &len) == SRTP_OK && len == 50 && hex_is(p, 50, plain), "RFC 7714 16.1.2: decryption");
	static const int flips[] = { 1, 11, 12, 49, 50, 65 }; /* header (AAD), ciphertext, tag */
	int refused = 0;
	for (int j = 0; j < 6; j++) {
		unhex(sealed, p, 66), p[flips[j]] ^= 0x10, len = 66;
		refused += srtp_unprotect(&rx, p, &len) == SRTP_AUTH_FAILED && len == 66;
	}
	expect(refused == 6, "a flipped bit in the header, the payload or the tag fails authentication");
	unhex(sealed, p, 66), len = 12 + 15;
	expect(srtp_unprotect(&rx, p, &len) == SRTP_MALFORMED, "a packet shorter than header and tag is malformed");
	unhex(sealed, p, 66), p[0] = 0x8f, len = 66; /* 15 CSRCs: a 72-byte header */
	expect(srtp_unprotect(&rx, p, &len) == SRTP_MALFORMED, "a header longer than the packet is malformed");
	unhex(sealed, p, 66), p[0] = 0x90, put16(p + 14, 0xffff), len = 66;
	expect(srtp_unprotect(&rx, p, &len) == SRTP_MALFORMED, "an extension longer than the packet is malformed");
	srtp_free(&tx), srtp_free(&rx);
}

/* A 172-byte RTP packet as a leg sends it: header, then MAGIC, sender, counter, send time. */
static size_t make_rtp(uint8_t *p, int ext, uint16_t seq, uint32_t ssrc, uint32_t sender, uint32_t counter)
{
	size_t h = ext ? 20 : 12;
	memset(p, 0xff, h + 160);
	p[0] = ext ? 0x90 : 0x80, p[1] = 0, put16(p + 2, seq), put32(p + 4, 160 * counter), put32(p + 8, ssrc);
	if (ext) put16(p + 12, 0xbede), put16(p + 14, 1), put32(p + 16, 0x10aa0000); /* one 1-byte element */
	put32(p + h, MAGIC), put32(p + h + 4, sender), put32(p + h + 8, counter), put64(p + h + 12, 1000000);
	return h + 160;
}

static void test_srtp_rollover(void)
{
	/* From a master key; the receiver estimates the ROC across a sequence number wrap. */
	uint8_t master[SRTP_MASTER_LEN], p[200], q[200];
	for (int j = 0; j < SRTP_MASTER_LEN; j++) master[j] = (uint8_t)(7 * j + 1);
	struct srtp_ctx tx, rx;
	expect(!srtp_init(&tx, master, 1) && !srtp_init(&rx, master, 0), "contexts from a master key and salt");
	static const uint32_t order[] = { 65530, 65535, 65536, 65537, 65535, 65536 + 30000 }; /* one late, one jump */
	int ok = 0;
	for (int j = 0; j < 6; j++) {
		size_t len = make_rtp(p, 0, (uint16_t)order[j], 0x11223344, 0, j);
		memcpy(q, p, len);
		len = srtp_protect(&tx, p, len, order[j] >> 16);
		ok += len == 188 && srtp_unprotect(&rx, p, &len) == SRTP_OK && len == 172 && !memcmp(p, q, len);
	}
	expect(ok == 6 && rx.highest == 65536 + 30000, "the ROC is estimated across the wrap, for a late packet and a jump");
	size_t len = make_rtp(p, 0, 5, 0x11223344, 0, 9);
	len = srtp_protect(&tx, p, len, 0); /* ROC 0 where the receiver expects 1 */
	expect(srtp_unprotect(&rx, p, &len) == SRTP_AUTH_FAILED && rx.highest == 65536 + 30000,
	       "a packet under the wrong ROC fails and does not move the index");
	len = make_rtp(p, 0, 40001, 0x11223344, 0, 10), len = srtp_protect(&tx, p, len, 1);
	memcpy(q, p, len);
	size_t len2 = len;
	expect(srtp_unprotect(&rx, p, &len) == SRTP_OK && srtp_unprotect(&rx, q, &len2) == SRTP_OK,
	       "a replayed packet decrypts again (deduplication is the payload's sequence)");
	srtp_free(&tx), srtp_free(&rx);
}

static void test_call_lines(void)
{
	static const char key[] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b";
	char line[512];
	struct session s = { 0 };
	snprintf(line, sizeof line, "127.0.0.1 40000 %s - -\n", key);
	expect(!parse_call_line(line, 0, &s) && s.tx && !s.rx && !s.check && ntohs(s.dst.sin_port) == 40000,
	       "a calls file line with a send key parses");
	snprintf(line, sizeof line, "127.0.0.2 40001 - %s 000100002112a44200000003aabbccddeeff0011", key);
	memset(&s, 0, sizeof s);
	expect(!parse_call_line(line, 3, &s) && !s.tx && s.rx && s.check_len == 20, "a receive key and a check parse");
	static const char *bad[] = { "127.0.0.1 40000 - -", "127.0.0.1 40000 - - - extra", "10.0.0.1 40000 - - -",
				     "127.0.0.1 0 - - -", "127.0.0.1 65536 - - -", "127.0.0.1 4x - - -", "127.0.0.1 40000 abcd - -",
				     "127.0.0.1 40000 - 000102030405060708090a0b0c0d0e0f101112131415161718191a1g -",
				     "127.0.0.1 40000 - - 000100002112a44200000002aabbccddeeff0011" };
	int refused = 0;
	for (int j = 0; j < 9; j++) {
		memset(&s, 0, sizeof s), snprintf(line, sizeof line, "%s", bad[j]);
		refused += parse_call_line(line, 3, &s) != NULL;
	}
	expect(refused == 9, "short, long, non-loopback, bad port, bad key and foreign check lines are refused");

	nsess = MAX_SESSIONS;
	int mapped = 0;
	for (int i = 0; i < MAX_SESSIONS; i++) mapped += leg_of_address(session_address(i)) == i;
	struct in_addr a;
	inet_pton(AF_INET, "127.64.0.251", &a), mapped += leg_of_address(a) == -1;
	inet_pton(AF_INET, "127.64.0.0", &a), mapped += leg_of_address(a) == -1;
	inet_pton(AF_INET, "127.0.0.1", &a), mapped += leg_of_address(a) == -1;
	expect(mapped == MAX_SESSIONS + 3, "a leg's address maps back to the leg, and nothing else does");
}

static void test_call_receive(void)
{
	uint8_t master[SRTP_MASTER_LEN], p[256];
	for (int j = 0; j < SRTP_MASTER_LEN; j++) master[j] = (uint8_t)(3 * j + 5);
	struct srtp_ctx relay, leg0_tx, relay_rx;
	cfg.mode = CALLS, nsess = 4, S = calloc(nsess, sizeof *S);
	S[1].rx = calloc(1, sizeof *S[1].rx);
	srtp_init(&relay, master, 1), srtp_init(S[1].rx, master, 0);
	free(W.seen), memset(&W, 0, sizeof W);
	W.on = 1, W.k = 4, W.frames = 10, W.seen = calloc(4 * 2, 1);

	/* The relay re-originates leg 0's packet for leg 1: its SSRC and sequence, an extension. */
	size_t len = make_rtp(p, 1, 65535, 0xdeadbeef, 0, 0);
	len = srtp_protect(&relay, p, len, 0);
	on_datagram(p, len, 1250000, 1);
	len = make_rtp(p, 1, 0, 0xdeadbeef, 0, 1), len = srtp_protect(&relay, p, len, 1);
	on_datagram(p, len, 1250000, 1);
	expect(W.received == 2 && W.auth_failures == 0 && W.misrouted == 0, "leg 1 decrypts its partner's packets across a wrap");
	len = make_rtp(p, 1, 1, 0xdeadbeef, 0, 2), len = srtp_protect(&relay, p, len, 1), p[len - 1] ^= 1;
	on_datagram(p, len, 1250000, 1);
	expect(W.received == 2 && W.auth_failures == 1, "a bad tag is an auth failure, not a packet");
	len = make_rtp(p, 0, 7, 1, 0, 3);
	on_datagram(p, len, 1250000, 3);
	expect(W.received == 2 && W.misrouted == 1, "leg 0's packet at leg 3 (partner: leg 2) is misrouted");
	on_datagram(p, len, 1250000, -1);
	on_datagram(p, 20, 1250000, 1);
	p[1] = 200, on_datagram(p, len, 1250000, 1); /* an RTCP sender report */
	expect(W.received == 2 && W.stray == 3 && W.auth_failures == 1, "a packet for no leg, a truncated SRTP packet and RTCP are stray");

	/* The send side: leg 0's packets, protected in the batch's buffer with its ROC. */
	S[0].tx = &leg0_tx, S[0].seq0 = 65535;
	srtp_init(&leg0_tx, master, 1), srtp_init(&relay_rx, master, 0);
	int ok = 0;
	for (uint32_t n = 0; n < 2; n++) {
		struct iovec iov = { p, make_rtp(p, 0, (uint16_t)(65535 + n), 42, 0, n) };
		protect_leg(0, p, &iov);
		size_t got = iov.iov_len;
		ok += got == 188 && srtp_unprotect(&relay_rx, p, &got) == SRTP_OK && got == 172 && get32(p + 20) == n;
	}
	expect(ok == 2, "a leg's packets are protected with the ROC of seq0 + counter");
	srtp_free(&relay), srtp_free(&leg0_tx), srtp_free(&relay_rx), srtp_free(S[1].rx);
}

int self_test(void)
{
	test_edge_and_turn();
	test_srtp_vectors();
	test_srtp_rollover();
	test_call_lines();
	test_call_receive();
	fprintf(stderr, "%s\n", failures ? "self-test FAILED" : "self-test passed");
	return failures ? 1 : 0;
}
