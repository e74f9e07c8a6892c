// SPDX-License-Identifier: MIT
// Reading a fuzzer's input as a stream of little-endian fields. Past the end every read
// yields zeros, so a target never needs to check lengths to stay in bounds.
#ifndef GBVP_TESTS_FUZZ_FUZZ_INPUT_H
#define GBVP_TESTS_FUZZ_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

typedef struct in {
    const uint8_t *p;
    size_t n;
} in;

static inline uint8_t u8(in *r)
{
    if (!r->n)
        return 0;
    r->n--;
    return *r->p++;
}

static inline uint16_t u16(in *r)
{
    uint16_t lo = u8(r);
    return (uint16_t)(lo | (u8(r) << 8));
}

static inline uint32_t u32(in *r)
{
    uint32_t lo = u16(r);
    return lo | ((uint32_t)u16(r) << 16);
}

/* Up to want bytes (fewer when the input runs out). */
static inline const uint8_t *bytes(in *r, size_t want, size_t *got)
{
    *got = want < r->n ? want : r->n;
    const uint8_t *p = r->p;
    r->p += *got;
    r->n -= *got;
    return p;
}

#endif
