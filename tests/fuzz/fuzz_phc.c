/*
 * tests/fuzz/fuzz_phc.c: the PHC parser. Whatever it accepts must encode
 * back to a string that decodes to the same parameters, salt and hash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "phc.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct phc_argon2	a, b;
	char			*s, err[256], out[1024];

	if (size > 4096)
		return 0;
	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (phc_decode(s, &a, err, sizeof(err)) == 0) {
		if (phc_encode(&a, out, sizeof(out)) < 0)
			abort();	/* accepted but cannot be written */
		if (phc_decode(out, &b, err, sizeof(err)) != 0)
			abort();	/* what we write, we must read */
		if (a.alg != b.alg || a.version != b.version ||
		    a.m_kib != b.m_kib || a.t != b.t || a.p != b.p ||
		    a.saltlen != b.saltlen || a.hashlen != b.hashlen ||
		    memcmp(a.salt, b.salt, a.saltlen) != 0 ||
		    memcmp(a.hash, b.hash, a.hashlen) != 0)
			abort();
	}
	free(s);
	return 0;
}
