/* sha256.h — SHA-256 (FIPS 180-4), small and dependency free: the grader
 * names the rubric it scored by with the first 16 hex digits of its hash
 * (what `sha256sum FILE | cut -c1-16` prints), and the workbook links no
 * crypto library.  Not for secrets: nothing here is constant time. */
#ifndef SHA256_H
#define SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES 32

struct sha256 {
    uint32_t h[8];
    uint64_t bits;              /* message length so far */
    unsigned char block[64];
    size_t used;                /* bytes waiting in block */
};

/* Starts a hash with FIPS 180-4's initial value. */
void sha256_init(struct sha256 *s);

/* Adds len bytes of data; any number of calls, of any sizes. */
void sha256_update(struct sha256 *s, const void *data, size_t len);

/* Pads, writes the 32-byte digest into out; s must be started again
 * before it is used once more. */
void sha256_final(struct sha256 *s, unsigned char out[SHA256_BYTES]);

/* The digest of one buffer as 64 lowercase hex digits and a NUL. */
void sha256_hex(const void *data, size_t len, char hex[2 * SHA256_BYTES + 1]);

#endif /* SHA256_H */
