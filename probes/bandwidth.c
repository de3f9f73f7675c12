/* Bandwidth of each data level and of memory: bytes per cycle that
 * streaming kernels (read, write, copy, STREAM's triad, and a write with
 * non-temporal stores to memory) move through arrays that fit the level
 * and not the one above it, on one core and on every usable core at once.
 * The kernels are compiled with the user's compiler and flags and move
 * the widest vectors those flags offer (XRAY_BW_WIDTH): the bandwidth the
 * user's own loops can get, which narrower flags lower in the L1D.
 *
 * Bytes are those the kernel's loads and stores name (as STREAM and
 * likwid-bench count them): a store that misses also reads its line
 * first, which a level's write figure then includes in its time.
 *
 * Footprints: a level of capacity C under one of capacity P is streamed
 * over max(2P, C/4) bytes and over max(1.5 times that, C/2): a stream over
 * more than the level above holds misses it on every line (any recency
 * policy), and half the level leaves room for the code, the stack and
 * another tenant's share.  Memory is streamed over 8 and 16 times the
 * last level: a shared last level's measured capacity is this process's
 * share of it, and the whole may hold several times that.  With several
 * cores each streams its own arrays, of the footprint over the number of
 * threads but never less than twice the level above (so that the level
 * above never serves them).
 *
 * The value is the figure at the smaller footprint; it is confirmed when
 * the larger footprint's agrees within 10 % (the plateau is flat: the
 * level, not a transition, served both) and the capacity the footprints
 * rest on is confirmed (for memory: the number of levels, since a level
 * xray missed would serve both as one plateau); it is unknown when the two
 * differ by more than 25 %. */
#include "xray-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CPUS 1024
#define AGREE 0.10
#define APART 0.25
/* Memory footprints stop at 2 GB: more costs seconds and adds nothing
 * once they are well past every cache. */
#define MEM_MAX 2147483648.0

static const char *const upper[XRAY__SK_N] = { "READ", "WRITE", "COPY", "TRIAD", "WRITE_NT" };

/* The two footprints of slot i of n levels (i == n: memory); 0 with why
 * if no footprint streams from that level alone. */
static int
footprints(const double *level, int n, int i, double *f, char *why, size_t len)
{
  if (i == n) {
    f[0] = fmin(8 * level[n - 1], MEM_MAX / 2);
    f[1] = fmin(16 * level[n - 1], MEM_MAX);
    return 1;
  }
  f[0] = fmax(i ? 2 * level[i - 1] : 0, level[i] / 4);
  f[1] = fmax(1.5 * f[0], level[i] / 2);
  if (f[1] > 0.75 * level[i]) {
    snprintf(why, len,
             "the L%d (%.0f bytes) is less than three times the L%d%s (%.0f): no "
             "footprint streams from it alone",
             i + 1, level[i], i, i == 1 ? "D" : "", level[i - 1]);
    return 0;
  }
  return 1;
}

/* Each thread's share of footprint f in slot i with t threads. */
static double
share(const double *level, int i, double f, int t)
{
  return fmax(f / t, i ? 2 * level[i - 1] : f / t);
}

static void
name_of(char *buf, size_t len, int i, int n, size_t k, int all)
{
  if (i == n)
    snprintf(buf, len, "XRAY_BW_MEM_%s%s", upper[k], all ? "_ALL" : "");
  else
    snprintf(buf, len, "XRAY_BW_L%d_%s%s", i + 1, upper[k], all ? "_ALL" : "");
}

/* One value: kernel k in slot i with t threads over footprints f. */
static void
measure(xray_machine *m, xray_value *v, const double *level, int i, int n, size_t k, int t,
        const double *f)
{
  double y[2], b[2], d;
  char label[48], where[24];
  int j;

  for (j = 0; j < 2; j++) {
    b[j] = share(level, i, f[j], t);
    snprintf(label, sizeof label, "%s/%d", xray__skernels[k].name, t);
    y[j] = xray__point(m, "bandwidth", label, b[j], m->ops->stream(m, k, b[j], t));
    if (!(y[j] > 0)) {
      xray__value_unknown(v, m->error[0] ? m->error : "the kernel did not run");
      return;
    }
  }
  if (i == n)
    snprintf(where, sizeof where, "memory");
  else
    snprintf(where, sizeof where, "the L%d%s", i + 1, i ? "" : "D");
  d = fabs(y[1] - y[0]) / y[0];
  if (d > APART) {
    char why[300];
    snprintf(why, sizeof why,
             "no plateau in %s: %.1f bytes/cycle over %.0f bytes%s, %.1f over "
             "%.0f",
             where, y[0], b[0], t > 1 ? " a thread" : "", y[1], b[1]);
    xray__value_unknown(v, why);
    return;
  }
  {
    char how[300];
    snprintf(how, sizeof how,
             "%s, %d thread%s, arrays of %.0f bytes%s in all: %.2f bytes/cycle; "
             "over %.0f: %.2f",
             xray__skernels[k].name, t, t > 1 ? "s" : "", b[0], t > 1 ? " a thread" : "", y[0],
             b[1], y[1]);
    xray__value_measured(v, y[0] < 100 ? round(y[0] * 10) / 10 : round(y[0]), how);
  }
  v->exact = y[0];
  if (m->core_hz > 0)
    v->gbs = y[0] * m->core_hz / 1e9;
  if (d > AGREE)
    xray__value_doubt(v, "; not confirmed: the two footprints differ by %.0f%%", 100 * d);
}

/* Every value of slot i (n levels; i == n: memory); all unknown with
 * fail if it is not NULL. */
static void
slot_values(xray_machine *m, xray_report *rep, const double *level, int i, int n, int ncpu, int nt,
            const char *fail)
{
  double f[2];
  char name[48], why[300], lv[8];
  size_t k;
  int all, ok = !fail;

  snprintf(lv, sizeof lv, "%d", i + 1);
  if (fail)
    snprintf(why, sizeof why, "%s", fail);
  else
    ok = footprints(level, n, i, f, why, sizeof why);
  for (k = 0; k < XRAY__SK_N; k++)
    for (all = 0; all < 2; all++) {
      xray_value *v;
      if (k == XRAY__SK_WRITE_NT && i != n)
        continue;
      name_of(name, sizeof name, i, n, k, all);
      if (!(v = xray__report_param(rep, name, lv, NULL)))
        continue;
      if (!ok)
        xray__value_unknown(v, why);
      else if (all && ncpu < 2)
        xray__value_unknown(v, "one usable CPU: every core at once is the one core");
      else if (k == XRAY__SK_WRITE_NT && !nt)
        xray__value_unknown(v, "no non-temporal vector store at these flags");
      else
        measure(m, v, level, i, n, k, all ? ncpu : 1, f);
    }
}

/* Values rep->v[first..] that were measured are not confirmed: what
 * (a capacity, or the number of levels) that their footprints rest on is
 * not. */
static void
rests_on_unsure(xray_report *rep, size_t first, const char *what)
{
  for (; first < rep->n; first++)
    if (rep->v[first].source == XRAY_SOURCE_MEASURED)
      xray__value_doubt(&rep->v[first], "; not confirmed: %s is not", what);
}

static int
run_bandwidth(xray_machine *m, xray_report *rep)
{
  xray_value *w = xray__report_param(rep, "XRAY_BW_WIDTH", NULL, NULL);
  double level[4], line;
  int cpu[MAX_CPUS], sure[5], n, ncpu, width, nt = 0, i;
  char why[400], fail[200];
  size_t first;

  if (!w)
    return -1;
  n = xray__data_levels(m, rep, level, sure, 4, &line, why, sizeof why);
  ncpu = m->ops->cpus(m, cpu, MAX_CPUS);
  if (!(width = m->ops->sbuild(m, &nt))) {
    snprintf(fail, sizeof fail, "%s", m->error);
    xray__value_unknown(w, fail);
  } else {
    char how[160];
    snprintf(how, sizeof how, "the widest vectors of %s at these flags (GNU C vector types)",
             m->simulated ? "the simulated compiler" : "the compiler");
    xray__value_measured(w, width, how);
  }
  for (i = 0; i < n; i++) {
    char what[40];
    first = rep->n;
    slot_values(m, rep, level, i, n, ncpu, nt, width ? NULL : fail);
    /* Footprints chosen from a capacity no second view agreed on may lie
     * in another level. */
    snprintf(what, sizeof what, "the L%d%s's capacity", i + 1, i ? "" : "D");
    if (!sure[i])
      rests_on_unsure(rep, first, what);
  }
  /* A level not established leaves it and memory unknown: no footprint
   * is known to stream from either alone. */
  if (why[0] && n < 4)
    slot_values(m, rep, level, n, n + 1, ncpu, nt, why);
  first = rep->n;
  slot_values(m, rep, level, n, n, ncpu, nt, !width ? fail : why[0] ? why : NULL);
  /* A level xray did not find would serve footprints past the last one
   * it did, as the same plateau: memory needs the number of levels. */
  if (!sure[4])
    rests_on_unsure(rep, first, "the number of cache levels");
  return 0;
}

const xray_probe xray__probe_bandwidth = { "bandwidth",
                                           "bytes per cycle each data level and memory stream",
                                           run_bandwidth };
