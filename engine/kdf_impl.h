/*
 * engine/kdf_impl.h: what the backends of engine/kdf offer each other.
 * Private to engine/; callers use kdf.h. Each function assumes its inputs
 * passed kdf_params_check() and fills err on failure.
 */
#ifndef PWTUNE_KDF_IMPL_H
#define PWTUNE_KDF_IMPL_H

#include "kdf.h"

/* The itoa64 alphabet of crypt(3): $7$ (scrypt) uses it little-endian. */
#define KDF_ITOA64 \
	"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/* kdf.c */
void	 kdf_seterr(char *err, size_t errlen, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/* kdf_argon2.c */
int	 kdf_argon2_hash(const struct kdf_params *kp,
	    const struct kdf_input *in, uint8_t *out, char *err, size_t errlen);

/* kdf_sodium.c */
int	 kdf_sodium_argon2_hash(const struct kdf_params *kp,
	    const struct kdf_input *in, uint8_t *out, char *err, size_t errlen);
int	 kdf_sodium_argon2_verify(const char *encoded,
	    const struct kdf_params *kp, const struct kdf_input *in,
	    char *err, size_t errlen);
int	 kdf_scrypt_hash(const struct kdf_params *kp,
	    const struct kdf_input *in, uint8_t *out, char *encoded,
	    size_t encodedlen, char *err, size_t errlen);
int	 kdf_scrypt_identify(const char *encoded, struct kdf_params *kp,
	    char *err, size_t errlen);
int	 kdf_scrypt_verify(const char *encoded, const struct kdf_input *in,
	    char *err, size_t errlen);

/* kdf_bcrypt.c */
int	 kdf_bcrypt_hash(const struct kdf_params *kp,
	    const struct kdf_input *in, char *encoded, size_t encodedlen,
	    char *err, size_t errlen);
int	 kdf_bcrypt_identify(const char *encoded, struct kdf_params *kp,
	    char *err, size_t errlen);
int	 kdf_bcrypt_verify(const char *encoded, const struct kdf_input *in,
	    char *err, size_t errlen);

#endif /* PWTUNE_KDF_IMPL_H */
