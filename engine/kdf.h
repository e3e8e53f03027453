/*
 * engine/kdf: one interface over every password hashing backend pwtune
 * measures and verifies.
 *
 *   libargon2  Argon2d, Argon2i, Argon2id; versions 0x10 and 0x13; secret
 *              key and associated data; any number of lanes.
 *   libsodium  Argon2id and Argon2i through crypto_pwhash (version 0x13,
 *              one lane, 16-byte salt, no secret or associated data) and
 *              scrypt through crypto_pwhash_scryptsalsa208sha256 ($7$).
 *   libcrypt   bcrypt ($2b$, and $2y$/$2a$ for verification), cost 4 to 31.
 *
 * Every call validates its inputs against the limits below before touching a
 * library, and every failure fills the caller's error buffer with a reason
 * (lower case, no full stop). Passwords, secrets and derived keys that the
 * engine copies are wiped before the memory is released; the caller owns and
 * wipes its own buffers.
 */
#ifndef PWTUNE_KDF_H
#define PWTUNE_KDF_H

#include <stddef.h>
#include <stdint.h>

/* Limits enforced on every input; the daemon and the command line share them. */
#define KDF_PASSWORD_MAX	4096		/* bytes */
#define KDF_SALT_MIN		8		/* bytes (RFC 9106: 16 recommended) */
#define KDF_SALT_MAX		64		/* bytes */
#define KDF_HASH_MIN		4		/* bytes (RFC 9106: 32 recommended) */
#define KDF_HASH_MAX		64		/* bytes */
#define KDF_SECRET_MAX		64		/* bytes */
#define KDF_AD_MAX		1024		/* bytes */
#define KDF_ARGON2_M_MIN	8		/* KiB, and at least 8 * p */
#define KDF_LIBSODIUM_ARGON2I_T_MIN 3	/* crypto_pwhash_argon2i's */
#define KDF_ARGON2_M_MAX	UINT32_C(0xFFFFFFFF) /* KiB, Argon2's own cap */
#define KDF_ARGON2_T_MAX	UINT32_C(0xFFFFFFFF)
#define KDF_ARGON2_P_MAX	UINT32_C(0xFFFFFF)
#define KDF_THREADS_MAX		256		/* lanes beyond this share threads */
#define KDF_SCRYPT_LN_MIN	1
#define KDF_SCRYPT_LN_MAX	63
#define KDF_SCRYPT_HASH		32		/* bytes in a $7$ string */
#define KDF_BCRYPT_COST_MIN	4
#define KDF_BCRYPT_COST_MAX	31
#define KDF_BCRYPT_SALT		16		/* bytes */
#define KDF_BCRYPT_PASSWORD_MAX	72		/* bytes bcrypt reads */
#define KDF_ENCODED_MAX		256		/* characters, without the NUL */

enum kdf_alg {
	KDF_ALG_ARGON2D,
	KDF_ALG_ARGON2I,
	KDF_ALG_ARGON2ID,
	KDF_ALG_SCRYPT,
	KDF_ALG_BCRYPT
};

enum kdf_backend {
	KDF_BACKEND_AUTO,	/* libargon2 for Argon2, libsodium for scrypt,
				   libcrypt for bcrypt */
	KDF_BACKEND_LIBARGON2,
	KDF_BACKEND_LIBSODIUM,
	KDF_BACKEND_LIBCRYPT
};

/* Results of kdf_verify(). */
#define KDF_VERIFY_OK		0
#define KDF_VERIFY_MISMATCH	1
#define KDF_VERIFY_ERROR	(-1)

/*
 * The cost parameters of one hash. Which fields count depends on alg:
 * Argon2 uses version, m_kib, t, p and hashlen; scrypt uses ln, r, p and
 * hashlen; bcrypt uses cost only.
 */
struct kdf_params {
	enum kdf_alg		alg;
	enum kdf_backend	backend;
	uint32_t		version;	/* Argon2: 0x10 or 0x13 */
	uint32_t		m_kib;		/* Argon2: memory in KiB */
	uint32_t		t;		/* Argon2: passes */
	uint32_t		p;		/* Argon2: lanes; scrypt: p */
	uint32_t		ln;		/* scrypt: log2(N) */
	uint32_t		r;		/* scrypt: block size */
	uint32_t		cost;		/* bcrypt: log2(rounds) */
	uint32_t		hashlen;	/* Argon2, scrypt: output bytes */
};

/* What is hashed. Pointers may be NULL when their length is 0. */
struct kdf_input {
	const uint8_t	*pwd;
	size_t		 pwdlen;
	const uint8_t	*salt;
	size_t		 saltlen;
	const uint8_t	*secret;	/* Argon2 with libargon2 only */
	size_t		 secretlen;
	const uint8_t	*ad;		/* Argon2 with libargon2 only */
	size_t		 adlen;
};

/* kdf.c */

/*
 * Fill *kp with the defaults for alg: RFC 9106's second recommendation for
 * Argon2 (m = 64 MiB, t = 3, p = 4, 32-byte tag, version 0x13), N = 2^15,
 * r = 8, p = 1 for scrypt, cost 12 for bcrypt. backend is AUTO.
 */
void	 kdf_params_init(struct kdf_params *kp, enum kdf_alg alg);

/*
 * Check kp and in against the limits above and against what the chosen
 * backend supports. Returns 0, or -1 with the reason in err.
 */
int	 kdf_params_check(const struct kdf_params *kp,
	    const struct kdf_input *in, char *err, size_t errlen);

/*
 * Bytes of working memory one hash with kp needs (Argon2: m KiB rounded as
 * Argon2 rounds it; scrypt: 128 * r * (N + p + 1); bcrypt: 4 KiB).
 */
uint64_t kdf_params_memory(const struct kdf_params *kp);

/*
 * Hash in with kp. out, when not NULL, receives kp->hashlen raw bytes
 * (bcrypt has no raw form: out must be NULL). encoded, when not NULL,
 * receives the NUL-terminated string ($argon2id$..., $7$..., $2b$...), and
 * must hold encodedlen >= KDF_ENCODED_MAX + 1 bytes. Returns 0, or -1 with
 * the reason in err; on failure out and encoded are wiped.
 */
int	 kdf_hash(const struct kdf_params *kp, const struct kdf_input *in,
	    uint8_t *out, char *encoded, size_t encodedlen,
	    char *err, size_t errlen);

/*
 * Parse an encoded string of any supported kind into *kp (the salt and hash
 * it carries are not returned; see phc.h for those). Returns 0, or -1 with
 * the reason the string is malformed in err.
 */
int	 kdf_identify(const char *encoded, struct kdf_params *kp,
	    char *err, size_t errlen);

/*
 * Verify in->pwd (with in->secret and in->ad for Argon2; in->salt is
 * ignored) against encoded, computing with backend (AUTO picks the
 * library that supports the string fully). Returns KDF_VERIFY_OK,
 * KDF_VERIFY_MISMATCH, or KDF_VERIFY_ERROR with the reason in err (a
 * malformed string, parameters the backend cannot compute, or a library
 * failure). The comparison runs in constant time.
 */
int	 kdf_verify(const char *encoded, const struct kdf_input *in,
	    enum kdf_backend backend, char *err, size_t errlen);

/* "argon2id", "scrypt", ...; NULL for an unknown value. */
const char *kdf_alg_name(enum kdf_alg alg);
/* "Argon2id" as the reference argon2 command prints it. */
const char *kdf_alg_title(enum kdf_alg alg);
/* Parse "argon2id", "id", ... Returns 0, or -1 for an unknown name. */
int	 kdf_alg_parse(const char *name, enum kdf_alg *alg);
int	 kdf_alg_is_argon2(enum kdf_alg alg);

/* "libargon2", "libsodium", "libcrypt", "auto". */
const char *kdf_backend_name(enum kdf_backend backend);

/*
 * libargon2's memory through libc's malloc (on), as programs that link it
 * take it, or mmap'd afresh for every hash (the default: a long-running
 * process gives it back at once). For the benchmark children, whose hashes
 * must cost what the clients' do. Process-wide; not thread-safe to change.
 * Through malloc, a size under KDF_MALLOC_REUSE_KIB (glibc's largest
 * mmap threshold on 64 bits) is reused hash to hash once the heap holds
 * it (the third hash of a process on), where a larger one is mapped and
 * faulted in afresh each hash.
 */
#define KDF_MALLOC_REUSE_KIB	32768
void	 kdf_argon2_libc_memory(int on);
int	 kdf_backend_parse(const char *name, enum kdf_backend *backend);
/*
 * The shared library this process hashes backend through (libargon2 or
 * libsodium, as the dynamic linker loaded it: what the model's curve of
 * it measured): its file into buf (kdf_library_file), or its identity
 * as /proc/self/maps gives it, "DEV INODE" ("fe:01 1315133", the mapping
 * that holds its entry point: kdf_library_id). 0, or -1 when backend is
 * another or its code is not in a shared object (a static link).
 */
int	 kdf_library_file(enum kdf_backend backend, char *buf, size_t len);
int	 kdf_library_id(enum kdf_backend backend, char *buf, size_t len);
/*
 * 1 when id ("DEV INODE", as another process's map gave it) is
 * kdf_library_id(backend): a runtime that mapped it hashes with the very
 * code the curve measured (an upgraded file on disk is another inode);
 * else 0. Nothing is looked up by a name another process chose.
 */
int	 kdf_library_is(enum kdf_backend backend, const char *id);
/*
 * The least t backend hashes variant at: libsodium's Argon2i 3
 * (KDF_LIBSODIUM_ARGON2I_T_MIN), 1 otherwise.
 */
uint32_t kdf_t_min(enum kdf_backend backend, enum kdf_alg variant);
/* The backend AUTO resolves to for alg. */
enum kdf_backend kdf_backend_resolve(enum kdf_backend backend,
	    enum kdf_alg alg);

#endif /* PWTUNE_KDF_H */
