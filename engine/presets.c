/*
 * engine/presets.c: the table of known parameter sets.
 */
#include <strings.h>

#include "presets.h"

#define A2ID	KDF_ALG_ARGON2ID

static const struct preset presets[] = {
	/* The seed CLI's presets (hash-cpu-bench). */
	{ "Argon2idFast", "seed CLI", A2ID, 65536, 2, 1, 0 },
	{ "Argon2idSecure", "seed CLI", A2ID, 262144, 4, 2, 0 },
	{ "Argon2i", "seed CLI", KDF_ALG_ARGON2I, 131072, 3, 1, 0 },
	{ "Argon2d", "seed CLI", KDF_ALG_ARGON2D, 131072, 3, 1, 0 },
	{ "Bcrypt10", "seed CLI", KDF_ALG_BCRYPT, 0, 0, 0, 10 },
	{ "Bcrypt12", "seed CLI", KDF_ALG_BCRYPT, 0, 0, 0, 12 },
	{ "Bcrypt14", "seed CLI", KDF_ALG_BCRYPT, 0, 0, 0, 14 },
	/* OWASP Password Storage Cheat Sheet: equal-defence minimums. */
	{ "OWASP-1", "OWASP", A2ID, 47104, 1, 1, 0 },
	{ "OWASP-2", "OWASP", A2ID, 19456, 2, 1, 0 },
	{ "OWASP-3", "OWASP", A2ID, 12288, 3, 1, 0 },
	{ "OWASP-4", "OWASP", A2ID, 9216, 4, 1, 0 },
	{ "OWASP-5", "OWASP", A2ID, 7168, 5, 1, 0 },
	/* RFC 9106 section 4. */
	{ "RFC9106-first", "RFC 9106", A2ID, 2097152, 1, 4, 0 },
	{ "RFC9106-second", "RFC 9106", A2ID, 65536, 3, 4, 0 },
	/* libsodium's crypto_pwhash limits (always p = 1). */
	{ "libsodium-interactive", "libsodium", A2ID, 65536, 2, 1, 0 },
	{ "libsodium-moderate", "libsodium", A2ID, 262144, 3, 1, 0 },
	{ "libsodium-sensitive", "libsodium", A2ID, 1048576, 4, 1, 0 },
	/* Library and framework defaults. */
	{ "argon2-cffi", "argon2-cffi default", A2ID, 65536, 3, 4, 0 },
	{ "PHP", "PHP password_hash default", A2ID, 65536, 4, 1, 0 },
	{ "Django", "Django default", A2ID, 102400, 2, 8, 0 },
	{ "Spring", "Spring Security 5.8", A2ID, 16384, 2, 1, 0 },
	{ "Keycloak", "Keycloak default", A2ID, 7168, 5, 1, 0 },
};

const struct preset *
preset_list(size_t *n)
{
	*n = sizeof(presets) / sizeof(presets[0]);
	return presets;
}

const struct preset *
preset_find(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (strcasecmp(presets[i].name, name) == 0)
			return &presets[i];
	return NULL;
}

void
preset_params(const struct preset *preset, struct kdf_params *kp)
{
	kdf_params_init(kp, preset->alg);
	if (preset->alg == KDF_ALG_BCRYPT) {
		kp->cost = preset->cost;
		return;
	}
	kp->m_kib = preset->m_kib;
	kp->t = preset->t;
	kp->p = preset->p;
	kp->hashlen = 32;
}
