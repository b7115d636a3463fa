#ifndef C_ALLOCATION_COUNTER_H
#define C_ALLOCATION_COUNTER_H

#include <stdint.h>

/// Heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign) made by
/// the calling thread so far; UINT64_MAX where the counter cannot be installed (not glibc).
uint64_t allocation_counter_thread_count(void);

#endif
