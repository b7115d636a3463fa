// Batched UDP I/O for the edge's media threads: recvmmsg(2) and sendmmsg(2), which Swift's Glibc
// module does not expose (they need _GNU_SOURCE), with the socket option and clock they use. A
// batch holds its own message headers, vectors and addresses, allocated once. On platforms
// without them every call fails with ENOSYS.
#ifndef PREFLIGHT_MEDIA_BATCH_H
#define PREFLIGHT_MEDIA_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

typedef struct preflight_media_batch preflight_media_batch;

/// A batch of `capacity` datagrams (1–1024); NULL when out of memory or out of range.
preflight_media_batch *preflight_media_batch_create(unsigned capacity);
void preflight_media_batch_destroy(preflight_media_batch *batch);

/// Waits for one datagram, then takes whatever else is queued, up to the batch's capacity
/// (`MSG_WAITFORONE`): datagram `i` goes to `buffer + i * slot`, at most `slot` bytes (a longer
/// one is cut). Returns the count, or -errno. Once the socket is shut down for reading, every call returns
/// at once (with one empty datagram).
int preflight_media_batch_receive(preflight_media_batch *batch, int fd, void *buffer, size_t slot);

/// Datagram `index` of the last receive: its length (cut to the slot), whether it was cut, and
/// its source (`*length` is the address's length).
size_t preflight_media_batch_length(const preflight_media_batch *batch, unsigned index);
int preflight_media_batch_truncated(const preflight_media_batch *batch, unsigned index);
const struct sockaddr *preflight_media_batch_source(const preflight_media_batch *batch, unsigned index, socklen_t *length);

/// Sets reply `index` of the next send: `length` bytes at `bytes` to `address`. Returns 0, or
/// -EINVAL for an index past the capacity or an address longer than a sockaddr_storage.
int preflight_media_batch_set_reply(preflight_media_batch *batch, unsigned index, const void *bytes, size_t length,
                                    const struct sockaddr *address, socklen_t address_length);

/// Sends replies 0..<count with as few sendmmsg calls as the socket allows; a datagram the
/// kernel refuses (its route gone) is skipped, not retried, and once the send timeout passes
/// (a full socket buffer) the rest are dropped. Returns how many were sent.
unsigned preflight_media_batch_send(preflight_media_batch *batch, int fd, unsigned count);

/// SO_SNDTIMEO: how long a blocking send waits for room in the socket's buffer. 0 or -errno.
int preflight_media_socket_set_send_timeout(int fd, long microseconds);

/// Sets the don't-fragment bit on every datagram the socket sends (IPv4's DF; IPv6 routers never
/// fragment) and keeps the kernel from fragmenting them itself, without trusting ICMP for the
/// path's MTU: Linux's IP_PMTUDISC_PROBE (and IPV6_PMTUDISC_PROBE for an IPv6 socket), Apple's
/// IP_DONTFRAG / IPV6_DONTFRAG. A datagram longer than the interface's MTU then fails to send
/// instead of leaving in fragments. `family` is the socket's (AF_INET or AF_INET6). 0 or -errno.
/// Why the media sockets set it: RTP, RTCP, STUN and probe packets are sized to fit a path's MTU
/// (browsers' WebRTC sockets set DF as well), a fragmented datagram is lost whole when any
/// fragment is, and Linux gives every datagram it may still fragment (the default, DF or not) a
/// fresh IP ID from a shared, hashed generator, where an unfragmentable one leaves with ID 0
/// (RFC 6864): the generator was a twentieth of the edge's CPU per echoed packet (docs/lab.md).
int preflight_media_socket_set_dont_fragment(int fd, int family);

/// The socket option ``preflight_media_socket_set_dont_fragment`` sets for `family`, for a socket
/// opened by another library: 0 and its level, name and value, or -ENOSYS where there is none.
int preflight_media_dont_fragment_option(int family, int *level, int *name, int *value);

/// Nanoseconds on CLOCK_BOOTTIME (the clock Swift's ContinuousClock reads on Linux); -1 elsewhere.
long long preflight_media_clock_nanoseconds(void);

/// Asks the CPU to bring the cache lines holding `bytes` bytes from `address` into its cache,
/// for writing: a hint that never faults, so that a batch's session state loads in parallel
/// before it is used. Every line the range touches, from the one `address` is in.
static inline void preflight_media_prefetch(const void *address, size_t bytes)
{
	const char *line = (const char *)((uintptr_t)address & ~(uintptr_t)63), *end = (const char *)address + bytes;
	for (; line < end; line += 64) __builtin_prefetch(line, 1, 3);
}

#endif
