/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Decoding of raw fabric addresses into text (see address.h). An address is
 * first decoded into MxlDecodedAddress (one length check per layout), then
 * rendered; both renderings share the decoder so they cannot disagree.
 */
#include "fabrics/ofi/address.h"

#include <arpa/inet.h>
#include <endian.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

typedef enum {
  ADDR_KIND_IN,
  ADDR_KIND_IN6,
  ADDR_KIND_IB,
  ADDR_KIND_EFA,
  ADDR_KIND_STR,
} AddrKind;

typedef struct {
  AddrKind kind;
  char host[INET6_ADDRSTRLEN];   /* IP text or GID text */
  guint port;                    /* in, in6: host order */
  guint pkey, port_space, scope; /* ib */
  guint qpn;                     /* efa */
  guint32 qkey;                  /* efa */
  char *str;                     /* str: owned copy */
} MxlDecodedAddress;

gboolean
mxl_address_format_is_supported (uint32_t format)
{
  switch (format) {
    case MXL_ADDR_FORMAT_SOCKADDR:
    case MXL_ADDR_FORMAT_SOCKADDR_IN:
    case MXL_ADDR_FORMAT_SOCKADDR_IN6:
    case MXL_ADDR_FORMAT_SOCKADDR_IB:
    case MXL_ADDR_FORMAT_STR:
    case MXL_ADDR_FORMAT_EFA:
    case MXL_ADDR_FORMAT_SOCKADDR_IP:
      return TRUE;
    default:
      return FALSE;
  }
}

const char *
mxl_address_format_name (uint32_t format)
{
  switch (format) {
    case 0: return "FI_FORMAT_UNSPEC";
    case MXL_ADDR_FORMAT_SOCKADDR: return "FI_SOCKADDR";
    case MXL_ADDR_FORMAT_SOCKADDR_IN: return "FI_SOCKADDR_IN";
    case MXL_ADDR_FORMAT_SOCKADDR_IN6: return "FI_SOCKADDR_IN6";
    case MXL_ADDR_FORMAT_SOCKADDR_IB: return "FI_SOCKADDR_IB";
    case MXL_ADDR_FORMAT_STR: return "FI_ADDR_STR";
    case MXL_ADDR_FORMAT_EFA: return "FI_ADDR_EFA";
    case MXL_ADDR_FORMAT_SOCKADDR_IP: return "FI_SOCKADDR_IP";
    default: return "unknown";
  }
}

static gboolean
gid_to_text (const guint8 *gid16, char *out)
{
  return inet_ntop (AF_INET6, gid16, out, INET6_ADDRSTRLEN) != NULL;
}

/* A struct sockaddr_in (@family AF_INET) or sockaddr_in6 (AF_INET6), in
 * host byte order as libfabric passes it: at least that struct's size, its
 * family field equal to @family. */
static gboolean
decode_ip (const guint8 *p, size_t len, sa_family_t family,
    MxlDecodedAddress *d)
{
  union {
    struct sockaddr sa;
    struct sockaddr_in in;
    struct sockaddr_in6 in6;
  } u;
  gboolean v4 = family == AF_INET;
  size_t need = v4 ? sizeof u.in : sizeof u.in6;

  if (len < need)
    return FALSE;
  memcpy (&u, p, need);
  if (u.sa.sa_family != family)
    return FALSE;
  d->kind = v4 ? ADDR_KIND_IN : ADDR_KIND_IN6;
  d->port = ntohs (v4 ? u.in.sin_port : u.in6.sin6_port);
  return inet_ntop (family, v4 ? (const void *) &u.in.sin_addr
      : (const void *) &u.in6.sin6_addr, d->host, sizeof d->host) != NULL;
}

/* libfabric's struct ofi_sockaddr_ib: u16 family (host order), be16 pkey,
 * be32 flowinfo, 16-byte GID, be64 service id (port space in bits 16..27,
 * port in bits 0..15), be64 sid mask, be64 scope id. */
static gboolean
decode_ib (const guint8 *p, size_t len, MxlDecodedAddress *d)
{
  guint16 family, pkey;
  guint64 sid, scope;

  if (len < MXL_SOCKADDR_IB_LEN)
    return FALSE;
  memcpy (&family, p, 2);
  if (family != AF_IB)
    return FALSE;
  memcpy (&pkey, p + 2, 2);
  memcpy (&sid, p + 24, 8);
  memcpy (&scope, p + 40, 8);
  d->kind = ADDR_KIND_IB;
  d->pkey = ntohs (pkey);
  d->port_space = (guint) ((be64toh (sid) >> 16) & 0xfff);
  d->scope = (guint) (be64toh (scope) & 0xff);
  return gid_to_text (p + 8, d->host);
}

/* EFA endpoint address: GID, then QPN (u16, host order) at 16 and QKey
 * (u32, host order) at 20. */
static gboolean
decode_efa (const guint8 *p, size_t len, MxlDecodedAddress *d)
{
  guint16 qpn;

  if (len < MXL_EFA_ADDR_LEN)
    return FALSE;
  memcpy (&qpn, p + 16, 2);
  memcpy (&d->qkey, p + 20, 4);
  d->kind = ADDR_KIND_EFA;
  d->qpn = qpn;
  return gid_to_text (p, d->host);
}

/* A string address (shm: "fi_ns://node:service" incl. its NUL). Stops at
 * the first NUL or at @len; only printable ASCII is accepted since the
 * bytes come from the network and end up in logs. */
static gboolean
decode_str (const guint8 *p, size_t len, MxlDecodedAddress *d)
{
  size_t n = 0;

  while (n < len && p[n] != '\0') {
    if (p[n] < 0x20 || p[n] > 0x7e)
      return FALSE;
    n++;
  }
  if (n == 0)
    return FALSE;
  d->kind = ADDR_KIND_STR;
  d->str = g_strndup ((const char *) p, n);
  return TRUE;
}

static gboolean
decode (uint32_t format, const void *addr, size_t len, MxlDecodedAddress *d)
{
  const guint8 *p = addr;
  sa_family_t family;

  memset (d, 0, sizeof *d);
  if (p == NULL)
    return FALSE;

  switch (format) {
    case MXL_ADDR_FORMAT_SOCKADDR_IN:
      return decode_ip (p, len, AF_INET, d);
    case MXL_ADDR_FORMAT_SOCKADDR_IN6:
      return decode_ip (p, len, AF_INET6, d);
    case MXL_ADDR_FORMAT_SOCKADDR_IB:
      return decode_ib (p, len, d);
    case MXL_ADDR_FORMAT_EFA:
      return decode_efa (p, len, d);
    case MXL_ADDR_FORMAT_STR:
      return decode_str (p, len, d);
    case MXL_ADDR_FORMAT_SOCKADDR:
    case MXL_ADDR_FORMAT_SOCKADDR_IP:
      /* The family in the first bytes selects the layout; FI_SOCKADDR_IP
       * excludes InfiniBand. */
      if (len < sizeof family)
        return FALSE;
      memcpy (&family, p, sizeof family);
      if (family == AF_INET || family == AF_INET6)
        return decode_ip (p, len, family, d);
      if (family == AF_IB && format == MXL_ADDR_FORMAT_SOCKADDR)
        return decode_ib (p, len, d);
      return FALSE;
    default:
      return FALSE;
  }
}

char *
mxl_fabric_address_to_string (uint32_t format, const void *addr, size_t len)
{
  MxlDecodedAddress d;

  if (!decode (format, addr, len, &d)) {
    g_free (d.str);
    return NULL;
  }
  switch (d.kind) {
    case ADDR_KIND_IN:
      return g_strdup_printf ("fi_sockaddr_in://%s:%u", d.host, d.port);
    case ADDR_KIND_IN6:
      return g_strdup_printf ("fi_sockaddr_in6://[%s]:%u", d.host, d.port);
    case ADDR_KIND_IB:
      return g_strdup_printf ("fi_sockaddr_ib://[%s]:0x%x:0x%x:0x%x", d.host,
          d.pkey, d.port_space, d.scope);
    case ADDR_KIND_EFA:
      return g_strdup_printf ("fi_addr_efa://[%s]:%u:%" G_GUINT32_FORMAT,
          d.host, d.qpn, d.qkey);
    case ADDR_KIND_STR:
      return d.str;
  }
  g_free (d.str);
  return NULL;
}

char *
mxl_fabric_address_host (uint32_t format, const void *addr, size_t len)
{
  MxlDecodedAddress d;
  const char *start, *sep;
  char *host;

  if (!decode (format, addr, len, &d)) {
    g_free (d.str);
    return NULL;
  }
  if (d.kind != ADDR_KIND_STR)
    return g_strdup (d.host);

  sep = strstr (d.str, "://");
  start = sep != NULL ? sep + 3 : d.str;
  sep = strchr (start, ':');
  host = sep != NULL ? g_strndup (start, (gsize) (sep - start)) : g_strdup (start);
  g_free (d.str);
  return host;
}

char *
mxl_fabric_address_describe (uint32_t format, const void *addr, size_t len)
{
  char *s = mxl_fabric_address_to_string (format, addr, len);

  return s != NULL ? s : g_strdup ("empty");
}

char *
mxl_shm_address_separate_mapping (const void *addr, size_t len)
{
  const char *s = addr, *sep;
  size_t n;

  if (s == NULL || len == 0 || memchr (s, '\0', len) == NULL)
    return NULL;
  sep = strstr (s, "://");
  n = strlen (s);
  /* libfabric's SMR_NAME_MAX (256) holds the name and its NUL */
  if (sep == NULL || n + 1 > 255)
    return NULL;
  return g_strdup_printf ("%.*s/%s", (int) (sep + 3 - s), s, sep + 3);
}
