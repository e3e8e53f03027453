/*
 * engine/kdf_bcrypt.c: bcrypt through libcrypt (libxcrypt's crypt_rn).
 *
 * A bcrypt string is "$2b$", the cost as two digits, "$", then 53
 * characters of bcrypt's base64: 22 for the 16-byte salt, 31 for the hash.
 * pwtune writes $2b$ and verifies $2b$, $2y$ and $2a$ (which libxcrypt
 * treats as the same function for passwords without 8-bit bugs).
 */
#include <crypt.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "kdf_impl.h"

#define BCRYPT_LEN	60
#define BCRYPT_ALPHABET \
	"./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

int
kdf_bcrypt_identify(const char *encoded, struct kdf_params *kp, char *err,
    size_t errlen)
{
	size_t	len = strnlen(encoded, KDF_ENCODED_MAX + 1);
	int	cost;

	if (len < 4 || encoded[0] != '$' || encoded[1] != '2' ||
	    (encoded[2] != 'a' && encoded[2] != 'b' && encoded[2] != 'y') ||
	    encoded[3] != '$') {
		kdf_seterr(err, errlen, "not a bcrypt string: it must begin "
		    "with $2b$, $2y$ or $2a$");
		return -1;
	}
	if (len != BCRYPT_LEN) {
		kdf_seterr(err, errlen, "bcrypt string must be %d characters, "
		    "not %zu", BCRYPT_LEN, len);
		return -1;
	}
	if (encoded[4] < '0' || encoded[4] > '9' || encoded[5] < '0' ||
	    encoded[5] > '9' || encoded[6] != '$') {
		kdf_seterr(err, errlen, "bcrypt cost must be two digits");
		return -1;
	}
	cost = (encoded[4] - '0') * 10 + (encoded[5] - '0');
	if (cost < KDF_BCRYPT_COST_MIN || cost > KDF_BCRYPT_COST_MAX) {
		kdf_seterr(err, errlen, "bcrypt cost must be from %d to %d",
		    KDF_BCRYPT_COST_MIN, KDF_BCRYPT_COST_MAX);
		return -1;
	}
	if (strspn(encoded + 7, BCRYPT_ALPHABET) != BCRYPT_LEN - 7) {
		kdf_seterr(err, errlen, "bcrypt salt and hash must be "
		    "characters of ./A-Za-z0-9");
		return -1;
	}
	kdf_params_init(kp, KDF_ALG_BCRYPT);
	kp->cost = (uint32_t)cost;
	return 0;
}

/*
 * crypt_rn reads the password as a C string: copy it into a NUL-terminated
 * buffer that is wiped afterwards.
 */
static int
kdf_bcrypt_run(const uint8_t *pwd, size_t pwdlen, const char *setting,
    char *out, size_t outlen, char *err, size_t errlen)
{
	struct crypt_data	*cd;
	char			*phrase, *res;
	int			 rc = -1;

	if ((cd = calloc(1, sizeof(*cd))) == NULL ||
	    (phrase = calloc(1, pwdlen + 1)) == NULL) {
		free(cd);
		kdf_seterr(err, errlen, "out of memory");
		return -1;
	}
	if (pwdlen > 0)
		memcpy(phrase, pwd, pwdlen);
	res = crypt_rn(phrase, setting, cd, (int)sizeof(*cd));
	if (res == NULL || res[0] == '*') {
		kdf_seterr(err, errlen, "libcrypt: bcrypt failed on this "
		    "setting");
	} else if (strlen(res) + 1 > outlen) {
		kdf_seterr(err, errlen, "encoded string does not fit");
	} else {
		memcpy(out, res, strlen(res) + 1);
		rc = 0;
	}
	sodium_memzero(phrase, pwdlen + 1);
	sodium_memzero(cd, sizeof(*cd));
	free(phrase);
	free(cd);
	return rc;
}

int
kdf_bcrypt_hash(const struct kdf_params *kp, const struct kdf_input *in,
    char *encoded, size_t encodedlen, char *err, size_t errlen)
{
	char	setting[CRYPT_GENSALT_OUTPUT_SIZE];
	char	scratch[KDF_ENCODED_MAX + 1];
	int	rc;

	if (crypt_gensalt_rn("$2b$", kp->cost, (const char *)in->salt,
	    (int)in->saltlen, setting, (int)sizeof(setting)) == NULL) {
		kdf_seterr(err, errlen, "libcrypt: cannot make a bcrypt "
		    "setting for cost %u", (unsigned)kp->cost);
		return -1;
	}
	if (encoded == NULL) {
		encoded = scratch;
		encodedlen = sizeof(scratch);
	}
	rc = kdf_bcrypt_run(in->pwd, in->pwdlen, setting, encoded, encodedlen,
	    err, errlen);
	sodium_memzero(scratch, sizeof(scratch));
	return rc;
}

int
kdf_bcrypt_verify(const char *encoded, const struct kdf_input *in,
    char *err, size_t errlen)
{
	struct kdf_params	kp;
	char			got[KDF_ENCODED_MAX + 1];
	int			rc;

	if (kdf_bcrypt_identify(encoded, &kp, err, errlen) == -1)
		return KDF_VERIFY_ERROR;
	if (in->pwdlen > 0 && memchr(in->pwd, '\0', in->pwdlen) != NULL) {
		kdf_seterr(err, errlen, "bcrypt cannot take a password that "
		    "contains a NUL byte");
		return KDF_VERIFY_ERROR;
	}
	if (kdf_bcrypt_run(in->pwd, in->pwdlen, encoded, got, sizeof(got),
	    err, errlen) == -1)
		return KDF_VERIFY_ERROR;
	rc = strlen(got) == BCRYPT_LEN &&
	    sodium_memcmp(got, encoded, BCRYPT_LEN) == 0 ?
	    KDF_VERIFY_OK : KDF_VERIFY_MISMATCH;
	sodium_memzero(got, sizeof(got));
	return rc;
}
