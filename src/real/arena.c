/* The real machine's memory for pointer chases: arenas, and the chase
 * kernel that runs through them.
 *
 * Every data-side probe times a chain of dependent loads through memory it
 * laid out itself.  The chain is written into an arena: large pages when
 * the OS gives them (so that TLB misses stay out of cache measurements),
 * base pages for TLB probes.  Arenas are reserved without backing store;
 * only the lines a chain touches are ever faulted in. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "real/real.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#define HAVE_MMAP 1
#else
#include <stdlib.h>
#endif

#define HUGE_ALIGN ((size_t) 2 << 20)

int
xray__arena_reserve(struct xray__arena *a, size_t len, enum xray__arena_kind kind,
                    char *err, size_t errlen)
{
  a->full = 0;
  if (a->base && a->len >= len)
    return 0;
  xray__arena_free(a);
  len = (len + HUGE_ALIGN - 1) / HUGE_ALIGN * HUGE_ALIGN;
#ifdef HAVE_MMAP
  {
    int flags = MAP_PRIVATE | MAP_ANONYMOUS;
    uintptr_t p;
#ifdef MAP_NORESERVE
    flags |= MAP_NORESERVE;
#endif
    a->maplen = len + HUGE_ALIGN;
    a->map = mmap(NULL, a->maplen, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (a->map == MAP_FAILED) {
      int e = errno;
      a->full = e == ENOMEM;
      snprintf(err, errlen, "cannot map %zu MB for a pointer chase: %s%s", len >> 20, strerror(e),
               a->full ? " (a memory limit such as ulimit -v?)" : "");
      a->map = NULL;
      return -1;
    }
    p = ((uintptr_t) a->map + HUGE_ALIGN - 1) & ~(uintptr_t) (HUGE_ALIGN - 1);
    a->base = (char *) p;
    a->len = len;
#ifdef MADV_HUGEPAGE
    madvise(a->base, len, kind == XRAY__ARENA_HUGE ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#else
    (void) kind;
#endif
  }
#else
  (void) kind;
  a->maplen = len + HUGE_ALIGN;
  a->map = calloc(1, a->maplen);
  if (!a->map) {
    a->full = 1;
    snprintf(err, errlen, "cannot allocate %zu MB for a pointer chase", len >> 20);
    return -1;
  }
  a->base = (char *) (((uintptr_t) a->map + HUGE_ALIGN - 1) & ~(uintptr_t) (HUGE_ALIGN - 1));
  a->len = len;
#endif
  return 0;
}

void
xray__arena_free(struct xray__arena *a)
{
  if (a->map) {
#ifdef HAVE_MMAP
    munmap(a->map, a->maplen);
#else
    free(a->map);
#endif
  }
  memset(a, 0, sizeof *a);
}

void
xray__arenas_free(struct xray__arena *a, int n)
{
  int i;

  for (i = 0; i < n; i++)
    xray__arena_free(&a[i]);
}

void
xray__chase_link(char *base, const struct xray__chase *c)
{
  size_t i;

  for (i = 0; i < c->n; i++)
    *(void **) (base + c->off[i]) = base + c->off[i + 1 < c->n ? i + 1 : 0];
}

void *
xray__chase_place(struct xray__arena *a, const struct xray__chase *c, char *err, size_t errlen)
{
  uint64_t maxoff = 0;
  size_t i, need, grown = 2 * a->len;
  int grew;

  for (i = 0; i < c->n; i++)
    if (c->off[i] > maxoff)
      maxoff = c->off[i];
  /* An arena that must grow at least doubles, where the address space
   * allows: a scan whose chains grow a little at each point would
   * otherwise map it again, and fault in (clear) every page it touches,
   * each time.  Only the pages a chain touches are resident either way. */
  need = (size_t) maxoff + 64;
  grew = a->base && a->len < need && grown > need
         && xray__arena_reserve(a, grown, c->arena, err, errlen) == 0;
  if (!grew && xray__arena_reserve(a, need, c->arena, err, errlen))
    return NULL;
  xray__chase_link(a->base, c);
  return a->base + c->off[0];
}

#define L1 p = *(void **) p;
#define L4 L1 L1 L1 L1
XRAY__UNINSTRUMENTED void *
xray__chase_run(void *p, uint64_t iters)
{
  while (iters--) {
    L4 L4 L4 L4
  }
  return p;
}
#undef L1
#undef L4
