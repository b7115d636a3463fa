/* loadgen: RTP load generator for the Preflight load benchmark (see README.md).
 *
 * Thousands of 50 packet/s RTP sessions from one UDP socket: session i has its own source
 * address 127.64.x.y, chosen per datagram with an IP_PKTINFO cmsg, so each server sees one
 * 5-tuple per session while the generator pays for one socket only. Loopback only. Calls mode
 * (calls.c) pairs sessions into calls through a relay, with SRTP (srtp_gcm.c) or plain RTP;
 * kernel_work.c counts the server's system calls and wake-ups. */
#define _GNU_SOURCE
#include "loadgen.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "kernel_work.h"
#include "srtp_gcm.h"

#define SEND_BATCH 32
#define RECV_BATCH 64
#define RECV_BUF 2048
#define SLOTS 20           /* 1 ms slots per 20 ms frame; session i sends in slot i % 20 */
#define HIST_BIN_NS 10000  /* latency histogram: 10 µs bins up to 2 s */
#define MS 1000000LL

struct config cfg = { .duration = 10, .warmup = 1, .max_sessions = MAX_SESSIONS, .cpu = -1, .setup_rate = 5000 };
struct session *S;
int nsess;
struct window W;
static int fd = -1, peer_fd = -1; /* peer_fd (turn mode): where coturn relays to */
static struct sockaddr_in peer_addr;
static volatile sig_atomic_t stop;
static uint32_t rx_ovfl[2];       /* SO_RXQ_OVFL: each socket's cumulative drops */
static uint64_t sent_in_window, send_errors;
static int default_steps;         /* no --sessions or --calls: the default count */

static int64_t clock_ns(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
static int64_t mono(void) { return clock_ns(CLOCK_MONOTONIC); }
static struct timespec ts_of(int64_t ns) { return (struct timespec){ ns / 1000000000LL, ns % 1000000000LL }; }

void die(const char *fmt, ...)
{
	va_list a;
	va_start(a, fmt);
	fprintf(stderr, "loadgen: "), vfprintf(stderr, fmt, a), fprintf(stderr, "\n");
	exit(1);
}

static void usage(const char *why)
{
	if (why) fprintf(stderr, "loadgen: %s\n", why);
	fprintf(stderr,
	    "usage: loadgen --mode echo|turn --target IP:PORT [options]\n"
	    "       loadgen --mode edge --sessions-file FILE [options]\n"
	    "       loadgen --mode calls --calls-file FILE [--calls N[,N...]] [options]\n"
	    "       loadgen --self-test\n"
	    "  --sessions N[,N...]   sessions per step (default 1000 unless --find-max)\n"
	    "  --calls N[,N...]      calls mode: calls per step, 2 legs each (default 500 unless --find-max)\n"
	    "  --duration S          seconds of each measurement window (default 10)\n"
	    "  --warmup S            seconds of traffic before the window, not counted (default 1)\n"
	    "  --find-max            then search the highest session count with loss <= 0.1%%\n"
	    "  --max-sessions N      cap of the search (default and limit 16000)\n"
	    "  --max-calls N         calls mode: cap of the search (default the file's calls)\n"
	    "  --cpu N               pin the generator to CPU N\n"
	    "  --server-pid PID      the server, for its CPU time and kernel work (and pinning)\n"
	    "  --server-cpus LIST    pin every server thread to LIST (e.g. 0 or 0-1)\n"
	    "  --port P              local UDP port (default ephemeral)\n"
	    "  --setup-rate R        setup requests per second (default 5000)\n"
	    "  --name NAME           the \"server\" field of the output (default the mode)\n");
	exit(2);
}

/* ---- sending ---- */

static void set_pktinfo(struct msghdr *m, struct in_addr src)
{
	struct cmsghdr *h = CMSG_FIRSTHDR(m);
	h->cmsg_level = IPPROTO_IP, h->cmsg_type = IP_PKTINFO, h->cmsg_len = CMSG_LEN(sizeof(struct in_pktinfo));
	*(struct in_pktinfo *)CMSG_DATA(h) = (struct in_pktinfo){ .ipi_spec_dst = src };
}

typedef union { char b[CMSG_SPACE(sizeof(struct in_pktinfo))]; struct cmsghdr align; } pktinfo_buf;

/* One datagram from session s's own source address (setup requests: not on the hot path). */
static void send_from(struct session *s, const void *buf, size_t len)
{
	pktinfo_buf c;
	struct iovec iov = { (void *)buf, len };
	struct msghdr m = { .msg_name = &s->dst, .msg_namelen = sizeof s->dst, .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = c.b, .msg_controllen = sizeof c.b };
	set_pktinfo(&m, s->src);
	if (sendmsg(fd, &m, 0) < 0) send_errors++;
}

static struct {
	uint8_t buf[SEND_BATCH][4 + RTP_LEN + SRTP_TAG_LEN]; /* room for a TURN ChannelData header, an SRTP tag */
	int session[SEND_BATCH];
	struct iovec iov[SEND_BATCH];
	pktinfo_buf ctl[SEND_BATCH];
	struct mmsghdr msg[SEND_BATCH];
	int n;
} B;

static void flush_batch(int counted)
{
	/* The send time is read once per batch, right before the syscall that sends it (and, in
	 * calls mode, the batch's encryption: it is inside the payload it protects). */
	uint64_t now = clock_ns(CLOCK_REALTIME);
	for (int j = 0; j < B.n; j++) {
		put64(B.buf[j] + 4 + 24, now);
		if (cfg.mode == CALLS) protect_leg(B.session[j], B.buf[j] + 4, &B.iov[j]);
	}
	for (int done = 0; done < B.n;) {
		int r = sendmmsg(fd, B.msg + done, B.n - done, 0);
		if (r < 0 && errno == EINTR) continue;
		if (r < 0) { send_errors++, done++; continue; } /* skip the datagram the kernel refused */
		done += r;
		if (counted) sent_in_window += r;
	}
	B.n = 0;
}

static void queue_rtp(int i, int counted)
{
	struct session *s = &S[i];
	int j = B.n++;
	uint8_t *p = B.buf[j] + 4;
	B.session[j] = i;
	p[0] = 0x80, p[1] = 0; /* version 2, PCMU */
	put16(p + 2, (uint16_t)(s->seq0 + s->seq)), put32(p + 4, s->ts0 + 160u * s->seq), put32(p + 8, s->ssrc);
	put32(p + 12, MAGIC), put32(p + 16, i), put32(p + 20, s->seq++); /* p + 24: the send time */
	put16(B.buf[j], 0x4000 + i % 0x4000), put16(B.buf[j] + 2, RTP_LEN);
	B.iov[j] = cfg.mode == TURN ? (struct iovec){ B.buf[j], 4 + RTP_LEN } : (struct iovec){ p, RTP_LEN };
	B.msg[j].msg_hdr = (struct msghdr){ .msg_name = &s->dst, .msg_namelen = sizeof s->dst, .msg_iov = &B.iov[j],
					    .msg_iovlen = 1, .msg_control = B.ctl[j].b, .msg_controllen = sizeof B.ctl[j].b };
	set_pktinfo(&B.msg[j].msg_hdr, s->src);
	if (B.n == SEND_BATCH) flush_batch(counted);
}

/* ---- receiving ---- */

/* from: the session that must have sent it (calls mode: the receiving leg's partner), or -1. */
void on_rtp(const uint8_t *b, size_t len, int64_t arrival, int from)
{
	/* The edge answers with its own SSRC and sequence and adds a header extension: skip what
	 * the header says it holds rather than assume 12 bytes. */
	size_t off = 12 + 4 * (b[0] & 0x0f);
	if ((b[0] & 0x10) && off + 4 <= len) off += 4 + 4 * get16(b + off + 2);
	if (off + 32 > len || get32(b + off) != MAGIC || get32(b + off + 4) >= (uint32_t)nsess) { W.stray++; return; }
	uint32_t i = get32(b + off + 4), seq = get32(b + off + 8), d = seq - S[i].win_first;
	if (from >= 0 && i != (uint32_t)from) { W.misrouted++; return; } /* not delivered where it was due */
	if (!W.on || i >= (uint32_t)W.k || seq < S[i].win_first || d >= (uint32_t)W.frames) return; /* not this window's */
	uint8_t *bits = W.seen + (size_t)i * ((W.frames + 7) / 8);
	if (bits[d / 8] & (1 << d % 8)) return; /* a duplicate */
	bits[d / 8] |= 1 << d % 8;
	W.received++;
	int64_t lat = arrival - (int64_t)get64(b + off + 12);
	lat = lat < 0 ? 0 : lat;
	W.max_ns = lat > W.max_ns ? lat : W.max_ns;
	W.hist[lat / HIST_BIN_NS < HIST_BINS ? lat / HIST_BIN_NS : HIST_BINS - 1]++;
}

static int stun_error_code(const uint8_t *b, size_t len)
{
	for (size_t off = 20; off + 4 <= len; off += 4 + ((get16(b + off + 2) + 3) & ~3u))
		if (get16(b + off) == 0x0009 && off + 8 <= len) return (b[off + 6] & 7) * 100 + b[off + 7];
	return 0;
}

/* Transaction ids start with the session index, so answers find their session without a table. */
static void on_stun(const uint8_t *b, size_t len)
{
	uint32_t i = get32(b + 8), type = get16(b);
	if (i >= (uint32_t)nsess) { W.stray++; return; }
	struct session *s = &S[i];
	int error = (type & 0x0110) == 0x0110;
	if ((type & 0x0110) == 0) return; /* a request or indication: not ours to answer */
	if (cfg.mode != TURN) { /* edge, calls: an ICE check */
		if (s->state != PENDING_CHECK || memcmp(b + 8, s->check + 8, 12)) return;
		if (type == 0x0101) s->state = READY, s->bound_at = mono();
		else if (error) s->state = FAILED, s->error = stun_error_code(b, len);
		return;
	}
	if (b[12] != s->state) return; /* an answer to an earlier phase (a retry's twin) */
	int code = error ? stun_error_code(b, len) : 0;
	if (s->state == PENDING_ALLOC && (type == 0x0103 || (code == 437 && s->tries > 1)))
		s->state = PENDING_BIND, s->tries = 0, s->next_try = 0; /* 437 after a retry: it exists */
	else if (s->state == PENDING_BIND && type == 0x0109)
		s->state = READY, s->bound_at = mono();
	else if (error)
		s->state = FAILED, s->error = code;
}

/* to: the session it was sent to (calls mode: from its IP_PKTINFO destination), or -1. */
void on_datagram(uint8_t *b, size_t len, int64_t arrival, int to)
{
	if (len >= 20 && (b[0] & 0xc0) == 0 && get32(b + 4) == COOKIE) on_stun(b, len);
	else if (len >= 12 && (b[0] >> 6) == 2 && cfg.mode == CALLS) on_call_rtp(b, len, arrival, to);
	else if (len >= 12 && (b[0] >> 6) == 2) on_rtp(b, len, arrival, -1);
	else W.stray++;
}

static struct {
	uint8_t buf[RECV_BATCH][RECV_BUF];
	struct iovec iov[RECV_BATCH];
	union {
		char b[CMSG_SPACE(sizeof(struct timespec)) + CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(struct in_pktinfo))];
		struct cmsghdr a;
	} ctl[RECV_BATCH];
	struct mmsghdr msg[RECV_BATCH];
} R;

static void drain(int sock)
{
	for (int n = RECV_BATCH; n == RECV_BATCH;) {
		for (int j = 0; j < RECV_BATCH; j++) {
			R.iov[j] = (struct iovec){ R.buf[j], RECV_BUF };
			R.msg[j].msg_hdr = (struct msghdr){ .msg_iov = &R.iov[j], .msg_iovlen = 1,
							    .msg_control = R.ctl[j].b, .msg_controllen = sizeof R.ctl[j].b };
		}
		if ((n = recvmmsg(sock, R.msg, RECV_BATCH, MSG_DONTWAIT, NULL)) <= 0) return; /* EAGAIN: drained */
		for (int j = 0; j < n; j++) {
			int64_t arrival = -1;
			int to = -1;
			for (struct cmsghdr *h = CMSG_FIRSTHDR(&R.msg[j].msg_hdr); h; h = CMSG_NXTHDR(&R.msg[j].msg_hdr, h)) {
				if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SO_TIMESTAMPNS) {
					struct timespec t;
					memcpy(&t, CMSG_DATA(h), sizeof t);
					arrival = t.tv_sec * 1000000000LL + t.tv_nsec;
				} else if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SO_RXQ_OVFL) {
					memcpy(&rx_ovfl[sock != fd], CMSG_DATA(h), sizeof rx_ovfl[0]); /* there once it dropped */
				} else if (h->cmsg_level == IPPROTO_IP && h->cmsg_type == IP_PKTINFO) {
					struct in_pktinfo pi; /* calls mode: the 127.64.x.y it was sent to names its leg */
					memcpy(&pi, CMSG_DATA(h), sizeof pi);
					to = leg_of_address(pi.ipi_addr);
				}
			}
			on_datagram(R.buf[j], R.msg[j].msg_len, arrival >= 0 ? arrival : clock_ns(CLOCK_REALTIME), to);
		}
	}
}

static void drain_all(void)
{
	drain(fd);
	if (peer_fd >= 0) drain(peer_fd);
}

/* Drains, then sleeps to the absolute deadline (no drift). No ppoll between slots: a server that
 * sends one datagram per syscall (coturn) would wake the generator once per packet, which nearly
 * doubled the generator's CPU; drained once per 1 ms slot, 4 MB of buffer holds far more than a
 * slot's answers, and latency is the kernel's receive stamp, not the time of the read. */
static void wait_until(int64_t deadline)
{
	drain_all();
	struct timespec at = ts_of(deadline);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR && !stop) {}
}

/* ---- setup: TURN allocations and channels, or the ICE checks of edge sessions and call legs ---- */

size_t turn_request(int i, uint8_t *b)
{
	struct session *s = &S[i];
	int alloc = s->state == PENDING_ALLOC;
	put16(b, alloc ? 0x0003 : 0x0009), put16(b + 2, alloc ? 16 : 20), put32(b + 4, COOKIE);
	put32(b + 8, i), put32(b + 12, (uint32_t)s->state << 24 | s->tries), put32(b + 16, (uint32_t)rand());
	if (alloc) {
		put16(b + 20, 0x0019), put16(b + 22, 4), put32(b + 24, 17u << 24); /* REQUESTED-TRANSPORT: UDP */
		put16(b + 28, 0x000d), put16(b + 30, 4), put32(b + 32, 3600);       /* LIFETIME: the longest */
		return 36;
	}
	put16(b + 20, 0x000c), put16(b + 22, 4), put32(b + 24, (0x4000u + i % 0x4000) << 16); /* CHANNEL-NUMBER */
	put16(b + 28, 0x0012), put16(b + 30, 8), put16(b + 32, 1);                           /* XOR-PEER-ADDRESS */
	put16(b + 34, ntohs(peer_addr.sin_port) ^ (COOKIE >> 16)), put32(b + 36, ntohl(peer_addr.sin_addr.s_addr) ^ COOKIE);
	return 40;
}

/* What a step counts: calls mode counts legs (two per call). */
static const char *unit(void) { return cfg.mode == CALLS ? "legs" : "sessions"; }

/* Every failed session, as runs of consecutive sessions that failed for the same reason. */
static void report_failures(int k)
{
	for (int i = 0, j; i < k; i = j) {
		for (j = i + 1; S[i].state == FAILED && j < k && S[j].state == FAILED && S[j].error == S[i].error;) j++;
		if (S[i].state != FAILED) continue;
		char a[16], z[16];
		inet_ntop(AF_INET, &S[i].src, a, sizeof a), inet_ntop(AF_INET, &S[j - 1].src, z, sizeof z);
		if (S[i].error) fprintf(stderr, "loadgen: setup failed for %s %d-%d (%s-%s): STUN error %d\n", unit(), i, j - 1, a, z, S[i].error);
		else fprintf(stderr, "loadgen: setup failed for %s %d-%d (%s-%s): no answer after %d tries\n", unit(), i, j - 1, a, z, S[i].tries);
	}
}

/* Brings sessions [0, k) to READY, paced at cfg.setup_rate requests/s; returns how many are. */
static int setup(int k)
{
	if (cfg.mode == ECHO) return k;
	int64_t now = mono(), tick = now;
	int pending = 0, max_tries = cfg.mode == TURN ? 3 : 10;
	for (int i = 0; i < k; i++) {
		struct session *s = &S[i];
		/* A channel (and its permission, 300 s in coturn) is refreshed by binding it again. */
		if (cfg.mode == TURN && s->state == READY && now - s->bound_at > 200000 * MS) s->state = PENDING_BIND, s->tries = 0;
		if (s->state == 0) s->state = cfg.mode == TURN ? PENDING_ALLOC : PENDING_CHECK; /* calls: legs with a check */
		if (s->state != READY && s->state != FAILED) s->next_try = 0, pending++;
	}
	if (!pending) return k;
	fprintf(stderr, "loadgen: setting up %d %s\n", pending, unit());
	for (double credit = 0; pending && !stop; wait_until(tick += MS)) {
		credit = fmin(credit + cfg.setup_rate / 1000.0, 1 + cfg.setup_rate / 1000.0); /* no bursts after a stall */
		now = mono(), pending = 0;
		for (int i = 0; i < k; i++) {
			struct session *s = &S[i];
			if (s->state == READY || s->state == FAILED) continue;
			pending++;
			if (s->next_try > now || credit < 1) continue;
			if (s->tries >= max_tries) { s->state = FAILED, s->error = 0; continue; }
			uint8_t b[40];
			if (cfg.mode == TURN) send_from(s, b, turn_request(i, b));
			else send_from(s, s->check, s->check_len);
			s->tries++, s->next_try = now + 200 * MS, credit--;
		}
	}
	int ready = 0;
	for (int i = 0; i < k; i++) ready += S[i].state == READY;
	report_failures(k);
	fprintf(stderr, "loadgen: %d of %d %s ready\n", ready, k, unit());
	return ready;
}

/* ---- the server: CPU time and pinning ---- */

static double server_cpu_seconds(void)
{
	/* The scheduler's own count for the whole process, in nanoseconds: /proc/PID/stat gives the
	 * same total in 10 ms ticks, 1.6 % of a 3 s window at 20 % of a core. */
	clockid_t clock;
	struct timespec t;
	if (clock_getcpuclockid(cfg.server_pid, &clock) == 0 && clock_gettime(clock, &t) == 0)
		return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)cfg.server_pid);
	FILE *f = fopen(path, "r");
	if (!f) return -1;
	buf[fread(buf, 1, sizeof buf - 1, f)] = 0;
	fclose(f);
	char *p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
	unsigned long long utime, stime; /* fields 14 and 15, the whole thread group */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2) return -1;
	return (double)(utime + stime) / sysconf(_SC_CLK_TCK);
}

static void pin_server(void)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)cfg.server_pid);
	DIR *d = opendir(path);
	if (!d) die("the server (pid %d) is gone", (int)cfg.server_pid);
	for (struct dirent *e; (e = readdir(d));)
		if (e->d_name[0] != '.' && sched_setaffinity(atoi(e->d_name), sizeof cfg.server_cpus, &cfg.server_cpus) && errno != ESRCH)
			die("cannot pin server thread %s: %s", e->d_name, strerror(errno));
	closedir(d);
}

/* RcvbufErrors of /proc/net/snmp: datagrams any UDP socket dropped for a full buffer. Less the
 * generator's own (SO_RXQ_OVFL), that is the server's socket on this otherwise idle loopback. */
static long long udp_rcvbuf_errors(void)
{
	char line[512];
	long long v = -1;
	FILE *f = fopen("/proc/net/snmp", "r");
	for (int udp = 0; f && fgets(line, sizeof line, f);)
		if (!strncmp(line, "Udp: ", 5) && udp++ && sscanf(line + 5, "%*d %*d %*d %*d %lld", &v) != 1) v = -1;
	if (f) fclose(f);
	return v;
}

static double own_cpu_seconds(void)
{
	struct rusage r;
	return getrusage(RUSAGE_SELF, &r), r.ru_utime.tv_sec + r.ru_stime.tv_sec + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

/* ---- one measured step ---- */

struct result { int k, ready, generator_limited; double loss, pps; };

static double percentile(double q)
{
	uint64_t want = (uint64_t)ceil(q * W.received), seen = 0;
	for (int b = 0; b < HIST_BINS && want; b++)
		if ((seen += W.hist[b]) >= want) return (b + 0.5) * HIST_BIN_NS / 1e6;
	return 0;
}

/* The server's kernel work over the window, in total and per packet (sent + received, as
 * packets_per_cpu_second counts them); null where it was not measured. */
static void print_kernel_work(const struct kernel_work *kw, uint64_t packets)
{
	const char *names[] = { "server_syscalls", "server_wakeups", "server_involuntary_switches" };
	long long v[] = { kw->syscalls, kw->wakeups, kw->involuntary };
	for (int j = 0; j < 3; j++)
		if (v[j] >= 0) printf("\"%s\":%lld,", names[j], v[j]);
		else printf("\"%s\":null,", names[j]);
	for (int j = 0; j < 2; j++)
		if (v[j] >= 0 && packets) printf("\"%s_per_packet\":%.4f,", j ? "wakeups" : "syscalls", (double)v[j] / packets);
		else printf("\"%s_per_packet\":null,", j ? "wakeups" : "syscalls");
}

static struct result run_step(int k)
{
	struct result r = { .k = k, .ready = setup(k) };
	if (stop) return r;
	if (r.ready == 0) die("no session could be set up; is the %s server running?", cfg.name);
	if (cfg.have_server_cpus) pin_server(); /* at every step: servers may start threads lazily */
	if (cfg.server_pid) kernel_work_open(cfg.server_pid); /* likewise: one counter per thread */
	int warm = (int)lround(cfg.warmup * 50), frames = (int)lround(cfg.duration * 50);
	free(W.seen);
	memset(&W, 0, sizeof W);
	W.k = k, W.frames = frames;
	if (!(W.seen = calloc((size_t)k * ((frames + 7) / 8), 1))) die("out of memory");
	sent_in_window = send_errors = 0;
	fprintf(stderr, "loadgen: %s: %d %s, %.1f s warm-up, %.1f s window\n", cfg.name, k, unit(), warm / 50.0, frames / 50.0);

	int64_t t0 = mono() + 10 * MS, win_start = 0, win_end;
	double cpu0 = 0, own0 = 0, cpu1, own1;
	long long rcvbuf0 = -1;
	uint32_t ovfl0 = 0;
	long late = 0, slots = (long)(warm + frames) * SLOTS;
	for (long slot = 0; slot < slots && !stop; slot++) {
		int64_t deadline = t0 + slot * MS;
		wait_until(deadline);
		if (slot == (long)warm * SLOTS) { /* the window opens at a frame boundary */
			for (int i = 0; i < k; i++) S[i].win_first = S[i].seq;
			if (cfg.server_pid) kernel_work_begin();
			cpu0 = cfg.server_pid ? server_cpu_seconds() : 0, own0 = own_cpu_seconds(), rcvbuf0 = udp_rcvbuf_errors();
			ovfl0 = rx_ovfl[0] + rx_ovfl[1], W.on = 1, win_start = mono();
		}
		if (W.on && mono() - deadline > MS) late++;
		for (int i = slot % SLOTS; i < k; i += SLOTS)
			if (S[i].state == READY) queue_rtp(i, W.on);
		if (B.n) flush_batch(W.on);
	}
	wait_until(t0 + slots * MS);
	win_end = mono();
	cpu1 = cfg.server_pid ? server_cpu_seconds() : 0, own1 = own_cpu_seconds();
	struct kernel_work kw = { -1, -1, -1 };
	if (cfg.server_pid) kernel_work_end(&kw), kernel_work_close();
	for (int64_t end = win_end + 300 * MS; mono() < end && W.received < sent_in_window && !stop;)
		wait_until(mono() + MS < end ? mono() + MS : end); /* the last replies, 300 ms at most */
	drain_all();
	W.on = 0;

	uint32_t drops = rx_ovfl[0] + rx_ovfl[1] - ovfl0;
	long long rcvbuf1 = udp_rcvbuf_errors(), server_drops = rcvbuf0 < 0 || rcvbuf1 < 0 ? -1 : rcvbuf1 - rcvbuf0 - drops;
	double secs = (win_end - win_start) / 1e9, scpu = cpu1 - cpu0, late_pct = 100.0 * late / ((double)frames * SLOTS);
	int have_cpu = cfg.server_pid && cpu0 >= 0 && cpu1 >= 0;
	uint64_t sent = sent_in_window, got = W.received;
	r.loss = sent ? 100.0 * (double)(sent - (got < sent ? got : sent)) / sent : 100;
	r.pps = sent / secs;
	/* Loss the generator caused (its socket overflowed) or a schedule it did not keep is no
	 * verdict on the server. */
	r.generator_limited = late_pct > 5 || drops > 0;
	printf("{\"server\":\"%s\",", cfg.name);
	if (cfg.mode == CALLS) printf("\"calls\":%d,", k / 2);
	printf("\"sessions\":%d,\"sessions_ready\":%d,\"seconds\":%.3f,\"sent\":%llu,\"received\":%llu,"
	       "\"loss_percent\":%.4f,\"pps_in\":%.0f,\"pps_out\":%.0f,",
	       k, r.ready, secs, (unsigned long long)sent, (unsigned long long)got, r.loss, sent / secs, got / secs);
	if (have_cpu && scpu > 0)
		printf("\"server_cpu_seconds\":%.4f,\"server_cpu_percent\":%.1f,\"packets_per_cpu_second\":%.0f,",
		       scpu, 100 * scpu / secs, (sent + got) / scpu);
	else
		printf("\"server_cpu_seconds\":%s,\"server_cpu_percent\":null,\"packets_per_cpu_second\":null,", have_cpu ? "0" : "null");
	print_kernel_work(&kw, sent + got);
	printf("\"generator_cpu_percent\":%.1f,\"late_slots_percent\":%.2f,\"generator_rx_drops\":%u,\"generator_limited\":%s,"
	       "\"server_socket_drops\":%lld,\"send_errors\":%llu,\"stray\":%llu,",
	       100 * (own1 - own0) / secs, late_pct, drops, r.generator_limited ? "true" : "false", server_drops,
	       (unsigned long long)send_errors, (unsigned long long)W.stray);
	if (cfg.mode == CALLS)
		printf("\"auth_failures\":%llu,\"misrouted\":%llu,", (unsigned long long)W.auth_failures, (unsigned long long)W.misrouted);
	printf("\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f}\n", percentile(0.5), percentile(0.99), W.max_ns / 1e6);
	if (cfg.server_pid && (cpu0 < 0 || cpu1 < 0)) die("the server (pid %d) exited during the step", (int)cfg.server_pid);
	return r;
}

/* A late schedule is most often something else taking the generator's CPU for a while (a build):
 * measure again, twice at most, before blaming the generator. Every attempt is printed. */
static struct result measure(int k)
{
	struct result r = run_step(k);
	for (int again = 0; r.generator_limited && again < 2 && !stop; again++) {
		fprintf(stderr, "loadgen: the generator missed its schedule at %d %s; measuring again\n", k, unit());
		r = run_step(k);
	}
	return r;
}

/* ---- preparation ---- */

static int open_socket(uint32_t ip, int port, struct sockaddr_in *bound)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0), one = 1, size = 4 << 20, probe = IP_PMTUDISC_PROBE;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(ip) };
	socklen_t len = sizeof a;
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) || getsockname(s, (struct sockaddr *)bound, &len))
		die("cannot open a UDP socket on port %d: %s", port, strerror(errno));
	/* FORCE passes net.core.rmem_max when root; the plain option is the fallback. */
	if (setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size)) setsockopt(s, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
	if (setsockopt(s, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof size)) setsockopt(s, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
	if (setsockopt(s, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) || setsockopt(s, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one))
		die("cannot enable receive timestamps: %s", strerror(errno));
	/* DF set: the kernel skips the per-datagram IP ID generation, a few % of the send cost. */
	setsockopt(s, IPPROTO_IP, IP_MTU_DISCOVER, &probe, sizeof probe);
	return s;
}

int parse_addr(const char *text, struct sockaddr_in *a)
{
	char ip[64], rest;
	int port;
	if (sscanf(text, "%63[0-9.]:%d%c", ip, &port, &rest) != 2 || port < 1 || port > 65535) return -1;
	*a = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons(port) };
	return inet_pton(AF_INET, ip, &a->sin_addr) == 1 && (ntohl(a->sin_addr.s_addr) >> 24) == 127 ? 0 : -1;
}

/* Session i's own source address: 127.64.(i / 250).(1 + i % 250). */
struct in_addr session_address(int i)
{
	return (struct in_addr){ htonl(127u << 24 | 64u << 16 | (uint32_t)(i / 250) << 8 | (uint32_t)(1 + i % 250)) };
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Exactly 2n hex digits into n bytes; -1 for anything else. */
int unhex(const char *hex, uint8_t *out, size_t n)
{
	for (size_t j = 0; j < 2 * n; j++) {
		int d = hex_digit(hex[j]); /* the terminator is no digit: a short string stops here */
		if (d < 0) return -1;
		out[j / 2] = (uint8_t)(j % 2 ? out[j / 2] << 4 | d : d);
	}
	return hex[2 * n] ? -1 : 0;
}

/* A precomputed STUN Binding request (an ICE check) whose transaction id starts with index. */
const char *parse_check(const char *hex, int index, struct session *s)
{
	size_t n = strlen(hex) / 2;
	if (strlen(hex) % 2 || n < 20 || n > 1024 || !(s->check = malloc(n)) || unhex(hex, s->check, n)) return "bad STUN request hex";
	s->check_len = n;
	if (get16(s->check) != 0x0001 || get32(s->check + 4) != COOKIE || get16(s->check + 2) + 20 != n)
		return "not a STUN Binding request";
	return get32(s->check + 8) == (uint32_t)index ? NULL : "its transaction id does not start with the session index";
}

/* One line: EDGE_IP EDGE_PORT STUN_REQUEST_HEX. Returns what is wrong with it, or NULL. */
const char *parse_session_line(const char *line, int index, struct session *s)
{
	char ip[64], port[8], hex[4096], addr[80];
	if (sscanf(line, "%63s %7s %4095s", ip, port, hex) != 3) return "expected EDGE_IP EDGE_PORT STUN_REQUEST_HEX";
	snprintf(addr, sizeof addr, "%s:%s", ip, port);
	if (parse_addr(addr, &s->dst)) return "bad edge address (loopback 127.0.0.0/8 only)";
	return parse_check(hex, index, s);
}

static void load_sessions_file(void)
{
	FILE *f = fopen(cfg.sessions_file, "r");
	if (!f) die("cannot open the sessions file %s: %s", cfg.sessions_file, strerror(errno));
	char *line = NULL;
	size_t cap = 0;
	if (!(S = calloc(MAX_SESSIONS, sizeof *S))) die("out of memory");
	for (int number = 1; getline(&line, &cap, f) > 0; number++) {
		if (line[strspn(line, " \t\r\n")] == 0) continue;
		if (nsess == MAX_SESSIONS) die("the sessions file has more than %d sessions", MAX_SESSIONS);
		const char *why = parse_session_line(line, nsess, &S[nsess]);
		if (why) die("%s line %d: %s", cfg.sessions_file, number, why);
		nsess++;
	}
	free(line);
	fclose(f);
	if (!nsess) die("the sessions file %s is empty", cfg.sessions_file);
}

static int parse_cpus(const char *text, cpu_set_t *set)
{
	CPU_ZERO(set);
	for (char *end; *text; text = *end ? end + 1 : end) {
		long a = strtol(text, &end, 10), b = a;
		if (end == text || a < 0 || a >= CPU_SETSIZE) return -1;
		if (*end == '-' && ((b = strtol(end + 1, &end, 10)) < a || b >= CPU_SETSIZE)) return -1;
		if (*end && *end != ',') return -1;
		for (long c = a; c <= b; c++) CPU_SET(c, set);
	}
	return CPU_COUNT(set) ? 0 : -1;
}

static void need(int ok, const char *why) { if (!ok) usage(why); }

static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", 1, 0, 'm' }, { "target", 1, 0, 't' }, { "sessions-file", 1, 0, 'f' }, { "sessions", 1, 0, 's' },
		{ "duration", 1, 0, 'd' }, { "warmup", 1, 0, 'w' }, { "find-max", 0, 0, 'F' }, { "max-sessions", 1, 0, 'M' },
		{ "cpu", 1, 0, 'c' }, { "server-pid", 1, 0, 'p' }, { "server-cpus", 1, 0, 'C' }, { "port", 1, 0, 'P' },
		{ "setup-rate", 1, 0, 'r' }, { "name", 1, 0, 'n' }, { "self-test", 0, 0, 'T' }, { "help", 0, 0, 'h' },
		{ "calls-file", 1, 0, 'L' }, { "calls", 1, 0, 'k' }, { "max-calls", 1, 0, 'X' }, { 0 } };
	const char *mode = NULL;
	char *end;
	int sessions = 0, calls = 0, max_sessions = 0, max_calls = 0; /* which of them were given */
	for (int o; (o = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
		long v = 0;
		double x = 0;
		if (optarg && strchr("McpPrX", o)) need((v = strtol(optarg, &end, 10)) >= 0 && !*end && end > optarg, "a whole number was expected");
		if (optarg && strchr("dw", o)) need((x = strtod(optarg, &end), !*end && end > optarg), "a number of seconds was expected");
		switch (o) {
		case 'm': mode = optarg; break;
		case 't': need(!parse_addr(optarg, &cfg.target), "--target must be IP:PORT in 127.0.0.0/8"), cfg.have_target = 1; break;
		case 'f': cfg.sessions_file = optarg; break;
		case 's':
		case 'k': /* calls: the steps are kept in legs, two per call */
			for (char *p = optarg; *p; p = *end ? end + 1 : end) {
				long n = strtol(p, &end, 10), per = o == 'k' ? 2 : 1;
				need(end > p && n >= 1 && n * per <= MAX_SESSIONS && (!*end || *end == ',') && cfg.nsteps < 64,
				     o == 'k' ? "--calls takes up to 64 counts from 1 to 8000, comma-separated"
					      : "--sessions takes up to 64 counts from 1 to 16000, comma-separated");
				cfg.steps[cfg.nsteps++] = (int)(n * per);
			}
			sessions |= o == 's', calls |= o == 'k';
			break;
		case 'd': need(x >= 0.1 && x <= 3600, "--duration must be 0.1 to 3600 s"), cfg.duration = x; break;
		case 'w': need(x >= 0 && x <= 60, "--warmup must be 0 to 60 s"), cfg.warmup = x; break;
		case 'F': cfg.find_max = 1; break;
		case 'M': need(v >= 1 && v <= MAX_SESSIONS, "--max-sessions must be 1 to 16000"), cfg.max_sessions = v, max_sessions = 1; break;
		case 'X': need(v >= 1 && v <= MAX_SESSIONS / 2, "--max-calls must be 1 to 8000"), cfg.max_sessions = 2 * v, max_calls = 1; break;
		case 'L': cfg.calls_file = optarg; break;
		case 'c': need(v < CPU_SETSIZE, "--cpu: no such CPU"), cfg.cpu = v; break;
		case 'p': need(v >= 1, "--server-pid must be a process id"), cfg.server_pid = v; break;
		case 'C': need(!parse_cpus(optarg, &cfg.server_cpus), "--server-cpus must be a CPU list like 0 or 0-1,3");
			cfg.have_server_cpus = 1; break;
		case 'P': need(v <= 65535, "--port must be 0 to 65535"), cfg.port = v; break;
		case 'r': need(v >= 1, "--setup-rate must be positive"), cfg.setup_rate = v; break;
		case 'n': cfg.name = optarg; break;
		case 'T': exit(self_test());
		case 'h': usage(NULL); break;
		default: usage(NULL);
		}
	}
	need(optind == argc, "unexpected argument"), need(mode != NULL, "--mode is required");
	cfg.mode = !strcmp(mode, "echo") ? ECHO : !strcmp(mode, "turn") ? TURN : !strcmp(mode, "edge") ? EDGE
		 : !strcmp(mode, "calls") ? CALLS : (usage("--mode must be echo, turn, edge or calls"), ECHO);
	need(cfg.mode != EDGE || cfg.sessions_file, "--mode edge needs --sessions-file");
	need(cfg.mode != CALLS || cfg.calls_file, "--mode calls needs --calls-file");
	need(cfg.mode == CALLS || !(cfg.calls_file || calls || max_calls), "--calls-file, --calls and --max-calls need --mode calls");
	need(cfg.mode != CALLS || !sessions, "--mode calls counts calls: --calls N, not --sessions");
	need(cfg.mode != CALLS || !max_sessions, "--mode calls caps its search with --max-calls, not --max-sessions");
	need(cfg.mode == EDGE || cfg.mode == CALLS || cfg.have_target, "--target IP:PORT is required");
	need(!cfg.have_server_cpus || cfg.server_pid, "--server-cpus needs --server-pid");
	if (!cfg.name) cfg.name = mode;
	if (!cfg.nsteps && !cfg.find_max) cfg.steps[cfg.nsteps++] = 1000, default_steps = 1; /* calls: 500 calls */
}

static void on_signal(int sig) { (void)sig; stop = 1; }

int main(int argc, char **argv)
{
	parse_args(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	srand((unsigned)(mono() ^ getpid()));
	if (cfg.mode == EDGE) {
		load_sessions_file();
		cfg.max_sessions = cfg.max_sessions < nsess ? cfg.max_sessions : nsess;
		for (int j = 0; j < cfg.nsteps; j++)
			if (cfg.steps[j] > nsess) die("a step needs %d sessions; the sessions file has %d", cfg.steps[j], nsess);
	} else if (cfg.mode == CALLS) {
		load_calls_file();
		cfg.max_sessions = cfg.max_sessions < nsess ? cfg.max_sessions : nsess;
		if (default_steps && cfg.steps[0] > nsess) cfg.steps[0] = nsess; /* a small file: all its calls */
		for (int j = 0; j < cfg.nsteps; j++)
			if (cfg.steps[j] > nsess) die("a step needs %d calls; the calls file has %d", cfg.steps[j] / 2, nsess / 2);
	} else {
		nsess = cfg.find_max ? cfg.max_sessions : 0;
		for (int j = 0; j < cfg.nsteps; j++) nsess = cfg.steps[j] > nsess ? cfg.steps[j] : nsess;
		if (!(S = calloc(nsess, sizeof *S))) die("out of memory");
	}
	for (int i = 0; i < nsess; i++) {
		struct session *s = &S[i];
		s->src = session_address(i); /* 127.64.x.y */
		s->dst = cfg.mode == EDGE || cfg.mode == CALLS ? s->dst : cfg.target;
		s->ssrc = (uint32_t)rand(), s->ts0 = (uint32_t)rand(), s->seq0 = (uint16_t)rand();
		s->state = cfg.mode == ECHO || (cfg.mode == CALLS && !s->check) ? READY : 0; /* calls: a leg without a check */
	}
	for (int j = 0; j < SEND_BATCH; j++) memset(B.buf[j] + 4 + 32, 0xff, RTP_LEN - 32); /* filler: PCMU silence */

	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cfg.cpu, &one);
	if (cfg.cpu >= 0 && sched_setaffinity(0, sizeof one, &one)) die("cannot pin to CPU %d: %s", cfg.cpu, strerror(errno));
	if (cfg.server_pid && server_cpu_seconds() < 0) die("no process %d to measure (--server-pid)", (int)cfg.server_pid);
	prctl(PR_SET_TIMERSLACK, 1UL); /* wake for the slot on time, not up to 50 µs late */
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL), sigaction(SIGTERM, &sa, NULL);
	struct sockaddr_in bound;
	fd = open_socket(INADDR_ANY, cfg.port, &bound);
	if (cfg.mode == TURN) peer_fd = open_socket(INADDR_LOOPBACK, 0, &peer_addr);
	/* Calls: all legs share the socket, so a datagram's leg is the address it was sent to. */
	int on = 1;
	if (cfg.mode == CALLS && setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof on)) die("cannot enable IP_PKTINFO: %s", strerror(errno));
	fprintf(stderr, "loadgen: %s, %d %s prepared, local port %d\n", cfg.name, nsess, unit(), ntohs(bound.sin_port));
	if (cfg.mode == TURN) fprintf(stderr, "loadgen: relayed packets come to 127.0.0.1:%d\n", ntohs(peer_addr.sin_port));

	/* A step is clean when every session was set up and it lost at most 0.1 %. */
	int clean = 0, dirty = MAX_SESSIONS + 1;
	double clean_pps = 0;
	const char *stopped_by = "max_sessions";
	for (int j = 0; j < cfg.nsteps && !stop; j++) {
		struct result r = measure(cfg.steps[j]);
		int ok = r.ready == r.k && r.loss <= 0.1;
		if (ok && !r.generator_limited && r.k > clean) clean = r.k, clean_pps = r.pps;
		if (!ok && (r.ready < r.k || !r.generator_limited) && r.k < dirty) dirty = r.k; /* a verdict on the server */
	}
	/* The search: up by 500 from the highest clean count until a step loses, then bisect to 100
	 * (calls mode: legs, so 250 calls up and 50 calls apart; every count stays even). */
	while (cfg.find_max && !stop) {
		int k = dirty > cfg.max_sessions ? clean + 500 : clean + (dirty - clean) / 200 * 100;
		k = k < cfg.max_sessions ? k : cfg.max_sessions;
		if (dirty <= cfg.max_sessions && dirty - clean <= 100) { stopped_by = "loss"; break; }
		if (k <= clean) break;
		struct result r = measure(k);
		if (stop) break;
		if (r.generator_limited) {
			fprintf(stderr, "loadgen: the generator could not keep up at %d %s; search stopped\n", k, unit());
			stopped_by = "generator";
			break;
		}
		if (r.ready == r.k && r.loss <= 0.1) clean = k, clean_pps = r.pps;
		else dirty = k;
	}
	if (stop) die("interrupted");
	if (cfg.find_max && cfg.mode == CALLS)
		printf("{\"server\":\"%s\",\"highest_clean_calls\":%d,\"highest_clean_sessions\":%d,\"highest_clean_pps\":%.0f,"
		       "\"stopped_by\":\"%s\"}\n", cfg.name, clean / 2, clean, clean_pps, stopped_by);
	else if (cfg.find_max)
		printf("{\"server\":\"%s\",\"highest_clean_sessions\":%d,\"highest_clean_pps\":%.0f,\"stopped_by\":\"%s\"}\n",
		       cfg.name, clean, clean_pps, stopped_by);
	return 0;
}
