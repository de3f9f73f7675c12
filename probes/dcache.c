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
 * Where the addresses are a page or more apart they all fall into one
 * set, and two things blur the step there.  A tenant on the host's SMT
 * sibling shares the L1D and keeps lines of its own resident in some
 * sets, which then look smaller, for seconds at a time; it only ever
 * makes a compact set look non-compact, and Theorem 1 holds for any m0, so
 * compact() asks a few sets in turn and takes the first in which the set
 * looks compact, and across runs the largest value that two runs found
 * stands (largest_consensus).  And one line too many for a pseudo-LRU or
 * random set misses on only some loads, which at the midpoint can pass for
 * compact: so there a set is compact only where its loads all hit (within
 * a tenth of the way from hit to miss latency).  At smaller strides, where
 * the addresses spread over many sets, the midpoint stands.
 *
 * A chain is a pointer chase through the addresses, visited in a random
 * order (the paper's i -> (i + p) mod n is a constant stride that Zen 3's
 * prefetcher learns), timed per load against the L1 hit latency and the
 * latency of a chain that surely misses.  The line-size test compares
 * in the first set only, with the midpoint or lower: at any lower
 * threshold than its own two cases' midpoint the next-line prefetcher,
 * which pulls lines into the neighbouring set, makes it fail.
 *
 * The runs' agreement is one view; the capacity they agree on must also
 * hold whole footprints (footprint_check): a chase through every line of
 * 0.97 C in random order hits throughout, and one through 1.5 C misses at
 * least a quarter of the way (random replacement keeps two thirds of it
 * at most).  Compact sets of a random or pseudo-LRU set with long lines
 * can agree on a capacity a quarter to four times the true one, run
 * after run. */
#include "probes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Runs at most: a run takes tens of milliseconds, and a value that three
 * runs must find (largest_consensus) may take more than six on a busy
 * host. */
#define MAX_RUNS 9
#define MAX_N 65536
/* Strides beyond this mean the search went wrong: give up. */
#define MAX_STRIDE ((uint64_t) 64 << 20)

struct dc {
  xray_machine *m;
  uint64_t m0; /* the first address's offset: which sets the chain uses */
  uint64_t off[MAX_N + 1];
  uint64_t rng;
  double hit, miss, theta, low; /* cycles per load */
  int failed;
  const char *tag; /* the chains' label prefix: "" or "fp/" (footprint_check) */
};

/* Cycles per load of <0, S, n>, plus one address at `last` if not 0. */
static double
chain(struct dc *d, uint64_t stride, size_t n, uint64_t last)
{
  size_t i, k = 0;
  char layout[48];
  double y;

  /* The label leaves m0 out: by Theorem 1 it changes no time. */
  for (i = 0; i < n && k < MAX_N; i++)
    d->off[k++] = d->m0 + i * stride;
  if (last)
    d->off[k++] = d->m0 + last;
  snprintf(layout, sizeof layout, "%ss%llu+%llu", d->tag ? d->tag : "",
           (unsigned long long) stride, (unsigned long long) last);
  y = xray__chase_time(d->m, d->off, k, XRAY__ARENA_HUGE, &d->rng, "dcache", layout);
  if (isnan(y))
    d->failed = 1;
  return y;
}

/* Whether <m0, S, n> is compact; with addresses a page or more apart, in
 * the first of a few sets where it looks so (see the top).  The offsets
 * are multiples of 256, so that they start a line of any size up to that. */
static int
compact(struct dc *d, uint64_t stride, size_t n)
{
  static const uint64_t m0[] = { 0, 1280, 2560, 3840 };
  size_t i;
  int yes = 0;

  if (stride < 4096)
    return chain(d, stride, n, 0) < d->theta;
  for (i = 0; i < sizeof m0 / sizeof *m0 && !yes && !d->failed; i++) {
    d->m0 = m0[i];
    yes = chain(d, stride, n, 0) < d->low;
  }
  d->m0 = 0;
  return yes;
}

/* The hit latency from a few lines, the miss latency from a footprint
 * twice the first one that overflows. */
static int
levels(struct dc *d)
{
  uint64_t bytes;
  double y;

  /* The fastest of three: a spike in the one would hide every step. */
  d->hit = fmin(fmin(chain(d, 64, 8, 0), chain(d, 64, 8, 0)), chain(d, 64, 8, 0));
  if (d->failed)
    return -1;
  for (bytes = 1024; bytes <= (16u << 20); bytes *= 2) {
    y = chain(d, 64, (size_t) (bytes / 64), 0);
    if (y > 1.4 * d->hit && chain(d, 64, (size_t) (bytes / 64), 0) > 1.4 * d->hit) {
      d->miss = chain(d, 64, (size_t) (2 * bytes / 64), 0);
      d->theta = (d->hit + d->miss) / 2;
      d->low = d->hit + (d->miss - d->hit) / 10;
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
  /* At s = 8 the extra address shares a line with the one at C (no line
   * is smaller): the set is non-compact, and its time the threshold's
   * other end; where one line too many misses on only some loads
   * (pseudo-LRU, random), the midpoint between it and a hit. */
  double y = chain(d, way, assoc, cap + 8), cut = fmin(d->theta, (d->hit + y) / 2);

  if (d->failed || y < d->low)
    return -1;
  for (s = 16; s <= way; s *= 2)
    if (chain(d, way, assoc, cap + s) < cut) {
      *line = (unsigned long) s;
      return d->failed ? -1 : 0;
    }
  return -1;
}

struct run {
  double cap, assoc, line, lat;
};

/* Whether capacity cap (lines of line bytes) holds whole footprints,
 * judged by the last run's hit and miss latencies: 1, 0 (with why), -1
 * if the chases cannot be timed (a recording made before this check). */
static int
footprint_check(struct dc *d, double cap, double line, char *why, size_t len)
{
  double b = line > 0 ? line : 64, in, out;
  size_t nin = (size_t) (0.97 * cap / b), nout = (size_t) (1.5 * cap / b);

  /* The better of two tries each: a host's other thread slows a chase
   * down now and then, never speeds it up. */
  d->tag = "fp/";
  in = fmin(chain(d, (uint64_t) b, nin, 0), chain(d, (uint64_t) b, nin, 0));
  out = fmax(chain(d, (uint64_t) b, nout, 0), chain(d, (uint64_t) b, nout, 0));
  d->tag = NULL;
  if (d->failed || isnan(in) || isnan(out)) {
    d->failed = 0;
    return -1;
  }
  if (in > d->low || out < d->hit + (d->miss - d->hit) / 4) {
    snprintf(why, len,
             "; not confirmed: random chases through %zu and %zu lines of %.0f bytes (0.97 and "
             "1.5 times %.0f) cost %.1f and %.1f cycles, for hits %.1f and misses %.1f",
             nin, nout, b, cap, in, out, d->hit, d->miss);
    return 0;
  }
  return 1;
}

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

/* The largest value that two runs found, confirmed where three did;
 * where no value was found twice, the median of all, or of an even number
 * the upper of the middle two: a value some run found (the geometry is
 * discrete: the mean of a 16- and a 64-byte line is no line at all).  A
 * tenant makes a run low (see the top), so the largest value found twice
 * stands, not the majority: a tenant that stays through several runs
 * outvotes the truth.  Found twice, not once: a spike can settle the
 * search early, at a stride too small, and make a single run high. */
static int
largest_consensus(const double *b, int n, double *out)
{
  double big = NAN, med;
  int i, j, k;

  for (i = 0; i < n; i++) {
    for (k = 0, j = 0; j < n; j++)
      k += b[j] == b[i];
    if (k >= 2 && !(b[i] <= big))
      big = b[i];
  }
  for (k = 0, j = 0; j < n; j++)
    k += b[j] == big;
  if (isnan(big))
    for (med = xray__median(b, (size_t) n), i = 0; i < n; i++)
      if (b[i] >= med && !(b[i] >= big))
        big = b[i];
  *out = big;
  return k >= 3;
}

/* Up to three footprint checks, a run's worth of time apart: a host's
 * other thread that holds part of the L1D for a while makes a true
 * capacity fail too, a wrong one fails them all.  0 where all failed
 * (why in doubt), else nonzero and doubt empty. */
static int
footprint_checks(struct dc *d, double cap, double line, char *doubt, size_t len)
{
  int k, fc = 0;

  for (k = 0; k < 3 && (fc = footprint_check(d, cap, line, doubt, len)) == 0; k++)
    if (k < 2 && levels(d))
      break;
  if (fc)
    doubt[0] = 0;
  return fc;
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
  char doubt[240] = "";
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
  /* Three runs that agree confirm the geometry; at most MAX_RUNS (all of
   * them on a machine that takes no real time). */
  while (n < MAX_RUNS && (n < 3 || xray__machine_more_runs(m, deadline, n, MAX_RUNS))) {
    struct run one;
    if (measure_once(d, &one)) {
      const char *why = m->error[0] ? m->error : "no step from L1 hit latency in 1 KB to 16 MB";
      /* The runs before stand: they decide, and confirm only as many. */
      if (n)
        break;
      snprintf(vc->reason, sizeof vc->reason, "%.190s", why);
      snprintf(va->reason, sizeof va->reason, "%.190s", why);
      snprintf(vb->reason, sizeof vb->reason, "%.190s", why);
      snprintf(vl->reason, sizeof vl->reason, "%.190s", why);
      free(d);
      return -1;
    }
    c[n] = one.cap;
    a[n] = one.assoc;
    b[n] = one.line;
    l[n] = one.lat;
    n++;
    okc = largest_consensus(c, n, &vC);
    oka = largest_consensus(a, n, &vA);
    okb = largest_consensus(b, n, &vB);
    if (okc && oka && okb)
      break;
  }
  /* The ways and the line are found from the capacity: runs that agree
   * on them off a capacity the runs do not agree on confirm nothing (a
   * wrong capacity puts every line at the first offset tried). */
  oka = oka && okc;
  okb = okb && okc;
  if (okc && !footprint_checks(d, vC, okb ? vB : 64, doubt, sizeof doubt))
    okc = oka = okb = 0;
  set_value(vc, c, n, okc, vC, how, "the compact-set search did not settle");
  set_value(va, a, n, oka, vA, how, "the compact-set search did not settle");
  set_value(vb, b, n, okb, vB, how, "no offset made the extra address compact");
  if (doubt[0]) {
    xray__value_doubt(vc, "%s", doubt);
    xray__value_doubt(va, "%s", doubt);
    xray__value_doubt(vb, "%s", doubt);
  }
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
