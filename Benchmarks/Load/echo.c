/* echo: the practical ceiling of a UDP echo server for the Preflight load benchmark.
 *
 *   echo IP PORT     one thread, one socket; PORT 0 picks a free port
 *
 * Prints "listening IP PORT" once bound, then nothing; returns every datagram to its source
 * unchanged; exits 0 on SIGTERM or SIGINT. Loopback addresses only (the benchmark's rule). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BATCH 64
#define BUF 2048

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	char *end;
	long port = argc == 3 ? strtol(argv[2], &end, 10) : -1;
	if (argc != 3 || *end || port < 0 || port > 65535 || inet_pton(AF_INET, argv[1], &a.sin_addr) != 1) {
		fprintf(stderr, "usage: echo IP PORT   (PORT 0: any free port)\n");
		return 2;
	}
	if ((ntohl(a.sin_addr.s_addr) >> 24) != 127) {
		fprintf(stderr, "echo: %s is not a loopback address (127.0.0.0/8)\n", argv[1]);
		return 2;
	}
	a.sin_port = htons(port);

	/* No SA_RESTART: the blocking recvmmsg must return EINTR so that a signal ends the loop. */
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	int fd = socket(AF_INET, SOCK_DGRAM, 0), size = 4 << 20;
	socklen_t len = sizeof a;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || getsockname(fd, (struct sockaddr *)&a, &len)) {
		fprintf(stderr, "echo: cannot bind %s:%ld: %s\n", argv[1], port, strerror(errno));
		return 1;
	}
	/* Same buffers as the generator asks for: 4 MB, past net.core.rmem_max when root. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size)) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof size)) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
	char ip[INET_ADDRSTRLEN];
	printf("listening %s %d\n", inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip), ntohs(a.sin_port));
	fflush(stdout);

	static char buf[BATCH][BUF];
	static struct sockaddr_in from[BATCH];
	static struct iovec iov[BATCH];
	static struct mmsghdr msg[BATCH];
	while (!stop) {
		for (int j = 0; j < BATCH; j++) {
			iov[j] = (struct iovec){ buf[j], BUF };
			msg[j].msg_hdr = (struct msghdr){ .msg_name = &from[j], .msg_namelen = sizeof from[j], .msg_iov = &iov[j], .msg_iovlen = 1 };
		}
		/* Sleep until one datagram is there, then take whatever else is queued with it. */
		int n = recvmmsg(fd, msg, BATCH, MSG_WAITFORONE, NULL);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN) continue;
			perror("echo: recvmmsg");
			return 1;
		}
		/* The same headers go back out: the source becomes the destination, the length the size. */
		for (int j = 0; j < n; j++) iov[j].iov_len = msg[j].msg_len;
		for (int done = 0; done < n && !stop;) {
			int r = sendmmsg(fd, msg + done, n - done, 0);
			if (r < 0 && errno == EINTR) continue;
			done += r < 0 ? 1 : r; /* a refused datagram (its source gone) is skipped, not retried */
		}
	}
	return 0;
}
