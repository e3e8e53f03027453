/*
 * engine/kdf_sodium.c: the libsodium backend. Argon2id and Argon2i through
 * crypto_pwhash (which picks AVX2, SSSE3 or portable code at run time), and
 * scrypt through crypto_pwhash_scryptsalsa208sha256 with its $7$ strings.
 *
 * A $7$ string is "$7$", log2(N) as one itoa64 character, r and p as five
 * characters each (30 bits, least significant first), the salt as text, "$",
 * and the 32-byte hash in itoa64 (little-endian groups of 24 bits). The salt
 * text itself is what scrypt hashes; pwtune writes it as the itoa64 encoding
 * of the salt bytes it is given, as libsodium does for its random salts.
 */
#include <errno.h>
#include <string.h>

#include <sodium.h>

#include "kdf_impl.h"

/* The longest salt text pwtune reads in a $7$ string. */
#define SCRYPT_SALT_TEXT_MAX	(KDF_SALT_MAX * 4 / 3 + 1)
#define SCRYPT_HASH_TEXT	43	/* itoa64 characters for 32 bytes */

static int
kdf_sodium_alg(enum kdf_alg alg)
{
	return alg == KDF_ALG_ARGON2I ? crypto_pwhash_ALG_ARGON2I13 :
	    crypto_pwhash_ALG_ARGON2ID13;
}

int
kdf_sodium_argon2_hash(const struct kdf_params *kp,
    const struct kdf_input *in, uint8_t *out, char *err, size_t errlen)
{
	if (sodium_init() < 0) {
		kdf_seterr(err, errlen, "libsodium failed to initialise");
		return -1;
	}
	if (crypto_pwhash(out, kp->hashlen, (const char *)in->pwd, in->pwdlen,
	    in->salt, kp->t, (size_t)kp->m_kib * 1024,
	    kdf_sodium_alg(kp->alg)) != 0) {
		kdf_seterr(err, errlen, "libsodium: crypto_pwhash failed (%s)",
		    errno == ENOMEM ? "out of memory" : "invalid parameters");
		sodium_memzero(out, kp->hashlen);
		return -1;
	}
	return 0;
}

int
kdf_sodium_argon2_verify(const char *encoded, const struct kdf_params *kp,
    const struct kdf_input *in, char *err, size_t errlen)
{
	int	rc;

	if (sodium_init() < 0) {
		kdf_seterr(err, errlen, "libsodium failed to initialise");
		return KDF_VERIFY_ERROR;
	}
	errno = 0;
	if (kp->alg == KDF_ALG_ARGON2I)
		rc = crypto_pwhash_argon2i_str_verify(encoded,
		    (const char *)in->pwd, in->pwdlen);
	else
		rc = crypto_pwhash_argon2id_str_verify(encoded,
		    (const char *)in->pwd, in->pwdlen);
	if (rc == 0)
		return KDF_VERIFY_OK;
	/* libsodium sets EINVAL for a mismatch and for a bad string alike. */
	if (errno == ENOMEM) {
		kdf_seterr(err, errlen, "libsodium: out of memory");
		return KDF_VERIFY_ERROR;
	}
	return KDF_VERIFY_MISMATCH;
}

static char *
scrypt_encode_u32(char *dst, uint32_t v, int bits)
{
	int	i;

	for (i = 0; i < bits; i += 6) {
		*dst++ = KDF_ITOA64[v & 0x3f];
		v >>= 6;
	}
	return dst;
}

/* itoa64 of n bytes into dst; returns the end. dst needs 4 * n / 3 + 1. */
static char *
scrypt_encode_bytes(char *dst, const uint8_t *src, size_t n)
{
	size_t		i = 0;
	uint32_t	v;
	int		bits;

	while (i < n) {
		v = 0;
		bits = 0;
		do {
			v |= (uint32_t)src[i++] << bits;
			bits += 8;
		} while (bits < 24 && i < n);
		dst = scrypt_encode_u32(dst, v, bits);
	}
	*dst = '\0';
	return dst;
}

static int
scrypt_decode_char(char c)
{
	const char	*p;

	if (c == '\0' || (p = strchr(KDF_ITOA64, c)) == NULL)
		return -1;
	return (int)(p - KDF_ITOA64);
}

static int
scrypt_decode_u32(const char *src, int chars, uint32_t *out)
{
	uint32_t	v = 0;
	int		i, c;

	for (i = 0; i < chars; i++) {
		if ((c = scrypt_decode_char(src[i])) < 0)
			return -1;
		v |= (uint32_t)c << (6 * i);
	}
	*out = v;
	return 0;
}

/* Decode exactly 43 characters into 32 bytes; stray bits are an error. */
static int
scrypt_decode_hash(const char *src, uint8_t out[KDF_SCRYPT_HASH])
{
	size_t		o = 0;
	uint32_t	v;
	int		chars, bytes, i;

	while (o < KDF_SCRYPT_HASH) {
		bytes = KDF_SCRYPT_HASH - o >= 3 ? 3 : (int)(KDF_SCRYPT_HASH - o);
		chars = (bytes * 8 + 5) / 6;
		if (scrypt_decode_u32(src, chars, &v) == -1)
			return -1;
		if (bytes < 3 && (v >> (bytes * 8)) != 0)
			return -1;
		for (i = 0; i < bytes; i++)
			out[o++] = (uint8_t)(v >> (8 * i));
		src += chars;
	}
	return *src == '\0' ? 0 : -1;
}

/*
 * Split a $7$ string into its parameters, salt text and hash.
 */
static int
scrypt_parse(const char *s, struct kdf_params *kp, const char **salt,
    size_t *saltlen, uint8_t hash[KDF_SCRYPT_HASH], char *err, size_t errlen)
{
	const char	*p, *end;
	int		 ln;
	uint32_t	 r, pp;

	if (strnlen(s, KDF_ENCODED_MAX + 1) > KDF_ENCODED_MAX) {
		kdf_seterr(err, errlen, "encoded string is longer than %d "
		    "characters", KDF_ENCODED_MAX);
		return -1;
	}
	if (strncmp(s, "$7$", 3) != 0) {
		kdf_seterr(err, errlen, "not a scrypt string: it must begin "
		    "with $7$");
		return -1;
	}
	p = s + 3;
	if ((ln = scrypt_decode_char(p[0])) < KDF_SCRYPT_LN_MIN ||
	    ln > KDF_SCRYPT_LN_MAX) {
		kdf_seterr(err, errlen, "scrypt N is not a power of 2 from 2^1 "
		    "to 2^63");
		return -1;
	}
	if (strnlen(p, 11) < 11 || scrypt_decode_u32(p + 1, 5, &r) == -1 ||
	    scrypt_decode_u32(p + 6, 5, &pp) == -1 || r == 0 || pp == 0 ||
	    (uint64_t)r * pp >= (1ULL << 30)) {
		kdf_seterr(err, errlen, "scrypt r and p are not valid");
		return -1;
	}
	p += 11;
	if ((end = strchr(p, '$')) == NULL || end == p) {
		kdf_seterr(err, errlen, "scrypt salt is missing");
		return -1;
	}
	if ((size_t)(end - p) > SCRYPT_SALT_TEXT_MAX) {
		kdf_seterr(err, errlen, "scrypt salt is longer than %d "
		    "characters", SCRYPT_SALT_TEXT_MAX);
		return -1;
	}
	for (*salt = p; p < end; p++) {
		if (scrypt_decode_char(*p) < 0) {
			kdf_seterr(err, errlen, "scrypt salt has a character "
			    "outside ./0-9A-Za-z");
			return -1;
		}
	}
	*saltlen = (size_t)(end - *salt);
	if (strlen(end + 1) != SCRYPT_HASH_TEXT ||
	    scrypt_decode_hash(end + 1, hash) == -1) {
		kdf_seterr(err, errlen, "scrypt hash is not %d characters of "
		    "./0-9A-Za-z", SCRYPT_HASH_TEXT);
		return -1;
	}
	kdf_params_init(kp, KDF_ALG_SCRYPT);
	kp->ln = (uint32_t)ln;
	kp->r = r;
	kp->p = pp;
	kp->hashlen = KDF_SCRYPT_HASH;
	return 0;
}

static int
scrypt_compute(const struct kdf_params *kp, const uint8_t *pwd,
    size_t pwdlen, const char *salt, size_t saltlen, uint8_t *out,
    size_t outlen, char *err, size_t errlen)
{
	if (sodium_init() < 0) {
		kdf_seterr(err, errlen, "libsodium failed to initialise");
		return -1;
	}
	if (crypto_pwhash_scryptsalsa208sha256_ll(pwd, pwdlen,
	    (const uint8_t *)salt, saltlen, 1ULL << kp->ln, kp->r, kp->p,
	    out, outlen) != 0) {
		kdf_seterr(err, errlen, "libsodium: scrypt failed (%s)",
		    errno == ENOMEM ? "out of memory" : "invalid parameters");
		sodium_memzero(out, outlen);
		return -1;
	}
	return 0;
}

int
kdf_scrypt_hash(const struct kdf_params *kp, const struct kdf_input *in,
    uint8_t *out, char *encoded, size_t encodedlen, char *err, size_t errlen)
{
	char	 salt[SCRYPT_SALT_TEXT_MAX + 1];
	uint8_t	 raw[KDF_HASH_MAX];
	char	*p;
	size_t	 saltlen;
	int	 rc = -1;

	saltlen = (size_t)(scrypt_encode_bytes(salt, in->salt, in->saltlen) -
	    salt);
	if (scrypt_compute(kp, in->pwd, in->pwdlen, salt, saltlen, raw,
	    kp->hashlen, err, errlen) == -1)
		goto done;
	if (encoded != NULL) {
		if (kp->hashlen != KDF_SCRYPT_HASH) {
			kdf_seterr(err, errlen, "a $7$ string holds a %d-byte "
			    "hash, not %u", KDF_SCRYPT_HASH,
			    (unsigned)kp->hashlen);
			goto done;
		}
		if (encodedlen < 3 + 11 + saltlen + 1 + SCRYPT_HASH_TEXT + 1) {
			kdf_seterr(err, errlen, "encoded string does not fit");
			goto done;
		}
		memcpy(encoded, "$7$", 3);
		p = encoded + 3;
		*p++ = KDF_ITOA64[kp->ln];
		p = scrypt_encode_u32(p, kp->r, 30);
		p = scrypt_encode_u32(p, kp->p, 30);
		memcpy(p, salt, saltlen);
		p += saltlen;
		*p++ = '$';
		scrypt_encode_bytes(p, raw, KDF_SCRYPT_HASH);
	}
	if (out != NULL)
		memcpy(out, raw, kp->hashlen);
	rc = 0;
done:
	sodium_memzero(raw, sizeof(raw));
	return rc;
}

int
kdf_scrypt_identify(const char *encoded, struct kdf_params *kp, char *err,
    size_t errlen)
{
	uint8_t		 hash[KDF_SCRYPT_HASH];
	const char	*salt;
	size_t		 saltlen;
	int		 rc;

	rc = scrypt_parse(encoded, kp, &salt, &saltlen, hash, err, errlen);
	sodium_memzero(hash, sizeof(hash));
	return rc;
}

int
kdf_scrypt_verify(const char *encoded, const struct kdf_input *in,
    char *err, size_t errlen)
{
	struct kdf_params	 kp;
	uint8_t			 want[KDF_SCRYPT_HASH], got[KDF_SCRYPT_HASH];
	const char		*salt;
	size_t			 saltlen;
	int			 rc = KDF_VERIFY_ERROR;

	if (scrypt_parse(encoded, &kp, &salt, &saltlen, want, err,
	    errlen) == -1)
		goto done;
	if (scrypt_compute(&kp, in->pwd, in->pwdlen, salt, saltlen, got,
	    sizeof(got), err, errlen) == -1)
		goto done;
	rc = sodium_memcmp(got, want, sizeof(want)) == 0 ? KDF_VERIFY_OK :
	    KDF_VERIFY_MISMATCH;
done:
	sodium_memzero(want, sizeof(want));
	sodium_memzero(got, sizeof(got));
	return rc;
}
