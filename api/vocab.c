/*
 * api/vocab.c: one name for one thing in every answer (docs/OPERATIONS.md,
 * "Vocabulary"). A predicted time is {"percentile", "ms", "p50_ms"}; a
 * size carries its unit in its name (_kib for Argon2's memory, as m= of a
 * PHC string; _bytes for a host's, as the kernel counts it); what is not
 * known is null, never "". The names these replaced stay one minor
 * version, marked deprecated in openapi.json and the README.
 */
#include <string.h>

#include "api.h"

json_t *
api_predicted_json(int percentile, double ms, double p50_ms)
{
	return json_pack("{s:i, s:f, s:o}", "percentile", percentile, "ms",
	    ms, "p50_ms", p50_ms >= 0 ? json_real(p50_ms) : json_null());
}

json_t *
api_null_if_empty(const char *s)
{
	return s != NULL && s[0] != '\0' ? json_string(s) : json_null();
}

void
api_answer_vocab(json_t *j)
{
	json_t	*lat = json_object_get(j, "latency"), *sod, *ml;

	if (lat != NULL)
		json_object_set_new(j, "predicted", api_predicted_json(
		    (int)json_integer_value(json_object_get(lat,
		    "percentile")), json_number_value(json_object_get(lat,
		    "predicted_ms")), json_number_value(json_object_get(lat,
		    "predicted_p50_ms"))));
	/* libsodium's memlimit is in bytes: crypto_pwhash takes bytes. */
	if ((sod = json_object_get(j, "libsodium")) != NULL &&
	    (ml = json_object_get(sod, "memlimit")) != NULL)
		json_object_set(sod, "memlimit_bytes", ml);
}
