/* L1 data cache: capacity, associativity, line size and load latency.
 *
 * The paper's method (Yotov, Pingali, Stodghill, Sec. 4.4): a set of
 * addresses is compact if it fits in the cache at once, and by Theorem 1
 * the sequence <m0, S, n> (n addresses S bytes apart) is compact iff
 * n <= max(C/S, A).  Fig. 8 doubles the stride S and finds for each the
 * smallest non-compact n; once n stops changing, A = n - 1 and
 * C = A * S / 2.  Fig. 10 then places A addresses C/A apart and one more
 * at C + s: the set is non-compact while s is smaller than a line, so the
 * smallest compact s is the line size B.
 *
 * compact() times a pointer chase through the addresses, visited in a
 * random order (the paper's i -> (i + p) mod n is a constant stride that
 * Zen 3's prefetcher learns), and compares the time per load with the
 * midpoint between the L1 hit latency and the latency of a chain that
 * surely misses: at any lower threshold the next-line prefetcher, which
 * pulls lines into the neighbouring set, makes the line-size test fail. */
#include "xray-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Runs at most: a run takes tens of milliseconds, and a line that three
 * runs must find (line_consensus) may take more than six on a busy host. */
#define MAX_RUNS 9
#define MAX_N 65536
/* Strides beyond this mean the search went wrong: give up. */
#define MAX_STRIDE ((uint64_t) 64 << 20)

struct dc {
  xray_machine *m;
  uint64_t off[MAX_N + 1];
  uint64_t rng;
  double hit, miss, theta;      /* cycles per load */
  int failed;
};

/* Cycles per load of <0, S, n>, plus one address at `last` if not 0. */
static double
chain(struct dc *d, uint64_t stride, size_t n, uint64_t last)
{
  size_t i, k = 0;
  char layout[48];
  double y;

  for (i = 0; i < n && k < MAX_N; i++)
    d->off[k++] = i * stride;
  if (last)
    d->off[k++] = last;
  snprintf(layout, sizeof layout, "s%llu+%llu", (unsigned long long) stride,
           (unsigned long long) last);
  y = xray__chase_time(d->m, d->off, k, XRAY__ARENA_HUGE, &d->rng, "dcache", layout);
  if (isnan(y))
    d->failed = 1;
  return y;
}

static int
compact(struct dc *d, uint64_t stride, size_t n)
{
  return chain(d, stride, n, 0) < d->theta;
}

/* The hit latency from a few lines, the miss latency from a footprint
 * twice the first one that overflows. */
static int
levels(struct dc *d)
{
  uint64_t bytes;
  double y;

  d->hit = chain(d, 64, 8, 0);
  if (d->failed)
    return -1;
  for (bytes = 1024; bytes <= (16u << 20); bytes *= 2) {
    y = chain(d, 64, (size_t) (bytes / 64), 0);
    if (y > 1.4 * d->hit && chain(d, 64, (size_t) (bytes / 64), 0) > 1.4 * d->hit) {
      d->miss = chain(d, 64, (size_t) (2 * bytes / 64), 0);
      d->theta = (d->hit + d->miss) / 2;
      return d->failed ? -1 : 0;
    }
  }
  return -1;
}

/* Fig. 8.  Returns 0 and A, C; -1 if the search does not settle. */
static int
capacity(struct dc *d, unsigned long *assoc, unsigned long *cap)
{
  uint64_t S = 8;
  size_t n = 1, old = 0, lo, hi;

  while (compact(d, S, n)) {
    if (n >= MAX_N / 2 || d->failed)
      return -1;
    n *= 2;
  }
  for (;;) {
    /* Smallest n' <= n with <0, S, n'> non-compact: <0, S, n> is not (for
     * a larger stride, n_c only shrinks), and 1 address always is. */
    lo = 1;
    hi = n;
    while (hi - lo > 1) {
      size_t mid = lo + (hi - lo) / 2;
      if (compact(d, S, mid))
        lo = mid;
      else
        hi = mid;
    }
    if (d->failed)
      return -1;
    n = hi;
    /* One address is always compact: a "non-compact" single address is
     * noise (a spike), and no capacity follows from it. */
    if (n < 2)
      return -1;
    if (n == old) {
      *assoc = (unsigned long) (n - 1);
      *cap = (unsigned long) (S / 2 * (n - 1));
      return 0;
    }
    old = n;
    S *= 2;
    if (S > MAX_STRIDE)
      return -1;
  }
}

/* Fig. 10: A addresses C/A apart and one at C + s. */
static int
line_size(struct dc *d, unsigned long assoc, unsigned long cap, unsigned long *line)
{
  uint64_t s, way = cap / assoc;

  for (s = 8; s <= way; s *= 2)
    if (chain(d, way, assoc, cap + s) < d->theta) {
      *line = (unsigned long) s;
      return d->failed ? -1 : 0;
    }
  return -1;
}

struct run {
  double cap, assoc, line, lat;
};

static int
measure_once(struct dc *d, struct run *r)
{
  unsigned long a, c, b;

  r->cap = r->assoc = r->line = NAN;
  d->failed = 0;
  if (levels(d))
    return -1;
  r->lat = d->hit;
  if (capacity(d, &a, &c))
    return 0;
  r->cap = (double) c;
  r->assoc = (double) a;
  if (line_size(d, a, c, &b) == 0)
    r->line = (double) b;
  return 0;
}

static void
set_value(xray_value *v, const double *runs, int n, int confirmed, double value,
          const char *how, const char *why)
{
  size_t len;
  int i;

  snprintf(v->method, sizeof v->method, "%s; %d run%s:", how, n, n == 1 ? "" : "s");
  for (i = 0; i < n && (len = strlen(v->method)) + 12 < sizeof v->method; i++)
    snprintf(v->method + len, sizeof v->method - len, " %.6g", runs[i]);
  if (isnan(value)) {
    snprintf(v->reason, sizeof v->reason, "%s", why);
    return;
  }
  v->value = value;
  v->source = XRAY_SOURCE_MEASURED;
  v->unconfirmed = !confirmed;
}

/* The line: the largest that two runs found, confirmed where three did.
 * A disturbance (the host's SMT sibling) shows in single runs either way,
 * but most often as a smaller line (a compact set looks spread): on Ice
 * Lake-SP three of five runs found 8 where the other two found its 64,
 * and single runs 256 and 1024.  So the largest value found twice
 * stands, not the majority, and it needs three runs to be confirmed;
 * otherwise the median of all. */
static int
line_consensus(const double *b, int n, double *out)
{
  double big = NAN;
  int i, j, k;

  for (i = 0; i < n; i++) {
    for (k = 0, j = 0; j < n; j++)
      k += b[j] == b[i];
    if (k >= 2 && !(b[i] <= big))
      big = b[i];
  }
  for (k = 0, j = 0; j < n; j++)
    k += b[j] == big;
  *out = isnan(big) ? xray__median((double *) b, (size_t) n) : big;
  return k >= 3;
}

static int
dcache_run(xray_machine *m, xray_report *r)
{
  xray_value *vc = xray__report_param(r, "XRAY_L1D_SIZE", NULL, NULL);
  xray_value *va = xray__report_param(r, "XRAY_L1D_ASSOC", NULL, NULL);
  xray_value *vb = xray__report_param(r, "XRAY_L1D_LINE", NULL, NULL);
  xray_value *vl = xray__report_param(r, "XRAY_L1D_LATENCY", NULL, NULL);
  struct dc *d = calloc(1, sizeof *d);
  double c[MAX_RUNS], a[MAX_RUNS], b[MAX_RUNS], l[MAX_RUNS], vC, vA, vB;
  int n = 0, okc = 0, oka = 0, okb = 0;
  double deadline = xray__now() + 0.75 * m->budget;
  const char *how = "compact sets <m0, S, n> in random order (Theorem 1, Fig. 8, Fig. 10), "
                    "compact below the midpoint of hit and miss latency";

  if (!vc || !va || !vb || !vl || !d) {
    free(d);
    return -1;
  }
  d->m = m;
  d->rng = UINT64_C(0x243f6a8885a308d3);
  /* Three runs that agree confirm the geometry; at most MAX_RUNS. */
  while (n < MAX_RUNS && (n < 3 || xray__now() < deadline)) {
    struct run one;
    if (measure_once(d, &one)) {
      const char *why = m->error[0] ? m->error : "no step from L1 hit latency in 1 KB to 16 MB";
      snprintf(vc->reason, sizeof vc->reason, "%.190s", why);
      snprintf(va->reason, sizeof va->reason, "%.190s", why);
      snprintf(vb->reason, sizeof vb->reason, "%.190s", why);
      snprintf(vl->reason, sizeof vl->reason, "%.190s", why);
      free(d);
      return n ? 0 : -1;
    }
    c[n] = one.cap;
    a[n] = one.assoc;
    b[n] = one.line;
    l[n] = one.lat;
    n++;
    okc = xray__consensus(c, (size_t) n, 3, 0, &vC);
    oka = xray__consensus(a, (size_t) n, 3, 0, &vA);
    okb = line_consensus(b, n, &vB);
    if (okc && oka && okb)
      break;
  }
  /* The ways and the line are found from the capacity: runs that agree
   * on them off a capacity the runs do not agree on confirm nothing (a
   * wrong capacity puts every line at the first offset tried). */
  oka = oka && okc;
  okb = okb && okc;
  if (!okc)
    vC = xray__median(c, (size_t) n);
  if (!oka)
    vA = xray__median(a, (size_t) n);
  set_value(vc, c, n, okc, vC, how, "the compact-set search did not settle");
  set_value(va, a, n, oka, vA, how, "the compact-set search did not settle");
  set_value(vb, b, n, okb, vB, how, "no offset made the extra address compact");
  {
    double med = xray__median(l, (size_t) n);
    set_value(vl, l, n, 1, floor(med + 0.5), "pointer chase through 8 lines", "");
    vl->exact = med;
    if (m->core_hz > 0)
      vl->ns = med / m->core_hz * 1e9;
  }
  free(d);
  return 0;
}

const xray_probe xray__probe_dcache = {
  "dcache", "L1 data cache capacity, associativity, line size and latency", dcache_run
};
