#ifndef PREFLIGHT_SHA1_H
#define PREFLIGHT_SHA1_H

#include <stddef.h>
#include <stdint.h>

/// SHA-1 compression (FIPS 180-4 §6.1.2) of `count` consecutive 64-byte blocks into `state`
/// (h0…h4). Uses the x86 SHA extensions when the processor has them, portable C otherwise.
void preflight_sha1_compress(uint32_t state[5], const uint8_t *blocks, size_t count);

/// Whether the hardware (SHA-NI) path is in use, for benchmarks and tests.
int preflight_sha1_uses_hardware(void);

/// The portable path, always available: lets tests compare both paths on the same machine.
void preflight_sha1_compress_portable(uint32_t state[5], const uint8_t *blocks, size_t count);

#endif
