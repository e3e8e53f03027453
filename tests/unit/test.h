/*
 * tests/unit/test.h: a small test harness in the manner of libuv's task.h.
 *
 * A test file defines its tests with TEST(name) and lists them in
 * TEST_LIST(...) , which provides main(). Each ASSERT_* prints both sides
 * and the line, then fails the current test (the runner goes on with the
 * next one). main() prints one line per test and a closing
 * "N passed, N failed" line, and exits non-zero if any test failed.
 */
#ifndef PWTUNE_TEST_H
#define PWTUNE_TEST_H

#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct test_case {
	const char	*name;
	void		(*fn)(void);
};

extern jmp_buf	test_jmp;
extern int	test_argc;
extern char   **test_argv;

#define TEST(name)	static void test_##name(void)
#define TEST_ENTRY(name)	{ #name, test_##name }

#define TEST_FAIL(...) do {						\
	fprintf(stderr, "  %s:%d: ", __FILE__, __LINE__);		\
	fprintf(stderr, __VA_ARGS__);					\
	fputc('\n', stderr);						\
	longjmp(test_jmp, 1);						\
} while (0)

#define ASSERT(expr) do {						\
	if (!(expr))							\
		TEST_FAIL("assertion failed: %s", #expr);		\
} while (0)

#define ASSERT_EQ(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b)							\
		TEST_FAIL("%s == %s: %lld != %lld", #a, #b, _a, _b);	\
} while (0)

#define ASSERT_NE(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a == _b)							\
		TEST_FAIL("%s != %s: both %lld", #a, #b, _a);		\
} while (0)

#define ASSERT_UEQ(a, b) do {						\
	unsigned long long _a = (unsigned long long)(a);		\
	unsigned long long _b = (unsigned long long)(b);		\
	if (_a != _b)							\
		TEST_FAIL("%s == %s: %llu != %llu", #a, #b, _a, _b);	\
} while (0)

#define ASSERT_STR_EQ(a, b) do {					\
	const char *_a = (a), *_b = (b);				\
	if (_a == NULL || _b == NULL || strcmp(_a, _b) != 0)		\
		TEST_FAIL("%s == %s: \"%s\" != \"%s\"", #a, #b,		\
		    _a ? _a : "(null)", _b ? _b : "(null)");		\
} while (0)

#define ASSERT_STR_CONTAINS(hay, needle) do {				\
	const char *_h = (hay), *_n = (needle);				\
	if (_h == NULL || strstr(_h, _n) == NULL)			\
		TEST_FAIL("%s contains \"%s\": \"%s\"", #hay, _n,	\
		    _h ? _h : "(null)");				\
} while (0)

#define ASSERT_MEM_EQ(a, b, n) do {					\
	if (memcmp((a), (b), (n)) != 0)					\
		TEST_FAIL("%s == %s (%zu bytes) differ", #a, #b,	\
		    (size_t)(n));					\
} while (0)

int	test_run(const struct test_case *cases, size_t n, int argc,
	    char **argv);

#define TEST_LIST(...)							\
	static const struct test_case test_cases[] = { __VA_ARGS__ };	\
	int main(int argc, char **argv) {				\
		return test_run(test_cases,				\
		    sizeof(test_cases) / sizeof(test_cases[0]),		\
		    argc, argv);					\
	}

#endif /* PWTUNE_TEST_H */
