/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: the flow definition parser (mxl_flow_def_parse, flowdef.h,
 * docs/flow-format.md §2). Flow definitions come from users, from caps and from
 * a peer's TargetInfo ("ext.flowDef"), so they are untrusted.
 *
 * Properties checked for every input: FALSE comes with an MXL_FLOW_DEF_ERROR
 * naming the problem; TRUE gives a definition whose fields are consistent
 * (rates > 0, a supported media type matching the format, slices <= 65535,
 * audio 32-bit float with >= 1 channel, discrete grains of >= 1 byte) and
 * whose derived sizes (grain count, buffer length, batch hint) can be
 * computed without overflow for the default 200 ms history. The canonical
 * id text parses back to the same 16 bytes.
 */
#include "fuzz.h"

#include "flow/flowdef.h"

#define HISTORY_NS 200000000ull

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = fuzz_strndup (data, size);
  MxlFlowDef def;
  GError *error = NULL;
  uint8_t id[16];

  if (!mxl_flow_def_parse (text, &def, &error)) {
    g_assert_nonnull (error);
    g_assert_true (error->domain == MXL_FLOW_DEF_ERROR);
    g_assert_cmpint (error->code, >=, MXL_FLOW_DEF_ERROR_JSON);
    g_assert_cmpint (error->code, <=, MXL_FLOW_DEF_ERROR_VALUE);
    g_error_free (error);
    return 0;
  }
  g_assert_no_error (error);
  g_assert_true (mxl_uuid_parse (def.id_text, id, NULL));
  g_assert_cmpmem (id, 16, def.id, 16);
  g_assert_cmpint (def.rate.numerator, >, 0);
  g_assert_cmpint (def.rate.denominator, >, 0);
  g_assert_cmpint (def.def_rate.numerator, >, 0);
  g_assert_cmpint (def.def_rate.denominator, >, 0);
  g_assert_cmpuint (mxl_flow_def_default_batch_hint (&def), >=, 1);
  switch (def.format) {
    case MXL_DATA_FORMAT_AUDIO:
      g_assert_cmpint (def.media_type, ==, MXL_MEDIA_TYPE_FLOAT32);
      g_assert_cmpuint (def.bit_depth, ==, 32);
      g_assert_cmpuint (def.sample_word_size, ==, 4);
      g_assert_cmpuint (def.channel_count, >=, 1);
      g_assert_cmpuint (mxl_flow_def_grain_count (&def, HISTORY_NS), ==, 0);
      (void) mxl_flow_def_buffer_length (&def, HISTORY_NS);
      break;
    case MXL_DATA_FORMAT_VIDEO:
      g_assert_true (def.media_type == MXL_MEDIA_TYPE_V210
          || def.media_type == MXL_MEDIA_TYPE_V210A);
      g_assert_cmpuint (def.width, >=, 1);
      g_assert_cmpuint (def.height, >=, 1);
      /* fall through */
    case MXL_DATA_FORMAT_DATA:
      g_assert_cmpuint (def.total_slices, >=, 1);
      g_assert_cmpuint (def.total_slices, <=, 65535);
      g_assert_cmpuint (def.grain_size, >=, 1);
      g_assert_cmpuint (mxl_flow_def_buffer_length (&def, HISTORY_NS), ==, 0);
      (void) mxl_flow_def_grain_count (&def, HISTORY_NS);
      break;
    default:
      g_error ("parsed a definition of format %d", def.format);
  }
  return 0;
}
