// Counts the calling thread's heap allocations by interposing glibc's allocator: an executable's
// own malloc takes precedence over libc's for every library it loads, and the counter forwards to
// glibc's exported __libc_* entry points. Benchmarks only: production code never links this.
#include "CAllocationCounter.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

// Initial-exec TLS of the executable: reading it never allocates, so malloc may touch it.
static __thread uint64_t thread_allocations __attribute__((tls_model("initial-exec")));

void *malloc(size_t size) {
    thread_allocations++;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    thread_allocations++;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    thread_allocations++;
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    thread_allocations++;
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    thread_allocations++;
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    thread_allocations++;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

void free(void *pointer) { __libc_free(pointer); }

uint64_t allocation_counter_thread_count(void) { return thread_allocations; }
#else
uint64_t allocation_counter_thread_count(void) { return UINT64_MAX; }
#endif
