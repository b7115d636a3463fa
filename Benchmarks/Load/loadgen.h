/* loadgen.h: what loadgen.c (the generator), calls.c (calls mode) and selftest.c share. */
#ifndef LOADGEN_H
#define LOADGEN_H

#include <netinet/in.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#define MAGIC 0x50464c47u  /* "PFLG": marks our payloads */
#define COOKIE 0x2112a442u /* STUN magic cookie */
#define RTP_LEN 172        /* 12-byte header + 160-byte PCMU frame */
#define MAX_SESSIONS 16000 /* 64 × 250 source addresses */
#define HIST_BINS 200000   /* latency histogram: 10 µs bins up to 2 s */

enum { PENDING_ALLOC = 1, PENDING_BIND, PENDING_CHECK, READY, FAILED };
enum mode { ECHO, TURN, EDGE, CALLS };

struct srtp_ctx;

/* A session; in calls mode a call leg (legs 2k and 2k+1 are call k's two parties). */
struct session {
	struct sockaddr_in dst;  /* where its packets go */
	struct in_addr src;      /* its own source address */
	uint32_t ssrc, ts0, seq; /* seq: per-session packet counter, carried in the payload */
	uint32_t win_first;      /* first seq of the measurement window */
	uint16_t seq0, check_len;
	uint8_t state, tries;
	int error;               /* why setup failed: a STUN error code, 0 for no answer */
	int64_t next_try, bound_at;
	uint8_t *check;          /* edge, calls: the precomputed Binding request (NULL: none) */
	struct srtp_ctx *tx, *rx; /* calls: SRTP for what it sends and receives (NULL: plain RTP) */
};

extern struct config {
	enum mode mode;
	const char *name, *sessions_file, *calls_file;
	struct sockaddr_in target;
	int have_target, steps[64], nsteps, find_max, max_sessions, cpu, port, setup_rate, have_server_cpus;
	double duration, warmup;
	pid_t server_pid;
	cpu_set_t server_cpus;
} cfg;

extern struct session *S;
extern int nsess; /* sessions prepared: file lines, or the most any step needs */

/* The window being measured: what came back, deduplicated by session and seq. */
extern struct window {
	int on, k, frames;
	uint8_t *seen; /* k × ceil(frames/8) bits */
	uint64_t received, stray, auth_failures, misrouted;
	int64_t max_ns;
	uint32_t hist[HIST_BINS];
} W;

static inline void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v; }
static inline void put32(uint8_t *p, uint32_t v) { put16(p, v >> 16), put16(p + 2, v); }
static inline void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)(v >> 32)), put32(p + 4, (uint32_t)v); }
static inline uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static inline uint32_t get32(const uint8_t *p) { return get16(p) << 16 | get16(p + 2); }
static inline uint64_t get64(const uint8_t *p) { return (uint64_t)get32(p) << 32 | get32(p + 4); }

/* loadgen.c */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
struct in_addr session_address(int i);
int parse_addr(const char *text, struct sockaddr_in *a);
int unhex(const char *hex, uint8_t *out, size_t n);
const char *parse_check(const char *hex, int index, struct session *s);
const char *parse_session_line(const char *line, int index, struct session *s);
size_t turn_request(int i, uint8_t *b);
void on_datagram(uint8_t *b, size_t len, int64_t arrival, int to);
void on_rtp(const uint8_t *b, size_t len, int64_t arrival, int from);

/* calls.c */
void load_calls_file(void);
const char *parse_call_line(char *line, int index, struct session *s);
int leg_of_address(struct in_addr a);
void protect_leg(int i, uint8_t *p, struct iovec *iov);
void on_call_rtp(uint8_t *b, size_t len, int64_t arrival, int to);

/* selftest.c */
int self_test(void);

#endif
