/*
 * engine/kdf.c: the front of engine/kdf. Names, defaults, validation
 * against the limits of kdf.h, and dispatch to the backends.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <argon2.h>
#include <sodium.h>

#include "kdf_impl.h"
#include "phc.h"

static const struct {
	const char	*name;
	const char	*title;
} kdf_algs[] = {
	[KDF_ALG_ARGON2D] = { "argon2d", "Argon2d" },
	[KDF_ALG_ARGON2I] = { "argon2i", "Argon2i" },
	[KDF_ALG_ARGON2ID] = { "argon2id", "Argon2id" },
	[KDF_ALG_SCRYPT] = { "scrypt", "scrypt" },
	[KDF_ALG_BCRYPT] = { "bcrypt", "bcrypt" },
};

static const char *const kdf_backends[] = {
	[KDF_BACKEND_AUTO] = "auto",
	[KDF_BACKEND_LIBARGON2] = "libargon2",
	[KDF_BACKEND_LIBSODIUM] = "libsodium",
	[KDF_BACKEND_LIBCRYPT] = "libcrypt",
};

void
kdf_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list	ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

const char *
kdf_alg_name(enum kdf_alg alg)
{
	if ((size_t)alg >= sizeof(kdf_algs) / sizeof(kdf_algs[0]))
		return NULL;
	return kdf_algs[alg].name;
}

const char *
kdf_alg_title(enum kdf_alg alg)
{
	if ((size_t)alg >= sizeof(kdf_algs) / sizeof(kdf_algs[0]))
		return NULL;
	return kdf_algs[alg].title;
}

int
kdf_alg_parse(const char *name, enum kdf_alg *alg)
{
	size_t	i;

	for (i = 0; i < sizeof(kdf_algs) / sizeof(kdf_algs[0]); i++) {
		if (strcmp(name, kdf_algs[i].name) == 0) {
			*alg = (enum kdf_alg)i;
			return 0;
		}
	}
	/* The short spellings of the reference command's -d, -i, -id. */
	if (strcmp(name, "d") == 0)
		*alg = KDF_ALG_ARGON2D;
	else if (strcmp(name, "i") == 0)
		*alg = KDF_ALG_ARGON2I;
	else if (strcmp(name, "id") == 0)
		*alg = KDF_ALG_ARGON2ID;
	else
		return -1;
	return 0;
}

int
kdf_alg_is_argon2(enum kdf_alg alg)
{
	return alg == KDF_ALG_ARGON2D || alg == KDF_ALG_ARGON2I ||
	    alg == KDF_ALG_ARGON2ID;
}

const char *
kdf_backend_name(enum kdf_backend backend)
{
	if ((size_t)backend >= sizeof(kdf_backends) / sizeof(kdf_backends[0]))
		return NULL;
	return kdf_backends[backend];
}

uint32_t
kdf_t_min(enum kdf_backend backend, enum kdf_alg variant)
{
	return backend == KDF_BACKEND_LIBSODIUM && variant == KDF_ALG_ARGON2I ?
	    KDF_LIBSODIUM_ARGON2I_T_MIN : 1;
}

int
kdf_backend_parse(const char *name, enum kdf_backend *backend)
{
	size_t	i;

	for (i = 0; i < sizeof(kdf_backends) / sizeof(kdf_backends[0]); i++) {
		if (strcmp(name, kdf_backends[i]) == 0) {
			*backend = (enum kdf_backend)i;
			return 0;
		}
	}
	return -1;
}

enum kdf_backend
kdf_backend_resolve(enum kdf_backend backend, enum kdf_alg alg)
{
	if (backend != KDF_BACKEND_AUTO)
		return backend;
	switch (alg) {
	case KDF_ALG_SCRYPT:
		return KDF_BACKEND_LIBSODIUM;
	case KDF_ALG_BCRYPT:
		return KDF_BACKEND_LIBCRYPT;
	default:
		return KDF_BACKEND_LIBARGON2;
	}
}

void
kdf_params_init(struct kdf_params *kp, enum kdf_alg alg)
{
	memset(kp, 0, sizeof(*kp));
	kp->alg = alg;
	kp->backend = KDF_BACKEND_AUTO;
	switch (alg) {
	case KDF_ALG_SCRYPT:
		kp->ln = 15;
		kp->r = 8;
		kp->p = 1;
		kp->hashlen = KDF_SCRYPT_HASH;
		break;
	case KDF_ALG_BCRYPT:
		kp->cost = 12;
		break;
	default:
		kp->version = 0x13;
		kp->m_kib = 65536;
		kp->t = 3;
		kp->p = 4;
		kp->hashlen = 32;
		break;
	}
}

uint64_t
kdf_params_memory(const struct kdf_params *kp)
{
	uint64_t	blocks, segment;

	switch (kp->alg) {
	case KDF_ALG_SCRYPT:
		if (kp->ln >= 64)
			return UINT64_MAX;
		return 128ULL * kp->r * ((1ULL << kp->ln) + kp->p) +
		    256ULL * kp->r + 64;
	case KDF_ALG_BCRYPT:
		return 4168;	/* the Blowfish state */
	default:
		/*
		 * Argon2 uses m rounded down to a multiple of 4 * p blocks,
		 * and at least 8 * p (RFC 9106 section 3.2).
		 */
		if (kp->p == 0)
			return 0;
		blocks = kp->m_kib;
		if (blocks < 8ULL * kp->p)
			blocks = 8ULL * kp->p;
		segment = blocks / (4ULL * kp->p);
		return segment * 4ULL * kp->p * 1024;
	}
}

static int
kdf_check_len(const char *what, size_t len, size_t min, size_t max,
    char *err, size_t errlen)
{
	if (len < min) {
		kdf_seterr(err, errlen, "%s is shorter than %zu bytes (%zu "
		    "given)", what, min, len);
		return -1;
	}
	if (len > max) {
		kdf_seterr(err, errlen, "%s is longer than %zu bytes (%zu "
		    "given)", what, max, len);
		return -1;
	}
	return 0;
}

static int
kdf_check_argon2(const struct kdf_params *kp, const struct kdf_input *in,
    enum kdf_backend backend, char *err, size_t errlen)
{
	if (kp->version != 0x10 && kp->version != 0x13) {
		kdf_seterr(err, errlen, "version must be 0x10 or 0x13");
		return -1;
	}
	if (kp->t < 1) {
		kdf_seterr(err, errlen, "t must be at least 1");
		return -1;
	}
	if (kp->p < 1 || kp->p > KDF_ARGON2_P_MAX) {
		kdf_seterr(err, errlen, "p must be from 1 to %u",
		    (unsigned)KDF_ARGON2_P_MAX);
		return -1;
	}
	if (kp->m_kib < KDF_ARGON2_M_MIN || kp->m_kib / 8 < kp->p) {
		kdf_seterr(err, errlen, "m must be at least 8 * p KiB (%llu "
		    "KiB), not %u", 8ULL * kp->p, (unsigned)kp->m_kib);
		return -1;
	}
	if (kdf_check_len("salt", in->saltlen, KDF_SALT_MIN, KDF_SALT_MAX,
	    err, errlen) == -1 ||
	    kdf_check_len("hash length", kp->hashlen, KDF_HASH_MIN,
	    KDF_HASH_MAX, err, errlen) == -1 ||
	    kdf_check_len("secret", in->secretlen, 0, KDF_SECRET_MAX,
	    err, errlen) == -1 ||
	    kdf_check_len("associated data", in->adlen, 0, KDF_AD_MAX,
	    err, errlen) == -1)
		return -1;

	if (backend == KDF_BACKEND_LIBCRYPT) {
		kdf_seterr(err, errlen, "libcrypt has no Argon2");
		return -1;
	}
	if (backend != KDF_BACKEND_LIBSODIUM)
		return 0;

	/* What crypto_pwhash can and cannot compute. */
	if (kp->alg == KDF_ALG_ARGON2D) {
		kdf_seterr(err, errlen, "libsodium has no Argon2d");
		return -1;
	}
	if (kp->version != 0x13) {
		kdf_seterr(err, errlen, "libsodium computes version 0x13 only");
		return -1;
	}
	if (kp->p != 1) {
		kdf_seterr(err, errlen, "libsodium computes p = 1 only "
		    "(crypto_pwhash has no parallelism), not p = %u",
		    (unsigned)kp->p);
		return -1;
	}
	if (in->saltlen != crypto_pwhash_SALTBYTES) {
		kdf_seterr(err, errlen, "libsodium takes a salt of exactly %u "
		    "bytes, not %zu", (unsigned)crypto_pwhash_SALTBYTES,
		    in->saltlen);
		return -1;
	}
	if (kp->hashlen < crypto_pwhash_BYTES_MIN) {
		kdf_seterr(err, errlen, "libsodium needs a hash of at least %u "
		    "bytes", (unsigned)crypto_pwhash_BYTES_MIN);
		return -1;
	}
	if (in->secretlen > 0 || in->adlen > 0) {
		kdf_seterr(err, errlen, "libsodium takes no secret or "
		    "associated data");
		return -1;
	}
	_Static_assert(KDF_LIBSODIUM_ARGON2I_T_MIN ==
	    crypto_pwhash_argon2i_OPSLIMIT_MIN, "libsodium's Argon2i t");
	if (kp->t < kdf_t_min(KDF_BACKEND_LIBSODIUM, kp->alg)) {
		kdf_seterr(err, errlen, "libsodium's Argon2i needs t >= %u",
		    (unsigned)kdf_t_min(KDF_BACKEND_LIBSODIUM, kp->alg));
		return -1;
	}
	if ((uint64_t)kp->m_kib * 1024 > crypto_pwhash_argon2id_MEMLIMIT_MAX) {
		kdf_seterr(err, errlen, "m is over libsodium's limit");
		return -1;
	}
	return 0;
}

int
kdf_params_check(const struct kdf_params *kp, const struct kdf_input *in,
    char *err, size_t errlen)
{
	enum kdf_backend backend = kdf_backend_resolve(kp->backend, kp->alg);

	if (kdf_alg_name(kp->alg) == NULL || kdf_backend_name(backend) == NULL) {
		kdf_seterr(err, errlen, "unknown algorithm or backend");
		return -1;
	}
	if (in->pwdlen > KDF_PASSWORD_MAX) {
		kdf_seterr(err, errlen, "password is longer than %d bytes",
		    KDF_PASSWORD_MAX);
		return -1;
	}
	if (in->pwdlen > 0 && in->pwd == NULL) {
		kdf_seterr(err, errlen, "password is missing");
		return -1;
	}
	if (kdf_alg_is_argon2(kp->alg))
		return kdf_check_argon2(kp, in, backend, err, errlen);

	if (in->secretlen > 0 || in->adlen > 0) {
		kdf_seterr(err, errlen, "%s takes no secret or associated data",
		    kdf_alg_name(kp->alg));
		return -1;
	}
	if (kp->alg == KDF_ALG_SCRYPT) {
		if (backend != KDF_BACKEND_LIBSODIUM) {
			kdf_seterr(err, errlen, "scrypt is computed by "
			    "libsodium only");
			return -1;
		}
		if (kp->ln < KDF_SCRYPT_LN_MIN || kp->ln > KDF_SCRYPT_LN_MAX) {
			kdf_seterr(err, errlen, "scrypt log2(N) must be from "
			    "%d to %d", KDF_SCRYPT_LN_MIN, KDF_SCRYPT_LN_MAX);
			return -1;
		}
		if (kp->r < 1 || kp->p < 1 ||
		    (uint64_t)kp->r * kp->p >= (1ULL << 30)) {
			kdf_seterr(err, errlen, "scrypt r and p must be at "
			    "least 1, with r * p < 2^30");
			return -1;
		}
		return kdf_check_len("salt", in->saltlen, KDF_SALT_MIN,
		    KDF_SALT_MAX, err, errlen) == -1 ||
		    kdf_check_len("hash length", kp->hashlen, KDF_HASH_MIN,
		    KDF_HASH_MAX, err, errlen) == -1 ? -1 : 0;
	}

	/* bcrypt */
	if (backend != KDF_BACKEND_LIBCRYPT) {
		kdf_seterr(err, errlen, "bcrypt is computed by libcrypt only");
		return -1;
	}
	if (kp->cost < KDF_BCRYPT_COST_MIN || kp->cost > KDF_BCRYPT_COST_MAX) {
		kdf_seterr(err, errlen, "bcrypt cost must be from %d to %d",
		    KDF_BCRYPT_COST_MIN, KDF_BCRYPT_COST_MAX);
		return -1;
	}
	if (in->saltlen != KDF_BCRYPT_SALT) {
		kdf_seterr(err, errlen, "bcrypt takes a salt of exactly %d "
		    "bytes, not %zu", KDF_BCRYPT_SALT, in->saltlen);
		return -1;
	}
	if (in->pwdlen > KDF_BCRYPT_PASSWORD_MAX) {
		kdf_seterr(err, errlen, "bcrypt reads only the first %d bytes "
		    "of a password: refusing a longer one",
		    KDF_BCRYPT_PASSWORD_MAX);
		return -1;
	}
	if (in->pwdlen > 0 && memchr(in->pwd, '\0', in->pwdlen) != NULL) {
		kdf_seterr(err, errlen, "bcrypt cannot hash a password that "
		    "contains a NUL byte");
		return -1;
	}
	return 0;
}

int
kdf_hash(const struct kdf_params *kp, const struct kdf_input *in,
    uint8_t *out, char *encoded, size_t encodedlen, char *err, size_t errlen)
{
	struct phc_argon2	 ph;
	struct kdf_params	 rkp;
	uint8_t			 raw[KDF_HASH_MAX];
	int			 rc = -1;

	if (kdf_params_check(kp, in, err, errlen) == -1)
		return -1;
	if (encoded != NULL && encodedlen < KDF_ENCODED_MAX + 1) {
		kdf_seterr(err, errlen, "buffer for the encoded string is too "
		    "small");
		return -1;
	}
	rkp = *kp;
	rkp.backend = kdf_backend_resolve(kp->backend, kp->alg);

	switch (kp->alg) {
	case KDF_ALG_BCRYPT:
		if (out != NULL) {
			kdf_seterr(err, errlen, "bcrypt has no raw output");
			return -1;
		}
		return kdf_bcrypt_hash(&rkp, in, encoded, encodedlen, err,
		    errlen);
	case KDF_ALG_SCRYPT:
		return kdf_scrypt_hash(&rkp, in, out, encoded, encodedlen, err,
		    errlen);
	default:
		break;
	}

	if (rkp.backend == KDF_BACKEND_LIBSODIUM)
		rc = kdf_sodium_argon2_hash(&rkp, in, raw, err, errlen);
	else
		rc = kdf_argon2_hash(&rkp, in, raw, err, errlen);
	if (rc == -1)
		goto done;

	if (encoded != NULL) {
		memset(&ph, 0, sizeof(ph));
		ph.alg = kp->alg;
		ph.version = kp->version;
		ph.m_kib = kp->m_kib;
		ph.t = kp->t;
		ph.p = kp->p;
		memcpy(ph.salt, in->salt, in->saltlen);
		ph.saltlen = in->saltlen;
		memcpy(ph.hash, raw, kp->hashlen);
		ph.hashlen = kp->hashlen;
		if (phc_encode(&ph, encoded, encodedlen) < 0) {
			kdf_seterr(err, errlen, "encoded string does not fit");
			rc = -1;
		}
		sodium_memzero(&ph, sizeof(ph));
	}
	if (rc == 0 && out != NULL)
		memcpy(out, raw, kp->hashlen);
done:
	sodium_memzero(raw, sizeof(raw));
	if (rc == -1 && encoded != NULL)
		sodium_memzero(encoded, encodedlen);
	return rc;
}

int
kdf_identify(const char *encoded, struct kdf_params *kp, char *err,
    size_t errlen)
{
	struct phc_argon2	ph;

	if (strncmp(encoded, "$7$", 3) == 0)
		return kdf_scrypt_identify(encoded, kp, err, errlen);
	if (strncmp(encoded, "$2", 2) == 0)
		return kdf_bcrypt_identify(encoded, kp, err, errlen);
	if (strncmp(encoded, "$argon2", 7) != 0) {
		kdf_seterr(err, errlen, "unknown hash format: expected "
		    "$argon2id$, $argon2i$, $argon2d$, $7$ (scrypt) or "
		    "$2b$/$2y$/$2a$ (bcrypt)");
		return -1;
	}
	if (phc_decode(encoded, &ph, err, errlen) == -1)
		return -1;
	kdf_params_init(kp, ph.alg);
	kp->version = ph.version;
	kp->m_kib = ph.m_kib;
	kp->t = ph.t;
	kp->p = ph.p;
	kp->hashlen = (uint32_t)ph.hashlen;
	sodium_memzero(&ph, sizeof(ph));
	return 0;
}

static int
kdf_verify_argon2(const char *encoded, const struct kdf_input *in,
    enum kdf_backend backend, char *err, size_t errlen)
{
	struct phc_argon2	 ph;
	struct kdf_params	 kp;
	struct kdf_input	 vin = *in;
	uint8_t			 raw[KDF_HASH_MAX];
	int			 rc = KDF_VERIFY_ERROR;

	if (phc_decode(encoded, &ph, err, errlen) == -1)
		return KDF_VERIFY_ERROR;
	kdf_params_init(&kp, ph.alg);
	kp.backend = kdf_backend_resolve(backend, ph.alg);
	kp.version = ph.version;
	kp.m_kib = ph.m_kib;
	kp.t = ph.t;
	kp.p = ph.p;
	kp.hashlen = (uint32_t)ph.hashlen;
	vin.salt = ph.salt;
	vin.saltlen = ph.saltlen;
	if (kdf_params_check(&kp, &vin, err, errlen) == -1)
		goto done;

	if (kp.backend == KDF_BACKEND_LIBSODIUM) {
		/* libsodium parses and checks the string itself. */
		rc = kdf_sodium_argon2_verify(encoded, &kp, &vin, err, errlen);
		goto done;
	}
	if (kdf_argon2_hash(&kp, &vin, raw, err, errlen) == -1)
		goto done;
	rc = sodium_memcmp(raw, ph.hash, ph.hashlen) == 0 ?
	    KDF_VERIFY_OK : KDF_VERIFY_MISMATCH;
done:
	sodium_memzero(raw, sizeof(raw));
	sodium_memzero(&ph, sizeof(ph));
	return rc;
}

int
kdf_verify(const char *encoded, const struct kdf_input *in,
    enum kdf_backend backend, char *err, size_t errlen)
{
	struct kdf_params	kp;

	if (in->pwdlen > KDF_PASSWORD_MAX) {
		kdf_seterr(err, errlen, "password is longer than %d bytes",
		    KDF_PASSWORD_MAX);
		return KDF_VERIFY_ERROR;
	}
	if (kdf_identify(encoded, &kp, err, errlen) == -1)
		return KDF_VERIFY_ERROR;
	if (kdf_alg_is_argon2(kp.alg))
		return kdf_verify_argon2(encoded, in, backend, err, errlen);

	if (backend != KDF_BACKEND_AUTO &&
	    backend != kdf_backend_resolve(KDF_BACKEND_AUTO, kp.alg)) {
		kdf_seterr(err, errlen, "%s cannot verify %s strings",
		    kdf_backend_name(backend), kdf_alg_name(kp.alg));
		return KDF_VERIFY_ERROR;
	}
	if (in->secretlen > 0 || in->adlen > 0) {
		kdf_seterr(err, errlen, "%s takes no secret or associated data",
		    kdf_alg_name(kp.alg));
		return KDF_VERIFY_ERROR;
	}
	if (kp.alg == KDF_ALG_SCRYPT)
		return kdf_scrypt_verify(encoded, in, err, errlen);
	return kdf_bcrypt_verify(encoded, in, err, errlen);
}

/* An entry point of backend's library, as dladdr() takes it, or NULL. */
static void *
kdf_library_entry(enum kdf_backend backend, const char **want)
{
	/* A function's address as an object pointer (POSIX allows it). */
	union {
		int		(*argon2)(argon2_context *, argon2_type);
		int		(*sodium)(unsigned char *, unsigned long long,
				    const char *, unsigned long long,
				    const unsigned char *, unsigned long long,
				    size_t, int);
		void		*p;
	}		fn;

	if (backend == KDF_BACKEND_LIBARGON2) {
		fn.argon2 = argon2_ctx;
		*want = "libargon2";
	} else if (backend == KDF_BACKEND_LIBSODIUM) {
		fn.sodium = crypto_pwhash;
		*want = "libsodium";
	} else
		return NULL;
	return fn.p;
}

/* kdf.h */
int
kdf_library_file(enum kdf_backend backend, char *buf, size_t len)
{
	Dl_info		 info;
	const char	*want;
	void		*fn;

	if ((fn = kdf_library_entry(backend, &want)) == NULL)
		return -1;
	memset(&info, 0, sizeof(info));
	if (dladdr(fn, &info) == 0 || info.dli_fname == NULL ||
	    strstr(info.dli_fname, want) == NULL ||
	    strstr(info.dli_fname, ".so") == NULL)
		return -1;
	if (snprintf(buf, len, "%s", info.dli_fname) >= (int)len)
		return -1;
	return 0;
}

int
kdf_library_id(enum kdf_backend backend, char *buf, size_t len)
{
	const char		*want;
	char			 line[4096], dev[32];
	unsigned long long	 lo, hi, ino;
	uintptr_t		 at;
	void			*fn;
	FILE			*fp;
	int			 rc = -1;

	/* In a shared object of that library (not a static link). */
	if ((fn = kdf_library_entry(backend, &want)) == NULL ||
	    kdf_library_file(backend, line, sizeof(line)) == -1 ||
	    (fp = fopen("/proc/self/maps", "re")) == NULL)
		return -1;
	at = (uintptr_t)fn;
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (sscanf(line, "%llx-%llx %*s %*s %31s %llu", &lo, &hi, dev,
		    &ino) != 4 || at < lo || at >= hi)
			continue;
		/* The file that mapping is of. */
		if (ino != 0 && snprintf(buf, len, "%s %llu", dev, ino) <
		    (int)len)
			rc = 0;
		break;
	}
	fclose(fp);
	return rc;
}

int
kdf_library_is(enum kdf_backend backend, const char *id)
{
	char	own[64];

	return id != NULL && id[0] != '\0' &&
	    kdf_library_id(backend, own, sizeof(own)) == 0 &&
	    strcmp(own, id) == 0;
}
