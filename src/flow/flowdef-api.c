/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Public flow definition functions of <mxl/flow-ext.h>: the summary of a
 * definition (flowdef.c's parser), the building of one, the line sizes
 * (geometry.c) and status names.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-glib/json-glib.h>
#include <mxl/flow-ext.h>

#include "flow/flowdef.h"
#include "flow/geometry.h"

#define GROUPHINT_TAG "urn:x-nmos:tag:grouphint/v1.0"

/* flowdef.h's enums are the public ones, value for value. */
G_STATIC_ASSERT ((int) MXL_MEDIA_TYPE_V210 == (int) MXL_FLOW_EXT_MEDIA_V210);
G_STATIC_ASSERT ((int) MXL_MEDIA_TYPE_V210A == (int) MXL_FLOW_EXT_MEDIA_V210A);
G_STATIC_ASSERT ((int) MXL_MEDIA_TYPE_SMPTE291 == (int) MXL_FLOW_EXT_MEDIA_SMPTE291);
G_STATIC_ASSERT ((int) MXL_MEDIA_TYPE_FLOAT32 == (int) MXL_FLOW_EXT_MEDIA_FLOAT32);
G_STATIC_ASSERT ((int) MXL_INTERLACE_TFF == (int) MXL_FLOW_EXT_INTERLACED_TFF);
G_STATIC_ASSERT ((int) MXL_INTERLACE_BFF == (int) MXL_FLOW_EXT_INTERLACED_BFF);

MXL_EXPORT uint32_t
mxlFlowExtV210LineBytes (uint32_t in_width)
{
  return mxl_v210_line_bytes (in_width);
}

MXL_EXPORT uint32_t
mxlFlowExtV210aKeyLineBytes (uint32_t in_width)
{
  return mxl_v210a_key_line_bytes (in_width);
}

MXL_EXPORT char const *
mxlFlowExtMediaTypeName (mxlFlowExtMediaType in_mediaType)
{
  switch (in_mediaType) {
    case MXL_FLOW_EXT_MEDIA_V210:
      return "video/v210";
    case MXL_FLOW_EXT_MEDIA_V210A:
      return "video/v210a";
    case MXL_FLOW_EXT_MEDIA_SMPTE291:
      return "video/smpte291";
    case MXL_FLOW_EXT_MEDIA_FLOAT32:
      return "audio/float32";
    default:
      return "none";
  }
}

MXL_EXPORT char const *
mxlExtStatusName (mxlStatus in_status)
{
  switch (in_status) {
    case MXL_STATUS_OK:
      return "OK";
    case MXL_ERR_FLOW_NOT_FOUND:
      return "FLOW_NOT_FOUND";
    case MXL_ERR_OUT_OF_RANGE_TOO_LATE:
      return "OUT_OF_RANGE_TOO_LATE";
    case MXL_ERR_OUT_OF_RANGE_TOO_EARLY:
      return "OUT_OF_RANGE_TOO_EARLY";
    case MXL_ERR_INVALID_FLOW_READER:
      return "INVALID_FLOW_READER";
    case MXL_ERR_INVALID_FLOW_WRITER:
      return "INVALID_FLOW_WRITER";
    case MXL_ERR_TIMEOUT:
      return "TIMEOUT";
    case MXL_ERR_INVALID_ARG:
      return "INVALID_ARG";
    case MXL_ERR_CONFLICT:
      return "CONFLICT";
    case MXL_ERR_PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case MXL_ERR_FLOW_INVALID:
      return "FLOW_INVALID";
    case MXL_ERR_STRLEN:
      return "STRLEN";
    case MXL_ERR_INTERRUPTED:
      return "INTERRUPTED";
    case MXL_ERR_NO_FABRIC:
      return "NO_FABRIC";
    case MXL_ERR_INVALID_STATE:
      return "INVALID_STATE";
    case MXL_ERR_INTERNAL:
      return "INTERNAL";
    case MXL_ERR_NOT_READY:
      return "NOT_READY";
    case MXL_ERR_NOT_FOUND:
      return "NOT_FOUND";
    case MXL_ERR_EXISTS:
      return "EXISTS";
    case MXL_ERR_UNSUPPORTED_OPERATION:
      return "UNSUPPORTED_OPERATION";
    default:
      return "UNKNOWN";
  }
}

static mxlStatus
refuse (char **out_reason, const char *reason)
{
  if (out_reason != NULL)
    *out_reason = strdup (reason);
  return MXL_ERR_INVALID_ARG;
}

static void
summarise (const MxlFlowDef *def, mxlFlowExtDefinition *out)
{
  memset (out, 0, sizeof *out);
  memcpy (out->id, def->id_text, sizeof out->id);
  out->format = def->format;
  out->mediaType = (mxlFlowExtMediaType) def->media_type;
  out->definitionRate = def->def_rate;
  out->editRate = def->rate;
  out->width = def->width;
  out->height = def->height;
  out->interlace = (mxlFlowExtInterlace) def->interlace;
  g_strlcpy (out->colorspace, def->colorspace, sizeof out->colorspace);
  g_strlcpy (out->transferCharacteristic, def->transfer,
      sizeof out->transferCharacteristic);
  out->grainSize = def->grain_size;
  out->totalSlices = mxlIsDiscreteDataFormat (def->format) ? def->total_slices : 0;
  out->sliceSizes[0] = def->slice_sizes[0];
  out->sliceSizes[1] = def->slice_sizes[1];
  out->channelCount = def->channel_count;
  out->bitDepth = def->bit_depth;
}

MXL_EXPORT mxlStatus
mxlFlowExtParseDefinition (char const *in_flowDef,
    mxlFlowExtDefinition *out_def, char **out_reason)
{
  g_autoptr (GError) error = NULL;
  MxlFlowDef def;

  if (out_reason != NULL)
    *out_reason = NULL;
  if (in_flowDef == NULL || out_def == NULL)
    return refuse (out_reason, "flow definition: (document): is NULL");
  if (!mxl_flow_def_parse_form (in_flowDef, &def, &error))
    return refuse (out_reason, error->message);
  summarise (&def, out_def);
  return MXL_STATUS_OK;
}

static void
add_string (JsonBuilder *b, const char *name, const char *value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_string_value (b, value);
}

static void
add_int (JsonBuilder *b, const char *name, int64_t value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, value);
}

static void
add_rate (JsonBuilder *b, const char *name, const mxlRational *r)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  add_int (b, "numerator", r->numerator);
  add_int (b, "denominator", r->denominator);
  json_builder_end_object (b);
}

static void
add_component (JsonBuilder *b, const char *name, uint32_t w, uint32_t h)
{
  json_builder_begin_object (b);
  add_string (b, "name", name);
  add_int (b, "width", w);
  add_int (b, "height", h);
  add_int (b, "bit_depth", 10);
  json_builder_end_object (b);
}

static const char *
interlace_name (mxlFlowExtInterlace interlace)
{
  switch (interlace) {
    case MXL_FLOW_EXT_INTERLACED_TFF:
      return "interlaced_tff";
    case MXL_FLOW_EXT_INTERLACED_BFF:
      return "interlaced_bff";
    default:
      return "progressive";
  }
}

static void
add_video (JsonBuilder *b, const mxlFlowExtDefinition *d)
{
  add_rate (b, "grain_rate", &d->definitionRate);
  add_int (b, "frame_width", d->width);
  add_int (b, "frame_height", d->height);
  add_string (b, "interlace_mode", interlace_name (d->interlace));
  add_string (b, "colorspace", d->colorspace[0] ? d->colorspace : "BT709");
  add_string (b, "transfer_characteristic", d->transferCharacteristic[0] ?
      d->transferCharacteristic : "SDR");
  json_builder_set_member_name (b, "components");
  json_builder_begin_array (b);
  add_component (b, "Y", d->width, d->height);
  add_component (b, "Cb", d->width / 2, d->height);
  add_component (b, "Cr", d->width / 2, d->height);
  if (d->mediaType == MXL_FLOW_EXT_MEDIA_V210A)
    add_component (b, "A", d->width, d->height);
  json_builder_end_array (b);
}

/* The JSON of @d, or NULL (with @reason) for a media type or id that
 * cannot be written; every other rule is the parser's. */
static char *
build_json (const mxlFlowExtDefinition *d, const char *label,
    const char *hint, const char **reason)
{
  g_autoptr (JsonBuilder) b = NULL;
  g_autoptr (JsonGenerator) gen = NULL;
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *id = NULL;
  const char *format;
  char id_text[37];

  switch (d->mediaType) {
    case MXL_FLOW_EXT_MEDIA_V210:
    case MXL_FLOW_EXT_MEDIA_V210A:
      format = "urn:x-nmos:format:video";
      break;
    case MXL_FLOW_EXT_MEDIA_SMPTE291:
      format = "urn:x-nmos:format:data";
      break;
    case MXL_FLOW_EXT_MEDIA_FLOAT32:
      format = "urn:x-nmos:format:audio";
      break;
    default:
      *reason = "flow definition: media_type: no media type given";
      return NULL;
  }
  if (memchr (d->id, '\0', sizeof d->id) == NULL) {
    *reason = "flow definition: id: not NUL-terminated";
    return NULL;
  }
  if (d->id[0] == '\0')
    id = g_uuid_string_random ();
  else if (mxl_uuid_parse (d->id, NULL, id_text))
    id = g_strdup (id_text);
  else
    id = g_strdup (d->id);     /* the parser names it */

  b = json_builder_new ();
  json_builder_begin_object (b);
  add_string (b, "id", id);
  add_string (b, "description", label);
  add_string (b, "label", label);
  json_builder_set_member_name (b, "tags");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, GROUPHINT_TAG);
  json_builder_begin_array (b);
  json_builder_add_string_value (b, hint);
  json_builder_end_array (b);
  json_builder_end_object (b);
  add_string (b, "format", format);
  json_builder_set_member_name (b, "parents");
  json_builder_begin_array (b);
  json_builder_end_array (b);
  add_string (b, "media_type", mxlFlowExtMediaTypeName (d->mediaType));
  switch (d->mediaType) {
    case MXL_FLOW_EXT_MEDIA_FLOAT32:
      add_rate (b, "sample_rate", &d->definitionRate);
      add_int (b, "bit_depth", 32);
      add_int (b, "channel_count", d->channelCount);
      break;
    case MXL_FLOW_EXT_MEDIA_SMPTE291:
      add_rate (b, "grain_rate", &d->definitionRate);
      break;
    default:
      add_video (b, d);
      break;
  }
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  gen = json_generator_new ();
  json_generator_set_root (gen, root);
  return json_generator_to_data (gen, NULL);
}

MXL_EXPORT mxlStatus
mxlFlowExtBuildDefinition (mxlFlowExtDefinition *inout_def,
    char const *in_label, char const *in_groupHint, char **out_flowDef,
    char **out_reason)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *json = NULL;
  const char *reason = NULL;
  MxlFlowDef def;

  if (out_reason != NULL)
    *out_reason = NULL;
  if (out_flowDef != NULL)
    *out_flowDef = NULL;
  if (inout_def == NULL)
    return refuse (out_reason, "flow definition: (document): is NULL");
  json = build_json (inout_def, in_label ? in_label : "mxl-fabrics flow",
      in_groupHint ? in_groupHint : "mxl-fabrics:flow", &reason);
  if (json == NULL)
    return refuse (out_reason, reason);
  /* One rule set: what is built is what the parser accepts. */
  if (!mxl_flow_def_parse_form (json, &def, &error))
    return refuse (out_reason, error->message);
  summarise (&def, inout_def);
  if (out_flowDef != NULL)
    *out_flowDef = strdup (json);
  return MXL_STATUS_OK;
}
