/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench-bare-fabric: the practical limit of a libfabric provider on this
 * machine. Two processes (this program forks itself): the child is the
 * *target* (one memory region of `slots` x `size` bytes, a completion queue
 * it keeps reading), the parent is the *initiator* (one registered source
 * buffer of `size` bytes, remote writes with 32-bit immediate data, `window`
 * writes in flight). No flow, no protocol, no credits: only the provider.
 *
 * The write is the one the engine posts (src/fabrics/protocol_rma.c):
 * fi_writemsg with FI_REMOTE_CQ_DATA | FI_COMPLETION, plus
 * FI_DELIVERY_COMPLETE unless --no-delivery-complete (docs/libfabric-notes.md
 * P3: without it a tx completion only means "in the socket").
 *
 * Rules followed (docs: docs/libfabric-notes.md):
 *  - the CQ is bound FI_TRANSMIT | FI_RECV on both sides (P2, §9);
 *  - the target keeps progressing (fi_cq_read) for as long as writes may
 *    arrive (P2), polling with a short sleep; never fi_cq_sread on shm (P9);
 *  - the remote address is an MR offset unless mr_mode has FI_MR_VIRT_ADDR
 *    (P5); the key sent is fi_mr_key(), requested keys are unique (P5);
 *  - the provider is always named, node is 127.0.0.1 (P10, P11).
 *
 * The parent and the child exchange a small fixed record over a socketpair
 * (the TargetInfo of this benchmark: endpoint name, address, key), then the
 * initiator's "done N" and the target's results. Output: one JSON line on
 * stdout with both sides' figures (see docs/benchmarks.md for the fields).
 * Every loop is bounded by a deadline; the child is killed by PID on error.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchutil.h"

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#define NAME_MAX_BYTES 256
#define CQ_BATCH 64
#define NAP_US 50

typedef struct
{
  const char *provider;         /* "tcp", "tcp;ofi_rxm", "shm" */
  bool rdm;                     /* endpoint type: FI_EP_RDM or FI_EP_MSG */
  size_t size;                  /* bytes per write */
  uint64_t count;               /* maximum writes */
  double duration;              /* seconds of posting, at most */
  unsigned window;              /* writes in flight */
  unsigned slots;               /* target slots the writes rotate over */
  bool delivery_complete;       /* FI_DELIVERY_COMPLETE on every write */
  bool spin;                    /* busy poll instead of poll + 50 us nap */
  double deadline;              /* seconds for the whole run, hard bound */
} Options;

/* What the target tells the initiator before the writes. */
typedef struct
{
  uint8_t name[NAME_MAX_BYTES];
  uint64_t name_len;
  uint64_t addr;                /* remote address of slot 0 */
  uint64_t key;
  uint64_t mr_mode;
  int64_t status;               /* 0, or a negative libfabric error */
} TargetInfo;

/* What the target reports after the writes. */
typedef struct
{
  uint64_t received;            /* CQ entries with FI_REMOTE_CQ_DATA */
  uint64_t out_of_order;        /* immediate data != expected sequence */
  double first_s, last_s;       /* CLOCK_MONOTONIC of first/last arrival */
  double cpu_s;                 /* user+sys between first and last arrival */
  int64_t status;
} TargetResult;

typedef struct
{
  struct fi_info *info;
  struct fid_fabric *fabric;
  struct fid_domain *domain;
  struct fid_eq *eq;
  struct fid_pep *pep;
  struct fid_ep *ep;
  struct fid_av *av;
  struct fid_cq *cq;
  struct fid_mr *mr;
  void *buf;
  size_t buf_len;
} Fab;

static void
fail (const char *what, long rc)
{
  fprintf (stderr, "bench-bare-fabric[%d]: %s: %s (%ld)\n", (int) getpid (),
      what, rc < 0 ? fi_strerror ((int) -rc) : strerror ((int) rc), rc);
}

static struct fi_info *
make_hints (const Options *o)
{
  struct fi_info *h = fi_allocinfo ();
  if (!h)
    return NULL;
  h->caps = FI_RMA | FI_WRITE | FI_REMOTE_WRITE | FI_MSG;
  h->mode = 0;
  h->ep_attr->type = o->rdm ? FI_EP_RDM : FI_EP_MSG;
  h->domain_attr->mr_mode =
      FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
  h->fabric_attr->prov_name = strdup (o->provider);
  return h;
}

/* The local endpoint's info: tcp and rxm bind 127.0.0.1 on a random port
 * (P10); shm gets no node, so each process names its endpoint after its
 * PID (with a node both would be "<node>:0:0" and collide, P12). */
static int
local_getinfo (const Options *o, struct fi_info *hints, struct fi_info **info)
{
  if (!strcmp (o->provider, "shm"))
    return fi_getinfo (FI_VERSION (1, 17), NULL, NULL, 0, hints, info);
  return fi_getinfo (FI_VERSION (1, 17), "127.0.0.1", "0", FI_SOURCE, hints,
      info);
}

static void
fab_close (Fab *f)
{
  if (f->ep)
    fi_close (&f->ep->fid);
  if (f->pep)
    fi_close (&f->pep->fid);
  if (f->mr)
    fi_close (&f->mr->fid);
  if (f->av)
    fi_close (&f->av->fid);
  if (f->cq)
    fi_close (&f->cq->fid);
  if (f->eq)
    fi_close (&f->eq->fid);
  if (f->domain)
    fi_close (&f->domain->fid);
  if (f->fabric)
    fi_close (&f->fabric->fid);
  if (f->info)
    fi_freeinfo (f->info);
  free (f->buf);
  memset (f, 0, sizeof (*f));
}

/* Fabric, domain, CQ (FI_CQ_FORMAT_DATA, no wait object: P9), the
 * registered buffer, and for MSG an EQ. */
static int
fab_open_common (Fab *f, size_t buf_len, uint64_t access, uint64_t key)
{
  struct fi_cq_attr cq_attr = {
    .size = 1024, .format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_NONE,
  };
  struct fi_eq_attr eq_attr = {.size = 16,.wait_obj = FI_WAIT_UNSPEC };
  int rc;

  if ((rc = fi_fabric (f->info->fabric_attr, &f->fabric, NULL)))
    return fail ("fi_fabric", rc), rc;
  if ((rc = fi_domain (f->fabric, f->info, &f->domain, NULL)))
    return fail ("fi_domain", rc), rc;
  if ((rc = fi_cq_open (f->domain, &cq_attr, &f->cq, NULL)))
    return fail ("fi_cq_open", rc), rc;
  if (f->info->ep_attr->type == FI_EP_MSG
      && (rc = fi_eq_open (f->fabric, &eq_attr, &f->eq, NULL)))
    return fail ("fi_eq_open", rc), rc;
  if (posix_memalign (&f->buf, 4096, buf_len))
    return fail ("posix_memalign", ENOMEM), -FI_ENOMEM;
  memset (f->buf, 0x5a, buf_len);       /* pre-faulted */
  f->buf_len = buf_len;
  if ((rc = fi_mr_reg (f->domain, f->buf, buf_len, access, 0, key, 0, &f->mr,
              NULL)))
    return fail ("fi_mr_reg", rc), rc;
  return 0;
}

static int
ep_open_bound (Fab *f, struct fi_info *info)
{
  int rc;
  if ((rc = fi_endpoint (f->domain, info, &f->ep, NULL)))
    return fail ("fi_endpoint", rc), rc;
  if (f->eq && (rc = fi_ep_bind (f->ep, &f->eq->fid, 0)))
    return fail ("fi_ep_bind eq", rc), rc;
  if (f->av && (rc = fi_ep_bind (f->ep, &f->av->fid, 0)))
    return fail ("fi_ep_bind av", rc), rc;
  if ((rc = fi_ep_bind (f->ep, &f->cq->fid, FI_TRANSMIT | FI_RECV)))
    return fail ("fi_ep_bind cq", rc), rc;
  if ((rc = fi_enable (f->ep)))
    return fail ("fi_enable", rc), rc;
  return 0;
}

static int
av_open (Fab *f)
{
  struct fi_av_attr av_attr = {.type = FI_AV_TABLE,.count = 4 };
  int rc = fi_av_open (f->domain, &av_attr, &f->av, NULL);
  if (rc)
    fail ("fi_av_open", rc);
  return rc;
}

/* Waits for one EQ event of type @want (MSG connection management). */
static int
eq_wait (Fab *f, uint32_t want, struct fi_eq_cm_entry *entry, double deadline)
{
  while (bench_now_s () < deadline) {
    uint32_t ev;
    ssize_t n = fi_eq_sread (f->eq, &ev, entry, sizeof (*entry), 100, 0);
    if (n == -FI_EAGAIN || n == -FI_ETIMEDOUT)
      continue;
    if (n == -FI_EAVAIL) {
      struct fi_eq_err_entry err = { 0 };
      fi_eq_readerr (f->eq, &err, 0);
      fail ("EQ error", -err.err);
      return -err.err;
    }
    if (n < 0)
      return fail ("fi_eq_sread", n), (int) n;
    if (ev == want)
      return 0;
    if (ev == FI_CONNREQ && entry->info)
      fi_freeinfo (entry->info);
  }
  return -FI_ETIMEDOUT;
}

/* Target, first half: open everything, fill @ti for the initiator. */
static int
target_setup (Fab *f, const Options *o, TargetInfo *ti)
{
  struct fi_info *hints = make_hints (o);
  size_t len = sizeof (ti->name);
  int rc;

  rc = local_getinfo (o, hints, &f->info);
  fi_freeinfo (hints);
  if (rc)
    return fail ("fi_getinfo (target)", rc), rc;
  if (f->info->domain_attr->cq_data_size < 4) {   /* P1 */
    fprintf (stderr, "provider %s has no remote CQ data\n", o->provider);
    return -FI_ENODATA;
  }
  if ((rc = fab_open_common (f, o->size * o->slots, FI_REMOTE_WRITE,
              0xB0A7)))
    return rc;
  if (o->rdm) {
    if ((rc = av_open (f)) || (rc = ep_open_bound (f, f->info)))
      return rc;
    rc = fi_getname (&f->ep->fid, ti->name, &len);
  } else {
    if ((rc = fi_passive_ep (f->fabric, f->info, &f->pep, NULL)))
      return fail ("fi_passive_ep", rc), rc;
    if ((rc = fi_pep_bind (f->pep, &f->eq->fid, 0)))
      return fail ("fi_pep_bind", rc), rc;
    if ((rc = fi_listen (f->pep)))
      return fail ("fi_listen", rc), rc;
    rc = fi_getname (&f->pep->fid, ti->name, &len);
  }
  if (rc)
    return fail ("fi_getname", rc), rc;
  ti->name_len = len;
  ti->mr_mode = f->info->domain_attr->mr_mode;
  ti->addr = (ti->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t) (uintptr_t) f->buf : 0;      /* P5 */
  ti->key = fi_mr_key (f->mr);
  return 0;
}

/* MSG target: accept the one connection request. */
static int
target_accept (Fab *f, double deadline)
{
  struct fi_eq_cm_entry entry;
  int rc;

  if ((rc = eq_wait (f, FI_CONNREQ, &entry, deadline)))
    return rc;
  rc = ep_open_bound (f, entry.info);
  fi_freeinfo (entry.info);
  if (rc)
    return rc;
  if ((rc = fi_accept (f->ep, NULL, 0)))
    return fail ("fi_accept", rc), rc;
  return eq_wait (f, FI_CONNECTED, &entry, deadline);
}

/* Target, second half: progress and count until the initiator's total has
 * arrived or @deadline passes (P2: the target's reads drive progress). */
static void
target_run (Fab *f, const Options *o, int sock, TargetResult *res,
    double deadline)
{
  struct fi_cq_data_entry e[CQ_BATCH];
  uint64_t expected = UINT64_MAX;       /* set by the initiator's "done" */
  double cpu0 = 0;
  unsigned idle = 0;

  while (res->received < expected && bench_now_s () < deadline) {
    ssize_t n = fi_cq_read (f->cq, e, CQ_BATCH);
    if (n > 0) {
      for (ssize_t i = 0; i < n; i++) {
        if (!(e[i].flags & FI_REMOTE_CQ_DATA))
          continue;
        if (res->received == 0) {
          res->first_s = bench_now_s ();
          cpu0 = bench_cpu_s ();
        }
        if ((uint32_t) e[i].data != (uint32_t) res->received)
          res->out_of_order++;
        res->received++;
      }
      res->last_s = bench_now_s ();
      res->cpu_s = bench_cpu_s () - cpu0;
      continue;
    }
    if (n == -FI_EAVAIL) {
      struct fi_cq_err_entry err = { 0 };
      fi_cq_readerr (f->cq, &err, 0);
      fail ("target CQ error", -err.err);
      res->status = -err.err;
      return;
    }
    if (n != -FI_EAGAIN) {
      fail ("target fi_cq_read", n);
      res->status = n;
      return;
    }
    /* Nothing: look for "done" now and then, nap unless spinning. */
    if (!o->spin || (++idle & 1023) == 0) {
      struct pollfd pfd = { .fd = sock, .events = POLLIN };
      if (expected == UINT64_MAX && poll (&pfd, 1, 0) == 1
          && !bench_read_all (sock, &expected, sizeof (expected), deadline))
        break;
    }
    if (!o->spin)
      usleep (NAP_US);
  }
  if (res->received < expected && expected != UINT64_MAX)
    fprintf (stderr, "target: %" PRIu64 " of %" PRIu64 " writes arrived\n",
        res->received, expected);
}

static int
initiator_connect (Fab *f, const Options *o, const TargetInfo *ti,
    fi_addr_t *peer, double deadline)
{
  struct fi_info *hints = make_hints (o);
  int rc;

  if (!o->rdm) {
    hints->dest_addr = malloc (ti->name_len);
    memcpy (hints->dest_addr, ti->name, ti->name_len);
    hints->dest_addrlen = ti->name_len;
    hints->addr_format = FI_SOCKADDR_IN;
    rc = fi_getinfo (FI_VERSION (1, 17), NULL, NULL, 0, hints, &f->info);
  } else {
    rc = local_getinfo (o, hints, &f->info);
  }
  fi_freeinfo (hints);
  if (rc)
    return fail ("fi_getinfo (initiator)", rc), rc;
  if ((rc = fab_open_common (f, o->size, FI_WRITE, 0x1A17)))
    return rc;
  if (o->rdm) {
    if ((rc = av_open (f)) || (rc = ep_open_bound (f, f->info)))
      return rc;
    rc = fi_av_insert (f->av, ti->name, 1, peer, 0, NULL);
    if (rc != 1)
      return fail ("fi_av_insert", rc), -FI_EINVAL;
    return 0;
  }
  *peer = FI_ADDR_UNSPEC;
  if ((rc = ep_open_bound (f, f->info)))
    return rc;
  if ((rc = fi_connect (f->ep, ti->name, NULL, 0)))
    return fail ("fi_connect", rc), rc;
  struct fi_eq_cm_entry entry;
  return eq_wait (f, FI_CONNECTED, &entry, deadline);
}

typedef struct
{
  uint64_t posted, completed;
  double first_s, last_s, cpu_s;
  int64_t status;
} InitResult;

/* Drains tx completions; returns false on a CQ error. */
static bool
initiator_drain (Fab *f, InitResult *r)
{
  struct fi_cq_data_entry e[CQ_BATCH];
  ssize_t n = fi_cq_read (f->cq, e, CQ_BATCH);
  if (n > 0) {
    r->completed += (uint64_t) n;
    return true;
  }
  if (n == -FI_EAVAIL) {
    struct fi_cq_err_entry err = { 0 };
    fi_cq_readerr (f->cq, &err, 0);
    fail ("initiator CQ error", -err.err);
    r->status = -err.err;
    return false;
  }
  if (n != -FI_EAGAIN) {
    r->status = n;
    return false;
  }
  return true;
}

static void
initiator_run (Fab *f, const Options *o, const TargetInfo *ti, fi_addr_t peer,
    InitResult *r, double deadline)
{
  uint64_t flags = FI_REMOTE_CQ_DATA | FI_COMPLETION;
  void *desc = fi_mr_desc (f->mr);
  double stop_posting;
  double cpu0;

  if (o->delivery_complete)
    flags |= FI_DELIVERY_COMPLETE;
  r->first_s = bench_now_s ();
  cpu0 = bench_cpu_s ();
  stop_posting = r->first_s + o->duration;
  if (stop_posting > deadline)
    stop_posting = deadline;

  while (r->status == 0 && bench_now_s () < deadline) {
    bool posting = r->posted < o->count && bench_now_s () < stop_posting;
    if (!posting && r->completed == r->posted)
      break;
    if (posting && r->posted - r->completed < o->window) {
      struct iovec iov = {.iov_base = f->buf,.iov_len = o->size };
      struct fi_rma_iov rma = {
        .addr = ti->addr + (r->posted % o->slots) * o->size,
        .len = o->size,.key = ti->key,
      };
      struct fi_msg_rma msg = {
        .msg_iov = &iov,.desc = &desc,.iov_count = 1,.addr = peer,
        .rma_iov = &rma,.rma_iov_count = 1,.context = NULL,
        .data = (uint32_t) r->posted,
      };
      ssize_t rc = fi_writemsg (f->ep, &msg, flags);
      if (rc == 0) {
        r->posted++;
        continue;
      }
      if (rc != -FI_EAGAIN) {
        fail ("fi_writemsg", rc);
        r->status = rc;
        break;
      }
    }
    uint64_t before = r->completed;
    if (!initiator_drain (f, r))
      break;
    if (r->completed == before && !o->spin)
      usleep (NAP_US);
  }
  r->last_s = bench_now_s ();
  r->cpu_s = bench_cpu_s () - cpu0;
}

static void
usage (void)
{
  fprintf (stderr,
      "usage: bench-bare-fabric --provider tcp|tcp;ofi_rxm|shm --size BYTES\n"
      "       [--count N] [--duration S] [--window W] [--slots S]\n"
      "       [--no-delivery-complete] [--spin] [--deadline S]\n"
      "Forks a target; prints one JSON line (see docs/benchmarks.md).\n");
}

static bool
parse_args (int argc, char **argv, Options *o)
{
  *o = (Options) {
  .provider = "tcp",.size = 5529600,.count = UINT64_MAX,.duration = 1.0,
        .window = 8,.slots = 4,.delivery_complete = true,.deadline = 30.0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp (a, "--no-delivery-complete"))
      o->delivery_complete = false;
    else if (!strcmp (a, "--spin"))
      o->spin = true;
    else if (!v)
      return false;
    else if (!strcmp (a, "--provider"))
      o->provider = v, i++;
    else if (!strcmp (a, "--size"))
      o->size = strtoull (v, NULL, 10), i++;
    else if (!strcmp (a, "--count"))
      o->count = strtoull (v, NULL, 10), i++;
    else if (!strcmp (a, "--duration"))
      o->duration = strtod (v, NULL), i++;
    else if (!strcmp (a, "--window"))
      o->window = (unsigned) strtoul (v, NULL, 10), i++;
    else if (!strcmp (a, "--slots"))
      o->slots = (unsigned) strtoul (v, NULL, 10), i++;
    else if (!strcmp (a, "--deadline"))
      o->deadline = strtod (v, NULL), i++;
    else
      return false;
  }
  o->rdm = strcmp (o->provider, "tcp") != 0;    /* tcp = MSG; rxm, shm = RDM */
  return o->size > 0 && o->window > 0 && o->slots > 0 && o->count > 0
      && o->duration > 0 && o->deadline > 0 && o->deadline <= 600;
}

static int
child_main (const Options *o, int sock, double deadline)
{
  Fab f = { 0 };
  TargetInfo ti = { 0 };
  TargetResult res = { 0 };

  ti.status = target_setup (&f, o, &ti);
  if (!bench_write_all (sock, &ti, sizeof (ti)) || ti.status) {
    fab_close (&f);
    return 1;
  }
  if (!o->rdm && (res.status = target_accept (&f, deadline)) == 0)
    target_run (&f, o, sock, &res, deadline);
  else if (o->rdm)
    target_run (&f, o, sock, &res, deadline);
  bench_write_all (sock, &res, sizeof (res));
  fab_close (&f);
  return res.status ? 1 : 0;
}

int
main (int argc, char **argv)
{
  Options o;
  int sv[2];
  pid_t child;
  double t0 = bench_now_s (), deadline;
  TargetInfo ti;
  TargetResult tr = {.status = -FI_ETIMEDOUT };
  InitResult ir = { 0 };
  Fab f = { 0 };
  fi_addr_t peer = FI_ADDR_UNSPEC;
  int status = 0, rc = 1;

  if (!parse_args (argc, argv, &o)) {
    usage ();
    return 2;
  }
  deadline = t0 + o.deadline;
  if (socketpair (AF_UNIX, SOCK_STREAM, 0, sv))
    return fail ("socketpair", errno), 1;
  fflush (stdout);
  child = fork ();
  if (child < 0)
    return fail ("fork", errno), 1;
  if (child == 0) {
    close (sv[0]);
    _exit (child_main (&o, sv[1], deadline + 2));
  }
  close (sv[1]);

  if (!bench_read_all (sv[0], &ti, sizeof (ti), deadline) || ti.status
      || ti.name_len > NAME_MAX_BYTES) {
    fprintf (stderr, "target setup failed\n");
    goto out;
  }
  if ((ir.status = initiator_connect (&f, &o, &ti, &peer, deadline)) == 0)
    initiator_run (&f, &o, &ti, peer, &ir, deadline);
  /* Tell the target how many writes to expect, then collect its figures. */
  if (!bench_write_all (sv[0], &ir.completed, sizeof (ir.completed))
      || !bench_read_all (sv[0], &tr, sizeof (tr), deadline + 5))
    fprintf (stderr, "no result from the target\n");
  rc = (ir.status || tr.status || tr.received != ir.completed) ? 1 : 0;

  {
    double tx_s = ir.last_s - ir.first_s;
    double rx_s = tr.last_s - tr.first_s;
    double bytes = (double) ir.completed * (double) o.size;
    double gb = bytes / 1e9;
    /* rx rate: between first and last arrival, i.e. received-1 intervals */
    double rx_gbps = (rx_s > 0 && tr.received > 1)
        ? (double) (tr.received - 1) * o.size / 1e9 / rx_s : 0;
    printf ("{\"bench\":\"bare-fabric\",\"provider\":\"%s\",\"ep_type\":\"%s\","
        "\"size\":%zu,\"window\":%u,\"slots\":%u,\"delivery_complete\":%s,"
        "\"wait\":\"%s\",\"posted\":%" PRIu64 ",\"completed\":%" PRIu64
        ",\"received\":%" PRIu64 ",\"out_of_order\":%" PRIu64
        ",\"tx_s\":%.6f,\"rx_s\":%.6f,\"msgs_per_s\":%.3f,\"gb_per_s\":%.4f,"
        "\"rx_gb_per_s\":%.4f,\"cpu_s_per_gb_initiator\":%.4f,"
        "\"cpu_s_per_gb_target\":%.4f,\"ok\":%s}\n",
        o.provider, o.rdm ? "rdm" : "msg", o.size, o.window, o.slots,
        o.delivery_complete ? "true" : "false", o.spin ? "spin" : "nap",
        ir.posted, ir.completed, tr.received, tr.out_of_order, tx_s, rx_s,
        tx_s > 0 ? ir.completed / tx_s : 0, tx_s > 0 ? gb / tx_s : 0,
        rx_gbps, gb > 0 ? ir.cpu_s / gb : 0, gb > 0 ? tr.cpu_s / gb : 0,
        rc == 0 ? "true" : "false");
  }

out:
  fab_close (&f);
  close (sv[0]);
  /* Bounded wait for the child, then kill it by PID. */
  for (int i = 0; i < 200; i++) {
    if (waitpid (child, &status, WNOHANG) == child)
      return rc ? rc : (WIFEXITED (status) ? WEXITSTATUS (status) : 1);
    usleep (10000);
  }
  kill (child, SIGKILL);
  waitpid (child, &status, 0);
  return 1;
}
