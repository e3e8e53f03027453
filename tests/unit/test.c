/*
 * tests/unit/test.c: the runner behind test.h. With arguments, runs only
 * the tests named; the rest of argv is left in test_argc/test_argv for
 * tests that read data files (the first argument that names no test).
 */
#include "test.h"

jmp_buf	test_jmp;
int	test_argc;
char  **test_argv;

static int
test_named(const struct test_case *cases, size_t n, const char *name)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (strcmp(cases[i].name, name) == 0)
			return 1;
	return 0;
}

int
test_run(const struct test_case *cases, size_t n, int argc, char **argv)
{
	volatile size_t	passed = 0, failed = 0, i;
	volatile int	only = 0;
	int		k;

	test_argc = 0;
	test_argv = argv + argc;
	for (k = 1; k < argc; k++) {
		if (test_named(cases, n, argv[k]))
			only = 1;
		else if (test_argc == 0) {
			test_argc = argc - k;
			test_argv = argv + k;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < n; i++) {
		if (only) {
			int	want = 0;

			for (k = 1; k < argc; k++)
				if (strcmp(argv[k], cases[i].name) == 0)
					want = 1;
			if (!want)
				continue;
		}
		if (setjmp(test_jmp) == 0) {
			cases[i].fn();
			printf("ok     %s\n", cases[i].name);
			passed++;
		} else {
			printf("FAILED %s\n", cases[i].name);
			failed++;
		}
	}
	printf("%zu passed, %zu failed\n", (size_t)passed, (size_t)failed);
	return failed == 0 && passed > 0 ? 0 : 1;
}
