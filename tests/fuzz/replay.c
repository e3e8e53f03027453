/*
 * tests/fuzz/replay.c: main() for the plain (gcc) build of a fuzz target:
 * every file of the directories (or the files) named runs through
 * LLVMFuzzerTestOneInput once, as libFuzzer would run it. A crash or an
 * abort fails the ctest test; so does an empty corpus.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* Not every target has one. */
int	LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int
replay_file(const char *path)
{
	FILE	*fp;
	uint8_t	*buf;
	long	 n;

	if ((fp = fopen(path, "rb")) == NULL) {
		perror(path);
		return -1;
	}
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	/* A copy of exactly n bytes: ASan sees reads past the input. */
	if (n < 0 || (buf = malloc(n > 0 ? (size_t)n : 1)) == NULL ||
	    fread(buf, 1, (size_t)n, fp) != (size_t)n) {
		fclose(fp);
		fprintf(stderr, "%s: cannot read\n", path);
		return -1;
	}
	fclose(fp);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

int
main(int argc, char **argv)
{
	struct stat	 sb;
	struct dirent	*de;
	DIR		*dir;
	char		 path[4096];
	int		 i, n = 0;

	if (LLVMFuzzerInitialize != NULL)
		LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &sb) == -1) {
			perror(argv[i]);
			return 1;
		}
		if (!S_ISDIR(sb.st_mode)) {
			if (replay_file(argv[i]) == -1)
				return 1;
			n++;
			continue;
		}
		if ((dir = opendir(argv[i])) == NULL) {
			perror(argv[i]);
			return 1;
		}
		while ((de = readdir(dir)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i],
			    de->d_name);
			if (replay_file(path) == -1) {
				closedir(dir);
				return 1;
			}
			n++;
		}
		closedir(dir);
	}
	printf("%d inputs replayed\n", n);
	return n > 0 ? 0 : 1;
}
