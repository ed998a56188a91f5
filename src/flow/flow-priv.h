/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private structures of the flow library: the `data` file layout, mappings
 * of a flow's files, and the reader, writer and instance objects.
 */
#pragma once

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include <mxl/flow.h>
#include <mxl/flowinfo.h>
#include <mxl/mxl.h>

#include "flow/flow-internal.h"
#include "flow/flowdef.h"

#define MXL_FLOW_DIR_SUFFIX ".mxl-flow"
#define MXL_FLOW_TMP_PREFIX ".mxl-tmp-"
#define MXL_DEFAULT_HISTORY_NS 200000000u
#define MXL_HISTORY_OPTION "urn:x-mxl:option:history_duration/v1.0"

/* FlowState at `data` + 2048 (§3.8): no version, 4 bytes of tail padding. */
typedef struct {
  uint64_t inode;                /* st_ino of `data`: the validity stamp (§4.4) */
  uint32_t syncCounter;          /* shared futex word (§4.1) */
} MxlFlowState;

/* The whole `data` file (§3.2). */
typedef struct {
  mxlFlowInfo info;
  MxlFlowState state;
} MxlFlowData;

_Static_assert (sizeof (MxlFlowState) == 16, "FlowState is 16 bytes");
_Static_assert (offsetof (MxlFlowState, syncCounter) == 8, "syncCounter at 8");
_Static_assert (sizeof (MxlFlowData) == 2064, "data file is 2064 bytes");
_Static_assert (offsetof (MxlFlowData, state.syncCounter) == 2056, "futex word at 2056");
_Static_assert (MXL_GRAIN_PAYLOAD_OFFSET == MXL_GRAIN_HEADER_SIZE, "payload at 8192");

/*
 * MxlFlowMap: every file of one flow, mapped. Writers map read-write and
 * hold LOCK_SH on data, grains and channels; readers map PROT_READ and lock
 * nothing.
 */
typedef struct {
  char *dir;                     /* <domain>/<uuid>.mxl-flow */
  char *data_path;               /* dir/data, for the validity stat */
  gboolean writable;

  int data_fd;
  MxlFlowData *data;

  gboolean discrete;
  uint32_t grain_count;          /* N */
  int *grain_fds;
  uint8_t **grains;              /* N mappings of grain_len bytes */
  size_t grain_len;              /* 8192 + grainSize */
  uint32_t grain_size;
  uint16_t total_slices;

  int channels_fd;
  uint8_t *channels;
  size_t channels_len;           /* C * L * W */
  uint32_t channel_count;
  uint32_t buffer_length;
  uint32_t word_size;

  int access_fd;                 /* discrete readers: touched after reads */
  char *def_json;                /* flow_def.json text */
} MxlFlowMap;

struct mxlInstance_t {
  char *domain;                  /* realpath of the domain */
  uint64_t history_ns;
  /* guards the tables and the watch map; POSIX rather than GMutex, whose
   * futex implementation ThreadSanitizer cannot see (it reported the
   * writer's free against the access watcher's read as a race) */
  pthread_mutex_t lock;
  GHashTable *writers;           /* lowercase id -> mxlFlowWriter */
  GHashTable *readers;           /* lowercase id -> mxlFlowReader */

  /* lastReadTime watcher (§1.11) */
  int inotify_fd;
  int stop_fd;                   /* eventfd that ends the watcher thread */
  GThread *watcher;
  GHashTable *watches;           /* watch descriptor -> mxlFlowWriter */
};

struct mxlFlowWriter_t {
  mxlInstance instance;
  char id[37];
  guint refs;
  MxlFlowMap map;
  int watch;                     /* inotify wd on `access`, -1 when none */

  gboolean grain_open;
  uint64_t grain_index;
  gboolean samples_open;
  uint64_t samples_index;
};

struct mxlFlowReader_t {
  mxlInstance instance;
  char id[37];
  guint refs;
  MxlFlowMap map;
};

/* last-error.c: the text behind mxlGetLastErrorMessage() */
void mxl_last_error_clear (void);
void mxl_last_error_set_errno (int err, const char *format, ...) G_GNUC_PRINTF (2, 3);
void mxl_last_error_set (const char *format, ...) G_GNUC_PRINTF (1, 2);

/* flow-map.c */
mxlStatus mxl_status_from_errno (int err);
void mxl_flow_map_init (MxlFlowMap *map);
void mxl_flow_map_close (MxlFlowMap *map);
mxlStatus mxl_flow_map_open (MxlFlowMap *map, const char *dir, gboolean writable);
void mxl_flow_map_layout (const MxlFlowMap *map, MxlFlowLayout *out);
char *mxl_flow_dir_path (mxlInstance instance, const char *lower_id);
gboolean mxl_remove_tree (const char *path);

/* flow-create.c */
mxlStatus mxl_flow_create (mxlInstance instance, const MxlFlowDef *def,
    const char *def_json, uint64_t history_ns, uint32_t commit_hint,
    uint32_t sync_hint, MxlFlowMap *out, gboolean *created);

/* sync.c */
void mxl_flow_signal (MxlFlowData *data);
typedef mxlStatus (*MxlFlowCheck) (void *ctx);
mxlStatus mxl_flow_wait (const MxlFlowMap *map, uint64_t timeout_ns,
    MxlFlowCheck check, void *ctx);
mxlStatus mxl_flow_validity (const MxlFlowMap *map);

/* instance.c */
/* Writes @domain's options.json (§1.9) with the history @history_ns
 * (nanoseconds), read by the next mxlCreateInstance() of @domain (instance.c
 * holds the file's name and key, for both). FALSE when it cannot be
 * written. */
gboolean mxl_domain_write_history (const char *domain, uint64_t history_ns);
void mxl_instance_watch_access (mxlInstance instance, mxlFlowWriter writer);
void mxl_instance_unwatch_access (mxlInstance instance, mxlFlowWriter writer);
void mxl_flow_writer_free (mxlFlowWriter writer);
void mxl_flow_reader_free (mxlFlowReader reader);
