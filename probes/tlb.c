/* Data TLB levels: entries, page size, associativity where it can be
 * established, and the cost of a miss.
 *
 * The paper (Sec. 4.7) treats a TLB as a cache whose line is a page and
 * insists that nothing else may miss while it is measured.  Here each
 * point is a pair of chases through the same n lines: one line in each of
 * n consecutive pages, at offsets rotated over the L1 sets, and the same
 * lines packed into the fewest pages.  The data caches see the same lines
 * in both; only the pages differ, so the difference is what translation
 * costs.  It steps where the pages outgrow a TLB level: consecutive pages
 * fill every set of a set-associative TLB evenly, so the step is at its
 * exact entry count whatever its associativity, and the visiting order is
 * random so that no prefetcher helps.
 *
 * The page size: 2 E1 lines s bytes apart (E1 the first level's entries)
 * use E1 pages while s is at most half a page, and 2 E1 pages beyond.
 * Full associativity of the first level: E1 pages placed 2^j pages apart
 * for every j fit only if no set index is involved. */
#include "xray-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define K_MIN 8
#define K_MAX 16384
#define MAX_STEPS 3
#define ONSET 0.25

struct tc {
  xray_machine *m;
  uint64_t *off;
  uint64_t rng;
  size_t page;
  double hit;
  int failed;
};

static double
point(void *p, double x)
{
  struct tc *c = p;
  double base, d = xray__tlb_cost(c->m, c->off, (size_t) x, XRAY_ARENA_SMALL, &c->rng,
                                  "tlb", &base);

  if (isnan(d)) {
    c->failed = 1;
    return NAN;
  }
  if (!(c->hit > 0))
    c->hit = base;
  /* The translation cost on top of the lines' own latency. */
  return c->hit + fmax(0, d);
}

/* The median of three points: the bisection below follows every answer,
 * so one disturbed point must not steer it. */
static double
point3(struct tc *c, double x)
{
  double v[3];
  int i;

  for (i = 0; i < 3; i++)
    v[i] = point(c, x);
  return xray__median(v, 3);
}

/* The exact edge: the smallest page count whose cost is past the given
 * level of the step. */
static size_t
edge(struct tc *c, size_t a, size_t b, double mid)
{
  while (b - a > 1) {
    size_t m = a + (b - a) / 2;
    if (point3(c, (double) m) >= mid)
      b = m;
    else
      a = m;
  }
  return b;
}

/* Cycles per load of n lines s bytes apart, offsets rotated over the L1
 * sets within each stride. */
static double
strided(struct tc *c, size_t n, uint64_t s)
{
  uint64_t span = s < 4096 ? s : 4096;
  size_t i;

  for (i = 0; i < n; i++)
    c->off[i] = i * s + (i % (span / 64)) * 64;
  return xray__chase_time(c->m, c->off, n, XRAY_ARENA_SMALL, &c->rng, "tlb-page");
}

static int
tlb_run(xray_machine *m, xray_report *r)
{
  xray_value *vpage = xray_report_add(r, "XRAY_PAGE_SIZE", "base page size seen by the TLB",
                                      "bytes");
  xray_value *ve1 = xray_report_add(r, "XRAY_DTLB_ENTRIES", "first-level data TLB entries",
                                    "entries");
  xray_value *va1 = xray_report_add(r, "XRAY_DTLB_ASSOC",
                                    "first-level data TLB associativity", "ways");
  xray_value *ve2 = xray_report_add(r, "XRAY_L2TLB_ENTRIES", "second-level TLB entries",
                                    "entries");
  xray_value *va2 = xray_report_add(r, "XRAY_L2TLB_ASSOC", "second-level TLB associativity",
                                    "ways");
  xray_value *vm1 = xray_report_add(r, "XRAY_DTLB_MISS_LATENCY",
                                    "cost of a first-level miss that hits the second level",
                                    "cycles");
  xray_value *vm = xray_report_add(r, "XRAY_TLB_MISS_LATENCY",
                                   "cost of a miss in every TLB level (page walk)", "cycles");
  struct tc c = { 0 };
  struct xray__curve cv = { 0 };
  struct xray__step st[MAX_STEPS];
  size_t ns, i, e[MAX_STEPS];
  char method[200], why[200];

  if (!vm || !(c.off = malloc(2 * K_MAX * sizeof *c.off)))
    return -1;
  c.m = m;
  c.rng = UINT64_C(0xa4093822299f31d0);
  c.page = m->page ? m->page : 4096;
  xray__scan(&cv, K_MIN, K_MAX, 4, point, &c);
  ns = c.failed ? 0 : xray__find_steps(&cv, 0.3, st, MAX_STEPS);
  if (ns == 0) {
    snprintf(why, sizeof why, "%.190s", c.failed ? m->error
             : "translation costs nothing measurable up to 16384 pages");
    xray__value_unknown(vpage, why), xray__value_unknown(ve1, why), xray__value_unknown(va1, why), xray__value_unknown(ve2, why), xray__value_unknown(va2, why);
    xray__value_unknown(vm1, why), xray__value_unknown(vm, why);
    goto out;
  }
  /* A quarter of the way up the step, each point the median of three:
   * the middle read 65-66 for a 64-entry DTLB and up to 2667 for a
   * 2048-entry L2 TLB here (a set-associative level overflows one set at a
   * time past its entry count, and the shared host adds a slope). */
  for (i = 0; i < ns; i++)
    e[i] = edge(&c, (size_t) cv.x[st[i].last_low], (size_t) cv.x[st[i].first_high],
                st[i].lo + ONSET * (st[i].hi - st[i].lo)) - 1;
  snprintf(method, sizeof method, "consecutive pages in random order, one line each, less "
           "the same lines packed; step at %zu pages", e[0] + 1);
  xray__value_measured(ve1, (double) e[0], method);
  if (ns > 1) {
    snprintf(method, sizeof method, "consecutive pages in random order, one line each, less "
             "the same lines packed; step at %zu pages", e[1] + 1);
    xray__value_measured(ve2, (double) e[1], method);
    xray__value_measured(vm1, floor(st[0].hi - st[0].lo + 0.5), "plateau after the first step");
    vm1->exact = st[0].hi - st[0].lo;
    xray__value_measured(vm, floor(st[1].hi - st[0].lo + 0.5), "plateau after the second step");
    vm->exact = st[1].hi - st[0].lo;
  } else {
    xray__value_unknown(ve2, "one step only in the translation cost up to 16384 pages");
    xray__value_unknown(va2, "one step only in the translation cost up to 16384 pages");
    xray__value_unknown(vm1, "one TLB level: see XRAY_TLB_MISS_LATENCY");
    xray__value_measured(vm, floor(st[0].hi - st[0].lo + 0.5), "plateau after the step");
    vm->exact = st[0].hi - st[0].lo;
  }
  /* Page size: 2 E1 lines s apart use E1 pages up to s = page / 2. */
  {
    double mid = (st[0].lo + st[0].hi) / 2, y;
    uint64_t s;
    size_t n = 2 * e[0];
    /* The jump must hold at the next stride too: one noisy point is not a
     * page boundary. */
    for (s = 1024; s <= ((uint64_t) 1 << 22); s *= 2)
      if ((y = strided(&c, n, s)) >= mid && strided(&c, n, 2 * s) >= mid)
        break;
    if (s <= ((uint64_t) 1 << 22)) {
      snprintf(method, sizeof method, "%zu lines s bytes apart miss the first level from "
               "s = %llu", n, (unsigned long long) s);
      xray__value_measured(vpage, (double) s, method);
    } else
      xray__value_unknown(vpage, "no stride up to 4 MB made the first level miss");
  }
  /* Full associativity: E1 pages 2^j pages apart fit for every j. */
  {
    double mid = (st[0].lo + st[0].hi) / 2;
    uint64_t j, s;
    for (j = 1; j <= 12; j++) {
      double v[3];
      int k;
      s = (uint64_t) c.page << j;
      /* A miss must hold on repeats: one spike is not a set conflict. */
      for (k = 0; k < 3; k++)
        v[k] = strided(&c, e[0], s + 64);
      if (xray__median(v, 3) >= mid)
        break;
    }
    if (j > 12) {
      snprintf(method, sizeof method, "%zu pages at every stride of 2-4096 pages fit: fully "
               "associative", e[0]);
      xray__value_measured(va1, (double) e[0], method);
    } else {
      snprintf(why, sizeof why, "set-associative (%zu pages %llu pages apart miss); its ways "
               "are not measured", e[0], (unsigned long long) (1ULL << j));
      xray__value_unknown(va1, why);
    }
    xray__value_unknown(va2, ns > 1 ? "not measured: the strides it needs span gigabytes of address space"
         : "one step only in the translation cost up to 16384 pages");
  }
out:
  xray__curve_free(&cv);
  free(c.off);
  return 0;
}

const xray_probe xray__probe_tlb = {
  "tlb", "data TLB entries, page size and miss cost", tlb_run
};
