/* kernel_work: the server's system calls and wake-ups over a window; see kernel_work.h. */
#define _GNU_SOURCE
#include "kernel_work.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_THREADS 1024

static pid_t server;
static int fds[MAX_THREADS], nfd, warned;
static uint64_t syscalls0;
static int syscalls_ok; /* the counters are open and were read at the window's start */
static struct { pid_t tid; long long vol, invol; } before[MAX_THREADS];
static int nbefore, switches_ok;

/* Why a figure is missing, once per run: the same reason would repeat at every step. */
static void say_once(const char *fmt, ...)
{
	if (warned++) return;
	va_list a;
	va_start(a, fmt);
	fprintf(stderr, "loadgen: server_syscalls is null: "), vfprintf(stderr, fmt, a), fprintf(stderr, "\n");
	va_end(a);
}

static long tracepoint_id(void)
{
	static const char *paths[] = { "/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",
				       "/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id" };
	int err = ENOENT; /* the more telling reason: "permission denied" over "no such file" */
	for (int j = 0; j < 2; j++) {
		char buf[32] = { 0 };
		int f = open(paths[j], O_RDONLY | O_CLOEXEC);
		if (f < 0 && errno != ENOENT) err = errno;
		if (f < 0) continue;
		ssize_t n = read(f, buf, sizeof buf - 1);
		close(f);
		char *end;
		long id = n > 0 ? strtol(buf, &end, 10) : -1;
		if (n > 0 && end > buf && id >= 0) return id;
	}
	say_once("no raw_syscalls/sys_enter id under /sys/kernel/tracing or /sys/kernel/debug/tracing (%s)", strerror(err));
	return -1;
}

/* The server's thread ids, at most max; -1 when the server is gone. */
static int list_threads(pid_t *tids, int max)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)server);
	DIR *d = opendir(path);
	if (!d) return -1;
	int n = 0;
	for (struct dirent *e; n < max && (e = readdir(d));)
		if (e->d_name[0] != '.') tids[n++] = atoi(e->d_name);
	closedir(d);
	return n;
}

static void close_counters(void)
{
	while (nfd) close(fds[--nfd]);
	syscalls_ok = 0;
}

void kernel_work_open(pid_t pid)
{
	pid_t tids[MAX_THREADS];
	server = pid, nfd = 0, syscalls_ok = switches_ok = 0;
	long id = tracepoint_id();
	int n = id < 0 ? 0 : list_threads(tids, MAX_THREADS);
	for (int j = 0; j < n; j++) {
		/* One counter per thread (a process-wide one needs a counter per CPU instead); inherit:
		 * a thread this one starts later counts into it, so lazily started threads are not missed. */
		struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof a, .config = (uint64_t)id, .inherit = 1 };
		int fd = (int)syscall(SYS_perf_event_open, &a, tids[j], -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0) { fds[nfd++] = fd; continue; }
		if (errno == ESRCH) continue; /* the thread ended meanwhile */
		say_once("perf_event_open(raw_syscalls:sys_enter) for thread %d: %s", (int)tids[j], strerror(errno));
		close_counters();
		return;
	}
}

static int read_counters(uint64_t *sum)
{
	*sum = 0;
	for (int j = 0; j < nfd; j++) {
		uint64_t v;
		if (read(fds[j], &v, sizeof v) != sizeof v) return -1;
		*sum += v;
	}
	return nfd ? 0 : -1;
}

/* A thread's voluntary and nonvoluntary context switches (its own, not its process's). */
static int read_switches(pid_t tid, long long *vol, long long *invol)
{
	char path[64], buf[8192];
	snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)server, (int)tid);
	int f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0) return -1;
	ssize_t n = read(f, buf, sizeof buf - 1);
	close(f);
	if (n <= 0) return -1;
	buf[n] = 0;
	/* The newline keeps "voluntary" from matching inside "nonvoluntary". */
	char *v = strstr(buf, "\nvoluntary_ctxt_switches:"), *nv = strstr(buf, "\nnonvoluntary_ctxt_switches:");
	if (!v || !nv) return -1;
	*vol = strtoll(v + strlen("\nvoluntary_ctxt_switches:"), NULL, 10);
	*invol = strtoll(nv + strlen("\nnonvoluntary_ctxt_switches:"), NULL, 10);
	return 0;
}

void kernel_work_begin(void)
{
	pid_t tids[MAX_THREADS];
	syscalls_ok = nfd && read_counters(&syscalls0) == 0;
	int n = list_threads(tids, MAX_THREADS);
	nbefore = 0;
	for (int j = 0; j < n; j++)
		if (read_switches(tids[j], &before[nbefore].vol, &before[nbefore].invol) == 0) before[nbefore++].tid = tids[j];
	switches_ok = nbefore > 0;
}

void kernel_work_end(struct kernel_work *out)
{
	pid_t tids[MAX_THREADS];
	uint64_t syscalls1;
	*out = (struct kernel_work){ -1, -1, -1 };
	if (syscalls_ok && read_counters(&syscalls1) == 0) out->syscalls = (long long)(syscalls1 - syscalls0);
	int n = switches_ok ? list_threads(tids, MAX_THREADS) : -1;
	if (n <= 0) return;
	/* Per thread: a thread started in the window counts from zero; one that ended in it is lost
	 * (its counts left with it), which a server that keeps its threads never does. */
	long long vol = 0, invol = 0;
	for (int j = 0; j < n; j++) {
		long long v, nv;
		if (read_switches(tids[j], &v, &nv)) continue;
		for (int b = 0; b < nbefore; b++)
			if (before[b].tid == tids[j]) { v -= before[b].vol, nv -= before[b].invol; break; }
		vol += v, invol += nv;
	}
	out->wakeups = vol, out->involuntary = invol;
}

void kernel_work_close(void)
{
	close_counters();
	switches_ok = 0;
}
