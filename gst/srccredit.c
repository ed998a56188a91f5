/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssrc's credits (srccredit.h): the held indices of the streaming
 * thread, the releases, and the zero-copy buffers that wrap ring slots.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "srccredit.h"
#include "mxlfabricsopen.h"
#include "mxlfabricssrc.h"

#include <json-glib/json-glib.h>
#include <string.h>

GST_DEBUG_CATEGORY_EXTERN (gst_mxl_fabrics_src_debug);
#define GST_CAT_DEFAULT gst_mxl_fabrics_src_debug

#define NONE G_MAXUINT64

struct _GstMxlFabricsSrcCredits {
  /* shared (any thread): one reference of the src, one per zero-copy
   * buffer out; the last closes what the src handed over at stop */
  gint refs;
  mxlFabricsTarget target;
  GstMxlFabricsLocalFlow flow;  /* the src's, from its stop on */
  gboolean owns;                /* target and flow are ours to close */
  guint64 releases;             /* atomic: releases the target took */
  guint64 failures;             /* atomic: releases it refused */
  gint held;                    /* atomic: zero-copy buffers out */
  /* the streaming thread's */
  guint ring;
  guint64 *slot;                /* per slot: a completed index not yet
                                   released nor handed to a buffer, NONE */
  guint64 swept;                /* indices below were swept */
  gboolean announced;           /* the last answer of the target: its
                                   initiator honours our holds */
};

/* What a zero-copy buffer's memory keeps (its GDestroyNotify data). */
typedef struct {
  GstMxlFabricsSrcCredits *cr;
  guint64 index;
} Hold;

static void
credits_unref (GstMxlFabricsSrcCredits * cr)
{
  if (!g_atomic_int_dec_and_test (&cr->refs))
    return;
  if (cr->owns)
    gst_mxl_fabrics_close_target (&cr->flow, &cr->target);
  g_free (cr->slot);
  g_free (cr);
}

/* Releases @index; a refusal is counted and logged (the sender then waits
 * for a credit that never comes, until it reconnects), never fatal. */
static void
release (GstMxlFabricsSrcCredits * cr, guint64 index)
{
  mxlStatus st = mxlFabricsExtTargetReleaseGrain (cr->target, index);

  if (st == MXL_STATUS_OK) {
    __atomic_fetch_add (&cr->releases, 1, __ATOMIC_RELAXED);
    return;
  }
  if (__atomic_fetch_add (&cr->failures, 1, __ATOMIC_RELAXED) == 0)
    GST_WARNING ("release of grain %" G_GUINT64_FORMAT " refused: %s "
        "(counted in credit-release-failures)", index,
        gst_mxl_fabrics_status_name (st));
  else
    GST_DEBUG ("release of grain %" G_GUINT64_FORMAT " refused: %s", index,
        gst_mxl_fabrics_status_name (st));
}

/* A zero-copy buffer's memory was freed (any thread, maybe after the
 * src stopped: the shared part, and the target, live until then). */
static void
hold_done (gpointer data)
{
  Hold *h = data;

  release (h->cr, h->index);
  g_atomic_int_add (&h->cr->held, -1);
  credits_unref (h->cr);
  g_free (h);
}

/* Whether the TargetInfo JSON @target_info advertises credits
 * (ext."credits", docs/wire-format.md §11.7). */
static gboolean
advertised (const gchar * target_info)
{
  JsonParser *parser = json_parser_new ();
  JsonNode *root;
  JsonObject *ext = NULL;
  gboolean yes = FALSE;

  if (json_parser_load_from_data (parser, target_info, -1, NULL)
      && (root = json_parser_get_root (parser)) != NULL
      && JSON_NODE_HOLDS_OBJECT (root))
    ext = json_object_get_object_member (json_node_get_object (root), "ext");
  yes = ext != NULL && json_object_has_member (ext, "credits");
  g_object_unref (parser);
  return yes;
}

gboolean
gst_mxl_fabrics_src_credits_start (GstMxlFabricsSrc * self,
    const gchar * target_info)
{
  GstMxlFabricsSrcCredits *cr;
  gboolean on;
  guint i;

  GST_OBJECT_LOCK (self);
  on = self->credits_on;
  GST_OBJECT_UNLOCK (self);
  self->credits = NULL;
  if (!on)
    return FALSE;
  if (self->media->batches) {
    GST_DEBUG_OBJECT (self, "credits: audio; the target releases each "
        "bounce entry itself once committed, the samples are copied out");
    return FALSE;
  }
  if (!advertised (target_info)) {
    GST_DEBUG_OBJECT (self, "credits: the target does not advertise them; "
        "the property has no effect");
    return FALSE;
  }
  cr = g_new0 (GstMxlFabricsSrcCredits, 1);
  cr->refs = 1;
  cr->target = self->target;
  cr->ring = self->flow.config.discrete.grainCount;
  cr->slot = g_new (guint64, MAX (cr->ring, 1));
  for (i = 0; i < MAX (cr->ring, 1); i++)
    cr->slot[i] = NONE;
  self->credits = cr;
  GST_INFO_OBJECT (self, "credits on (a ring of %u)", cr->ring);
  return TRUE;
}

void
gst_mxl_fabrics_src_credits_stop (GstMxlFabricsSrc * self)
{
  GstMxlFabricsSrcCredits *cr = self->credits;

  if (cr == NULL)
    return;
  gst_mxl_fabrics_src_credits_stats (self);
  cr->flow = self->flow;
  cr->owns = TRUE;
  memset (&self->flow, 0, sizeof self->flow);
  self->target = NULL;
  self->credits = NULL;
  if (g_atomic_int_get (&cr->held) > 0)
    GST_INFO_OBJECT (self, "%d zero-copy buffers still out: the flow stays "
        "open until they are freed", g_atomic_int_get (&cr->held));
  credits_unref (cr);
}

void
gst_mxl_fabrics_src_credits_completed (GstMxlFabricsSrc * self, guint64 index)
{
  GstMxlFabricsSrcCredits *cr = self->credits;
  guint s;

  if (cr == NULL || cr->ring == 0)
    return;
  if (index < self->next) {
    /* behind what the src reads: late, or pushed before its completion
     * was read; done with */
    release (cr, index);
    return;
  }
  s = (guint) (index % cr->ring);
  if (cr->slot[s] != NONE && cr->slot[s] != index)
    GST_DEBUG_OBJECT (self, "grain %" G_GUINT64_FORMAT " held in the slot of "
        "%" G_GUINT64_FORMAT ": the target has committed over it", cr->slot[s],
        index);
  cr->slot[s] = index;
}

void
gst_mxl_fabrics_src_credits_sweep (GstMxlFabricsSrc * self)
{
  GstMxlFabricsSrcCredits *cr = self->credits;
  guint64 i;

  if (cr == NULL || cr->ring == 0)
    return;
  i = MAX (cr->swept, self->next > cr->ring ? self->next - cr->ring : 0);
  for (; i < self->next; i++) {
    guint s = (guint) (i % cr->ring);

    if (cr->slot[s] == i) {
      cr->slot[s] = NONE;
      release (cr, i);
    }
  }
  cr->swept = self->next;
}

void
gst_mxl_fabrics_src_credits_forget (GstMxlFabricsSrc * self)
{
  GstMxlFabricsSrcCredits *cr = self->credits;
  guint s;

  if (cr == NULL)
    return;
  for (s = 0; s < cr->ring; s++) {
    if (cr->slot[s] != NONE)
      release (cr, cr->slot[s]);
    cr->slot[s] = NONE;
  }
  cr->swept = 0;
}

GstBuffer *
gst_mxl_fabrics_src_credits_wrap (GstMxlFabricsSrc * self, guint64 index,
    const guint8 * payload, gsize size)
{
  GstMxlFabricsSrcCredits *cr = self->credits;
  GstBuffer *buf;
  bool announced = false;
  Hold *h;
  guint s;

  if (cr == NULL || cr->ring == 0)
    return NULL;
  s = (guint) (index % cr->ring);
  if (cr->slot[s] != index)
    return NULL;                /* its completion not read yet: copied */
  /* asked after the read, for the connection of the moment: a reference
   * initiator writes every slot as it comes round */
  if (mxlFabricsExtTargetCreditsAnnounced (cr->target, &announced)
      != MXL_STATUS_OK)
    announced = false;
  if (announced != cr->announced)
    GST_INFO_OBJECT (self, "%s", announced ? "the sender honours our "
        "holds: zero-copy buffers" : "the sender does not honour our holds "
        "(a reference initiator, or none): copies");
  cr->announced = announced;
  if (!announced)
    return NULL;
  cr->slot[s] = NONE;
  h = g_new (Hold, 1);
  h->cr = cr;
  h->index = index;
  g_atomic_int_inc (&cr->refs);
  g_atomic_int_inc (&cr->held);
  buf = gst_buffer_new ();
  /* read-only: a downstream element that maps it for writing gets a copy */
  gst_buffer_append_memory (buf,
      gst_memory_new_wrapped (GST_MEMORY_FLAG_READONLY, (gpointer) payload,
          size, 0, size, h, hold_done));
  return buf;
}

void
gst_mxl_fabrics_src_credits_stats (GstMxlFabricsSrc * self)
{
  GstMxlFabricsSrcCredits *cr = self->credits;

  if (cr == NULL)
    return;
  GST_OBJECT_LOCK (self);
  self->obj->counters.credit_releases =
      __atomic_load_n (&cr->releases, __ATOMIC_RELAXED);
  self->obj->counters.credit_release_failures =
      __atomic_load_n (&cr->failures, __ATOMIC_RELAXED);
  self->obj->counters.credits_held = (guint64) g_atomic_int_get (&cr->held);
  GST_OBJECT_UNLOCK (self);
}
