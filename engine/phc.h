/*
 * engine/phc: a strict codec for Argon2 strings in the PHC format,
 *
 *   $argon2id$v=19$m=65536,t=3,p=4$<salt>$<hash>
 *
 * with salt and hash in standard base64 without padding. The decoder is the
 * one the daemon uses on strings clients send, so it accepts exactly one
 * spelling of each string and rejects everything else with a reason:
 *
 *   - the identifier is argon2d, argon2i or argon2id;
 *   - v= is optional (absent means 0x10, as libargon2 reads it) and, when
 *     present, is 16 or 19;
 *   - m, t and p appear once each, in that order, as decimal numbers with
 *     no sign and no leading zero, within Argon2's ranges (m >= 8 * p);
 *   - salt and hash are base64 without padding, with no stray bits, and
 *     decode to KDF_SALT_MIN..KDF_SALT_MAX and KDF_HASH_MIN..KDF_HASH_MAX
 *     bytes;
 *   - the whole string is at most KDF_ENCODED_MAX characters, and nothing
 *     follows the hash.
 *
 * The encoder writes what libargon2's encoder writes, always with v=.
 */
#ifndef PWTUNE_PHC_H
#define PWTUNE_PHC_H

#include <stddef.h>
#include <stdint.h>

#include "kdf.h"

struct phc_argon2 {
	enum kdf_alg	alg;		/* KDF_ALG_ARGON2D, _I or _ID */
	uint32_t	version;	/* 0x10 or 0x13 */
	uint32_t	m_kib;
	uint32_t	t;
	uint32_t	p;
	uint8_t		salt[KDF_SALT_MAX];
	size_t		saltlen;
	uint8_t		hash[KDF_HASH_MAX];
	size_t		hashlen;
};

/*
 * Decode the NUL-terminated string s into *ph. Returns 0, or -1 with the
 * reason in err (which names the field at fault). *ph holds salt and hash
 * bytes: wipe it when done.
 */
int	 phc_decode(const char *s, struct phc_argon2 *ph, char *err,
	    size_t errlen);
/*
 * phc_decode, and the parameters alone too ($argon2id$v=19$m=65536,t=3,
 * p=1, as `pwtune recommend --format phc` prints them): saltlen and
 * hashlen 0 then.
 */
int	 phc_decode_params(const char *s, struct phc_argon2 *ph, char *err,
	    size_t errlen);

/*
 * Encode *ph into buf as a NUL-terminated string. Returns the length
 * written, or -1 when buflen is too small or a field is out of range.
 */
int	 phc_encode(const struct phc_argon2 *ph, char *buf, size_t buflen);

/*
 * Standard base64 without padding. phc_b64_encode writes the NUL-terminated
 * text of srclen bytes into dst and returns its length, or -1 when dstlen
 * is too small. phc_b64_decode decodes exactly srclen characters into at
 * most dstmax bytes; returns the number of bytes, or -1 for a character
 * outside the alphabet, padding, a length that cannot be base64, bits left
 * over, or dst too small.
 */
int	 phc_b64_encode(const uint8_t *src, size_t srclen, char *dst,
	    size_t dstlen);
int	 phc_b64_decode(const char *src, size_t srclen, uint8_t *dst,
	    size_t dstmax);

#endif /* PWTUNE_PHC_H */
