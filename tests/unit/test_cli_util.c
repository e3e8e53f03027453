/*
 * tests/unit/test_cli_util.c: what the subcommands share (cli/cli_util.c):
 * the engine's texts in the command line's words.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "test.h"

static void
spell(const char *in, char *buf, size_t len)
{
	snprintf(buf, len, "%s", in);
	cli_spell_options(buf, len);
}

TEST(the_apis_names_become_the_options)
{
	char	buf[256];

	spell("raise memory_max or lower concurrency", buf, sizeof(buf));
	ASSERT_STR_EQ(buf, "raise --memory-max or lower --concurrency");
	spell("more memory (memory_max) or fewer hashes at once", buf,
	    sizeof(buf));
	ASSERT_STR_EQ(buf, "more memory (--memory-max) or fewer hashes at "
	    "once");
	spell("memory_max", buf, sizeof(buf));
	ASSERT_STR_EQ(buf, "--memory-max");
	/* At a sentence's end. */
	spell("raise memory_max. Or lower concurrency.", buf, sizeof(buf));
	ASSERT_STR_EQ(buf, "raise --memory-max. Or lower --concurrency.");
}

TEST(names_a_user_gave_are_left_alone)
{
	char	buf[256];

	/* Inside a name, or a name that starts or ends with it. */
	spell("my_memory_max is slow", buf, sizeof(buf));
	ASSERT_STR_EQ(buf, "my_memory_max is slow");
	spell("stack memory_max2 and php.memory_max", buf, sizeof(buf));
	ASSERT_STR_EQ(buf, "stack memory_max2 and php.memory_max");
	spell("lower concurrency-svc", buf, sizeof(buf));
	ASSERT_STR_EQ(buf, "lower concurrency-svc");
	/* "concurrency" alone is a word of the text, not the option. */
	spell("at this concurrency", buf, sizeof(buf));
	ASSERT_STR_EQ(buf, "at this concurrency");
}

TEST(a_small_buffer_is_cut_not_overrun)
{
	char	buf[16 + 8];

	memset(buf, 'x', sizeof(buf));
	snprintf(buf, 16, "%s", "memory_max here");
	cli_spell_options(buf, 16);
	ASSERT_EQ(strlen(buf), 15);
	ASSERT_STR_EQ(buf, "--memory-max he");
	ASSERT_EQ(buf[16], 'x');
}

TEST_LIST(
	TEST_ENTRY(the_apis_names_become_the_options),
	TEST_ENTRY(names_a_user_gave_are_left_alone),
	TEST_ENTRY(a_small_buffer_is_cut_not_overrun)
)
