/* calls: loadgen's calls mode (see README.md): pairs of legs through a relay, SRTP or plain RTP.
 *
 * Legs 2k and 2k+1 are the two parties of call k. Each leg sends to its relay port from its own
 * 127.64.x.y; the relay sends it what its partner sent, re-originated. All legs share one
 * socket, so what arrives is sorted to its leg by the address it was sent to (IP_PKTINFO). */
#define _GNU_SOURCE
#include "loadgen.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srtp_gcm.h"

/* A bad calls file is a bad argument: exit status 2, like the usage. */
static void __attribute__((format(printf, 1, 2), noreturn)) refuse(const char *fmt, ...)
{
	va_list a;
	va_start(a, fmt);
	fprintf(stderr, "loadgen: "), vfprintf(stderr, fmt, a), fprintf(stderr, "\n");
	va_end(a);
	exit(2);
}

/* "-" (no key: plain RTP) or 56 hex digits, master key ‖ master salt. */
static const char *parse_key(const char *hex, struct srtp_ctx **ctx, int encrypt)
{
	uint8_t master[SRTP_MASTER_LEN];
	*ctx = NULL;
	if (!strcmp(hex, "-")) return NULL;
	if (unhex(hex, master, sizeof master)) return "a key must be - or 56 hex digits (master key and salt)";
	if (!(*ctx = calloc(1, sizeof **ctx)) || srtp_init(*ctx, master, encrypt)) return "cannot set up AES-128-GCM (OpenSSL)";
	return NULL;
}

/* One line: RELAY_IP RELAY_PORT SEND_KEY RECEIVE_KEY CHECK (line is cut into its fields).
 * Returns what is wrong with it, or NULL. */
const char *parse_call_line(char *line, int index, struct session *s)
{
	char *field[6], *rest, addr[96];
	int n = 0;
	for (char *t = strtok_r(line, " \t\r\n", &rest); t && n < 6; t = strtok_r(NULL, " \t\r\n", &rest)) field[n++] = t;
	if (n != 5) return "expected 5 fields: RELAY_IP RELAY_PORT SEND_KEY RECEIVE_KEY CHECK";
	if (strlen(field[0]) > 15 || strlen(field[1]) > 5 || strspn(field[1], "0123456789") != strlen(field[1]))
		return "bad relay address (IPv4 in 127.0.0.0/8 and a port 1-65535)";
	snprintf(addr, sizeof addr, "%s:%s", field[0], field[1]);
	if (parse_addr(addr, &s->dst)) return "bad relay address (IPv4 in 127.0.0.0/8 and a port 1-65535)";
	const char *why = parse_key(field[2], &s->tx, 1);
	if (why || (why = parse_key(field[3], &s->rx, 0))) return why;
	s->check = NULL, s->check_len = 0;
	return strcmp(field[4], "-") ? parse_check(field[4], index, s) : NULL;
}

void load_calls_file(void)
{
	FILE *f = fopen(cfg.calls_file, "r");
	if (!f) refuse("cannot open the calls file %s: %s", cfg.calls_file, strerror(errno));
	char *line = NULL;
	size_t cap = 0;
	if (!(S = calloc(MAX_SESSIONS, sizeof *S))) die("out of memory");
	for (int number = 1; getline(&line, &cap, f) > 0; number++) {
		char c = line[strspn(line, " \t\r\n")];
		if (c == 0 || c == '#') continue;
		if (nsess == MAX_SESSIONS) refuse("%s line %d: more than %d legs (%d calls)", cfg.calls_file, number, MAX_SESSIONS, MAX_SESSIONS / 2);
		const char *why = parse_call_line(line, nsess, &S[nsess]);
		if (why) refuse("%s line %d: %s", cfg.calls_file, number, why);
		nsess++;
	}
	free(line);
	fclose(f);
	if (!nsess) refuse("the calls file %s has no calls", cfg.calls_file);
	if (nsess % 2) refuse("the calls file %s has %d legs: two lines per call", cfg.calls_file, nsess);
	int srtp = 0;
	for (int i = 0; i < nsess; i++) srtp += (S[i].tx != NULL) + (S[i].rx != NULL);
	fprintf(stderr, "loadgen: %d calls; %d of %d directions with SRTP (AEAD_AES_128_GCM)\n", nsess / 2, srtp, 2 * nsess);
}

/* The leg whose source address is a (127.64.x.y, y = 1..250), or -1. */
int leg_of_address(struct in_addr a)
{
	uint32_t h = ntohl(a.s_addr), x = h >> 8 & 0xff, y = h & 0xff;
	if (h >> 16 != (127u << 8 | 64u) || y < 1 || y > 250) return -1;
	int i = (int)(x * 250 + y - 1);
	return i < nsess ? i : -1;
}

/* Leg i's packet in the send batch, right before it goes: protected in place, its tag in the
 * 16 bytes of room behind it. The index is the leg's seq0 + packet counter, so the ROC is its
 * upper bits: it advances exactly when the 16-bit sequence number wraps. */
void protect_leg(int i, uint8_t *p, struct iovec *iov)
{
	struct session *s = &S[i];
	if (!s->tx) return;
	uint32_t roc = (uint32_t)(((uint64_t)s->seq0 + get32(p + 20)) >> 16);
	size_t n = srtp_protect(s->tx, p, RTP_LEN, roc);
	if (!n) die("cannot protect leg %d's RTP (OpenSSL)", i);
	iov->iov_len = n;
}

/* RTP for leg `to` (-1: sent to none of ours). With its RECEIVE_KEY it must authenticate; then
 * it is counted as any session's answer, but only if it came from the leg's partner. RTCP a
 * relay may send (second byte 192-223, RFC 5761) is stray, not a failed authentication. */
void on_call_rtp(uint8_t *b, size_t len, int64_t arrival, int to)
{
	if (to < 0 || to >= nsess || (b[1] >= 192 && b[1] <= 223)) { W.stray++; return; }
	struct srtp_ctx *rx = S[to].rx;
	int r = rx ? srtp_unprotect(rx, b, &len) : SRTP_OK;
	if (r == SRTP_AUTH_FAILED) W.auth_failures++;
	else if (r != SRTP_OK) W.stray++;
	else on_rtp(b, len, arrival, to ^ 1);
}
