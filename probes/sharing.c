/* Which usable CPUs share each cache level with the first one, and what
 * moving a written line between two cores costs (P-Ray's and Servet's
 * question, answered by timing).
 *
 *   XRAY_L<n>_SHARED_BY  the first usable CPU chases a random chain of
 *                        footprint f, just under level n's capacity C,
 *                        alone and while CPU b chases a copy of its own.
 *                        A private level holds both chains; a shared one
 *                        holds one, and the pair then runs as slowly as
 *                        one chain of 2f alone (the spill).  The score
 *                        (together - alone) / (spill - alone) says which:
 *                        at least SHARED shared, at most PRIVATE private,
 *                        between them unknown, as it is where the spill
 *                        costs less than CONTRAST more than the level (the
 *                        next level is no slower: nothing to see) at C,
 *                        1.5 C and 2.25 C (a shared level's measured
 *                        capacity is an effective share).  f is
 *                        0.6 C and 0.8 C, each in ROUNDS rounds whose
 *                        fastest times count (a disturbance only slows;
 *                        on real hardware, no round after a level's first
 *                        starts past the time budget, and one round
 *                        confirms nothing; two that agree on every
 *                        candidate have no third); the
 *                        value is 1 + the CPUs found sharing.  Levels are
 *                        tested outermost first, and a CPU that does not
 *                        share a level is not tested on the levels inside
 *                        it (they nest).
 *   XRAY_C2C_LATENCY     cycles per round trip of a token between the
 *                        first CPU and the first other core: each writes
 *                        one shared word when it sees the other's last
 *                        write.  The check: the other core writes every
 *                        line of a chain, and the first walks it, reading
 *                        each line (moved from the other's cache) and taking
 *                        it (a locked add), as a side of the ping-pong reads
 *                        the token and writes it; a round trip is two.
 *
 * Confirmed: both footprints and most rounds on their own gave the same
 * verdict for every CPU, and the level's capacity is confirmed or the
 * OS's topology gives the same count; the round trip when twice a line's
 * hand-off agrees within HANDOFF_AGREE, and the CPUs are not a
 * hypervisor's. */
#include "probes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PEERS 32 /* other CPUs tested per level */
#define ROUNDS 3
#define SHARED 0.5
#define PRIVATE 0.2
#define CONTRAST 1.25
/* Twice a line's hand-off within this of the round trip confirms it. */
#define HANDOFF_AGREE 0.20
#define HANDOFF_LINES 2048 /* a chain the other core's L2 holds */

static const double fractions[2] = { 0.6, 0.8 };

enum verdict { UNCLEAR, PRIVATE_TO, SHARED_WITH };

/* A chain of the lines of f bytes in random order, run as kind (a duo
 * CHASE: on CPU a, alone (b < 0) or beside b's own copy; a HANDOFF: b
 * writes it, a reads and takes each line): cycles per line. */
static double
duo_run(xray_machine *m, enum xray__duo_kind kind, int a, int b, double f, double line,
        uint64_t *rng, const char *kernel)
{
  size_t n = (size_t) (f / line), i;
  uint64_t *off = malloc(n * sizeof *off);
  struct xray__chase c;
  struct xray__duo d;
  struct xray__ask ask = { .kind = XRAY__ASK_DUO, .duo = &d };
  double y;

  if (!off || n < 2) {
    free(off);
    snprintf(m->error, sizeof m->error, "out of memory");
    return NAN;
  }
  for (i = 0; i < n; i++)
    off[i] = i * (uint64_t) line;
  xray__shuffle(off, n, rng);
  memset(&c, 0, sizeof c);
  c.off = off;
  c.n = n;
  c.arena = XRAY__ARENA_HUGE;
  memset(&d, 0, sizeof d);
  d.kind = kind;
  d.a = a;
  d.b = b;
  d.c = &c;
  y = xray__machine_measure(m, "sharing", kernel, f, &ask).y;
  free(off);
  return y;
}

/* One level's chains in every round, fp the footprint (0: 0.6 C, 1:
 * 0.8 C): alone, beside each candidate, and twice as long alone (the
 * spill).  Chains alone do not depend on the candidate: measured once
 * (the first round's at 0.6 C by base_for). */
struct level_run {
  double alone[2][ROUNDS], spill[2][ROUNDS], with[MAX_PEERS][2][ROUNDS];
  int rounds; /* measured: fewer than ROUNDS where the time budget ended them */
  int settled; /* or where two settled every candidate */
};

/* A candidate's verdict: from the fastest round of each chain, and how
 * many rounds on their own agree with it. */
struct test {
  enum verdict v;
  int agree; /* both footprints gave v, and most rounds on their own */
  double score[2];
};

/* The capacity to take footprints from: C, or 1.5 or 2.25 times it where
 * a chain of 1.2 C does not yet run CONTRAST times slower than one of
 * 0.6 C alone (a shared last level's measured capacity is this process's
 * share, which moves with the other tenants' load); 0 with why if none
 * does.  The chains at the capacity taken, alone and the spill, are the
 * first round's at the smaller footprint (lr). */
static double
base_for(xray_machine *m, int a, double C, double line, uint64_t *rng, struct level_run *lr,
         char *why, size_t len)
{
  double s, one = 0, two = 0;

  /* A disturbance of the shorter chain would hide the contrast: the
   * faster of two. */
  for (s = 1; s < 3; s *= 1.5) {
    one = fmin(
        duo_run(m, XRAY__DUO_CHASE, a, -1, fractions[0] * s * C, line, rng, "duo-chase/alone"),
        duo_run(m, XRAY__DUO_CHASE, a, -1, fractions[0] * s * C, line, rng, "duo-chase/alone"));
    two =
        duo_run(m, XRAY__DUO_CHASE, a, -1, 2 * fractions[0] * s * C, line, rng, "duo-chase/alone");
    if (isnan(one) || isnan(two)) {
      snprintf(why, len, "%s", m->error);
      return 0;
    }
    if (two >= CONTRAST * one) {
      lr->alone[0][0] = one;
      lr->spill[0][0] = two;
      return s * C;
    }
  }
  snprintf(why, len,
           "a chain of twice %.0f bytes is not %.0f%% slower than one (%.1f against "
           "%.1f cycles), nor at smaller sizes: the next level is too close to tell sharing",
           fractions[0] * s / 1.5 * C, (CONTRAST - 1) * 100, two, one);
  return 0;
}

/* The fastest of y[0..n-1]. */
static double
fastest(const double *y, int n)
{
  double v = y[0];
  int r;

  /* A disturbance only slows a chase. */
  for (r = 1; r < n; r++)
    v = fmin(v, y[r]);
  return v;
}

/* Candidate j (CPU b) of a level measured into lr; 0, or -1 with why if
 * the level shows too little contrast for any verdict. */
static int
judge(const struct level_run *lr, int j, int b, double C, struct test *t, char *why, size_t len)
{
  int r, k, dissent;

  t->agree = 1;
  t->v = UNCLEAR;
  for (k = 0; k < 2; k++) {
    double one = fastest(lr->alone[k], lr->rounds), two = fastest(lr->spill[k], lr->rounds), s;
    enum verdict v;
    if (two < CONTRAST * one) {
      snprintf(why, len,
               "a chain of twice %.0f bytes is not %.0f%% slower than one (%.1f "
               "against %.1f cycles): the next level is too close to tell sharing",
               fractions[k] * C, (CONTRAST - 1) * 100, two, one);
      return -1;
    }
    s = t->score[k] = (fastest(lr->with[j][k], lr->rounds) - one) / (two - one);
    v = s >= SHARED ? SHARED_WITH : s <= PRIVATE ? PRIVATE_TO : UNCLEAR;
    /* Confirmed by most rounds on their own: one disturbed round may
     * dissent. */
    for (r = 0, dissent = 0; r < lr->rounds; r++) {
      double sr = (lr->with[j][k][r] - lr->alone[k][r]) / (lr->spill[k][r] - lr->alone[k][r]);
      dissent += (v == SHARED_WITH && sr < SHARED) || (v == PRIVATE_TO && sr > PRIVATE);
    }
    if (2 * dissent >= lr->rounds)
      t->agree = 0;
    t->v = k == 0 || v == t->v ? v : UNCLEAR;
  }
  if (t->v == UNCLEAR)
    snprintf(why, len,
             "with CPU %d beside it, chains of %.0f and %.0f bytes slowed by %.2f "
             "and %.2f of a spill: neither shared (%.1f) nor private (%.1f)",
             b, fractions[0] * C, fractions[1] * C, t->score[0], t->score[1], SHARED, PRIVATE);
  return 0;
}

/* Whether the rounds so far settle every candidate: each has a verdict,
 * from both footprints, that every round on its own gives too.  Two
 * such rounds are a confirmed verdict already; a third is spent only
 * where they leave one in doubt. */
static int
settled(const struct level_run *lr, const int *cpu, const int *peer, int np, double C)
{
  struct test t;
  char why[400];
  int j;

  for (j = 0; j < np; j++)
    if (judge(lr, j, cpu[peer[j]], C, &t, why, sizeof why) || t.v == UNCLEAR || !t.agree)
      return 0;
  return 1;
}

/* The level's rounds (at least one; no more once xray__now() passes
 * deadline, where it is not 0, or once two settle every candidate). */
static int
measure_level(xray_machine *m, const int *cpu, const int *peer, int np, double C, double line,
              uint64_t *rng, double deadline, struct level_run *lr)
{
  int r, k, j;
  char kern[40];

  for (r = 0; r < ROUNDS && !(r > 0 && xray__past(deadline)); r++) {
    for (k = 0; k < 2; k++) {
      double f = fractions[k] * C;
      int given = r == 0 && k == 0; /* base_for's */
      if (!given
          && isnan(lr->alone[k][r] =
                       duo_run(m, XRAY__DUO_CHASE, cpu[0], -1, f, line, rng, "duo-chase/alone")))
        return -1;
      for (j = 0; j < np; j++) {
        snprintf(kern, sizeof kern, "duo-chase/with-%d", cpu[peer[j]]);
        if (isnan(lr->with[j][k][r] =
                      duo_run(m, XRAY__DUO_CHASE, cpu[0], cpu[peer[j]], f, line, rng, kern)))
          return -1;
      }
      if (!given
          && isnan(lr->spill[k][r] = duo_run(m, XRAY__DUO_CHASE, cpu[0], -1, 2 * f, line, rng,
                                             "duo-chase/alone")))
        return -1;
    }
    lr->rounds = r + 1;
    if (lr->rounds == 2 && (lr->settled = settled(lr, cpu, peer, np, C)))
      return 0;
  }
  return 0;
}

/* The first usable CPU that is not a hardware thread of cpu[0]'s core
 * (its index), by the cores probe's answer or the pairwise test; -1 with
 * why. */
int
xray__other_core(xray_machine *m, const xray_report *rep, const int *cpu, int n, char *why,
                 size_t len)
{
  const xray_value *smt = rep ? xray_report_get(rep, "XRAY_SMT_WAYS") : NULL;
  int j;

  if (n < 2) {
    snprintf(why, len, "one usable CPU: nothing to share with");
    return -1;
  }
  if (smt && smt->source == XRAY_SOURCE_MEASURED && smt->value == 1)
    return 1;
  for (j = 1; j < n && j <= MAX_PEERS; j++) {
    double sp = xray__pair_median(m, "sharing", "pair", cpu[0], cpu[j]);
    if (isnan(sp)) {
      snprintf(why, len, "%s", m->error);
      return -1;
    }
    if (sp >= XRAY__SAME_CORE)
      return j;
  }
  snprintf(why, len, "every usable CPU tested is a hardware thread of CPU %d's core", cpu[0]);
  return -1;
}

/* Doubt on v where its rounds disagreed or were one; whether it did. */
static int
rounds_doubt(xray_value *v, int agree, int rounds)
{
  if (!agree)
    xray__value_doubt(v, "; not confirmed: rounds or footprints disagreed");
  else if (rounds < 2)
    xray__value_doubt(v, "; not confirmed: the time budget (--budget) left it one round");
  return !agree || rounds < 2;
}

/* Level i (index; i >= 1) against the candidates in peer[0..np-1] (their
 * indices in cpu[]); those found sharing it are kept in peer, *np cut to
 * them.  The value of XRAY_L<i+1>_SHARED_BY; no round after the first
 * past deadline (where it is not 0). */
static void
share_level(xray_machine *m, xray_value *v, const int *cpu, int *peer, int *np, int more, double C,
            int sure, double line, uint64_t *rng, double deadline)
{
  char why[400] = "", how[300], src[48];
  int j, kept = 0, agree = 1, rounds = ROUNDS, early = 0;
  struct level_run *lr;
  double os;

  lr = *np ? calloc(1, sizeof *lr) : NULL;
  if (*np && !lr) {
    xray__value_unknown(v, "out of memory");
    return;
  }
  if (*np && !(C = base_for(m, cpu[0], C, line, rng, lr, why, sizeof why))) {
    xray__value_unknown(v, why);
    free(lr);
    return;
  }
  if (*np && measure_level(m, cpu, peer, *np, C, line, rng, deadline, lr)) {
    xray__value_unknown(v, m->error);
    free(lr);
    return;
  }
  if (lr)
    rounds = lr->rounds, early = lr->settled;
  for (j = 0; j < *np; j++) {
    struct test t;
    /* Unknown here: the levels inside are tested against every
     * candidate still. */
    if (judge(lr, j, cpu[peer[j]], C, &t, why, sizeof why) || t.v == UNCLEAR) {
      xray__value_unknown(v, why);
      free(lr);
      return;
    }
    agree &= t.agree;
    if (t.v == SHARED_WITH)
      peer[kept++] = peer[j];
  }
  free(lr);
  if (more && kept == *np) {
    snprintf(why, sizeof why, "at least %d: all %d CPUs tested share it, and %d were not tested",
             kept + 1, kept, more);
    xray__value_unknown(v, why);
    return;
  }
  if (*np)
    snprintf(how, sizeof how,
             "chains of %.0f and %.0f bytes, on CPU %d alone and beside each "
             "of %d others in %d rounds%s: %d share it",
             fractions[0] * C, fractions[1] * C, cpu[0], *np, rounds,
             early                 ? " (they agreed)"
                 : rounds < ROUNDS ? " (the time budget, --budget, ended them)"
                                   : "",
             kept);
  else
    snprintf(how, sizeof how, "no other CPU shares the level outside it");
  xray__value_measured(v, kept + 1, how);
  *np = kept;
  if (m->hardware && xray__os_view(m, v->name, &os, src, sizeof src) == 0) {
    if (os != kept + 1)
      xray__value_doubt(v, "; not confirmed: the OS's topology (%s) says %.0f", src, os);
    else
      rounds_doubt(v, agree, rounds);
    return;
  }
  if (more)
    xray__value_doubt(v, "; not confirmed: %d CPUs were not tested", more);
  else if (!rounds_doubt(v, agree, rounds) && !sure)
    xray__value_doubt(v, "; not confirmed: the level's capacity is not");
}

/* Cycles per round trip of a token through one word between CPUs a and
 * b, the median of ROUNDS. */
static double
round_trip(xray_machine *m, int a, int b)
{
  struct xray__duo d;
  struct xray__ask ask = { .kind = XRAY__ASK_DUO, .duo = &d };
  double y[ROUNDS];
  int r;

  memset(&d, 0, sizeof d);
  d.kind = XRAY__DUO_PINGPONG;
  d.a = a;
  d.b = b;
  for (r = 0; r < ROUNDS; r++)
    if (isnan(y[r] = xray__machine_measure(m, "sharing", "pingpong", (double) b, &ask).y))
      return NAN;
  return xray__median(y, ROUNDS);
}

static void
c2c(xray_machine *m, const xray_report *rep, xray_value *v, const int *cpu, int n, double line,
    uint64_t *rng)
{
  char why[300];
  int j = xray__other_core(m, rep, cpu, n, why, sizeof why), r;
  double one, y[ROUNDS], two;

  if (j < 0) {
    (n < 2 ? xray__value_moot : xray__value_unknown)(v, why);
    return;
  }
  /* The check: the other core writes a chain of HANDOFF_LINES lines, the
   * first reads and takes each, as a side of the ping-pong does the
   * token's; a round trip is two such hand-offs. */
  if (isnan(one = round_trip(m, cpu[0], cpu[j]))) {
    xray__value_unknown(v, m->error);
    return;
  }
  /* The writer stores beside each link: links a line apart, never less
   * than 64 bytes (a line measured smaller is a doubtful one). */
  line = line < 64 ? 64 : line;
  for (r = 0; r < ROUNDS; r++)
    if (isnan(y[r] = duo_run(m, XRAY__DUO_HANDOFF, cpu[0], cpu[j], HANDOFF_LINES * line, line, rng,
                             "handoff"))) {
      xray__value_unknown(v, m->error);
      return;
    }
  two = 2 * xray__median(y, ROUNDS);
  snprintf(why, sizeof why,
           "a token handed back and forth through one word between CPUs %d and %d, median of "
           "%d rounds (twice a line the other wrote, read and taken: %.0f)",
           cpu[0], cpu[j], ROUNDS, two);
  xray__value_measured(v, xray__quantize(one), why);
  v->exact = one;
  xray__value_ns(m, v, one);
  if (fabs(two - one) > HANDOFF_AGREE * one)
    xray__value_doubt(v,
                      "; not confirmed: twice a line the other core wrote, read and taken, "
                      "takes %.0f",
                      two);
  /* A hypervisor places its virtual CPUs on host cores of its choosing
   * and may move them between runs: the two views agree within a run,
   * but the round trip is no property of the machine. */
  else if (m->timed && xray__os_guest())
    xray__value_doubt(v,
                      "; not confirmed: the CPUs are a hypervisor's, which it may place on "
                      "other host cores from run to run");
}

static int
run_sharing(xray_machine *m, xray_report *rep)
{
  xray_value *lat = xray__report_param(rep, "XRAY_C2C_LATENCY", NULL, NULL);
  int cpu[XRAY__MAX_CPUS];
  int peer[MAX_PEERS], sure[5], n, np, i, nl, more = 0;
  double level[4], line;
  char why[400], lv[8], name[48];
  uint64_t rng = 0x5eed5ba7eULL;
  double deadline;

  if (!lat)
    return -1;
  nl = xray__data_levels(m, rep, level, sure, NULL, 4, &line, why, sizeof why);
  /* The budget starts here: the levels may be another probe's run. */
  deadline = xray__budget_deadline(m);
  n = xray__machine_cpus(m, cpu, XRAY__MAX_CPUS);
  n = n > XRAY__MAX_CPUS ? XRAY__MAX_CPUS : n;
  for (np = 0; np + 1 < n && np < MAX_PEERS; np++)
    peer[np] = np + 1;
  if (n > np + 1)
    more = n - np - 1;
  /* A level not established: unknown, and the ones inside it still
   * tested against every candidate. */
  if (why[0] && nl < 4 && nl >= 2) {
    snprintf(lv, sizeof lv, "%d", nl + 1);
    snprintf(name, sizeof name, "XRAY_L%d_SHARED_BY", nl + 1);
    xray__value_unknown(xray__report_param(rep, name, lv, NULL), why);
  }
  for (i = nl - 1; i >= 1; i--) {
    xray_value *v;
    snprintf(lv, sizeof lv, "%d", i + 1);
    snprintf(name, sizeof name, "XRAY_L%d_SHARED_BY", i + 1);
    if (!(v = xray__report_param(rep, name, lv, NULL)))
      continue;
    if (n < 2)
      xray__value_moot(v, "one usable CPU: nothing to share with");
    else
      share_level(m, v, cpu, peer, &np, i == nl - 1 ? more : 0, level[i], sure[i], line, &rng,
                  deadline);
  }
  if (nl < 2)
    xray__value_unknown(xray__report_param(rep, "XRAY_L2_SHARED_BY", "2", NULL),
                        why[0] ? why : "the machine has one cache level");
  c2c(m, rep, lat, cpu, n, line, &rng);
  return 0;
}

const xray_probe xray__probe_sharing = { "sharing",
                                         "CPUs sharing each cache level, core-to-core latency",
                                         run_sharing };
