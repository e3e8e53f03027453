/*
 * engine/phc.c: the strict PHC string codec for Argon2 (see phc.h for the
 * grammar it accepts).
 */
#include <stdio.h>
#include <string.h>

#include "kdf_impl.h"
#include "phc.h"

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int
b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int
phc_b64_encode(const uint8_t *src, size_t srclen, char *dst, size_t dstlen)
{
	size_t	 need = (srclen / 3) * 4 + (srclen % 3 ? srclen % 3 + 1 : 0);
	size_t	 i, o = 0;
	uint32_t v;

	if (need + 1 > dstlen || need > INT32_MAX)
		return -1;
	for (i = 0; i + 3 <= srclen; i += 3) {
		v = (uint32_t)src[i] << 16 | (uint32_t)src[i + 1] << 8 | src[i + 2];
		dst[o++] = b64_alphabet[v >> 18 & 63];
		dst[o++] = b64_alphabet[v >> 12 & 63];
		dst[o++] = b64_alphabet[v >> 6 & 63];
		dst[o++] = b64_alphabet[v & 63];
	}
	if (srclen - i == 1) {
		v = (uint32_t)src[i] << 16;
		dst[o++] = b64_alphabet[v >> 18 & 63];
		dst[o++] = b64_alphabet[v >> 12 & 63];
	} else if (srclen - i == 2) {
		v = (uint32_t)src[i] << 16 | (uint32_t)src[i + 1] << 8;
		dst[o++] = b64_alphabet[v >> 18 & 63];
		dst[o++] = b64_alphabet[v >> 12 & 63];
		dst[o++] = b64_alphabet[v >> 6 & 63];
	}
	dst[o] = '\0';
	return (int)o;
}

int
phc_b64_decode(const char *src, size_t srclen, uint8_t *dst, size_t dstmax)
{
	size_t	 i, o = 0, rest = srclen % 4;
	uint32_t acc = 0;
	int	 v, bits = 0;

	/* One character alone carries 6 bits: never a whole byte. */
	if (rest == 1)
		return -1;
	if ((srclen / 4) * 3 + (rest ? rest - 1 : 0) > dstmax)
		return -1;
	for (i = 0; i < srclen; i++) {
		if ((v = b64_value((unsigned char)src[i])) < 0)
			return -1;
		acc = (acc << 6 | (uint32_t)v) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			dst[o++] = (uint8_t)(acc >> bits);
		}
	}
	/*
	 * The bits below the last whole byte must be zero: otherwise two
	 * spellings would decode to the same bytes.
	 */
	if (bits > 0 && (acc & ((1u << bits) - 1)) != 0)
		return -1;
	return (int)o;
}

/*
 * Parse a decimal uint32 at *sp that ends at a character in ends (or at
 * the NUL). No sign, no leading zero, no overflow. Advances *sp.
 */
static int
phc_parse_u32(const char **sp, uint32_t *out)
{
	const char	*s = *sp;
	uint64_t	 v = 0;
	size_t		 n = 0;

	if (*s < '0' || *s > '9')
		return -1;
	if (*s == '0' && s[1] >= '0' && s[1] <= '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX || ++n > 10)
			return -1;
		s++;
	}
	*out = (uint32_t)v;
	*sp = s;
	return 0;
}

static int	phc_decode_any(const char *, struct phc_argon2 *, int, char *,
		    size_t);

int
phc_decode(const char *s, struct phc_argon2 *ph, char *err, size_t errlen)
{
	return phc_decode_any(s, ph, 0, err, errlen);
}

int
phc_decode_params(const char *s, struct phc_argon2 *ph, char *err,
    size_t errlen)
{
	return phc_decode_any(s, ph, 1, err, errlen);
}

/* phc_decode; bare: the parameters may end the string. */
static int
phc_decode_any(const char *s, struct phc_argon2 *ph, int bare, char *err,
    size_t errlen)
{
	static const char *const keys[] = { "m", "t", "p" };
	uint32_t	 vals[3];
	const char	*p, *end;
	size_t		 len, i;
	int		 n;

	memset(ph, 0, sizeof(*ph));
	len = strnlen(s, KDF_ENCODED_MAX + 1);
	if (len == 0) {
		kdf_seterr(err, errlen, "empty string");
		return -1;
	}
	if (len > KDF_ENCODED_MAX) {
		kdf_seterr(err, errlen, "encoded string is longer than %d "
		    "characters", KDF_ENCODED_MAX);
		return -1;
	}

	if (strncmp(s, "$argon2id$", 10) == 0) {
		ph->alg = KDF_ALG_ARGON2ID;
		p = s + 10;
	} else if (strncmp(s, "$argon2i$", 9) == 0) {
		ph->alg = KDF_ALG_ARGON2I;
		p = s + 9;
	} else if (strncmp(s, "$argon2d$", 9) == 0) {
		ph->alg = KDF_ALG_ARGON2D;
		p = s + 9;
	} else {
		kdf_seterr(err, errlen, "not an Argon2 string: it must begin "
		    "with $argon2id$, $argon2i$ or $argon2d$");
		return -1;
	}

	/* Version: optional, and 0x10 when absent (as libargon2 reads it). */
	ph->version = 0x10;
	if (strncmp(p, "v=", 2) == 0) {
		p += 2;
		if (phc_parse_u32(&p, &ph->version) == -1 || *p != '$' ||
		    (ph->version != 0x10 && ph->version != 0x13)) {
			kdf_seterr(err, errlen, "field v must be 16 or 19");
			return -1;
		}
		p++;
	}

	for (i = 0; i < 3; i++) {
		if (i > 0) {
			if (*p != ',') {
				kdf_seterr(err, errlen, "missing field %s "
				    "(fields are m, t, p in this order)",
				    keys[i]);
				return -1;
			}
			p++;
		}
		if (p[0] != keys[i][0] || p[1] != '=') {
			if ((p[0] == 'm' || p[0] == 't' || p[0] == 'p') &&
			    p[1] == '=' && memchr("mtp", p[0], i) != NULL)
				kdf_seterr(err, errlen, "repeated field %c",
				    p[0]);
			else
				kdf_seterr(err, errlen, "missing field %s "
				    "(fields are m, t, p in this order)",
				    keys[i]);
			return -1;
		}
		p += 2;
		if (phc_parse_u32(&p, &vals[i]) == -1 ||
		    (*p != ',' && *p != '$' && *p != '\0')) {
			kdf_seterr(err, errlen, "field %s is not a decimal "
			    "number from 0 to 4294967295 without leading zeros",
			    keys[i]);
			return -1;
		}
		if (*p == '\0' && i < 2) {
			kdf_seterr(err, errlen, "missing field %s (fields are "
			    "m, t, p in this order)", keys[i + 1]);
			return -1;
		}
	}
	if (*p == ',') {
		if ((p[1] == 'm' || p[1] == 't' || p[1] == 'p') && p[2] == '=')
			kdf_seterr(err, errlen, "repeated field %c", p[1]);
		else
			kdf_seterr(err, errlen, "unknown field after p");
		return -1;
	}
	ph->m_kib = vals[0];
	ph->t = vals[1];
	ph->p = vals[2];
	if (ph->t < 1) {
		kdf_seterr(err, errlen, "field t must be at least 1");
		return -1;
	}
	if (ph->p < 1 || ph->p > KDF_ARGON2_P_MAX) {
		kdf_seterr(err, errlen, "field p must be from 1 to %u",
		    (unsigned)KDF_ARGON2_P_MAX);
		return -1;
	}
	if (ph->m_kib < KDF_ARGON2_M_MIN || ph->m_kib / 8 < ph->p) {
		kdf_seterr(err, errlen, "field m must be at least 8 * p KiB "
		    "(%llu)", 8ULL * ph->p);
		return -1;
	}
	if (*p == '\0') {
		if (bare)
			return 0;
		kdf_seterr(err, errlen, "the parameters alone: an encoded "
		    "hash goes on with $SALT$HASH after p");
		return -1;
	}

	/* Salt. */
	p++;
	if ((end = strchr(p, '$')) == NULL) {
		kdf_seterr(err, errlen, "missing hash after the salt");
		return -1;
	}
	n = phc_b64_decode(p, (size_t)(end - p), ph->salt, sizeof(ph->salt));
	if (n < 0 && (size_t)(end - p) * 3 / 4 > sizeof(ph->salt)) {
		kdf_seterr(err, errlen, "salt is longer than %d bytes",
		    KDF_SALT_MAX);
		goto fail;
	}
	if (n < 0) {
		kdf_seterr(err, errlen, "salt is not base64 without padding");
		goto fail;
	}
	if (n < KDF_SALT_MIN) {
		kdf_seterr(err, errlen, "salt is shorter than %d bytes",
		    KDF_SALT_MIN);
		goto fail;
	}
	ph->saltlen = (size_t)n;

	/* Hash: the rest of the string. */
	p = end + 1;
	if (strchr(p, '$') != NULL) {
		kdf_seterr(err, errlen, "unexpected field after the hash");
		goto fail;
	}
	len = strlen(p);
	n = phc_b64_decode(p, len, ph->hash, sizeof(ph->hash));
	if (n < 0 && len * 3 / 4 > sizeof(ph->hash)) {
		kdf_seterr(err, errlen, "hash is longer than %d bytes",
		    KDF_HASH_MAX);
		goto fail;
	}
	if (n < 0) {
		kdf_seterr(err, errlen, "hash is not base64 without padding");
		goto fail;
	}
	if (n < KDF_HASH_MIN) {
		kdf_seterr(err, errlen, "hash is shorter than %d bytes",
		    KDF_HASH_MIN);
		goto fail;
	}
	ph->hashlen = (size_t)n;
	return 0;
fail:
	memset(ph, 0, sizeof(*ph));
	return -1;
}

int
phc_encode(const struct phc_argon2 *ph, char *buf, size_t buflen)
{
	const char	*name = kdf_alg_name(ph->alg);
	int		 n, m;

	if (!kdf_alg_is_argon2(ph->alg) || ph->saltlen > sizeof(ph->salt) ||
	    ph->hashlen > sizeof(ph->hash))
		return -1;
	n = snprintf(buf, buflen, "$%s$v=%u$m=%u,t=%u,p=%u$", name,
	    (unsigned)ph->version, (unsigned)ph->m_kib, (unsigned)ph->t,
	    (unsigned)ph->p);
	if (n < 0 || (size_t)n >= buflen)
		return -1;
	if ((m = phc_b64_encode(ph->salt, ph->saltlen, buf + n,
	    buflen - (size_t)n)) < 0)
		return -1;
	n += m;
	if ((size_t)n + 1 >= buflen)
		return -1;
	buf[n++] = '$';
	if ((m = phc_b64_encode(ph->hash, ph->hashlen, buf + n,
	    buflen - (size_t)n)) < 0)
		return -1;
	return n + m;
}
