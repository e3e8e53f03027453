/*
 * tests/unit/test_kdf.c: engine/kdf against published test vectors, across
 * backends, and on its error paths.
 */
#include <sodium.h>

#include "kdf.h"
#include "phc.h"
#include "test.h"

static void
unhex(const char *hex, uint8_t *out, size_t n)
{
	size_t		i;
	unsigned	b;

	ASSERT_EQ(strlen(hex), 2 * n);
	for (i = 0; i < n; i++) {
		ASSERT(sscanf(hex + 2 * i, "%2x", &b) == 1);
		out[i] = (uint8_t)b;
	}
}

/*
 * RFC 9106 section 5: password 32 x 0x01, salt 16 x 0x02, secret 8 x 0x03,
 * associated data 12 x 0x04, m = 32 KiB, t = 3, p = 4, 32-byte tag. The
 * version 0x10 tags are those of the reference implementation's kats/.
 */
static void
rfc9106_vector(enum kdf_alg alg, uint32_t version, const char *tag_hex)
{
	struct kdf_params	kp;
	struct kdf_input	in;
	uint8_t			pwd[32], salt[16], secret[8], ad[12];
	uint8_t			want[32], got[32];
	char			err[256];

	memset(pwd, 0x01, sizeof(pwd));
	memset(salt, 0x02, sizeof(salt));
	memset(secret, 0x03, sizeof(secret));
	memset(ad, 0x04, sizeof(ad));
	in = (struct kdf_input){ pwd, sizeof(pwd), salt, sizeof(salt),
	    secret, sizeof(secret), ad, sizeof(ad) };
	kdf_params_init(&kp, alg);
	kp.version = version;
	kp.m_kib = 32;
	kp.t = 3;
	kp.p = 4;
	kp.hashlen = 32;
	unhex(tag_hex, want, sizeof(want));
	if (kdf_hash(&kp, &in, got, NULL, 0, err, sizeof(err)) != 0)
		TEST_FAIL("kdf_hash: %s", err);
	ASSERT_MEM_EQ(got, want, sizeof(want));
}

TEST(rfc9106_argon2d)
{
	rfc9106_vector(KDF_ALG_ARGON2D, 0x13,
	    "512b391b6f1162975371d30919734294f868e3be3984f3c1a13a4db9fabe4acb");
}

TEST(rfc9106_argon2i)
{
	rfc9106_vector(KDF_ALG_ARGON2I, 0x13,
	    "c814d9d1dc7f37aa13f0d77f2494bda1c8de6b016dd388d29952a4c4672b6ce8");
}

TEST(rfc9106_argon2id)
{
	rfc9106_vector(KDF_ALG_ARGON2ID, 0x13,
	    "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659");
}

TEST(reference_v10_argon2d)
{
	rfc9106_vector(KDF_ALG_ARGON2D, 0x10,
	    "96a9d4e5a1734092c85e29f410a45914a5dd1f5cbf08b2670da68a0285abf32b");
}

TEST(reference_v10_argon2i)
{
	rfc9106_vector(KDF_ALG_ARGON2I, 0x10,
	    "87aeedd6517ab830cd9765cd8231abb2e647a5dee08f7c05e02fcb763335d0fd");
}

TEST(reference_v10_argon2id)
{
	rfc9106_vector(KDF_ALG_ARGON2ID, 0x10,
	    "b64615f07789b66b645b67ee9ed3b377ae350b6bfcbb0fc95141ea8f322613c0");
}

/* Hash with one backend, verify with the other, both ways. */
static void
roundtrip(enum kdf_alg alg, enum kdf_backend from, enum kdf_backend to,
    uint32_t m_kib, uint32_t t)
{
	static const uint8_t	 salt[16] = "0123456789abcdef";
	static const char	 pwd[] = "correct horse battery staple";
	struct kdf_params	 kp;
	struct kdf_input	 in = { (const uint8_t *)pwd, sizeof(pwd) - 1,
				    salt, sizeof(salt), NULL, 0, NULL, 0 };
	char			 enc[KDF_ENCODED_MAX + 1], err[256];
	uint8_t			 raw_from[32], raw_to[32];

	kdf_params_init(&kp, alg);
	kp.m_kib = m_kib;
	kp.t = t;
	kp.p = 1;
	kp.backend = from;
	if (kdf_hash(&kp, &in, raw_from, enc, sizeof(enc), err,
	    sizeof(err)) != 0)
		TEST_FAIL("hash with %s: %s", kdf_backend_name(from), err);
	ASSERT_EQ(kdf_verify(enc, &in, to, err, sizeof(err)), KDF_VERIFY_OK);

	/* The same raw bytes from the other backend. */
	kp.backend = to;
	if (kdf_hash(&kp, &in, raw_to, NULL, 0, err, sizeof(err)) != 0)
		TEST_FAIL("hash with %s: %s", kdf_backend_name(to), err);
	ASSERT_MEM_EQ(raw_from, raw_to, sizeof(raw_to));

	/* A wrong password is a mismatch on both. */
	in.pwdlen--;
	ASSERT_EQ(kdf_verify(enc, &in, to, err, sizeof(err)),
	    KDF_VERIFY_MISMATCH);
	ASSERT_EQ(kdf_verify(enc, &in, from, err, sizeof(err)),
	    KDF_VERIFY_MISMATCH);
}

TEST(roundtrip_argon2id_libargon2_to_libsodium)
{
	roundtrip(KDF_ALG_ARGON2ID, KDF_BACKEND_LIBARGON2,
	    KDF_BACKEND_LIBSODIUM, 1024, 2);
}

TEST(roundtrip_argon2id_libsodium_to_libargon2)
{
	roundtrip(KDF_ALG_ARGON2ID, KDF_BACKEND_LIBSODIUM,
	    KDF_BACKEND_LIBARGON2, 4096, 1);
}

TEST(roundtrip_argon2i_libargon2_to_libsodium)
{
	roundtrip(KDF_ALG_ARGON2I, KDF_BACKEND_LIBARGON2,
	    KDF_BACKEND_LIBSODIUM, 1024, 3);
}

TEST(roundtrip_argon2i_libsodium_to_libargon2)
{
	roundtrip(KDF_ALG_ARGON2I, KDF_BACKEND_LIBSODIUM,
	    KDF_BACKEND_LIBARGON2, 2048, 4);
}

/* Strings libsodium makes itself (random salt) verify with libargon2. */
TEST(libsodium_str_verifies_with_libargon2)
{
	static const char	 pwd[] = "Tr0ub4dor&3";
	struct kdf_input	 in = { (const uint8_t *)pwd, sizeof(pwd) - 1,
				    NULL, 0, NULL, 0, NULL, 0 };
	char			 str[crypto_pwhash_STRBYTES], err[256];

	ASSERT_EQ(crypto_pwhash_argon2id_str(str, pwd, sizeof(pwd) - 1, 2,
	    8192 * 1024), 0);
	ASSERT_EQ(kdf_verify(str, &in, KDF_BACKEND_LIBARGON2, err,
	    sizeof(err)), KDF_VERIFY_OK);
	ASSERT_EQ(crypto_pwhash_argon2i_str(str, pwd, sizeof(pwd) - 1, 3,
	    8192 * 1024), 0);
	ASSERT_EQ(kdf_verify(str, &in, KDF_BACKEND_AUTO, err, sizeof(err)),
	    KDF_VERIFY_OK);
	in.pwdlen = 3;
	ASSERT_EQ(kdf_verify(str, &in, KDF_BACKEND_AUTO, err, sizeof(err)),
	    KDF_VERIFY_MISMATCH);
}

/* What libsodium cannot compute is refused with a reason, not computed. */
TEST(libsodium_limits_are_reported)
{
	static const uint8_t	 salt16[16] = "0123456789abcdef";
	struct kdf_params	 kp;
	struct kdf_input	 in = { (const uint8_t *)"pw", 2, salt16, 16,
				    NULL, 0, NULL, 0 };
	uint8_t			 out[32];
	char			 err[256];

	kdf_params_init(&kp, KDF_ALG_ARGON2ID);
	kp.backend = KDF_BACKEND_LIBSODIUM;
	kp.m_kib = 1024;
	kp.p = 2;
	ASSERT_EQ(kdf_hash(&kp, &in, out, NULL, 0, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "p = 1 only");
	kp.p = 1;
	kp.version = 0x10;
	ASSERT_EQ(kdf_hash(&kp, &in, out, NULL, 0, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "0x13 only");
	kp.version = 0x13;
	in.saltlen = 8;
	ASSERT_EQ(kdf_hash(&kp, &in, out, NULL, 0, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "exactly 16 bytes");
	in.saltlen = 16;
	kp.alg = KDF_ALG_ARGON2D;
	ASSERT_EQ(kdf_hash(&kp, &in, out, NULL, 0, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "no Argon2d");
	kp.alg = KDF_ALG_ARGON2I;
	kp.t = 2;
	ASSERT_EQ(kdf_hash(&kp, &in, out, NULL, 0, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "t >= 3");
	kp.alg = KDF_ALG_ARGON2ID;
	in.secret = (const uint8_t *)"k";
	in.secretlen = 1;
	ASSERT_EQ(kdf_hash(&kp, &in, out, NULL, 0, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "no secret");
}

TEST(argon2_limits_are_reported)
{
	static const uint8_t	 salt[64] = { 0 };
	struct kdf_params	 kp;
	struct kdf_input	 in = { (const uint8_t *)"pw", 2, salt, 7,
				    NULL, 0, NULL, 0 };
	uint8_t			 out[KDF_HASH_MAX];
	char			 err[256];

	kdf_params_init(&kp, KDF_ALG_ARGON2ID);
	kp.m_kib = 64;
	ASSERT_EQ(kdf_hash(&kp, &in, out, NULL, 0, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "salt is shorter than 8 bytes");
	in.saltlen = 8;
	kp.p = 9;
	ASSERT_EQ(kdf_hash(&kp, &in, out, NULL, 0, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "at least 8 * p KiB");
	kp.p = 0;
	ASSERT_EQ(kdf_hash(&kp, &in, out, NULL, 0, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "p must be");
	kp.p = 1;
	kp.t = 0;
	ASSERT_EQ(kdf_hash(&kp, &in, out, NULL, 0, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "t must be");
	kp.t = 1;
	kp.hashlen = 65;
	ASSERT_EQ(kdf_hash(&kp, &in, out, NULL, 0, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "hash length is longer than 64");
	kp.hashlen = 3;
	ASSERT_EQ(kdf_hash(&kp, &in, out, NULL, 0, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "hash length is shorter than 4");
	kp.hashlen = 32;
	kp.version = 0x12;
	ASSERT_EQ(kdf_hash(&kp, &in, out, NULL, 0, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "version");
	kp.version = 0x13;
	in.saltlen = 65;
	ASSERT_EQ(kdf_hash(&kp, &in, out, NULL, 0, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "salt is longer than 64 bytes");
	in.saltlen = 16;
	in.pwdlen = KDF_PASSWORD_MAX + 1;
	ASSERT_EQ(kdf_hash(&kp, &in, out, NULL, 0, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "password is longer");
	/* And the valid case passes, so the checks above were the cause. */
	in.pwdlen = 2;
	ASSERT_EQ(kdf_hash(&kp, &in, out, NULL, 0, err, sizeof(err)), 0);
}

TEST(argon2_secret_and_ad_change_the_hash)
{
	static const uint8_t	 salt[16] = "0123456789abcdef";
	struct kdf_params	 kp;
	struct kdf_input	 in = { (const uint8_t *)"pw", 2, salt, 16,
				    NULL, 0, NULL, 0 };
	char			 enc[KDF_ENCODED_MAX + 1], err[256];

	kdf_params_init(&kp, KDF_ALG_ARGON2ID);
	kp.m_kib = 256;
	kp.p = 2;
	in.secret = (const uint8_t *)"pepper";
	in.secretlen = 6;
	in.ad = (const uint8_t *)"user-42";
	in.adlen = 7;
	ASSERT_EQ(kdf_hash(&kp, &in, NULL, enc, sizeof(enc), err,
	    sizeof(err)), 0);
	ASSERT_EQ(kdf_verify(enc, &in, KDF_BACKEND_AUTO, err, sizeof(err)),
	    KDF_VERIFY_OK);
	in.adlen = 0;
	ASSERT_EQ(kdf_verify(enc, &in, KDF_BACKEND_AUTO, err, sizeof(err)),
	    KDF_VERIFY_MISMATCH);
	in.adlen = 7;
	in.secretlen = 5;
	ASSERT_EQ(kdf_verify(enc, &in, KDF_BACKEND_AUTO, err, sizeof(err)),
	    KDF_VERIFY_MISMATCH);
	/* libsodium has no secret: an error, never a silent mismatch. */
	ASSERT_EQ(kdf_verify(enc, &in, KDF_BACKEND_LIBSODIUM, err,
	    sizeof(err)), KDF_VERIFY_ERROR);
}

/* Our $7$ writer against libsodium's own reader, and the other way. */
TEST(scrypt_roundtrip_with_libsodium)
{
	static const char	 pwd[] = "pleaseletmein";
	uint8_t			 salt[32];
	struct kdf_params	 kp;
	struct kdf_input	 in = { (const uint8_t *)pwd, sizeof(pwd) - 1,
				    salt, sizeof(salt), NULL, 0, NULL, 0 };
	char			 enc[KDF_ENCODED_MAX + 1], err[256];
	char			 str[crypto_pwhash_scryptsalsa208sha256_STRBYTES];
	struct kdf_params	 got;

	memset(salt, 0xa5, sizeof(salt));
	kdf_params_init(&kp, KDF_ALG_SCRYPT);
	kp.ln = 10;
	kp.r = 8;
	kp.p = 1;
	if (kdf_hash(&kp, &in, NULL, enc, sizeof(enc), err, sizeof(err)) != 0)
		TEST_FAIL("scrypt: %s", err);
	ASSERT_EQ(strncmp(enc, "$7$", 3), 0);
	ASSERT_EQ(crypto_pwhash_scryptsalsa208sha256_str_verify(enc, pwd,
	    sizeof(pwd) - 1), 0);
	ASSERT_EQ(kdf_verify(enc, &in, KDF_BACKEND_AUTO, err, sizeof(err)),
	    KDF_VERIFY_OK);
	ASSERT_EQ(kdf_identify(enc, &got, err, sizeof(err)), 0);
	ASSERT_EQ(got.ln, 10);
	ASSERT_EQ(got.r, 8);
	ASSERT_EQ(got.p, 1);

	ASSERT_EQ(crypto_pwhash_scryptsalsa208sha256_str(str, pwd,
	    sizeof(pwd) - 1, 32768, 1 << 20), 0);
	ASSERT_EQ(kdf_verify(str, &in, KDF_BACKEND_AUTO, err, sizeof(err)),
	    KDF_VERIFY_OK);
	in.pwdlen--;
	ASSERT_EQ(kdf_verify(str, &in, KDF_BACKEND_AUTO, err, sizeof(err)),
	    KDF_VERIFY_MISMATCH);
}

/* The test vector of Colin Percival's escrypt ($7$ with N = 2^14). */
TEST(scrypt_known_vector)
{
	static const char	 pwd[] = "pleaseletmein";
	static const char	 enc[] = "$7$C6..../....SodiumChloride$"
				    "kBGj9fHznVYFQMEn/qDCfrDevf9YDtcDdKvEqHJLV8D";
	struct kdf_input	 in = { (const uint8_t *)pwd, sizeof(pwd) - 1,
				    NULL, 0, NULL, 0, NULL, 0 };
	char			 err[256];

	ASSERT_EQ(kdf_verify(enc, &in, KDF_BACKEND_AUTO, err, sizeof(err)),
	    KDF_VERIFY_OK);
	in.pwdlen--;
	ASSERT_EQ(kdf_verify(enc, &in, KDF_BACKEND_AUTO, err, sizeof(err)),
	    KDF_VERIFY_MISMATCH);
}

TEST(bcrypt_hash_and_verify)
{
	static const uint8_t	 salt[16] = "0123456789abcdef";
	struct kdf_params	 kp, got;
	struct kdf_input	 in = { (const uint8_t *)"hunter2", 7, salt, 16,
				    NULL, 0, NULL, 0 };
	char			 enc[KDF_ENCODED_MAX + 1], err[256];
	uint8_t			 raw[32];
	char			 longpw[80];

	kdf_params_init(&kp, KDF_ALG_BCRYPT);
	kp.cost = 5;
	ASSERT_EQ(kdf_hash(&kp, &in, NULL, enc, sizeof(enc), err, sizeof(err)),
	    0);
	ASSERT_EQ(strncmp(enc, "$2b$05$", 7), 0);
	ASSERT_EQ(strlen(enc), 60);
	ASSERT_EQ(kdf_verify(enc, &in, KDF_BACKEND_AUTO, err, sizeof(err)),
	    KDF_VERIFY_OK);
	ASSERT_EQ(kdf_identify(enc, &got, err, sizeof(err)), 0);
	ASSERT_EQ(got.alg, KDF_ALG_BCRYPT);
	ASSERT_EQ(got.cost, 5);
	in.pwdlen = 6;
	ASSERT_EQ(kdf_verify(enc, &in, KDF_BACKEND_AUTO, err, sizeof(err)),
	    KDF_VERIFY_MISMATCH);
	/* No raw form, no cost outside 4..31, no password over 72 bytes. */
	ASSERT_EQ(kdf_hash(&kp, &in, raw, enc, sizeof(enc), err, sizeof(err)),
	    -1);
	ASSERT_STR_CONTAINS(err, "no raw output");
	kp.cost = 3;
	ASSERT_EQ(kdf_hash(&kp, &in, NULL, enc, sizeof(enc), err, sizeof(err)),
	    -1);
	ASSERT_STR_CONTAINS(err, "cost must be from 4 to 31");
	kp.cost = 4;
	memset(longpw, 'x', sizeof(longpw));
	in.pwd = (const uint8_t *)longpw;
	in.pwdlen = 73;
	ASSERT_EQ(kdf_hash(&kp, &in, NULL, enc, sizeof(enc), err, sizeof(err)),
	    -1);
	ASSERT_STR_CONTAINS(err, "first 72 bytes");
	in.pwdlen = 3;
	longpw[1] = '\0';
	ASSERT_EQ(kdf_hash(&kp, &in, NULL, enc, sizeof(enc), err, sizeof(err)),
	    -1);
	ASSERT_STR_CONTAINS(err, "NUL byte");
}

/* The vector of Solar Designer's crypt_blowfish ("U*U", cost 5). */
TEST(bcrypt_known_vector)
{
	static const char	 enc[] =
	    "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW";
	struct kdf_input	 in = { (const uint8_t *)"U*U", 3, NULL, 0,
				    NULL, 0, NULL, 0 };
	char			 err[256], enc2[sizeof(enc)];

	ASSERT_EQ(kdf_verify(enc, &in, KDF_BACKEND_AUTO, err, sizeof(err)),
	    KDF_VERIFY_OK);
	/* $2b$ and $2y$ spell the same function. */
	memcpy(enc2, enc, sizeof(enc));
	enc2[2] = 'y';
	ASSERT_EQ(kdf_verify(enc2, &in, KDF_BACKEND_AUTO, err, sizeof(err)),
	    KDF_VERIFY_OK);
	/* A libargon2 backend cannot verify bcrypt: an error, not a no. */
	ASSERT_EQ(kdf_verify(enc, &in, KDF_BACKEND_LIBARGON2, err,
	    sizeof(err)), KDF_VERIFY_ERROR);
	ASSERT_STR_CONTAINS(err, "cannot verify bcrypt");
}

TEST(memory_estimates)
{
	struct kdf_params	kp;

	kdf_params_init(&kp, KDF_ALG_ARGON2ID);
	kp.m_kib = 65536;
	kp.p = 4;
	ASSERT_UEQ(kdf_params_memory(&kp), 65536ULL * 1024);
	/* Argon2 rounds m down to a multiple of 4 * p blocks. */
	kp.m_kib = 65537;
	ASSERT_UEQ(kdf_params_memory(&kp), 65536ULL * 1024);
	kp.m_kib = 100;
	kp.p = 3;
	ASSERT_UEQ(kdf_params_memory(&kp), 96ULL * 1024);
	kdf_params_init(&kp, KDF_ALG_SCRYPT);
	kp.ln = 14;
	kp.r = 8;
	kp.p = 1;
	ASSERT(kdf_params_memory(&kp) >= 16ULL << 20);
	ASSERT(kdf_params_memory(&kp) < 17ULL << 20);
}

TEST(names_parse_both_ways)
{
	enum kdf_alg		alg;
	enum kdf_backend	b;

	ASSERT_EQ(kdf_alg_parse("argon2id", &alg), 0);
	ASSERT_EQ(alg, KDF_ALG_ARGON2ID);
	ASSERT_EQ(kdf_alg_parse("d", &alg), 0);
	ASSERT_EQ(alg, KDF_ALG_ARGON2D);
	ASSERT_EQ(kdf_alg_parse("argon3", &alg), -1);
	ASSERT_STR_EQ(kdf_alg_title(KDF_ALG_ARGON2I), "Argon2i");
	ASSERT_EQ(kdf_backend_parse("libsodium", &b), 0);
	ASSERT_EQ(b, KDF_BACKEND_LIBSODIUM);
	ASSERT_EQ(kdf_backend_parse("openssl", &b), -1);
	ASSERT_EQ(kdf_backend_resolve(KDF_BACKEND_AUTO, KDF_ALG_BCRYPT),
	    KDF_BACKEND_LIBCRYPT);
}

TEST_LIST(
	TEST_ENTRY(rfc9106_argon2d),
	TEST_ENTRY(rfc9106_argon2i),
	TEST_ENTRY(rfc9106_argon2id),
	TEST_ENTRY(reference_v10_argon2d),
	TEST_ENTRY(reference_v10_argon2i),
	TEST_ENTRY(reference_v10_argon2id),
	TEST_ENTRY(roundtrip_argon2id_libargon2_to_libsodium),
	TEST_ENTRY(roundtrip_argon2id_libsodium_to_libargon2),
	TEST_ENTRY(roundtrip_argon2i_libargon2_to_libsodium),
	TEST_ENTRY(roundtrip_argon2i_libsodium_to_libargon2),
	TEST_ENTRY(libsodium_str_verifies_with_libargon2),
	TEST_ENTRY(libsodium_limits_are_reported),
	TEST_ENTRY(argon2_limits_are_reported),
	TEST_ENTRY(argon2_secret_and_ad_change_the_hash),
	TEST_ENTRY(scrypt_roundtrip_with_libsodium),
	TEST_ENTRY(scrypt_known_vector),
	TEST_ENTRY(bcrypt_hash_and_verify),
	TEST_ENTRY(bcrypt_known_vector),
	TEST_ENTRY(memory_estimates),
	TEST_ENTRY(names_parse_both_ways)
)
