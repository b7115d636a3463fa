// A small shim over the V4L2 ioctls (linux/videodev2.h), whose request macros Swift cannot
// call. Every function returns 0 (or a count) on success and -errno on failure; on platforms
// without V4L2 every function returns -ENOSYS.
#ifndef PREFLIGHT_V4L2_H
#define PREFLIGHT_V4L2_H

#include <stddef.h>
#include <stdint.h>

/// Opens a device node non-blocking; returns the descriptor or -errno.
int preflight_v4l2_open(const char *path);
void preflight_v4l2_close(int fd);

/// VIDIOC_QUERYCAP: the card's name and bus, and whether it captures video by streaming I/O
/// (`*is_camera` is 1 when it has V4L2_CAP_VIDEO_CAPTURE and V4L2_CAP_STREAMING).
int preflight_v4l2_query(int fd, char *card, size_t card_size, char *bus, size_t bus_size, int *is_camera);

/// VIDIOC_ENUM_FMT for video capture: the pixel format at `index`; -EINVAL past the last.
int preflight_v4l2_enum_format(int fd, uint32_t index, uint32_t *pixel_format);

/// VIDIOC_ENUM_FRAMESIZES: the discrete size at `index` (a stepwise range reports its largest
/// size at index 0); -EINVAL past the last.
int preflight_v4l2_enum_size(int fd, uint32_t pixel_format, uint32_t index, uint32_t *width, uint32_t *height);

/// VIDIOC_S_FMT: asks for a format; the driver's answer is written back.
int preflight_v4l2_set_format(int fd, uint32_t *width, uint32_t *height, uint32_t *pixel_format,
                              uint32_t *bytes_per_line, uint32_t *image_size);

/// VIDIOC_S_PARM: asks for a frame rate (the driver may choose another).
int preflight_v4l2_set_frame_rate(int fd, uint32_t frames_per_second);

/// VIDIOC_REQBUFS with memory-mapped buffers; returns the number granted (0 frees them).
int preflight_v4l2_request_buffers(int fd, uint32_t count);

/// VIDIOC_QUERYBUF and mmap of buffer `index`.
int preflight_v4l2_map_buffer(int fd, uint32_t index, void **start, uint32_t *length);
void preflight_v4l2_unmap_buffer(void *start, uint32_t length);

/// VIDIOC_QBUF of buffer `index`.
int preflight_v4l2_queue(int fd, uint32_t index);

/// VIDIOC_STREAMON (on != 0) or VIDIOC_STREAMOFF.
int preflight_v4l2_stream(int fd, int on);

/// Waits at most `timeout_ms` for a filled buffer (poll), then VIDIOC_DQBUF. -EAGAIN on a timeout.
int preflight_v4l2_dequeue(int fd, int timeout_ms, uint32_t *index, uint32_t *bytes_used, uint64_t *timestamp_us,
                           uint32_t *sequence);

#endif
