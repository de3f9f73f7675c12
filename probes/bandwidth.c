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
 * another tenant's share.  Memory is streamed over F and 2F, F from 16
 * times the last level, doubled while one core reads over F more than
 * 5 % faster than over 2F: a shared last level's measured capacity is
 * this process's share of it, the whole may hold many times that, and a
 * stream little larger than a cache whose policy is not LRU still hits
 * it.  With several
 * cores each streams its own arrays, of the footprint over the number of
 * threads but never less than twice the level above (so that the level
 * above never serves them).
 *
 * Every figure is the best of its rounds, each of which measures every
 * value once: a disturbance (another tenant on the host core's sibling
 * thread halves even the L1D's bandwidth) must last through all of them,
 * a second or more apart, to move it.  A value has three rounds, or two
 * where those agree within 5 % and its figures confirm it (see
 * settled()).  On real hardware no round after the first starts past
 * the probe's time budget (--budget): every value is measured once, and
 * one of a single round is not confirmed (a disturbance need last
 * through that one only).
 *
 * The value is the figure at the smaller footprint; it is confirmed when
 * the larger footprint's agrees within 10 % (the plateau is flat: the
 * level, not a transition, served both), for memory on real hardware when
 * its rounds agree within 10 % too (other tenants share it; every core at
 * once gets an effective share there, never confirmed), and when the
 * capacity the footprints rest on is confirmed (for memory: the number of levels, since a level
 * xray missed would serve both as one plateau); it is unknown when the two
 * differ by more than 25 %.  In a cache level a core's own loop may be
 * the limit (its instructions, not the level's ports): a cache level's
 * figure is confirmed only where the same kernel with twice the vectors
 * a step (kernels.h: XRAY__SK_TWIN) moves as much within 10 %, and where
 * it moves more, its figure is the value, unconfirmed. */
#include "probes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 3
/* Rounds every cell has; a cell whose figures' rounds agree within
 * STABLE then has no more (see round_of). */
#define STABLE_ROUNDS 2
#define STABLE 0.05
#define SLOTS 5 /* up to four levels, then memory */
/* Two figures of one value (the two footprints, the loop at twice the
 * unroll, every core's rounds) that differ by at most this are the same
 * figure; footprints that differ by more than NO_PLATEAU stream from no
 * one level, and the value is unknown. */
#define SAME_FIGURE 0.10
#define NO_PLATEAU 0.25
/* Memory's larger footprint is at most MEM_MAX in all on a machine that
 * takes no real time (a model, a recording), and MEM_REAL on this host: two arrays of it (one
 * core's, then every core's share) stay resident between rounds, and
 * with the caches probe's chases a whole run stays within 256 MB; 128 MB
 * is still four times the largest last level we have met (32 MB).  A
 * memory limit set on the process (ulimit -v, a cgroup) lowers it to a
 * quarter of the limit, said where it leaves memory no footprint. */
#define MEM_MAX 1073741824.0
#define MEM_REAL 134217728.0
/* Reads over F and 2F that agree this well: F is past every cache. */
#define SETTLED 0.05

static const char *const upper[XRAY__SK_BASE] = { "READ", "WRITE", "COPY", "TRIAD", "WRITE_NT" };

/* The two footprints of slot i of n levels (i == n: memory: at most
 * cap in all, set as capwhy says); 0 with why if no footprint streams
 * from that level alone. */
static int
footprints(const double *level, int n, int i, double cap, const char *capwhy, double *f,
           char *why, size_t len)
{
  if (i == n) {
    f[0] = fmin(16 * level[n - 1], cap / 2);
    f[1] = 2 * f[0];
    if (f[0] < 2 * level[n - 1]) {
      snprintf(why, len,
               "memory's footprints may not exceed %.0f MB here (%s), less than four times "
               "the last level's %.0f bytes",
               cap / 1048576, capwhy[0] ? capwhy : "the run's memory budget", level[n - 1]);
      return 0;
    }
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

/* What one value rests on: each thread's bytes at the two footprints, the
 * best figure of the rounds there, and why a round could not run. */
struct cell {
  int want, threads, twin; /* twin: the kernel with twice the unroll runs too */
  double b[2], y[2];
  double y2; /* the twin's best at the first footprint */
  double worst[3]; /* the worst round of each figure (as note() counts them) */
  double hz[3]; /* the clock of each figure's best, in Hz (0: none) */
  double spread; /* the most any figure's rounds differ, over its best */
  int rounds;
  char err[200];
};

/* The probe's state: the levels it rests on, and a cell for every slot
 * (level, then memory), kernel, and one core or all. */
struct plan {
  double level[4];
  double memcap;      /* memory's larger footprint at most (MEM_MAX, MEM_REAL) */
  char capwhy[120];   /* what set memcap below MEM_REAL, or "" */
  int n, sure[5], ncpu, nt, width;
  double deadline; /* xray__now() past which no cell starts a second round (0: none) */
  int late; /* the deadline ended the rounds */
  struct cell cell[SLOTS][XRAY__SK_BASE][2];
};

/* Bytes per cycle of kernel k with t threads over b bytes; *hz, the
 * clock those cycles are of (for the figure in bytes a second). */
static double
stream_point(xray_machine *m, size_t k, double b, int t, double *hz)
{
  struct xray__ask a = { .kind = XRAY__ASK_STREAM, .n = k, .arg = b, .a = t, .cycle_hz = hz };
  char label[48];

  *hz = m->core_hz;
  snprintf(label, sizeof label, "%s/%d", xray__skernels[k].name, t);
  return xray__machine_measure(m, "bandwidth", label, b, &a).y;
}

/* Figure j of cell c (0, 1: the footprints; 2: the twin at the first)
 * from one more round, its cycles of a clock of hz: its best (and that
 * one's clock), its worst, and the cell's spread. */
static void
note(struct cell *c, int j, double y, double hz)
{
  double *best = j < 2 ? &c->y[j] : &c->y2;

  if (!(y <= *best)) {
    *best = y;
    c->hz[j] = hz;
  }
  if (c->worst[j] == 0 || y < c->worst[j])
    c->worst[j] = y;
  c->spread = fmax(c->spread, (*best - c->worst[j]) / *best);
}

/* Whether cell c needs no more rounds: its figures' rounds agree within
 * STABLE (disturbed in neither, or alike in both by something that
 * outlasts the second between them, which a further round would meet
 * too), and its figures agree with each other as judge() confirms them
 * (a footprint or the twin that a disturbance of both rounds held back
 * would leave the value unconfirmed, where one more round may not). */
static int
settled(const struct cell *c)
{
  return c->spread <= STABLE && fabs(c->y[1] - c->y[0]) <= SAME_FIGURE * c->y[0]
      && (!c->twin || fabs(c->y2 - c->y[0]) <= SAME_FIGURE * c->y[0]);
}

/* Every wanted cell once: one round; from round STABLE_ROUNDS on, only
 * the cells not settled().  The
 * cells on every core come after those on one, back to back: a CPU left
 * idle between two of them halts, and a hypervisor takes milliseconds to
 * run it again, which each would pay in starting its thread there. */
static void
round_of(xray_machine *m, struct plan *p, int r)
{
  size_t k;
  int i, all, j;

  for (all = 0; all < 2; all++)
    for (i = 0; i < SLOTS; i++)
      for (k = 0; k < XRAY__SK_BASE; k++) {
        struct cell *c = &p->cell[i][k][all];
        if (!c->want || (r >= STABLE_ROUNDS && settled(c)))
          continue;
        if (r > 0 && xray__past(p->deadline)) {
          p->late = 1;
          return;
        }
        c->rounds++;
        for (j = 0; j < 3 && c->want; j++) {
          int twin = j == 2;
          double y, hz;
          if (twin && !c->twin)
            break;
          y = stream_point(m, twin ? XRAY__SK_TWIN(k) : k, c->b[twin ? 0 : j], c->threads, &hz);
          if (!(y > 0) && !twin) {
            snprintf(c->err, sizeof c->err, "%s",
                     m->error[0] ? m->error : "the kernel did not run");
            c->want = 0;
          } else if (y > 0)
            note(c, j, y, hz);
        }
      }
}

/* Whether a cell's figure is its twin's (twice the unroll), which moved
 * more than the first footprint's. */
static int
twin_best(const struct cell *c)
{
  return c->twin && c->y2 > c->y[0];
}

/* A cell's figure: the first footprint's, or its twin's where that moves
 * more. */
static double
best_of(const struct cell *c)
{
  return twin_best(c) ? c->y2 : c->y[0];
}

/* Value v from cell c of slot i (n levels; i == n: memory), kernel k;
 * late: the time budget ended the rounds. */
static void
judge(xray_machine *m, xray_value *v, const struct cell *c, int i, int n, size_t k, int late)
{
  const double *y = c->y, *b = c->b;
  const char *a = c->threads > 1 ? " a thread" : "";
  char text[360], where[24];
  double d, best, hz;
  int cut;

  if (c->err[0]) {
    xray__value_unknown(v, c->err);
    return;
  }
  if (i == n)
    snprintf(where, sizeof where, "memory");
  else
    snprintf(where, sizeof where, "the L%d%s", i + 1, i ? "" : "D");
  d = fabs(y[1] - y[0]) / y[0];
  if (d > NO_PLATEAU) {
    snprintf(text, sizeof text,
             "no plateau in %s: %.1f bytes/cycle over %.0f bytes%s, %.1f over %.0f", where, y[0],
             b[0], a, y[1], b[1]);
    xray__value_unknown(v, text);
    return;
  }
  snprintf(text, sizeof text,
           "%s, %d thread%s, arrays of %.0f bytes%s in all: %.2f bytes/cycle; over %.0f: %.2f "
           "(each the best of %d rounds)",
           xray__skernels[k].name, c->threads, c->threads > 1 ? "s" : "", b[0], a, y[0], b[1], y[1],
           c->rounds);
  if (c->twin && c->y2 > 0) {
    size_t len = strlen(text);
    snprintf(text + len, sizeof text - len, "; twice the unroll: %.2f", c->y2);
  }
  cut = late && c->rounds < ROUNDS && (c->rounds < STABLE_ROUNDS || !settled(c));
  if (cut) {
    size_t len = strlen(text);
    snprintf(text + len, sizeof text - len, "; the time budget (--budget) ended its rounds");
  }
  best = best_of(c);
  hz = twin_best(c) ? c->hz[2] : c->hz[0];
  xray__value_measured(v, best < 100 ? round(best * 10) / 10 : round(best), text);
  v->exact = best;
  if (hz > 0)
    v->gbs = best * hz / 1e9;
  if (cut && c->rounds < STABLE_ROUNDS)
    xray__value_doubt(v, "; not confirmed: the time budget (--budget) left it one round");
  else if (c->twin && !(fabs(c->y2 - y[0]) <= SAME_FIGURE * y[0]))
    xray__value_doubt(v,
                      "; not confirmed: twice the unroll moves %.0f%% %s, so the loop, not "
                      "the level, may be the limit",
                      100 * fabs(c->y2 - y[0]) / y[0], c->y2 > y[0] ? "more" : "less");
  else if (d > SAME_FIGURE)
    xray__value_doubt(v, "; not confirmed: the two footprints differ by %.0f%%", 100 * d);
  /* Other tenants share memory on real hardware: what a core gets of it,
   * one or all at once, is what their load leaves, a share that moves
   * (half as much in one run as in the next, with rounds that agreed in
   * each): an effective figure, as a shared last level's capacity is. */
  else if (i == n && m->tenants) {
    v->effective = 1;
    xray__value_doubt(v, "; not confirmed: %s gets a share of memory that other tenants' load "
                      "moves", c->threads > 1 ? "every core at once" : "one core");
  } else if (m->tenants && c->threads > 1 && (y[0] - c->worst[0]) / y[0] > SAME_FIGURE)
    /* Every core at once in a cache level: a tenant on any of their host
     * cores slows the whole round, so its rounds must agree. */
    xray__value_doubt(v, "; not confirmed: its rounds differ by %.0f%% (other tenants' load)",
                      100 * (y[0] - c->worst[0]) / y[0]);
}

/* Every core at once in a level below the last (the L1D and L2: a core's
 * own on every CPU xray has met) moves the CPUs' count times what one
 * moves alone, where each has a core of its own.  A hypervisor places its
 * CPUs on host cores of its choosing, two on one core for a whole run at
 * times, and may place them otherwise in the next: every round then
 * agrees on a figure that is no property of the machine.  There value v
 * of cell all is confirmed only where it reaches SCALED times the CPUs
 * times one's (cell one). */
#define SCALED 0.75
static void
scaled(xray_value *v, const struct cell *all, const struct cell *one)
{
  double y1 = best_of(one);

  if (v->source == XRAY_SOURCE_MEASURED && !v->unconfirmed && !one->err[0] && y1 > 0
      && v->exact < SCALED * all->threads * y1)
    xray__value_doubt(v,
                      "; not confirmed: %d threads moved %.2f times what one moves alone "
                      "(%.1f bytes/cycle): the hypervisor's CPUs shared host cores while it "
                      "ran, which it may place otherwise from run to run",
                      all->threads, v->exact / y1, y1);
}

/* Whether value (slot i of n, kernel k, all) exists on this machine, else
 * why not in why. */
static int
applies(const struct plan *p, int i, int n, size_t k, int all, const char **why)
{
  if (k == XRAY__SK_WRITE_NT && i != n)
    return -1; /* no such value */
  *why = all && p->ncpu < 2              ? "one usable CPU: every core at once is the one core"
      : k == XRAY__SK_WRITE_NT && !p->nt ? "no non-temporal vector store at these flags"
                                         : NULL;
  return !*why;
}

/* Memory's footprints f, doubled while one core reads over f faster than
 * over 2f: a shared last level's measured capacity is this process's
 * share at the moment (a busy neighbour can make it a tenth of the
 * whole), and a footprint the whole still partly holds is faster than
 * memory, at both footprints alike. */
static void
settle(xray_machine *m, double *f, double cap)
{
  struct xray__ask a = { .kind = XRAY__ASK_STREAM, .n = XRAY__SK_READ, .a = 1 };
  double y[2];
  int j;

  while (f[1] < cap) {
    for (j = 0; j < 2; j++) {
      a.arg = f[j];
      y[j] = xray__machine_measure(m, "bandwidth", "read/1", f[j], &a).y;
    }
    if (!(y[0] > 0 && y[1] > 0) || (y[0] - y[1]) / y[1] <= SETTLED)
      return;
    f[0] = f[1];
    f[1] = fmin(2 * f[1], cap);
  }
}

/* The cells of slot i (n levels; i == n: memory), wanted where its
 * footprints exist (else why says why not). */
static void
plan_slot(xray_machine *m, struct plan *p, int i, int n, char *why, size_t len)
{
  double f[2];
  const char *no;
  size_t k;
  int all, j;

  if (!footprints(p->level, n, i, p->memcap, p->capwhy, f, why, len))
    return;
  if (i == n)
    settle(m, f, p->memcap);
  for (k = 0; k < XRAY__SK_BASE; k++)
    for (all = 0; all < 2; all++) {
      struct cell *c = &p->cell[i][k][all];
      if (applies(p, i, n, k, all, &no) <= 0)
        continue;
      c->want = 1;
      c->twin = i < n && k < XRAY__SK_WRITE_NT;
      c->threads = all ? p->ncpu : 1;
      for (j = 0; j < 2; j++)
        c->b[j] = share(p->level, i, f[j], c->threads);
    }
}

/* Every value of slot i (n levels; i == n: memory): unknown with fail
 * if it is not NULL, or with why the slot has no footprints. */
static void
report_slot(xray_machine *m, xray_report *rep, const struct plan *p, int i, int n, const char *fail,
            const char *why)
{
  char name[48], lv[8];
  const char *no;
  size_t k;
  int all;

  snprintf(lv, sizeof lv, "%d", i + 1);
  for (k = 0; k < XRAY__SK_BASE; k++)
    for (all = 0; all < 2; all++) {
      const struct cell *c = &p->cell[i][k][all];
      xray_value *v;
      int a = applies(p, i, n, k, all, &no);
      if (a < 0)
        continue;
      name_of(name, sizeof name, i, n, k, all);
      if (!(v = xray__report_param(rep, name, lv, NULL)))
        continue;
      if (fail || why[0])
        xray__value_unknown(v, fail ? fail : why);
      else if (!a)
        xray__value_unknown(v, no);
      else {
        judge(m, v, c, i, n, k, p->late);
        if (all && (i == 0 || i < n - 1) && m->timed && xray__os_guest())
          scaled(v, c, &p->cell[i][k][0]);
        if (i == n && p->capwhy[0] && v->source == XRAY_SOURCE_MEASURED) {
          size_t len = strlen(v->method);
          snprintf(v->method + len, sizeof v->method - len,
                   "; footprints at most %.0f MB in all: %s", p->memcap / 1048576, p->capwhy);
        }
      }
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
  struct plan *p = calloc(1, sizeof *p);
  char why[400], fail[200], slotwhy[SLOTS][300];
  int cpu[XRAY__MAX_CPUS], i, r;
  double line;
  size_t first;

  if (!w || !p) {
    free(p);
    return -1;
  }
  memset(slotwhy, 0, sizeof slotwhy);
  p->memcap = m->timed ? MEM_REAL : MEM_MAX;
  if (m->timed) {
    char src[48];
    double lim = xray__os_memory_limit(src, sizeof src);
    if (lim > 0 && lim / 4 < p->memcap) {
      p->memcap = lim / 4;
      snprintf(p->capwhy, sizeof p->capwhy, "a quarter of the %s limit of %.0f MB", src,
               lim / 1048576);
    }
  }
  p->n = xray__data_levels(m, rep, p->level, p->sure, NULL, 4, &line, why, sizeof why);
  /* The budget starts here: the levels may be another probe's run. */
  p->deadline = xray__budget_deadline(m);
  p->ncpu = xray__machine_cpus(m, cpu, XRAY__MAX_CPUS);
  if (!(p->width = xray__machine_sbuild(m, &p->nt))) {
    snprintf(fail, sizeof fail, "%s", m->error);
    xray__value_unknown(w, fail);
  } else {
    char how[160];
    snprintf(how, sizeof how, "the widest vectors of %s at these flags (GNU C vector types)",
             m->compiler_words);
    xray__value_measured(w, p->width, how);
  }
  /* Memory lies past the last level only if every level is known. */
  for (i = 0; p->width && i <= p->n && (i < p->n || !why[0]); i++)
    plan_slot(m, p, i, p->n, slotwhy[i], sizeof slotwhy[i]);
  for (r = 0; r < ROUNDS; r++)
    round_of(m, p, r);
  for (i = 0; i < p->n; i++) {
    char what[40];
    first = rep->n;
    report_slot(m, rep, p, i, p->n, p->width ? NULL : fail, slotwhy[i]);
    /* Footprints chosen from a capacity no second view agreed on may lie
     * in another level. */
    snprintf(what, sizeof what, "the L%d%s's capacity", i + 1, i ? "" : "D");
    if (!p->sure[i])
      rests_on_unsure(rep, first, what);
  }
  /* A level not established leaves it and memory unknown: no footprint
   * is known to stream from either alone. */
  if (why[0] && p->n < 4)
    report_slot(m, rep, p, p->n, p->n + 1, why, "");
  first = rep->n;
  report_slot(m, rep, p, p->n, p->n, !p->width ? fail : why[0] ? why : NULL, slotwhy[p->n]);
  /* A level xray did not find would serve footprints past the last one
   * it did, as the same plateau: memory needs the number of levels. */
  if (!p->sure[4])
    rests_on_unsure(rep, first, "the number of cache levels");
  free(p);
  return 0;
}

const xray_probe xray__probe_bandwidth = { "bandwidth",
                                           "bytes per cycle each data level and memory stream",
                                           run_bandwidth };
