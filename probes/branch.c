/* The branch-miss penalty (Counter Inspection Toolkit, Sec. 3.2): the
 * cycles one mispredicted conditional branch costs, by timing alone.
 *
 * The kernels (kernels/branch.c) are compiled with the user's compiler
 * and flags and checked from their assembly: the if must stay a branch
 * (a compiler that turns it into a select leaves nothing to mispredict).
 * Their if depends on a fair random bit in the first fraction f of the
 * iterations and is false after them.  A fair random bit defeats every
 * predictor half of the time, and a constant one none, so an iteration
 * mispredicts f/2 times on average whatever the predictor (the paper's
 * condition true once in K iterations, K > 2, mispredicts more than 1/K
 * on real predictors: its Fig. 10).  Cycles per iteration against f/2 is
 * a line; its slope is the penalty.
 *
 * The bit comes out of a dependent chain that bounds the loop, so a
 * misprediction stalls the chain for the time the pipeline takes to
 * refill, whatever its length; two kernels, the second with a longer
 * chain, give two slopes, which must agree within 10 %.  A slope that
 * moves with the chain is not the penalty (the misprediction overlapped
 * with work).
 *
 * What a misprediction costs can differ from one CPU of a kind to
 * another: a core's hardware threads share the front end that refetches,
 * and under a hypervisor a virtual CPU's core is shared with whatever the
 * host runs there.  So the kernels are timed on up to OTHER_CPUS more
 * usable CPUs (spread over them), each in its own clock's cycles.  The
 * value is the least penalty (a disturbance only slows) of the CPUs whose
 * own kernels agree and lie on lines, and it is confirmed only where
 * another such CPU's lies within 10 % of it: a second view.  Where no
 * other CPU could be timed (one usable CPU, a thread that cannot be
 * bound, a recording without them), the two kernels alone confirm it,
 * and the method says so. */
#include "probes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define NFRAC 5
#define ROUNDS 5
/* The two kernels' slopes (penalties) agree within this. */
#define KERNELS_AGREE 0.10
/* A line: the rms residual is within this share of the rise. */
#define LINEAR 0.05
/* A slope below this many cycles is no misprediction cost at all. */
#define MIN_PENALTY 2.0
/* Usable CPUs besides home the kernels are also timed on. */
#define OTHER_CPUS 3

struct line {
  double slope, rise, rms;
};

static struct line
fit(const double *x, const double *y, int n)
{
  struct line l;

  l.slope = xray__fit_line(x, y, (size_t) n, NULL, NULL, &l.rms);
  l.rise = l.slope * (x[n - 1] - x[0]);
  return l;
}

/* The compiled kernel is fit to time: its loop counted, its if a branch. */
static int
kernel_ok(xray_machine *m, size_t k, char *why, size_t len)
{
  const struct xray__bcount *c = xray__machine_bcount(m, k);
  const char *name = xray__bkernel_at(k)->name;

  if (!c)
    snprintf(why, len, "the branch kernels are not built");
  else if (!c->ok)
    snprintf(why, len, "kernel %s as compiled: %s", name, c->why);
  else if (c->selects)
    snprintf(why, len,
             "%s %s turned kernel %s's if into a select (%d select instructions "
             "in its loop): no branch left to mispredict",
             m->cc, m->cflags, name, c->selects);
  else
    return 1;
  return 0;
}

/* Rounds of the sweep: one pass, and a second where the first's two
 * slopes disagree or a line does not fit (noise in a few points). */
#define MAX_ROUNDS (2 * ROUNDS)

struct sweep {
  double v[2][NFRAC][MAX_ROUNDS]; /* cycles per iteration */
  int rounds;
  double t[2][NFRAC]; /* their medians */
  struct line l[2];
};

static const size_t k[2] = { XRAY__BK_PENALTY, XRAY__BK_PENALTY_LONG };
static const double frac[NFRAC] = { 0, 0.25, 0.5, 0.75, 1 };

/* ROUNDS more rounds of kernels k[0..1] at every fraction, interleaved,
 * on CPU cpu (-1: home); the medians so far and their lines.  -1 if a
 * point cannot be timed. */
static int
sweep(xray_machine *m, int cpu, struct sweep *s)
{
  struct xray__ask a = { .kind = XRAY__ASK_BTIME, .away = cpu + 1 };
  double x[NFRAC];
  char label[2][48];
  int r, i, f;

  /* Home's labels are the kernels' names, as recordings hold them. */
  for (i = 0; i < 2; i++)
    snprintf(label[i], sizeof label[i], cpu < 0 ? "%s" : "%s/cpu%d", xray__bkernel_at(k[i])->name,
             cpu);
  for (r = 0; r < ROUNDS; r++, s->rounds++)
    for (i = 0; i < 2; i++)
      for (f = 0; f < NFRAC; f++) {
        a.n = k[i];
        a.arg = frac[f];
        s->v[i][f][s->rounds] = xray__machine_measure(m, "branch", label[i], frac[f], &a).y;
      }
  for (f = 0; f < NFRAC; f++)
    x[f] = frac[f] / 2;
  for (i = 0; i < 2; i++) {
    for (f = 0; f < NFRAC; f++)
      if (isnan(s->t[i][f] = xray__median(s->v[i][f], (size_t) s->rounds)))
        return -1;
    s->l[i] = fit(x, s->t[i], NFRAC);
  }
  return 0;
}

static int
agree(const struct sweep *s)
{
  double p = (s->l[0].slope + s->l[1].slope) / 2;

  return fabs(s->l[0].slope - s->l[1].slope) <= KERNELS_AGREE * p;
}

static int
linear(const struct line *l)
{
  return l->rms <= LINEAR * l->rise;
}

/* The kernels swept on CPU cpu (-1: home): one pass, and a second where
 * the first's two slopes disagree or a line does not fit (noise in a few
 * points); -1 if a point cannot be timed. */
static int
sweep_on(xray_machine *m, int cpu, struct sweep *s)
{
  memset(s, 0, sizeof *s);
  return sweep(m, cpu, s)
      || ((!agree(s) || !linear(&s->l[0]) || !linear(&s->l[1])) && sweep(m, cpu, s));
}

static double
penalty(const struct sweep *s)
{
  return (s->l[0].slope + s->l[1].slope) / 2;
}

/* Whether a CPU's sweep holds on its own: its kernels agree, and their
 * times are lines. */
static int
sound(const struct sweep *s)
{
  return agree(s) && linear(&s->l[0]) && linear(&s->l[1]);
}

/* Up to OTHER_CPUS usable CPUs besides home, spread over them, in on[];
 * how many. */
static int
other_cpus(xray_machine *m, int *on)
{
  int cpu[XRAY__MAX_CPUS], n = xray__machine_cpus(m, cpu, XRAY__MAX_CPUS), i, j, no = 0, pick;

  n = n > XRAY__MAX_CPUS ? XRAY__MAX_CPUS : n;
  for (i = j = 0; i < n; i++)
    if (cpu[i] != m->home)
      cpu[j++] = cpu[i];
  pick = j < OTHER_CPUS ? j : OTHER_CPUS;
  for (i = 0; i < pick; i++)
    on[no++] = cpu[i * j / pick];
  return no;
}

static int
run_branch(xray_machine *m, xray_report *r)
{
  xray_value *pen = xray__report_param(r, "XRAY_BRANCH_MISS_PENALTY", NULL, NULL);
  struct sweep s[1 + OTHER_CPUS];
  int on[1 + OTHER_CPUS], n, i, best = 0, near = 0, others;
  char why[400], where[200] = "";
  double p, deadline;

  if (!pen)
    return -1;
  if (xray__machine_bbuild(m)) {
    xray__value_unknown(pen, m->error);
    return 0;
  }
  for (i = 0; i < 2; i++)
    if (!kernel_ok(m, k[i], why, sizeof why)) {
      xray__value_unknown(pen, why);
      return 0;
    }
  deadline = xray__budget_deadline(m);
  on[0] = m->home;
  if (sweep_on(m, -1, &s[0])) {
    xray__value_unknown(pen, m->error);
    return 0;
  }
  /* The other CPUs: none started past the budget; the first that cannot
   * be timed ends them (the rest would fail alike). */
  others = other_cpus(m, on + 1);
  for (n = 1; n <= others && !xray__past(deadline); n++)
    if (sweep_on(m, on[n], &s[n])) {
      snprintf(where, sizeof where, "; not timed on CPU %d: %.120s", on[n], m->error);
      break;
    }
  if (others && n == 1 && !where[0])
    snprintf(where, sizeof where,
             "; not timed on another CPU: the time budget (--budget) was spent");
  /* The least of the sound sweeps' penalties (home's where none is): a
   * CPU whose kernels disagree gives no value, only noise. */
  for (i = 1; i < n; i++)
    if (sound(&s[i]) && (!sound(&s[best]) || penalty(&s[i]) < penalty(&s[best])))
      best = i;
  p = penalty(&s[best]);
  for (i = 0; i < n; i++)
    near += i != best && sound(&s[i]) && penalty(&s[i]) <= (1 + KERNELS_AGREE) * p;
  if (!(s[best].l[0].slope >= MIN_PENALTY && s[best].l[1].slope >= MIN_PENALTY)) {
    snprintf(why, sizeof why,
             "mispredictions cost %.1f and %.1f cycles, under %.0f: the "
             "kernels' branch was not mispredicted",
             s[best].l[0].slope, s[best].l[1].slope, MIN_PENALTY);
    xray__value_unknown(pen, why);
    return 0;
  }
  if (n > 1) {
    size_t at = strlen(where);
    at += (size_t) snprintf(where + at, sizeof where - at, "; the least of the penalties on CPUs");
    for (i = 0; i < n && at < sizeof where; i++)
      at += (size_t) snprintf(where + at, sizeof where - at, "%s %d: %.1f", i ? "," : "", on[i],
                              penalty(&s[i]));
  }
  snprintf(why, sizeof why,
           "slope of cycles per iteration (%.1f to %.1f) against "
           "mispredictions per iteration (a fair random bit in 0-100 %% of them): %.1f, "
           "and %.1f after a longer chain; %s %s%s",
           s[best].t[0][0], s[best].t[0][NFRAC - 1], s[best].l[0].slope, s[best].l[1].slope, m->cc,
           m->cflags, where);
  xray__value_measured(pen, floor(p + 0.5), why);
  pen->exact = p;
  xray__value_ns(m, pen, p);
  if (!agree(&s[best]))
    xray__value_doubt(pen, "; not confirmed: the two kernels differ by more than %.0f %%",
                      KERNELS_AGREE * 100);
  for (i = 0; i < 2; i++)
    if (!linear(&s[best].l[i]))
      xray__value_doubt(pen,
                        "; not confirmed: the %s kernel's times are not a line (rms %.2f "
                        "of a rise of %.1f cycles)",
                        xray__bkernel_at(k[i])->name, s[best].l[i].rms, s[best].l[i].rise);
  if (n > 1 && near == 0)
    xray__value_doubt(pen,
                      "; not confirmed: no other CPU's penalty (its kernels agreeing) lies within "
                      "%.0f %% of it (what shares a core can slow its refetch)",
                      KERNELS_AGREE * 100);
  return 0;
}

const xray_probe xray__probe_branch = { "branch", "branch-miss penalty (timed, any compiler)",
                                        run_branch };
