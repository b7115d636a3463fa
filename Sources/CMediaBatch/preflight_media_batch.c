#define _GNU_SOURCE
#include "preflight_media_batch.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

int preflight_media_dont_fragment_option(int family, int *level, int *name, int *value)
{
	if (family == AF_INET6) {
#if defined(__linux__)
		*level = IPPROTO_IPV6, *name = IPV6_MTU_DISCOVER, *value = IPV6_PMTUDISC_PROBE;
		return 0;
#elif defined(IPV6_DONTFRAG)
		*level = IPPROTO_IPV6, *name = IPV6_DONTFRAG, *value = 1;
		return 0;
#endif
	} else {
#if defined(__linux__)
		*level = IPPROTO_IP, *name = IP_MTU_DISCOVER, *value = IP_PMTUDISC_PROBE;
		return 0;
#elif defined(IP_DONTFRAG)
		*level = IPPROTO_IP, *name = IP_DONTFRAG, *value = 1;
		return 0;
#endif
	}
	return -ENOSYS;
}

int preflight_media_socket_set_dont_fragment(int fd, int family)
{
	int level, name, value;
	if (preflight_media_dont_fragment_option(family, &level, &name, &value) != 0) return 0;
	return setsockopt(fd, level, name, &value, sizeof value) == 0 ? 0 : -errno;
}

#if defined(__linux__)

struct preflight_media_batch {
	unsigned capacity;
	struct mmsghdr *in;
	struct iovec *in_vectors;
	struct sockaddr_storage *in_addresses;
	struct mmsghdr *out;
	struct iovec *out_vectors;
	struct sockaddr_storage *out_addresses;
};

preflight_media_batch *preflight_media_batch_create(unsigned capacity)
{
	if (capacity == 0 || capacity > 1024) return NULL;
	preflight_media_batch *batch = calloc(1, sizeof *batch);
	if (batch == NULL) return NULL;
	batch->capacity = capacity;
	batch->in = calloc(capacity, sizeof *batch->in);
	batch->in_vectors = calloc(capacity, sizeof *batch->in_vectors);
	batch->in_addresses = calloc(capacity, sizeof *batch->in_addresses);
	batch->out = calloc(capacity, sizeof *batch->out);
	batch->out_vectors = calloc(capacity, sizeof *batch->out_vectors);
	batch->out_addresses = calloc(capacity, sizeof *batch->out_addresses);
	if (!batch->in || !batch->in_vectors || !batch->in_addresses || !batch->out || !batch->out_vectors || !batch->out_addresses) {
		preflight_media_batch_destroy(batch);
		return NULL;
	}
	return batch;
}

void preflight_media_batch_destroy(preflight_media_batch *batch)
{
	if (batch == NULL) return;
	free(batch->in);
	free(batch->in_vectors);
	free(batch->in_addresses);
	free(batch->out);
	free(batch->out_vectors);
	free(batch->out_addresses);
	free(batch);
}

int preflight_media_batch_receive(preflight_media_batch *batch, int fd, void *buffer, size_t slot)
{
	for (unsigned i = 0; i < batch->capacity; i++) {
		batch->in_vectors[i] = (struct iovec){ (char *)buffer + (size_t)i * slot, slot };
		batch->in[i].msg_hdr = (struct msghdr){
			.msg_name = &batch->in_addresses[i], .msg_namelen = sizeof batch->in_addresses[i],
			.msg_iov = &batch->in_vectors[i], .msg_iovlen = 1,
		};
		batch->in[i].msg_len = 0;
	}
	int count = recvmmsg(fd, batch->in, batch->capacity, MSG_WAITFORONE, NULL);
	return count < 0 ? -errno : count;
}

size_t preflight_media_batch_length(const preflight_media_batch *batch, unsigned index)
{
	if (index >= batch->capacity) return 0;
	size_t length = batch->in[index].msg_len, slot = batch->in_vectors[index].iov_len;
	return length < slot ? length : slot;
}

int preflight_media_batch_truncated(const preflight_media_batch *batch, unsigned index)
{
	return index < batch->capacity && (batch->in[index].msg_hdr.msg_flags & MSG_TRUNC) != 0;
}

const struct sockaddr *preflight_media_batch_source(const preflight_media_batch *batch, unsigned index, socklen_t *length)
{
	if (index >= batch->capacity) {
		*length = 0;
		return NULL;
	}
	*length = batch->in[index].msg_hdr.msg_namelen;
	return (const struct sockaddr *)&batch->in_addresses[index];
}

int preflight_media_batch_set_reply(preflight_media_batch *batch, unsigned index, const void *bytes, size_t length,
                                    const struct sockaddr *address, socklen_t address_length)
{
	if (index >= batch->capacity || address_length > sizeof batch->out_addresses[index]) return -EINVAL;
	memcpy(&batch->out_addresses[index], address, address_length);
	batch->out_vectors[index] = (struct iovec){ (void *)bytes, length };
	batch->out[index].msg_hdr = (struct msghdr){
		.msg_name = &batch->out_addresses[index], .msg_namelen = address_length,
		.msg_iov = &batch->out_vectors[index], .msg_iovlen = 1,
	};
	batch->out[index].msg_len = 0;
	return 0;
}

unsigned preflight_media_batch_send(preflight_media_batch *batch, int fd, unsigned count)
{
	unsigned done = 0, sent = 0;
	if (count > batch->capacity) count = batch->capacity;
	while (done < count) {
		int r = sendmmsg(fd, batch->out + done, count - done, 0);
		if (r < 0 && errno == EINTR) continue;
		/* The send timeout passed (a full socket buffer): the rest of the batch is dropped, so
		 * that the thread waits at most one timeout a batch and reads on. */
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
		if (r <= 0) {
			done += 1; /* the first datagram was refused: skip it */
			continue;
		}
		done += (unsigned)r;
		sent += (unsigned)r;
	}
	return sent;
}

int preflight_media_socket_set_send_timeout(int fd, long microseconds)
{
	struct timeval timeout = { .tv_sec = microseconds / 1000000, .tv_usec = microseconds % 1000000 };
	return setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout) == 0 ? 0 : -errno;
}

long long preflight_media_clock_nanoseconds(void)
{
	struct timespec now;
	if (clock_gettime(CLOCK_BOOTTIME, &now) != 0) return -1;
	return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

#else

int preflight_media_socket_set_send_timeout(int fd, long microseconds)
{
	(void)fd, (void)microseconds;
	return -ENOSYS;
}

long long preflight_media_clock_nanoseconds(void) { return -1; }

preflight_media_batch *preflight_media_batch_create(unsigned capacity)
{
	(void)capacity;
	errno = ENOSYS;
	return NULL;
}

void preflight_media_batch_destroy(preflight_media_batch *batch) { (void)batch; }

int preflight_media_batch_receive(preflight_media_batch *batch, int fd, void *buffer, size_t slot)
{
	(void)batch, (void)fd, (void)buffer, (void)slot;
	return -ENOSYS;
}

size_t preflight_media_batch_length(const preflight_media_batch *batch, unsigned index)
{
	(void)batch, (void)index;
	return 0;
}

int preflight_media_batch_truncated(const preflight_media_batch *batch, unsigned index)
{
	(void)batch, (void)index;
	return 0;
}

const struct sockaddr *preflight_media_batch_source(const preflight_media_batch *batch, unsigned index, socklen_t *length)
{
	(void)batch, (void)index;
	*length = 0;
	return NULL;
}

int preflight_media_batch_set_reply(preflight_media_batch *batch, unsigned index, const void *bytes, size_t length,
                                    const struct sockaddr *address, socklen_t address_length)
{
	(void)batch, (void)index, (void)bytes, (void)length, (void)address, (void)address_length;
	return -ENOSYS;
}

unsigned preflight_media_batch_send(preflight_media_batch *batch, int fd, unsigned count)
{
	(void)batch, (void)fd, (void)count;
	return 0;
}

#endif
