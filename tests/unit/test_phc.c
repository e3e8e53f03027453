/*
 * tests/unit/test_phc.c: the PHC codec on a folder of cases
 * (tests/phc/cases.txt: each line says what must come back) and base64 on
 * its edges.
 */
#include <sodium.h>

#include "phc.h"
#include "test.h"

/* Path of the cases file: the first argument that names no test. */
static const char *
cases_path(void)
{
	if (test_argc < 1)
		TEST_FAIL("usage: test_phc [TEST...] CASES_FILE");
	return test_argv[0];
}

/*
 * Each line is "ok<TAB>STRING" or "error<TAB>REASON<TAB>STRING"; REASON
 * must appear in the error message. Blank lines and # comments are skipped.
 * "\t" inside STRING is written as is: no case needs a tab.
 */
TEST(cases_file)
{
	FILE			*fp;
	char			 line[4096], err[256], again[KDF_ENCODED_MAX + 1];
	char			*kind, *reason, *s, *nl;
	struct phc_argon2	 ph;
	int			 lineno = 0, n_ok = 0, n_err = 0;

	if ((fp = fopen(cases_path(), "r")) == NULL)
		TEST_FAIL("cannot open %s", cases_path());
	while (fgets(line, sizeof(line), fp) != NULL) {
		lineno++;
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		kind = line;
		if ((s = strchr(kind, '\t')) == NULL)
			TEST_FAIL("line %d: no tab", lineno);
		*s++ = '\0';
		if (strcmp(kind, "ok") == 0) {
			if (phc_decode(s, &ph, err, sizeof(err)) != 0)
				TEST_FAIL("line %d: %s rejected: %s", lineno, s,
				    err);
			/* A string with v= is re-encoded to itself. */
			if (strstr(s, "$v=") != NULL) {
				ASSERT(phc_encode(&ph, again, sizeof(again)) > 0);
				if (strcmp(again, s) != 0)
					TEST_FAIL("line %d: re-encoded as %s",
					    lineno, again);
			}
			n_ok++;
		} else if (strcmp(kind, "error") == 0) {
			reason = s;
			if ((s = strchr(reason, '\t')) == NULL)
				TEST_FAIL("line %d: no string", lineno);
			*s++ = '\0';
			err[0] = '\0';
			if (phc_decode(s, &ph, err, sizeof(err)) == 0)
				TEST_FAIL("line %d: %s accepted", lineno, s);
			if (strstr(err, reason) == NULL)
				TEST_FAIL("line %d: %s: error \"%s\" does not "
				    "say \"%s\"", lineno, s, err, reason);
			n_err++;
		} else
			TEST_FAIL("line %d: unknown kind %s", lineno, kind);
	}
	fclose(fp);
	printf("  %d good and %d bad strings\n", n_ok, n_err);
	ASSERT(n_ok >= 5);
	ASSERT(n_err >= 20);
}

TEST(over_long_strings)
{
	char			s[KDF_ENCODED_MAX + 64], err[256];
	struct phc_argon2	ph;

	memset(s, 'A', sizeof(s) - 1);
	s[sizeof(s) - 1] = '\0';
	memcpy(s, "$argon2id$v=19$m=65536,t=3,p=4$", 31);
	ASSERT_EQ(phc_decode(s, &ph, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "longer than 256 characters");
}

TEST(decoded_fields)
{
	struct phc_argon2	ph;
	char			err[256];

	ASSERT_EQ(phc_decode("$argon2d$v=16$m=4294967295,t=4294967295,"
	    "p=16777215$c29tZXNhbHQ$AAAAAA", &ph, err, sizeof(err)), 0);
	ASSERT_EQ(ph.alg, KDF_ALG_ARGON2D);
	ASSERT_EQ(ph.version, 0x10);
	ASSERT_UEQ(ph.m_kib, 4294967295U);
	ASSERT_UEQ(ph.t, 4294967295U);
	ASSERT_UEQ(ph.p, 16777215U);
	ASSERT_EQ(ph.saltlen, 8);
	ASSERT_MEM_EQ(ph.salt, "somesalt", 8);
	ASSERT_EQ(ph.hashlen, 4);
	/* No version field means 0x10, as libargon2 reads it. */
	ASSERT_EQ(phc_decode("$argon2i$m=8,t=1,p=1$c29tZXNhbHQ$AAAAAA", &ph,
	    err, sizeof(err)), 0);
	ASSERT_EQ(ph.version, 0x10);
}

TEST(base64_roundtrip_all_lengths)
{
	uint8_t	src[64], back[64];
	char	text[100];
	size_t	n;
	int	len;

	for (n = 0; n < sizeof(src); n++)
		src[n] = (uint8_t)(n * 37 + 11);
	for (n = 0; n <= sizeof(src); n++) {
		len = phc_b64_encode(src, n, text, sizeof(text));
		ASSERT_EQ(len, (int)((n * 4 + 2) / 3));
		ASSERT_EQ(phc_b64_decode(text, (size_t)len, back, sizeof(back)),
		    (int)n);
		ASSERT_MEM_EQ(src, back, n);
		/* libsodium's decoder agrees (unpadded original variant). */
		if (n > 0) {
			uint8_t	chk[64];
			size_t	chklen;

			ASSERT_EQ(sodium_base642bin(chk, sizeof(chk), text,
			    (size_t)len, NULL, &chklen, NULL,
			    sodium_base64_VARIANT_ORIGINAL_NO_PADDING), 0);
			ASSERT_EQ(chklen, n);
			ASSERT_MEM_EQ(chk, src, n);
		}
	}
}

TEST(base64_rejects)
{
	uint8_t	out[16];
	char	small[3];

	ASSERT_EQ(phc_b64_decode("QQ==", 4, out, sizeof(out)), -1);	/* pad */
	ASSERT_EQ(phc_b64_decode("Q", 1, out, sizeof(out)), -1);	/* 6 bits */
	ASSERT_EQ(phc_b64_decode("QR", 2, out, sizeof(out)), -1);	/* stray */
	ASSERT_EQ(phc_b64_decode("QQ", 2, out, sizeof(out)), 1);
	ASSERT_EQ(phc_b64_decode("Q-Q", 3, out, sizeof(out)), -1);	/* url */
	ASSERT_EQ(phc_b64_decode("QUFB", 4, out, 2), -1);	/* too small */
	ASSERT_EQ(phc_b64_encode((const uint8_t *)"AAA", 3, small,
	    sizeof(small)), -1);
}

TEST_LIST(
	TEST_ENTRY(cases_file),
	TEST_ENTRY(over_long_strings),
	TEST_ENTRY(decoded_fields),
	TEST_ENTRY(base64_roundtrip_all_lengths),
	TEST_ENTRY(base64_rejects)
)
