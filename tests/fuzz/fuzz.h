/*
 * tests/fuzz/fuzz.h: the entry points libFuzzer calls (and replay.c, in
 * the plain build).
 */
#ifndef PWTUNE_FUZZ_H
#define PWTUNE_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int	LLVMFuzzerInitialize(int *argc, char ***argv);

#endif /* PWTUNE_FUZZ_H */
