/* Operations: latency and initiation interval of C operators on C and
 * vector types (X-Ray Sec. 3.2-3.3), and the timing of kernel sets that
 * fma.c and registers.c share.
 *
 * The kernels are the paper's configurations compiled with the user's
 * compiler and flags, all of a probe's kernels in one compile, in barrier
 * form (src/kernels/generate.c), which keeps each statement whole:
 *
 *   latency      <p0 = p0 OP p1, T, 2>: one dependent chain;
 *   throughput   <p0 = p0 OP pK | ... | p(K-1) = p(K-1) OP pK, T, K+1> for
 *                K = 4, 8, 12 independent chains, the fastest K (enough
 *                chains to hide the latency, few enough not to spill),
 *                each unrolled to N = 48 and 2N statements a loop: the
 *                loop's own instructions (its counter and branch, which
 *                take ALU slots too) cost the same per iteration, so
 *                2N statements take 2N II + L cycles and N take N II + L,
 *                and II = 2 t(2N) - t(N) per statement leaves them out;
 *
 * Each kernel is timed in five rounds, interleaved; the value is the
 * median, and a kernel whose middle three rounds are more than 5 % apart
 * is timed again, and left unconfirmed if they still are. */
#include "probes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 5
#define MAX_OPS 32
#define MAX_K (MAX_OPS * 6)
#define DEFAULT_OPS "long:+,long:*,long:/,double:+,double:*,double:/,double:fma"

static const int chains[3] = { 4, 8, 12 };
#define THRU_UNROLL 48
/* How far below t(2N) the difference may fall: the loop's share of a
 * 2N-statement iteration, at most 4 instructions in 96 on the fastest
 * core (6 ALUs).  A difference farther below is noise in one of the two
 * times (their difference doubles it), and then t(2N) stands. */
#define LOOP_SHARE 0.25

/* The median of ROUNDS times, and whether the middle three agree within
 * 5 %.  Not the smallest: a round can read fast as well as slow here (a
 * 13.5-cycle divide read 12.7 in one round of 12). */
static void
summarise(const double *t, struct xray__timed *out)
{
  double v[ROUNDS];
  int a, b;

  for (a = 0; a < ROUNDS; a++) {   /* insertion sort, NANs last */
    double x = t[a];
    for (b = a; b > 0 && (isnan(v[b - 1]) || v[b - 1] > x); b--)
      v[b] = v[b - 1];
    v[b] = x;
  }
  out->t = v[ROUNDS / 2];
  out->agree = v[ROUNDS / 2 + 1] <= v[ROUNDS / 2 - 1] * 1.05;
}

double
xray__time_kernel(xray_machine *m, const char *probe, const struct xray_cspec *k, size_t i,
                  int *avail, double *stack)
{
  struct xray__ask a = { .kind = XRAY__ASK_KTIME, .n = i, .avail = avail, .stack = stack };
  char label[512];

  snprintf(label, sizeof label, "%s/u%d:%s", k->type, k->unroll, k->stmts);
  return xray__machine_measure(m, probe, label, k->nvars, &a).y;
}

int
xray__time_set(xray_machine *m, const struct xray_cspec *k, size_t n, struct xray__timed *out)
{
  double(*t)[ROUNDS] = calloc(n, sizeof *t);
  size_t i;
  int r, again;

  if (!t) {
    snprintf(m->error, sizeof m->error, "out of memory");
    return -1;
  }
  if (xray__machine_kbuild(m, k, n)) {
    free(t);
    return -1;
  }
  /* Rounds interleave the kernels, so that a disturbance of some
   * milliseconds spoils one round of many kernels, not all rounds of one.
   * Kernels whose rounds disagree are timed once more. */
  for (again = 0; again < 2; again++) {
    for (r = 0; r < ROUNDS; r++)
      for (i = 0; i < n; i++) {
        if (again && out[i].agree)
          continue;
        t[i][r] = xray__time_kernel(m, "ops", &k[i], i, &out[i].avail, &out[i].stack);
      }
    for (i = 0; i < n; i++)
      if (!again || !out[i].agree)
        summarise(t[i], &out[i]);
  }
  free(t);
  return 0;
}

/* "p0 = p0 * p1 + p2" or "p0 = p0 OP p1" over chains 0..k-1 sharing the
 * operands pk (and pk+1). */
static void
chain_spec(struct xray_cspec *c, char *buf, size_t len, const char *type, const char *op,
           int k, int unroll)
{
  size_t o = 0;
  int j, fma = strcmp(op, "fma") == 0;

  for (j = 0; j < k && o < len; j++) {
    if (fma)
      o += (size_t) snprintf(buf + o, len - o, "%sp%d = p%d * p%d + p%d", j ? "|" : "", j, j,
                             k, k + 1);
    else
      o += (size_t) snprintf(buf + o, len - o, "%sp%d = p%d %s p%d", j ? "|" : "", j, j, op,
                             k);
  }
  c->stmts = buf;
  c->type = type;
  c->nvars = k + 1 + fma;
  c->unroll = unroll;
  c->style = XRAY__STYLE_BARRIER;
}

static void
describe_how(xray_machine *m, char *out, size_t len, const char *what, double stack)
{
  if (stack < 0)
    snprintf(out, len, "%s; %s %s", what, m->cc, m->cflags);
  else
    snprintf(out, len, "%s; %s %s; static check: %.2g spill instructions per statement", what,
             m->cc, m->cflags, stack);
}

void
xray__value_ns(xray_machine *m, xray_value *v, double cycles)
{
  if (m->core_hz > 0)
    v->ns = cycles / m->core_hz * 1e9;
}

const xray_report *
xray__resting_on(xray_machine *m, xray_report *rep, const char *const *names,
                 const char *const *deps, xray_report **own)
{
  xray_report *memo;
  size_t i, j;
  int all = rep != NULL;

  *own = NULL;
  for (j = 0; all && names[j]; j++)
    all = xray_report_get(rep, names[j]) != NULL;
  if (all)
    return rep;
  if (!(*own = xray_report_new()))
    return NULL;
  for (j = 0, all = 1; all && names[j]; j++) {
    for (i = 0; i < m->ngiven && strcmp(m->given[i].name, names[j]) != 0; i++)
      ;
    all = i < m->ngiven;
  }
  for (i = 0; all && i < m->ngiven; i++) {
    xray_value *v = xray__report_param(*own, m->given[i].name, NULL, NULL);
    if (v) {
      v->source = XRAY_SOURCE_OVERRIDE;
      v->value = v->exact = m->given[i].value;
      v->unconfirmed = !m->given[i].confirmed;
      snprintf(v->method, sizeof v->method, "given");
    }
  }
  if (all)
    return *own;
  /* A dependency runs once for all the probes of a report: into the
   * report's memo (rep->deps), unless it ran into the report itself or
   * the memo already.  Without a report (or memory for a memo), into
   * *own. */
  if (rep && !rep->deps)
    rep->deps = xray_report_new();
  memo = rep && rep->deps ? rep->deps : *own;
  for (j = 0; deps[j]; j++)
    if (!xray__report_ran(rep, deps[j]) && !xray__report_ran(memo, deps[j]))
      xray_probe_run(xray_probe_find(deps[j]), m, memo);
  if (memo == *own)
    return *own;
  /* *own: the report's values, then the memo's it lacks. */
  for (i = 0; i < rep->n; i++)
    (*own)->v[(*own)->n++] = rep->v[i];
  for (i = 0; i < memo->n && (*own)->n < XRAY__REPORT_MAX; i++)
    if (!xray_report_get(rep, memo->v[i].name))
      (*own)->v[(*own)->n++] = memo->v[i];
  return *own;
}

int
xray__established(const xray_value *v)
{
  return v
      && (xray_value_source(v) == XRAY_SOURCE_MEASURED
          || xray_value_source(v) == XRAY_SOURCE_OVERRIDE)
      && isfinite(xray_value_number(v));
}

int
xray__sure(const xray_value *v)
{
  return xray__established(v)
      && (xray_value_source(v) == XRAY_SOURCE_OVERRIDE ? !v->unconfirmed : xray_value_confirmed(v));
}

int
xray__data_levels(xray_machine *m, xray_report *rep, double *level, int *sure, double *lat, int max,
                  double *line, char *why, size_t len)
{
  static const char *const names[4] = { "XRAY_L1D_SIZE", "XRAY_L2_SIZE", "XRAY_L3_SIZE",
                                        "XRAY_L4_SIZE" };
  static const char *const lats[4] = { "XRAY_L1D_LATENCY", "XRAY_L2_LATENCY", "XRAY_L3_LATENCY",
                                       "XRAY_L4_LATENCY" };
  static const char *const needs[] = { "XRAY_L1D_SIZE", "XRAY_CACHE_LEVELS", NULL };
  static const char *const deps[] = { "dcache", "caches", NULL };
  xray_report *own;
  const xray_report *r = xray__resting_on(m, rep, needs, deps, &own);
  const xray_value *v, *nv;
  int n = 0, i, total = 4;

  *line = 64;
  why[0] = 0;
  if (!r) {
    snprintf(why, len, "out of memory");
    return 0;
  }
  if (xray__established(v = xray_report_get(r, "XRAY_L1D_LINE")))
    *line = xray_value_number(v);
  if (xray__established(nv = xray_report_get(r, "XRAY_CACHE_LEVELS")))
    total = (int) xray_value_number(nv);
  if (sure)
    sure[max] = xray__sure(nv);
  for (i = 0; lat && i < max && i < 4; i++)
    lat[i] = xray__established(v = xray_report_get(r, lats[i])) ? xray_value_number(v) : NAN;
  while (n < max && n < 4 && n < total && xray__established(v = xray_report_get(r, names[n]))
         && (!n || xray_value_number(v) > level[n - 1])) {
    if (sure)
      sure[n] = xray__sure(v);
    level[n++] = xray_value_number(v);
  }
  if (n < max && n < 4 && (n < total || !xray__established(nv))) {
    v = xray_report_get(r, names[n]);
    if (n >= total)
      snprintf(why, len, "the number of cache levels is not established (%s)",
               nv ? xray_value_reason(nv) : "no value");
    else
      snprintf(why, len, "the L%d%s's capacity is not established (%s)", n + 1, n ? "" : "D",
               !v                          ? "no value"
                   : !xray__established(v) ? xray_value_reason(v)
                                           : "not larger than the level above");
  }
  xray_report_free(own);
  return n;
}

/* What run_ops builds and times: the operations, a kernel per operation
 * (latency) or six (throughput: 1, 2 and 4 chains at two unrolls), and
 * their times. */
struct opset {
  struct xray__op ops[MAX_OPS];
  size_t n, nk;
  struct xray_cspec k[MAX_K];
  char text[MAX_K][600];
  struct xray__timed t[MAX_K];
};

/* Operation i's value from its kernels' times. */
static void
judge_op(xray_machine *m, const struct opset *o, size_t i, int throughput, xray_value *v)
{
  const struct xray__timed *b = &o->t[throughput ? i * 6 : i];
  char how[200], what[160];
  const char *s;
  double ii;
  int c, best = 0, len;

  if (!b->avail) {
    snprintf(how, sizeof how, "%s %s does not offer %s at these flags", m->cc, m->cflags,
             o->ops[i].type);
    xray__value_unknown(v, how);
    return;
  }
  /* The fastest K at 2N statements a loop. */
  if (throughput)
    for (best = 3, c = 4; c < 6; c++)
      if (b[c].t < b[best].t)
        best = c;
  if (isnan(b[best].t)) {
    xray__value_unknown(v, m->error);
    return;
  }
  ii = b[best].t;
  if (throughput && !isnan(b[best - 3].t)) {
    double d = 2 * b[best].t - b[best - 3].t;
    ii = fmin(ii, fmax(d, (1 - LOOP_SHARE) * ii));
  }
  s = o->k[throughput ? i * 6 + best : i].stmts;
  len = (int) strcspn(s, "|");
  if (throughput)
    snprintf(what, sizeof what,
             "%d independent chains like %.*s, 2 t(%d) - t(%d) per "
             "statement (%.3g, %.3g)",
             chains[best % 3], len, s, 2 * THRU_UNROLL, THRU_UNROLL, b[best].t, b[best - 3].t);
  else
    snprintf(what, sizeof what, "dependent chain %.*s", len, s);
  describe_how(m, how, sizeof how, what, b[best].stack);
  xray__value_measured(v, xray__quantize(ii), how);
  v->exact = ii;
  v->unconfirmed = !b[best].agree || (throughput && !b[best - 3].agree);
  xray__value_ns(m, v, ii);
}

static int
run_ops(xray_machine *m, xray_report *r, int throughput)
{
  struct opset *o = calloc(1, sizeof *o);
  char err[200];
  size_t i;
  int built, c, rc = 0;

  if (!o
      || xray__parse_ops(m->oplist[0] ? m->oplist : DEFAULT_OPS, o->ops, MAX_OPS, &o->n, err,
                         sizeof err)) {
    snprintf(m->error, sizeof m->error, "%s", o ? err : "out of memory");
    free(o);
    return -1;
  }
  for (i = 0; i < o->n; i++)
    if (!throughput) {
      chain_spec(&o->k[o->nk], o->text[o->nk], sizeof o->text[o->nk], o->ops[i].type, o->ops[i].op,
                 1, 32);
      o->nk++;
    } else
      for (c = 0; c < 6; c++, o->nk++)
        chain_spec(&o->k[o->nk], o->text[o->nk], sizeof o->text[o->nk], o->ops[i].type,
                   o->ops[i].op, chains[c % 3], c < 3 ? THRU_UNROLL : 2 * THRU_UNROLL);
  built = xray__time_set(m, o->k, o->nk, o->t) == 0;
  for (i = 0; i < o->n && rc == 0; i++) {
    char name[64];
    xray_value *v;
    xray__define_name(name, sizeof name, throughput ? "II" : "LAT", o->ops[i].type, o->ops[i].op);
    if (!(v = xray__report_param(r, name, o->ops[i].type, o->ops[i].op)))
      rc = -1;
    else if (!built)
      xray__value_unknown(v, m->error);
    else
      judge_op(m, o, i, throughput, v);
  }
  free(o);
  return rc;
}

static int
run_latency(xray_machine *m, xray_report *r)
{
  return run_ops(m, r, 0);
}

static int
run_throughput(xray_machine *m, xray_report *r)
{
  return run_ops(m, r, 1);
}

const xray_probe xray__probe_latency = { "latency",
                                         "latency of C operators (--ops=TYPE:OP,...), cycles",
                                         run_latency };
const xray_probe xray__probe_throughput = {
  "throughput", "initiation interval of C operators (--ops=TYPE:OP,...), cycles per op",
  run_throughput
};

double
xray__pair_median(xray_machine *m, const char *probe, const char *kernel, int a, int b)
{
  struct xray__ask ask = { .kind = XRAY__ASK_PAIR, .a = a, .b = b, .n = 3 };

  return xray__machine_measure(m, probe, kernel, b, &ask).y;
}
