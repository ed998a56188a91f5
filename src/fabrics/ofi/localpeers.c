/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The live targets of this process, by fabric address (localpeers.h).
 */
#include "fabrics/ofi/localpeers.h"

static GMutex lock;
static GHashTable *alive;       /* GBytes (address) -> registrations */

void
mxl_local_peer_add (const void *addr, size_t len)
{
  GBytes *key;

  g_return_if_fail (addr != NULL && len > 0);
  key = g_bytes_new (addr, len);
  g_mutex_lock (&lock);
  if (alive == NULL)
    alive = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
        (GDestroyNotify) g_bytes_unref, NULL);
  g_hash_table_replace (alive, key, GUINT_TO_POINTER (GPOINTER_TO_UINT (
              g_hash_table_lookup (alive, key)) + 1));
  g_mutex_unlock (&lock);
}

void
mxl_local_peer_remove (const void *addr, size_t len)
{
  GBytes *key;
  guint n;

  if (addr == NULL || len == 0)
    return;
  key = g_bytes_new_static (addr, len);
  g_mutex_lock (&lock);
  n = alive != NULL ? GPOINTER_TO_UINT (g_hash_table_lookup (alive, key)) : 0;
  if (n > 1)
    g_hash_table_replace (alive, g_bytes_new (addr, len), GUINT_TO_POINTER (n - 1));
  else if (n == 1)
    g_hash_table_remove (alive, key);
  g_mutex_unlock (&lock);
  g_bytes_unref (key);
}

gboolean
mxl_local_peer_alive (const void *addr, size_t len)
{
  GBytes *key;
  gboolean found;

  if (addr == NULL || len == 0)
    return FALSE;
  key = g_bytes_new_static (addr, len);
  g_mutex_lock (&lock);
  found = alive != NULL && g_hash_table_contains (alive, key);
  g_mutex_unlock (&lock);
  g_bytes_unref (key);
  return found;
}
