/*
 * tests/fault/no_close_range.c: an LD_PRELOAD shim for which close_range(2)
 * fails with ENOSYS, as on kernels before 5.9 or under a seccomp filter
 * that refuses it. Used by fault.close_range.
 */
#include <errno.h>

int	close_range(unsigned int, unsigned int, int);

int
close_range(unsigned int first, unsigned int last, int flags)
{
	(void)first;
	(void)last;
	(void)flags;
	errno = ENOSYS;
	return -1;
}
