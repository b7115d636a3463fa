#include "preflight_v4l2.h"

#include <errno.h>

#ifdef __linux__
#include <fcntl.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

// ioctl, retried when a signal interrupts it.
static int xioctl(int fd, unsigned long request, void *argument) {
    int result;
    do {
        result = ioctl(fd, request, argument);
    } while (result == -1 && errno == EINTR);
    return result == -1 ? -errno : result;
}

static void copy_text(char *destination, size_t size, const unsigned char *source, size_t source_size) {
    if (size == 0) return;
    size_t length = strnlen((const char *)source, source_size);
    if (length >= size) length = size - 1;
    memcpy(destination, source, length);
    destination[length] = 0;
}

int preflight_v4l2_open(const char *path) {
    int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

void preflight_v4l2_close(int fd) {
    if (fd >= 0) close(fd);
}

int preflight_v4l2_query(int fd, char *card, size_t card_size, char *bus, size_t bus_size, int *is_camera) {
    struct v4l2_capability capability;
    memset(&capability, 0, sizeof capability);
    int result = xioctl(fd, VIDIOC_QUERYCAP, &capability);
    if (result < 0) return result;
    copy_text(card, card_size, capability.card, sizeof capability.card);
    copy_text(bus, bus_size, capability.bus_info, sizeof capability.bus_info);
    uint32_t caps = (capability.capabilities & V4L2_CAP_DEVICE_CAPS) ? capability.device_caps : capability.capabilities;
    *is_camera = (caps & V4L2_CAP_VIDEO_CAPTURE) && (caps & V4L2_CAP_STREAMING);
    return 0;
}

int preflight_v4l2_enum_format(int fd, uint32_t index, uint32_t *pixel_format) {
    struct v4l2_fmtdesc description;
    memset(&description, 0, sizeof description);
    description.index = index;
    description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    int result = xioctl(fd, VIDIOC_ENUM_FMT, &description);
    if (result < 0) return result;
    *pixel_format = description.pixelformat;
    return 0;
}

int preflight_v4l2_enum_size(int fd, uint32_t pixel_format, uint32_t index, uint32_t *width, uint32_t *height) {
    struct v4l2_frmsizeenum size;
    memset(&size, 0, sizeof size);
    size.index = index;
    size.pixel_format = pixel_format;
    int result = xioctl(fd, VIDIOC_ENUM_FRAMESIZES, &size);
    if (result < 0) return result;
    if (size.type == V4L2_FRMSIZE_TYPE_DISCRETE) {
        *width = size.discrete.width;
        *height = size.discrete.height;
    } else {
        *width = size.stepwise.max_width;
        *height = size.stepwise.max_height;
    }
    return 0;
}

int preflight_v4l2_set_format(int fd, uint32_t *width, uint32_t *height, uint32_t *pixel_format,
                              uint32_t *bytes_per_line, uint32_t *image_size) {
    struct v4l2_format format;
    memset(&format, 0, sizeof format);
    format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    format.fmt.pix.width = *width;
    format.fmt.pix.height = *height;
    format.fmt.pix.pixelformat = *pixel_format;
    format.fmt.pix.field = V4L2_FIELD_NONE;
    int result = xioctl(fd, VIDIOC_S_FMT, &format);
    if (result < 0) return result;
    *width = format.fmt.pix.width;
    *height = format.fmt.pix.height;
    *pixel_format = format.fmt.pix.pixelformat;
    *bytes_per_line = format.fmt.pix.bytesperline;
    *image_size = format.fmt.pix.sizeimage;
    return 0;
}

int preflight_v4l2_set_frame_rate(int fd, uint32_t frames_per_second) {
    struct v4l2_streamparm parameters;
    memset(&parameters, 0, sizeof parameters);
    parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    parameters.parm.capture.timeperframe.numerator = 1;
    parameters.parm.capture.timeperframe.denominator = frames_per_second;
    return xioctl(fd, VIDIOC_S_PARM, &parameters);
}

int preflight_v4l2_request_buffers(int fd, uint32_t count) {
    struct v4l2_requestbuffers request;
    memset(&request, 0, sizeof request);
    request.count = count;
    request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    request.memory = V4L2_MEMORY_MMAP;
    int result = xioctl(fd, VIDIOC_REQBUFS, &request);
    return result < 0 ? result : (int)request.count;
}

int preflight_v4l2_map_buffer(int fd, uint32_t index, void **start, uint32_t *length) {
    struct v4l2_buffer buffer;
    memset(&buffer, 0, sizeof buffer);
    buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buffer.memory = V4L2_MEMORY_MMAP;
    buffer.index = index;
    int result = xioctl(fd, VIDIOC_QUERYBUF, &buffer);
    if (result < 0) return result;
    void *mapped = mmap(NULL, buffer.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, buffer.m.offset);
    if (mapped == MAP_FAILED) return -errno;
    *start = mapped;
    *length = buffer.length;
    return 0;
}

void preflight_v4l2_unmap_buffer(void *start, uint32_t length) {
    if (start) munmap(start, length);
}

int preflight_v4l2_queue(int fd, uint32_t index) {
    struct v4l2_buffer buffer;
    memset(&buffer, 0, sizeof buffer);
    buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buffer.memory = V4L2_MEMORY_MMAP;
    buffer.index = index;
    return xioctl(fd, VIDIOC_QBUF, &buffer);
}

int preflight_v4l2_stream(int fd, int on) {
    int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    return xioctl(fd, on ? VIDIOC_STREAMON : VIDIOC_STREAMOFF, &type);
}

int preflight_v4l2_dequeue(int fd, int timeout_ms, uint32_t *index, uint32_t *bytes_used, uint64_t *timestamp_us,
                           uint32_t *sequence) {
    struct pollfd descriptor = {.fd = fd, .events = POLLIN};
    int ready;
    do {
        ready = poll(&descriptor, 1, timeout_ms);
    } while (ready == -1 && errno == EINTR);
    if (ready < 0) return -errno;
    if (ready == 0) return -EAGAIN;
    struct v4l2_buffer buffer;
    memset(&buffer, 0, sizeof buffer);
    buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buffer.memory = V4L2_MEMORY_MMAP;
    int result = xioctl(fd, VIDIOC_DQBUF, &buffer);
    if (result < 0) return result;
    *index = buffer.index;
    *bytes_used = buffer.bytesused;
    *timestamp_us = (uint64_t)buffer.timestamp.tv_sec * 1000000u + (uint64_t)buffer.timestamp.tv_usec;
    *sequence = buffer.sequence;
    return 0;
}

#else

int preflight_v4l2_open(const char *path) { (void)path; return -ENOSYS; }
void preflight_v4l2_close(int fd) { (void)fd; }
int preflight_v4l2_query(int fd, char *card, size_t card_size, char *bus, size_t bus_size, int *is_camera) {
    (void)fd; (void)card; (void)card_size; (void)bus; (void)bus_size; (void)is_camera; return -ENOSYS;
}
int preflight_v4l2_enum_format(int fd, uint32_t index, uint32_t *pixel_format) {
    (void)fd; (void)index; (void)pixel_format; return -ENOSYS;
}
int preflight_v4l2_enum_size(int fd, uint32_t pixel_format, uint32_t index, uint32_t *width, uint32_t *height) {
    (void)fd; (void)pixel_format; (void)index; (void)width; (void)height; return -ENOSYS;
}
int preflight_v4l2_set_format(int fd, uint32_t *width, uint32_t *height, uint32_t *pixel_format,
                              uint32_t *bytes_per_line, uint32_t *image_size) {
    (void)fd; (void)width; (void)height; (void)pixel_format; (void)bytes_per_line; (void)image_size; return -ENOSYS;
}
int preflight_v4l2_set_frame_rate(int fd, uint32_t frames_per_second) { (void)fd; (void)frames_per_second; return -ENOSYS; }
int preflight_v4l2_request_buffers(int fd, uint32_t count) { (void)fd; (void)count; return -ENOSYS; }
int preflight_v4l2_map_buffer(int fd, uint32_t index, void **start, uint32_t *length) {
    (void)fd; (void)index; (void)start; (void)length; return -ENOSYS;
}
void preflight_v4l2_unmap_buffer(void *start, uint32_t length) { (void)start; (void)length; }
int preflight_v4l2_queue(int fd, uint32_t index) { (void)fd; (void)index; return -ENOSYS; }
int preflight_v4l2_stream(int fd, int on) { (void)fd; (void)on; return -ENOSYS; }
int preflight_v4l2_dequeue(int fd, int timeout_ms, uint32_t *index, uint32_t *bytes_used, uint64_t *timestamp_us,
                           uint32_t *sequence) {
    (void)fd; (void)timeout_ms; (void)index; (void)bytes_used; (void)timestamp_us; (void)sequence; return -ENOSYS;
}

#endif
