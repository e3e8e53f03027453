/*
 * engine/presets: parameter sets users know, from standards, libraries,
 * frameworks and the seed tools (see REFERENCE.md in the design notes).
 */
#ifndef PWTUNE_PRESETS_H
#define PWTUNE_PRESETS_H

#include <stddef.h>
#include <stdint.h>

#include "kdf.h"

struct preset {
	const char	*name;		/* "Argon2idFast", "OWASP-2", ... */
	const char	*source;	/* where it comes from */
	enum kdf_alg	 alg;
	uint32_t	 m_kib;		/* Argon2 */
	uint32_t	 t;
	uint32_t	 p;
	uint32_t	 cost;		/* bcrypt */
};

/* presets.c */

/* All presets, in a stable order; *n receives the count. */
const struct preset *preset_list(size_t *n);

/* The preset named name (case does not matter), or NULL. */
const struct preset *preset_find(const char *name);

/*
 * Fill *kp from preset (backend AUTO, 32-byte hash, version 0x13).
 */
void	 preset_params(const struct preset *preset, struct kdf_params *kp);

#endif /* PWTUNE_PRESETS_H */
