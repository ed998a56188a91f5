/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What every fuzz target in this directory shares: the libFuzzer entry point
 * and a helper that turns the raw input into a NUL-terminated string (the
 * parsers take C strings; an input with an embedded NUL is cut there, as a
 * C caller would).
 *
 * Each fuzz-*.c defines LLVMFuzzerTestOneInput(). It is linked either with
 * libFuzzer (clang -fsanitize=fuzzer, scripts/fuzz.sh) or with replay.c,
 * which feeds it the checked-in corpus and regression inputs in the normal
 * test suite (no libFuzzer needed). A target aborts (g_assert) when a
 * property that must hold for every input does not.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <gio/gio.h>
#include <glib.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Returns: (transfer full): @data as a NUL-terminated string, g_free(). */
static inline char *
fuzz_strndup (const uint8_t *data, size_t size)
{
  return g_strndup ((const char *) data, size);
}
