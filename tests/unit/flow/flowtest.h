/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Helpers shared by the flow tests: a temporary domain under /dev/shm per
 * test, the fixture definitions of docs/flow-format.md §8, and raw file access.
 */
#pragma once

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <glib.h>
#include <glib/gstdio.h>

#include <mxl/flow.h>
#include <mxl/time.h>

#include "flow/flow-priv.h"

#define FIXTURE_VIDEO_ID "5fbec3b1-1b0f-417d-9059-8b94a47197ed"
#define FIXTURE_DATA_ID "db3bd465-2772-484f-8fac-830b0471258b"
#define FIXTURE_AUDIO_ID "b3bb5be7-9fe9-4324-a5bb-4c70e1084449"

/* A video definition; @interlace NULL leaves interlace_mode out. */
static inline char *
flowtest_video_def (const char *id, const char *media_type, int width,
    int height, int num, int den, const char *interlace)
{
  char *mode = interlace ? g_strdup_printf (",\"interlace_mode\":\"%s\"", interlace) : g_strdup ("");
  char *def = g_strdup_printf ("{\"id\":\"%s\",\"description\":\"test video\","
      "\"format\":\"urn:x-nmos:format:video\",\"label\":\"Test video\","
      "\"tags\":{\"urn:x-nmos:tag:grouphint/v1.0\":[\"Test:Video\"]},"
      "\"parents\":[],\"media_type\":\"%s\","
      "\"grain_rate\":{\"numerator\":%d,\"denominator\":%d},"
      "\"frame_width\":%d,\"frame_height\":%d%s,\"colorspace\":\"BT709\"}",
      id, media_type, num, den, width, height, mode);
  g_free (mode);
  return def;
}

static inline char *
flowtest_v210_def (void)
{
  return flowtest_video_def (FIXTURE_VIDEO_ID, "video/v210", 1920, 1080, 30000, 1001, "progressive");
}

static inline char *
flowtest_data_def (void)
{
  return g_strdup ("{\"id\":\"" FIXTURE_DATA_ID "\",\"format\":\"urn:x-nmos:format:data\","
      "\"label\":\"Test data\",\"tags\":{\"urn:x-nmos:tag:grouphint/v1.0\":[\"Test:Data\"]},"
      "\"media_type\":\"video/smpte291\",\"grain_rate\":{\"numerator\":30000,\"denominator\":1001}}");
}

static inline char *
flowtest_audio_def_full (const char *id, int rate, int channels)
{
  return g_strdup_printf ("{\"id\":\"%s\",\"format\":\"urn:x-nmos:format:audio\","
      "\"label\":\"Test audio\",\"tags\":{\"urn:x-nmos:tag:grouphint/v1.0\":[\"Test:Audio\"]},"
      "\"media_type\":\"audio/float32\",\"sample_rate\":{\"numerator\":%d},"
      "\"channel_count\":%d,\"bit_depth\":32}", id, rate, channels);
}

static inline char *
flowtest_audio_def (void)
{
  return flowtest_audio_def_full (FIXTURE_AUDIO_ID, 48000, 2);
}

/* The reader's current head index. */
static inline uint64_t
flowtest_head (mxlFlowReader reader)
{
  mxlFlowRuntimeInfo rt;

  g_assert_cmpint (mxlFlowReaderGetRuntimeInfo (reader, &rt), ==, MXL_STATUS_OK);
  return rt.headIndex;
}

/* A fresh domain directory under /dev/shm; free with flowtest_domain_free(). */
static inline char *
flowtest_domain_new (void)
{
  char *path = g_strdup ("/dev/shm/mxl-test-XXXXXX");

  g_assert_nonnull (g_mkdtemp (path));
  return path;
}

static inline void
flowtest_domain_free (char *path)
{
  g_assert_true (mxl_remove_tree (path));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_free (path);
}

static inline char *
flowtest_flow_path (const char *domain, const char *id, const char *file)
{
  char *dir = g_strconcat (id, ".mxl-flow", NULL);
  char *p = g_build_filename (domain, dir, file, NULL);

  g_free (dir);
  return p;
}

/* The bytes of a flow's file as read from disk (not through a mapping). */
static inline GBytes *
flowtest_read_file (const char *domain, const char *id, const char *file)
{
  char *p = flowtest_flow_path (domain, id, file);
  char *contents = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (p, &contents, &len, NULL));
  g_free (p);
  return g_bytes_new_take (contents, len);
}

static inline uint64_t
flowtest_u64 (GBytes *b, gsize off)
{
  uint64_t v;

  g_assert_cmpuint (off + 8, <=, g_bytes_get_size (b));
  memcpy (&v, (const uint8_t *) g_bytes_get_data (b, NULL) + off, 8);
  return v;
}

static inline uint32_t
flowtest_u32 (GBytes *b, gsize off)
{
  uint32_t v;

  g_assert_cmpuint (off + 4, <=, g_bytes_get_size (b));
  memcpy (&v, (const uint8_t *) g_bytes_get_data (b, NULL) + off, 4);
  return v;
}

static inline uint16_t
flowtest_u16 (GBytes *b, gsize off)
{
  uint16_t v;

  g_assert_cmpuint (off + 2, <=, g_bytes_get_size (b));
  memcpy (&v, (const uint8_t *) g_bytes_get_data (b, NULL) + off, 2);
  return v;
}

static inline gboolean
flowtest_all_zero (GBytes *b, gsize off, gsize len)
{
  const uint8_t *p = g_bytes_get_data (b, NULL);

  g_assert_cmpuint (off + len, <=, g_bytes_get_size (b));
  for (gsize i = 0; i < len; i++) {
    if (p[off + i] != 0)
      return FALSE;
  }
  return TRUE;
}
