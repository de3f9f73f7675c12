/* Pointer chasing: arenas of memory and the chase kernel.
 *
 * Every data-side probe times a chain of dependent loads through memory it
 * laid out itself.  The chain is written into an arena: large pages when
 * the OS gives them (so that TLB misses stay out of cache measurements),
 * base pages for TLB probes.  Arenas are reserved without backing store;
 * only the lines a chain touches are ever faulted in. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "xray-internal.h"

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
      snprintf(err, errlen, "cannot map %zu MB for a pointer chase: %s%s", len >> 20,
               strerror(errno), errno == ENOMEM ? " (a memory limit such as ulimit -v?)" : "");
      a->map = NULL;
      return -1;
    }
    p = ((uintptr_t) a->map + HUGE_ALIGN - 1) & ~(uintptr_t) (HUGE_ALIGN - 1);
    a->base = (char *) p;
    a->len = len;
#ifdef MADV_HUGEPAGE
    madvise(a->base, len, kind == XRAY_ARENA_HUGE ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#else
    (void) kind;
#endif
  }
#else
  (void) kind;
  a->maplen = len + HUGE_ALIGN;
  a->map = calloc(1, a->maplen);
  if (!a->map) {
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

int
xray__arena_huge_pages(void)
{
  char buf[128];

  if (xray__read_line("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof buf))
    return -1;
  return strstr(buf, "[never]") ? 0 : 1;
}

void
xray__chase_link(char *base, const struct xray__chase *c)
{
  size_t i;

  for (i = 0; i < c->n; i++)
    *(void **) (base + c->off[i]) = base + c->off[i + 1 < c->n ? i + 1 : 0];
}

#define L1 p = *(void **) p;
#define L4 L1 L1 L1 L1
XRAY_UNINSTRUMENTED void *
xray__chase_run(void *p, uint64_t iters)
{
  while (iters--) {
    L4 L4 L4 L4
  }
  return p;
}
#undef L1
#undef L4

uint64_t
xray__rand(uint64_t *s)         /* xorshift64* */
{
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * UINT64_C(2685821657736338717);
}

/* Fisher-Yates.  A chase links its list in order and back to the start,
 * so any order is one cycle that visits every element before it repeats;
 * shuffled, it is one no stride prefetcher can learn (X-Ray's
 * i -> (i + p) mod n is a constant stride modulo n, and Zen 3 learns it). */
void
xray__shuffle(uint64_t *v, size_t n, uint64_t *rng)
{
  size_t i;

  for (i = n; i > 1; i--) {
    size_t j = (size_t) (xray__rand(rng) % i);
    uint64_t t = v[i - 1];
    v[i - 1] = v[j];
    v[j] = t;
  }
}

double
xray__chase_time(xray_machine *m, uint64_t *off, size_t n, enum xray__arena_kind arena,
                 uint64_t *rng, const char *probe, const char *layout)
{
  struct xray__chase c;
  char kernel[96];

  xray__shuffle(off, n, rng);
  c.off = off;
  c.n = n;
  c.arena = arena;
  c.quick = 0;
  snprintf(kernel, sizeof kernel, "%s/%s", arena == XRAY_ARENA_HUGE ? "chase" : "chase-4k",
           layout);
  return xray__point(m, probe, kernel, (double) n, m->ops->chase(m, &c));
}

/* Lines spread over every L1 set: line i at offset (i mod lines-per-page)
 * times 64 of page p(i).  With p(i) = i stride the chain touches n pages,
 * and then fill more past them whose numbers are not multiples of 16;
 * with p(i) = i / lines-per-page (stride 0), the fewest pages that hold
 * the same lines. */
static size_t
spread(uint64_t *off, size_t n, size_t fill, size_t page, size_t stride)
{
  size_t i, k, per = page / 64;

  for (i = 0, k = 1; i < n + fill; i++) {
    uint64_t pg = !stride ? i / per : i < n ? (uint64_t) i * stride : (uint64_t) n * stride + k;
    off[i] = pg * page + (i % per) * 64;
    if (stride && i >= n)
      k += k % 16 == 15 ? 2 : 1;
  }
  return n + fill;
}

double
xray__tlb_cost(xray_machine *m, uint64_t *off, size_t n, size_t fill, size_t stride,
               enum xray__arena_kind arena, uint64_t *rng, const char *probe, double *base)
{
  size_t page = m->page ? m->page : 4096;
  char layout[64];
  double t, r;

  snprintf(layout, sizeof layout, "s%zu+%zu", stride, fill);
  t = xray__chase_time(m, off, spread(off, n, fill, page, stride), arena, rng, probe, layout);
  r = xray__chase_time(m, off, spread(off, n, fill, page, 0), arena, rng, probe, "packed");
  if (base)
    *base = r;
  return t - r;
}
