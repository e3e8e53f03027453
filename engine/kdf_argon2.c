/*
 * engine/kdf_argon2.c: the libargon2 backend (the reference implementation,
 * as Debian builds it: portable code, no SIMD).
 *
 * Argon2's memory is taken with mmap and given back with munmap, so that it
 * returns to the operating system after every hash whatever its size: glibc
 * keeps malloc'd blocks below its dynamic mmap threshold (up to 32 MiB) in
 * the heap, which would make a long-running process look as if it leaked.
 *
 * The benchmark children take it through libc's malloc instead
 * (kdf_argon2_libc_memory), as the programs that link libargon2 do (PHP's
 * password_hash, Python's argon2-cffi): below the threshold their later
 * hashes reuse memory already faulted in, and measured here PHP took 0.55 x
 * the time of a hash with memory mapped afresh at 16 MiB.
 */
#include <sys/mman.h>

#include <string.h>

#include <argon2.h>

#include "kdf_impl.h"

static int	libc_memory;

void
kdf_argon2_libc_memory(int on)
{
	libc_memory = on;
}

static int
kdf_argon2_alloc(uint8_t **memory, size_t bytes)
{
	void	*p;

	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED) {
		*memory = NULL;
		return ARGON2_MEMORY_ALLOCATION_ERROR;
	}
	*memory = p;
	return ARGON2_OK;
}

static void
kdf_argon2_free(uint8_t *memory, size_t bytes)
{
	if (memory != NULL)
		munmap(memory, bytes);
}

static argon2_type
kdf_argon2_type(enum kdf_alg alg)
{
	switch (alg) {
	case KDF_ALG_ARGON2D:
		return Argon2_d;
	case KDF_ALG_ARGON2I:
		return Argon2_i;
	default:
		return Argon2_id;
	}
}

int
kdf_argon2_hash(const struct kdf_params *kp, const struct kdf_input *in,
    uint8_t *out, char *err, size_t errlen)
{
	argon2_context	ctx;
	int		rc;

	memset(&ctx, 0, sizeof(ctx));
	ctx.out = out;
	ctx.outlen = kp->hashlen;
	/* libargon2 takes non-const pointers but only reads these. */
	ctx.pwd = (uint8_t *)(uintptr_t)in->pwd;
	ctx.pwdlen = (uint32_t)in->pwdlen;
	ctx.salt = (uint8_t *)(uintptr_t)in->salt;
	ctx.saltlen = (uint32_t)in->saltlen;
	ctx.secret = (uint8_t *)(uintptr_t)in->secret;
	ctx.secretlen = (uint32_t)in->secretlen;
	ctx.ad = (uint8_t *)(uintptr_t)in->ad;
	ctx.adlen = (uint32_t)in->adlen;
	ctx.t_cost = kp->t;
	ctx.m_cost = kp->m_kib;
	ctx.lanes = kp->p;
	/* The hash does not depend on the thread count: cap it. */
	ctx.threads = kp->p < KDF_THREADS_MAX ? kp->p : KDF_THREADS_MAX;
	ctx.version = kp->version;
	if (!libc_memory) {
		ctx.allocate_cbk = kdf_argon2_alloc;
		ctx.free_cbk = kdf_argon2_free;
	}
	ctx.flags = ARGON2_DEFAULT_FLAGS;

	rc = argon2_ctx(&ctx, kdf_argon2_type(kp->alg));
	if (rc != ARGON2_OK) {
		kdf_seterr(err, errlen, "libargon2: %s",
		    argon2_error_message(rc));
		memset(out, 0, kp->hashlen);
		return -1;
	}
	return 0;
}
