/* kernel_work: what the server asks of the kernel over a measurement window (see README.md).
 *
 * System calls: one perf counter on the raw_syscalls:sys_enter tracepoint per server thread
 * (inherited by threads those start later). Wake-ups: voluntary context switches (a thread that
 * blocks and is woken again), and involuntary ones apart, from /proc/PID/task/TID/status. */
#ifndef KERNEL_WORK_H
#define KERNEL_WORK_H

#include <sys/types.h>

struct kernel_work {
	long long syscalls;    /* -1: not measured (no tracefs, no permission: said once on stderr) */
	long long wakeups;     /* voluntary context switches; -1: not measured */
	long long involuntary; /* nonvoluntary context switches; -1: not measured */
};

/* At a step's start, after the server's threads were pinned: opens the counters. */
void kernel_work_open(pid_t server);
/* Exactly at the window's start and end. */
void kernel_work_begin(void);
void kernel_work_end(struct kernel_work *out);
/* After the step. */
void kernel_work_close(void);

#endif
